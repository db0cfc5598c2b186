// SPDX-License-Identifier: MIT
// Fuzz target: a Streamer driven by a byte stream against a brute-force model written from docs/streaming.md, not
// from the library. The first bytes pick float or double and the configuration: the octree (a tiny, ordinary,
// huge or minute world, centered or not, flat or not, any placement, max_depth 0..10, split_threshold 0..32 with
// full trees kept small, min_node_size), unload_margin (0, lattice steps, random, tiny or the largest finite value)
// and both caps (0, 1..16 or unlimited; a bad margin must be refused). The rest is a sequence of operations on up
// to 64 objects: add (also rows of them), remove, move (small shifts, new boxes, flat ones, boxes out to the
// largest finite values), update with 0..3 sources (positions and prefetch radii from lattice steps to the largest
// finite value, 0 and -0 radii; perspective cameras with a finite or infinite far plane and orthographic ones, in
// either clip depth, or no frustum), update with the last sources swayed a little (objects at the edge, kept by
// the margin), mark_loaded and mark_failed (of Loading objects mostly, else late completions), set_limits, moving
// the streamer, and bad input (NaN, infinite or inverted boxes, duplicate or unknown ids, a bad source among good
// ones, a matrix with a NaN or an infinity).
//
// Why: update() finds the wanted objects through octree walks (plane masks, subtrees reported whole), tests the
// resident ones against grown regions, then runs a state machine under two caps and a priority order; a box on a
// boundary, a source far away, a cap reached mid-list or a slot left on the wrong list each goes wrong quietly. The
// model tests every object against every source by the documented predicates (the frustum's own overlaps; the
// prefetch gap per axis in double; the kept region's plane sums and grown corner box in S; radius + margin in
// double) and applies the documented steps: cancel or unload what no source keeps, rebuild the queue, order the
// wanted Unloaded objects by (squared distance to the nearest source position, id) and issue
// min(max_loads_per_update, max_loads_in_flight - loading) of them. After every update: loads (ids, order,
// distances), unloads, cancels, the stats the docs define (wanted, dequeued, queued, loading, loaded, kept_tests),
// every object's state and box, the counters and last_update() equal the model's, and validate() passes. mark_*
// and remove return what the model says. Bad input throws std::invalid_argument and changes nothing (every object,
// the counters and last_update() compared).
#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <optional>
#include <span>
#include <stdexcept>
#include <tuple>
#include <utility>
#include <vector>

#include <quadrant/streaming.hpp>

#include "fuzz_check.hpp"

namespace {

using namespace quadrant;

// Objects are keys 0..63, each with a fixed, scattered 64-bit id.
constexpr int kKeys = 64;
using Ids = quadrant_fuzz::ScrambledIds<kKeys, 0xD1B54A32D192ED03ull>;
constexpr std::uint64_t id_of(int key) { return Ids::id_of(key); }
constexpr int key_of(std::uint64_t id) { return Ids::key_of(id); }  // -1 when it is none
constexpr std::uint64_t kStranger = Ids::kStranger;

template <class S>
struct Obj {
  Box<3, S> box{};
  StreamState state = StreamState::Unloaded;
};

// What the streamer shows, flat: for every present object (in key order) its id, box and state, then the counters
// and the last update.
template <class S>
struct View {
  std::vector<std::tuple<std::uint64_t, Box<3, S>, StreamState>> objects;
  std::size_t size = 0, loading = 0, loaded = 0, queued = 0;
  std::vector<std::pair<std::uint64_t, S>> loads;
  std::vector<std::uint64_t> unloads, cancels;
  std::array<std::size_t, 8> stats{};
  friend bool operator==(const View&, const View&) = default;
};

std::array<std::size_t, 8> stats_of(const StreamStats& s) {
  return {s.nodes_visited, s.box_tests, s.kept_tests, s.wanted, s.dequeued, s.queued, s.loading, s.loaded};
}

template <class S>
struct Run : quadrant_fuzz::Draw<S> {
  using V = Vec<3, S>;
  using B = Box<3, S>;
  using Source = StreamingSource<S>;
  using D = quadrant_fuzz::Draw<S>;
  using D::center, D::half, D::unit, D::value, D::coordinate;
  static constexpr double kMax = static_cast<double>(std::numeric_limits<S>::max());
  explicit Run(FuzzedDataProvider& provider) : D{provider, kMax}, in(provider) {}

  FuzzedDataProvider& in;  // D's, named here so that its member templates need no `template` keyword

  StreamerConfig<S> config;
  std::optional<Streamer<S>> streamer;
  std::array<std::optional<Obj<S>>, kKeys> model;
  std::size_t per_update = 0, in_flight = 0;  // the caps as last set

  // ---- values ----
  V point() { return V{coordinate(), coordinate(), coordinate()}; }
  S radius() { return D::radius(true); }  // also squares near double's overflow
  B box() {
    B b;
    if (in.ConsumeIntegralInRange<int>(0, 3) != 0) {  // an ordinary object: a lattice cell or a few
      for (int a = 0; a < 3; ++a) {
        const double lo = center + unit / 2 * in.ConsumeIntegralInRange<int>(-48, 48);
        b.min[a] = value(lo);
        b.max[a] = value(lo + unit / 2 * in.ConsumeIntegralInRange<int>(0, 4));
      }
      return b;
    }
    for (int a = 0; a < 3; ++a) {
      const S x = coordinate(), y = in.ConsumeIntegralInRange<int>(0, 3) == 0 ? x : coordinate();
      b.min[a] = std::min(x, y);
      b.max[a] = std::max(x, y);
    }
    return b;
  }
  std::size_t cap() {
    switch (in.ConsumeIntegralInRange<int>(0, 7)) {
      case 0: return 0;
      case 1: return std::numeric_limits<std::size_t>::max();
      default: return in.ConsumeIntegralInRange<std::size_t>(1, 16);
    }
  }
  // A camera: a view-projection matrix (column-major, built in double) looking from the source's position along
  // `dir`: perspective (finite or infinite far plane) or orthographic, OpenGL or Direct3D depth.
  struct Camera {
    double dir[3] = {0, 0, -1};
    double near = 1, far = 100, fovy = 1, aspect = 1, width = 1;
    int kind = 0;  // 0, 1: perspective; 2: perspective with an infinite far plane; 3: orthographic
    bool d3d = false;
  };
  struct Shot {  // a source and how its frustum was made (to sway it)
    Source source;
    std::optional<Camera> camera;
  };
  Camera camera() {
    static constexpr double dirs[][3] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1},
                                         {0, 0, -1}, {1, 1, 0}, {1, -2, 3}, {-3, 1, -1}, {0.6, 0, -0.8}};
    Camera c;
    const std::size_t d = in.ConsumeIntegralInRange<std::size_t>(0, 10);
    for (int i = 0; i < 3; ++i) c.dir[i] = d < 10 ? dirs[d][i] : in.ConsumeFloatingPointInRange<double>(-1, 1);
    c.near = unit / 8 * in.ConsumeIntegralInRange<int>(1, 16);
    c.far = c.near * in.PickValueInArray({2.0, 16.0, 100.0, 1e4});
    c.d3d = in.ConsumeBool();
    c.kind = in.ConsumeIntegralInRange<int>(0, 3);
    c.width = unit * in.ConsumeIntegralInRange<int>(1, 16);
    c.fovy = in.PickValueInArray({0.5, 1.0471975511965976, 1.5707963267948966, 2.6});  // 29, 60, 90, 149 degrees
    c.aspect = in.PickValueInArray({1.0, 16.0 / 9, 0.5});
    return c;
  }
  // The frustum of a camera at `eye`, or none when the library refuses the matrix (a singular one, entries beyond
  // S's range).
  static std::optional<Frustum<S>> frustum(const Camera& c, const V& eye) {
    double f[3] = {c.dir[0], c.dir[1], c.dir[2]};
    const double len = std::sqrt(f[0] * f[0] + f[1] * f[1] + f[2] * f[2]);
    if (!(len > 1e-3)) return std::nullopt;
    for (double& v : f) v /= len;
    // Right-handed look-at: s = f x up, u = s x f.
    double up[3] = {0, 1, 0};
    if (std::abs(f[1]) > 0.99) up[1] = 0, up[2] = 1;
    double s[3] = {f[1] * up[2] - f[2] * up[1], f[2] * up[0] - f[0] * up[2], f[0] * up[1] - f[1] * up[0]};
    const double sl = std::sqrt(s[0] * s[0] + s[1] * s[1] + s[2] * s[2]);
    for (double& v : s) v /= sl;
    const double u[3] = {s[1] * f[2] - s[2] * f[1], s[2] * f[0] - s[0] * f[2], s[0] * f[1] - s[1] * f[0]};
    const double e[3] = {static_cast<double>(eye.x), static_cast<double>(eye.y), static_cast<double>(eye.z)};
    const double view[4][4] = {{s[0], s[1], s[2], -(s[0] * e[0] + s[1] * e[1] + s[2] * e[2])},
                               {u[0], u[1], u[2], -(u[0] * e[0] + u[1] * e[1] + u[2] * e[2])},
                               {-f[0], -f[1], -f[2], f[0] * e[0] + f[1] * e[1] + f[2] * e[2]},
                               {0, 0, 0, 1}};
    double proj[4][4] = {};
    const double n = c.near, far = c.far;
    if (c.kind == 3) {  // orthographic, a box of half-width `width`
      proj[0][0] = 1 / c.width, proj[1][1] = 1 / c.width;
      proj[2][2] = c.d3d ? -1 / (far - n) : -2 / (far - n);
      proj[2][3] = c.d3d ? -n / (far - n) : -(far + n) / (far - n);
      proj[3][3] = 1;
    } else {
      const double t = 1 / std::tan(c.fovy / 2);
      proj[0][0] = t / c.aspect, proj[1][1] = t, proj[3][2] = -1;
      if (c.kind == 2) {  // an infinite far plane
        proj[2][2] = -1, proj[2][3] = c.d3d ? -n : -2 * n;
      } else {
        proj[2][2] = c.d3d ? far / (n - far) : (far + n) / (n - far);
        proj[2][3] = c.d3d ? far * n / (n - far) : 2 * far * n / (n - far);
      }
    }
    std::array<S, 16> m{};
    for (int r = 0; r < 4; ++r)
      for (int col = 0; col < 4; ++col) {
        double v = 0;
        for (int k = 0; k < 4; ++k) v += proj[r][k] * view[k][col];
        m[static_cast<std::size_t>(4 * col + r)] = static_cast<S>(v);
      }
    try {
      return Frustum<S>::from_view_projection(m, c.d3d ? ClipDepth::ZeroToOne : ClipDepth::MinusOneToOne);
    } catch (const std::invalid_argument&) {
      return std::nullopt;
    }
  }
  Shot shot() {
    Shot s;
    s.source.position = point();
    s.source.prefetch_radius = radius();
    if (in.ConsumeBool()) {
      s.camera = camera();
      s.source.frustum = frustum(*s.camera, s.source.position);
    }
    return s;
  }
  Source source() { return shot().source; }
  // The last update's sources, moved a little: a camera that sways or walks, a radius that breathes (objects at
  // the edge of the view, kept by the margin but no longer wanted).
  void sway(Shot& s) {
    V& p = s.source.position;
    for (int a = 0; a < 3; ++a) p[a] = value(static_cast<double>(p[a]) + unit / 8 * in.ConsumeIntegralInRange<int>(-3, 3));
    if (in.ConsumeBool())
      s.source.prefetch_radius = value(
          std::max(0.0, static_cast<double>(s.source.prefetch_radius) + unit / 4 * in.ConsumeIntegralInRange<int>(-4, 4)));
    if (s.camera) {
      for (double& d : s.camera->dir) d += in.ConsumeIntegralInRange<int>(-2, 2) / 32.0;
      s.source.frustum = frustum(*s.camera, p);
    }
  }
  std::vector<Shot> last_shots;
  template <class Pred>
  int pick(Pred pred) {
    const int start = in.ConsumeIntegralInRange<int>(0, kKeys - 1);
    for (int i = 0; i < kKeys; ++i) {
      const int k = (start + i) % kKeys;
      if (pred(k)) return k;
    }
    return -1;
  }
  std::optional<Obj<S>>& obj(int k) { return model[static_cast<std::size_t>(k)]; }
  bool present(int k) const { return model[static_cast<std::size_t>(k)].has_value(); }

  // ---- the model ----
  // Squared point-to-box distance, as documented: per axis the gap double(face) - double(position) (0 inside the
  // slab), squared and summed x, y, z in double.
  QUADRANT_FUZZ_MODEL static double gap2(const V& p, const B& b) {
    double sum = 0;
    for (int a = 0; a < 3; ++a) {
      double g = 0;
      if (p[a] < b.min[a]) g = static_cast<double>(b.min[a]) - static_cast<double>(p[a]);
      else if (p[a] > b.max[a]) g = static_cast<double>(b.max[a]) - static_cast<double>(p[a]);
      sum += g * g;
    }
    return sum;
  }
  // The frustum grown by the margin, as documented: every plane tested as (offset + margin) + n.x x + n.y y + n.z z
  // in S with the box corner farthest along the normal, and the corners' box grown by the margin on every side.
  QUADRANT_FUZZ_MODEL static bool in_grown(const Frustum<S>& f, S margin, const B& b) {
    B corners = f.corner_bounds();
    for (int a = 0; a < 3; ++a) {
      corners.min[a] = corners.min[a] - margin;
      corners.max[a] = corners.max[a] + margin;
    }
    if (!overlaps(corners, b)) return false;
    for (const Plane<S>& pl : f.planes()) {
      S sum = pl.offset + margin;
      for (int a = 0; a < 3; ++a) sum += pl.normal[a] * (pl.normal[a] >= 0 ? b.max[a] : b.min[a]);
      if (sum < 0) return false;
    }
    return true;
  }
  QUADRANT_FUZZ_MODEL static bool wanted_by(const Source& s, const B& b) {
    if (s.frustum && overlaps(*s.frustum, b)) return true;
    const double r = static_cast<double>(s.prefetch_radius);
    return gap2(s.position, b) <= r * r;
  }
  QUADRANT_FUZZ_MODEL static bool kept_by(const Source& s, S margin, const B& b) {
    if (wanted_by(s, b)) return true;
    if (s.frustum && in_grown(*s.frustum, margin, b)) return true;
    const double r = static_cast<double>(s.prefetch_radius) + static_cast<double>(margin);
    return gap2(s.position, b) <= r * r;
  }
  struct Expected {
    std::vector<std::pair<std::uint64_t, S>> loads;
    std::vector<std::uint64_t> unloads, cancels;
    std::size_t wanted = 0, dequeued = 0, queued = 0, loading = 0, loaded = 0, kept_tests = 0;
  };
  QUADRANT_FUZZ_MODEL Expected model_update(std::span<const Source> sources) {
    Expected x;
    std::array<bool, kKeys> wanted{};
    for (int k = 0; k < kKeys; ++k) {
      if (!present(k)) continue;
      bool& w = wanted[static_cast<std::size_t>(k)];
      for (const Source& s : sources) w = w || wanted_by(s, obj(k)->box);
      x.wanted += w;
    }
    // 1. Cancel / unload what no source keeps.
    for (int k = 0; k < kKeys; ++k) {
      if (!present(k)) continue;
      Obj<S>& o = *obj(k);
      if (o.state != StreamState::Loading && o.state != StreamState::Loaded) continue;
      if (wanted[static_cast<std::size_t>(k)]) continue;
      ++x.kept_tests;
      bool kept = false;
      for (const Source& s : sources) kept = kept || kept_by(s, config.unload_margin, o.box);
      if (kept) continue;
      (o.state == StreamState::Loading ? x.cancels : x.unloads).push_back(id_of(k));
      o.state = StreamState::Unloaded;
    }
    std::sort(x.cancels.begin(), x.cancels.end());
    std::sort(x.unloads.begin(), x.unloads.end());
    // 2. The queue is rebuilt.
    for (int k = 0; k < kKeys; ++k) {
      if (!present(k) || obj(k)->state != StreamState::Queued) continue;
      obj(k)->state = StreamState::Unloaded;
      if (!wanted[static_cast<std::size_t>(k)]) ++x.dequeued;
    }
    // 3. Load the nearest wanted Unloaded objects within the caps; queue the rest.
    std::vector<std::tuple<double, std::uint64_t, int>> candidates;
    std::size_t loading = 0;
    for (int k = 0; k < kKeys; ++k) {
      if (!present(k)) continue;
      loading += obj(k)->state == StreamState::Loading;
      if (!wanted[static_cast<std::size_t>(k)] || obj(k)->state != StreamState::Unloaded) continue;
      double d2 = std::numeric_limits<double>::infinity();
      for (const Source& s : sources) d2 = std::min(d2, gap2(s.position, obj(k)->box));
      candidates.emplace_back(d2, id_of(k), k);
    }
    std::sort(candidates.begin(), candidates.end());
    const std::size_t slots = std::min(per_update, in_flight > loading ? in_flight - loading : 0);
    for (std::size_t i = 0; i < candidates.size(); ++i) {
      const auto& [d2, id, k] = candidates[i];
      if (i < slots) {
        obj(k)->state = StreamState::Loading;
        x.loads.emplace_back(id, static_cast<S>(std::sqrt(d2)));
      } else {
        obj(k)->state = StreamState::Queued;
      }
    }
    for (int k = 0; k < kKeys; ++k) {
      if (!present(k)) continue;
      x.queued += obj(k)->state == StreamState::Queued;
      x.loading += obj(k)->state == StreamState::Loading;
      x.loaded += obj(k)->state == StreamState::Loaded;
    }
    return x;
  }

  // ---- the streamer, read ----
  QUADRANT_FUZZ_MODEL View<S> view() {
    View<S> v;
    for (int k = 0; k < kKeys; ++k)
      if (streamer->contains(id_of(k)))
        v.objects.emplace_back(id_of(k), streamer->bounds(id_of(k)), streamer->state(id_of(k)));
    v.size = streamer->size();
    v.loading = streamer->loading();
    v.loaded = streamer->loaded();
    v.queued = streamer->queued();
    const StreamUpdate<S>& u = streamer->last_update();
    for (const StreamLoad<S>& l : u.loads) v.loads.emplace_back(l.id, l.distance);
    v.unloads = u.unloads;
    v.cancels = u.cancels;
    v.stats = stats_of(u.stats);
    return v;
  }
  // Every object's box and state and the counters equal the model's (for_each and the accessors agree).
  QUADRANT_FUZZ_MODEL void check_objects() {
    std::size_t n = 0, loading = 0, loaded = 0, queued = 0, seen = 0;
    for (int k = 0; k < kKeys; ++k) {
      QUADRANT_FUZZ_CHECK(streamer->contains(id_of(k)) == present(k), "contains differs from the model");
      if (!present(k)) continue;
      ++n;
      const Obj<S>& o = *obj(k);
      if (streamer->state(id_of(k)) != o.state)
        std::fprintf(stderr, "key %d: state %s, model %s\n", k, to_string(streamer->state(id_of(k))), to_string(o.state));
      QUADRANT_FUZZ_CHECK(streamer->state(id_of(k)) == o.state, "an object's state differs from the model");
      QUADRANT_FUZZ_CHECK(streamer->bounds(id_of(k)) == o.box, "an object's bounds differ from the model");
      loading += o.state == StreamState::Loading;
      loaded += o.state == StreamState::Loaded;
      queued += o.state == StreamState::Queued;
    }
    streamer->for_each([&](std::uint64_t id, const B& b, StreamState st) {
      ++seen;
      const int k = key_of(id);
      QUADRANT_FUZZ_CHECK(k >= 0 && present(k), "for_each reports an object the model does not hold");
      QUADRANT_FUZZ_CHECK(obj(k)->box == b && obj(k)->state == st, "for_each differs from the model");
    });
    QUADRANT_FUZZ_CHECK(seen == n && streamer->size() == n, "size differs from the model");
    QUADRANT_FUZZ_CHECK(streamer->loading() == loading, "loading() differs from the model");
    QUADRANT_FUZZ_CHECK(streamer->loaded() == loaded, "loaded() differs from the model");
    QUADRANT_FUZZ_CHECK(streamer->queued() == queued, "queued() differs from the model");
  }
  void validate() { quadrant_fuzz::check_valid(*streamer); }

  // ---- operations ----
  void add() {
    const int k = pick([&](int key) { return !present(key); });
    if (k < 0) return;
    const B b = box();
    streamer->add(id_of(k), b);
    obj(k) = Obj<S>{b, StreamState::Unloaded};
  }
  void remove() {
    const int k = pick([&](int key) { return present(key); });
    if (k < 0) return;
    const StreamState was = streamer->remove(id_of(k));
    QUADRANT_FUZZ_CHECK(was == obj(k)->state, "remove returned a state other than the model's");
    obj(k).reset();
  }
  void move() {
    const int k = pick([&](int key) { return present(key); });
    if (k < 0) return;
    B& b = obj(k)->box;
    if (in.ConsumeBool()) {
      b = box();
    } else {  // a small shift
      for (int a = 0; a < 3; ++a) {
        const double d = unit / 8 * in.ConsumeIntegralInRange<int>(-4, 4);
        const S lo = value(static_cast<double>(b.min[a]) + d), hi = value(static_cast<double>(b.max[a]) + d);
        b.min[a] = std::min(lo, hi);
        b.max[a] = std::max(lo, hi);
      }
    }
    streamer->move(id_of(k), b);
  }
  void mark() {
    // Mostly a Loading object; else any (a late completion: false, nothing changes).
    const bool loading_only = in.ConsumeIntegralInRange<int>(0, 3) != 0;
    const int k = pick([&](int key) { return present(key) && (!loading_only || obj(key)->state == StreamState::Loading); });
    if (k < 0) return;
    const bool ok = in.ConsumeBool();
    const bool was_loading = obj(k)->state == StreamState::Loading;
    const bool r = ok ? streamer->mark_loaded(id_of(k)) : streamer->mark_failed(id_of(k));
    QUADRANT_FUZZ_CHECK(r == was_loading, "mark_* returned other than 'was Loading'");
    if (was_loading) obj(k)->state = ok ? StreamState::Loaded : StreamState::Unloaded;
    check_objects();
  }
  void set_limits() {
    per_update = cap();
    in_flight = cap();
    streamer->set_limits(per_update, in_flight);
    QUADRANT_FUZZ_CHECK(streamer->config().max_loads_per_update == per_update &&
                            streamer->config().max_loads_in_flight == in_flight,
                        "config() does not show the new caps");
  }
  void update(bool swaying = false) {
    if (swaying) {
      for (Shot& s : last_shots) sway(s);
    } else {
      last_shots.clear();
      const int n = in.ConsumeIntegralInRange<int>(0, 3);
      for (int i = 0; i < n; ++i) last_shots.push_back(shot());
    }
    std::vector<Source> sources;
    for (const Shot& s : last_shots) sources.push_back(s.source);
    std::array<StreamState, kKeys> before{};
    for (int k = 0; k < kKeys; ++k)
      if (present(k)) before[static_cast<std::size_t>(k)] = obj(k)->state;
    const Expected x = model_update(sources);
    const StreamUpdate<S>& u = streamer->update(sources);
    QUADRANT_FUZZ_CHECK(&u == &streamer->last_update(), "update() does not return last_update()");
    std::vector<std::pair<std::uint64_t, S>> loads;
    for (const StreamLoad<S>& l : u.loads) loads.emplace_back(l.id, l.distance);
    if (loads != x.loads) {
      for (const auto& [id, d] : loads) std::fprintf(stderr, "got  load key %d at %.17g\n", key_of(id), double(d));
      for (const auto& [id, d] : x.loads) std::fprintf(stderr, "want load key %d at %.17g\n", key_of(id), double(d));
    }
    // The documented rules, one by one (the model's answer implies them; they name what broke).
    QUADRANT_FUZZ_CHECK(u.loads.size() <= per_update, "more loads than max_loads_per_update");
    for (std::size_t i = 1; i < u.loads.size(); ++i)
      QUADRANT_FUZZ_CHECK(!(u.loads[i].distance < u.loads[i - 1].distance), "loads not nearest first");
    QUADRANT_FUZZ_CHECK(std::is_sorted(u.unloads.begin(), u.unloads.end()), "unloads not by increasing id");
    QUADRANT_FUZZ_CHECK(std::is_sorted(u.cancels.begin(), u.cancels.end()), "cancels not by increasing id");
    QUADRANT_FUZZ_CHECK(u.unloads == x.unloads, "unloads differ from the model");
    QUADRANT_FUZZ_CHECK(u.cancels == x.cancels, "cancels differ from the model");
    QUADRANT_FUZZ_CHECK(loads == x.loads, "loads differ from the model");
    for (std::uint64_t id : u.unloads) {
      const int k = key_of(id);
      QUADRANT_FUZZ_CHECK(k >= 0 && before[static_cast<std::size_t>(k)] == StreamState::Loaded,
                          "an unload of an object not Loaded");
    }
    const StreamStats& st = u.stats;
    QUADRANT_FUZZ_CHECK(st.wanted == x.wanted, "stats.wanted differs from the model");
    QUADRANT_FUZZ_CHECK(st.dequeued == x.dequeued, "stats.dequeued differs from the model");
    QUADRANT_FUZZ_CHECK(st.queued == x.queued, "stats.queued differs from the model");
    QUADRANT_FUZZ_CHECK(st.loading == x.loading, "stats.loading differs from the model");
    QUADRANT_FUZZ_CHECK(st.loaded == x.loaded, "stats.loaded differs from the model");
    QUADRANT_FUZZ_CHECK(st.kept_tests == x.kept_tests, "stats.kept_tests differs from the model");
    QUADRANT_FUZZ_CHECK(st.objects_tested() == st.box_tests + st.kept_tests, "objects_tested() is not the sum");
    check_objects();
    validate();
  }

  // Bad input throws std::invalid_argument and changes nothing.
  void bad_input() {
    const View<S> before = view();
    const S nan = std::numeric_limits<S>::quiet_NaN(), inf = std::numeric_limits<S>::infinity();
    auto bad_box = [&]() {
      B b = box();
      const int a = in.ConsumeIntegralInRange<int>(0, 2);
      switch (in.ConsumeIntegralInRange<int>(0, 3)) {
        case 0: b.min[a] = nan; break;
        case 1: b.max[a] = inf; break;
        case 2: b.min[a] = -inf; break;
        default:  // min > max
          if (b.min[a] < b.max[a]) std::swap(b.min[a], b.max[a]);
          else b.max[a] = value(static_cast<double>(b.min[a]) - unit);
          if (!(b.min[a] > b.max[a])) b.max[a] = nan;  // the step was lost in rounding
          break;
      }
      return b;
    };
    auto absent = [&]() {
      const int k = pick([&](int key) { return !present(key); });
      return k < 0 || in.ConsumeBool() ? kStranger : id_of(k);
    };
    const int some_key = pick([&](int key) { return present(key); });
    const std::uint64_t some = some_key < 0 ? kStranger : id_of(some_key);
    const int kind = in.ConsumeIntegralInRange<int>(0, 10);
    const bool threw = quadrant_fuzz::throws_invalid([&] {
      switch (kind) {
        case 0: streamer->add(absent(), bad_box()); break;
        case 1: streamer->add(some, some_key < 0 ? bad_box() : box()); break;  // a duplicate id
        case 2: streamer->remove(absent()); break;
        case 3: streamer->move(absent(), box()); break;
        case 4: streamer->move(some, bad_box()); break;
        case 5: streamer->mark_loaded(absent()); break;
        case 6: streamer->mark_failed(absent()); break;
        case 7: in.ConsumeBool() ? (void)streamer->state(absent()) : (void)streamer->bounds(absent()); break;
        case 8: {
          std::array<S, 16> m{};
          for (S& v : m) v = static_cast<S>(in.ConsumeIntegralInRange<int>(-2, 2));
          m[in.ConsumeIntegralInRange<std::size_t>(0, 15)] = in.ConsumeBool() ? nan : inf;
          (void)Frustum<S>::from_view_projection(m);
          break;
        }
        default: {
          // A bad source among good ones: every source is checked before anything is touched.
          std::vector<Source> sources;
          const int n = in.ConsumeIntegralInRange<int>(0, 2);
          for (int i = 0; i < n; ++i) sources.push_back(source());
          Source bad = source();
          switch (in.ConsumeIntegralInRange<int>(0, 4)) {
            case 0: bad.position.x = nan; break;
            case 1: bad.position.z = -inf; break;
            case 2: bad.prefetch_radius = nan; break;
            case 3: bad.prefetch_radius = inf; break;
            default: bad.prefetch_radius = -std::max(S(1), static_cast<S>(unit)); break;
          }
          sources.insert(sources.begin() + in.ConsumeIntegralInRange<std::ptrdiff_t>(0, n), bad);
          streamer->update(sources);
          break;
        }
      }
    });
    if (!threw) std::fprintf(stderr, "bad input kind %d was accepted\n", kind);
    QUADRANT_FUZZ_CHECK(threw, "bad input was accepted");
    QUADRANT_FUZZ_CHECK(view() == before, "bad input changed the streamer");
  }

  void run() {
    streamer.emplace(config);
    per_update = config.max_loads_per_update;
    in_flight = config.max_loads_in_flight;
    for (int op = 0; op < 200 && in.remaining_bytes() > 0; ++op) {
      switch (in.ConsumeIntegralInRange<int>(0, 15)) {
        case 0:
        case 1:
        case 2: add(); break;
        case 3: remove(); break;
        case 4:
        case 5: move(); break;
        case 6:
        case 7: update(); break;
        case 8:
        case 9: update(true); break;
        case 10:
        case 11: mark(); break;
        case 12: set_limits(); break;
        case 13: bad_input(); break;
        case 14: {
          // A burst of objects from a few bytes: a row of lattice cells.
          const B b = box();
          const int n = in.ConsumeIntegralInRange<int>(1, 16), axis = in.ConsumeIntegralInRange<int>(0, 2);
          for (int i = 0; i < n; ++i) {
            const int k = pick([&](int key) { return !present(key); });
            if (k < 0) break;
            B c = b;
            c.min[axis] = value(static_cast<double>(b.min[axis]) + unit / 2 * i);
            c.max[axis] = std::max(c.min[axis], value(static_cast<double>(b.max[axis]) + unit / 2 * i));
            streamer->add(id_of(k), c);
            obj(k) = Obj<S>{c, StreamState::Unloaded};
          }
          break;
        }
        default: {
          // A streamer is movable: the moved-to one carries on with every object, state and the last update.
          const View<S> before = view();
          Streamer<S> other(std::move(*streamer));
          streamer.reset();
          streamer.emplace(std::move(other));
          QUADRANT_FUZZ_CHECK(view() == before, "a moved streamer differs");
          break;
        }
      }
    }
    update();
  }
};

template <class S>
void run_space(FuzzedDataProvider& in) {
  Run<S> r(in);
  switch (in.ConsumeIntegralInRange<int>(0, 4)) {
    case 0: r.half = 1e-3; break;
    case 4: r.half = sizeof(S) == sizeof(float) ? 1e-30 : 1e-159; break;  // minute: squared gaps underflow in double
    case 1: r.half = Run<S>::kMax / 64; break;
    default: r.half = 100; break;
  }
  r.unit = r.half / 8;
  if (in.ConsumeIntegralInRange<int>(0, 3) == 0) r.center = r.half * in.ConsumeIntegralInRange<int>(-2, 2);
  StreamerConfig<S>& c = r.config;
  for (int a = 0; a < 3; ++a) {
    c.tree.world.min[a] = static_cast<S>(r.center - r.half);
    c.tree.world.max[a] = static_cast<S>(r.center + r.half);
  }
  if (in.ConsumeBool()) c.tree.world.max[1] = static_cast<S>(r.center + r.half / 4);  // a flat world
  c.tree.placement = static_cast<Placement>(in.ConsumeIntegralInRange<int>(0, 2));
  c.tree.max_depth = in.ConsumeIntegralInRange<int>(0, 10);  // deeper trees are fuzz_tree's (validate() walks them)
  c.tree.split_threshold = in.ConsumeBool() ? in.ConsumeIntegralInRange<int>(1, 32) : in.ConsumeIntegralInRange<int>(0, 4);
  if (c.tree.split_threshold == 0) c.tree.max_depth = std::min(c.tree.max_depth, 2);  // a full octree: 8^depth leaves
  if (in.ConsumeIntegralInRange<int>(0, 3) == 0)
    c.tree.min_node_size = static_cast<S>(r.unit * in.ConsumeIntegralInRange<int>(0, 8));
  switch (in.ConsumeIntegralInRange<int>(0, 7)) {
    case 0: c.unload_margin = static_cast<S>(in.ConsumeFloatingPointInRange<double>(0, 2 * r.half)); break;
    case 1: c.unload_margin = in.ConsumeBool() ? std::numeric_limits<S>::max() : static_cast<S>(r.unit * 1e-7); break;
    case 2:
    case 3: c.unload_margin = static_cast<S>(r.unit / 4 * in.ConsumeIntegralInRange<int>(1, 32)); break;
    default: c.unload_margin = 0; break;
  }
  c.max_loads_per_update = r.cap();
  c.max_loads_in_flight = r.cap();
  if (in.ConsumeIntegralInRange<int>(0, 15) == 0) {
    StreamerConfig<S> bad = c;
    switch (in.ConsumeIntegralInRange<int>(0, 2)) {
      case 0: bad.unload_margin = std::numeric_limits<S>::quiet_NaN(); break;
      case 1: bad.unload_margin = std::numeric_limits<S>::infinity(); break;
      default: bad.unload_margin = -S(1); break;
    }
    QUADRANT_FUZZ_CHECK(quadrant_fuzz::throws_invalid([&] { Streamer<S> s(bad); }), "a bad configuration was accepted");
  }
  r.run();
}

}  // namespace

QUADRANT_FUZZ_FLOAT_OR_DOUBLE(run_space)

// SPDX-License-Identifier: MIT
// Streamer: every update's decisions against an oracle that recomputes the wanted and kept sets by brute force and
// runs its own copy of the state machine, along random camera paths; bad input; no allocation after warm-up.
//
// The oracle shares no code with the streamer. It keeps a std::map of id -> (box, state) and, every frame:
//  * wanted = some source's frustum meets the box (quadrant::overlaps(Frustum, Box), the library's frustum
//    predicate, itself checked in test_shapes_segment_frustum) or the box lies within its prefetch radius;
//  * kept = wanted, or the box is in some source's frustum grown by the margin, or within radius + margin;
//  * the state machine of docs/streaming.md: cancel / unload what is resident and not kept, drop the queue,
//    sort the wanted Unloaded objects by (distance, id) and issue as many as the caps allow.
// The geometry is written out again here from the documented formulas (same operations in the same order, so
// boundary cases agree bit for bit). Scenes have objects moving, removed mid-load, loads finishing late (after
// their cancellation), failing, reported twice, and several sources with and without frustums.
#include <quadrant/streaming.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <map>
#include <new>
#include <numbers>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "counting_new.hpp"

namespace {

using namespace quadrant;

// ---- cameras ----------------------------------------------------------------------------------------------------

// Right-handed look-at times an OpenGL perspective, in double, returned column-major in S.
template <class S>
std::array<S, 16> view_projection(const std::array<double, 3>& eye, double yaw, double pitch, double fov_y,
                                  double aspect, double near, double far) {
  const double f[3] = {std::cos(pitch) * std::cos(yaw), std::sin(pitch), std::cos(pitch) * std::sin(yaw)};
  double s[3] = {-f[2], 0, f[0]};  // f x up, up = +y
  const double sl = std::hypot(s[0], s[2]);
  s[0] /= sl, s[2] /= sl;
  const double u[3] = {s[1] * f[2] - s[2] * f[1], s[2] * f[0] - s[0] * f[2], s[0] * f[1] - s[1] * f[0]};
  const double view[4][4] = {{s[0], s[1], s[2], -(s[0] * eye[0] + s[1] * eye[1] + s[2] * eye[2])},
                             {u[0], u[1], u[2], -(u[0] * eye[0] + u[1] * eye[1] + u[2] * eye[2])},
                             {-f[0], -f[1], -f[2], f[0] * eye[0] + f[1] * eye[1] + f[2] * eye[2]},
                             {0, 0, 0, 1}};
  const double t = 1 / std::tan(fov_y / 2);
  const double proj[4][4] = {{t / aspect, 0, 0, 0},
                             {0, t, 0, 0},
                             {0, 0, (far + near) / (near - far), 2 * far * near / (near - far)},
                             {0, 0, -1, 0}};
  std::array<S, 16> out{};
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 4; ++c) {
      double v = 0;
      for (int k = 0; k < 4; ++k) v += proj[r][k] * view[k][c];
      out[std::size_t(4 * c + r)] = static_cast<S>(v);
    }
  return out;
}

// A camera wandering over the world: smooth random turns, bounded to the world.
struct Flyer {
  std::array<double, 3> eye;
  double yaw, pitch, speed;
  void step(std::mt19937& rng, double world) {
    std::uniform_real_distribution<double> turn(-0.15, 0.15);
    yaw += turn(rng);
    pitch = std::clamp(pitch + turn(rng) / 2, -0.8, 0.4);
    eye[0] += speed * std::cos(yaw);
    eye[2] += speed * std::sin(yaw);
    for (double& c : eye) c = std::clamp(c, 0.0, world);
    if (eye[0] <= 0 || eye[0] >= world || eye[2] <= 0 || eye[2] >= world) yaw += std::numbers::pi;
  }
};

// ---- the oracle -------------------------------------------------------------------------------------------------

template <class S>
double oracle_distance_squared(const Vec<3, S>& p, const Box<3, S>& b) {
  double sum = 0;
  for (int i = 0; i < 3; ++i) {
    double gap = 0;
    if (p[i] < b.min[i]) gap = double(b.min[i]) - double(p[i]);
    if (p[i] > b.max[i]) gap = double(p[i]) - double(b.max[i]);
    sum += gap * gap;
  }
  return sum;
}

// The frustum with every plane's offset raised by m and its corners' box grown by m, tested with the box's corner
// farthest along each normal.
template <class S>
bool oracle_in_grown_frustum(const Frustum<S>& f, S m, const Box<3, S>& b) {
  const Box<3, S>& c = f.corner_bounds();
  for (int i = 0; i < 3; ++i)
    if (c.max[i] + m < b.min[i] || b.max[i] < c.min[i] - m) return false;
  for (const Plane<S>& pl : f.planes()) {
    S v = pl.offset + m;
    for (int i = 0; i < 3; ++i) v += pl.normal[i] * (pl.normal[i] < 0 ? b.min[i] : b.max[i]);
    if (v < 0) return false;
  }
  return true;
}

template <class S>
class Oracle {
 public:
  struct Object {
    Box<3, S> box;
    StreamState state = StreamState::Unloaded;
  };
  struct Result {
    std::vector<std::pair<std::uint64_t, S>> loads;
    std::vector<std::uint64_t> unloads, cancels;
    std::size_t wanted = 0, dequeued = 0, queued = 0, loading = 0, loaded = 0;
  };

  std::map<std::uint64_t, Object> objects;
  S margin = 0;
  std::size_t per_update = 0, in_flight = 0;

  Result update(const std::vector<StreamingSource<S>>& sources) {
    Result r;
    std::vector<std::uint64_t> wanted_unloaded;
    std::size_t loading = 0;
    for (auto& [id, o] : objects) {
      bool wanted = false, kept = false;
      for (const StreamingSource<S>& s : sources) {
        const double d2 = oracle_distance_squared(s.position, o.box);
        const double rw = double(s.prefetch_radius), rk = double(s.prefetch_radius) + double(margin);
        if ((s.frustum && overlaps(*s.frustum, o.box)) || d2 <= rw * rw) wanted = true;
        if ((s.frustum && oracle_in_grown_frustum(*s.frustum, margin, o.box)) || d2 <= rk * rk) kept = true;
      }
      kept = kept || wanted;
      r.wanted += wanted;
      if (o.state == StreamState::Queued) {
        if (!wanted) ++r.dequeued;
        o.state = StreamState::Unloaded;
      }
      if ((o.state == StreamState::Loading || o.state == StreamState::Loaded) && !kept) {
        (o.state == StreamState::Loading ? r.cancels : r.unloads).push_back(id);
        o.state = StreamState::Unloaded;
      }
      if (o.state == StreamState::Loading) ++loading;
      if (wanted && o.state == StreamState::Unloaded) wanted_unloaded.push_back(id);
    }
    std::vector<std::tuple<double, std::uint64_t>> order;
    for (std::uint64_t id : wanted_unloaded) {
      double best = std::numeric_limits<double>::infinity();
      for (const StreamingSource<S>& s : sources) best = std::min(best, oracle_distance_squared(s.position, objects[id].box));
      order.emplace_back(best, id);
    }
    std::sort(order.begin(), order.end());
    const std::size_t room = in_flight > loading ? in_flight - loading : 0;
    for (std::size_t i = 0; i < order.size(); ++i) {
      const auto [d2, id] = order[i];
      if (i < std::min(per_update, room)) {
        objects[id].state = StreamState::Loading;
        r.loads.emplace_back(id, static_cast<S>(std::sqrt(d2)));
      } else {
        objects[id].state = StreamState::Queued;
      }
    }
    for (auto& [id, o] : objects) {
      r.queued += o.state == StreamState::Queued;
      r.loading += o.state == StreamState::Loading;
      r.loaded += o.state == StreamState::Loaded;
    }
    return r;
  }

  // The documented answer of mark_loaded / mark_failed for a present id.
  bool finish(std::uint64_t id, bool ok) {
    Object& o = objects.at(id);
    if (o.state != StreamState::Loading) return false;
    o.state = ok ? StreamState::Loaded : StreamState::Unloaded;
    return true;
  }
};

// ---- the random run ---------------------------------------------------------------------------------------------

struct RunParams {
  std::uint32_t seed;
  int objects;
  int frames;
  double margin;
  std::size_t per_update, in_flight;
  int cameras;         // sources with a frustum
  int walkers;         // position-only sources
  double prefetch;     // prefetch radius of every source (0: only boxes holding the position)
  Placement placement;
};

std::string describe(const RunParams& p) {
  return "seed " + std::to_string(p.seed) + ", margin " + std::to_string(p.margin) + ", caps " +
         std::to_string(p.per_update) + "/" + std::to_string(p.in_flight) + ", cameras " + std::to_string(p.cameras) +
         ", walkers " + std::to_string(p.walkers) + ", prefetch " + std::to_string(p.prefetch) + ", " +
         to_string(p.placement);
}

template <class S>
Box<3, S> random_box(std::mt19937& rng, double world) {
  std::uniform_real_distribution<double> pos(0, world), side(0, 1), height(0, 40);
  const double s = 1 + 30 * std::pow(side(rng), 3);  // mostly small, some large
  const double x = pos(rng), z = pos(rng), y = std::uniform_real_distribution<double>(0, 1)(rng) < 0.8 ? 0 : height(rng);
  return {{static_cast<S>(x), static_cast<S>(y), static_cast<S>(z)},
          {static_cast<S>(x + s), static_cast<S>(y + s * 0.7), static_cast<S>(z + s)}};
}

template <class S>
void run_against_oracle(const RunParams& p) {
  SCOPED_TRACE(describe(p));
  constexpr double kWorld = 1000;
  std::mt19937 rng(p.seed);
  StreamerConfig<S> config;
  config.tree.world = {{0, 0, 0}, {S(kWorld), S(kWorld), S(kWorld)}};
  config.tree.placement = p.placement;
  config.unload_margin = static_cast<S>(p.margin);
  config.max_loads_per_update = p.per_update;
  config.max_loads_in_flight = p.in_flight;
  Streamer<S> streamer(config);
  Oracle<S> oracle;
  oracle.margin = config.unload_margin;
  oracle.per_update = p.per_update;
  oracle.in_flight = p.in_flight;

  std::uint64_t next_id = 1000;
  std::vector<std::uint64_t> ids;  // present ids
  auto add = [&] {
    const std::uint64_t id = next_id;
    next_id += 1 + rng() % 3;  // sparse, so unknown ids are easy to make
    const Box<3, S> b = random_box<S>(rng, kWorld);
    streamer.add(id, b);
    oracle.objects[id] = {b, StreamState::Unloaded};
    ids.push_back(id);
  };
  for (int i = 0; i < p.objects; ++i) add();

  std::vector<Flyer> flyers;
  std::uniform_real_distribution<double> where(100, kWorld - 100), angle(0, 2 * std::numbers::pi);
  for (int c = 0; c < p.cameras + p.walkers; ++c)
    flyers.push_back({{where(rng), 20 + 30 * std::uniform_real_distribution<double>(0, 1)(rng), where(rng)},
                      angle(rng), -0.2, 4 + 8 * std::uniform_real_distribution<double>(0, 1)(rng)});

  struct Pending {
    std::uint64_t id;
    int due;
    bool ok;
  };
  std::vector<Pending> pending;
  std::vector<std::uint64_t> removed;
  std::size_t loads_seen = 0, unloads_seen = 0, cancels_seen = 0, late_seen = 0, removed_mid_load = 0;

  for (int frame = 0; frame < p.frames; ++frame) {
    SCOPED_TRACE("frame " + std::to_string(frame));
    // Mutations between updates: moves (small, or a teleport), removals (some mid-load), additions.
    std::uniform_int_distribution<int> die(0, 99);
    for (int k = 0; k < 6 && !ids.empty(); ++k) {
      const std::size_t i = rng() % ids.size();
      const std::uint64_t id = ids[i];
      const int roll = die(rng);
      if (roll < 55) {
        Box<3, S> b = oracle.objects[id].box;
        if (roll < 10) {
          b = random_box<S>(rng, kWorld);
        } else {
          const S dx = static_cast<S>(std::uniform_real_distribution<double>(-6, 6)(rng));
          b.min.x += dx, b.max.x += dx;
        }
        streamer.move(id, b);
        oracle.objects[id].box = b;
      } else if (roll < 80) {
        const StreamState expected = oracle.objects[id].state;
        if (expected == StreamState::Loading) ++removed_mid_load;
        ASSERT_EQ(streamer.remove(id), expected) << "remove(" << id << ")";
        oracle.objects.erase(id);
        ids[i] = ids.back();
        ids.pop_back();
        removed.push_back(id);
      } else {
        add();
      }
    }
    // Completions due now; some for removed ids (must throw), some twice (the second is ignored).
    for (std::size_t i = 0; i < pending.size();) {
      if (pending[i].due > frame) {
        ++i;
        continue;
      }
      const Pending c = pending[i];
      pending[i] = pending.back();
      pending.pop_back();
      if (!oracle.objects.contains(c.id)) {
        EXPECT_THROW(c.ok ? streamer.mark_loaded(c.id) : streamer.mark_failed(c.id), std::invalid_argument);
        continue;
      }
      const bool expected = oracle.finish(c.id, c.ok);
      late_seen += !expected;
      ASSERT_EQ(c.ok ? streamer.mark_loaded(c.id) : streamer.mark_failed(c.id), expected) << "id " << c.id;
      if (die(rng) < 5) {
        ASSERT_FALSE(streamer.mark_loaded(c.id)) << "second report of " << c.id;
      }
    }

    std::vector<StreamingSource<S>> sources;
    for (std::size_t c = 0; c < flyers.size(); ++c) {
      flyers[c].step(rng, kWorld);
      StreamingSource<S> s;
      const Flyer& f = flyers[c];
      s.position = {static_cast<S>(f.eye[0]), static_cast<S>(f.eye[1]), static_cast<S>(f.eye[2])};
      s.prefetch_radius = static_cast<S>(p.prefetch);
      if (int(c) < p.cameras)
        s.frustum = Frustum<S>::from_view_projection(view_projection<S>(f.eye, f.yaw, f.pitch, 1.0, 16.0 / 9, 0.5, 150));
      sources.push_back(s);
    }

    const StreamUpdate<S>& got = streamer.update(sources);
    const typename Oracle<S>::Result want = oracle.update(sources);
    ASSERT_EQ(got.loads.size(), want.loads.size());
    for (std::size_t i = 0; i < want.loads.size(); ++i) {
      ASSERT_EQ(got.loads[i].id, want.loads[i].first) << "load " << i;
      ASSERT_EQ(got.loads[i].distance, want.loads[i].second) << "load " << i;
    }
    ASSERT_EQ(got.unloads, want.unloads);
    ASSERT_EQ(got.cancels, want.cancels);
    ASSERT_EQ(got.stats.wanted, want.wanted);
    ASSERT_EQ(got.stats.dequeued, want.dequeued);
    ASSERT_EQ(got.stats.queued, want.queued);
    ASSERT_EQ(got.stats.loading, want.loading);
    ASSERT_EQ(got.stats.loaded, want.loaded);
    ASSERT_LE(got.stats.loading, p.in_flight);
    ASSERT_LE(got.loads.size(), p.per_update);
    for (const auto& [id, o] : oracle.objects) ASSERT_EQ(streamer.state(id), o.state) << "id " << id;
    ASSERT_EQ(streamer.size(), oracle.objects.size());
    if (frame % 8 == 0) streamer.validate();

    for (const StreamLoad<S>& l : got.loads)
      pending.push_back({l.id, frame + int(rng() % 6), die(rng) >= 10});
    loads_seen += got.loads.size();
    unloads_seen += got.unloads.size();
    cancels_seen += got.cancels.size();
  }
  streamer.validate();
  // The run must have exercised what it claims to (each parameter set below is chosen so these happen).
  EXPECT_GT(loads_seen, 0u);
  EXPECT_GT(unloads_seen + cancels_seen, 0u);
  std::printf("  [%s] loads %zu, unloads %zu, cancels %zu, late completions %zu, removed mid-load %zu\n",
              describe(p).c_str(), loads_seen, unloads_seen, cancels_seen, late_seen, removed_mid_load);
}

template <class S>
class StreamerTest : public ::testing::Test {};
using Scalars = ::testing::Types<float, double>;
TYPED_TEST_SUITE(StreamerTest, Scalars);

TYPED_TEST(StreamerTest, MatchesOracleAlongRandomPaths) {
  using S = TypeParam;
  const RunParams runs[] = {
      // seed, objects, frames, margin, per update, in flight, cameras, walkers, prefetch, placement
      {1, 2500, 300, 0, 1000000, 1000000, 1, 0, 0, Placement::Loose},   // no caps, no margin: the visible set
      {2, 2500, 300, 10, 8, 24, 1, 0, 20, Placement::Loose},             // caps bite: queue, cancels
      {3, 2500, 300, 25, 3, 5, 2, 1, 30, Placement::Parent},             // several sources, tight caps
      {4, 2500, 250, 5, 16, 64, 2, 2, 0, Placement::Loose},              // walkers with radius 0
      {5, 2500, 250, 15, 1, 1, 1, 1, 60, Placement::Leaves},             // one load at a time
      {6, 800, 100, 0, 0, 10, 1, 0, 10, Placement::Loose},               // per-update cap 0: everything queues
  };
  for (RunParams p : runs) {
    if (p.per_update == 0) {
      // A paused streamer issues nothing: loads, unloads and cancels stay empty; run it separately.
      SCOPED_TRACE(describe(p));
      StreamerConfig<S> config;
      config.tree.world = {{0, 0, 0}, {S(1000), S(1000), S(1000)}};
      config.max_loads_per_update = 0;
      Streamer<S> streamer(config);
      std::mt19937 rng(p.seed);
      for (int i = 0; i < p.objects; ++i) streamer.add(std::uint64_t(i), random_box<S>(rng, 1000));
      StreamingSource<S> s;
      s.position = {500, 30, 500};
      s.prefetch_radius = 200;
      const StreamUpdate<S>& u = streamer.update(std::span<const StreamingSource<S>>(&s, 1));
      EXPECT_TRUE(u.loads.empty());
      EXPECT_GT(u.stats.queued, 0u);
      EXPECT_EQ(u.stats.queued, u.stats.wanted);
      streamer.set_limits(5, 10);
      EXPECT_EQ(streamer.update(std::span<const StreamingSource<S>>(&s, 1)).loads.size(), 5u);
      continue;
    }
    run_against_oracle<S>(p);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

// The frustum walk reports subtrees wholly inside the frustum without testing their objects: with a dense scene
// under a camera, far fewer boxes are tested than objects found, and the wanted set equals a scan.
TYPED_TEST(StreamerTest, FrustumWalkSkipsObjectsInInsideSubtrees) {
  using S = TypeParam;
  StreamerConfig<S> config;
  config.tree.world = {{0, 0, 0}, {S(1000), S(1000), S(1000)}};
  // Leaves of at most 8: the frustum's boundary layer of leaves, which must be tested, stays thin enough for the
  // bound below (with leaves of 32 it holds more than half of what is found).
  config.tree.split_threshold = 8;
  config.max_loads_per_update = 1u << 30;
  config.max_loads_in_flight = 1u << 30;
  Streamer<S> streamer(config);
  std::mt19937 rng(11);
  std::vector<Box<3, S>> boxes;
  for (int i = 0; i < 20000; ++i) {
    boxes.push_back(random_box<S>(rng, 1000));
    streamer.add(std::uint64_t(i), boxes.back());
  }
  StreamingSource<S> s;
  s.position = {500, 300, 500};
  s.frustum = Frustum<S>::from_view_projection(view_projection<S>({500, 300, 500}, 0.3, -1.2, 1.4, 1.5, 1, 800));
  const StreamUpdate<S>& u = streamer.update(std::span<const StreamingSource<S>>(&s, 1));
  std::size_t scan = 0;
  for (const Box<3, S>& b : boxes) scan += overlaps(*s.frustum, b) || oracle_distance_squared(s.position, b) <= 0;
  EXPECT_EQ(u.stats.wanted, scan);
  EXPECT_EQ(u.loads.size(), scan);
  EXPECT_GT(scan, 2000u);
  EXPECT_LT(u.stats.box_tests * 2, scan) << "box tests " << u.stats.box_tests << " for " << scan << " found";
}

// ---- bad input ----------------------------------------------------------------------------------------------------

template <class S>
struct Snapshot {
  std::vector<std::tuple<std::uint64_t, std::array<S, 6>, StreamState>> objects;
  std::size_t loads = 0, unloads = 0, cancels = 0, loading = 0, loaded = 0, queued = 0;
  bool operator==(const Snapshot&) const = default;
};
template <class S>
Snapshot<S> snapshot(const Streamer<S>& st) {
  Snapshot<S> s;
  st.for_each([&](std::uint64_t id, const Box<3, S>& b, StreamState state) {
    s.objects.emplace_back(id, std::array<S, 6>{b.min.x, b.min.y, b.min.z, b.max.x, b.max.y, b.max.z}, state);
  });
  std::sort(s.objects.begin(), s.objects.end());
  s.loads = st.last_update().loads.size();
  s.unloads = st.last_update().unloads.size();
  s.cancels = st.last_update().cancels.size();
  s.loading = st.loading();
  s.loaded = st.loaded();
  s.queued = st.queued();
  return s;
}

template <class Fn>
void expect_invalid(Fn&& fn, const std::string& message_start) {
  try {
    fn();
    ADD_FAILURE() << "no exception; expected one starting " << message_start;
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()).rfind(message_start, 0), 0u) << e.what();
  }
}

TYPED_TEST(StreamerTest, BadInputThrowsAndChangesNothing) {
  using S = TypeParam;
  const S nan = std::numeric_limits<S>::quiet_NaN(), inf = std::numeric_limits<S>::infinity();
  StreamerConfig<S> config;
  config.tree.world = {{0, 0, 0}, {S(100), S(100), S(100)}};
  config.max_loads_per_update = 2;
  config.max_loads_in_flight = 3;
  config.unload_margin = 1;

  for (S bad : {nan, inf, S(-1)}) {
    StreamerConfig<S> c = config;
    c.unload_margin = bad;
    expect_invalid([&] { Streamer<S> s(c); }, "quadrant: streaming: unload_margin");
  }
  {
    StreamerConfig<S> c = config;
    c.tree.max_depth = -1;
    EXPECT_THROW(Streamer<S> s(c), std::invalid_argument);
  }

  Streamer<S> st(config);
  for (int i = 0; i < 10; ++i) st.add(std::uint64_t(i), {{S(i), 0, 0}, {S(i + 1), 1, 1}});
  StreamingSource<S> src;
  src.position = {5, 0, 0};
  src.prefetch_radius = 3;
  st.update(std::span<const StreamingSource<S>>(&src, 1));  // two Loading, the rest wanted Queued
  ASSERT_TRUE(st.mark_loaded(st.last_update().loads[0].id));
  const Snapshot<S> before = snapshot(st);
  ASSERT_EQ(before.loaded, 1u);
  ASSERT_EQ(before.loading, 1u);
  ASSERT_GT(before.queued, 0u);

  const Box<3, S> good{{0, 0, 0}, {1, 1, 1}};
  const std::vector<Box<3, S>> bad_boxes = {{{nan, 0, 0}, {1, 1, 1}},
                                            {{0, 0, 0}, {1, inf, 1}},
                                            {{0, -inf, 0}, {1, 1, 1}},
                                            {{0, 0, 2}, {1, 1, 1}}};
  for (const Box<3, S>& b : bad_boxes) {
    expect_invalid([&] { st.add(100, b); }, "quadrant: streaming: add");
    expect_invalid([&] { st.move(3, b); }, "quadrant: streaming: move");
  }
  expect_invalid([&] { st.add(4, good); }, "quadrant: streaming: add: duplicate id");
  expect_invalid([&] { st.remove(77); }, "quadrant: streaming: remove: unknown id");
  expect_invalid([&] { st.move(77, good); }, "quadrant: streaming: move: unknown id");
  expect_invalid([&] { st.mark_loaded(77); }, "quadrant: streaming: mark_loaded: unknown id");
  expect_invalid([&] { st.mark_failed(77); }, "quadrant: streaming: mark_failed: unknown id");
  expect_invalid([&] { (void)st.state(77); }, "quadrant: streaming: state: unknown id");
  expect_invalid([&] { (void)st.bounds(77); }, "quadrant: streaming: bounds: unknown id");

  auto bad_source = [&](StreamingSource<S> s, const std::string& what) {
    const StreamingSource<S> two[2] = {src, s};
    expect_invalid([&] { st.update(std::span<const StreamingSource<S>>(two, 2)); },
                   "quadrant: streaming: update: source 1 " + what);
  };
  for (int axis = 0; axis < 3; ++axis) {
    StreamingSource<S> s = src;
    s.position[axis] = nan;
    bad_source(s, "position is NaN");
    s.position[axis] = -inf;
    bad_source(s, "position is infinite");
  }
  for (auto [r, what] : {std::pair{nan, "prefetch_radius is NaN"}, std::pair{inf, "prefetch_radius is infinite"},
                         std::pair{S(-0.5), "prefetch_radius is negative"}}) {
    StreamingSource<S> s = src;
    s.prefetch_radius = r;
    bad_source(s, what);
  }
  // A matrix with NaN never becomes a source: the frustum refuses it.
  std::array<S, 16> m = view_projection<S>({5, 5, 5}, 0, 0, 1, 1, 0.5, 50);
  m[5] = nan;
  expect_invalid([&] { (void)Frustum<S>::from_view_projection(m); }, "quadrant: frustum: ");
  EXPECT_TRUE(snapshot(st) == before);
  st.validate();

  // Late and duplicate completions are ignored, not errors: a Queued object, an Unloaded one, a Loaded one.
  for (std::uint64_t id = 0; id < 10; ++id)
    if (st.state(id) != StreamState::Loading) {
      EXPECT_FALSE(st.mark_loaded(id)) << id;
    }
  EXPECT_TRUE(snapshot(st) == before);
}

// ---- extreme but valid sources ------------------------------------------------------------------------------------

// An update's whole result, copied, to compare two of them field by field.
template <class S>
struct UpdateCopy {
  std::vector<std::pair<std::uint64_t, S>> loads;
  std::vector<std::uint64_t> unloads, cancels;
  std::array<std::size_t, 8> stats{};
  bool operator==(const UpdateCopy&) const = default;
};
template <class S>
UpdateCopy<S> copy_of(const StreamUpdate<S>& u) {
  UpdateCopy<S> c;
  for (const StreamLoad<S>& l : u.loads) c.loads.emplace_back(l.id, l.distance);
  c.unloads = u.unloads;
  c.cancels = u.cancels;
  const StreamStats& s = u.stats;
  c.stats = {s.nodes_visited, s.box_tests, s.kept_tests, s.wanted, s.dequeued, s.queued, s.loading, s.loaded};
  return c;
}

// One update of the streamer and of the oracle with the same sources: every decision, count and state must agree.
template <class S>
void expect_update_matches_oracle(Streamer<S>& streamer, Oracle<S>& oracle,
                                  const std::vector<StreamingSource<S>>& sources) {
  const StreamUpdate<S>* got = nullptr;
  ASSERT_NO_THROW(got = &streamer.update(sources));
  const typename Oracle<S>::Result want = oracle.update(sources);
  ASSERT_EQ(got->loads.size(), want.loads.size());
  for (std::size_t i = 0; i < want.loads.size(); ++i) {
    EXPECT_EQ(got->loads[i].id, want.loads[i].first) << "load " << i;
    EXPECT_EQ(got->loads[i].distance, want.loads[i].second) << "load " << i;
  }
  EXPECT_EQ(got->unloads, want.unloads);
  EXPECT_EQ(got->cancels, want.cancels);
  EXPECT_EQ(got->stats.wanted, want.wanted);
  EXPECT_EQ(got->stats.dequeued, want.dequeued);
  EXPECT_EQ(got->stats.queued, want.queued);
  EXPECT_EQ(got->stats.loading, want.loading);
  EXPECT_EQ(got->stats.loaded, want.loaded);
  for (const auto& [id, o] : oracle.objects) EXPECT_EQ(streamer.state(id), o.state) << "id " << id;
  streamer.validate();
}

template <class S>
StreamingSource<S> ball_source(S x, S y, S z, S radius) {
  StreamingSource<S> s;
  s.position = {x, y, z};
  s.prefetch_radius = radius;
  return s;
}

// Regression: a finite position with a finite prefetch radius whose ball reaches past the largest finite value
// (p + r rounded outwards lands on infinity) made update() throw "query box: coordinate is infinite" from the
// octree's box query, after last_update() had been cleared. The prefetch box is now clamped to S's finite range.
// Objects spread over the whole finite range, sources at and near +-max with radii up to max, margins 0 and max,
// every placement, caps loose and tight: no throw, and every decision equals the oracle's (which tests the
// documented predicates object by object, so everything within a ball is wanted).
TYPED_TEST(StreamerTest, ExtremeButValidSourcesMatchTheOracle) {
  using S = TypeParam;
  constexpr S M = std::numeric_limits<S>::max(), L = std::numeric_limits<S>::lowest();

  // The case, alone: the ball of radius 1 around (max, 0, 0) holds the object that holds the position.
  {
    StreamerConfig<S> config;
    config.tree.world = {{0, 0, 0}, {S(1000), S(1000), S(1000)}};
    Streamer<S> st(config);
    st.add(1, {{M / 2, 0, 0}, {M, 1, 1}});
    st.add(2, {{0, 0, 0}, {1, 1, 1}});
    const StreamingSource<S> src = ball_source<S>(M, 0, 0, 1);
    const StreamUpdate<S>* u = nullptr;
    ASSERT_NO_THROW(u = &st.update(std::span<const StreamingSource<S>>(&src, 1)));
    ASSERT_EQ(u->loads.size(), 1u);
    EXPECT_EQ(u->loads[0].id, 1u);
    EXPECT_EQ(u->loads[0].distance, S(0));
    EXPECT_EQ(st.state(2), StreamState::Unloaded);
    // At -max with radius max (p - r is beyond -max; in double it overflows when S is double): object 2 lies at
    // distance max, on the sphere, so it is wanted.
    const StreamingSource<S> low = ball_source<S>(L, 0, 0, M);
    ASSERT_NO_THROW(st.update(std::span<const StreamingSource<S>>(&low, 1)));
    EXPECT_EQ(st.state(2), StreamState::Loading);
    st.validate();
  }

  // The prefetch box itself: finite, valid, and holding the ball, for positions and radii at the extremes.
  for (S p : {L, L / 2, S(-1), S(0), S(1), M / 2, std::nextafter(M, S(0)), M})
    for (S r : {S(0), S(1), M / 4, M / 2, M}) {
      const Box<3, S> b = detail::ball_bounds(Vec<3, S>{p, -p, p / 2}, double(r));
      EXPECT_TRUE(is_valid(b)) << "p " << p << " r " << r;
      for (int i = 0; i < 3; ++i) {
        const double c = i == 0 ? double(p) : i == 1 ? -double(p) : double(p / 2);
        EXPECT_TRUE(double(b.min[i]) <= std::max(c - double(r), double(L))) << "p " << p << " r " << r;
        EXPECT_TRUE(double(b.max[i]) >= std::min(c + double(r), double(M))) << "p " << p << " r " << r;
      }
    }

  // Intervals per axis over the whole finite range; objects are their products.
  const std::vector<std::pair<S, S>> spans = {{L, L / 4 * 3}, {L / 2, L / 4}, {-10, -9}, {0, 1},
                                              {5, 6},         {M / 4, M / 2}, {M / 4 * 3, M}, {M, M}};
  StreamingSource<S> camera = ball_source<S>(5, 5, 5, 3);
  camera.frustum = Frustum<S>::from_view_projection(view_projection<S>({5, 5, 5}, 0.3, -0.2, 1.0, 1.5, 0.5, 50));
  const std::vector<std::vector<StreamingSource<S>>> frames = {
      {ball_source<S>(M, 0, 0, 1)},                                           // the source
      {ball_source<S>(M, M, M, M / 4)},                                       // a corner of the range
      {ball_source<S>(L, 0, M, M)},                                           // radius max at -max
      {ball_source<S>(0, 0, 0, M)},                                           // everything finite within max
      {ball_source<S>(M, L, 0, 0), ball_source<S>(L, L, L, M / 2)},           // radius 0 at the edge, and a big one
      {ball_source<S>(5, 5, 5, 3)},                                           // back to normal: unloads
      {ball_source<S>(M / 2, M / 2, M / 2, M / 2), ball_source<S>(L, M, L, S(0.5))},
      {ball_source<S>(std::nextafter(M, S(0)), -10, 0, M / 8)},
      {camera},                                                               // a frustum, grown by the margin
      {},                                                                     // no source: everything leaves
  };
  struct Run {
    S margin;
    std::size_t per_update, in_flight;
  };
  for (const Run run : {Run{0, 100000, 100000}, Run{M, 100000, 100000}, Run{S(2), 7, 20}, Run{M / 2, 3, 5}}) {
    for (const Placement placement : {Placement::Loose, Placement::Parent, Placement::Leaves}) {
      SCOPED_TRACE(std::string(to_string(placement)) + ", margin " + std::to_string(double(run.margin)) + ", caps " +
                   std::to_string(run.per_update) + "/" + std::to_string(run.in_flight));
      StreamerConfig<S> config;
      config.tree.world = {{0, 0, 0}, {S(1000), S(1000), S(1000)}};
      config.tree.placement = placement;
      config.unload_margin = run.margin;
      config.max_loads_per_update = run.per_update;
      config.max_loads_in_flight = run.in_flight;
      Streamer<S> streamer(config);
      Oracle<S> oracle;
      oracle.margin = run.margin;
      oracle.per_update = run.per_update;
      oracle.in_flight = run.in_flight;
      std::uint64_t id = 0;
      for (const auto& x : spans)
        for (const auto& y : spans)
          for (const auto& z : spans) {
            const Box<3, S> b{{x.first, y.first, z.first}, {x.second, y.second, z.second}};
            streamer.add(id, b);
            oracle.objects[id] = {b, StreamState::Unloaded};
            ++id;
          }
      for (std::size_t f = 0; f < frames.size(); ++f) {
        SCOPED_TRACE("frame " + std::to_string(f));
        // Half the loads of the last frame finish (in both), so Loaded objects are unloaded and Loading ones
        // cancelled later.
        const std::vector<StreamLoad<S>> last = streamer.last_update().loads;
        for (std::size_t i = 0; i < last.size(); i += 2) {
          EXPECT_EQ(streamer.mark_loaded(last[i].id), oracle.finish(last[i].id, true));
        }
        expect_update_matches_oracle(streamer, oracle, frames[f]);
        if (::testing::Test::HasFatalFailure()) return;
      }
    }
  }
}

// The prefetch test is rounded (docs/streaming.md: gaps, squares and sum in double), and the octree's box query
// that finds its candidates must cut off none of the boxes it passes. Regression: the box was p -/+ r rounded
// outwards into S, tight for the exact distance but not for the rounded one: with p - r cancelling to 0, a box
// 1e-14 below 0 has its gap 1000 + 1e-14 rounded to 1000, so it is within the radius 1000, yet lay outside the
// query box (one step below 0 is 1e-45 in float, 5e-324 in double) and was never wanted. In double, a radius whose
// square overflows wants every object, and one whose square underflows wants boxes at gaps whose square does too.
TYPED_TEST(StreamerTest, PrefetchBallFollowsTheDocumentedRounding) {
  using S = TypeParam;
  struct Case {
    Vec<3, S> position;
    S radius;
    Box<3, S> box;
    bool wanted;
  };
  std::vector<Case> cases = {
      {{1000, 0, 0}, 1000, {{S(-2e-14), 0, 0}, {S(-1e-14), 1, 1}}, true},    // gap rounds to the radius
      {{1000, 0, 0}, 1000, {{S(-1e-12), 0, 0}, {S(-1e-12), 1, 1}}, false},   // gap just beyond it
      {{0, -1000, 0}, 1000, {{0, S(1e-14), 0}, {1, S(2e-14), 1}}, true},     // the same upwards, on y
      {{0, 0, 1e6}, 1e6, {{0, 0, S(-1e-11)}, {1, 1, S(-1e-11)}}, true},      // gap 1e6 + 1e-11 rounds to 1e6
      {{0, 0, 0}, 0, {{0, 0, 0}, {1, 1, 1}}, true},                           // radius 0: holds the position
      {{0, 0, 0}, 0, {{S(1e-30), 0, 0}, {1, 1, 1}}, false},
  };
  if constexpr (std::is_same_v<S, double>) {
    cases.push_back({{0, 0, 0}, 1e200, {{1e300, 0, 0}, {1e300, 1, 1}}, true});     // r^2 is infinite: everything
    cases.push_back({{0, 0, 0}, 1e-200, {{1e-170, 0, 0}, {1, 1, 1}}, true});       // gap^2 underflows to 0 = r^2
    cases.push_back({{0, 0, 0}, 1e-200, {{1e-150, 0, 0}, {1, 1, 1}}, false});
  }
  for (const Placement placement : {Placement::Loose, Placement::Parent, Placement::Leaves})
    for (std::size_t i = 0; i < cases.size(); ++i) {
      const Case& c = cases[i];
      SCOPED_TRACE(std::string(to_string(placement)) + ", case " + std::to_string(i));
      // The documented predicate agrees with the expectation (the oracle's arithmetic).
      ASSERT_EQ(oracle_distance_squared(c.position, c.box) <= double(c.radius) * double(c.radius), c.wanted);
      StreamerConfig<S> config;
      config.tree.world = {{-100, -100, -100}, {S(2000), S(2000), S(2000)}};
      config.tree.placement = placement;
      config.tree.split_threshold = 1;  // a deep tree around the box, so the query box matters
      Streamer<S> st(config);
      st.add(1, c.box);
      for (int k = 0; k < 40; ++k)
        st.add(std::uint64_t(10 + k), {{S(30 * k), S(7 * k), 5}, {S(30 * k + 1), S(7 * k + 1), 6}});
      StreamingSource<S> src;
      src.position = c.position;
      src.prefetch_radius = c.radius;
      st.update(std::span<const StreamingSource<S>>(&src, 1));
      EXPECT_EQ(st.state(1) != StreamState::Unloaded, c.wanted);  // Loading, or Queued behind nearer ones
    }
}

// A throwing update changes nothing: not the states, not the counts, not last_update() (its loads, unloads,
// cancels and stats), even when a valid extreme source comes before the bad one in the span; and the next good
// update decides as if the failed ones never happened.
TYPED_TEST(StreamerTest, FailedUpdateChangesNothingNotEvenLastUpdate) {
  using S = TypeParam;
  constexpr S M = std::numeric_limits<S>::max();
  const S nan = std::numeric_limits<S>::quiet_NaN(), inf = std::numeric_limits<S>::infinity();
  StreamerConfig<S> config;
  config.tree.world = {{0, 0, 0}, {S(100), S(100), S(100)}};
  config.unload_margin = 1;
  config.max_loads_per_update = 3;
  config.max_loads_in_flight = 6;
  Streamer<S> st(config);
  Oracle<S> oracle;
  oracle.margin = config.unload_margin;
  oracle.per_update = config.max_loads_per_update;
  oracle.in_flight = config.max_loads_in_flight;
  for (int i = 0; i < 40; ++i) {
    const Box<3, S> b{{S(i), 0, 0}, {S(i) + S(0.5), 1, 1}};
    st.add(std::uint64_t(i), b);
    oracle.objects[std::uint64_t(i)] = {b, StreamState::Unloaded};
  }
  // Frame 1 issues 3 loads (ids 2, 1, 3) and queues the rest; 2 and 1 finish; frame 2 moves away: they are
  // unloaded, 3 is cancelled, 3 new loads are issued and the rest queue.
  expect_update_matches_oracle(st, oracle, {ball_source<S>(2, 0, 0, 4)});
  ASSERT_EQ(st.last_update().loads.size(), 3u);
  for (std::size_t i = 0; i < 2; ++i) {
    const std::uint64_t id = st.last_update().loads[i].id;
    ASSERT_TRUE(st.mark_loaded(id));
    ASSERT_TRUE(oracle.finish(id, true));
  }
  expect_update_matches_oracle(st, oracle, {ball_source<S>(30, 0, 0, 4), ball_source<S>(8, 0, 0, 1)});
  const UpdateCopy<S> last = copy_of(st.last_update());
  ASSERT_FALSE(last.loads.empty());
  ASSERT_FALSE(last.unloads.empty());
  ASSERT_FALSE(last.cancels.empty());
  const Snapshot<S> before = snapshot(st);
  ASSERT_GT(before.queued, 0u);

  const StreamingSource<S> extreme = ball_source<S>(M, M, 0, M);  // valid: its ball reaches past max
  std::vector<std::pair<StreamingSource<S>, std::string>> bad;
  for (int axis = 0; axis < 3; ++axis)
    for (S v : {nan, inf, -inf}) {
      StreamingSource<S> s = ball_source<S>(30, 0, 0, 4);
      s.position[axis] = v;
      bad.emplace_back(s, std::isnan(v) ? "position is NaN" : "position is infinite");
    }
  for (auto [r, what] : {std::pair{nan, "prefetch_radius is NaN"}, std::pair{inf, "prefetch_radius is infinite"},
                         std::pair{-inf, "prefetch_radius is infinite"},
                         std::pair{S(-1), "prefetch_radius is negative"}, std::pair{-M, "prefetch_radius is negative"}})
    bad.emplace_back(ball_source<S>(M, 0, 0, r), what);
  for (const auto& entry : bad) {
    const StreamingSource<S>& s = entry.first;
    const std::string& what = entry.second;
    SCOPED_TRACE(what);
    const StreamingSource<S> two[2] = {extreme, s};
    expect_invalid([&] { st.update(std::span<const StreamingSource<S>>(two, 2)); },
                   "quadrant: streaming: update: source 1 " + what);
    expect_invalid([&] { st.update(std::span<const StreamingSource<S>>(&s, 1)); },
                   "quadrant: streaming: update: source 0 " + what);
    EXPECT_TRUE(copy_of(st.last_update()) == last);
    EXPECT_TRUE(snapshot(st) == before);
  }
  st.validate();
  // The failed updates left nothing behind: the next good ones decide as the oracle, which never saw them.
  expect_update_matches_oracle(st, oracle, {ball_source<S>(30, 0, 0, 4), ball_source<S>(8, 0, 0, 1)});
  expect_update_matches_oracle(st, oracle, {extreme, ball_source<S>(10, 0, 0, 3)});
}

TYPED_TEST(StreamerTest, RemoveAndMoveMidLoad) {
  using S = TypeParam;
  StreamerConfig<S> config;
  config.tree.world = {{0, 0, 0}, {S(100), S(100), S(100)}};
  config.unload_margin = 2;
  Streamer<S> st(config);
  st.add(1, {{10, 0, 10}, {11, 1, 11}});
  st.add(2, {{12, 0, 10}, {13, 1, 11}});
  st.add(3, {{13, 0, 10}, {14, 1, 11}});
  StreamingSource<S> src;
  src.position = {12, 0, 10};
  src.prefetch_radius = 5;
  const auto one = std::span<const StreamingSource<S>>(&src, 1);
  const StreamUpdate<S>& u = st.update(one);
  ASSERT_EQ(u.loads.size(), 3u);
  EXPECT_EQ(u.loads[0].id, 2u);  // distance 0: holds the position
  EXPECT_EQ(u.loads[1].id, 1u);  // 1 and 3 are both at distance 1: by id
  EXPECT_EQ(u.loads[2].id, 3u);
  EXPECT_EQ(u.loads[1].distance, S(1));
  EXPECT_EQ(st.remove(1), StreamState::Loading);  // mid-load: the caller abandons the load itself
  EXPECT_THROW(st.mark_loaded(1), std::invalid_argument);
  EXPECT_TRUE(st.mark_loaded(2));
  // Moved just beyond the radius but within the margin: kept. Moved beyond the margin: unloaded / cancelled.
  st.move(2, {{18.5f, 0, 10}, {19, 1, 11}});  // 6.5 from the position: inside 5 + 2
  EXPECT_TRUE(st.update(one).unloads.empty());
  EXPECT_EQ(st.state(2), StreamState::Loaded);
  st.move(2, {{40, 0, 40}, {41, 1, 41}});
  st.move(3, {{40, 0, 60}, {41, 1, 61}});
  const StreamUpdate<S>& v = st.update(one);
  EXPECT_EQ(v.unloads, std::vector<std::uint64_t>{2});
  EXPECT_EQ(v.cancels, std::vector<std::uint64_t>{3});
  EXPECT_FALSE(st.mark_loaded(3));  // its load finished after the cancellation: ignored
  EXPECT_EQ(st.state(3), StreamState::Unloaded);
  st.validate();

  // A moved streamer keeps the objects, their states and working handles into its octree.
  Streamer<S> moved(std::move(st));
  moved.validate();
  EXPECT_EQ(moved.size(), 2u);
  moved.move(3, {{12, 0, 10}, {13, 1, 11}});
  EXPECT_EQ(moved.update(one).loads.size(), 1u);
  EXPECT_EQ(moved.state(3), StreamState::Loading);
  moved.validate();
}

// After a warm-up lap of a closed camera path, a second lap's updates allocate nothing.
TYPED_TEST(StreamerTest, NoAllocationPerUpdateAfterWarmUp) {
  using S = TypeParam;
  StreamerConfig<S> config;
  config.tree.world = {{0, 0, 0}, {S(1000), S(1000), S(1000)}};
  config.unload_margin = 10;
  config.max_loads_per_update = 20;
  config.max_loads_in_flight = 40;
  Streamer<S> st(config);
  std::mt19937 rng(5);
  for (int i = 0; i < 5000; ++i) st.add(std::uint64_t(i), random_box<S>(rng, 1000));
  constexpr int kFrames = 60;
  std::vector<StreamingSource<S>> path;
  for (int f = 0; f < kFrames; ++f) {
    const double t = 2 * std::numbers::pi * f / kFrames;
    const std::array<double, 3> eye = {500 + 300 * std::cos(t), 40, 500 + 300 * std::sin(t)};
    StreamingSource<S> s;
    s.frustum = Frustum<S>::from_view_projection(view_projection<S>(eye, t + std::numbers::pi / 2, -0.2, 1, 1.7, 0.5, 200));
    s.position = {S(eye[0]), S(eye[1]), S(eye[2])};
    s.prefetch_radius = 25;
    path.push_back(s);
  }
  std::vector<std::uint64_t> in_flight;
  in_flight.reserve(1000);
  auto lap = [&] {
    for (const StreamingSource<S>& s : path) {
      const StreamUpdate<S>& u = st.update(std::span<const StreamingSource<S>>(&s, 1));
      for (std::uint64_t id : in_flight) st.mark_loaded(id);
      in_flight.clear();
      for (const StreamLoad<S>& l : u.loads) in_flight.push_back(l.id);
    }
  };
  lap();
  lap();
  const long before = g_allocations.load();
  lap();
  EXPECT_EQ(g_allocations.load() - before, 0);
  st.validate();
}

// remove() promises to allocate nothing (streamer.hpp). Once the objects are in, removing them must not allocate,
// whatever their state, under every placement, and again after the freed slots are reused.
TYPED_TEST(StreamerTest, RemoveAllocatesNothingOnceAdded) {
  using S = TypeParam;
  for (const Placement placement : {Placement::Loose, Placement::Parent, Placement::Leaves}) {
    SCOPED_TRACE(to_string(placement));
    StreamerConfig<S> config;
    config.tree.world = {{0, 0, 0}, {S(1000), S(1000), S(1000)}};
    config.tree.placement = placement;
    config.max_loads_per_update = 300;
    config.max_loads_in_flight = 600;
    Streamer<S> st(config);
    std::mt19937 rng(17);
    for (int i = 0; i < 3000; ++i) st.add(std::uint64_t(i), random_box<S>(rng, 1000));
    // Some Loading, Loaded and Queued objects among those removed.
    const StreamingSource<S> src = ball_source<S>(500, 20, 500, 300);
    const StreamUpdate<S>& u = st.update(std::span<const StreamingSource<S>>(&src, 1));
    for (std::size_t i = 0; i < u.loads.size(); i += 2) st.mark_loaded(u.loads[i].id);
    ASSERT_GT(st.loading(), 0u);
    ASSERT_GT(st.loaded(), 0u);
    ASSERT_GT(st.queued(), 0u);

    long before = g_allocations.load();
    for (int i = 0; i < 1000; ++i) st.remove(std::uint64_t(i));
    EXPECT_EQ(g_allocations.load() - before, 0) << "removing 1000 of 3000";
    st.validate();

    // Add 500 more (reusing freed slots; allocating is allowed here), then remove 1500, in shuffled order.
    for (int i = 3000; i < 3500; ++i) st.add(std::uint64_t(i), random_box<S>(rng, 1000));
    std::vector<std::uint64_t> ids;
    ids.reserve(1500);
    for (std::uint64_t id = 1000; id < 3500; id += 2) ids.push_back(id);
    for (std::uint64_t id = 1001; ids.size() < 1500; id += 2) ids.push_back(id);
    std::shuffle(ids.begin(), ids.end(), rng);
    before = g_allocations.load();
    for (const std::uint64_t id : ids) st.remove(id);
    EXPECT_EQ(g_allocations.load() - before, 0) << "removing 1500 after adding 500";
    EXPECT_EQ(st.size(), 1000u);
    st.validate();
  }
}

}  // namespace

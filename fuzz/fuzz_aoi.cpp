// SPDX-License-Identifier: MIT
// Fuzz target: an AoiWorld driven by a byte stream against a brute-force model written from docs/aoi.md, not from
// the library. The first bytes pick float or double and the settings, each field over its valid range: a tiny,
// ordinary, huge, vast or minute world (squared distances below S's smallest normal value), centered or not;
// hysteresis 0, lattice steps, random or the largest finite value; skin automatic, small, tiny, random or huge;
// max_depth 0..30; split_threshold 1..100 (and a bad setting, which must be refused). The rest is a sequence of
// operations on up to 72 entities (a few past 64, where the world renumbers its slots): add (every mode, layer
// masks sharing bits or not, view and body radii 0, -0, lattice, random or up to 1e150), move (small steps, jumps,
// the largest accepted coordinates, no move), set_view_radius, set_layers, remove (and re-add before the tick),
// crowds added on a lattice and stampedes of every entity, tick, skill queries (circle, ring, box, point), moving
// the world, bad input (NaN, infinite, negative or beyond-1e150 values, a mode outside AoiMode, a duplicate,
// unknown or removed id, an invalid shape), and mutations from inside the callbacks of tick, for_each_visible,
// for_each_watcher and query (plus a nested tick, which must be refused, and a callback that throws, which ends
// the reports but not the tick).
//
// Why: the world keeps the relation in Verlet lists around anchors, with seen bits, reverse lists that are
// supersets, entries left behind, leading anchors, slots renumbered along a Morton curve and a float / SSE2 fast
// path; each is a place where an edge case (touching distances, hysteresis, both ends of a pair changing in one
// tick, an id removed and re-added, extreme or minute coordinates) can lose or duplicate a pair. The model is the
// documented rule itself: W sees T iff W watches, T is a marker, their layers share a bit and dx^2 + dy^2 <= r^2,
// or W saw T at the previous tick and dx^2 + dy^2 <= (r + h)^2, all in double; each tick reports the change,
// ordered by watcher id, then target id. After every tick: the events equal the model's (a prefix when a callback
// throws); size, pair_count, contains, position, for_each_visible and for_each_watcher of every id agree with it
// (inside the tick's callbacks too), and validate() passes. Queries equal brute force over the body boxes. Bad
// input throws std::invalid_argument and leaves the whole visible state as it was (and, as the next tick shows,
// records nothing). QUADRANT_FUZZ_TRACE=1 prints the calls a run makes.
#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <optional>
#include <stdexcept>
#include <utility>
#include <vector>

#include <quadrant/aoi.hpp>

#include "fuzz_check.hpp"

namespace {

using namespace quadrant;

// Entities are keys 0..71 (a few above 64: the world renumbers its slots from 64 live entities on), each with a
// fixed, scattered 64-bit id.
constexpr int kKeys = 72;
using Ids = quadrant_fuzz::ScrambledIds<kKeys, 0x9E3779B97F4A7C15ull>;
constexpr std::uint64_t id_of(int key) { return Ids::id_of(key); }
constexpr int key_of(std::uint64_t id) { return Ids::key_of(id); }  // -1 when it is none
constexpr std::uint64_t kStranger = Ids::kStranger;

// The keys in increasing id order (the order of events and of every report).
const std::array<int, kKeys>& by_id() {
  static const std::array<int, kKeys> order = [] {
    std::array<int, kKeys> o{};
    for (int k = 0; k < kKeys; ++k) o[static_cast<std::size_t>(k)] = k;
    std::sort(o.begin(), o.end(), [](int a, int b) { return id_of(a) < id_of(b); });
    return o;
  }();
  return order;
}

// QUADRANT_FUZZ_TRACE=1 in the environment prints every call a run makes (to replay a finding by hand).
const bool kTrace = std::getenv("QUADRANT_FUZZ_TRACE") != nullptr;
void trace(const char* format, ...) {
  if (!kTrace) return;
  va_list args;
  va_start(args, format);
  std::vfprintf(stderr, format, args);
  va_end(args);
}

struct StopTick {};  // thrown by a tick callback: the tick completes, the remaining events are not reported

template <class S>
struct Ent {
  Vec<2, S> pos{};
  S view = 0, body = 0;
  AoiMode mode = AoiMode::Both;
  std::uint32_t layers = ~0u;
};

bool watches(AoiMode m) { return m == AoiMode::Watcher || m == AoiMode::Both; }
bool marks(AoiMode m) { return m == AoiMode::Marker || m == AoiMode::Both; }

// Largest coordinate or radius accepted: 1e150 (docs/aoi.md: beyond it squares overflow), or S's largest value.
template <class S>
constexpr double kMaxValue = std::min(1e150, static_cast<double>(std::numeric_limits<S>::max()));

template <class S>
struct Run : quadrant_fuzz::Draw<S> {
  using V = Vec<2, S>;
  using E = Ent<S>;
  using D = quadrant_fuzz::Draw<S>;
  using D::center, D::half, D::unit, D::value, D::coordinate, D::radius;
  explicit Run(FuzzedDataProvider& provider) : D{provider, kMaxValue<S>}, in(provider) {}

  FuzzedDataProvider& in;  // D's, named here so that its member templates need no `template` keyword

  AoiSettings<S> settings;
  std::optional<AoiWorld<S>> world;
  // The model: entities as of the last tick, as recorded for the next one, and the relation of the last tick.
  std::array<std::optional<E>, kKeys> cur, next;
  std::array<std::array<bool, kKeys>, kKeys> seen{};  // seen[w][t]: w saw t at the last tick

  // ---- values ----
  V position() { return V{coordinate(), coordinate()}; }
  std::uint32_t layers() {
    switch (in.ConsumeIntegralInRange<int>(0, 7)) {
      case 0: return 0;
      case 1: return ~0u;
      case 2: return in.ConsumeIntegral<std::uint32_t>();
      default: return in.ConsumeIntegralInRange<std::uint32_t>(1, 7);
    }
  }
  AoiMode mode() { return static_cast<AoiMode>(in.ConsumeIntegralInRange<int>(1, 3)); }
  // A key satisfying pred, starting from a drawn one; -1 when none does.
  template <class Pred>
  int pick(Pred pred) {
    const int start = in.ConsumeIntegralInRange<int>(0, kKeys - 1);
    for (int i = 0; i < kKeys; ++i) {
      const int k = (start + i) % kKeys;
      if (pred(k)) return k;
    }
    return -1;
  }
  std::optional<E>& at(std::array<std::optional<E>, kKeys>& a, int k) { return a[static_cast<std::size_t>(k)]; }
  bool present(int k) const { return next[static_cast<std::size_t>(k)].has_value(); }
  bool live(int k) const { return cur[static_cast<std::size_t>(k)].has_value(); }
  bool& seen_at(int w, int t) { return seen[static_cast<std::size_t>(w)][static_cast<std::size_t>(t)]; }

  // ---- the model ----
  // The relation after a tick, from the documented rule; returns the events in the documented order.
  QUADRANT_FUZZ_MODEL std::vector<AoiEvent> model_tick() {
    std::vector<AoiEvent> events;
    const double h = static_cast<double>(settings.hysteresis);
    std::vector<int> keys;  // the keys in a pair before or after this tick, in id order
    for (int k : by_id())
      if (live(k) || present(k)) keys.push_back(k);
    for (int w : keys)
      for (int t : keys) {
        if (w == t) continue;
        const bool was = seen_at(w, t);
        bool now = false;
        const std::optional<E>&a = at(next, w), &b = at(next, t);
        if (a && b && watches(a->mode) && marks(b->mode) && (a->layers & b->layers) != 0) {
          const double dx = static_cast<double>(a->pos.x) - static_cast<double>(b->pos.x);
          const double dy = static_cast<double>(a->pos.y) - static_cast<double>(b->pos.y);
          const double d2 = dx * dx + dy * dy, r = static_cast<double>(a->view);
          now = d2 <= r * r || (was && d2 <= (r + h) * (r + h));
        }
        if (now != was) events.push_back(AoiEvent{now ? AoiEvent::Kind::Enter : AoiEvent::Kind::Leave, id_of(w), id_of(t)});
        seen_at(w, t) = now;
      }
    cur = next;
    return events;
  }
  QUADRANT_FUZZ_MODEL std::vector<std::uint64_t> model_visible(int w) {
    std::vector<std::uint64_t> out;
    for (int t : by_id())
      if (seen_at(w, t)) out.push_back(id_of(t));
    return out;
  }
  QUADRANT_FUZZ_MODEL std::vector<std::uint64_t> model_watchers(int t) {
    std::vector<std::uint64_t> out;
    for (int w : by_id())
      if (seen_at(w, t)) out.push_back(id_of(w));
    return out;
  }
  // What the world shows between ticks, flat (no allocation per key): size, pair_count, then per key contains and
  // whether it is known (live at the last tick, or added since), its position and its for_each_visible and
  // for_each_watcher lists. The model's version first, then the world's, read through its public calls only.
  static std::uint64_t bits(S v) { return std::bit_cast<std::uint64_t>(static_cast<double>(v)); }
  QUADRANT_FUZZ_MODEL void expected(std::vector<std::uint64_t>& out) {
    out.clear();
    std::size_t size = 0, pairs = 0;
    for (int k = 0; k < kKeys; ++k)
      if (live(k)) {
        ++size;
        for (int t = 0; t < kKeys; ++t) pairs += seen_at(k, t);
      }
    out.push_back(size);
    out.push_back(pairs);
    for (int k = 0; k < kKeys; ++k) {
      out.push_back(std::uint64_t{present(k)} | (live(k) ? 4u : present(k) ? 2u : 0u));
      if (live(k)) {
        out.push_back(bits(at(cur, k)->pos.x));
        out.push_back(bits(at(cur, k)->pos.y));
      }
      if (!live(k) && !present(k)) continue;
      for (const std::vector<std::uint64_t>& list : {model_visible(k), model_watchers(k)}) {
        out.push_back(list.size());
        out.insert(out.end(), list.begin(), list.end());
      }
    }
  }
  // Unknown ids are read only through contains (a throw for each would cost more than the rest of the run):
  // bad_input probes them, and check_state an id added since the last tick.
  QUADRANT_FUZZ_MODEL void snapshot(std::vector<std::uint64_t>& out) {
    out.clear();
    out.push_back(world->size());
    out.push_back(world->pair_count());
    for (int k = 0; k < kKeys; ++k) {
      const std::uint64_t id = id_of(k);
      out.push_back(std::uint64_t{world->contains(id)} | (live(k) ? 4u : present(k) ? 2u : 0u));
      if (live(k)) {
        const V p = world->position(id);
        out.push_back(bits(p.x));
        out.push_back(bits(p.y));
      }
      if (!live(k) && !present(k)) continue;
      std::size_t at_count = out.size();
      out.push_back(0);
      world->for_each_visible(id, [&](std::uint64_t t) { out.push_back(t), ++out[at_count]; });
      at_count = out.size();
      out.push_back(0);
      world->for_each_watcher(id, [&](std::uint64_t w) { out.push_back(w), ++out[at_count]; });
    }
  }
  std::vector<std::uint64_t> got_, want_;
  std::size_t probe_ = 0;
  QUADRANT_FUZZ_MODEL void check_state(const char* what) {
    snapshot(got_);
    expected(want_);
    if (got_ != want_) {
      // Name the first difference.
      QUADRANT_FUZZ_CHECK(got_[0] == want_[0], "size differs from the model");
      QUADRANT_FUZZ_CHECK(got_[1] == want_[1], "pair_count differs from the model");
      for (int k : by_id()) {
        const std::uint64_t id = id_of(k);
        if (world->contains(id) != present(k)) std::fprintf(stderr, "contains(key %d) differs\n", k);
        if (live(k) && !(world->position(id) == at(cur, k)->pos)) std::fprintf(stderr, "position(key %d) differs\n", k);
        if (!live(k) && !present(k)) continue;
        std::vector<std::uint64_t> v, w;
        world->for_each_visible(id, [&](std::uint64_t t) { v.push_back(t); });
        world->for_each_watcher(id, [&](std::uint64_t t) { w.push_back(t); });
        if (v != model_visible(k)) std::fprintf(stderr, "for_each_visible(key %d) differs\n", k);
        if (w != model_watchers(k)) std::fprintf(stderr, "for_each_watcher(key %d) differs\n", k);
      }
      QUADRANT_FUZZ_CHECK(false, what);
    }
    // position() of an id added since the last tick throws: it describes the last tick, where the id was not.
    for (int i = 0; i < kKeys; ++i) {
      const int k = static_cast<int>((probe_ + static_cast<std::size_t>(i)) % kKeys);
      if (present(k) && !live(k)) {
        QUADRANT_FUZZ_CHECK(quadrant_fuzz::throws_invalid([&] { world->position(id_of(k)); }),
                            "position of an id added since the last tick");
        probe_ = static_cast<std::size_t>(k) + 1;
        break;
      }
    }
  }
  void validate() { quadrant_fuzz::check_valid(*world); }

  // ---- mutations (also from inside callbacks) ----
  void add() {
    const int k = pick([&](int key) { return !present(key); });
    if (k < 0) return;
    E e;
    e.pos = position();
    e.view = radius();
    if (in.ConsumeIntegralInRange<int>(0, 3) == 0) {
      trace("add(key %d, {%.17g, %.17g}, %.17g)\n", k, double(e.pos.x), double(e.pos.y), double(e.view));
      world->add(id_of(k), e.pos, e.view);  // the defaults: Both, every layer, body 0
    } else {
      e.mode = mode();
      e.layers = layers();
      e.body = in.ConsumeIntegralInRange<int>(0, 2) == 0 ? S(0) : radius();
      trace("add(key %d, {%.17g, %.17g}, %.17g, mode %d, layers %#x, body %.17g)\n", k, double(e.pos.x), double(e.pos.y),
            double(e.view), int(e.mode), e.layers, double(e.body));
      world->add(id_of(k), e.pos, e.view, e.mode, e.layers, e.body);
    }
    at(next, k) = e;
  }
  void move() {
    const int k = pick([&](int key) { return present(key); });
    if (k < 0) return;
    V& p = at(next, k)->pos;
    switch (in.ConsumeIntegralInRange<int>(0, 5)) {
      case 0: p = position(); break;                                  // a jump anywhere (or to the extremes)
      case 1: break;                                                  // a move to where it is
      case 2: p.x = value(in.ConsumeBool() ? kMaxValue<S> : -kMaxValue<S>); break;
      default:                                                        // a small step
        p.x = value(static_cast<double>(p.x) + unit / 16 * in.ConsumeIntegralInRange<int>(-8, 8));
        p.y = value(static_cast<double>(p.y) + unit / 16 * in.ConsumeIntegralInRange<int>(-8, 8));
        break;
    }
    trace("move(key %d, {%.17g, %.17g})\n", k, double(p.x), double(p.y));
    world->move(id_of(k), p);
  }
  void set_view_radius() {
    const int k = pick([&](int key) { return present(key); });
    if (k < 0) return;
    at(next, k)->view = radius();
    trace("set_view_radius(key %d, %.17g)\n", k, double(at(next, k)->view));
    world->set_view_radius(id_of(k), at(next, k)->view);
  }
  void set_layers() {
    const int k = pick([&](int key) { return present(key); });
    if (k < 0) return;
    at(next, k)->layers = layers();
    trace("set_layers(key %d, %#x)\n", k, at(next, k)->layers);
    world->set_layers(id_of(k), at(next, k)->layers);
  }
  void remove() {
    const int k = pick([&](int key) { return present(key); });
    if (k < 0) return;
    trace("remove(key %d)\n", k);
    world->remove(id_of(k));
    at(next, k).reset();
  }
  // Many entities from a few bytes: a crowd added on a lattice around a point (enough to reach the renumbering
  // and the long reverse lists), or a step of every present entity (the regime where everyone moves).
  void crowd() {
    const V c = position();
    const S r = radius();
    const std::uint32_t l = in.ConsumeBool() ? ~0u : layers();
    const int n = in.ConsumeIntegralInRange<int>(1, 24), spacing = in.ConsumeIntegralInRange<int>(0, 4);
    for (int i = 0; i < n; ++i) {
      const int k = pick([&](int key) { return !present(key); });
      if (k < 0) return;
      E e;
      e.pos = V{value(static_cast<double>(c.x) + unit / 4 * spacing * (i % 5)),
                value(static_cast<double>(c.y) + unit / 4 * spacing * (i / 5))};
      e.view = r;
      e.mode = i % 7 == 3 ? AoiMode::Marker : i % 7 == 5 ? AoiMode::Watcher : AoiMode::Both;
      e.layers = l;
      trace("add(key %d, {%.17g, %.17g}, %.17g, mode %d, layers %#x, body %.17g)\n", k, double(e.pos.x), double(e.pos.y),
            double(e.view), int(e.mode), e.layers, double(e.body));
      world->add(id_of(k), e.pos, e.view, e.mode, e.layers, e.body);
      at(next, k) = e;
    }
  }
  void stampede() {
    std::uint32_t seed = in.ConsumeIntegral<std::uint32_t>();
    const int reach = in.ConsumeIntegralInRange<int>(1, 16);
    for (int k : by_id()) {
      if (!present(k)) continue;
      V& p = at(next, k)->pos;
      seed = seed * 1664525u + 1013904223u;
      const int dx = static_cast<int>(seed >> 16) % (2 * reach + 1) - reach;
      const int dy = static_cast<int>((seed >> 8) & 0xff) % (2 * reach + 1) - reach;
      p.x = value(static_cast<double>(p.x) + unit / 8 * dx);
      p.y = value(static_cast<double>(p.y) + unit / 8 * dy);
      trace("move(key %d, {%.17g, %.17g})\n", k, double(p.x), double(p.y));
      world->move(id_of(k), p);
    }
  }

  // Bad input: throws std::invalid_argument and changes nothing (the whole visible state compared; what it might
  // have recorded shows at the next tick, which the model checks).
  void bad_input() {
    std::vector<std::uint64_t> before, after;
    snapshot(before);
    const S nan = std::numeric_limits<S>::quiet_NaN(), inf = std::numeric_limits<S>::infinity();
    auto bad_value = [&]() -> S {
      switch (in.ConsumeIntegralInRange<int>(0, 4)) {
        case 0: return nan;
        case 1: return inf;
        case 2: return -inf;
        case 3:
          // Beyond 1e150 (double only: every finite float is below it); else a NaN.
          if constexpr (sizeof(S) == sizeof(double))
            return in.ConsumeBool() ? S(1.0000001e150) : std::numeric_limits<S>::max();
          return nan;
        default: return -static_cast<S>(unit);
      }
    };
    auto bad_position = [&]() {
      V p = position();
      S v = bad_value();
      if (v == -static_cast<S>(unit)) v = inf;  // a negative coordinate is fine
      (in.ConsumeBool() ? p.x : p.y) = v;
      return p;
    };
    // An id no call may use: never added, removed since the last tick, or added and removed since it.
    auto absent_id = [&]() {
      const bool removed_too = in.ConsumeBool();
      const int k = pick([&](int key) { return !present(key) && (removed_too || !live(key)); });
      return k < 0 || in.ConsumeIntegralInRange<int>(0, 3) == 0 ? kStranger : id_of(k);
    };
    auto unknown_id = [&]() {  // not even reported on (for_each_*, position)
      const int k = pick([&](int key) { return !present(key) && !live(key); });
      return k < 0 || in.ConsumeBool() ? kStranger : id_of(k);
    };
    const int present_key = pick([&](int key) { return present(key); });
    const std::uint64_t some = present_key < 0 ? kStranger : id_of(present_key);
    const int kind = in.ConsumeIntegralInRange<int>(0, 14);
    const bool threw = quadrant_fuzz::throws_invalid([&] {
      switch (kind) {
        case 0: world->add(absent_id(), bad_position(), radius()); break;
        case 1: world->add(absent_id(), position(), bad_value(), AoiMode::Both, layers(), radius()); break;
        case 2: world->add(absent_id(), position(), radius(), AoiMode::Marker, layers(), bad_value()); break;
        case 3: {
          const AoiMode m = static_cast<AoiMode>(in.PickValueInArray({0, 4, 7, 255}));
          world->add(absent_id(), position(), radius(), m, layers(), radius());
          break;
        }
        case 4:
          if (present_key < 0) world->move(absent_id(), position());
          else world->add(some, position(), radius());  // a duplicate id
          break;
        case 5: world->move(absent_id(), position()); break;
        case 6: world->move(some, bad_position()); break;
        case 7:
          if (in.ConsumeBool()) world->set_view_radius(some, bad_value());
          else world->set_view_radius(absent_id(), radius());
          break;
        case 8: world->set_layers(absent_id(), layers()); break;
        case 9: world->remove(absent_id()); break;
        case 10: world->for_each_visible(unknown_id(), [](std::uint64_t) {}); break;
        case 11: world->for_each_watcher(unknown_id(), [](std::uint64_t) {}); break;
        case 12: world->position(unknown_id()); break;
        case 13: {
          // A circle's radius must be finite and >= 0 (beyond 1e150 is a valid shape).
          const S r = std::array<S, 3>{nan, inf, -static_cast<S>(unit)}[in.ConsumeIntegralInRange<std::size_t>(0, 2)];
          world->query(Circle<S>{position(), r}, [](std::uint64_t) {});
          break;
        }
        default: world->query(Box<2, S>{V{S(1), S(1)}, V{S(-1), S(-1)}}, [](std::uint64_t) {}); break;
      }
    });
    if (!threw) std::fprintf(stderr, "bad input kind %d was accepted\n", kind);
    QUADRANT_FUZZ_CHECK(threw, "bad input was accepted");
    snapshot(after);
    QUADRANT_FUZZ_CHECK(after == before, "bad input changed the visible state");
  }

  // One mutation, good or bad, as a caller would make it anywhere (top level or inside a callback).
  void mutate() {
    switch (in.ConsumeIntegralInRange<int>(0, 9)) {
      case 0:
      case 1:
      case 2: add(); break;
      case 3:
      case 4: move(); break;
      case 5: set_view_radius(); break;
      case 6: set_layers(); break;
      case 7:
      case 8: remove(); break;
      default: bad_input(); break;
    }
  }

  // ---- queries ----
  // A skill query against brute force over the bodies of the last tick (each body box computed in S as documented,
  // tested with the library's own shape test); the callback may mutate the world.
  void query() {
    const std::uint32_t mask = layers();
    const bool mutating = in.ConsumeIntegralInRange<int>(0, 3) == 0;
    std::vector<std::uint64_t> got, want;
    auto collect = [&](std::uint64_t id) {
      got.push_back(id);
      if (mutating) {
        const int k = key_of(id);
        if (k >= 0 && present(k) && in.ConsumeBool()) {  // kill what the swing hits
          trace("remove(key %d) inside query\n", k);
          world->remove(id);
          at(next, k).reset();
        } else {
          mutate();
        }
      }
    };
    auto run_shape = [&](const auto& shape) {
      world->query(shape, collect, mask);
      for (int k : by_id()) {
        const std::optional<E>& e = at(cur, k);
        if (!e || (e->layers & mask) == 0) continue;
        const S b = e->body;
        const Box<2, S> body{V{e->pos.x - b, e->pos.y - b}, V{e->pos.x + b, e->pos.y + b}};
        if (overlaps(shape, body)) want.push_back(id_of(k));
      }
    };
    switch (in.ConsumeIntegralInRange<int>(0, 3)) {
      case 0: run_shape(Circle<S>{position(), radius()}); break;
      case 1: {
        const S a = radius(), b = radius();
        run_shape(Ring<S>{position(), std::min(a, b), std::max(a, b)});
        break;
      }
      case 2: {
        const V p = position(), q = position();
        run_shape(Box<2, S>{V{std::min(p.x, q.x), std::min(p.y, q.y)}, V{std::max(p.x, q.x), std::max(p.y, q.y)}});
        break;
      }
      default: run_shape(position()); break;
    }
    QUADRANT_FUZZ_CHECK(got == want, "query differs from brute force over the bodies");
  }
  // for_each_visible / for_each_watcher with a callback that mutates: the report is the last tick's, complete.
  void walk_mutating() {
    const int k = pick([&](int key) { return live(key) || present(key); });
    if (k < 0) return;
    std::vector<std::uint64_t> got;
    const bool visible = in.ConsumeBool();
    auto fn = [&](std::uint64_t id) {
      got.push_back(id);
      mutate();
    };
    if (visible) world->for_each_visible(id_of(k), fn);
    else world->for_each_watcher(id_of(k), fn);
    QUADRANT_FUZZ_CHECK(got == (visible ? model_visible(k) : model_watchers(k)), "a mutating walk differs from the model");
  }

  // ---- the tick ----
  void tick() {
    const std::vector<AoiEvent> model = model_tick();
    const int action = in.ConsumeIntegralInRange<int>(0, 15);  // what to do in one callback, if anything
    const std::size_t when = in.ConsumeIntegralInRange<std::size_t>(0, 7);
    std::vector<AoiEvent> got;
    bool stopped = false;
    trace("tick (action %d at event %zu)\n", action, when);
    try {
      world->tick([&](const AoiEvent& e) {
        got.push_back(e);
        if (got.size() != when + 1) return;
        switch (action) {
          case 0:
          case 1:
            // The world already holds the new relation.
            QUADRANT_FUZZ_CHECK(e.watcher != e.target, "an event pairs an entity with itself");
            for (std::uint64_t id : {e.watcher, e.target}) {
              const int k = key_of(id);
              QUADRANT_FUZZ_CHECK(k >= 0, "an event names an id never added");
              if (!live(k) && !present(k)) {  // removed at this tick: gone
                QUADRANT_FUZZ_CHECK(quadrant_fuzz::throws_invalid([&] { world->for_each_visible(id, [](std::uint64_t) {}); }),
                                    "an id removed at this tick is still known inside its callbacks");
                continue;
              }
              std::vector<std::uint64_t> v, w;
              world->for_each_visible(id, [&](std::uint64_t t) { v.push_back(t); });
              world->for_each_watcher(id, [&](std::uint64_t t) { w.push_back(t); });
              QUADRANT_FUZZ_CHECK(v == model_visible(k) && w == model_watchers(k), "the relation inside a tick callback");
            }
            break;
          case 2:
          case 3:
          case 4: {
            const int n = in.ConsumeIntegralInRange<int>(1, 4);
            for (int i = 0; i < n; ++i) mutate();
            break;
          }
          case 5: {
            bool refused = false;
            try {
              world->tick([](const AoiEvent&) {});
            } catch (const std::logic_error&) {
              refused = true;
            }
            QUADRANT_FUZZ_CHECK(refused, "tick inside a tick callback was not refused");
            break;
          }
          case 6: query(); break;
          case 7: throw StopTick{};
          default: break;
        }
      });
    } catch (const StopTick&) {
      stopped = true;
    }
    if (stopped) {
      QUADRANT_FUZZ_CHECK(got.size() == when + 1, "a throwing callback did not stop the reports");
      QUADRANT_FUZZ_CHECK(std::equal(got.begin(), got.end(), model.begin()), "tick events differ from the model");
    } else {
      if (got != model) {  // name the difference: events only one side has, or the first out of order
        auto print = [](const char* who, const AoiEvent& e) {
          std::fprintf(stderr, "%s %s key %d -> key %d\n", who, e.kind == AoiEvent::Kind::Enter ? "Enter" : "Leave",
                       key_of(e.watcher), key_of(e.target));
        };
        for (const AoiEvent& e : got)
          if (std::find(model.begin(), model.end(), e) == model.end()) print("only the world:", e);
        for (const AoiEvent& e : model)
          if (std::find(got.begin(), got.end(), e) == got.end()) print("only the model:", e);
        for (std::size_t i = 0; i < std::min(got.size(), model.size()); ++i)
          if (!(got[i] == model[i])) {
            std::fprintf(stderr, "first difference at event %zu\n", i);
            break;
          }
      }
      QUADRANT_FUZZ_CHECK(got == model, "tick events differ from the model");
    }
    validate();
    check_state("state after a tick differs from the model");
  }

  void run() {
    trace("%s world {%.17g, %.17g}-{%.17g, %.17g} hysteresis %.17g skin %.17g max_depth %d split_threshold %d\n",
          sizeof(S) == sizeof(float) ? "float" : "double", double(settings.world.min.x), double(settings.world.min.y),
          double(settings.world.max.x), double(settings.world.max.y), double(settings.hysteresis), double(settings.skin),
          settings.max_depth, settings.split_threshold);
    AoiWorld<S> first(settings);
    world.emplace(std::move(first));
    for (int op = 0; op < 200 && in.remaining_bytes() > 0; ++op) {
      switch (in.ConsumeIntegralInRange<int>(0, 17)) {
        case 0:
        case 1:
        case 2: add(); break;
        case 3:
        case 4: move(); break;
        case 5: set_view_radius(); break;
        case 6: set_layers(); break;
        case 7: remove(); break;
        case 8:
        case 9:
        case 10: tick(); break;
        case 11: bad_input(); break;
        case 12: query(); break;
        case 13: walk_mutating(); break;
        case 14: check_state("state between ticks differs from the model"); break;
        case 15: crowd(); break;
        case 16: stampede(); break;
        default:
          if (in.ConsumeIntegralInRange<int>(0, 3) == 0) {  // a world is movable: the moved-to one carries on
            AoiWorld<S> other(std::move(*world));
            world.reset();
            world.emplace(std::move(other));
          } else {
            mutate();
          }
          break;
      }
    }
    tick();
  }
};

template <class S>
void run_space(FuzzedDataProvider& in) {
  Run<S> r(in);
  const double big = kMaxValue<S>;
  const double max = static_cast<double>(std::numeric_limits<S>::max());
  double world_half;
  switch (in.ConsumeIntegralInRange<int>(0, 5)) {
    case 0: r.half = world_half = 1e-3; break;
    case 4:  // minute: squared distances below the smallest normal value of S (float 1e-44, double 1e-320)
      r.half = world_half = sizeof(S) == sizeof(float) ? 1e-21 : 1e-159;
      break;
    case 1: r.half = world_half = big / 64; break;  // coordinates up to +-3/64 of the largest value
    case 2: r.half = 100, world_half = max / 2; break;  // a vast world around ordinary coordinates
    default: r.half = world_half = 100; break;
  }
  r.unit = r.half / 8;
  if (in.ConsumeIntegralInRange<int>(0, 3) == 0) r.center = r.half * in.ConsumeIntegralInRange<int>(-2, 2);
  AoiSettings<S>& s = r.settings;
  const double world_center = world_half == max / 2 ? 0 : r.center;
  s.world = Box<2, S>{{static_cast<S>(world_center - world_half), static_cast<S>(world_center - world_half)},
                      {static_cast<S>(world_center + world_half), static_cast<S>(world_center + world_half)}};
  if (in.ConsumeBool()) s.world.max.y = static_cast<S>(world_center + world_half / 4);  // not square
  switch (in.ConsumeIntegralInRange<int>(0, 7)) {
    case 0: s.hysteresis = static_cast<S>(in.ConsumeFloatingPointInRange<double>(0, 2 * r.half)); break;
    case 1: s.hysteresis = in.ConsumeBool() ? std::numeric_limits<S>::max() : static_cast<S>(big); break;
    case 2:
    case 3: s.hysteresis = static_cast<S>(r.unit / 4 * in.ConsumeIntegralInRange<int>(1, 16)); break;
    default: s.hysteresis = 0; break;
  }
  switch (in.ConsumeIntegralInRange<int>(0, 7)) {
    case 0: s.skin = static_cast<S>(r.unit * 1e-6); break;
    case 1: s.skin = static_cast<S>(r.unit / 4 * in.ConsumeIntegralInRange<int>(1, 32)); break;
    case 2: s.skin = static_cast<S>(in.ConsumeFloatingPointInRange<double>(0, 4 * r.half)); break;
    case 3: s.skin = in.ConsumeBool() ? std::numeric_limits<S>::max() : static_cast<S>(big); break;
    default: s.skin = 0; break;  // automatic
  }
  s.max_depth = in.ConsumeIntegralInRange<int>(0, 30);
  s.split_threshold = in.ConsumeBool() ? in.ConsumeIntegralInRange<int>(1, 100) : in.ConsumeIntegralInRange<int>(1, 4);
  if (in.ConsumeIntegralInRange<int>(0, 15) == 0) {
    // A bad setting is refused.
    AoiSettings<S> bad = s;
    switch (in.ConsumeIntegralInRange<int>(0, 5)) {
      case 0: bad.hysteresis = -S(1); break;
      case 1: bad.skin = std::numeric_limits<S>::infinity(); break;
      case 2: bad.world.max.x = bad.world.min.x; break;
      case 3: bad.world.min.y = std::numeric_limits<S>::quiet_NaN(); break;
      case 4: bad.max_depth = -1; break;
      default: bad.split_threshold = 0; break;
    }
    QUADRANT_FUZZ_CHECK(quadrant_fuzz::throws_invalid([&] { AoiWorld<S> w(bad); }), "bad settings were accepted");
  }
  r.run();
}

}  // namespace

QUADRANT_FUZZ_FLOAT_OR_DOUBLE(run_space)

// SPDX-License-Identifier: MIT
// Tests of quadrant/aoi.hpp against a brute-force model of the relation, over many ticks.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <new>
#include <cmath>
#include <cstdint>
#include <map>
#include <numbers>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <quadrant/aoi.hpp>
#include <quadrant/quadrant.hpp>

#include "counting_new.hpp"

namespace {

using quadrant::AoiEvent;
using quadrant::AoiMode;
using quadrant::AoiSettings;
using quadrant::AoiWorld;
using quadrant::Box;
using quadrant::Vec;

// The brute-force model: the entities as of the last tick, the next values, and the relation as a set of pairs.
template <class S>
struct Oracle {
  struct Ent {
    Vec<2, S> pos;
    S radius;
    AoiMode mode;
    std::uint32_t layers;
    S body;
  };
  double hysteresis = 0;
  std::map<std::uint64_t, Ent> now, next;
  std::set<std::pair<std::uint64_t, std::uint64_t>> rel;

  static double d2(const Vec<2, S>& a, const Vec<2, S>& b) {
    const double dx = static_cast<double>(a.x) - static_cast<double>(b.x);
    const double dy = static_cast<double>(a.y) - static_cast<double>(b.y);
    return dx * dx + dy * dy;
  }

  std::vector<AoiEvent> tick() {
    std::set<std::pair<std::uint64_t, std::uint64_t>> fresh;
    for (const auto& [w, ew] : next) {
      if ((static_cast<int>(ew.mode) & 1) == 0) continue;
      for (const auto& [t, et] : next) {
        if (w == t || (static_cast<int>(et.mode) & 2) == 0 || (ew.layers & et.layers) == 0) continue;
        const double r = static_cast<double>(ew.radius);
        const double lim = rel.count({w, t}) ? r + hysteresis : r;
        if (d2(ew.pos, et.pos) <= lim * lim) fresh.insert({w, t});
      }
    }
    std::vector<AoiEvent> out;
    // Both sets are ordered by (watcher, target): merge them.
    auto a = rel.begin();
    auto b = fresh.begin();
    while (a != rel.end() || b != fresh.end()) {
      if (b == fresh.end() || (a != rel.end() && *a < *b)) {
        out.push_back({AoiEvent::Kind::Leave, a->first, a->second});
        ++a;
      } else if (a == rel.end() || *b < *a) {
        out.push_back({AoiEvent::Kind::Enter, b->first, b->second});
        ++b;
      } else {
        ++a, ++b;
      }
    }
    rel = std::move(fresh);
    now = next;
    return out;
  }

  std::vector<std::uint64_t> visible(std::uint64_t w) const {
    std::vector<std::uint64_t> v;
    for (const auto& [a, b] : rel)
      if (a == w) v.push_back(b);
    return v;
  }
  std::vector<std::uint64_t> watchers(std::uint64_t t) const {
    std::vector<std::uint64_t> v;
    for (const auto& [a, b] : rel)
      if (b == t) v.push_back(a);
    return v;
  }
  template <class Shape>
  std::vector<std::uint64_t> query(const Shape& shape, std::uint32_t layers) const {
    std::vector<std::uint64_t> v;
    for (const auto& [id, e] : now) {
      const Box<2, S> body{{e.pos.x - e.body, e.pos.y - e.body}, {e.pos.x + e.body, e.pos.y + e.body}};
      if ((e.layers & layers) != 0 && quadrant::overlaps(shape, body)) v.push_back(id);
    }
    return v;
  }
};

template <class S>
std::vector<std::uint64_t> visible_of(const AoiWorld<S>& w, std::uint64_t id) {
  std::vector<std::uint64_t> v;
  w.for_each_visible(id, [&](std::uint64_t t) { v.push_back(t); });
  return v;
}
template <class S>
std::vector<std::uint64_t> watchers_of(const AoiWorld<S>& w, std::uint64_t id) {
  std::vector<std::uint64_t> v;
  w.for_each_watcher(id, [&](std::uint64_t t) { v.push_back(t); });
  return v;
}
template <class S, class Shape>
std::vector<std::uint64_t> query_of(const AoiWorld<S>& w, const Shape& shape, std::uint32_t layers) {
  std::vector<std::uint64_t> v;
  w.query(shape, [&](std::uint64_t id) { v.push_back(id); }, layers);
  return v;
}
template <class S>
std::vector<AoiEvent> tick_of(AoiWorld<S>& w) {
  std::vector<AoiEvent> v;
  w.tick([&](const AoiEvent& e) { v.push_back(e); });
  return v;
}

std::string show(const std::vector<AoiEvent>& ev) {
  std::string s;
  for (std::size_t i = 0; i < ev.size() && i < 12; ++i)
    s += std::string(ev[i].kind == AoiEvent::Kind::Enter ? " +" : " -") + std::to_string(ev[i].watcher) + ">" +
         std::to_string(ev[i].target);
  return s;
}

// The world and its model, driven together.
template <class S>
struct Pair {
  AoiWorld<S> world;
  Oracle<S> oracle;
  std::vector<AoiEvent> last;  // the events of the last tick_and_check
  explicit Pair(const AoiSettings<S>& s) : world(s) { oracle.hysteresis = static_cast<double>(s.hysteresis); }

  void add(std::uint64_t id, Vec<2, S> p, S r, AoiMode m, std::uint32_t layers, S body) {
    world.add(id, p, r, m, layers, body);
    oracle.next[id] = {p, r, m, layers, body};
  }
  void move(std::uint64_t id, Vec<2, S> p) {
    world.move(id, p);
    oracle.next[id].pos = p;
  }
  void set_radius(std::uint64_t id, S r) {
    world.set_view_radius(id, r);
    oracle.next[id].radius = r;
  }
  void set_layers(std::uint64_t id, std::uint32_t l) {
    world.set_layers(id, l);
    oracle.next[id].layers = l;
  }
  void remove(std::uint64_t id) {
    world.remove(id);
    oracle.next.erase(id);
  }
  // Compares the tick's events with the model's; then, if `state`, everything else (check_state).
  void tick_and_check(std::mt19937_64& rng, int shapes, bool state = true) {
    const std::vector<AoiEvent> got = tick_of(world);
    const std::vector<AoiEvent> want = oracle.tick();
    last = got;
    if (got != want) {
      std::size_t i = 0;
      while (i < got.size() && i < want.size() && got[i] == want[i]) ++i;
      const std::vector<AoiEvent> g(got.begin() + std::ptrdiff_t(i), got.end()), w(want.begin() + std::ptrdiff_t(i), want.end());
      FAIL() << got.size() << " events, want " << want.size() << "; from event " << i << ": got" << show(g)
             << "\nwant" << show(w);
    }
    if (state) check_state(rng, shapes);
  }
  void check_state(std::mt19937_64& rng, int shapes) {
    ASSERT_NO_THROW(world.validate());
    std::size_t pairs = 0;
    for (const auto& [id, e] : oracle.now) {
      ASSERT_EQ(visible_of(world, id), oracle.visible(id)) << "visible of " << id;
      ASSERT_EQ(watchers_of(world, id), oracle.watchers(id)) << "watchers of " << id;
      pairs += oracle.visible(id).size();
    }
    ASSERT_EQ(world.pair_count(), pairs);
    ASSERT_EQ(world.size(), oracle.now.size());
    std::uniform_real_distribution<double> c(-120, 120), len(0, 40), ang(-4, 4);
    auto v = [&] { return Vec<2, S>{static_cast<S>(c(rng)), static_cast<S>(c(rng))}; };
    for (int i = 0; i < shapes; ++i) {
      const std::uint32_t layers = i % 3 == 0 ? ~0u : static_cast<std::uint32_t>(rng() & 7u);
      const quadrant::Circle<S> circle{v(), static_cast<S>(len(rng))};
      ASSERT_EQ(query_of(world, circle, layers), oracle.query(circle, layers)) << "circle";
      const S inner = static_cast<S>(len(rng) / 2);
      const quadrant::Ring<S> ring{v(), inner, static_cast<S>(inner + len(rng))};
      ASSERT_EQ(query_of(world, ring, layers), oracle.query(ring, layers)) << "ring";
      const quadrant::Sector<S> sector{v(), v(), static_cast<S>(len(rng)), static_cast<S>(std::abs(ang(rng)) / 4 * 3)};
      if (sector.direction.x != 0 || sector.direction.y != 0) {
        ASSERT_EQ(query_of(world, sector, layers), oracle.query(sector, layers)) << "sector";
      }
      const quadrant::OrientedBox<S> obb{v(), {static_cast<S>(len(rng)), static_cast<S>(len(rng) / 3)},
                                         static_cast<S>(ang(rng))};
      ASSERT_EQ(query_of(world, obb, layers), oracle.query(obb, layers)) << "oriented box";
      const Box<2, S> box{v(), v()};
      const Box<2, S> fixed{{std::min(box.min.x, box.max.x), std::min(box.min.y, box.max.y)},
                            {std::max(box.min.x, box.max.x), std::max(box.min.y, box.max.y)}};
      ASSERT_EQ(query_of(world, fixed, layers), oracle.query(fixed, layers)) << "box";
    }
  }
};

template <class S>
class AoiTyped : public ::testing::Test {};
using Scalars = ::testing::Types<float, double>;
TYPED_TEST_SUITE(AoiTyped, Scalars);

AoiMode random_mode(std::mt19937_64& rng) {
  const int m = static_cast<int>(rng() % 4);
  return m == 0 ? AoiMode::Watcher : m == 1 ? AoiMode::Marker : AoiMode::Both;
}

// Mutations of both ends of `n` pairs seen at the last tick, all recorded for the same tick: each end's relink must
// then allow for what the other's did earlier in the tick (the issue "AoiWorld, layer changes": a watcher and a
// marker that saw each other both changed layers, the target's reverse list lost the watcher, and a later Enter came
// twice). Either end goes first (a pair is as likely to be (watcher, target) as (target, watcher) here, and entities
// are applied in the order their first mutation was recorded); pairs seen both ways come up in both directions.
// Kinds: layers on both; radii on both; layers and a move on both; layers on one end and a remove + re-add of the
// other (or of both); layers changed and changed back on both; a mix of layers, radius and move.
template <class S>
void mutate_pairs(Pair<S>& p, std::mt19937_64& rng, int n) {
  if (n == 0 || p.oracle.rel.empty()) return;
  const std::vector<std::pair<std::uint64_t, std::uint64_t>> seen(p.oracle.rel.begin(), p.oracle.rel.end());
  std::uniform_real_distribution<double> step(-3, 3), jump(-20, 20), radius(0, 35);
  // Small masks, so that a change often leaves one end's old layers disjoint from the other's new ones (the case
  // of the issue), with now and then all layers or none.
  auto layers = [&] {
    static constexpr std::uint32_t masks[] = {1, 2, 3, 4, 5, 6, ~0u, 0};
    return masks[rng() % 8];
  };
  auto move = [&](std::uint64_t id) {
    const Vec<2, S> at = p.oracle.next.at(id).pos;
    const bool far = rng() % 4 == 0;  // far enough to re-anchor with any skin
    const double dx = far ? jump(rng) : step(rng), dy = far ? jump(rng) : step(rng);
    p.move(id, {static_cast<S>(at.x + dx), static_cast<S>(at.y + dy)});
  };
  auto readd = [&](std::uint64_t id) {
    const typename Oracle<S>::Ent e = p.oracle.next.at(id);
    p.remove(id);
    p.add(id, {static_cast<S>(e.pos.x + step(rng)), static_cast<S>(e.pos.y + step(rng))},
          rng() % 2 == 0 ? e.radius : static_cast<S>(radius(rng)), rng() % 3 == 0 ? random_mode(rng) : e.mode, layers(),
          e.body);
  };
  for (int k = 0; k < n; ++k) {
    auto [a, b] = seen[rng() % seen.size()];
    if (p.oracle.next.count(a) == 0 || p.oracle.next.count(b) == 0) continue;  // removed earlier in this tick
    if (rng() % 2 == 0) std::swap(a, b);
    switch (rng() % 6) {
      case 0:
        p.set_layers(a, layers());
        p.set_layers(b, layers());
        break;
      case 1:
        p.set_radius(a, static_cast<S>(radius(rng)));
        p.set_radius(b, static_cast<S>(radius(rng)));
        break;
      case 2:
        for (std::uint64_t id : {a, b}) {
          if (rng() % 2 == 0) {
            p.set_layers(id, layers());
            move(id);
          } else {
            move(id);
            p.set_layers(id, layers());
          }
        }
        break;
      case 3:
        p.set_layers(a, layers());
        readd(b);
        if (rng() % 3 == 0) readd(a);
        break;
      case 4: {
        const std::uint32_t la = p.oracle.next.at(a).layers, lb = p.oracle.next.at(b).layers;
        p.set_layers(a, layers());
        p.set_layers(b, layers());
        p.set_layers(a, la);
        p.set_layers(b, lb);
        break;
      }
      default:
        p.set_layers(a, layers());
        if (rng() % 2 == 0) p.set_radius(b, static_cast<S>(radius(rng)));
        if (rng() % 2 == 0) move(b);
        if (rng() % 2 == 0) p.set_layers(b, layers());
        break;
    }
  }
}

// Many ticks of random mutations of every kind, each tick compared with the model: events, both directions of the
// relation, pair count, and skill-shape queries. `pair_mutations` pairs a tick also get both ends mutated
// (mutate_pairs).
template <class S>
void random_run(std::uint64_t seed, S hysteresis, S skin, int ticks, int count, double activity,
                int pair_mutations = 0) {
  SCOPED_TRACE("seed " + std::to_string(seed) + " hysteresis " + std::to_string(static_cast<double>(hysteresis)) +
               " skin " + std::to_string(static_cast<double>(skin)));
  std::mt19937_64 rng(seed);
  AoiSettings<S> settings{{{-100, -100}, {100, 100}}, hysteresis};
  settings.skin = skin;
  settings.split_threshold = 4;
  Pair<S> p(settings);
  std::uniform_real_distribution<double> coord(-100, 100), step(-3, 3), radius(0, 35), unit(0, 1);
  auto pos = [&] {
    // A few entities far outside the world.
    if (unit(rng) < 0.05) return Vec<2, S>{static_cast<S>(coord(rng) * 60), static_cast<S>(coord(rng))};
    return Vec<2, S>{static_cast<S>(coord(rng)), static_cast<S>(coord(rng))};
  };
  auto layers = [&] { return rng() % 4 == 0 ? static_cast<std::uint32_t>(rng() % 8) : ~0u; };
  auto body = [&] { return rng() % 3 == 0 ? S{0} : static_cast<S>(unit(rng) * 6); };
  std::vector<std::uint64_t> ids, removed;
  std::uint64_t next_id = 1000;
  for (int i = 0; i < count; ++i) {
    const std::uint64_t id = (next_id += 1 + rng() % 5);
    p.add(id, pos(), static_cast<S>(radius(rng)), random_mode(rng), layers(), body());
    ids.push_back(id);
  }
  ASSERT_NO_FATAL_FAILURE(p.tick_and_check(rng, 2));
  for (int t = 0; t < ticks; ++t) {
    SCOPED_TRACE("tick " + std::to_string(t));
    for (std::size_t i = 0; i < ids.size(); ++i) {
      if (unit(rng) > activity) continue;  // this entity does nothing this tick
      const double u = unit(rng);
      const std::uint64_t id = ids[i];
      if (u < 0.6) {
        const Vec<2, S> at = p.oracle.next[id].pos;
        p.move(id, {static_cast<S>(at.x + step(rng)), static_cast<S>(at.y + step(rng))});
        if (u < 0.1) p.move(id, {static_cast<S>(at.x + step(rng)), static_cast<S>(at.y + step(rng))});  // twice
      } else if (u < 0.63) {
        p.move(id, pos());  // teleport
      } else if (u < 0.65) {
        p.set_radius(id, static_cast<S>(radius(rng)));
      } else if (u < 0.66) {
        p.set_layers(id, layers());
      } else if (u < 0.675) {
        p.remove(id);
        if (rng() % 3 == 0) {  // removed and re-added before the tick, possibly with another mode
          p.add(id, pos(), static_cast<S>(radius(rng)), random_mode(rng), layers(), body());
        } else {
          removed.push_back(id);
          ids[i] = ids.back();
          ids.pop_back();
          --i;
        }
      }
    }
    mutate_pairs(p, rng, pair_mutations);
    // Additions: new ids and ids removed at earlier ticks.
    for (int k = static_cast<int>(rng() % 4); k > 0 && unit(rng) < 2 * activity; --k) {
      std::uint64_t id;
      if (!removed.empty() && rng() % 2 == 0) {
        id = removed.back();
        removed.pop_back();
      } else {
        id = (next_id += 1 + rng() % 5);
      }
      p.add(id, pos(), static_cast<S>(radius(rng)), random_mode(rng), layers(), body());
      ids.push_back(id);
      if (rng() % 4 == 0) {  // added and removed between two ticks: never seen
        p.remove(id);
        ids.pop_back();
        removed.push_back(id);
      }
    }
    ASSERT_NO_FATAL_FAILURE(p.tick_and_check(rng, t % 4 == 0 ? 2 : 0));
  }
}

// random_run with hysteresis 0 and 4, skins automatic, 1 and 30, one seed each from `seed` on.
template <class S>
void random_runs(std::uint64_t seed, int ticks, int count, double activity, int pair_mutations = 0) {
  for (const S h : {S{0}, S{4}})
    for (const S skin : {S{0}, S{1}, S{30}})
      ASSERT_NO_FATAL_FAILURE(random_run<S>(seed++, h, skin, ticks, count, activity, pair_mutations));
}

TYPED_TEST(AoiTyped, MatchesOracleOverManyTicks) { random_runs<TypeParam>(11, 40, 90, 1.0); }

// Few changes per tick: only the watchers near them are re-evaluated (the incremental path).
TYPED_TEST(AoiTyped, SparseChangesMatchOracle) { random_runs<TypeParam>(51, 60, 120, 0.04); }

// Both ends of seen pairs mutated in the same tick (layers above all), among the other mutations: with many changes
// (every watcher evaluated) and with few (the incremental path, where a reverse list that misses a watcher also
// leaves it unevaluated). Several seeds per setting.
TYPED_TEST(AoiTyped, PairMutationsMatchOracle) {
  for (std::uint64_t seed : {211, 311, 411}) ASSERT_NO_FATAL_FAILURE(random_runs<TypeParam>(seed, 40, 90, 0.3, 10));
}
TYPED_TEST(AoiTyped, SparsePairMutationsMatchOracle) {
  for (std::uint64_t seed : {231, 331, 431}) ASSERT_NO_FATAL_FAILURE(random_runs<TypeParam>(seed, 60, 120, 0.01, 1));
}

// Every entity moving every tick (the benchmark's regime, where every watcher is re-evaluated).
TYPED_TEST(AoiTyped, EveryoneMovingMatchesOracle) {
  using S = TypeParam;
  std::mt19937_64 rng(77);
  SCOPED_TRACE("seed 77");
  Pair<S> p(AoiSettings<S>{{{-100, -100}, {100, 100}}, S{2}});
  std::uniform_real_distribution<double> coord(-100, 100), step(-4, 4);
  for (std::uint64_t id = 0; id < 150; ++id)
    p.add(id * 7 + 3, {static_cast<S>(coord(rng)), static_cast<S>(coord(rng))}, S{20}, AoiMode::Both, ~0u, S{1});
  ASSERT_NO_FATAL_FAILURE(p.tick_and_check(rng, 1));
  for (int t = 0; t < 40; ++t) {
    for (auto& [id, e] : p.oracle.next) {
      const Vec<2, S> q{static_cast<S>(std::clamp(static_cast<double>(e.pos.x) + step(rng), -100.0, 100.0)),
                        static_cast<S>(std::clamp(static_cast<double>(e.pos.y) + step(rng), -100.0, 100.0))};
      p.world.move(id, q);
      e.pos = q;
    }
    ASSERT_NO_FATAL_FAILURE(p.tick_and_check(rng, t % 10 == 0 ? 1 : 0));
  }
}

// Every entity running on a slowly turning heading, bouncing off the map's edge: anchors are placed ahead of the
// runners, many re-anchor each tick, and targets leave watchers' reach by their own re-anchoring (entries left
// behind) in the same ticks as the watchers re-anchor.
TYPED_TEST(AoiTyped, RunnersMatchOracle) {
  using S = TypeParam;
  const S hysteresis[] = {0, 3};
  const S skins[] = {0, 8};
  std::uint64_t seed = 91;
  for (S h : hysteresis)
    for (S skin : skins) {
      SCOPED_TRACE("seed " + std::to_string(seed));
      std::mt19937_64 rng(seed++);
      AoiSettings<S> settings{{{-100, -100}, {100, 100}}, h};
      settings.skin = skin;
      Pair<S> p(settings);
      std::uniform_real_distribution<double> coord(-100, 100), unit(0, 1);
      std::map<std::uint64_t, std::pair<double, double>> motion;  // heading, speed
      for (std::uint64_t id = 0; id < 160; ++id) {
        p.add(id * 5 + 1, {static_cast<S>(coord(rng)), static_cast<S>(coord(rng))}, static_cast<S>(10 + 15 * unit(rng)),
              id % 5 == 0 ? AoiMode::Watcher : AoiMode::Both, ~0u, S{0});
        motion[id * 5 + 1] = {6.283185307179586 * unit(rng), 0.5 + 3 * unit(rng)};
      }
      ASSERT_NO_FATAL_FAILURE(p.tick_and_check(rng, 1));
      for (int t = 0; t < 60; ++t) {
        SCOPED_TRACE("tick " + std::to_string(t));
        for (auto& [id, e] : p.oracle.next) {
          auto& [heading, speed] = motion[id];
          heading += 0.4 * unit(rng) - 0.2;
          double x = static_cast<double>(e.pos.x) + speed * std::cos(heading);
          double y = static_cast<double>(e.pos.y) + speed * std::sin(heading);
          if (x < -100 || x > 100) heading = 3.141592653589793 - heading;
          if (y < -100 || y > 100) heading = -heading;
          const Vec<2, S> q{static_cast<S>(std::clamp(x, -100.0, 100.0)), static_cast<S>(std::clamp(y, -100.0, 100.0))};
          p.world.move(id, q);
          e.pos = q;
        }
        ASSERT_NO_FATAL_FAILURE(p.tick_and_check(rng, t % 10 == 0 ? 1 : 0));
      }
    }
}

// Thousands of ticks of a world where everything happens: runners on wandering headings bouncing off the map's
// edge, random walkers and idlers, teleports (some far outside the world), view radius, layer and mode changes,
// removals and additions (new ids and ids re-added, with other values, in the tick they were removed). Long enough
// for the slots to be renumbered many times, the list arrays repacked and the burst buffers given back and made
// again. Every tick's events are compared with the model, and the whole state every 25 ticks.
TYPED_TEST(AoiTyped, LongRunsMatchOracle) {
  using S = TypeParam;
  struct Run {
    S hysteresis, skin;
  };
  std::uint64_t seed = 701;
  for (const Run run : {Run{0, 0}, Run{3, 8}}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937_64 rng(seed++);
    AoiSettings<S> settings{{{-100, -100}, {100, 100}}, run.hysteresis};
    settings.skin = run.skin;
    settings.split_threshold = 4;
    Pair<S> p(settings);
    std::uniform_real_distribution<double> coord(-100, 100), unit(0, 1);
    enum class Kind { Runner, Walker, Idle };
    struct Motion {
      Kind kind;
      double heading, speed;
    };
    std::map<std::uint64_t, Motion> motion;
    auto layers = [&] {
      static constexpr std::uint32_t masks[] = {1, 2, 3, 5, ~0u, ~0u, ~0u, 0};
      return masks[rng() % 8];
    };
    auto spawn = [&](std::uint64_t id) {
      const Kind kind = static_cast<Kind>(rng() % 3);
      p.add(id, {static_cast<S>(coord(rng)), static_cast<S>(coord(rng))}, static_cast<S>(35 * unit(rng)),
            random_mode(rng), layers(), static_cast<S>(2 * unit(rng)));
      motion[id] = {kind, 6.283185307179586 * unit(rng), 0.5 + 3 * unit(rng)};
    };
    std::uint64_t next_id = 1;
    for (int i = 0; i < 100; ++i) spawn(next_id++);
    std::vector<std::uint64_t> gone;
    ASSERT_NO_FATAL_FAILURE(p.tick_and_check(rng, 1));
    for (int t = 0; t < 2000; ++t) {
      SCOPED_TRACE("tick " + std::to_string(t));
      std::vector<std::uint64_t> ids;
      for (const auto& [id, e] : p.oracle.next) ids.push_back(id);
      for (const std::uint64_t id : ids) {
        Motion& m = motion[id];
        const Vec<2, S> at = p.oracle.next.at(id).pos;
        double x = static_cast<double>(at.x), y = static_cast<double>(at.y);
        if (m.kind == Kind::Runner) {
          m.heading += 0.4 * unit(rng) - 0.2;
          x += m.speed * std::cos(m.heading);
          y += m.speed * std::sin(m.heading);
        } else if (m.kind == Kind::Walker) {
          const double a = 6.283185307179586 * unit(rng), step = 3 * unit(rng);
          x += step * std::cos(a);
          y += step * std::sin(a);
        }
        if (x < -100 || x > 100) m.heading = 3.141592653589793 - m.heading;
        if (y < -100 || y > 100) m.heading = -m.heading;
        x = std::clamp(x, -100.0, 100.0);
        y = std::clamp(y, -100.0, 100.0);
        const double u = unit(rng);
        if (u < 0.002) {  // a teleport, now and then far outside the world
          x = coord(rng) * (rng() % 8 == 0 ? 60 : 1);
          y = coord(rng);
        }
        if (m.kind != Kind::Idle || u < 0.002) p.move(id, {static_cast<S>(x), static_cast<S>(y)});
        if (u >= 0.002 && u < 0.005) p.set_radius(id, static_cast<S>(35 * unit(rng)));
        if (u >= 0.005 && u < 0.007) p.set_layers(id, layers());
        if (u >= 0.007 && u < 0.010) {
          p.remove(id);
          if (rng() % 3 == 0) {
            spawn(id);  // re-added in the same tick, with new values (its mode, say)
          } else {
            motion.erase(id);
            gone.push_back(id);
          }
        }
      }
      // Newcomers: fresh ids and ids removed at earlier ticks, about as many as leave.
      if (unit(rng) < 0.2) spawn(next_id++);
      if (!gone.empty() && unit(rng) < 0.1) {
        const std::size_t i = rng() % gone.size();
        spawn(gone[i]);
        gone.erase(gone.begin() + static_cast<std::ptrdiff_t>(i));
      }
      ASSERT_NO_FATAL_FAILURE(p.tick_and_check(rng, t % 25 == 0 ? 1 : 0, t % 25 == 0));
    }
  }
}

// Hysteresis at the edge, and a shrinking radius, with values worked out by hand.
TYPED_TEST(AoiTyped, HysteresisByHand) {
  using S = TypeParam;
  AoiWorld<S> w(AoiSettings<S>{{{-50, -50}, {50, 50}}, S{2}});
  w.add(1, {0, 0}, 10, AoiMode::Watcher);
  w.add(2, {10, 0}, 0, AoiMode::Marker);  // exactly at the radius: seen
  using K = AoiEvent::Kind;
  EXPECT_EQ(tick_of(w), (std::vector<AoiEvent>{{K::Enter, 1, 2}}));
  w.move(2, {11.5, 0});  // beyond the radius, within radius + hysteresis: still seen
  EXPECT_TRUE(tick_of(w).empty());
  w.move(2, {12, 0});  // exactly radius + hysteresis: still seen
  EXPECT_TRUE(tick_of(w).empty());
  w.move(2, {12.5, 0});
  EXPECT_EQ(tick_of(w), (std::vector<AoiEvent>{{K::Leave, 1, 2}}));
  w.move(2, {11, 0});  // not seen before, beyond the radius: not seen
  EXPECT_TRUE(tick_of(w).empty());
  w.move(2, {6, 8});  // distance 10
  EXPECT_EQ(tick_of(w), (std::vector<AoiEvent>{{K::Enter, 1, 2}}));
  w.set_view_radius(1, 8);  // 10 <= 8 + 2: kept
  EXPECT_TRUE(tick_of(w).empty());
  w.set_view_radius(1, 7);
  EXPECT_EQ(tick_of(w), (std::vector<AoiEvent>{{K::Leave, 1, 2}}));
  EXPECT_EQ(visible_of(w, 1), std::vector<std::uint64_t>{});
}

// Minute coordinates, where squared distances are subnormal or round to zero (in double for double worlds; in
// float's fast path for float worlds): the documented rule compares the rounded squares, so two entities whose
// squared distance rounds to zero see each other at view radius 0, and the world must find them as candidates even
// with a skin far below their distance. Entities on a lattice of step u, radii 0..3u, small steps and jumps.
TYPED_TEST(AoiTyped, MinuteMagnitudesFollowTheRoundedRule) {
  using S = TypeParam;
  // double: squares of u are below the smallest subnormal, or subnormal; float: squares of u are subnormal floats
  // (the double squares are normal).
  const std::vector<double> scales = std::is_same_v<S, double> ? std::vector<double>{1e-162, 3e-160}
                                                                : std::vector<double>{3e-23, 1e-21};
  for (const double u : scales) {
    for (const double skin : {u * 1e-6, 0.0}) {
      for (const double h : {0.0, u}) {
        std::mt19937_64 rng(static_cast<std::uint64_t>(skin == 0) * 2 + static_cast<std::uint64_t>(h != 0) + 301);
        SCOPED_TRACE("u " + std::to_string(u * 1e160) + "e-160, skin " + std::to_string(skin / u) + "u, hysteresis " +
                     std::to_string(h / u) + "u");
        AoiSettings<S> settings{{{static_cast<S>(-40 * u), static_cast<S>(-40 * u)},
                                 {static_cast<S>(40 * u), static_cast<S>(40 * u)}},
                                static_cast<S>(h)};
        settings.skin = static_cast<S>(skin);
        Pair<S> p(settings);
        std::uniform_int_distribution<int> cell(-12, 12), step(-2, 2), radius(0, 6);
        auto at = [&](double x, double y) { return Vec<2, S>{static_cast<S>(x * u / 2), static_cast<S>(y * u / 2)}; };
        for (std::uint64_t id = 1; id <= 80; ++id)
          p.add(id, at(cell(rng), cell(rng)), static_cast<S>(radius(rng) * u / 2), random_mode(rng), ~0u, S{0});
        ASSERT_NO_FATAL_FAILURE(p.tick_and_check(rng, 0));
        for (int t = 0; t < 20; ++t) {
          SCOPED_TRACE("tick " + std::to_string(t));
          for (auto& [id, e] : p.oracle.next) {
            const double x = std::round(static_cast<double>(e.pos.x) / (u / 2));
            const double y = std::round(static_cast<double>(e.pos.y) / (u / 2));
            const Vec<2, S> q = rng() % 10 == 0 ? at(cell(rng), cell(rng)) : at(x + step(rng), y + step(rng));
            p.world.move(id, q);
            e.pos = q;
            if (rng() % 20 == 0) p.set_radius(id, static_cast<S>(radius(rng) * u / 2));
          }
          ASSERT_NO_FATAL_FAILURE(p.tick_and_check(rng, 0));
        }
      }
    }
  }
}

// Found by fuzz_aoi: at these magnitudes squared distances are subnormal, and a pair at the edge of a watcher's
// reach (its view radius is 0, so its reach is the automatic skin) passed the invariant's test while the
// candidate query, with only relative margins, missed it (validate: "in reach has no entry").
TEST(Aoi, SubnormalSquaresAtTheEdgeOfReach) {
  std::mt19937_64 rng(5);
  Pair<double> p(AoiSettings<double>{{{-9.9999999999999999e-160, -9.9999999999999999e-160},
                                       {9.9999999999999999e-160, 9.9999999999999999e-160}}});
  p.add(51, {3.7500000000000001e-160, 3.0000000000000001e-159}, -0.0, AoiMode::Both, ~0u, 0);
  p.add(52, {4.9999999999999999e-160, 3.0000000000000001e-159}, -0.0, AoiMode::Both, ~0u, 0);
  p.add(9, {6.2500000000000004e-160, 3.0000000000000001e-159}, -0.0, AoiMode::Both, ~0u, 0);
  p.add(0, {4.9999999999999999e-160, 4.9999999999999999e-160}, 3.9999990725054602e-159, AoiMode::Both, ~0u, 0);
  ASSERT_NO_FATAL_FAILURE(p.tick_and_check(rng, 0));
  EXPECT_EQ(p.world.pair_count(), p.oracle.rel.size());
}

// Mutations recorded from inside callbacks take effect at the next tick, like any other.
TYPED_TEST(AoiTyped, CallbacksMayMutate) {
  using S = TypeParam;
  using K = AoiEvent::Kind;
  AoiWorld<S> w(AoiSettings<S>{{{-50, -50}, {50, 50}}});
  w.add(1, {0, 0}, 10);
  w.add(2, {5, 0}, 10);
  std::vector<AoiEvent> got;
  w.tick([&](const AoiEvent& e) {
    got.push_back(e);
    // The new relation is visible from the callback.
    EXPECT_EQ(visible_of(w, e.watcher), std::vector<std::uint64_t>{e.target});
    if (e.watcher == 1) {
      w.add(3, {0, 3}, 1, AoiMode::Marker);
      w.move(2, {40, 40});
      EXPECT_THROW(w.add(3, {0, 0}, 1), std::invalid_argument);  // queued, yet checked at the call
      EXPECT_THROW(w.tick([](const AoiEvent&) {}), std::logic_error);
    }
  });
  EXPECT_EQ(got, (std::vector<AoiEvent>{{K::Enter, 1, 2}, {K::Enter, 2, 1}}));
  EXPECT_EQ(visible_of(w, 3), std::vector<std::uint64_t>{});  // added, not ticked yet
  EXPECT_EQ(tick_of(w), (std::vector<AoiEvent>{{K::Leave, 1, 2}, {K::Enter, 1, 3}, {K::Leave, 2, 1}}));
  // From for_each_visible and query.
  w.for_each_visible(1, [&](std::uint64_t t) { w.remove(t); });
  w.query(quadrant::Circle<S>{{40, 40}, 1}, [&](std::uint64_t id) { w.move(id, {1, 0}); });
  EXPECT_EQ(visible_of(w, 1), std::vector<std::uint64_t>{3});  // the removal waits for the tick
  EXPECT_EQ(tick_of(w), (std::vector<AoiEvent>{{K::Enter, 1, 2}, {K::Leave, 1, 3}, {K::Enter, 2, 1}}));
  EXPECT_THROW(visible_of(w, 3), std::invalid_argument);
  // A bool-returning callback stops.
  int calls = 0;
  w.query(quadrant::Circle<S>{{0, 0}, 5}, [&](std::uint64_t) { return ++calls < 1; });
  EXPECT_EQ(calls, 1);
}

// Bad input throws std::invalid_argument ("quadrant: aoi: ...") and changes nothing: the next tick still matches
// the model that never saw the bad calls.
TYPED_TEST(AoiTyped, BadInputChangesNothing) {
  using S = TypeParam;
  std::mt19937_64 rng(5);
  SCOPED_TRACE("seed 5");
  Pair<S> p(AoiSettings<S>{{{-50, -50}, {50, 50}}, S{1}});
  for (std::uint64_t id = 1; id <= 30; ++id)
    p.add(id, {static_cast<S>(static_cast<double>(id % 7) * 6 - 20), static_cast<S>(static_cast<double>(id) - 15)},
          S{12}, AoiMode::Both, ~0u, S{1});
  ASSERT_NO_FATAL_FAILURE(p.tick_and_check(rng, 1));
  p.move(3, {1, 1});
  p.remove(4);
  const S nan = std::numeric_limits<S>::quiet_NaN(), inf = std::numeric_limits<S>::infinity();
  auto expect_bad = [&](auto&& call) {
    try {
      call();
      ADD_FAILURE() << "no exception";
    } catch (const std::invalid_argument& e) {
      EXPECT_EQ(std::string(e.what()).rfind("quadrant: aoi: ", 0), 0u) << e.what();
    }
  };
  AoiWorld<S>& w = p.world;
  std::vector<std::vector<std::uint64_t>> before;
  for (std::uint64_t id = 1; id <= 30; ++id) before.push_back(visible_of(w, id));
  expect_bad([&] { w.add(5, {0, 0}, 1); });                       // duplicate
  expect_bad([&] { w.add(99, {nan, 0}, 1); });                    // NaN position
  expect_bad([&] { w.add(99, {0, inf}, 1); });                    // infinite position
  expect_bad([&] { w.add(99, {0, 0}, -1); });                     // negative radius
  expect_bad([&] { w.add(99, {0, 0}, nan); });                    // NaN radius
  expect_bad([&] { w.add(99, {0, 0}, inf); });                    // infinite radius
  expect_bad([&] { w.add(99, {0, 0}, 1, AoiMode::Both, 1, -2); });  // negative body
  expect_bad([&] { w.add(99, {0, 0}, 1, static_cast<AoiMode>(0)); });
  expect_bad([&] { w.move(99, {0, 0}); });                        // unknown
  expect_bad([&] { w.move(4, {0, 0}); });                         // removed
  expect_bad([&] { w.move(5, {nan, 0}); });
  expect_bad([&] { w.move(5, {-inf, 0}); });
  expect_bad([&] { w.set_view_radius(99, 1); });
  expect_bad([&] { w.set_view_radius(5, -1); });
  expect_bad([&] { w.set_view_radius(5, nan); });
  expect_bad([&] { w.set_layers(99, 1); });
  expect_bad([&] { w.remove(99); });
  expect_bad([&] { w.remove(4); });                               // removed twice
  expect_bad([&] { w.for_each_visible(99, [](std::uint64_t) {}); });
  expect_bad([&] { w.for_each_watcher(99, [](std::uint64_t) {}); });
  EXPECT_THROW(w.query(quadrant::Circle<S>{{0, 0}, -1}, [](std::uint64_t) {}), std::invalid_argument);
  EXPECT_THROW(w.query(quadrant::Circle<S>{{nan, 0}, 1}, [](std::uint64_t) {}), std::invalid_argument);
  EXPECT_FALSE(w.contains(99));
  EXPECT_FALSE(w.contains(4));
  for (std::uint64_t id = 1; id <= 30; ++id) EXPECT_EQ(visible_of(w, id), before[id - 1]);
  ASSERT_NO_FATAL_FAILURE(p.tick_and_check(rng, 1));
  // Settings.
  EXPECT_THROW(AoiWorld<S>(AoiSettings<S>{{{0, 0}, {0, 1}}}), std::invalid_argument);
  EXPECT_THROW(AoiWorld<S>(AoiSettings<S>{{{0, 0}, {1, 1}}, S{-1}}), std::invalid_argument);
  EXPECT_THROW(AoiWorld<S>(AoiSettings<S>{{{0, 0}, {1, 1}}, nan}), std::invalid_argument);
  EXPECT_THROW(AoiWorld<S>(AoiSettings<S>{{{0, nan}, {1, 1}}}), std::invalid_argument);
}

// Modes and layers: who may see whom, checked on a small fixed scene.
TYPED_TEST(AoiTyped, ModesAndLayers) {
  using S = TypeParam;
  AoiWorld<S> w(AoiSettings<S>{{{-10, -10}, {10, 10}}});
  w.add(1, {0, 0}, 5, AoiMode::Watcher, 1);
  w.add(2, {1, 0}, 5, AoiMode::Marker, 1);
  w.add(3, {0, 1}, 5, AoiMode::Both, 2);
  w.add(4, {1, 1}, 5, AoiMode::Both, 3);
  w.add(5, {2, 1}, 5, AoiMode::Both, 0);  // in no layer: sees nothing, seen by nothing
  tick_of(w);
  EXPECT_EQ(visible_of(w, 1), (std::vector<std::uint64_t>{2, 4}));
  EXPECT_EQ(visible_of(w, 2), std::vector<std::uint64_t>{});
  EXPECT_EQ(visible_of(w, 3), (std::vector<std::uint64_t>{4}));
  EXPECT_EQ(visible_of(w, 4), (std::vector<std::uint64_t>{2, 3}));
  EXPECT_EQ(watchers_of(w, 4), (std::vector<std::uint64_t>{1, 3}));
  EXPECT_EQ(visible_of(w, 5), std::vector<std::uint64_t>{});
  EXPECT_EQ(watchers_of(w, 1), std::vector<std::uint64_t>{});
  EXPECT_EQ(query_of(w, Box<2, S>{{-1, -1}, {3, 3}}, ~0u), (std::vector<std::uint64_t>{1, 2, 3, 4}));
  EXPECT_EQ(query_of(w, Box<2, S>{{-1, -1}, {3, 3}}, 2u), (std::vector<std::uint64_t>{3, 4}));
  // A removed watcher's pairs end at the next tick; a re-added one starts afresh.
  using K = AoiEvent::Kind;
  w.remove(4);
  EXPECT_EQ(tick_of(w), (std::vector<AoiEvent>{{K::Leave, 1, 4}, {K::Leave, 3, 4}, {K::Leave, 4, 2}, {K::Leave, 4, 3}}));
  w.add(4, {1, 1}, 5, AoiMode::Marker, 1);
  EXPECT_EQ(tick_of(w), (std::vector<AoiEvent>{{K::Enter, 1, 4}}));
}

// Regression (issue "AoiWorld, layer changes"): watcher 34 sees marker 22, and both change layers before a tick, so
// that 34's old layers miss 22's new ones while the new layers share a bit. When 22 is applied first, its relink
// (with 34 still in its old layers) drops 34 from 22's reverse list; 34's relink then keeps its entry of 22 (the
// pair still holds) and must name itself in that list again. It did not: validate() reported "rcand of 22 misses
// watcher 34", and once the pair had ended, a relink of 22 gave 34 a second entry of it and the next Enter came
// twice (pair_count 2). Run in both orders, alone (every watcher evaluated) and among bystanders (the incremental
// path, where watchers are marked through the reverse lists); every tick checked against the model and by
// validate(), and the events spelt out.
TYPED_TEST(AoiTyped, LayerChangesOnBothEndsOfAPair) {
  using S = TypeParam;
  using K = AoiEvent::Kind;
  using Events = std::vector<AoiEvent>;
  for (const bool target_first : {true, false})
    for (const int bystanders : {0, 100}) {
      SCOPED_TRACE(std::string(target_first ? "marker" : "watcher") + " changed first, " + std::to_string(bystanders) +
                   " bystanders");
      std::mt19937_64 rng(7);
      AoiSettings<S> settings{{{-100, -100}, {100, 100}}};
      settings.skin = 10;
      Pair<S> p(settings);
      p.add(34, {0, 0}, 10, AoiMode::Watcher, 1, 0);
      p.add(22, {5, 0}, 0, AoiMode::Marker, 1, 0);
      // Far from the pair (beyond its reach), seeing each other.
      for (int i = 0; i < bystanders; ++i)
        p.add(1000 + static_cast<std::uint64_t>(i),
              {static_cast<S>(50 + i % 10 * 5), static_cast<S>(-50 + i / 10 * 10)}, 8, AoiMode::Both, ~0u, 0);
      ASSERT_NO_FATAL_FAILURE(p.tick_and_check(rng, 0));
      ASSERT_EQ(p.world.pair_count(), p.oracle.rel.size());
      // Both change layers: 1 -> 2. The pair still holds: no event.
      if (target_first) {
        p.set_layers(22, 2);
        p.set_layers(34, 2);
      } else {
        p.set_layers(34, 2);
        p.set_layers(22, 2);
      }
      ASSERT_NO_FATAL_FAILURE(p.tick_and_check(rng, 0));
      EXPECT_EQ(p.last, Events{});
      EXPECT_EQ(watchers_of(p.world, 22), std::vector<std::uint64_t>{34});
      // The pair ends by distance (22 stays within 34's reach, so 34 keeps an entry of it).
      p.move(22, {12, 0});
      ASSERT_NO_FATAL_FAILURE(p.tick_and_check(rng, 0));
      EXPECT_EQ(p.last, (Events{{K::Leave, 34, 22}}));
      // 22 relinks again (a layer change that keeps the pair possible): 34 must not get a second entry.
      p.set_layers(22, 6);
      ASSERT_NO_FATAL_FAILURE(p.tick_and_check(rng, 0));
      EXPECT_EQ(p.last, Events{});
      // Back in sight: one Enter, one pair.
      p.move(22, {5, 0});
      ASSERT_NO_FATAL_FAILURE(p.tick_and_check(rng, 0));
      EXPECT_EQ(p.last, (Events{{K::Enter, 34, 22}}));
      EXPECT_EQ(p.world.pair_count(), p.oracle.rel.size());
      EXPECT_EQ(visible_of(p.world, 34), std::vector<std::uint64_t>{22});
    }
}

// Markers first, watchers later: the automatic skin is chosen at the first tick with watchers, and the entities
// already there re-anchor with it. Also entities only outside the world.
TYPED_TEST(AoiTyped, LateWatchersAndOutsideTheWorld) {
  using S = TypeParam;
  std::mt19937_64 rng(23);
  SCOPED_TRACE("seed 23");
  Pair<S> p(AoiSettings<S>{{{-10, -10}, {10, 10}}, S{1}});
  std::uniform_real_distribution<double> far(200, 400), step(-6, 6);
  for (std::uint64_t id = 1; id <= 60; ++id)
    p.add(id, {static_cast<S>(far(rng)), static_cast<S>(-far(rng))}, 0, AoiMode::Marker, ~0u, S{1});
  ASSERT_NO_FATAL_FAILURE(p.tick_and_check(rng, 0));
  EXPECT_EQ(p.world.pair_count(), 0u);
  for (std::uint64_t id = 100; id <= 140; ++id)
    p.add(id, {static_cast<S>(far(rng)), static_cast<S>(-far(rng))}, S{40}, AoiMode::Both, ~0u, S{0});
  ASSERT_NO_FATAL_FAILURE(p.tick_and_check(rng, 0));
  EXPECT_GT(p.world.skin(), S{0});
  for (int t = 0; t < 30; ++t) {
    for (auto& [id, e] : p.oracle.next) {
      const Vec<2, S> q{static_cast<S>(static_cast<double>(e.pos.x) + step(rng)),
                        static_cast<S>(static_cast<double>(e.pos.y) + step(rng))};
      p.world.move(id, q);
      e.pos = q;
    }
    ASSERT_NO_FATAL_FAILURE(p.tick_and_check(rng, 0));
  }
  EXPECT_TRUE(p.world.contains(100));
  EXPECT_EQ(p.world.position(100), p.oracle.now.at(100).pos);
  EXPECT_THROW(p.world.position(999), std::invalid_argument);
}

// The box a drifting entity's crescent query walks (the internal crescent_box): every point within the reach of the
// new anchor and beyond the kept radius of the old one lies inside it, at every magnitude and direction, and for a
// move along an axis it leaves out the disc's half behind the line through the circles' crossings. Membership is
// decided in long double from the points as stored.
template <class S>
void check_crescent_boxes(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(0, 1);
  const std::vector<double> scales = std::is_same_v<S, float> ? std::vector<double>{1, 1e-15, 1e12}
                                                               : std::vector<double>{1, 1e-120, 1e-150, 1e40};
  long inside = 0;
  for (const double m : scales)
    for (int trial = 0; trial < 200; ++trial) {
      const double r = m * (0.5 + 100 * unit(rng)), k = r * (0.5 + 0.5 * unit(rng));
      const double angle = 2 * std::numbers::pi * unit(rng), d = r * 1.2 * unit(rng);
      const Vec<2, S> n{static_cast<S>(m * 1000 * (2 * unit(rng) - 1)), static_cast<S>(m * 1000 * (2 * unit(rng) - 1))};
      const Vec<2, S> o{static_cast<S>(static_cast<double>(n.x) - d * std::cos(angle)),
                        static_cast<S>(static_cast<double>(n.y) - d * std::sin(angle))};
      const double reach2 = r * r, keep2 = k * k;
      const Box<2, S> b = quadrant::detail::aoi::crescent_box(n, o, reach2, keep2);
      auto dist2 = [](const Vec<2, S>& a, const Vec<2, S>& c) {
        const long double dx = static_cast<long double>(a.x) - c.x, dy = static_cast<long double>(a.y) - c.y;
        return dx * dx + dy * dy;
      };
      for (int i = 0; i < 400; ++i) {
        // Points over the disc, half of them on a thin ring at its edge, where the crescent's tips are.
        const double t = 2 * std::numbers::pi * unit(rng);
        const double rho = i % 2 == 0 ? r * std::sqrt(unit(rng)) : r * (1 - 1e-6 * unit(rng));
        const Vec<2, S> p{static_cast<S>(static_cast<double>(n.x) + rho * std::cos(t)),
                          static_cast<S>(static_cast<double>(n.y) + rho * std::sin(t))};
        if (!(dist2(p, n) <= reach2 && dist2(p, o) > keep2)) continue;
        ++inside;
        ASSERT_TRUE(b.min.x <= p.x && p.x <= b.max.x && b.min.y <= p.y && p.y <= b.max.y)
            << "scale " << m << " trial " << trial << " point " << i;
      }
    }
  EXPECT_GT(inside, 10000);
  // A move along +x by d = r / 2 with equal radii: the box starts about d / 2 behind the new anchor, not r.
  const double r = 100;
  const Box<2, S> b = quadrant::detail::aoi::crescent_box(Vec<2, S>{0, 0}, Vec<2, S>{-50, 0}, r * r, r * r);
  EXPECT_NEAR(static_cast<double>(b.min.x), -25, 0.01);
  EXPECT_GE(static_cast<double>(b.max.x), r);
  EXPECT_LE(static_cast<double>(b.min.y), -r);
  EXPECT_GE(static_cast<double>(b.max.y), r);
}

TEST(Aoi, CrescentBoxHoldsTheCrescent) {
  check_crescent_boxes<float>(41);
  check_crescent_boxes<double>(42);
}

// Entities jittering around homes spread over a square, every one moving at every tick by less than the skin's half
// (10), so that the trees are left alone (a Tree's node vectors may still grow when a node holds more objects than
// ever before; that is the tree's business): every watcher is evaluated each tick, events flow both ways.
struct JitterWorld {
  AoiWorld<float> world;
  std::vector<Vec<2, float>> home;
  std::mt19937_64 rng;
  std::uniform_real_distribution<float> jitter;
  long events = 0;
  JitterWorld(std::uint64_t seed, float spread, float hysteresis, float amplitude)
      : world([&] {
          AoiSettings<float> settings{{{-100, -100}, {100, 100}}, hysteresis};
          settings.skin = 10;
          return settings;
        }()),
        home(300), rng(seed), jitter(-amplitude, amplitude) {
    std::uniform_real_distribution<float> coord(-spread, spread);
    for (std::size_t i = 0; i < home.size(); ++i) {
      home[i] = {coord(rng), coord(rng)};
      world.add(i, home[i], 25);
    }
  }
  void run(int ticks) {
    for (int t = 0; t < ticks; ++t) {
      for (std::size_t i = 0; i < home.size(); ++i)
        world.move(i, {home[i].x + jitter(rng), home[i].y + jitter(rng)});
      world.tick([&](const AoiEvent&) { ++events; });
    }
  }
};

// Once its lists and buffers have grown, a tick allocates nothing.
TEST(Aoi, NoAllocationPerTickOnceWarm) {
  JitterWorld j(3, 100, 1.0f, 1.5f);
  j.run(200);
  const long before = g_allocations.load(), events_before = j.events;
  j.run(40);
  EXPECT_EQ(g_allocations.load() - before, 0);
  EXPECT_GT(j.events - events_before, 0);
}

// A dense world makes many events an entity at every tick (here more than 8, the per-entity threshold of the burst
// rule): its buffers are not a burst, and are kept, not given back and regrown at each tick.
TEST(Aoi, ManyEventsAnEntityEveryTickAreNotABurst) {
  JitterWorld j(5, 30, 0.5f, 2.0f);
  j.run(100);
  const long before = g_allocations.load(), events_before = j.events;
  j.run(40);
  EXPECT_GT(j.events - events_before, 40 * 8 * static_cast<long>(j.home.size()));
  EXPECT_EQ(g_allocations.load() - before, 0);
  j.world.validate();
}

// A burst of events (here the first tick: 800 entities that all see each other, 639,200 enter events) leaves no
// event buffers behind once delivered; the steady ticks after it keep theirs (NoAllocationPerTickOnceWarm).
TEST(Aoi, BurstBuffersAreGivenBackAfterDelivery) {
  AoiSettings<double> settings{{{-100, -100}, {100, 100}}, 0.0};
  AoiWorld<double> w(settings);
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> coord(-50, 50);
  const std::size_t n = 800;
  for (std::size_t i = 0; i < n; ++i) w.add(i, {coord(rng), coord(rng)}, 200);
  const std::size_t before = w.bytes();
  std::size_t events = 0;
  w.tick([&](const AoiEvent& e) {
    EXPECT_EQ(e.kind, AoiEvent::Kind::Enter);
    ++events;
  });
  ASSERT_EQ(events, n * (n - 1));
  EXPECT_EQ(w.pair_count(), n * (n - 1));
  // The relation itself is held (a candidate entry a pair: 4 bytes, with room to grow), the events (24 bytes each)
  // are not. Every entity watches and marks with the same radius, so no pair needs a reverse entry (4 bytes more).
  const std::size_t after = w.bytes();
  EXPECT_GT(after, before + events * sizeof(std::uint32_t));
  EXPECT_LT(after, before + events * 2 * sizeof(std::uint32_t));
  // The world goes on: one entity leaves everyone's view, exactly 2 (n - 1) events.
  w.move(0, {1000, 1000});
  std::size_t leaves = 0;
  w.tick([&](const AoiEvent& e) {
    EXPECT_EQ(e.kind, AoiEvent::Kind::Leave);
    EXPECT_TRUE(e.watcher == 0 || e.target == 0);
    ++leaves;
  });
  EXPECT_EQ(leaves, 2 * (n - 1));
  w.validate();
}

// A first tick of a few events an entity (fewer than 8, the burst threshold) is given back at the first quiet tick:
// a steady world keeps room for 4 times its tick's events at most.
TEST(Aoi, SmallBurstBuffersAreGivenBackOnAQuietTick) {
  AoiWorld<double> w(AoiSettings<double>{{{-100, -100}, {100, 100}}, 0.0});
  std::mt19937_64 rng(12);
  std::uniform_real_distribution<double> coord(-100, 100);
  const std::size_t n = 1000;
  for (std::size_t i = 0; i < n; ++i) w.add(i, {coord(rng), coord(rng)}, 9);
  std::size_t events = 0;
  w.tick([&](const AoiEvent&) { ++events; });
  ASSERT_GT(events, 2 * n);
  ASSERT_LT(events, 8 * n);  // not a burst by the first rule: its buffers are kept at this tick
  const std::size_t after_first = w.bytes();
  std::size_t quiet = 0;
  w.tick([&](const AoiEvent&) { ++quiet; });
  EXPECT_EQ(quiet, 0u);
  EXPECT_LE(w.bytes() + events * sizeof(AoiEvent), after_first);
  // The world goes on: one entity walks away from everyone it saw.
  const std::size_t seen = [&] {
    std::size_t k = 0;
    w.for_each_visible(0, [&](std::uint64_t) { ++k; });
    return k;
  }();
  w.move(0, {1000, 1000});
  std::size_t leaves = 0;
  w.tick([&](const AoiEvent& e) { leaves += e.kind == AoiEvent::Kind::Leave; });
  EXPECT_EQ(leaves, 2 * seen);
  w.validate();
}

// The slots are renumbered along the Morton curve when many entities joined (here at the second tick: 64 entities
// since the last renumbering, all of them live) and then every 2N re-anchors. The records move in place: the world
// keeps no second copy of them between renumberings, nor the renumbering's scratch (the Morton keys, the new
// numbers, the watchers' reaches, a copy of each list array's table of spans); it keeps a copy of the new numbers
// (4 bytes a slot, in a buffer the event ordering uses), and the tick may grow the world by less than a copy of the
// slots' ids and positions besides, 8 + 2 x 8 bytes.
TEST(Aoi, RenumberingKeepsNoCopyOfTheRecords) {
  AoiWorld<double> w(AoiSettings<double>{{{-100, -100}, {100, 100}}, 0.0});
  for (std::uint64_t i = 0; i < 63; ++i) w.add(i, {-50.0 + 0.5 * static_cast<double>(i), 0.0}, 40);  // all see all
  w.tick([](const AoiEvent&) {});
  const std::size_t before = w.bytes();
  w.add(63, {90, 90}, 1);  // sees no one and is seen by no one
  std::size_t events = 0;
  w.tick([&](const AoiEvent&) { ++events; });
  EXPECT_EQ(events, 0u);
  EXPECT_LT(w.bytes(), before + 64 * (sizeof(std::uint32_t) + sizeof(std::uint64_t) + 2 * sizeof(double)));
  w.validate();
  // The renumbered world goes on: entity 0 walks out of everyone's view, 2 * 62 Leave events.
  w.move(0, {-50, 80});
  std::size_t leaves = 0;
  w.tick([&](const AoiEvent& e) { leaves += e.kind == AoiEvent::Kind::Leave; });
  EXPECT_EQ(leaves, 2u * 62u);
  w.validate();
}

}  // namespace

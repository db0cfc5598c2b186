// SPDX-License-Identifier: MIT
// quadrant_soak — a long soak of the library's long-lived structures against brute-force models.
//
//   quadrant_soak [--ops N] [--seed S] [--check-every K] [--max-objects M] [--progress-seconds T] [--csv FILE]
//
// Eight structures live for the whole run: a 2D float Tree and a 3D double Tree under each placement (Loose,
// Parent, Leaves), an AoiWorld and a Streamer. Each of the N operations picks one of them and does one thing to it:
// insert, erase, move, batched move, set_layers, box and circle / sphere queries, for_each_pair, nearest, raycast,
// clear, bulk build and bad input for a tree; add, move, remove, set_view_radius, set_layers, tick, query and
// for_each_visible for the AoiWorld; add, move, remove, update, mark_loaded, mark_failed and set_limits for the
// Streamer. Every structure's object count follows a wave from 0 to its maximum and back, 16 times over the run
// (trees and Streamer: M objects at the top; AoiWorld: M / 4, because its validate() and the relation's brute force
// are quadratic).
//
// Two kinds of checks, both against models kept beside the structures (plain vectors and maps):
//  * every answer, as it comes: each object a query, pair walk, nearest search or ray cast reports is live, has the
//    value and box the model holds, meets the shape, is reported once and in the promised order; each AoiWorld
//    event is one the rule allows (an Enter is a pair within the view radius not seen before, a Leave a pair seen
//    and now beyond radius + hysteresis, ineligible or removed), in (watcher, target) order; each Streamer load,
//    unload and cancel is one the documented state machine allows; bad input throws std::invalid_argument (a
//    mutation inside a walk std::logic_error) and changes nothing.
//  * every K operations, a spot check by brute force: per tree, validate(), every object's handle, value, box and
//    layers, box and round queries, nearest searches and ray casts against a scan of the model, and all
//    overlapping pairs (for_each_pair and pairs(out, 2)) against a sort-and-sweep; the AoiWorld's next tick
//    against the rule computed over all pairs, every watcher's visible set, some watchers-of sets and queries, and
//    validate(); the Streamer's next update against the state machine run over every object, every object's
//    state, and validate(). Then a memory sample: the heap in use (glibc mallinfo2: uordblks + hblkhd) and the RSS
//    (/proc/self/statm).
//
// Memory is judged at the end (see memory_verdict): the run is cut into quarters; the samples are put in 20 bins by
// the total number of objects held; for every bin sampled in both the second quarter ("early", after the first
// four waves have taken every pool to its high-water mark) and the last quarter ("late"), the late peak heap must
// not exceed the early one by more than 10% + 1 MiB.
//
// Exit status: 0 when every check passed and memory stayed bounded (or could not be judged), 1 on the first
// mismatch (printed), 3 when the heap grew beyond the bound, other non-zero values for bad arguments.
#include <algorithm>
#include <array>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>
#include <numbers>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include <malloc.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <quadrant/aoi.hpp>
#include <quadrant/quadrant.hpp>
#include <quadrant/streaming.hpp>
#include <quadrant_support/camera.hpp>
#include <quadrant_support/pairs.hpp>
#include <quadrant_support/rng.hpp>

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define QUADRANT_SOAK_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define QUADRANT_SOAK_SANITIZED 1
#endif
#endif
#ifndef QUADRANT_SOAK_SANITIZED
#define QUADRANT_SOAK_SANITIZED 0
#endif

namespace {

using quadrant::Handle;
using quadrant::Placement;

// ---- bookkeeping ----------------------------------------------------------------------------------------------

enum Op : int {
  TreeInsert, TreeErase, TreeMove, TreeMoveBatch, TreeSetLayers, TreeQueryBox, TreeQueryRound, TreePairs,
  TreeNearest, TreeRaycast, TreeClear, TreeAssign, TreeBadInput,
  AoiAdd, AoiMove, AoiRemove, AoiSetRadius, AoiSetLayers, AoiTick, AoiQuery, AoiVisible, AoiBadInput,
  StreamAdd, StreamMove, StreamRemove, StreamUpdate, StreamMarkLoaded, StreamMarkFailed, StreamSetLimits,
  StreamInspect, StreamBadInput,
  kOpKinds
};
const char* const kOpNames[kOpKinds] = {
    "tree insert", "tree erase", "tree move", "tree move (batch)", "tree set_layers", "tree query box",
    "tree query circle/sphere", "tree for_each_pair", "tree nearest", "tree raycast", "tree clear",
    "tree assign (bulk build)", "tree bad input", "aoi add", "aoi move", "aoi remove", "aoi set_view_radius",
    "aoi set_layers", "aoi tick", "aoi query", "aoi for_each_visible", "aoi bad input", "streamer add",
    "streamer move", "streamer remove", "streamer update", "streamer mark_loaded", "streamer mark_failed",
    "streamer set_limits", "streamer state", "streamer bad input"};

struct Tally {
  std::array<std::uint64_t, kOpKinds> ops{};
  std::uint64_t answers = 0;      // answers checked as they came (objects, pairs, events, decisions)
  std::uint64_t comparisons = 0;  // brute-force comparisons of the spot checks, each passed
  std::uint64_t rounds = 0;       // spot-check rounds passed
};

std::uint64_t g_op = 0;    // the operation being run, for messages
std::uint64_t g_seed = 0;  // the run's seed, for messages

[[noreturn]] void mismatch(const std::string& where, const std::string& what) {
  std::fflush(stdout);
  std::fprintf(stderr, "quadrant_soak: MISMATCH in %s at operation %" PRIu64 " (seed %" PRIu64 "): %s\n",
               where.c_str(), g_op, g_seed, what.c_str());
  std::fprintf(stdout, "quadrant_soak: FAILED (mismatch in %s at operation %" PRIu64 ")\n", where.c_str(), g_op);
  std::fflush(stdout);
  std::exit(1);
}

// Runs f, which must throw std::invalid_argument (not another std::logic_error).
template <class F>
void expect_invalid(const std::string& where, const char* what, F&& f) {
  try {
    f();
  } catch (const std::invalid_argument&) {
    return;
  } catch (const std::exception& e) {
    mismatch(where, std::string(what) + ": threw another exception: " + e.what());
  }
  mismatch(where, std::string(what) + ": did not throw std::invalid_argument");
}

class Random : public quadrant_support::Rng {
 public:
  using Rng::Rng;
  std::uint64_t below(std::uint64_t n) { return next() % n; }
  std::size_t index(std::size_t n) { return static_cast<std::size_t>(next() % n); }
  bool chance(double p) { return unit() < p; }
};

// The wave every object count follows: 0 -> 1 -> 0, kCycles times over the run.
constexpr int kCycles = 16;
double wave(std::uint64_t op, std::uint64_t total) {
  const double phase = std::fmod(static_cast<double>(op) * kCycles / static_cast<double>(total), 1.0);
  return phase < 0.5 ? 2 * phase : 2 - 2 * phase;
}
// Whether to add (else remove) an object, steering count n towards target (a fraction of max).
bool grow(Random& rng, std::size_t n, double target, std::size_t max) {
  if (n == 0) return true;
  if (n >= max) return false;
  const double m = static_cast<double>(max);
  const double p = std::clamp(0.5 + (target * m - static_cast<double>(n)) / (0.05 * m + 20), 0.1, 0.9);
  return rng.chance(p);
}

std::uint32_t random_layers(Random& rng) {
  return rng.chance(0.7) ? ~0u : static_cast<std::uint32_t>(1 + rng.below(15));
}
std::uint32_t random_mask(Random& rng) { return rng.chance(0.6) ? ~0u : static_cast<std::uint32_t>(1 + rng.below(15)); }

// A structure of the soak.
class Soaked {
 public:
  virtual ~Soaked() = default;
  virtual const std::string& name() const = 0;
  virtual void step(Random& rng, double target, Tally& tally) = 0;  // one operation
  virtual void check(Random& rng, Tally& tally) = 0;                 // a brute-force spot check
  virtual std::size_t size() const = 0;                              // objects held (per the model)
  virtual std::size_t max_objects() const = 0;
  virtual std::size_t library_bytes() const = 0;                     // heap the library says it holds (Stats::bytes)
};

// ---- trees -----------------------------------------------------------------------------------------------------

template <int D, class S>
class TreeSoak final : public Soaked {
 public:
  using TreeT = quadrant::Tree<D, std::uint32_t, S>;
  using BoxT = quadrant::Box<D, S>;
  using VecT = quadrant::Vec<D, S>;
  using Round = std::conditional_t<D == 2, quadrant::Circle<S>, quadrant::Sphere<S>>;
  using SegT = quadrant::Segment<D, S>;
  // What nearest compares distances in (the contract's: squares in double; the soak's worlds need no scale).
  using W = double;
  static constexpr double kWorld = D == 2 ? 1000.0 : 400.0;
  static constexpr std::uint32_t kNone = ~0u;

  TreeSoak(Placement placement, std::size_t max_objects, std::uint64_t seed)
      : name_(std::string(D == 2 ? "2D " : "3D ") + (std::is_same_v<S, float> ? "float" : "double") + " tree, " +
              quadrant::to_string(placement)),
        tree_(config(placement)), foreign_(config(placement)), max_(max_objects) {
    live_.reserve(max_objects + 1);
    where_.assign(max_objects + 1, kNone);
    seen_.assign(max_objects + 1, 0);
    batch_handles_.reserve(64);
    batch_boxes_.reserve(64);
    items_.reserve(max_objects + 1);
    handles_.reserve(max_objects + 1);
    near_.reserve(64);
    foreign_handle_ = foreign_.insert(BoxT{}, 0);
    Random r(seed);
    for (VecT& h : hotspots_)
      for (int a = 0; a < D; ++a) h[a] = static_cast<S>(r.uniform(0.1 * kWorld, 0.9 * kWorld));
  }

  const std::string& name() const override { return name_; }
  std::size_t size() const override { return live_.size(); }
  std::size_t max_objects() const override { return max_; }
  std::size_t library_bytes() const override { return tree_.stats().bytes; }

  void step(Random& rng, double target, Tally& tally) override {
    const std::uint64_t rare = rng.below(10'000'000);
    if (rare < 5) return clear(tally);
    if (rare < 10) return assign(tally);
    if (rare < 1010) return pairs(rng, tally);
    if (rare < 11010) return bad_input(rng, tally);
    const std::uint64_t u = rng.below(1'000'000);
    if (u < 300'000) {
      if (grow(rng, live_.size(), target, max_)) insert(rng, tally);
      else erase(rng, tally);
    } else if (live_.empty()) {
      insert(rng, tally);
    } else if (u < 600'000) {
      move(rng, tally);
    } else if (u < 640'000) {
      move_batch(rng, tally);
    } else if (u < 660'000) {
      set_layers(rng, tally);
    } else if (u < 800'000) {
      query_checked(random_window(rng), random_mask(rng), tally);
      ++tally.ops[TreeQueryBox];
    } else if (u < 880'000) {
      query_checked(random_round(rng), random_mask(rng), tally);
      ++tally.ops[TreeQueryRound];
    } else if (u < 940'000) {
      nearest(rng, tally);
    } else {
      raycast(rng, tally);
    }
  }

  void check(Random& rng, Tally& tally) override {
    tree_.validate();
    if (tree_.size() != live_.size())
      mismatch(name_, "size() " + std::to_string(tree_.size()) + ", model " + std::to_string(live_.size()));
    for (const Obj& o : live_) {
      if (!tree_.contains(o.h)) mismatch(name_, "a live object's handle is refused (value " + std::to_string(o.value) + ")");
      if (tree_.value(o.h) != o.value) mismatch(name_, "value(h) differs for value " + std::to_string(o.value));
      if (!(tree_.bounds(o.h) == o.box)) mismatch(name_, "bounds(h) differs for value " + std::to_string(o.value));
      if (tree_.layers(o.h) != o.layers) mismatch(name_, "layers(h) differs for value " + std::to_string(o.value));
    }
    std::size_t visited = 0;
    tree_.for_each([&](Handle h, const std::uint32_t& v, const BoxT& b) {
      const Obj* o = find(h);
      if (o == nullptr || o->value != v || !(o->box == b)) mismatch(name_, "for_each reports an object the model lacks");
      ++visited;
    });
    if (visited != live_.size()) mismatch(name_, "for_each visited " + std::to_string(visited) + " objects");
    tally.comparisons += 2;
    for (int i = 0; i < 3; ++i) compare_query(random_window(rng), random_mask(rng), tally);
    for (int i = 0; i < 2; ++i) compare_query(random_round(rng), random_mask(rng), tally);
    for (int i = 0; i < 3; ++i) compare_nearest(rng, tally);
    for (int i = 0; i < 2; ++i) compare_raycast(rng, tally);
    compare_pairs(rng.chance(0.5) ? ~0u : random_mask(rng), tally);
  }

 private:
  struct Obj {
    Handle h;
    BoxT box;
    std::uint32_t value;
    std::uint32_t layers;
  };

  static quadrant::Config<D, S> config(Placement placement) {
    quadrant::Config<D, S> c;
    for (int a = 0; a < D; ++a) {
      c.world.min[a] = 0;
      c.world.max[a] = static_cast<S>(kWorld);
    }
    c.placement = placement;
    return c;
  }

  // ---- the model
  const Obj* find(Handle h) const {
    if (h.index() >= where_.size()) return nullptr;
    const std::uint32_t at = where_[h.index()];
    if (at == kNone || !(live_[at].h == h)) return nullptr;
    return &live_[at];
  }
  void ensure_slot(std::uint32_t index) {
    if (index >= where_.size()) {
      where_.resize(std::size_t{index} + 1, kNone);
      seen_.resize(std::size_t{index} + 1, 0);
    }
  }
  void model_add(Handle h, const BoxT& box, std::uint32_t value, std::uint32_t layers) {
    ensure_slot(h.index());
    if (where_[h.index()] != kNone) mismatch(name_, "a new handle reuses a live slot");
    where_[h.index()] = static_cast<std::uint32_t>(live_.size());
    live_.push_back(Obj{h, box, value, layers});
  }
  void model_remove(std::size_t at) {
    where_[live_[at].h.index()] = kNone;
    if (at + 1 != live_.size()) {
      live_[at] = live_.back();
      where_[live_[at].h.index()] = static_cast<std::uint32_t>(at);
    }
    live_.pop_back();
  }
  // A fresh stamp for duplicate detection over seen_.
  std::uint32_t next_stamp() {
    if (++stamp_ == 0) {
      std::fill(seen_.begin(), seen_.end(), 0);
      stamp_ = 1;
    }
    return stamp_;
  }
  // The live object a walk reported, checked: live in the model, the value the model holds, reported once.
  const Obj& reported(Handle h, std::uint32_t stamp, const char* walk) {
    const Obj* o = find(h);
    if (o == nullptr) mismatch(name_, std::string(walk) + " reports a handle the model does not hold");
    if (seen_[h.index()] == stamp) mismatch(name_, std::string(walk) + " reports value " + std::to_string(o->value) + " twice");
    seen_[h.index()] = stamp;
    return *o;
  }

  // ---- random input
  BoxT random_box(Random& rng) const {
    BoxT b;
    const double kind = rng.unit();
    const bool outside = rng.chance(0.01), hot = !outside && rng.chance(0.3);
    const VecT& spot = hotspots_[rng.index(hotspots_.size())];
    for (int a = 0; a < D; ++a) {
      double c = outside ? rng.uniform(-0.2 * kWorld, 1.2 * kWorld)
                         : hot ? static_cast<double>(spot[a]) + rng.uniform(-30, 30) : rng.uniform(0, kWorld);
      double side;
      if (kind < 0.85) side = rng.uniform(0.5, 8);
      else if (kind < 0.93) side = a == 0 ? 0 : rng.uniform(0, 4) * (rng.chance(0.5) ? 0 : 1);  // flat, or a point
      else if (kind < 0.995) side = rng.uniform(10, 60);
      else side = D == 2 ? rng.uniform(60, 200) : rng.uniform(30, 60);
      c = std::clamp(c, -0.25 * kWorld, 1.25 * kWorld);
      b.min[a] = static_cast<S>(c - side / 2);
      b.max[a] = static_cast<S>(c + side / 2);
    }
    return b;
  }
  BoxT moved_box(Random& rng, const BoxT& from) const {
    if (rng.chance(0.1)) return random_box(rng);
    BoxT b = from;
    for (int a = 0; a < D; ++a) {
      const double d = rng.uniform(-2, 2);
      const double lo = static_cast<double>(from.min[a]) + d, hi = static_cast<double>(from.max[a]) + d;
      if (lo < -0.3 * kWorld || hi > 1.3 * kWorld) return random_box(rng);
      b.min[a] = static_cast<S>(lo);
      b.max[a] = static_cast<S>(hi);
      if (b.max[a] < b.min[a]) b.max[a] = b.min[a];
    }
    return b;
  }
  VecT random_point(Random& rng) const {
    VecT p;
    for (int a = 0; a < D; ++a) p[a] = static_cast<S>(rng.uniform(-0.1 * kWorld, 1.1 * kWorld));
    return p;
  }
  double random_extent(Random& rng) const {
    const double u = rng.unit();
    return u < 0.7 ? rng.uniform(2, 30) : u < 0.97 ? rng.uniform(30, 150) : rng.uniform(150, 0.7 * kWorld);
  }
  BoxT random_window(Random& rng) const {
    const VecT c = random_point(rng);
    BoxT b;
    for (int a = 0; a < D; ++a) {
      const double h = random_extent(rng) / 2;
      b.min[a] = static_cast<S>(static_cast<double>(c[a]) - h);
      b.max[a] = static_cast<S>(static_cast<double>(c[a]) + h);
    }
    return b;
  }
  Round random_round(Random& rng) const { return Round{random_point(rng), static_cast<S>(random_extent(rng) / 2)}; }
  SegT random_segment(Random& rng) const {
    const VecT a = random_point(rng);
    VecT b;
    const double len = rng.uniform(0, D == 2 ? 300 : 150);
    double dir[3] = {rng.uniform(-1, 1), rng.uniform(-1, 1), rng.uniform(-1, 1)};
    double n = 0;
    for (int i = 0; i < D; ++i) n += dir[i] * dir[i];
    n = n > 0 ? std::sqrt(n) : 1;
    for (int i = 0; i < D; ++i) b[i] = static_cast<S>(static_cast<double>(a[i]) + dir[i] / n * len);
    return SegT{a, b};
  }

  // ---- operations
  void insert(Random& rng, Tally& tally) {
    const BoxT box = random_box(rng);
    const std::uint32_t layers = random_layers(rng);
    const std::uint32_t value = next_value_++;
    const Handle h = tree_.insert(box, value, layers);
    if (h.is_null() || !tree_.contains(h)) mismatch(name_, "insert returned a handle the tree refuses");
    model_add(h, box, value, layers);
    ++tally.ops[TreeInsert];
  }
  void erase(Random& rng, Tally& tally) {
    const std::size_t at = rng.index(live_.size());
    const Handle h = live_[at].h;
    tree_.erase(h);
    if (tree_.contains(h)) mismatch(name_, "an erased handle is still contained");
    model_remove(at);
    stale_ = h;
    ++tally.ops[TreeErase];
  }
  void move(Random& rng, Tally& tally) {
    Obj& o = live_[rng.index(live_.size())];
    o.box = moved_box(rng, o.box);
    tree_.move(o.h, o.box);
    ++tally.ops[TreeMove];
  }
  void move_batch(Random& rng, Tally& tally) {
    batch_handles_.clear();
    batch_boxes_.clear();
    const std::size_t n = 1 + rng.index(48);
    for (std::size_t i = 0; i < n; ++i) {
      Obj& o = live_[rng.index(live_.size())];  // a handle may come twice: its last box wins
      o.box = moved_box(rng, o.box);
      batch_handles_.push_back(o.h);
      batch_boxes_.push_back(o.box);
    }
    tree_.move(std::span<const Handle>(batch_handles_), std::span<const BoxT>(batch_boxes_));
    ++tally.ops[TreeMoveBatch];
  }
  void set_layers(Random& rng, Tally& tally) {
    Obj& o = live_[rng.index(live_.size())];
    o.layers = random_layers(rng);
    tree_.set_layers(o.h, o.layers);
    ++tally.ops[TreeSetLayers];
  }
  void clear(Tally& tally) {
    const Handle some = live_.empty() ? Handle{} : live_.front().h;
    tree_.clear();
    if (!tree_.empty() || (!some.is_null() && tree_.contains(some))) mismatch(name_, "clear left objects or handles");
    while (!live_.empty()) model_remove(live_.size() - 1);
    ++tally.ops[TreeClear];
  }
  void assign(Tally& tally) {
    items_.clear();
    for (const Obj& o : live_) items_.emplace_back(o.box, o.value, o.layers);
    const Handle old = live_.empty() ? Handle{} : live_.front().h;
    tree_.assign(items_, handles_);
    if (!old.is_null() && tree_.contains(old)) mismatch(name_, "assign kept an old handle");
    if (handles_.size() != live_.size()) mismatch(name_, "assign returned the wrong number of handles");
    for (const Obj& o : live_) where_[o.h.index()] = kNone;
    for (std::size_t i = 0; i < live_.size(); ++i) {
      live_[i].h = handles_[i];
      ensure_slot(handles_[i].index());
      if (where_[handles_[i].index()] != kNone) mismatch(name_, "assign gave two items one slot");
      where_[handles_[i].index()] = static_cast<std::uint32_t>(i);
    }
    ++tally.ops[TreeAssign];
  }

  template <class Shape>
  void query_checked(const Shape& shape, std::uint32_t mask, Tally& tally) {
    const std::uint32_t stamp = next_stamp();
    std::size_t hits = 0;
    tree_.query(
        shape,
        [&](Handle h, const std::uint32_t& v) {
          const Obj& o = reported(h, stamp, "query");
          if (o.value != v) mismatch(name_, "query reports the wrong value for a handle");
          if (!quadrant::overlaps(shape, o.box)) mismatch(name_, "query reports value " + std::to_string(v) + ", which misses the shape");
          if ((o.layers & mask) == 0) mismatch(name_, "query reports an object outside its mask");
          ++hits;
        },
        mask);
    tally.answers += hits;
  }
  void pairs(Random& rng, Tally& tally) {
    const std::uint32_t mask = random_mask(rng);
    std::size_t n = 0;
    const quadrant::PairStats st = tree_.for_each_pair(
        [&](Handle a, Handle b) {
          const Obj* oa = find(a);
          const Obj* ob = find(b);
          if (oa == nullptr || ob == nullptr) mismatch(name_, "for_each_pair reports a handle the model does not hold");
          if (a == b) mismatch(name_, "for_each_pair reports (a, a)");
          if (!quadrant::overlaps(oa->box, ob->box)) mismatch(name_, "for_each_pair reports a pair that does not overlap");
          if ((oa->layers & mask) == 0 || (ob->layers & mask) == 0) mismatch(name_, "for_each_pair ignores the mask");
          ++n;
        },
        mask);
    if (st.pairs != n) mismatch(name_, "PairStats::pairs differs from the pairs reported");
    tally.answers += n;
    ++tally.ops[TreePairs];
  }
  void nearest(Random& rng, Tally& tally) {
    const VecT p = random_point(rng);
    const std::size_t k = 1 + rng.index(16);
    const S max_distance = rng.chance(0.5) ? std::numeric_limits<S>::infinity() : static_cast<S>(rng.uniform(1, 100));
    const std::uint32_t mask = random_mask(rng);
    tree_.nearest(p, k, near_, max_distance, mask);
    if (near_.size() > k) mismatch(name_, "nearest returned more than k");
    const std::uint32_t stamp = next_stamp();
    W last = -1;
    for (const auto& nb : near_) {
      const Obj& o = reported(nb.handle, stamp, "nearest");
      const W d2 = squared_distance(p, o.box);
      if (nb.distance != static_cast<S>(std::sqrt(d2))) mismatch(name_, "nearest reports a wrong distance");
      if (d2 < last) mismatch(name_, "nearest is not in distance order");
      if ((o.layers & mask) == 0 || d2 > W(max_distance) * W(max_distance)) mismatch(name_, "nearest ignores mask or range");
      last = d2;
    }
    tally.answers += near_.size();
    ++tally.ops[TreeNearest];
  }
  void raycast(Random& rng, Tally& tally) {
    const SegT seg = random_segment(rng);
    const std::uint32_t mask = random_mask(rng);
    const bool first_only = rng.chance(0.3);
    const std::uint32_t stamp = next_stamp();
    S last = -1;
    tree_.raycast(
        seg,
        [&](Handle h, const std::uint32_t&, S t) {
          const Obj& o = reported(h, stamp, "raycast");
          const std::optional<S> expect = quadrant::entry_fraction(seg, o.box);
          if (!expect || *expect != t) mismatch(name_, "raycast reports a wrong fraction or a box it misses");
          if (t < last) mismatch(name_, "raycast is not nearest first");
          if ((o.layers & mask) == 0) mismatch(name_, "raycast ignores the mask");
          last = t;
          ++tally.answers;
          return !first_only;
        },
        mask);
    ++tally.ops[TreeRaycast];
  }

  // Bad input: refused with std::invalid_argument (a mutation inside a walk: std::logic_error), nothing changes.
  void bad_input(Random& rng, Tally& tally) {
    ++tally.ops[TreeBadInput];
    const std::size_t before = tree_.size();
    const S nan = std::numeric_limits<S>::quiet_NaN(), inf = std::numeric_limits<S>::infinity();
    const std::string where = name_ + " (bad input)";
    switch (rng.below(live_.empty() ? 4 : 9)) {
      case 0: {
        BoxT b = random_box(rng);
        b.min[static_cast<int>(rng.below(D))] = nan;
        expect_invalid(where, "insert(NaN box)", [&] { tree_.insert(b, 0); });
        break;
      }
      case 1: {
        BoxT b = random_box(rng);
        std::swap(b.min[0], b.max[0]);
        b.min[0] = b.max[0] + 1;
        expect_invalid(where, "insert(min > max)", [&] { tree_.insert(b, 0); });
        break;
      }
      case 2:
        expect_invalid(where, "erase(stale or null handle)", [&] { tree_.erase(stale_); });
        break;
      case 3:
        expect_invalid(where, "erase(another tree's handle)", [&] { tree_.erase(foreign_handle_); });
        break;
      case 4: {
        const Obj& o = live_[rng.index(live_.size())];
        BoxT b = o.box;
        b.max[static_cast<int>(rng.below(D))] = inf;
        expect_invalid(where, "move(infinite box)", [&] { tree_.move(o.h, b); });
        if (!(tree_.bounds(o.h) == o.box)) mismatch(where, "a refused move changed the box");
        break;
      }
      case 5: {
        // A batch with one bad item in it: refused whole.
        batch_handles_.clear();
        batch_boxes_.clear();
        const std::size_t n = 2 + rng.index(16), bad = rng.index(n);
        for (std::size_t i = 0; i < n; ++i) {
          const Obj& o = live_[rng.index(live_.size())];
          BoxT b = moved_box(rng, o.box);
          if (i == bad) b.min[0] = nan;
          batch_handles_.push_back(o.h);
          batch_boxes_.push_back(b);
        }
        expect_invalid(where, "move(batch with a NaN box)", [&] {
          tree_.move(std::span<const Handle>(batch_handles_), std::span<const BoxT>(batch_boxes_));
        });
        for (const Handle h : batch_handles_)
          if (!(tree_.bounds(h) == find(h)->box)) mismatch(where, "a refused batch moved an object");
        break;
      }
      case 6: {
        const Obj& o = live_[rng.index(live_.size())];
        expect_invalid(where, "set_layers(0)", [&] { tree_.set_layers(o.h, 0); });
        if (tree_.layers(o.h) != o.layers) mismatch(where, "a refused set_layers changed the layers");
        break;
      }
      case 7:
        expect_invalid(where, "insert(layers 0)", [&] { tree_.insert(random_box(rng), 0, 0); });
        break;
      default: {
        // Erasing from inside the tree's own query: std::logic_error, and the object stays.
        const Obj& o = live_[rng.index(live_.size())];
        bool refused = false;
        tree_.query(o.box, [&](Handle h, const std::uint32_t&) {
          try {
            tree_.erase(h);
          } catch (const std::invalid_argument&) {
            mismatch(where, "erase inside a query threw std::invalid_argument, not std::logic_error");
          } catch (const std::logic_error&) {
            refused = true;
          }
          if (!tree_.contains(h)) mismatch(where, "erase inside a query removed the object");
          return false;
        });
        if (!refused) mismatch(where, "erase inside a query was not refused");
        break;
      }
    }
    if (tree_.size() != before) mismatch(where, "refused input changed size()");
    ++tally.answers;
  }

  // ---- brute force
  static W squared_distance(const VecT& p, const BoxT& b) {
    W d2 = 0;
    for (int i = 0; i < D; ++i) {
      W d = 0;
      if (p[i] < b.min[i]) d = W(b.min[i]) - W(p[i]);
      else if (p[i] > b.max[i]) d = W(p[i]) - W(b.max[i]);
      d2 += d * d;
    }
    return d2;
  }

  template <class Shape>
  void compare_query(const Shape& shape, std::uint32_t mask, Tally& tally) {
    std::vector<std::uint32_t> got, want;
    tree_.query(shape, [&](const std::uint32_t& v) { got.push_back(v); }, mask);
    for (const Obj& o : live_)
      if ((o.layers & mask) != 0 && quadrant::overlaps(shape, o.box)) want.push_back(o.value);
    std::sort(got.begin(), got.end());
    std::sort(want.begin(), want.end());
    if (got != want)
      mismatch(name_, "query: the tree reports " + std::to_string(got.size()) + " objects, brute force " +
                          std::to_string(want.size()) + " (mask " + std::to_string(mask) + ")");
    ++tally.comparisons;
  }
  void compare_nearest(Random& rng, Tally& tally) {
    const VecT p = random_point(rng);
    const std::size_t ks[] = {1, 5, 20, 100};
    const std::size_t k = ks[rng.index(4)];
    const S max_distance = rng.chance(0.5) ? std::numeric_limits<S>::infinity() : static_cast<S>(rng.uniform(1, 100));
    const std::uint32_t mask = random_mask(rng);
    std::vector<std::pair<W, std::uint32_t>> all;  // (squared distance, handle index)
    for (const Obj& o : live_) {
      if ((o.layers & mask) == 0) continue;
      const W d2 = squared_distance(p, o.box);
      if (d2 <= W(max_distance) * W(max_distance)) all.emplace_back(d2, o.h.index());
    }
    std::sort(all.begin(), all.end());
    if (all.size() > k) all.resize(k);
    const std::vector<quadrant::Neighbor<S>> got = tree_.nearest(p, k, max_distance, mask);
    if (got.size() != all.size())
      mismatch(name_, "nearest: " + std::to_string(got.size()) + " answers, brute force " + std::to_string(all.size()));
    for (std::size_t i = 0; i < got.size(); ++i)
      if (got[i].handle.index() != all[i].second || got[i].distance != static_cast<S>(std::sqrt(all[i].first)))
        mismatch(name_, "nearest: rank " + std::to_string(i) + " differs from brute force (k " + std::to_string(k) + ")");
    ++tally.comparisons;
  }
  void compare_raycast(Random& rng, Tally& tally) {
    const SegT seg = random_segment(rng);
    const std::uint32_t mask = random_mask(rng);
    std::vector<std::pair<S, std::uint32_t>> got, want;
    tree_.raycast(seg, [&](Handle h, const std::uint32_t&, S t) { got.emplace_back(t, h.index()); }, mask);
    for (const Obj& o : live_)
      if ((o.layers & mask) != 0)
        if (const std::optional<S> t = quadrant::entry_fraction(seg, o.box)) want.emplace_back(*t, o.h.index());
    std::sort(want.begin(), want.end());
    if (got != want)
      mismatch(name_, "raycast: the tree reports " + std::to_string(got.size()) + " hits, brute force " +
                          std::to_string(want.size()) + " (or a different order)");
    ++tally.comparisons;
  }
  void compare_pairs(std::uint32_t mask, Tally& tally) {
    std::vector<std::uint64_t> got, want;
    std::vector<std::pair<Handle, Handle>> sequence;
    tree_.for_each_pair(
        [&](Handle a, Handle b) {
          sequence.emplace_back(a, b);
          got.push_back(quadrant_support::pair_key(find(a)->value, find(b)->value));
        },
        mask);
    // Sort and sweep along x: an independent way to every overlapping pair.
    std::vector<std::uint32_t> order;
    for (std::uint32_t i = 0; i < live_.size(); ++i)
      if ((live_[i].layers & mask) != 0) order.push_back(i);
    std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
      return live_[a].box.min[0] < live_[b].box.min[0];
    });
    for (std::size_t i = 0; i < order.size(); ++i) {
      const BoxT& bi = live_[order[i]].box;
      for (std::size_t j = i + 1; j < order.size() && live_[order[j]].box.min[0] <= bi.max[0]; ++j)
        if (quadrant::overlaps(bi, live_[order[j]].box))
          want.push_back(quadrant_support::pair_key(live_[order[i]].value, live_[order[j]].value));
    }
    std::sort(got.begin(), got.end());
    std::sort(want.begin(), want.end());
    const std::string diff = quadrant_support::compare_pairs(got, want, 1);
    if (!diff.empty()) mismatch(name_, "for_each_pair against sort-and-sweep (values): " + diff);
    // The parallel collection gives for_each_pair's sequence exactly.
    std::vector<std::pair<Handle, Handle>> parallel;
    tree_.pairs(parallel, 2, mask);
    if (parallel != sequence) mismatch(name_, "pairs(out, 2) differs from for_each_pair's sequence");
    tally.comparisons += 2;
  }

  std::string name_;
  TreeT tree_;
  TreeT foreign_;  // a handle of another tree, for bad input
  Handle foreign_handle_;
  std::size_t max_;
  std::array<VecT, 8> hotspots_{};
  std::vector<Obj> live_;
  std::vector<std::uint32_t> where_;  // by handle index: position in live_, or kNone
  std::vector<std::uint32_t> seen_;   // by handle index: the stamp of the last walk that reported it
  std::uint32_t stamp_ = 0;
  std::uint32_t next_value_ = 1;
  Handle stale_;
  std::vector<Handle> batch_handles_;
  std::vector<BoxT> batch_boxes_;
  std::vector<std::tuple<BoxT, std::uint32_t, std::uint32_t>> items_;
  std::vector<Handle> handles_;
  std::vector<quadrant::Neighbor<S>> near_;
};

// ---- AoiWorld --------------------------------------------------------------------------------------------------

class AoiSoak final : public Soaked {
 public:
  using World = quadrant::AoiWorld<float>;
  using V2 = quadrant::Vec<2, float>;
  static constexpr float kSide = 2000;
  static constexpr float kHysteresis = 4;
  static constexpr std::uint32_t kNone = ~0u;

  explicit AoiSoak(std::size_t max_objects)
      : world_(settings()), max_(max_objects) {
    present_.reserve(max_objects + 1);
    live_.reserve(max_objects + 1);
    pending_.reserve(max_objects + 1);
  }

  const std::string& name() const override { return name_; }
  std::size_t size() const override { return present_.size(); }
  std::size_t max_objects() const override { return max_; }
  std::size_t library_bytes() const override { return 0; }  // AoiWorld reports none

  void step(Random& rng, double target, Tally& tally) override {
    const std::uint64_t u = rng.below(1'000'000);
    if (u < 1'000) return bad_input(rng, tally);
    if (u < 300'000 || present_.empty()) {
      if (grow(rng, present_.size(), target, max_)) add(rng, tally);
      else remove(rng, tally);
    } else if (u < 800'000) {
      // A change to one present entity, recorded in the model and the world alike.
      const std::uint64_t id = present_[rng.index(present_.size())];
      Ent& e = ents_.at(id);
      if (u < 750'000) {
        if (rng.chance(0.03)) {
          e.next.x = static_cast<float>(rng.uniform(0, kSide));
          e.next.y = static_cast<float>(rng.uniform(0, kSide));
        } else {
          e.next.x = std::clamp(e.next.x + static_cast<float>(rng.uniform(-4, 4)), -200.0f, kSide + 200);
          e.next.y = std::clamp(e.next.y + static_cast<float>(rng.uniform(-4, 4)), -200.0f, kSide + 200);
        }
        world_.move(id, V2{e.next.x, e.next.y});
        ++tally.ops[AoiMove];
      } else if (u < 780'000) {
        e.next.r = random_radius(rng);
        world_.set_view_radius(id, e.next.r);
        ++tally.ops[AoiSetRadius];
      } else {
        e.next.layers = random_entity_layers(rng);
        world_.set_layers(id, e.next.layers);
        ++tally.ops[AoiSetLayers];
      }
      enlist(id, e);
    } else if (u < 860'000) {
      tick(rng, false, tally);
    } else if (u < 950'000) {
      query(rng, tally);
    } else {
      visible(rng, tally);
    }
  }

  // The next tick against the rule over all pairs, then the relation, watchers, queries and validate().
  void check(Random& rng, Tally& tally) override {
    tick(rng, true, tally);
    if (world_.size() != live_.size()) mismatch(name_, "size() " + std::to_string(world_.size()) + ", model " + std::to_string(live_.size()));
    for (int i = 0; i < 10 && !live_.empty(); ++i) {
      const std::uint64_t t = live_[rng.index(live_.size())];
      std::vector<std::uint64_t> got, want;
      world_.for_each_watcher(t, [&](std::uint64_t w) { got.push_back(w); });
      for (const std::uint64_t key : expected_)
        if ((key & 0xffffffffu) == t) want.push_back(key >> 32);
      std::sort(want.begin(), want.end());
      if (got != want) mismatch(name_, "for_each_watcher(" + std::to_string(t) + ") differs from brute force");
      ++tally.comparisons;
    }
    for (int i = 0; i < 4; ++i) {
      const std::uint32_t mask = random_mask(rng);
      std::vector<std::uint64_t> got, want;
      auto compare = [&](const auto& shape) {
        world_.query(shape, [&](std::uint64_t id) { got.push_back(id); }, mask);
        for (const std::uint64_t id : live_) {
          const State& s = ents_.at(id).cur;
          if ((s.layers & mask) != 0 && quadrant::overlaps(shape, body(s))) want.push_back(id);
        }
        std::sort(want.begin(), want.end());
      };
      if (i < 3) compare(random_circle(rng));
      else compare(random_box(rng));
      if (got != want)
        mismatch(name_, "query: " + std::to_string(got.size()) + " ids, brute force " + std::to_string(want.size()));
      ++tally.comparisons;
    }
    for (const std::uint64_t id : present_)
      if (!world_.contains(id)) mismatch(name_, "contains(" + std::to_string(id) + ") is false for a present id");
    world_.validate();
    tally.comparisons += 2;
    expected_.clear();
    expected_.shrink_to_fit();
  }

 private:
  struct State {
    float x = 0, y = 0, r = 0, body = 0;
    quadrant::AoiMode mode = quadrant::AoiMode::Both;
    std::uint32_t layers = ~0u;
  };
  struct Ent {
    State next, cur;                   // as recorded; as of the last tick
    bool present = false, live = false, pending = false;
    std::uint32_t present_at = kNone, live_at = kNone;  // positions in present_ and live_
  };

  static quadrant::AoiSettings<float> settings() {
    quadrant::AoiSettings<float> s;
    s.world = {{0, 0}, {kSide, kSide}};
    s.hysteresis = kHysteresis;
    return s;
  }
  static float random_radius(Random& rng) {
    const double u = rng.unit();
    return static_cast<float>(u < 0.05 ? 0.0 : u < 0.75 ? rng.uniform(20, 60) : rng.uniform(60, 120));
  }
  static std::uint32_t random_entity_layers(Random& rng) {
    const double u = rng.unit();
    return u < 0.8 ? ~0u : u < 0.98 ? static_cast<std::uint32_t>(1 + rng.below(7)) : 0u;
  }
  static quadrant::Box<2, float> body(const State& s) {
    return {{s.x - s.body, s.y - s.body}, {s.x + s.body, s.y + s.body}};
  }
  static quadrant::Circle<float> random_circle(Random& rng) {
    return {{static_cast<float>(rng.uniform(-100, kSide + 100)), static_cast<float>(rng.uniform(-100, kSide + 100))},
            static_cast<float>(rng.uniform(0, 80))};
  }
  static quadrant::Box<2, float> random_box(Random& rng) {
    const float x = static_cast<float>(rng.uniform(-100, kSide + 100)), y = static_cast<float>(rng.uniform(-100, kSide + 100));
    const float w = static_cast<float>(rng.uniform(0, 120)), h = static_cast<float>(rng.uniform(0, 120));
    return {{x, y}, {x + w, y + h}};
  }
  static std::uint64_t key(std::uint64_t w, std::uint64_t t) { return w << 32 | t; }
  static bool eligible(const State& w, const State& t) {
    return (static_cast<int>(w.mode) & 1) != 0 && (static_cast<int>(t.mode) & 2) != 0 && (w.layers & t.layers) != 0;
  }
  static double dist2(const State& a, const State& b) {
    const double dx = static_cast<double>(a.x) - static_cast<double>(b.x);
    const double dy = static_cast<double>(a.y) - static_cast<double>(b.y);
    return dx * dx + dy * dy;
  }
  static double r2(const State& w) { return static_cast<double>(w.r) * static_cast<double>(w.r); }
  static double rh2(const State& w) {
    const double rh = static_cast<double>(w.r) + static_cast<double>(kHysteresis);
    return rh * rh;
  }

  void enlist(std::uint64_t id, Ent& e) {
    if (e.pending) return;
    e.pending = true;
    pending_.push_back(id);
  }
  static void list_add(std::vector<std::uint64_t>& list, std::uint32_t& at, std::uint64_t id) {
    at = static_cast<std::uint32_t>(list.size());
    list.push_back(id);
  }
  void list_remove(std::vector<std::uint64_t>& list, std::uint32_t& at, bool present_list) {
    const std::uint64_t last = list.back();
    list[at] = last;
    Ent& moved = ents_.at(last);
    (present_list ? moved.present_at : moved.live_at) = at;
    list.pop_back();
    at = kNone;
  }

  void add(Random& rng, Tally& tally) {
    std::uint64_t id = 0;
    // Now and then an id removed since the last tick comes back (the same id with new values).
    while (!removed_.empty() && rng.chance(0.1)) {
      const std::uint64_t back = removed_.back();
      removed_.pop_back();
      const auto it = ents_.find(back);
      if (it != ents_.end() && !it->second.present) {
        id = back;
        break;
      }
    }
    if (id == 0) id = (next_id_++ * 0x9E3779B1ull) & 0xffffffffull;  // distinct, never 0, below 2^32, unordered
    State s;
    s.x = static_cast<float>(rng.chance(0.01) ? rng.uniform(-200, kSide + 200) : rng.uniform(0, kSide));
    s.y = static_cast<float>(rng.chance(0.01) ? rng.uniform(-200, kSide + 200) : rng.uniform(0, kSide));
    s.r = random_radius(rng);
    const double m = rng.unit();
    s.mode = m < 0.6 ? quadrant::AoiMode::Both : m < 0.8 ? quadrant::AoiMode::Watcher : quadrant::AoiMode::Marker;
    s.layers = random_entity_layers(rng);
    s.body = static_cast<float>(rng.uniform(0, 2));
    world_.add(id, V2{s.x, s.y}, s.r, s.mode, s.layers, s.body);
    Ent& e = ents_[id];
    e.next = s;
    e.present = true;
    list_add(present_, e.present_at, id);
    enlist(id, e);
    ++tally.ops[AoiAdd];
  }
  void remove(Random& rng, Tally& tally) {
    const std::uint64_t id = present_[rng.index(present_.size())];
    Ent& e = ents_.at(id);
    world_.remove(id);
    e.present = false;
    list_remove(present_, e.present_at, true);
    enlist(id, e);
    removed_.push_back(id);
    ++tally.ops[AoiRemove];
  }

  // One tick: the model applies the recorded changes; each event is checked against the rule as it comes and
  // applied to the model's relation. With `full`, the whole new relation is first computed by brute force from the
  // previous one, and compared after the tick with the model's and with every watcher's for_each_visible.
  void tick(Random& rng, bool full, Tally& tally) {
    for (const std::uint64_t id : pending_) {
      const auto it = ents_.find(id);
      Ent& e = it->second;
      e.pending = false;
      if (e.present) {
        e.cur = e.next;
        if (!e.live) {
          e.live = true;
          list_add(live_, e.live_at, id);
        }
      } else {
        if (e.live) list_remove(live_, e.live_at, false);
        ents_.erase(it);
      }
    }
    pending_.clear();
    removed_.clear();
    if (full) expect_relation();
    std::uint64_t last = 0;
    bool first = true, nested = rng.chance(0.01);
    std::size_t events = 0;
    world_.tick([&](const quadrant::AoiEvent& ev) {
      const std::uint64_t k = key(ev.watcher, ev.target);
      if (!first && k <= last) mismatch(name_, "tick: events not in (watcher, target) order, or a pair twice");
      first = false;
      last = k;
      const auto w = ents_.find(ev.watcher), t = ents_.find(ev.target);
      const bool both = w != ents_.end() && t != ents_.end() && w->second.live && t->second.live && ev.watcher != ev.target;
      if (ev.kind == quadrant::AoiEvent::Kind::Enter) {
        if (rel_.count(k) != 0) mismatch(name_, "tick: Enter for a pair already seen");
        if (!both || !eligible(w->second.cur, t->second.cur) || dist2(w->second.cur, t->second.cur) > r2(w->second.cur))
          mismatch(name_, "tick: Enter for a pair the rule does not allow (" + std::to_string(ev.watcher) + " sees " +
                              std::to_string(ev.target) + ")");
        rel_.insert(k);
      } else {
        if (rel_.count(k) == 0) mismatch(name_, "tick: Leave for a pair not seen");
        if (both && eligible(w->second.cur, t->second.cur) && dist2(w->second.cur, t->second.cur) <= rh2(w->second.cur))
          mismatch(name_, "tick: Leave for a pair still within radius + hysteresis");
        rel_.erase(k);
      }
      if (nested) {
        nested = false;
        bool refused = false;
        try {
          world_.tick([](const quadrant::AoiEvent&) {});
        } catch (const std::invalid_argument&) {
          mismatch(name_, "tick inside tick threw std::invalid_argument, not std::logic_error");
        } catch (const std::logic_error&) {
          refused = true;
        }
        if (!refused) mismatch(name_, "tick inside a tick callback was not refused");
      }
      ++events;
    });
    tally.answers += events;
    if (world_.pair_count() != rel_.size())
      mismatch(name_, "pair_count() " + std::to_string(world_.pair_count()) + ", events add up to " + std::to_string(rel_.size()));
    ++tally.ops[AoiTick];
    if (full) compare_relation(tally);
  }

  // The rule over all pairs of live entities, from the previous relation (rel_ before this tick's events).
  void expect_relation() {
    struct Flat {
      std::uint64_t id;
      State s;
    };
    std::vector<Flat> flat;
    flat.reserve(live_.size());
    for (const std::uint64_t id : live_) flat.push_back({id, ents_.at(id).cur});
    std::sort(flat.begin(), flat.end(), [](const Flat& a, const Flat& b) { return a.id < b.id; });
    expected_.clear();
    for (const Flat& w : flat) {
      if ((static_cast<int>(w.s.mode) & 1) == 0 || w.s.layers == 0) continue;
      const double in = r2(w.s), band = rh2(w.s);
      for (const Flat& t : flat) {
        if (t.id == w.id || !eligible(w.s, t.s)) continue;
        const double d2 = dist2(w.s, t.s);
        if (d2 <= in || (d2 <= band && rel_.count(key(w.id, t.id)) != 0)) expected_.push_back(key(w.id, t.id));
      }
    }
  }
  void compare_relation(Tally& tally) {
    if (expected_.size() != rel_.size())
      mismatch(name_, "relation: brute force has " + std::to_string(expected_.size()) + " pairs, the events " +
                          std::to_string(rel_.size()));
    for (const std::uint64_t k : expected_)
      if (rel_.count(k) == 0)
        mismatch(name_, "relation: " + std::to_string(k >> 32) + " should see " + std::to_string(k & 0xffffffffu));
    // Every watcher's visible set, as for_each_visible reports it.
    std::size_t at = 0;
    std::vector<std::uint64_t> ids(live_);
    std::sort(ids.begin(), ids.end());
    std::vector<std::uint64_t> got;
    for (const std::uint64_t w : ids) {
      got.clear();
      world_.for_each_visible(w, [&](std::uint64_t t) { got.push_back(key(w, t)); });
      for (const std::uint64_t k : got)
        if (at >= expected_.size() || expected_[at++] != k)
          mismatch(name_, "for_each_visible(" + std::to_string(w) + ") differs from brute force");
      if (at < expected_.size() && (expected_[at] >> 32) == w)
        mismatch(name_, "for_each_visible(" + std::to_string(w) + ") misses targets");
    }
    if (at != expected_.size()) mismatch(name_, "for_each_visible misses pairs");
    tally.comparisons += 2;
  }

  void query(Random& rng, Tally& tally) {
    const std::uint32_t mask = random_mask(rng);
    std::uint64_t last = 0;
    bool first = true;
    auto run = [&](const auto& shape) {
      world_.query(
          shape,
          [&](std::uint64_t id) {
            if (!first && id <= last) mismatch(name_, "query: ids not ascending, or an id twice");
            first = false;
            last = id;
            const auto it = ents_.find(id);
            if (it == ents_.end() || !it->second.live) mismatch(name_, "query reports an entity not live at the last tick");
            const State& s = it->second.cur;
            if ((s.layers & mask) == 0 || !quadrant::overlaps(shape, body(s))) mismatch(name_, "query reports an entity it should not");
            ++tally.answers;
          },
          mask);
    };
    if (rng.chance(0.7)) run(random_circle(rng));
    else run(random_box(rng));
    ++tally.ops[AoiQuery];
  }
  void visible(Random& rng, Tally& tally) {
    if (live_.empty()) return tick(rng, false, tally);
    const std::uint64_t w = live_[rng.index(live_.size())];
    std::uint64_t last = 0;
    bool first = true;
    world_.for_each_visible(w, [&](std::uint64_t t) {
      if (!first && t <= last) mismatch(name_, "for_each_visible: ids not ascending");
      first = false;
      last = t;
      if (rel_.count(key(w, t)) == 0) mismatch(name_, "for_each_visible reports a pair the events never entered");
      ++tally.answers;
    });
    ++tally.ops[AoiVisible];
  }
  void bad_input(Random& rng, Tally& tally) {
    ++tally.ops[AoiBadInput];
    const std::string where = name_ + " (bad input)";
    const std::size_t before = present_.size();
    const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
    switch (rng.below(present_.empty() ? 3 : 6)) {
      case 0:
        expect_invalid(where, "move(unknown id)", [&] { world_.move(0, V2{1, 1}); });
        break;
      case 1:
        expect_invalid(where, "add(NaN position)", [&] { world_.add(0, V2{nan, 1}, 10); });
        break;
      case 2:
        expect_invalid(where, "add(negative radius)", [&] { world_.add(0, V2{1, 1}, -1); });
        break;
      case 3: {
        const std::uint64_t id = present_[rng.index(present_.size())];
        expect_invalid(where, "add(present id)", [&] { world_.add(id, V2{1, 1}, 10); });
        break;
      }
      case 4: {
        const std::uint64_t id = present_[rng.index(present_.size())];
        expect_invalid(where, "move(infinite position)", [&] { world_.move(id, V2{1, inf}); });
        break;
      }
      default:
        expect_invalid(where, "query(negative circle)", [&] {
          world_.query(quadrant::Circle<float>{{1, 1}, -1}, [](std::uint64_t) {});
        });
        break;
    }
    if (world_.contains(0)) mismatch(where, "refused input added id 0");
    for (int i = 0; i < 4 && !present_.empty(); ++i)
      if (!world_.contains(present_[rng.index(present_.size())])) mismatch(where, "refused input removed an id");
    if (present_.size() != before) mismatch(where, "model changed");
    ++tally.answers;
  }

  std::string name_ = "AoiWorld<float>";
  World world_;
  std::size_t max_;
  std::unordered_map<std::uint64_t, Ent> ents_;
  std::vector<std::uint64_t> present_, live_, pending_, removed_;
  std::unordered_set<std::uint64_t> rel_;  // (watcher << 32 | target) as the events left it
  std::vector<std::uint64_t> expected_;    // the brute-force relation of a full check, sorted
  std::uint64_t next_id_ = 1;
};

// ---- Streamer --------------------------------------------------------------------------------------------------

class StreamSoak final : public Soaked {
 public:
  using StreamerT = quadrant::Streamer<float>;
  using Box3 = quadrant::Box3;
  using Source = quadrant::StreamingSource<float>;
  static constexpr float kSide = 1500;
  static constexpr float kMargin = 12;
  static constexpr std::uint32_t kNone = ~0u;

  explicit StreamSoak(std::size_t max_objects) : streamer_(config()), max_(max_objects) {
    present_.reserve(max_objects + 1);
    loading_.reserve(1024);
    sources_.reserve(2);
  }

  const std::string& name() const override { return name_; }
  std::size_t size() const override { return present_.size(); }
  std::size_t max_objects() const override { return max_; }
  std::size_t library_bytes() const override { return streamer_.tree().stats().bytes; }  // its octree only

  void step(Random& rng, double target, Tally& tally) override {
    const std::uint64_t u = rng.below(1'000'000);
    if (u < 1'000) return bad_input(rng, tally);
    if (u < 300'000 || present_.empty()) {
      if (grow(rng, present_.size(), target, max_)) add(rng, tally);
      else remove(rng, tally);
    } else if (u < 550'000) {
      const std::uint64_t id = present_[rng.index(present_.size())];
      Obj& o = objs_.at(id);
      o.box = rng.chance(0.1) ? random_box(rng) : nudged(rng, o.box);
      streamer_.move(id, o.box);
      ++tally.ops[StreamMove];
    } else if (u < 650'000) {
      update(rng, false, tally);
    } else if (u < 850'000) {
      finish(rng, true, tally);
    } else if (u < 900'000) {
      finish(rng, false, tally);
    } else if (u < 905'000) {
      const std::size_t per[] = {0, 4, 16, 64}, flight[] = {0, 16, 64, 256};
      per_update_ = rng.chance(0.8) ? 16 : per[rng.index(4)];
      in_flight_ = rng.chance(0.8) ? 64 : flight[rng.index(4)];
      streamer_.set_limits(per_update_, in_flight_);
      ++tally.ops[StreamSetLimits];
    } else {
      const std::uint64_t id = present_[rng.index(present_.size())];
      const quadrant::StreamState s = streamer_.state(id);
      if (!agrees(objs_.at(id).st, s)) mismatch(name_, "state(" + std::to_string(id) + ") is " + quadrant::to_string(s));
      ++tally.answers;
      ++tally.ops[StreamInspect];
    }
  }

  // The next update against the state machine run over every object, then every object's state and validate().
  void check(Random& rng, Tally& tally) override {
    update(rng, true, tally);
    std::size_t seen = 0, queued = 0;
    streamer_.for_each([&](std::uint64_t id, const Box3& box, quadrant::StreamState s) {
      const auto it = objs_.find(id);
      if (it == objs_.end() || !(it->second.box == box)) mismatch(name_, "for_each reports an object the model lacks");
      const St st = it->second.st;
      const bool is_queued = st == St::Waiting && std::binary_search(queued_.begin(), queued_.end(), id);
      const quadrant::StreamState want = st == St::Loading  ? quadrant::StreamState::Loading
                                         : st == St::Loaded ? quadrant::StreamState::Loaded
                                         : is_queued        ? quadrant::StreamState::Queued
                                                            : quadrant::StreamState::Unloaded;
      if (s != want)
        mismatch(name_, "object " + std::to_string(id) + " is " + quadrant::to_string(s) + ", the model says " +
                            quadrant::to_string(want));
      queued += is_queued;
      ++seen;
    });
    if (seen != objs_.size() || streamer_.size() != objs_.size()) mismatch(name_, "object count differs");
    if (streamer_.queued() != queued || queued != queued_.size()) mismatch(name_, "queued() differs");
    if (streamer_.loading() != loading_.size() || streamer_.loaded() != loaded_) mismatch(name_, "loading() or loaded() differs");
    streamer_.validate();
    tally.comparisons += 3;
    queued_.clear();
    queued_.shrink_to_fit();
  }

 private:
  enum class St : std::uint8_t { Waiting, Loading, Loaded };  // Waiting: Unloaded or Queued
  struct Obj {
    Box3 box;
    St st = St::Waiting;
    std::uint32_t present_at = kNone, loading_at = kNone;
  };

  static quadrant::StreamerConfig<float> config() {
    quadrant::StreamerConfig<float> c;
    c.tree.world = {{0, -10, 0}, {kSide, 100, kSide}};
    c.unload_margin = kMargin;
    c.max_loads_per_update = 16;
    c.max_loads_in_flight = 64;
    return c;
  }
  static bool agrees(St st, quadrant::StreamState s) {
    switch (st) {
      case St::Loading: return s == quadrant::StreamState::Loading;
      case St::Loaded: return s == quadrant::StreamState::Loaded;
      default: return s == quadrant::StreamState::Unloaded || s == quadrant::StreamState::Queued;
    }
  }
  static Box3 random_box(Random& rng) {
    const bool outside = rng.chance(0.01), big = rng.chance(0.03);
    const double lo = outside ? -150 : 0, hi = outside ? kSide + 150 : kSide;
    const double x = rng.uniform(lo, hi), z = rng.uniform(lo, hi), y = rng.uniform(-5, 40);
    const double w = big ? rng.uniform(30, 120) : rng.uniform(1, 8), d = big ? rng.uniform(30, 120) : rng.uniform(1, 8);
    const double h = rng.uniform(0, 20);
    return {{static_cast<float>(x), static_cast<float>(y), static_cast<float>(z)},
            {static_cast<float>(x + w), static_cast<float>(y + h), static_cast<float>(z + d)}};
  }
  static Box3 nudged(Random& rng, Box3 b) {
    for (int a = 0; a < 3; ++a) {
      const float d = static_cast<float>(rng.uniform(-1.5, 1.5));
      if (b.min[a] + d < -300 || b.max[a] + d > kSide + 300) return random_box(rng);
      b.min[a] += d;
      b.max[a] += d;
      if (b.max[a] < b.min[a]) b.max[a] = b.min[a];
    }
    return b;
  }
  // The point-to-box distance of docs/streaming.md: per axis double(face) - double(position), squared, summed.
  static double d2(const quadrant::Vec3& p, const Box3& b) {
    double s = 0;
    for (int i = 0; i < 3; ++i) {
      double g = 0;
      if (p[i] < b.min[i]) g = static_cast<double>(b.min[i]) - static_cast<double>(p[i]);
      else if (p[i] > b.max[i]) g = static_cast<double>(p[i]) - static_cast<double>(b.max[i]);
      s += g * g;
    }
    return s;
  }
  bool wanted(const Box3& b) const {
    for (const Source& s : sources_) {
      const double r = static_cast<double>(s.prefetch_radius);
      if (d2(s.position, b) <= r * r) return true;
      if (s.frustum && quadrant::overlaps(*s.frustum, b)) return true;
    }
    return false;
  }
  // Kept, for an object that is not wanted: in the frustum grown by the margin, or within radius + margin.
  bool kept(const Box3& b) const {
    for (const Source& s : sources_) {
      const double k = static_cast<double>(s.prefetch_radius) + static_cast<double>(kMargin);
      if (d2(s.position, b) <= k * k) return true;
      if (!s.frustum) continue;
      Box3 c = s.frustum->corner_bounds();
      for (int i = 0; i < 3; ++i) c.min[i] = c.min[i] - kMargin, c.max[i] = c.max[i] + kMargin;
      if (!quadrant::overlaps(c, b)) continue;
      bool inside = true;
      for (const quadrant::Plane<float>& pl : s.frustum->planes()) {
        float sum = pl.offset + kMargin;
        for (int i = 0; i < 3; ++i) sum += pl.normal[i] * (pl.normal[i] >= 0 ? b.max[i] : b.min[i]);
        if (sum < 0) {
          inside = false;
          break;
        }
      }
      if (inside) return true;
    }
    return false;
  }
  double key(const Box3& b) const {
    double k = std::numeric_limits<double>::infinity();
    for (const Source& s : sources_) k = std::min(k, d2(s.position, b));
    return k;
  }

  void set_state(std::uint64_t id, Obj& o, St to) {
    if (o.st == St::Loading) {
      const std::uint64_t last = loading_.back();
      loading_[o.loading_at] = last;
      objs_.at(last).loading_at = o.loading_at;
      loading_.pop_back();
      o.loading_at = kNone;
    }
    if (o.st == St::Loaded) --loaded_;
    o.st = to;
    if (to == St::Loading) {
      o.loading_at = static_cast<std::uint32_t>(loading_.size());
      loading_.push_back(id);
    }
    if (to == St::Loaded) ++loaded_;
  }

  void add(Random& rng, Tally& tally) {
    const std::uint64_t id = next_id_++ * 0x9E3779B97F4A7C15ull;  // distinct 64-bit ids in no order
    Obj o;
    o.box = random_box(rng);
    streamer_.add(id, o.box);
    o.present_at = static_cast<std::uint32_t>(present_.size());
    present_.push_back(id);
    objs_.emplace(id, o);
    ++tally.ops[StreamAdd];
  }
  void remove(Random& rng, Tally& tally) {
    const std::uint64_t id = present_[rng.index(present_.size())];
    Obj& o = objs_.at(id);
    const quadrant::StreamState was = streamer_.remove(id);
    if (!agrees(o.st, was)) mismatch(name_, std::string("remove returned ") + quadrant::to_string(was));
    set_state(id, o, St::Waiting);
    const std::uint64_t last = present_.back();
    present_[o.present_at] = last;
    objs_.at(last).present_at = o.present_at;
    present_.pop_back();
    objs_.erase(id);
    ++tally.ops[StreamRemove];
  }
  // mark_loaded (or mark_failed): mostly on a Loading object, else on any object (a late completion: false).
  void finish(Random& rng, bool loaded, Tally& tally) {
    const bool on_loading = !loading_.empty() && rng.chance(0.7);
    const std::uint64_t id = on_loading ? loading_[rng.index(loading_.size())] : present_[rng.index(present_.size())];
    Obj& o = objs_.at(id);
    const bool expect = o.st == St::Loading;
    const bool got = loaded ? streamer_.mark_loaded(id) : streamer_.mark_failed(id);
    if (got != expect) mismatch(name_, std::string(loaded ? "mark_loaded" : "mark_failed") + " returned " + (got ? "true" : "false"));
    if (expect) set_state(id, o, loaded ? St::Loaded : St::Waiting);
    ++tally.answers;
    ++tally.ops[loaded ? StreamMarkLoaded : StreamMarkFailed];
  }

  void advance_camera(Random& rng) {
    heading_ += rng.uniform(-0.2, 0.2);
    double nx = cam_x_ + 4 * std::cos(heading_), nz = cam_z_ + 4 * std::sin(heading_);
    if (nx < 0 || nx > kSide || nz < 0 || nz > kSide) {
      heading_ += std::numbers::pi;
      nx = std::clamp(nx, 0.0, static_cast<double>(kSide));
      nz = std::clamp(nz, 0.0, static_cast<double>(kSide));
    }
    cam_x_ = nx, cam_z_ = nz;
    quadrant_support::Camera cam;
    cam.eye = {static_cast<float>(cam_x_), 30, static_cast<float>(cam_z_)};
    cam.target = {static_cast<float>(cam_x_ + 10 * std::cos(heading_)), 27, static_cast<float>(cam_z_ + 10 * std::sin(heading_))};
    quadrant_support::Lens lens;
    lens.far_plane = 150;
    sources_.clear();
    sources_.push_back(Source{quadrant::Frustum<float>::from_view_projection(
                                  quadrant_support::column_major(quadrant_support::view_projection(cam, lens))),
                              cam.eye, 20});
    if (rng.chance(0.5))
      sources_.push_back(Source{std::nullopt,
                                {static_cast<float>(cam_x_ + rng.uniform(-50, 50)), 2,
                                 static_cast<float>(cam_z_ + rng.uniform(-50, 50))},
                                static_cast<float>(rng.uniform(0, 40))});
  }

  // One update. Without `full`, each decision is checked against the rules as it comes; with `full`, every
  // decision is first computed by brute force over all objects and the update must match it exactly.
  void update(Random& rng, bool full, Tally& tally) {
    advance_camera(rng);
    std::vector<std::uint64_t> want_cancels, want_unloads;
    std::vector<std::pair<double, std::uint64_t>> candidates;
    std::size_t issue = 0;
    if (full) {
      std::size_t loading_after = loading_.size();
      for (const auto& [id, o] : objs_) {
        const bool w = wanted(o.box);
        if (o.st != St::Waiting && !w && !kept(o.box)) {
          if (o.st == St::Loading) want_cancels.push_back(id), --loading_after;
          else want_unloads.push_back(id);
        }
        if (o.st == St::Waiting && w) candidates.emplace_back(key(o.box), id);
      }
      std::sort(want_cancels.begin(), want_cancels.end());
      std::sort(want_unloads.begin(), want_unloads.end());
      std::sort(candidates.begin(), candidates.end());
      const std::size_t room = in_flight_ > loading_after ? in_flight_ - loading_after : 0;
      issue = std::min({per_update_, room, candidates.size()});
    }
    const quadrant::StreamUpdate<float>& u = streamer_.update(sources_);
    if (full) {
      if (u.cancels != want_cancels) mismatch(name_, "update: cancels differ from brute force");
      if (u.unloads != want_unloads) mismatch(name_, "update: unloads differ from brute force");
      if (u.loads.size() != issue) mismatch(name_, "update: " + std::to_string(u.loads.size()) + " loads, brute force " + std::to_string(issue));
      for (std::size_t i = 0; i < issue; ++i)
        if (u.loads[i].id != candidates[i].second || u.loads[i].distance != static_cast<float>(std::sqrt(candidates[i].first)))
          mismatch(name_, "update: load " + std::to_string(i) + " differs from brute force");
      queued_.clear();
      for (std::size_t i = issue; i < candidates.size(); ++i) queued_.push_back(candidates[i].second);
      std::sort(queued_.begin(), queued_.end());
      tally.comparisons += 3;
    }
    // The rules, decision by decision (also in a full check: they update the model).
    std::uint64_t last = 0;
    for (const std::uint64_t id : u.cancels) {
      const auto it = objs_.find(id);
      if ((id <= last && last != 0) || it == objs_.end() || it->second.st != St::Loading || wanted(it->second.box) || kept(it->second.box))
        mismatch(name_, "update: cancel of " + std::to_string(id) + " breaks the rules");
      set_state(id, it->second, St::Waiting);
      last = id;
    }
    last = 0;
    for (const std::uint64_t id : u.unloads) {
      const auto it = objs_.find(id);
      if ((id <= last && last != 0) || it == objs_.end() || it->second.st != St::Loaded || wanted(it->second.box) || kept(it->second.box))
        mismatch(name_, "update: unload of " + std::to_string(id) + " breaks the rules");
      set_state(id, it->second, St::Waiting);
      last = id;
    }
    const std::size_t room = in_flight_ > loading_.size() ? in_flight_ - loading_.size() : 0;
    if (u.loads.size() > std::min(per_update_, room)) mismatch(name_, "update: more loads than the caps allow");
    double last_key = -1;
    std::uint64_t last_id = 0;
    for (const quadrant::StreamLoad<float>& l : u.loads) {
      const auto it = objs_.find(l.id);
      if (it == objs_.end() || it->second.st != St::Waiting || !wanted(it->second.box))
        mismatch(name_, "update: load of " + std::to_string(l.id) + " breaks the rules");
      const double k = key(it->second.box);
      if (l.distance != static_cast<float>(std::sqrt(k))) mismatch(name_, "update: a load's distance is wrong");
      if (k < last_key || (k == last_key && l.id < last_id)) mismatch(name_, "update: loads not nearest first");
      last_key = k, last_id = l.id;
      set_state(l.id, it->second, St::Loading);
    }
    if (u.stats.loading != loading_.size() || u.stats.loaded != loaded_) mismatch(name_, "update: stats' loading or loaded count");
    tally.answers += u.loads.size() + u.unloads.size() + u.cancels.size();
    ++tally.ops[StreamUpdate];
  }

  void bad_input(Random& rng, Tally& tally) {
    ++tally.ops[StreamBadInput];
    const std::string where = name_ + " (bad input)";
    const std::size_t before = streamer_.size(), loads_before = streamer_.last_update().loads.size();
    const float nan = std::numeric_limits<float>::quiet_NaN();
    switch (rng.below(present_.empty() ? 4 : 6)) {
      case 0:
        expect_invalid(where, "move(unknown id)", [&] { streamer_.move(0, random_box(rng)); });
        break;
      case 1:
        expect_invalid(where, "mark_loaded(unknown id)", [&] { streamer_.mark_loaded(0); });
        break;
      case 2: {
        Box3 b = random_box(rng);
        b.max[1] = nan;
        expect_invalid(where, "add(NaN box)", [&] { streamer_.add(0, b); });
        break;
      }
      case 3: {
        const Source bad[] = {Source{std::nullopt, {1, nan, 1}, 5}};
        expect_invalid(where, "update(NaN source)", [&] { streamer_.update(bad); });
        if (streamer_.last_update().loads.size() != loads_before) mismatch(where, "a refused update changed last_update()");
        break;
      }
      case 4: {
        const std::uint64_t id = present_[rng.index(present_.size())];
        expect_invalid(where, "add(duplicate id)", [&] { streamer_.add(id, random_box(rng)); });
        break;
      }
      default: {
        const std::uint64_t id = present_[rng.index(present_.size())];
        Box3 b = random_box(rng);
        std::swap(b.min[0], b.max[0]);
        b.min[0] = b.max[0] + 1;
        expect_invalid(where, "move(min > max)", [&] { streamer_.move(id, b); });
        if (!(streamer_.bounds(id) == objs_.at(id).box)) mismatch(where, "a refused move changed the bounds");
        break;
      }
    }
    if (streamer_.size() != before || streamer_.contains(0)) mismatch(where, "refused input changed the objects");
    ++tally.answers;
  }

  std::string name_ = "Streamer<float>";
  StreamerT streamer_;
  std::size_t max_;
  std::unordered_map<std::uint64_t, Obj> objs_;
  std::vector<std::uint64_t> present_, loading_;
  std::vector<std::uint64_t> queued_;  // the Queued ids after a full check's update, sorted
  std::size_t loaded_ = 0;
  std::size_t per_update_ = 16, in_flight_ = 64;
  std::vector<Source> sources_;
  double cam_x_ = kSide / 2, cam_z_ = kSide / 2, heading_ = 0;
  std::uint64_t next_id_ = 1;
};

// ---- memory ----------------------------------------------------------------------------------------------------

struct Sample {
  std::uint64_t ops;
  std::size_t objects;
  std::size_t heap;
  std::size_t rss;
  std::size_t trees;  // Stats::bytes of the seven trees (six, and the Streamer's octree)
};

// Bytes the program's heap holds: glibc's small and large (mmapped) allocations in use.
std::size_t heap_in_use() {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
  const struct mallinfo2 mi = mallinfo2();
  return mi.uordblks + mi.hblkhd;
#else
  return 0;
#endif
}
std::size_t rss_bytes() {
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (f == nullptr) return 0;
  unsigned long long pages = 0, resident = 0;
  const int got = std::fscanf(f, "%llu %llu", &pages, &resident);
  std::fclose(f);
  return got == 2 ? static_cast<std::size_t>(resident) * static_cast<std::size_t>(sysconf(_SC_PAGESIZE)) : 0;
}
double mb(std::size_t bytes) { return static_cast<double>(bytes) / (1024.0 * 1024.0); }

// The bounded-memory verdict: see the file comment. Returns 1 bounded, 0 not bounded, -1 not judged.
int memory_verdict(const std::vector<Sample>& samples, std::uint64_t total_ops, std::size_t total_max) {
  constexpr int kBins = 20;
  constexpr double kRatio = 1.10;
  constexpr double kSlack = 1024.0 * 1024.0;
  std::printf("memory bound: samples in 20 bins by objects held (all structures, of %zu at most); for each bin sampled in\n"
              "  both the 2nd quarter of the run (early) and the 4th (late): late peak heap <= early peak heap x %.2f + 1 MiB\n",
              total_max, kRatio);
  if (QUADRANT_SOAK_SANITIZED) {
    std::printf("  not judged: built with a sanitizer, whose allocator glibc's mallinfo2 does not see\n");
    return -1;
  }
  std::array<std::size_t, kBins> early{}, late{};
  for (const Sample& s : samples) {
    const int bin = std::min(kBins - 1, static_cast<int>(static_cast<double>(s.objects) * kBins / static_cast<double>(total_max)));
    const double at = static_cast<double>(s.ops) / static_cast<double>(total_ops);
    if (at > 0.25 && at <= 0.5) early[static_cast<std::size_t>(bin)] = std::max(early[static_cast<std::size_t>(bin)], s.heap);
    if (at > 0.75) late[static_cast<std::size_t>(bin)] = std::max(late[static_cast<std::size_t>(bin)], s.heap);
  }
  int compared = 0;
  bool bounded = true;
  double worst = 0;
  std::printf("  %-17s %14s %14s %8s\n", "objects", "early heap MB", "late heap MB", "ratio");
  for (std::size_t b = 0; b < kBins; ++b) {
    if (early[b] == 0 || late[b] == 0) continue;
    ++compared;
    const double ratio = static_cast<double>(late[b]) / static_cast<double>(early[b]);
    const bool ok = static_cast<double>(late[b]) <= static_cast<double>(early[b]) * kRatio + kSlack;
    bounded = bounded && ok;
    worst = std::max(worst, ratio);
    std::printf("  %7zu-%-9zu %14.1f %14.1f %8.3f%s\n", b * total_max / kBins, (b + 1) * total_max / kBins, mb(early[b]),
                mb(late[b]), ratio, ok ? "" : "  <- beyond the bound");
  }
  if (compared < 3) {
    std::printf("  not judged: only %d bins sampled both early and late (run longer, or check more often)\n", compared);
    return -1;
  }
  std::printf("  %d bins compared, worst ratio %.3f: memory %s\n", compared, worst, bounded ? "BOUNDED" : "NOT BOUNDED");
  return bounded ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"quadrant_soak: runs many mixed operations on long-lived trees, an AoiWorld and a Streamer, checking "
               "them against brute-force models and watching memory.",
               "quadrant_soak"};
  std::uint64_t ops = 100'000'000, seed = 1, check_every = 100'000;
  std::size_t max_objects = 20'000;
  double progress_seconds = 10;
  std::string csv;
  app.add_option("--ops", ops, "operations to run")->capture_default_str()->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 40));
  app.add_option("--seed", seed, "random seed")->capture_default_str();
  app.add_option("--check-every", check_every, "operations between brute-force spot checks and memory samples")
      ->capture_default_str()
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 40));
  app.add_option("--max-objects", max_objects, "objects per tree and in the Streamer at the top of the wave (AoiWorld: a quarter)")
      ->capture_default_str()
      ->check(CLI::Range(std::size_t{4}, std::size_t{1'000'000}));
  app.add_option("--progress-seconds", progress_seconds, "seconds between progress lines")
      ->capture_default_str()
      ->check(CLI::Range(0.1, 86400.0));
  app.add_option("--csv", csv, "write every memory sample (ops, objects, heap bytes, RSS bytes) to this file");
  CLI11_PARSE(app, argc, argv);
  g_seed = seed;

  Random rng(seed);
  std::vector<std::unique_ptr<Soaked>> trees;
  for (const Placement p : {Placement::Loose, Placement::Parent, Placement::Leaves}) {
    trees.push_back(std::make_unique<TreeSoak<2, float>>(p, max_objects, rng.next()));
    trees.push_back(std::make_unique<TreeSoak<3, double>>(p, max_objects, rng.next()));
  }
  AoiSoak aoi(std::max<std::size_t>(1, max_objects / 4));
  StreamSoak streamer(max_objects);
  std::vector<Soaked*> all;
  for (const auto& t : trees) all.push_back(t.get());
  all.push_back(&aoi);
  all.push_back(&streamer);
  std::size_t total_max = 0;
  for (const Soaked* s : all) total_max += s->max_objects();

  std::printf("quadrant_soak %s: %" PRIu64 " operations, seed %" PRIu64 ", spot check every %" PRIu64
              ", up to %zu objects per tree (%zu in all)%s\n",
              quadrant::version_string, ops, seed, check_every, max_objects, total_max,
              QUADRANT_SOAK_SANITIZED ? " [sanitizer build: heap figures are not meaningful]" : "");
  std::printf("structures:");
  for (const Soaked* s : all) std::printf(" [%s]", s->name().c_str());
  std::printf("\n");
  std::fflush(stdout);

  Tally tally;
  std::vector<Sample> samples;
  samples.reserve(static_cast<std::size_t>(std::min<std::uint64_t>(ops / check_every + 2, 10'000'000)));
  Sample peak_heap{0, 0, 0, 0, 0}, peak_rss{0, 0, 0, 0, 0};
  std::size_t objects_now = 0;
  auto sample = [&](std::uint64_t done) {
    objects_now = 0;
    std::size_t trees_bytes = 0;
    for (const Soaked* s : all) objects_now += s->size(), trees_bytes += s->library_bytes();
    const Sample s{done, objects_now, heap_in_use(), rss_bytes(), trees_bytes};
    if (s.heap > peak_heap.heap) peak_heap = s;
    if (s.rss > peak_rss.rss) peak_rss = s;
    return s;
  };
  auto check_all = [&](std::uint64_t done) {
    for (Soaked* s : all) s->check(rng, tally);
    ++tally.rounds;
    samples.push_back(sample(done));
  };

  using Clock = std::chrono::steady_clock;
  const Clock::time_point start = Clock::now();
  Clock::time_point next_progress = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(progress_seconds));
  auto seconds_since_start = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };
  auto progress = [&](std::uint64_t done) {
    const Sample s = sample(done);
    const double t = seconds_since_start();
    std::printf("[%8.1f s] ops %" PRIu64 " (%5.1f%%)  %8.0f ops/s  heap %7.1f MB  rss %7.1f MB  objects %7zu  checks %" PRIu64
                " rounds / %" PRIu64 " comparisons passed\n",
                t, done, 100.0 * static_cast<double>(done) / static_cast<double>(ops), static_cast<double>(done) / t,
                mb(s.heap), mb(s.rss), s.objects, tally.rounds, tally.comparisons);
    std::fflush(stdout);
  };

  try {
    for (std::uint64_t op = 0; op < ops; ++op) {
      g_op = op;
      const double target = wave(op, ops);
      const std::uint64_t r = rng.below(100);
      if (r < 75) trees[rng.index(trees.size())]->step(rng, target, tally);
      else if (r < 90) aoi.step(rng, target, tally);
      else streamer.step(rng, target, tally);
      if ((op + 1) % check_every == 0) check_all(op + 1);
      if ((op & 1023) == 0 && Clock::now() >= next_progress) {
        progress(op + 1);
        next_progress = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(progress_seconds));
      }
    }
    g_op = ops;
    if (ops % check_every != 0) check_all(ops);
  } catch (const std::exception& e) {
    mismatch("the run", std::string("unexpected exception: ") + e.what());
  }
  const double seconds = seconds_since_start();
  const Sample final_sample = sample(ops);

  std::printf("\nquadrant_soak: %" PRIu64 " operations in %.1f s (%.0f ops/s), seed %" PRIu64 "\n", ops, seconds,
              static_cast<double>(ops) / seconds, seed);
  std::printf("operations by kind:\n");
  for (int k = 0; k < kOpKinds; ++k) std::printf("  %-26s %12" PRIu64 "\n", kOpNames[k], tally.ops[static_cast<std::size_t>(k)]);
  std::printf("checks: %" PRIu64 " spot-check rounds, %" PRIu64 " brute-force comparisons, %" PRIu64
              " answers checked as they came: all passed\n",
              tally.rounds, tally.comparisons, tally.answers);
  std::printf("objects at the end:");
  for (const Soaked* s : all) std::printf(" %zu", s->size());
  std::printf(" (%zu in all)\n", final_sample.objects);
  const Sample& first = samples.front();
  std::printf("memory (heap: glibc mallinfo2 uordblks + hblkhd; RSS: /proc/self/statm):\n");
  std::printf("  first sample (op %" PRIu64 ", %zu objects): heap %.1f MB, RSS %.1f MB\n", first.ops, first.objects,
              mb(first.heap), mb(first.rss));
  std::printf("  peak heap %.1f MB (op %" PRIu64 ", %zu objects); peak RSS %.1f MB (op %" PRIu64 ")\n", mb(peak_heap.heap),
              peak_heap.ops, peak_heap.objects, mb(peak_rss.rss), peak_rss.ops);
  std::printf("  final: heap %.1f MB, RSS %.1f MB (%zu objects)\n", mb(final_sample.heap), mb(final_sample.rss),
              final_sample.objects);
  std::size_t trees_peak = 0;
  for (const Sample& s : samples) trees_peak = std::max(trees_peak, s.trees);
  std::printf("  the seven trees' own Stats::bytes: first %.1f MB, peak %.1f MB, final %.1f MB\n", mb(first.trees),
              mb(trees_peak), mb(final_sample.trees));
  const int verdict = memory_verdict(samples, ops, total_max);
  if (!csv.empty()) {
    std::FILE* f = std::fopen(csv.c_str(), "w");
    if (f == nullptr) {
      std::fprintf(stderr, "quadrant_soak: error: --csv %s: cannot write the file\n", csv.c_str());
      return 2;
    }
    std::fprintf(f, "ops,objects,heap_bytes,rss_bytes,tree_stats_bytes\n");
    for (const Sample& s : samples)
      std::fprintf(f, "%" PRIu64 ",%zu,%zu,%zu,%zu\n", s.ops, s.objects, s.heap, s.rss, s.trees);
    std::fclose(f);
  }
  std::printf("quadrant_soak: %s\n", verdict == 0 ? "FAILED (memory not bounded)" : "PASSED");
  return verdict == 0 ? 3 : 0;
}

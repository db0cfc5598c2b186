// SPDX-License-Identifier: MIT
// Fuzz target: a Tree driven by a byte stream against a brute-force model. The first bytes pick the space (2D or
// 3D, float or double), the placement, the world (tiny, ordinary, huge), max_depth 0..30 and split_threshold
// 0..100; the rest is a sequence of operations (insert, erase, move, batched move, box query, pairs, bulk build,
// clear, bad input) on coordinates drawn from a small lattice scaled to the world (so boxes share edges, faces and
// split lines, some are flat, some lie outside the world) or raw values. After every mutation: validate(), and the
// node count within 2^D x (max_depth + 1) x (objects + 1); every query and the pairs equal brute force.
#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <set>
#include <stdexcept>
#include <utility>
#include <vector>

#include <quadrant/quadrant.hpp>

#include "fuzz_check.hpp"

namespace {

using namespace quadrant;

template <int D, class S>
struct Run {
  using B = Box<D, S>;
  explicit Run(FuzzedDataProvider& provider) : in(provider) {}

  FuzzedDataProvider& in;
  Config<D, S> config;
  S half = 1;
  std::vector<std::pair<Handle, B>> live;  // the model
  int next_value = 0;

  S coordinate() {
    switch (in.ConsumeIntegralInRange<int>(0, 7)) {
      case 0: return static_cast<S>(in.ConsumeFloatingPointInRange<double>(-2.0 * double(half), 2.0 * double(half)));
      case 1: return in.ConsumeBool() ? std::numeric_limits<S>::max() / 4 : -std::numeric_limits<S>::max() / 4;
      default: return half / S(8) * static_cast<S>(in.ConsumeIntegralInRange<int>(-12, 12));  // lattice, +-1.5 worlds
    }
  }
  B box() {
    B b;
    for (int i = 0; i < D; ++i) {
      const S x = coordinate(), y = in.ConsumeIntegralInRange<int>(0, 3) == 0 ? x : coordinate();
      b.min[i] = std::min(x, y);
      b.max[i] = std::max(x, y);
    }
    return b;
  }
  std::size_t pick() { return in.ConsumeIntegralInRange<std::size_t>(0, live.size() - 1); }

  void check_tree(const Tree<D, int, S>& t) {
    quadrant_fuzz::check_valid(t);
    QUADRANT_FUZZ_CHECK(t.size() == live.size(), "size differs from the model");
    if (config.split_threshold > 0) {
      const std::size_t budget = (std::size_t{1} << D) * std::size_t(config.max_depth + 1) * (live.size() + 1);
      QUADRANT_FUZZ_CHECK(t.stats().nodes <= budget, "node count beyond 2^D x (max_depth + 1) x (objects + 1)");
    }
  }
  void check_query(const Tree<D, int, S>& t, const B& q) {
    std::vector<std::uint32_t> got, want;
    t.query(q, [&](Handle h, const int&) { got.push_back(h.index()); });
    for (const auto& [h, b] : live)
      if (overlaps(q, b)) want.push_back(h.index());
    std::sort(got.begin(), got.end());
    std::sort(want.begin(), want.end());
    QUADRANT_FUZZ_CHECK(got == want, "box query differs from brute force");
  }
  void check_pairs(const Tree<D, int, S>& t, bool threaded) {
    std::vector<std::pair<std::uint32_t, std::uint32_t>> got, want;
    auto add = [&](Handle a, Handle b) { got.emplace_back(std::min(a.index(), b.index()), std::max(a.index(), b.index())); };
    if (threaded) {
      std::vector<std::pair<Handle, Handle>> out;
      t.pairs(out, 2);
      for (const auto& [a, b] : out) add(a, b);
    } else {
      t.for_each_pair(add);
    }
    for (std::size_t i = 0; i < live.size(); ++i)
      for (std::size_t j = i + 1; j < live.size(); ++j)
        if (overlaps(live[i].second, live[j].second))
          want.emplace_back(std::min(live[i].first.index(), live[j].first.index()),
                            std::max(live[i].first.index(), live[j].first.index()));
    std::sort(got.begin(), got.end());
    std::sort(want.begin(), want.end());
    QUADRANT_FUZZ_CHECK(got == want, "pairs differ from brute force");
  }

  void run() {
    for (int i = 0; i < D; ++i) {
      config.world.min[i] = -half;
      config.world.max[i] = half;
    }
    config.max_depth = in.ConsumeIntegralInRange<int>(0, 30);
    config.split_threshold = in.ConsumeBool() ? in.ConsumeIntegralInRange<int>(0, 100) : in.ConsumeIntegralInRange<int>(1, 4);
    config.placement = static_cast<Placement>(in.ConsumeIntegralInRange<int>(0, 2));
    // A full tree (threshold 0) is built at once: shallow ones are fuzzed, deep ones must be refused (checked
    // below); those in between (millions of nodes) are too slow to fuzz.
    if (config.split_threshold == 0)
      config.max_depth = in.ConsumeBool() ? std::min(config.max_depth, D == 2 ? 6 : 4)
                                          : std::max(config.max_depth, D == 2 ? 13 : 9);
    std::optional<Tree<D, int, S>> tree;
    try {
      tree.emplace(config);
    } catch (const std::invalid_argument&) {
      // A full tree (threshold 0) above the documented 2^24 nodes is refused; nothing else may be.
      QUADRANT_FUZZ_CHECK(config.split_threshold == 0, "a valid config was refused");
      return;
    }
    Tree<D, int, S>& t = *tree;
    for (int op = 0; op < 120 && in.remaining_bytes() > 0; ++op) {
      switch (in.ConsumeIntegralInRange<int>(0, 10)) {
        case 0:
        case 1: {
          if (live.size() >= 64) break;
          const B b = box();
          live.emplace_back(t.insert(b, next_value++), b);
          check_tree(t);
          break;
        }
        case 2:
          if (!live.empty()) {
            const std::size_t i = pick();
            t.erase(live[i].first);
            live.erase(live.begin() + std::ptrdiff_t(i));
            check_tree(t);
          }
          break;
        case 3:
          if (!live.empty()) {
            const std::size_t i = pick();
            live[i].second = box();
            t.move(live[i].first, live[i].second);
            check_tree(t);
          }
          break;
        case 4:
          if (!live.empty()) {
            std::vector<Handle> hs;
            std::vector<B> bs;
            const std::size_t k = in.ConsumeIntegralInRange<std::size_t>(1, 8);
            for (std::size_t j = 0; j < k; ++j) {
              const std::size_t i = pick();
              hs.push_back(live[i].first);
              bs.push_back(box());
              live[i].second = bs.back();
            }
            t.move(hs, bs);
            check_tree(t);
          }
          break;
        case 5: check_query(t, box()); break;
        case 6: check_pairs(t, in.ConsumeBool()); break;
        case 7: {
          std::vector<std::pair<B, int>> items;
          const std::size_t k = in.ConsumeIntegralInRange<std::size_t>(0, 40);
          for (std::size_t j = 0; j < k; ++j) items.emplace_back(box(), next_value++);
          std::vector<Handle> hs;
          t.assign(items, hs);
          live.clear();
          for (std::size_t j = 0; j < k; ++j) live.emplace_back(hs[j], items[j].first);
          check_tree(t);
          break;
        }
        case 8:
          if (in.ConsumeIntegralInRange<int>(0, 7) == 0) {
            t.clear();
            live.clear();
            check_tree(t);
          }
          break;
        case 9: {
          // A change from inside one of the tree's own walks throws std::logic_error and changes nothing (the
          // model is left as it was, and check_tree compares).
          const int walk = in.ConsumeIntegralInRange<int>(0, 2), change = in.ConsumeIntegralInRange<int>(0, 4);
          const B b = box();
          const std::size_t i = live.empty() ? 0 : pick();
          bool called = false, refused = false;
          auto inside = [&] {
            if (called) return;
            called = true;
            try {
              switch (change) {
                case 0: t.insert(b, -2); break;
                case 1: if (!live.empty()) t.erase(live[i].first); break;
                case 2: if (!live.empty()) t.move(live[i].first, b); break;
                case 3: if (!live.empty()) t.set_layers(live[i].first, 2u); break;
                default: t.clear(); break;
              }
            } catch (const std::logic_error&) {
              refused = true;
            }
          };
          B everything;
          for (int a = 0; a < D; ++a) {
            everything.min[a] = -std::numeric_limits<S>::max();
            everything.max[a] = std::numeric_limits<S>::max();
          }
          if (walk == 0) t.query(everything, [&](const int&) { inside(); });
          else if (walk == 1) t.for_each_pair([&](Handle, Handle) { inside(); });
          else t.for_each([&](Handle, const int&, const B&) { inside(); });
          const bool needs_object = change >= 1 && change <= 3;
          if (called && !(needs_object && live.empty())) QUADRANT_FUZZ_CHECK(refused, "a change inside a walk went through");
          check_tree(t);
          break;
        }
        default: {
          // Bad input throws and changes nothing: a NaN, an infinite coordinate, min > max.
          B bad = box();
          switch (in.ConsumeIntegralInRange<int>(0, 2)) {
            case 0: bad.min[0] = std::numeric_limits<S>::quiet_NaN(); break;
            case 1: bad.max[D - 1] = std::numeric_limits<S>::infinity(); break;
            default: bad.min[0] = S(1), bad.max[0] = S(-1); break;
          }
          bool threw = false;
          try {
            t.insert(bad, -1);
          } catch (const std::invalid_argument&) {
            threw = true;
          }
          QUADRANT_FUZZ_CHECK(threw, "insert accepted a bad box");
          if (!live.empty()) {
            const std::size_t i = pick();
            threw = false;
            try {
              t.move(live[i].first, bad);
            } catch (const std::invalid_argument&) {
              threw = true;
            }
            QUADRANT_FUZZ_CHECK(threw, "move accepted a bad box");
            QUADRANT_FUZZ_CHECK(t.bounds(live[i].first) == live[i].second, "a rejected move changed the box");
          }
          check_tree(t);
          break;
        }
      }
    }
    check_pairs(t, false);
  }
};

template <int D, class S>
void run_space(FuzzedDataProvider& in) {
  Run<D, S> r(in);
  switch (in.ConsumeIntegralInRange<int>(0, 2)) {
    case 0: r.half = S(1e-3); break;
    case 1: r.half = S(100); break;
    default: r.half = std::numeric_limits<S>::max() / 8; break;
  }
  r.run();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  switch (in.ConsumeIntegralInRange<int>(0, 3)) {
    case 0: run_space<2, float>(in); break;
    case 1: run_space<3, float>(in); break;
    case 2: run_space<2, double>(in); break;
    default: run_space<3, double>(in); break;
  }
  return 0;
}

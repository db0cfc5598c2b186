// SPDX-License-Identifier: MIT
// The determinism session: a fixed script of calls over every part of quadrant — trees in 2D and 3D, float and
// double, every placement, at ordinary and extreme magnitudes; ContactTracker, AoiWorld, Streamer — hashing every
// result in the order it is returned. Every build of it (any compiler, optimisation level, SIMD or not, x86-64,
// aarch64, WebAssembly) must print the same final hash: scripts/test_determinism compares them with golden.txt.
//
// Only the standard library, quadrant and support/quadrant_support/rng.hpp: it is cross-compiled and built with em++. Inputs come from splitmix64
// and are small integers times powers of two, so the session's own arithmetic is exact and no compiler or
// platform can change an input; std:: distributions are avoided (libstdc++ and libc++ differ).
//
//   session          one line per section, then "quadrant determinism: <hash>"
//   session -v       also each kind of call's hash and count within each section
#include <quadrant/aoi.hpp>
#include <quadrant/contacts.hpp>
#include <quadrant/layer_matrix.hpp>
#include <quadrant/quadrant.hpp>
#include <quadrant/streaming.hpp>
#include <quadrant_support/rng.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <deque>
#include <exception>
#include <limits>
#include <map>
#include <span>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace {

using namespace quadrant;

bool verbose = false;

using quadrant_support::Rng;  // splitmix64: the same numbers on every platform

// FNV-1a 64 over explicit little-endian bytes; floating-point values by their bit patterns.
struct Hash {
  std::uint64_t value = 0xcbf29ce484222325ull;
  std::uint64_t count = 0;  // calls hashed (for the -v breakdown)
  void byte(std::uint8_t b) {
    value ^= b;
    value *= 0x100000001b3ull;
  }
  void u32(std::uint32_t v) {
    for (int i = 0; i < 4; ++i) byte(static_cast<std::uint8_t>(v >> (8 * i)));
  }
  void u64(std::uint64_t v) {
    for (int i = 0; i < 8; ++i) byte(static_cast<std::uint8_t>(v >> (8 * i)));
  }
  // memcpy, not std::bit_cast: emscripten 3.1's libc++ lacks it.
  void num(float v) {
    std::uint32_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    u32(bits);
  }
  void num(double v) {
    std::uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    u64(bits);
  }
  void size(std::size_t v) { u64(static_cast<std::uint64_t>(v)); }
  void handle(Handle h) {
    u32(h.index());
    u32(h.generation());
  }
  template <int D, class S>
  void vec(const Vec<D, S>& v) {
    for (int i = 0; i < D; ++i) num(v[i]);
  }
  template <int D, class S>
  void box(const Box<D, S>& b) {
    vec(b.min);
    vec(b.max);
  }
  void query_stats(const QueryStats& s) {
    size(s.nodes_visited);
    size(s.box_tests);
    size(s.hits);
    byte(s.stopped ? 1 : 0);
  }
  void pair_stats(const PairStats& s) {
    size(s.nodes_visited);
    size(s.box_tests);
    size(s.pairs);
    byte(s.stopped ? 1 : 0);
  }
};

// A section's hashes, one per kind of call, kept in first-use order for the -v listing.
struct Section {
  explicit Section(std::string n) : name(std::move(n)) {}
  std::string name;
  std::deque<std::pair<std::string, Hash>> kinds;  // a deque: references to a kind outlive new kinds
  Hash& operator[](const char* kind) {
    for (auto& k : kinds)
      if (k.first == kind) return k.second;
    kinds.emplace_back(kind, Hash{});
    return kinds.back().second;
  }
  std::uint64_t total() const {
    Hash h;
    for (const auto& k : kinds) {
      for (char c : k.first) h.byte(static_cast<std::uint8_t>(c));
      h.u64(k.second.value);
    }
    return h.value;
  }
};

Hash session_hash;
std::map<std::string, std::uint64_t> totals;  // calls of each kind over the whole session

std::chrono::steady_clock::time_point section_start = std::chrono::steady_clock::now();

void finish(Section& s) {
  const std::uint64_t t = s.total();
  std::printf("%-34s %016llx", s.name.c_str(), static_cast<unsigned long long>(t));
  const auto now = std::chrono::steady_clock::now();
  if (verbose) std::printf("  %.3f s", std::chrono::duration<double>(now - section_start).count());
  section_start = now;
  std::printf("\n");
  if (verbose)
    for (const auto& k : s.kinds)
      std::printf("    %-28s %016llx  %llu calls\n", k.first.c_str(), static_cast<unsigned long long>(k.second.value),
                  static_cast<unsigned long long>(k.second.count));
  for (const auto& k : s.kinds) totals[k.first] += k.second.count;
  session_hash.u64(t);
}

// ---------------------------------------------------------------------------------------------------------------
// Trees.

// A tree over the cube [0, side] on every axis.
template <int D, class S>
Config<D, S> cube_config(S side, Placement placement) {
  Config<D, S> cfg;
  for (int i = 0; i < D; ++i) {
    cfg.world.min[i] = 0;
    cfg.world.max[i] = side;
  }
  cfg.placement = placement;
  return cfg;
}

// Coordinates are integers times `step` (a power of two), so every input is exact; the world is [0, 1024 units].
template <int D, class S>
struct Scene {
  Rng& rng;
  S unit;  // a power of two
  S step;  // unit / 8
  S far;   // a magnitude near the top of S's range, for objects and queries far outside the world

  S coord() { return static_cast<S>(rng.between(-64 * 8, 1088 * 8)) * step; }
  S length(int max_units) { return static_cast<S>(rng.between(0, max_units * 8)) * step; }
  Vec<D, S> point() {
    Vec<D, S> p{};
    for (int i = 0; i < D; ++i) p[i] = coord();
    return p;
  }
  // Points on the unit grid: where equal distances and equal ray fractions are made on purpose.
  Vec<D, S> grid_point() {
    Vec<D, S> p{};
    for (int i = 0; i < D; ++i) p[i] = static_cast<S>(rng.between(0, 1024)) * unit;
    return p;
  }
  Box<D, S> box() {
    Box<D, S> b{};
    const std::uint32_t kind = rng.below(100);
    if (kind < 4) {  // far outside the world, up to S's extremes
      for (int i = 0; i < D; ++i) {
        const S at = static_cast<S>(rng.between(-8, 8)) * far;
        b.min[i] = at;
        b.max[i] = at + static_cast<S>(rng.between(0, 4)) * far;
      }
      return b;
    }
    if (kind < 20) {  // unit cubes on the grid: ties in distance, ray fraction and pairs
      b.min = grid_point();
      for (int i = 0; i < D; ++i) b.max[i] = b.min[i] + unit;
      return b;
    }
    b.min = point();
    const bool degenerate = kind < 32;  // zero size on every axis, or on one
    const bool large = kind >= 97;
    for (int i = 0; i < D; ++i) {
      S len = large ? length(100) : length(12);
      if (degenerate && (kind < 26 || i == 0)) len = 0;
      b.max[i] = b.min[i] + len;
    }
    return b;
  }
  Box<D, S> moved(const Box<D, S>& b) {
    if (rng.chance(10)) return box();
    Box<D, S> m = b;
    for (int i = 0; i < D; ++i) {
      const S d = static_cast<S>(rng.between(-16, 16)) * step;
      m.min[i] += d;
      m.max[i] += d;
    }
    return m;
  }
  std::uint32_t layers() {
    static constexpr std::array<std::uint32_t, 4> masks{1u, 2u, 3u, ~0u};
    return masks[rng.below(4)];
  }
};

template <int D, class S>
using TreeOf = Tree<D, std::uint32_t, S>;

// Angles for the shapes that take one: fixed values (the library computes their sines and cosines).
template <class S>
S angle(Rng& rng) {
  static constexpr std::array<double, 8> angles{0.0, 0.5, 1.0, 1.5, 2.0, -0.75, 3.140625, 0.125};
  return static_cast<S>(angles[rng.below(8)]);
}

// Records a query: every hit (handle, value) in order, then the stats. Three in ten queries stop early.
template <int D, class S, class Shape>
void hash_query(const TreeOf<D, S>& tree, const Shape& shape, Rng& rng, Hash& h) {
  const std::uint32_t stop_after = rng.chance(30) ? rng.below(4) : ~0u;
  const std::uint32_t layers = rng.chance(20) ? 1u : ~0u;
  std::uint32_t seen = 0;
  const QueryStats st = tree.query(
      shape,
      [&](Handle hd, const std::uint32_t& v) {
        h.handle(hd);
        h.u32(v);
        return ++seen <= stop_after;
      },
      layers);
  h.query_stats(st);
  ++h.count;
}

template <class S>
Frustum<S> make_frustum(Scene<3, S>& sc, bool& ok) {
  // A perspective or orthographic projection, times a shear that tilts the view,
  // times a translation to a point of the scene: every entry a short dyadic fraction, so the product is exact.
  const double u = static_cast<double>(sc.unit);
  std::array<double, 16> proj{};
  if (sc.rng.chance(50)) {
    // 90 degrees wide, near plane n, far plane at infinity.
    const double n = u * sc.rng.between(1, 4);
    proj = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, -1, -1, 0, 0, -2 * n, 0};
  } else {
    const double half = u * 64 * (1 << sc.rng.below(3));
    proj = {1 / half, 0, 0, 0, 0, 1 / half, 0, 0, 0, 0, -1 / half, 0, 0, 0, 0, 1};
  }
  const double shear = 0.25 * sc.rng.between(-2, 2);
  std::array<double, 16> view = {1, -shear, 0, 0, shear, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};  // column-major
  const Vec<3, S> at = sc.grid_point();
  view[12] = -static_cast<double>(at.x);
  view[13] = -static_cast<double>(at.y);
  view[14] = -static_cast<double>(at.z);
  std::array<S, 16> m{};
  for (int c = 0; c < 4; ++c)
    for (int r = 0; r < 4; ++r) {
      double sum = 0;
      for (int k = 0; k < 4; ++k) sum += proj[4 * k + r] * view[4 * c + k];
      m[4 * c + r] = static_cast<S>(sum);
    }
  try {
    ok = true;
    return Frustum<S>::from_view_projection(m, sc.rng.chance(50) ? ClipDepth::MinusOneToOne : ClipDepth::ZeroToOne);
  } catch (const std::invalid_argument&) {
    ok = false;
    return Frustum<S>::from_view_projection(std::array<S, 16>{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1});
  }
}

template <class S>
void shape_queries(const TreeOf<2, S>& tree, Scene<2, S>& sc, int count, Section& sec) {
  Rng& rng = sc.rng;
  for (int i = 0; i < count; ++i) {
    const Vec<2, S> c = rng.chance(50) ? sc.point() : sc.grid_point();
    const S r = sc.length(24);
    switch (i % 9) {
      case 0: {
        Box<2, S> b{c, c};
        b.max.x += sc.length(24);
        b.max.y += sc.length(24);
        hash_query(tree, b, rng, sec["query box"]);
        break;
      }
      case 1: hash_query(tree, c, rng, sec["query point"]); break;
      case 2: hash_query(tree, Circle<S>{c, r}, rng, sec["query circle"]); break;
      case 3: hash_query(tree, Ring<S>{c, r / 2, r}, rng, sec["query ring"]); break;
      case 4: hash_query(tree, Ellipse<S>{c, {r, sc.length(12)}, angle<S>(rng)}, rng, sec["query ellipse"]); break;
      case 5: {
        const Vec<2, S> dir{static_cast<S>(rng.between(-3, 3)), static_cast<S>(rng.between(1, 3))};
        const S half = static_cast<S>(0.25 * rng.between(0, 12));
        hash_query(tree, Sector<S>{c, dir, r, half}, rng, sec["query sector"]);
        break;
      }
      case 6: hash_query(tree, OrientedBox<S>{c, {r, sc.length(8)}, angle<S>(rng)}, rng, sec["query oriented box"]); break;
      case 7: {
        const S a = sc.length(16) + sc.step, b = sc.length(16) + sc.step, d = sc.length(16) + sc.step;
        std::vector<Vec<2, S>> v{{c.x - a, c.y}, {c.x, c.y - b}, {c.x + d, c.y}};
        if (rng.chance(50)) v.push_back({c.x, c.y + a});
        try {
          hash_query(tree, ConvexPolygon<S>(v), rng, sec["query polygon"]);
        } catch (const std::invalid_argument& e) {
          // Refused the same way everywhere, should the edge normals overflow.
          for (const char* m = e.what(); *m != 0; ++m) sec["query polygon"].byte(static_cast<std::uint8_t>(*m));
        }
        break;
      }
      default: {
        const Vec<2, S> e = rng.chance(50) ? sc.point() : Vec<2, S>{c.x + sc.length(40), c.y};
        hash_query(tree, Segment<2, S>{c, e}, rng, sec["query segment"]);
        break;
      }
    }
  }
}

template <class S>
void shape_queries(const TreeOf<3, S>& tree, Scene<3, S>& sc, int count, Section& sec) {
  Rng& rng = sc.rng;
  for (int i = 0; i < count; ++i) {
    const Vec<3, S> c = rng.chance(50) ? sc.point() : sc.grid_point();
    switch (i % 5) {
      case 0: {
        Box<3, S> b{c, c};
        for (int k = 0; k < 3; ++k) b.max[k] += sc.length(24);
        hash_query(tree, b, rng, sec["query box"]);
        break;
      }
      case 1: hash_query(tree, c, rng, sec["query point"]); break;
      case 2: hash_query(tree, Sphere<S>{c, sc.length(24)}, rng, sec["query sphere"]); break;
      case 3: {
        const Vec<3, S> e = rng.chance(50) ? sc.point() : Vec<3, S>{c.x, c.y + sc.length(40), c.z};
        hash_query(tree, Segment<3, S>{c, e}, rng, sec["query segment"]);
        break;
      }
      default: {
        bool ok = true;
        const Frustum<S> f = make_frustum(sc, ok);
        sec["query frustum"].byte(ok ? 1 : 0);
        hash_query(tree, f, rng, sec["query frustum"]);
        break;
      }
    }
  }
}

template <int D, class S>
void hash_node(const NodeView<D, S>& n, Hash& h) {
  h.u32(n.id);
  h.u32(n.parent);
  h.u32(static_cast<std::uint32_t>(n.depth));
  h.byte(n.leaf ? 1 : 0);
  h.box(n.cell);
  h.box(n.bounds);
  h.size(n.count);
  h.u32(n.layers);
}

// One tree through every kind of call. `rounds` sets the amount; objects stay around 1,500.
template <int D, class S>
void tree_session(Placement placement, int exponent, std::uint64_t seed, int rounds, Section& sec) {
  Rng rng{seed};
  const S unit = std::ldexp(S(1), exponent);
  const int far_exponent = std::numeric_limits<S>::max_exponent - 8;
  Scene<D, S> sc{rng, unit, unit / 8, std::ldexp(S(1), far_exponent)};
  Config<D, S> cfg;
  for (int i = 0; i < D; ++i) {
    cfg.world.min[i] = 0;
    cfg.world.max[i] = 1024 * unit;
  }
  cfg.max_depth = 7;
  cfg.split_threshold = 6;
  cfg.placement = placement;
  TreeOf<D, S> tree(cfg);

  // A second, static tree for the pairs between two trees.
  TreeOf<D, S> statics(cfg);
  // Every draw from the generator is a statement of its own: the order of a call's arguments is unspecified, and
  // differs between compilers and targets.
  for (std::uint32_t i = 0; i < 300; ++i) {
    const Box<D, S> b = sc.box();
    statics.insert(b, i, sc.layers());
  }

  std::vector<Handle> live;
  std::uint32_t next_value = 0;
  auto assign_from = [&](std::vector<std::tuple<Box<D, S>, std::uint32_t, std::uint32_t>> items) {
    Hash& h = sec["assign"];
    tree.assign(items, live);
    for (Handle hd : live) h.handle(hd);
    h.count += items.size();
  };
  {
    std::vector<std::tuple<Box<D, S>, std::uint32_t, std::uint32_t>> items;
    for (int i = 0; i < 1200; ++i) {
      const Box<D, S> b = (i > 0 && rng.chance(8)) ? std::get<0>(items[rng.below(static_cast<std::uint32_t>(i))])
                                                   : sc.box();
      items.emplace_back(b, next_value++, sc.layers());
    }
    assign_from(std::move(items));
  }

  std::vector<std::pair<Handle, Handle>> out, out_threads;
  std::vector<Neighbor<S>> near;
  for (int round = 0; round < rounds; ++round) {
    // Inserts (an eighth of them duplicates of a live box: equal keys everywhere), erases, moves.
    {
      Hash& h = sec["insert"];
      for (int i = 0; i < 700; ++i) {
        const Box<D, S> b = (!live.empty() && rng.chance(12))
                                ? tree.bounds(live[rng.below(static_cast<std::uint32_t>(live.size()))])
                                : sc.box();
        const Handle hd = tree.insert(b, next_value++, sc.layers());
        live.push_back(hd);
        h.handle(hd);
        ++h.count;
      }
    }
    {
      Hash& h = sec["erase"];
      for (int i = 0; i < 700 && !live.empty(); ++i) {
        const std::uint32_t k = rng.below(static_cast<std::uint32_t>(live.size()));
        h.handle(live[k]);
        tree.erase(live[k]);
        live[k] = live.back();
        live.pop_back();
        ++h.count;
      }
    }
    {
      Hash& h = sec["move"];
      for (int i = 0; i < 700; ++i) {
        const Handle hd = live[rng.below(static_cast<std::uint32_t>(live.size()))];
        h.byte(tree.move(hd, sc.moved(tree.bounds(hd))) ? 1 : 0);
        ++h.count;
      }
    }
    {
      // Batch moves: every live object, in handle order or shuffled, sometimes listing one twice.
      Hash& h = sec["batch move"];
      std::vector<Handle> hs = live;
      if (rng.chance(50))
        for (std::size_t i = hs.size(); i > 1; --i) std::swap(hs[i - 1], hs[rng.below(static_cast<std::uint32_t>(i))]);
      if (rng.chance(20)) hs.push_back(hs.front());
      std::vector<Box<D, S>> boxes;
      for (Handle hd : hs) boxes.push_back(sc.moved(tree.bounds(hd)));
      h.size(tree.move(hs, boxes));
      h.count += hs.size();
      for (Handle hd : live) h.box(tree.bounds(hd));
    }
    if (round == rounds / 2) {
      // Rebuild over a larger world, then assign everything again (new handles).
      Box<D, S> w = cfg.world;
      for (int i = 0; i < D; ++i) w.min[i] -= 64 * unit;
      tree.rebuild(w);
      Hash& h = sec["rebuild"];
      for (Handle hd : live) h.handle(hd);
      ++h.count;
      std::vector<std::tuple<Box<D, S>, std::uint32_t, std::uint32_t>> items;
      for (Handle hd : live) items.emplace_back(tree.bounds(hd), tree.value(hd), tree.layers(hd));
      assign_from(std::move(items));
    }

    shape_queries(tree, sc, D == 2 ? 9 * 120 : 5 * 120, sec);

    {
      // Pairs: in the walk's order; through a layer matrix; ordered output at 1, 2 and 4 threads; the concurrent
      // form, sorted; between two trees.
      Hash& h = sec["pairs"];
      PairStats st = tree.for_each_pair([&](Handle a, Handle b) {
        h.handle(a);
        h.handle(b);
        ++h.count;
      });
      h.pair_stats(st);
      LayerMatrix m;
      m.set(0, 1);
      m.set(1, 1);
      Hash& hm = sec["pairs matrix"];
      st = tree.for_each_pair(
          [&](Handle a, Handle b) {
            hm.handle(a);
            hm.handle(b);
            ++hm.count;
          },
          m);
      hm.pair_stats(st);
      for (unsigned threads : {1u, 2u, 4u}) {
        Hash& hp = sec["pairs ordered"];
        st = tree.pairs(out, threads, round % 2 == 0 ? ~0u : 2u);
        for (const auto& [a, b] : out) {
          hp.handle(a);
          hp.handle(b);
        }
        hp.count += out.size();
        hp.size(st.pairs);
      }
      std::vector<std::vector<std::pair<Handle, Handle>>> per_worker(2);
      tree.for_each_pair_parallel([&](unsigned w, Handle a, Handle b) { per_worker[w].emplace_back(a, b); }, 2);
      out_threads.clear();
      for (auto& v : per_worker)
        for (auto [a, b] : v) out_threads.emplace_back(a.index() < b.index() ? std::pair{a, b} : std::pair{b, a});
      std::sort(out_threads.begin(), out_threads.end(), [](const auto& x, const auto& y) {
        return std::pair{x.first.index(), x.second.index()} < std::pair{y.first.index(), y.second.index()};
      });
      Hash& hu = sec["pairs concurrent (sorted)"];
      for (const auto& [a, b] : out_threads) {
        hu.handle(a);
        hu.handle(b);
      }
      hu.count += out_threads.size();
      Hash& h2 = sec["pairs two trees"];
      st = for_each_pair(statics, tree, [&](Handle a, Handle b) {
        h2.handle(a);
        h2.handle(b);
        ++h2.count;
      });
      h2.pair_stats(st);
    }

    {
      // Nearest: k-nearest and incremental, at grid points (ties) and anywhere, some bounded by a distance.
      Hash& h = sec["nearest"];
      Hash& hi = sec["for_each_nearest"];
      for (int i = 0; i < 700; ++i) {
        const Vec<D, S> p = rng.chance(60) ? sc.grid_point() : sc.point();
        const S max_d = rng.chance(30) ? sc.length(40) : std::numeric_limits<S>::infinity();
        const std::uint32_t layers = rng.chance(20) ? 2u : ~0u;
        tree.nearest(p, 1 + rng.below(8), near, max_d, layers);
        for (const Neighbor<S>& n : near) {
          h.handle(n.handle);
          h.num(n.distance);
        }
        h.size(near.size());
        ++h.count;
        const std::uint32_t want = 1 + rng.below(12);
        std::uint32_t got = 0;
        const QueryStats st = tree.for_each_nearest(
            p,
            [&](Handle hd, const std::uint32_t& v, S d) {
              hi.handle(hd);
              hi.u32(v);
              hi.num(d);
              return ++got < want;
            },
            max_d, layers);
        hi.query_stats(st);
        ++hi.count;
      }
    }
    {
      // Ray casts: along the grid (equal fractions among unit cubes and duplicates) and anywhere.
      Hash& h = sec["raycast"];
      for (int i = 0; i < 700; ++i) {
        Vec<D, S> a = rng.chance(60) ? sc.grid_point() : sc.point();
        Vec<D, S> b = a;
        if (rng.chance(60)) {
          const int axis = static_cast<int>(rng.below(D));
          b[axis] += static_cast<S>(rng.between(-60, 60)) * unit;
        } else {
          b = sc.point();
        }
        const std::uint32_t want = rng.chance(30) ? 1 : 64;
        std::uint32_t got = 0;
        const QueryStats st = tree.raycast(Segment<D, S>{a, b}, [&](Handle hd, const std::uint32_t& v, S t) {
          h.handle(hd);
          h.u32(v);
          h.num(t);
          return ++got < want;
        });
        h.query_stats(st);
        ++h.count;
      }
    }
    {
      // Node walks: cells a shape touches, the leaf holding a point, the whole tree.
      Hash& hq = sec["query_nodes"];
      Hash& hl = sec["locate"];
      for (int i = 0; i < 700; ++i) {
        Box<D, S> b{sc.point(), {}};
        for (int k = 0; k < D; ++k) b.max[k] = b.min[k] + sc.length(60);
        tree.query_nodes(b, [&](const NodeView<D, S>& n) { hash_node(n, hq); }, rng.chance(50));
        ++hq.count;
        Vec<D, S> p{};
        for (int k = 0; k < D; ++k) p[k] = static_cast<S>(rng.between(0, 1024 * 8)) * sc.step;
        hash_node(tree.locate(p), hl);
        ++hl.count;
      }
      Hash& hn = sec["for_each_node"];
      tree.for_each_node([&](const NodeView<D, S>& n) {
        hash_node(n, hn);
        ++hn.count;
        for (const auto& e : n.items) {
          hn.handle(e.handle);
          hn.box(e.box);
        }
      });
      const Stats s = tree.stats();
      hn.size(s.nodes);
      hn.size(s.objects);
      hn.u32(static_cast<std::uint32_t>(s.depth));
    }
  }
  tree.validate();
}

// Batch moves on threads: a tree large enough for the moves to be shared (32,768 objects a thread and more).
template <int D, class S>
void batch_threads_session(Placement placement, std::uint64_t seed, Section& sec) {
  Rng rng{seed};
  Scene<D, S> sc{rng, S(1), S(0.125), S(1)};
  Config<D, S> cfg = cube_config<D, S>(1024, placement);
  cfg.split_threshold = 16;
  TreeOf<D, S> tree(cfg);
  std::vector<std::pair<Box<D, S>, std::uint32_t>> items;
  for (std::uint32_t i = 0; i < 66000; ++i) {
    Box<D, S> b{sc.point(), {}};
    for (int k = 0; k < D; ++k) b.max[k] = b.min[k] + sc.length(2);
    items.emplace_back(b, i);
  }
  const std::vector<Handle> handles = tree.assign(items);
  std::vector<Box<D, S>> boxes(handles.size());
  Hash& h = sec["batch move threads"];
  for (std::size_t i = 0; i < handles.size(); ++i) boxes[i] = sc.moved(tree.bounds(handles[i]));
  h.size(tree.move(handles, boxes, 2u));
  h.count += handles.size();
  for (int i = 0; i < 200; ++i) {
    Box<D, S> q{sc.point(), {}};
    for (int k = 0; k < D; ++k) q.max[k] = q.min[k] + sc.length(20);
    hash_query(tree, q, rng, h);
  }
  std::vector<std::pair<Handle, Handle>> out;
  const PairStats st = tree.pairs(out, 4);
  for (const auto& [a, b] : out) {
    h.handle(a);
    h.handle(b);
  }
  h.pair_stats(st);
}

// ---------------------------------------------------------------------------------------------------------------
// Systems.

template <int D, class S>
void contacts_session(Placement placement, std::uint64_t seed, Section& sec) {
  Rng rng{seed};
  Scene<D, S> sc{rng, S(1), S(0.125), S(1)};
  Config<D, S> cfg = cube_config<D, S>(128, placement);
  TreeOf<D, S> tree(cfg);
  std::vector<Handle> live;
  auto small_box = [&] {
    Box<D, S> b{};
    for (int k = 0; k < D; ++k) {
      b.min[k] = static_cast<S>(rng.between(0, 128 * 8)) * sc.step;
      b.max[k] = b.min[k] + static_cast<S>(rng.between(0, 24)) * sc.step;
    }
    return b;
  };
  for (std::uint32_t i = 0; i < 800; ++i) {
    const Box<D, S> b = small_box();
    live.push_back(tree.insert(b, i, sc.layers()));
  }
  ContactTracker<D, std::uint32_t, S> all, matrix;
  LayerMatrix m = LayerMatrix::between(1u, ~0u);
  Hash& h = sec["contacts"];
  auto hash_list = [&](std::span<const Contact> list) {
    h.size(list.size());
    for (const Contact& c : list) {
      h.handle(c.a);
      h.handle(c.b);
    }
    h.count += list.size();
  };
  for (int step = 0; step < 56; ++step) {
    for (int i = 0; i < 200; ++i) {
      const Handle hd = live[rng.below(static_cast<std::uint32_t>(live.size()))];
      tree.move(hd, sc.moved(tree.bounds(hd)));
    }
    for (int i = 0; i < 10; ++i) {
      const std::uint32_t k = rng.below(static_cast<std::uint32_t>(live.size()));
      tree.erase(live[k]);
      const Box<D, S> b = small_box();
      live[k] = tree.insert(b, 1000u + static_cast<std::uint32_t>(step * 10 + i), sc.layers());
    }
    all.update(tree, step % 3 == 0 ? 1u : ~0u);
    matrix.update(tree, m);
    for (auto* t : {&all, &matrix}) {
      hash_list(t->begun());
      hash_list(t->ended());
      hash_list(t->contacts());
    }
  }
}

template <class S>
void aoi_session(std::uint64_t seed, Section& sec) {
  Rng rng{seed};
  AoiSettings<S> settings;
  settings.world = {{0, 0}, {2048, 2048}};
  settings.hysteresis = 4;
  AoiWorld<S> world(settings);
  auto pos = [&] { return Vec<2, S>{static_cast<S>(rng.between(0, 2048 * 4)) / 4, static_cast<S>(rng.between(0, 2048 * 4)) / 4}; };
  std::vector<std::uint64_t> ids;
  std::uint64_t next_id = 1;
  static constexpr std::array<AoiMode, 3> modes{AoiMode::Watcher, AoiMode::Marker, AoiMode::Both};
  for (int i = 0; i < 1500; ++i) {
    // Ids far apart and out of order: the events' order must follow them, not the slots.
    const std::uint64_t id = (next_id++ * 0x9e3779b97f4a7c15ull) >> 8;
    const Vec<2, S> p = pos();
    const auto radius = static_cast<S>(rng.between(0, 120));
    const AoiMode mode = modes[rng.below(3)];
    const std::uint32_t layers = rng.chance(80) ? ~0u : 2u;
    world.add(id, p, radius, mode, layers, static_cast<S>(rng.between(0, 4)));
    ids.push_back(id);
  }
  Hash& h = sec["aoi events"];
  Hash& hq = sec["aoi queries"];
  auto on_event = [&](const AoiEvent& e) {
    h.byte(static_cast<std::uint8_t>(e.kind));
    h.u64(e.watcher);
    h.u64(e.target);
    ++h.count;
  };
  world.tick(on_event);
  for (int tick = 0; tick < 220; ++tick) {
    for (int i = 0; i < 400; ++i) {
      const std::uint64_t id = ids[rng.below(static_cast<std::uint32_t>(ids.size()))];
      const Vec<2, S> p = world.position(id);
      Vec<2, S> np{p.x + static_cast<S>(rng.between(-24, 24)) / 4, p.y + static_cast<S>(rng.between(-24, 24)) / 4};
      if (rng.chance(3)) np = pos();
      world.move(id, np);
    }
    for (int i = 0; i < 10; ++i) {
      const std::uint32_t k = rng.below(static_cast<std::uint32_t>(ids.size()));
      if (rng.chance(50)) world.set_view_radius(ids[k], static_cast<S>(rng.between(0, 150)));
      if (rng.chance(30)) world.set_layers(ids[k], rng.chance(50) ? 1u : ~0u);
      if (rng.chance(30)) {
        world.remove(ids[k]);
        const std::uint64_t id = (next_id++ * 0x9e3779b97f4a7c15ull) >> 8;
        const Vec<2, S> p = pos();
        const auto radius = static_cast<S>(rng.between(0, 120));
        world.add(id, p, radius, modes[rng.below(3)]);
        ids[k] = id;
      }
    }
    world.tick(on_event);
    h.size(world.pair_count());
    for (int i = 0; i < 40; ++i) {
      const std::uint64_t id = ids[rng.below(static_cast<std::uint32_t>(ids.size()))];
      if (!world.contains(id)) continue;
      auto record = [&](std::uint64_t other) { hq.u64(other); };
      world.for_each_visible(id, record);
      world.for_each_watcher(id, record);
      const Vec<2, S> c = pos();
      world.query(Circle<S>{c, static_cast<S>(rng.between(0, 100))}, record);
      world.query(Sector<S>{c, {1, static_cast<S>(rng.between(-2, 2))}, 80, static_cast<S>(0.5)}, record, 1u);
      hq.count += 4;
    }
  }
  world.validate();
}

template <class S>
void streamer_session(std::uint64_t seed, Section& sec) {
  Rng rng{seed};
  StreamerConfig<S> cfg;
  cfg.tree.world = {{0, 0, 0}, {1024, 1024, 1024}};
  cfg.tree.placement = seed % 2 == 0 ? Placement::Loose : Placement::Leaves;
  cfg.unload_margin = 8;
  cfg.max_loads_per_update = 24;
  cfg.max_loads_in_flight = 80;
  Streamer<S> streamer(cfg);
  Scene<3, S> sc{rng, S(1), S(0.125), S(1)};
  std::vector<std::uint64_t> ids;
  for (std::uint64_t i = 0; i < 3000; ++i) {
    // Unit cubes on a grid in part: equal distances, so the loads' order rests on the tie rule (by id).
    Box<3, S> b = sc.box();
    if (rng.chance(30)) b = {sc.grid_point(), {}}, b.max = {b.min.x + 1, b.min.y + 1, b.min.z + 1};
    const std::uint64_t id = (i * 0x9e3779b97f4a7c15ull) >> 4;
    streamer.add(id, b);
    ids.push_back(id);
  }
  Hash& h = sec["streamer"];
  std::vector<std::uint64_t> loading;
  for (int frame = 0; frame < 400; ++frame) {
    std::vector<StreamingSource<S>> sources(1 + rng.below(2));
    for (auto& src : sources) {
      src.position = sc.grid_point();
      src.prefetch_radius = static_cast<S>(rng.between(0, 64));
      if (rng.chance(60)) {
        bool ok = true;
        src.frustum = make_frustum(sc, ok);
      }
    }
    const StreamUpdate<S>& u = streamer.update(sources);
    for (const auto& l : u.loads) {
      h.u64(l.id);
      h.num(l.distance);
      loading.push_back(l.id);
    }
    for (auto id : u.unloads) h.u64(id);
    for (auto id : u.cancels) h.u64(id);
    h.size(u.stats.queued);
    h.size(u.stats.loading);
    h.size(u.stats.loaded);
    h.count += u.loads.size() + u.unloads.size() + u.cancels.size() + 1;
    // Finish most loads, fail a few, move and replace some objects.
    std::vector<std::uint64_t> still;
    for (auto id : loading) {
      if (!streamer.contains(id)) continue;
      const std::uint32_t r = rng.below(10);
      if (r < 6) h.byte(streamer.mark_loaded(id) ? 1 : 0);
      else if (r < 7) h.byte(streamer.mark_failed(id) ? 1 : 0);
      else still.push_back(id);
    }
    loading.swap(still);
    for (int i = 0; i < 150; ++i) {
      const std::uint64_t id = ids[rng.below(static_cast<std::uint32_t>(ids.size()))];
      streamer.move(id, sc.moved(streamer.bounds(id)));
    }
    h.count += 150;
    for (int i = 0; i < 5; ++i) {
      const std::uint32_t k = rng.below(static_cast<std::uint32_t>(ids.size()));
      h.byte(static_cast<std::uint8_t>(streamer.remove(ids[k])));
      ids[k] = ids[k] ^ 0x5a5a5a5a00000000ull;
      if (streamer.contains(ids[k])) ids[k] += 1;
      streamer.add(ids[k], sc.box());
    }
  }
  streamer.for_each([&](std::uint64_t id, const Box<3, S>& b, StreamState s) {
    h.u64(id);
    h.box(b);
    h.byte(static_cast<std::uint8_t>(s));
  });
  streamer.validate();
}

template <int D, class S>
void trees(const char* label, std::uint64_t seed) {
  // The extreme worlds: unit 2^50 (float: the world's side is 2^60) and 2^480 (double: 2^490), as large as a
  // convex polygon's edge normals allow; objects farther out, up to 2^120 and 2^1016, are in every world.
  const int extreme = std::is_same_v<S, float> ? 50 : 480;
  for (Placement p : {Placement::Loose, Placement::Parent, Placement::Leaves}) {
    for (int e : {0, extreme}) {
      Section sec{std::string(label) + " " + to_string(p) + (e == 0 ? "" : " extreme")};
      tree_session<D, S>(p, e, seed++, e == 0 ? 9 : 3, sec);
      finish(sec);
    }
    Section sys{std::string(label) + " " + to_string(p) + " systems"};
    // One large batch on threads (2D float, Loose): the session's slowest part.
    if (p == Placement::Loose && D == 2 && std::is_same_v<S, float>) batch_threads_session<D, S>(p, seed, sys);
    ++seed;
    contacts_session<D, S>(p, seed++, sys);
    finish(sys);
  }
}

}  // namespace

int main(int argc, char** argv) {
  verbose = argc > 1 && std::strcmp(argv[1], "-v") == 0;
  try {
    trees<2, float>("2D float", 1000);
    trees<2, double>("2D double", 2000);
    trees<3, float>("3D float", 3000);
    trees<3, double>("3D double", 4000);
    for (std::uint64_t seed : {5000u, 5001u}) {
      Section a{seed == 5000 ? "aoi float" : "aoi double"};
      if (seed == 5000) aoi_session<float>(seed, a);
      else aoi_session<double>(seed, a);
      finish(a);
      Section s{seed == 5000 ? "streamer float" : "streamer double"};
      if (seed == 5000) streamer_session<float>(seed, s);
      else streamer_session<double>(seed, s);
      finish(s);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "quadrant determinism: session failed: %s\n", e.what());
    return 1;
  }
  if (verbose) {
    std::printf("calls of each kind:\n");
    for (const auto& [kind, n] : totals) std::printf("    %-28s %llu\n", kind.c_str(), static_cast<unsigned long long>(n));
  }
  std::printf("quadrant determinism: %016llx\n", static_cast<unsigned long long>(session_hash.value));
  return 0;
}

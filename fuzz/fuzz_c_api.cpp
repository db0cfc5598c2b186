// SPDX-License-Identifier: MIT
// Fuzz target: the C API (include/quadrant/c/quadrant.h, bindings/c) driven by a byte stream against a model built
// on the C++ API and kept in step with it. The input is a sequence of up to 200 C calls on up to three trees (2D or
// 3D, float or double, every placement, small worlds and valid or bad configs), one area-of-interest world, one
// streamer, one contact tracker and one layer matrix. Arguments are drawn from a half-unit lattice (so a float
// index rounds nothing) with now and then a special value: NaN, infinities, 1e39 (beyond float: refused by float
// indexes only), 1e151 (beyond the world's 1e150), 1e300, FLT_MAX, -0 and 1e-300; handles live in the tree, of
// another tree, stale, of a destroyed tree, 0, random, or live with a bit flipped; sizes and capacities 0, small
// or SIZE_MAX; NULL where the API takes it (an optional output) and where it refuses it; input arrays are heap
// blocks of exactly the documented length and output arrays of exactly the capacity (AddressSanitizer sees a read
// or write past either).
//
// The model is the header's contract over the C++ types: a double becomes S by rounding, a finite value beyond
// float's range is refused by a float index, a shape reads only the fields listed beside its kind, a handle is
// (generation + the tree's key) << 32 | (slot + 1), and each call succeeds exactly when the C++ call on the
// converted arguments does (std::invalid_argument: QUADRANT_INVALID_ARGUMENT; std::logic_error:
// QUADRANT_LOGIC_ERROR). Checked for every call: the status equals the model's (a failing one leaves a message);
// every handle the C API hands out equals the model's object's handle; query, pair, cross-pair, ray, nearest,
// node and contact results equal the model's in the C++ order (which the C API promises), filled up to the
// capacity with the full count; after every tree mutation validate() passes and the size agrees, and after a
// failing one (and now and then after a good one) every object's presence, box, value and layers agree (so a
// refused call changed nothing); a live handle of another tree is refused. Callbacks (query, pairs, filtered
// pairs, cross pairs, ray, node walks) that stop early or not, and that try a mutation of the walked tree (every
// mutating call, set_value included: QUADRANT_LOGIC_ERROR and nothing changed), query it again (arrays, or a
// nested walk whose own callback tries a mutation and may destroy the tree), read it, mutate another tree, or
// destroy the walked tree (freed when the walk returns: LeakSanitizer and AddressSanitizer check): what each
// callback was handed equals the model's walk. The world and the streamer: after every call contains and size (and
// after a tick every id's position, visible and watcher lists, pair_count and validate()) agree; a tick's events
// and an update's loads, unloads, cancels and stats equal the model's; and the arrays the last successful tick or
// update handed out still hold what they held, whatever failed since (move_many checked whole first, a refused
// update).
#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <array>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <variant>
#include <vector>

#include <quadrant/aoi.hpp>
#include <quadrant/quadrant.hpp>
#include <quadrant/streaming.hpp>

#include "fuzz_check.hpp"
#include "quadrant/c/quadrant.h"

namespace {

using namespace quadrant;
using u64 = std::uint64_t;
using u32 = std::uint32_t;

#define CHECK(cond, what) QUADRANT_FUZZ_CHECK(cond, what)

constexpr int kTrees = 3;
constexpr std::size_t kMaxObjects = 64;  // per tree
constexpr int kMaxOps = 200;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kFloatMax = static_cast<double>(std::numeric_limits<float>::max());
constexpr std::size_t kHuge = SIZE_MAX;

// Ids of the world's entities and the streamer's objects: a few scattered 64-bit values, and 0 and the largest.
constexpr int kIds = 24;
using Ids = quadrant_fuzz::ScrambledIds<kIds, 0x9E3779B97F4A7C15ull>;
constexpr std::array<u64, kIds + 2> all_ids() {
  std::array<u64, kIds + 2> ids{};
  for (int i = 0; i < kIds; ++i) ids[static_cast<std::size_t>(i)] = Ids::id_of(i);
  ids[kIds] = 0;
  ids[kIds + 1] = ~u64{0};
  return ids;
}
constexpr std::array<u64, kIds + 2> kAllIds = all_ids();

u64 bits(double d) {
  u64 b;
  std::memcpy(&b, &d, sizeof b);
  return b;
}

// ---- the model of the C layer's conversions (the header's contract) ----

[[noreturn]] void refuse() { throw std::invalid_argument("quadrant fuzz model: refused"); }

// The status the C API must return for a call the model makes.
template <class Call>
quadrant_status model(Call&& call) {
  try {
    call();
    return QUADRANT_OK;
  } catch (const std::invalid_argument&) {
    return QUADRANT_INVALID_ARGUMENT;
  } catch (const std::length_error&) {
    return QUADRANT_OUT_OF_MEMORY;
  } catch (const std::logic_error&) {
    return QUADRANT_LOGIC_ERROR;
  } catch (const std::bad_alloc&) {
    return QUADRANT_OUT_OF_MEMORY;
  }
}

// A double as S: rounded; a finite value beyond float's range has no float and is refused.
template <class S>
S to_scalar(double v) {
  if constexpr (std::is_same_v<S, float>)
    if (std::isfinite(v) && std::fabs(v) > kFloatMax) refuse();
  return static_cast<S>(v);
}
template <int D, class S>
Vec<D, S> to_vec(const double* p) {
  if (p == nullptr) refuse();
  Vec<D, S> v{};
  for (int i = 0; i < D; ++i) v[i] = to_scalar<S>(p[i]);
  return v;
}
template <int D, class S>
Box<D, S> to_box(const double* lo, const double* hi) {
  const Vec<D, S> a = to_vec<D, S>(lo);
  return Box<D, S>{a, to_vec<D, S>(hi)};
}
template <class S>
Frustum<S> to_frustum(const double* m16, int row_major, int clip_zero_to_one) {
  if (m16 == nullptr) refuse();
  S m[16];
  for (int i = 0; i < 16; ++i) m[i] = to_scalar<S>(m16[i]);
  return Frustum<S>::from_view_projection(m, row_major != 0 ? MatrixLayout::RowMajor : MatrixLayout::ColumnMajor,
                                          clip_zero_to_one != 0 ? ClipDepth::ZeroToOne : ClipDepth::MinusOneToOne);
}

// Calls run(shape) with the C++ shape the C shape describes, reading only the fields the header lists for its kind.
template <int D, class S, class Run>
void with_shape(const quadrant_shape& s, Run&& run) {
  using V2 = Vec<2, S>;
  switch (static_cast<int>(s.kind)) {
    case QUADRANT_SHAPE_BOX: run(to_box<D, S>(s.a, s.b)); return;
    case QUADRANT_SHAPE_POINT: run(to_vec<D, S>(s.a)); return;
    case QUADRANT_SHAPE_BALL:
      if constexpr (D == 2) run(Circle<S>{to_vec<2, S>(s.a), to_scalar<S>(s.r0)});
      else run(Sphere<S>{to_vec<3, S>(s.a), to_scalar<S>(s.r0)});
      return;
    case QUADRANT_SHAPE_SEGMENT: run(Segment<D, S>{to_vec<D, S>(s.a), to_vec<D, S>(s.b)}); return;
    case QUADRANT_SHAPE_FRUSTUM:
      if constexpr (D == 3) {
        if (s.points == nullptr || s.count != 16) refuse();
        run(to_frustum<S>(s.points, s.matrix_row_major, s.clip_zero_to_one));
        return;
      }
      break;
    case QUADRANT_SHAPE_RING:
      if constexpr (D == 2) {
        const V2 c = to_vec<2, S>(s.a);
        const S inner = to_scalar<S>(s.r0);
        run(Ring<S>{c, inner, to_scalar<S>(s.r1)});
        return;
      }
      break;
    case QUADRANT_SHAPE_ELLIPSE:
    case QUADRANT_SHAPE_ORIENTED_BOX:
      if constexpr (D == 2) {
        const V2 c = to_vec<2, S>(s.a);
        const V2 r{to_scalar<S>(s.r0), to_scalar<S>(s.r1)};
        const S angle = to_scalar<S>(s.angle);
        if (static_cast<int>(s.kind) == QUADRANT_SHAPE_ELLIPSE) run(Ellipse<S>{c, r, angle});
        else run(OrientedBox<S>{c, r, angle});
        return;
      }
      break;
    case QUADRANT_SHAPE_SECTOR:
      if constexpr (D == 2) {
        const V2 apex = to_vec<2, S>(s.a), dir = to_vec<2, S>(s.b);
        const S r = to_scalar<S>(s.r0);
        run(Sector<S>{apex, dir, r, to_scalar<S>(s.angle)});
        return;
      }
      break;
    case QUADRANT_SHAPE_POLYGON:
      if constexpr (D == 2) {
        if (s.points == nullptr && s.count != 0) refuse();
        std::vector<V2> outline(s.count);
        for (std::size_t i = 0; i < s.count; ++i) outline[i] = to_vec<2, S>(s.points + 2 * i);
        run(ConvexPolygon<S>(std::span<const V2>(outline)));
        return;
      }
      break;
    default: break;
  }
  refuse();
}

// A layer matrix as the C API reads it: refused unless symmetric.
LayerMatrix to_matrix(const quadrant_layer_matrix* m) {
  if (m == nullptr) refuse();
  LayerMatrix out;
  for (int i = 0; i < 32; ++i)
    for (int j = 0; j < 32; ++j) {
      const bool ij = (m->partners[i] >> j & 1u) != 0, ji = (m->partners[j] >> i & 1u) != 0;
      if (ij != ji) refuse();
      if (ij && i <= j) out.set(i, j);
    }
  return out;
}

// A node as the C API hands it out, flattened (the first `dims` values of each array, then the counts).
void put_node(std::vector<u64>& out, const quadrant_node& n, int dims) {
  for (int i = 0; i < dims; ++i) {
    out.push_back(bits(n.cell_min[i]));
    out.push_back(bits(n.cell_max[i]));
    out.push_back(bits(n.bounds_min[i]));
    out.push_back(bits(n.bounds_max[i]));
  }
  out.push_back(static_cast<u64>(n.depth));
  out.push_back(static_cast<u64>(n.leaf));
  out.push_back(n.id);
  out.push_back(n.parent);
  out.push_back(n.items);
  out.push_back(n.count);
  out.push_back(n.layers);
}
template <int D, class S>
void put_view(std::vector<u64>& out, const NodeView<D, S>& v) {
  quadrant_node n{};
  for (int i = 0; i < D; ++i) {
    n.cell_min[i] = static_cast<double>(v.cell.min[i]);
    n.cell_max[i] = static_cast<double>(v.cell.max[i]);
    n.bounds_min[i] = static_cast<double>(v.bounds.min[i]);
    n.bounds_max[i] = static_cast<double>(v.bounds.max[i]);
  }
  n.depth = v.depth;
  n.leaf = v.leaf ? 1 : 0;
  n.id = v.id;
  n.parent = v.parent;
  n.items = v.items.size();
  n.count = v.count;
  n.layers = v.layers;
  put_node(out, n, D);
}

// ---- the models ----

// One tree: the C++ tree the C tree must behave as, and the key its handles carry (learnt from the first handle
// the C API hands out; the header documents the layout, not the key).
template <int D, class S>
struct TreeM {
  static constexpr int kDims = D;
  using Scalar = S;
  using B = Box<D, S>;
  using V = Vec<D, S>;
  using T = Tree<D, u64, S>;
  explicit TreeM(const Config<D, S>& c) : t(c) {}
  T t;
  std::optional<u32> key;

  quadrant_handle encode(Handle h) const {
    CHECK(key.has_value(), "fuzz target: a handle encoded before the tree's key is known");
    return (u64{static_cast<u32>(h.generation() + *key)} << 32) | (u64{h.index()} + 1);
  }
  Handle decode(quadrant_handle c) const {
    if ((c & 0xffffffffu) == 0 || !key) return Handle{};
    const Handle found = t.handle_at(static_cast<u32>((c & 0xffffffffu) - 1));
    const auto generation = static_cast<u32>(static_cast<u32>(c >> 32) - *key);
    return !found.is_null() && found.generation() == generation ? found : Handle{};
  }
  Handle live(quadrant_handle c) const {
    const Handle h = decode(c);
    if (h.is_null()) refuse();
    return h;
  }
  // A handle the C API handed out for the model's object h: learns the key, then must equal the model's.
  void issued(quadrant_handle c, Handle h) {
    if (!key) key = static_cast<u32>(static_cast<u32>(c >> 32) - h.generation());
    CHECK(c == encode(h), "a handle the C API handed out differs from the model's (slot + 1, generation + key)");
  }
  std::vector<Handle> handles() const {
    std::vector<Handle> out;
    t.for_each([&](Handle h, const u64&, const B&) { out.push_back(h); });
    return out;
  }
};

// The model's query: the objects the shape touches in `layers`, in the C++ order, up to the stop_at-th (the
// callback returns false there); one instantiation per tree type serves every query the target checks.
template <class M>
QueryStats model_query(const M& m, const quadrant_shape& s, u32 layers, int stop_at, std::vector<u64>& out) {
  QueryStats st;
  int k = 0;
  with_shape<M::kDims, typename M::Scalar>(s, [&](const auto& x) {
    st = m.t.query(x, [&](Handle h, const u64& v) {
      out.push_back(m.encode(h));
      out.push_back(v);
      return ++k < stop_at;
    }, layers);
  });
  return st;
}
// The model's leaves under a shape, flattened as put_node does, up to the stop_at-th; *count: how many in all.
template <class M>
void model_nodes(const M& m, const quadrant_shape& s, bool skip_empty, int stop_at, std::size_t room,
                 std::vector<u64>& out, std::size_t* count) {
  using NV = NodeView<M::kDims, typename M::Scalar>;
  std::size_t k = 0;
  with_shape<M::kDims, typename M::Scalar>(s, [&](const auto& x) {
    m.t.query_nodes(x, [&](const NV& v) {
      if (k < room) put_view(out, v);
      return ++k < static_cast<std::size_t>(stop_at);
    }, skip_empty);
  });
  if (count != nullptr) *count = k;
}

using AnyTree = std::variant<std::monostate, TreeM<2, float>, TreeM<2, double>, TreeM<3, float>, TreeM<3, double>>;

template <class F>
void with(AnyTree& m, F&& f) {
  std::visit(
      [&](auto& x) {
        if constexpr (!std::is_same_v<std::decay_t<decltype(x)>, std::monostate>) f(x);
      },
      m);
}

struct Slot {
  quadrant_tree* c = nullptr;
  AnyTree m;
  quadrant_config config{};  // as created, the world as last rebuilt
  u64 serial = 0;            // which tree this is (0: none)
  bool doomed = false;       // destroyed from a callback: freed when the walk returns, untouchable until then
  bool usable() const { return c != nullptr && !doomed; }
};

template <class S>
struct AoiM {
  using Scalar = S;
  explicit AoiM(const AoiSettings<S>& s) : w(s) {}
  AoiWorld<S> w;
};
using AnyAoi = std::variant<std::monostate, AoiM<float>, AoiM<double>>;

template <class S>
struct StreamM {
  using Scalar = S;
  explicit StreamM(const StreamerConfig<S>& c) : s(c) {}
  Streamer<S> s;
};
using AnyStream = std::variant<std::monostate, StreamM<float>, StreamM<double>>;

using AnyTracker = std::variant<std::monostate, ContactTracker<2, u64, float>, ContactTracker<2, u64, double>,
                                ContactTracker<3, u64, float>, ContactTracker<3, u64, double>>;

int state_of(StreamState s) {
  switch (s) {
    case StreamState::Unloaded: return QUADRANT_STREAM_UNLOADED;
    case StreamState::Queued: return QUADRANT_STREAM_QUEUED;
    case StreamState::Loading: return QUADRANT_STREAM_LOADING;
    case StreamState::Loaded: return QUADRANT_STREAM_LOADED;
  }
  return -1;
}

// A shape with the points it owns (a polygon's outline, a frustum's matrix): exactly as long as the shape says.
struct Shape {
  quadrant_shape s{};
  std::unique_ptr<double[]> points;
};

// An output array of exactly `n` elements (AddressSanitizer sees a write past it), or NULL.
template <class T>
struct Out {
  std::unique_ptr<T[]> p;
  T* get() const { return p.get(); }
  static Out of(bool null, std::size_t n) {
    Out o;
    if (!null) o.p = std::make_unique<T[]>(n);
    return o;
  }
};

struct Fuzz;

// What a walk's callback does: count its calls, stop at one, act at one, and record what it is handed.
struct Walk {
  Fuzz* f = nullptr;
  int a = -1, b = -1;  // the walked slots (b: the other tree of quadrant_trees_pairs)
  int dims = 2;
  int calls = 0, stop_at = INT_MAX, act_at = 1, action = 0, go_on = 1;
  std::vector<u64> got;
};
int walk_step(Walk& w);

int on_hit(void* user, quadrant_handle h, u64 v) {
  auto& w = *static_cast<Walk*>(user);
  w.got.push_back(h);
  w.got.push_back(v);
  return walk_step(w);
}
int on_pair(void* user, quadrant_handle a, u64 va, quadrant_handle b, u64 vb) {
  auto& w = *static_cast<Walk*>(user);
  w.got.insert(w.got.end(), {a, va, b, vb});
  return walk_step(w);
}
int on_ray(void* user, quadrant_handle h, u64 v, double t) {
  auto& w = *static_cast<Walk*>(user);
  w.got.insert(w.got.end(), {h, v, bits(t)});
  return walk_step(w);
}
int on_node(void* user, const quadrant_node* n) {
  auto& w = *static_cast<Walk*>(user);
  CHECK(n != nullptr, "a node callback was handed NULL");
  put_node(w.got, *n, w.dims);
  return walk_step(w);
}

// A walk nested in another walk's callback: tries mutations (refused) and may destroy the tree.
struct Nested {
  quadrant_tree* tree = nullptr;
  int dims = 2;
  bool destroy = false, destroyed = false;
  std::size_t calls = 0;
};
int on_nested(void* user, quadrant_handle h, u64) {
  auto& n = *static_cast<Nested*>(user);
  ++n.calls;
  if (!n.destroyed) {
    const double p[3] = {1, 1, 1};
    CHECK(quadrant_tree_insert(n.tree, p, p, 1, ~0u, nullptr) == QUADRANT_LOGIC_ERROR,
          "insert from a nested callback of the same tree was not refused as a logic error");
    CHECK(quadrant_tree_set_value(n.tree, h, 7) == QUADRANT_LOGIC_ERROR,
          "set_value from a nested callback of the same tree was not refused as a logic error");
    CHECK(quadrant_tree_contains(n.tree, h) == 1, "a nested callback was handed a handle the tree does not hold");
    if (n.destroy) {
      quadrant_tree_destroy(n.tree);
      n.destroyed = true;
    }
  }
  return 1;
}

// A shape's unread fields may hold 1e39, which a float index must not read (see Fuzz::shape).
constexpr bool kUnreadBeyondFloat = true;

// QUADRANT_FUZZ_TRACE=1 prints every checked call and its status.
const bool kTrace = std::getenv("QUADRANT_FUZZ_TRACE") != nullptr;

// Expects `got` from a C call the model says returns `want`; a failure must leave a message.
void expect(quadrant_status got, quadrant_status want, const char* call) {
  if (kTrace) std::fprintf(stderr, "%s: %d\n", call, static_cast<int>(got));
  if (got != want) {
    std::fprintf(stderr, "quadrant fuzz: %s returned %d, the model says %d (last error: %s)\n", call,
                 static_cast<int>(got), static_cast<int>(want), quadrant_last_error());
    std::abort();
  }
  if (got != QUADRANT_OK) CHECK(quadrant_last_error()[0] != '\0', "a failing call left no message");
}

struct Fuzz {
  explicit Fuzz(FuzzedDataProvider& provider) : in(provider) {}
  FuzzedDataProvider& in;
  std::array<Slot, kTrees> slots;
  u64 serials = 0;
  std::vector<quadrant_handle> seen;  // handles the C API handed out (any tree, live or not)
  int depth = 0;                      // walks in progress

  quadrant_layer_matrix matrix{};   // the C matrix
  std::array<u32, 32> mirror{};     // what it must hold

  quadrant_contacts* contacts = nullptr;
  AnyTracker tracker;
  u64 tracked = 0;  // the serial of the tree the tracker follows (0: none)

  quadrant_aoi* aoi = nullptr;
  AnyAoi aoi_m;
  const quadrant_aoi_event* events = nullptr;  // the last successful tick's, and a copy
  std::vector<quadrant_aoi_event> events_copy;

  quadrant_streamer* streamer = nullptr;
  AnyStream stream_m;
  bool updated = false;  // the last successful update's arrays, and copies
  quadrant_stream_update last{};
  std::vector<quadrant_stream_load> loads_copy;
  std::vector<u64> unloads_copy, cancels_copy;

  // ---- drawing arguments ----

  int pick(int n) { return in.ConsumeIntegralInRange<int>(0, n - 1); }
  std::size_t pick_size(std::size_t n) { return in.ConsumeIntegralInRange<std::size_t>(0, n - 1); }
  bool one_in(int n) { return pick(n) == 0; }

  // A coordinate: the half-unit lattice over [-40, 80), or a special value.
  double coord() {
    static constexpr double kSpecial[16] = {kNaN,    kInf,  -kInf,   1e39,       -1e39,      1e151, -1e151, 1e300,
                                            kFloatMax, -kFloatMax, 3e38, 1e-300, -0.0, 1e150, -1e150, 0.25};
    const int b = in.ConsumeIntegral<std::uint8_t>();
    return b < 240 ? -40 + 0.5 * b : kSpecial[b - 240];
  }
  // A length: the half-unit lattice over [0, 32), or a special value.
  double length() {
    static constexpr double kSpecial[16] = {kNaN,      kInf, -1,     -0.0, 1e39, 1e151, 1e300, 1000,
                                            kFloatMax, 3e38, 1e-300, 0,    64,   1e150, -kInf, 0.25};
    const int b = in.ConsumeIntegral<std::uint8_t>();
    return b < 240 ? 0.5 * (b % 64) : kSpecial[b - 240];
  }
  double angle() {
    static constexpr double kAngles[16] = {0,    0.5,  1,     1.5707963267948966, 3.141592653589793, -0.75, 2,  6.5,
                                           kNaN, kInf, 1e39, -1e39,              1e300,             0.25, -3, 1e-300};
    return kAngles[pick(16)];
  }
  u64 value() { return one_in(4) ? in.ConsumeIntegral<u64>() : in.ConsumeIntegral<std::uint8_t>(); }
  // A layer mask: mostly a few of the low four layers, sometimes every layer, sometimes none.
  u32 layers() {
    switch (pick(8)) {
      case 0: return ~0u;
      case 1: return 0;
      case 2: return in.ConsumeIntegral<u32>();
      default: return static_cast<u32>(1 + pick(15));
    }
  }
  std::size_t capacity() {
    switch (pick(6)) {
      case 0: return 0;
      case 1: return kHuge;
      case 2: return static_cast<std::size_t>(1 + pick(3));
      default: return static_cast<std::size_t>(pick(80));
    }
  }
  // Room for an output of `capacity` elements when at most `most` can come: exactly the capacity when it is small.
  static std::size_t room(std::size_t cap, std::size_t most) { return std::min(cap, most); }
  u64 id() {
    if (one_in(16)) return in.ConsumeIntegral<u64>();
    return kAllIds[pick_size(kAllIds.size())];
  }

  // n doubles in a heap block of exactly n (NULL now and then when `may_null`).
  std::unique_ptr<double[]> doubles(std::size_t n, bool may_null = true) {
    if (may_null && one_in(24)) return nullptr;
    auto p = std::make_unique<double[]>(n == 0 ? 1 : n);
    for (std::size_t i = 0; i < n; ++i) p[i] = coord();
    return p;
  }
  // The corners of `n` boxes of `dims` values each, mostly with min <= max on every axis.
  void boxes(int dims, std::size_t n, std::unique_ptr<double[]>& lo, std::unique_ptr<double[]>& hi) {
    const std::size_t k = n * static_cast<std::size_t>(dims);
    lo = std::make_unique<double[]>(k == 0 ? 1 : k);
    hi = std::make_unique<double[]>(k == 0 ? 1 : k);
    for (std::size_t i = 0; i < k; ++i) {
      double x = coord(), y = one_in(4) ? x : coord();
      if (x > y && !one_in(16)) std::swap(x, y);
      lo[i] = x;
      hi[i] = y;
    }
    if (one_in(24)) lo.reset();
    if (one_in(24)) hi.reset();
  }
  // A valid box on the lattice (for the calls from callbacks, which must be refused for the walk alone).
  std::unique_ptr<double[]> lattice_point(int dims, double base) {
    auto p = std::make_unique<double[]>(static_cast<std::size_t>(dims));
    for (int i = 0; i < dims; ++i) p[i] = base + 0.5 * pick(16);
    return p;
  }

  // Sets m (16 numbers) to an orthographic or a perspective view-projection, or random lattice numbers.
  void matrix16(double* m) {
    for (int i = 0; i < 16; ++i) m[i] = 0;
    switch (pick(3)) {
      case 0: {  // orthographic over a lattice box, column-major
        const double l = -40 + 8.0 * pick(8), w = 8.0 * (1 + pick(8)), n = 1.0 * pick(8), deep = 8.0 * (1 + pick(8));
        m[0] = 2 / w, m[5] = 2 / w, m[10] = -2 / deep, m[12] = -(2 * l + w) / w, m[13] = -(2 * l + w) / w;
        m[14] = -(2 * n + deep) / deep, m[15] = 1;
        break;
      }
      case 1: {  // a 90-degree perspective looking down -z from a lattice eye, far plane finite or not
        const double ex = coord(), ey = coord(), ez = coord(), n = 0.5 * (1 + pick(4));
        const double f = one_in(3) ? kInf : n + 8.0 * (1 + pick(8));
        const double a = std::isinf(f) ? -1 : (f + n) / (n - f), b = std::isinf(f) ? -2 * n : 2 * f * n / (n - f);
        m[0] = 1, m[5] = 1, m[10] = a, m[11] = -1, m[14] = b;
        m[12] = -ex, m[13] = -ey, m[14] = -a * ez + b, m[15] = ez;
        break;
      }
      default:
        for (int i = 0; i < 16; ++i) m[i] = 0.5 * (pick(9) - 4);
        break;
    }
    if (one_in(12)) m[pick(16)] = coord();
  }

  // A query shape for a `dims`-dimensional index: every kind (and bad ones), by the helpers or by hand; by hand
  // the fields the kind does not read hold anything.
  Shape shape(int dims) {
    Shape out;
    quadrant_shape& s = out.s;
    if (one_in(4)) {  // a box over the whole lattice: most objects, so that walks have callbacks to make
      const double lo[3] = {-40, -40, -40}, hi[3] = {80, 80, 80};
      s = quadrant_shape_box(dims, lo, hi);
      return out;
    }
    const int kind = one_in(24) ? (one_in(2) ? -1 : 10 + pick(4)) : pick(10);
    double a[3], b[3];
    for (int i = 0; i < 3; ++i) {
      a[i] = coord();
      b[i] = coord();
      if (kind == QUADRANT_SHAPE_BOX && a[i] > b[i] && !one_in(16)) std::swap(a[i], b[i]);
    }
    double r0 = length(), r1 = length();
    if (kind == QUADRANT_SHAPE_RING && r0 > r1 && !one_in(8)) std::swap(r0, r1);
    const double ang = angle();
    const bool helper = one_in(2);
    if (!helper) {
      // By hand: whatever the kind does not read stays garbage, NaN or a value beyond float (a float index once
      // refused a ring, a sector or a polygon for such a field).
      const bool nan = one_in(2);
      const double junk = nan ? kNaN : kUnreadBeyondFloat ? 1e39 : kInf;
      for (int i = 0; i < 3; ++i) s.a[i] = s.b[i] = nan ? kNaN : 1e39;
      s.r0 = s.r1 = s.angle = junk;
      s.count = static_cast<std::size_t>(pick(20));
      s.matrix_row_major = pick(3);
      s.clip_zero_to_one = pick(3);
      s.kind = static_cast<quadrant_shape_kind>(kind);
    }
    auto set_a = [&](int n) { std::copy(a, a + n, s.a); };
    auto set_b = [&](int n) { std::copy(b, b + n, s.b); };
    switch (kind) {
      case QUADRANT_SHAPE_BOX:
        if (helper) s = quadrant_shape_box(dims, a, b);
        else set_a(dims), set_b(dims);
        break;
      case QUADRANT_SHAPE_POINT:
        if (helper) s = quadrant_shape_point(dims, a);
        else set_a(dims);
        break;
      case QUADRANT_SHAPE_BALL:
        if (helper) s = quadrant_shape_ball(dims, a, r0);
        else set_a(dims), s.r0 = r0;
        break;
      case QUADRANT_SHAPE_RING:
        if (helper) s = quadrant_shape_ring(a[0], a[1], r0, r1);
        else set_a(2), s.r0 = r0, s.r1 = r1;
        break;
      case QUADRANT_SHAPE_ELLIPSE:
        if (helper) s = quadrant_shape_ellipse(a[0], a[1], r0, r1, ang);
        else set_a(2), s.r0 = r0, s.r1 = r1, s.angle = ang;
        break;
      case QUADRANT_SHAPE_SECTOR:
        if (helper) s = quadrant_shape_sector(a[0], a[1], b[0], b[1], r0, ang);
        else set_a(2), set_b(2), s.r0 = r0, s.angle = ang;
        break;
      case QUADRANT_SHAPE_ORIENTED_BOX:
        if (helper) s = quadrant_shape_oriented_box(a[0], a[1], r0, r1, ang);
        else set_a(2), s.r0 = r0, s.r1 = r1, s.angle = ang;
        break;
      case QUADRANT_SHAPE_POLYGON: {
        // A lattice triangle or quadrilateral (convex or not), or the outline missing.
        const std::size_t n = static_cast<std::size_t>(pick(6));
        if (!one_in(12)) {
          out.points = std::make_unique<double[]>(2 * n + 1);
          const double cx = -40 + 0.5 * pick(240), cy = -40 + 0.5 * pick(240);
          static constexpr double kRound[8][2] = {{1, 0}, {1, 1}, {0, 1}, {-1, 1}, {-1, 0}, {-1, -1}, {0, -1}, {1, -1}};
          const double r = 0.5 * (1 + pick(16));
          int at = pick(8);
          for (std::size_t i = 0; i < n; ++i) {
            at = (at + 1 + pick(3)) % 8;
            out.points[2 * i] = cx + r * kRound[at][0];
            out.points[2 * i + 1] = cy + r * kRound[at][1];
            if (one_in(16)) out.points[2 * i + static_cast<std::size_t>(pick(2))] = coord();
          }
        }
        const double* pts = out.points.get();
        const std::size_t count = pts == nullptr && one_in(2) ? kHuge : n;
        if (helper) s = quadrant_shape_polygon(pts, count);
        else s.points = pts, s.count = count;
        break;
      }
      case QUADRANT_SHAPE_SEGMENT:
        if (helper) s = quadrant_shape_segment(dims, a, b);
        else set_a(dims), set_b(dims);
        break;
      case QUADRANT_SHAPE_FRUSTUM: {
        const int row_major = pick(3), clip = pick(3);
        if (!one_in(16)) {
          out.points = std::make_unique<double[]>(16);
          matrix16(out.points.get());
        }
        if (helper) {
          s = quadrant_shape_frustum(out.points.get(), row_major, clip);
        } else {
          s.points = out.points.get(), s.count = one_in(8) ? 15 : 16;
          s.matrix_row_major = row_major, s.clip_zero_to_one = clip;
        }
        break;
      }
      default: break;
    }
    if (helper) check_helper(s, kind, dims, a, b, r0, r1, ang, out.points.get());
    return out;
  }
  // A helper sets the kind and the fields it reads.
  static void check_helper(const quadrant_shape& s, int kind, int dims, const double* a, const double* b, double r0,
                           double r1, double ang, const double* points) {
    if (kind < 0 || kind > QUADRANT_SHAPE_FRUSTUM) return;
    CHECK(static_cast<int>(s.kind) == kind, "a shape helper set another kind");
    auto same = [](double x, double y) { return bits(x) == bits(y); };
    const int n = kind >= QUADRANT_SHAPE_RING && kind <= QUADRANT_SHAPE_ORIENTED_BOX ? 2 : dims;
    if (kind != QUADRANT_SHAPE_POLYGON && kind != QUADRANT_SHAPE_FRUSTUM)
      for (int i = 0; i < n; ++i) CHECK(same(s.a[i], a[i]), "a shape helper did not set a");
    if (kind == QUADRANT_SHAPE_BOX || kind == QUADRANT_SHAPE_SEGMENT || kind == QUADRANT_SHAPE_SECTOR)
      for (int i = 0; i < (kind == QUADRANT_SHAPE_SECTOR ? 2 : dims); ++i)
        CHECK(same(s.b[i], b[i]), "a shape helper did not set b");
    if (kind == QUADRANT_SHAPE_BALL || (kind >= QUADRANT_SHAPE_RING && kind <= QUADRANT_SHAPE_ORIENTED_BOX))
      CHECK(same(s.r0, r0), "a shape helper did not set r0");
    if (kind == QUADRANT_SHAPE_RING || kind == QUADRANT_SHAPE_ELLIPSE || kind == QUADRANT_SHAPE_ORIENTED_BOX)
      CHECK(same(s.r1, r1), "a shape helper did not set r1");
    if (kind == QUADRANT_SHAPE_ELLIPSE || kind == QUADRANT_SHAPE_SECTOR || kind == QUADRANT_SHAPE_ORIENTED_BOX)
      CHECK(same(s.angle, ang), "a shape helper did not set angle");
    if (kind == QUADRANT_SHAPE_FRUSTUM) CHECK(s.points == points && s.count == 16, "frustum helper: points, count");
  }

  // ---- trees ----

  // Records a handle the C API handed out (for later picks: it may go stale, or be foreign to another tree).
  void saw(quadrant_handle h) {
    if (seen.size() < 512) seen.push_back(h);
  }

  // Learns the key of a tree that holds objects but has handed out no handle yet (inserted with a NULL output):
  // a box query for one object's own box must report it.
  template <class M>
  void ensure_key(Slot& s, M& m) {
    if (m.key || m.t.size() == 0) return;
    Handle h;
    typename M::B box{};
    m.t.for_each([&](Handle x, const u64&, const typename M::B& bx) {
      h = x;
      box = bx;
      return false;
    });
    double lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
    for (int i = 0; i < M::kDims; ++i) lo[i] = static_cast<double>(box.min[i]), hi[i] = static_cast<double>(box.max[i]);
    const quadrant_shape q = quadrant_shape_box(M::kDims, lo, hi);
    std::vector<quadrant_handle> hs(kMaxObjects);
    std::size_t n = 0;
    expect(quadrant_tree_query_into(s.c, &q, ~0u, hs.data(), nullptr, hs.size(), &n), QUADRANT_OK, "query_into");
    for (std::size_t i = 0; i < std::min(n, hs.size()); ++i)
      if ((hs[i] & 0xffffffffu) == u64{h.index()} + 1) {
        m.issued(hs[i], h);
        return;
      }
    CHECK(false, "a box query missed the object whose box it is");
  }

  // A handle for a call on slot s: live, stale, of another tree (live there: *foreign), of a destroyed tree, 0,
  // random, or live with a bit flipped.
  template <class M>
  quadrant_handle handle(Slot& s, M& m, bool* foreign = nullptr) {
    ensure_key(s, m);
    if (foreign != nullptr) *foreign = false;
    auto live_one = [&]() -> quadrant_handle {
      const std::vector<Handle> hs = m.handles();
      return hs.empty() ? 0 : m.encode(hs[pick_size(hs.size())]);
    };
    switch (pick(10)) {
      case 0: return seen.empty() ? 0 : seen[pick_size(seen.size())];
      case 1: return 0;
      case 2: return in.ConsumeIntegral<u64>();
      case 3: {
        const quadrant_handle h = live_one();
        switch (pick(4)) {
          case 0: return h + (u64{1} << 32);
          case 1: return h - (u64{1} << 32);
          case 2: return h + 1;
          default: return h ^ (u64{1} << pick(64));
        }
      }
      case 4: {
        const int t = pick(kTrees);
        Slot& o = slots[static_cast<std::size_t>(t)];
        if (&o == &s || !o.usable()) return live_one();
        quadrant_handle h = 0;
        with(o.m, [&](auto& om) {
          ensure_key(o, om);
          const std::vector<Handle> hs = om.handles();
          if (!hs.empty()) h = om.encode(hs[pick_size(hs.size())]);
        });
        if (foreign != nullptr) *foreign = h != 0;
        return h;
      }
      default: return live_one();
    }
  }
  // A handle another tree holds must be refused here (the model decodes with this tree's key).
  template <class M>
  static void check_foreign(const M& m, quadrant_handle h, bool foreign) {
    if (foreign) CHECK(m.decode(h).is_null(), "a live handle of another tree names an object of this one");
  }

  // After a call on a tree: validate() and the size; with `full`, every object's handle, box, value and layers.
  template <class M>
  void check_tree(Slot& s, M& m, bool full) {
    const quadrant_status v = quadrant_tree_validate(s.c);
    if (v != QUADRANT_OK) std::fprintf(stderr, "%s\n", quadrant_last_error());
    CHECK(v == QUADRANT_OK, "quadrant_tree_validate failed");
    CHECK(quadrant_tree_size(s.c) == m.t.size(), "size differs from the model's");
    if (!full) return;
    ensure_key(s, m);
    m.t.for_each([&](Handle h, const u64& value, const typename M::B& box) {
      const quadrant_handle c = m.encode(h);
      CHECK(quadrant_tree_contains(s.c, c) == 1, "an object of the model is not in the tree");
      u64 cv = 0;
      u32 cl = 0;
      double lo[3], hi[3];
      expect(quadrant_tree_value(s.c, c, &cv), QUADRANT_OK, "value");
      expect(quadrant_tree_layers(s.c, c, &cl), QUADRANT_OK, "layers");
      expect(quadrant_tree_bounds(s.c, c, lo, hi), QUADRANT_OK, "bounds");
      CHECK(cv == value, "an object's value differs from the model's");
      CHECK(cl == m.t.layers(h), "an object's layers differ from the model's");
      for (int i = 0; i < M::kDims; ++i)
        CHECK(bits(lo[i]) == bits(static_cast<double>(box.min[i])) &&
                  bits(hi[i]) == bits(static_cast<double>(box.max[i])),
              "an object's box differs from the model's");
    });
  }
  template <class M>
  void after_mutation(Slot& s, M& m, quadrant_status status) {
    check_tree(s, m, status != QUADRANT_OK || one_in(4));
  }

  void destroy_tree(Slot& s) {
    quadrant_tree_destroy(s.c);
    s.c = nullptr;
    s.m.emplace<std::monostate>();
    s.serial = 0;
    s.doomed = false;
  }

  void create_tree(Slot& s) {
    if (s.c != nullptr) destroy_tree(s);
    quadrant_config cfg;
    const int dims = 2 + pick(2);
    const auto scalar = one_in(2) ? QUADRANT_FLOAT : QUADRANT_DOUBLE;
    quadrant_config_init(&cfg, dims, scalar);
    CHECK(cfg.dims == dims && cfg.scalar == scalar && cfg.world_min[0] == 0 && cfg.world_max[2] == 1 &&
              cfg.max_depth == 8 && cfg.split_threshold == 32 && cfg.min_node_size == 0 &&
              cfg.placement == QUADRANT_LOOSE,
          "quadrant_config_init: not the documented defaults");
    static constexpr double kLo[3] = {0, -32, 8}, kSize[3] = {8, 32, 64};
    const double lo = kLo[pick(3)], size = kSize[pick(3)];
    for (int i = 0; i < 3; ++i) cfg.world_min[i] = lo, cfg.world_max[i] = lo + size;
    cfg.max_depth = pick(9);
    cfg.split_threshold = one_in(6) ? 0 : 1 + pick(one_in(3) ? 40 : 4);
    cfg.min_node_size = one_in(4) ? 0.5 * pick(8) : 0;
    cfg.placement = static_cast<quadrant_placement>(pick(3));
    if (cfg.split_threshold == 0) {
      // A full tree is built at once: small ones, or one above the documented 2^24 nodes (refused).
      if (one_in(4)) cfg.max_depth = (dims == 2 ? 13 : 9) + pick(4), cfg.min_node_size = 0;
      else cfg.max_depth = std::min(cfg.max_depth, dims == 2 ? 4 : 3);
    }
    if (one_in(4)) {
      switch (pick(12)) {
        case 0: cfg.dims = one_in(2) ? 1 : 4; break;
        case 1: cfg.scalar = static_cast<quadrant_scalar>(one_in(2) ? 2 : -1); break;
        case 2: cfg.world_max[pick(dims)] = cfg.world_min[0]; break;
        case 3: cfg.world_min[pick(3)] = coord(); break;
        case 4: cfg.world_max[pick(3)] = coord(); break;
        case 5: cfg.max_depth = -1 - pick(4); break;
        case 6: cfg.split_threshold = -1; break;
        case 7: cfg.min_node_size = length(); break;
        case 8: cfg.placement = static_cast<quadrant_placement>(one_in(2) ? 3 : -1); break;
        case 9: cfg.world_min[pick(3)] = one_in(2) ? 1e39 : -1e39; break;
        default: break;
      }
    }
    // A full tree deeper than the small ones must be refused by its size, not cut short by a min_node_size (a
    // 3D one of depth 7 holds 2.4 million nodes: seconds to build, twice).
    if (cfg.split_threshold == 0 && cfg.max_depth > (dims == 2 ? 4 : 3) && std::isfinite(cfg.min_node_size))
      cfg.min_node_size = 0;
    const bool null_config = one_in(40), null_out = one_in(40);
    const quadrant_status want = model([&] {
      if (null_config || null_out) refuse();
      const int sc = static_cast<int>(cfg.scalar);
      if (sc != QUADRANT_FLOAT && sc != QUADRANT_DOUBLE) refuse();
      auto make = [&](auto dims_tag, auto scalar_tag) {
        constexpr int D = decltype(dims_tag)::value;
        using S = decltype(scalar_tag);
        Config<D, S> c;
        c.world = Box<D, S>{to_vec<D, S>(cfg.world_min), to_vec<D, S>(cfg.world_max)};
        c.max_depth = cfg.max_depth;
        c.split_threshold = cfg.split_threshold;
        c.min_node_size = to_scalar<S>(cfg.min_node_size);
        const int p = static_cast<int>(cfg.placement);
        if (p < 0 || p > 2) refuse();
        c.placement = static_cast<Placement>(p);
        s.m.emplace<TreeM<D, S>>(c);
      };
      const bool f = sc == QUADRANT_FLOAT;
      if (cfg.dims == 2) f ? make(std::integral_constant<int, 2>{}, 0.0f) : make(std::integral_constant<int, 2>{}, 0.0);
      else if (cfg.dims == 3) f ? make(std::integral_constant<int, 3>{}, 0.0f) : make(std::integral_constant<int, 3>{}, 0.0);
      else refuse();
    });
    if (want != QUADRANT_OK) s.m.emplace<std::monostate>();
    quadrant_tree* made = reinterpret_cast<quadrant_tree*>(&s);  // not NULL: the call must clear it on error
    expect(quadrant_tree_create(null_config ? nullptr : &cfg, null_out ? nullptr : &made), want, "tree_create");
    if (want != QUADRANT_OK) {
      if (!null_out) CHECK(made == nullptr, "a failed tree_create left *out set");
      return;
    }
    CHECK(made != nullptr, "tree_create succeeded with no tree");
    s.c = made;
    s.config = cfg;
    s.serial = ++serials;
    check_config(s);
  }

  void check_config(Slot& s) {
    quadrant_config got;
    std::memset(&got, 0xff, sizeof got);
    expect(quadrant_tree_config(s.c, &got), QUADRANT_OK, "tree_config");
    const quadrant_config& w = s.config;
    CHECK(got.dims == w.dims && got.scalar == w.scalar && got.max_depth == w.max_depth &&
              got.split_threshold == w.split_threshold && bits(got.min_node_size) == bits(w.min_node_size) &&
              got.placement == w.placement,
          "tree_config differs from the config given");
    for (int i = 0; i < w.dims; ++i)
      CHECK(bits(got.world_min[i]) == bits(w.world_min[i]) && bits(got.world_max[i]) == bits(w.world_max[i]),
            "tree_config: the world differs from the one given (or last rebuilt)");
    expect(quadrant_tree_config(s.c, nullptr), QUADRANT_INVALID_ARGUMENT, "tree_config(NULL)");
  }

  template <class M>
  void insert(Slot& s, M& m) {
    if (m.t.size() >= kMaxObjects) return;
    constexpr int D = M::kDims;
    using S = typename M::Scalar;
    std::unique_ptr<double[]> lo, hi;
    boxes(D, 1, lo, hi);
    const u64 v = value();
    const u32 l = layers();
    const bool null_out = one_in(6);
    quadrant_handle h = 0;
    Handle mh;
    const quadrant_status want = model([&] { mh = m.t.insert(to_box<D, S>(lo.get(), hi.get()), v, l); });
    expect(quadrant_tree_insert(s.c, lo.get(), hi.get(), v, l, null_out ? nullptr : &h), want, "insert");
    if (want == QUADRANT_OK && !null_out) {
      m.issued(h, mh);
      saw(h);
    }
    after_mutation(s, m, want);
  }

  template <class M>
  void erase(Slot& s, M& m) {
    bool foreign;
    const quadrant_handle h = handle(s, m, &foreign);
    check_foreign(m, h, foreign);
    const quadrant_status want = model([&] { m.t.erase(m.live(h)); });
    expect(quadrant_tree_erase(s.c, h), want, "erase");
    after_mutation(s, m, want);
  }

  template <class M>
  void move(Slot& s, M& m) {
    constexpr int D = M::kDims;
    using S = typename M::Scalar;
    bool foreign;
    const quadrant_handle h = handle(s, m, &foreign);
    check_foreign(m, h, foreign);
    std::unique_ptr<double[]> lo, hi;
    boxes(D, 1, lo, hi);
    const quadrant_status want = model([&] {
      const Handle x = m.live(h);
      m.t.move(x, to_box<D, S>(lo.get(), hi.get()));
    });
    expect(quadrant_tree_move(s.c, h, lo.get(), hi.get()), want, "move");
    after_mutation(s, m, want);
  }

  template <class M>
  void move_many(Slot& s, M& m) {
    constexpr int D = M::kDims;
    using S = typename M::Scalar;
    const std::size_t n = static_cast<std::size_t>(pick(7));
    auto hs = std::make_unique<quadrant_handle[]>(n == 0 ? 1 : n);
    for (std::size_t i = 0; i < n; ++i) hs[i] = handle(s, m);
    std::unique_ptr<double[]> lo, hi;
    boxes(D, n, lo, hi);
    if (one_in(24)) hs.reset();
    // SIZE_MAX objects at NULL arrays: refused before anything is read.
    const std::size_t count = !hs && one_in(2) ? kHuge : n;
    const quadrant_status want = model([&] {
      if (count == 0) return;
      if (!hs || !lo || !hi) refuse();
      std::vector<Handle> mh(count);
      std::vector<typename M::B> mb(count);
      for (std::size_t i = 0; i < count; ++i) {
        mh[i] = m.live(hs[i]);
        mb[i] = to_box<D, S>(lo.get() + i * D, hi.get() + i * D);
      }
      m.t.move(std::span<const Handle>(mh), std::span<const typename M::B>(mb));
    });
    expect(quadrant_tree_move_many(s.c, hs.get(), lo.get(), hi.get(), count), want, "move_many");
    after_mutation(s, m, want);
  }

  template <class M>
  void assign(Slot& s, M& m) {
    constexpr int D = M::kDims;
    using S = typename M::Scalar;
    const std::size_t n = static_cast<std::size_t>(one_in(4) ? pick(4) : pick(static_cast<int>(kMaxObjects) / 2 + 1));
    std::unique_ptr<double[]> lo, hi;
    boxes(D, n, lo, hi);
    std::unique_ptr<u64[]> values;
    std::unique_ptr<u32[]> masks;
    if (!one_in(3)) {
      values = std::make_unique<u64[]>(n == 0 ? 1 : n);
      for (std::size_t i = 0; i < n; ++i) values[i] = value();
    }
    if (!one_in(3)) {
      masks = std::make_unique<u32[]>(n == 0 ? 1 : n);
      for (std::size_t i = 0; i < n; ++i) masks[i] = one_in(24) ? 0 : static_cast<u32>(1 + pick(15));
    }
    Out<quadrant_handle> out = Out<quadrant_handle>::of(one_in(3), n == 0 ? 1 : n);
    const std::size_t count = !lo && one_in(2) ? kHuge : n;
    std::vector<Handle> mh;
    const quadrant_status want = model([&] {
      if (count > 0 && (!lo || !hi)) refuse();
      std::vector<std::tuple<typename M::B, u64, u32>> items(count);
      for (std::size_t i = 0; i < count; ++i)
        items[i] = {to_box<D, S>(lo.get() + i * D, hi.get() + i * D), values ? values[i] : u64{i},
                    masks ? masks[i] : ~0u};
      m.t.assign(items, mh);
    });
    expect(quadrant_tree_assign(s.c, lo.get(), hi.get(), values.get(), masks.get(), count, out.get()), want,
           "assign");
    if (want == QUADRANT_OK && out.get() != nullptr)
      for (std::size_t i = 0; i < n; ++i) {
        m.issued(out.p[i], mh[i]);
        saw(out.p[i]);
      }
    after_mutation(s, m, want);
  }

  template <class M>
  void rebuild(Slot& s, M& m) {
    constexpr int D = M::kDims;
    using S = typename M::Scalar;
    auto lo = std::make_unique<double[]>(D), hi = std::make_unique<double[]>(D);
    static constexpr double kLo[3] = {0, -32, 8}, kSize[3] = {8, 32, 64};
    const double base = kLo[pick(3)], size = kSize[pick(3)];
    for (int i = 0; i < D; ++i) lo[i] = base, hi[i] = base + size;
    if (one_in(4)) (one_in(2) ? lo : hi)[pick(D)] = coord();
    if (one_in(24)) (one_in(2) ? lo : hi).reset();
    const quadrant_status want = model([&] {
      const Vec<D, S> a = to_vec<D, S>(lo.get());
      m.t.rebuild(Box<D, S>{a, to_vec<D, S>(hi.get())});
    });
    expect(quadrant_tree_rebuild(s.c, lo.get(), hi.get()), want, "rebuild");
    if (want == QUADRANT_OK)
      for (int i = 0; i < D; ++i) s.config.world_min[i] = lo[i], s.config.world_max[i] = hi[i];
    after_mutation(s, m, want);
    check_config(s);
  }

  template <class M>
  void set_layers(Slot& s, M& m) {
    bool foreign;
    const quadrant_handle h = handle(s, m, &foreign);
    check_foreign(m, h, foreign);
    const u32 l = layers();
    const quadrant_status want = model([&] { m.t.set_layers(m.live(h), l); });
    expect(quadrant_tree_set_layers(s.c, h, l), want, "set_layers");
    after_mutation(s, m, want);
  }

  template <class M>
  void set_value(Slot& s, M& m) {
    bool foreign;
    const quadrant_handle h = handle(s, m, &foreign);
    check_foreign(m, h, foreign);
    const u64 v = value();
    const quadrant_status want = model([&] { m.t.value(m.live(h)) = v; });
    expect(quadrant_tree_set_value(s.c, h, v), want, "set_value");
    after_mutation(s, m, want);
  }

  template <class M>
  void clear(Slot& s, M& m) {
    m.t.clear();
    expect(quadrant_tree_clear(s.c), QUADRANT_OK, "clear");
    after_mutation(s, m, QUADRANT_OK);
  }

  // contains, value, layers and bounds of one handle (and NULL outputs).
  template <class M>
  void read_handle(Slot& s, M& m) {
    bool foreign;
    const quadrant_handle h = handle(s, m, &foreign);
    check_foreign(m, h, foreign);
    const Handle x = m.decode(h);
    CHECK(quadrant_tree_contains(s.c, h) == (x.is_null() ? 0 : 1), "contains differs from the model's");
    const quadrant_status live = x.is_null() ? QUADRANT_INVALID_ARGUMENT : QUADRANT_OK;
    u64 v = 0;
    u32 l = 0;
    double lo[3], hi[3];
    const bool null_value = one_in(6), null_layers = one_in(6), null_lo = one_in(6), null_hi = one_in(6);
    expect(quadrant_tree_value(s.c, h, null_value ? nullptr : &v), null_value ? QUADRANT_INVALID_ARGUMENT : live,
           "value");
    expect(quadrant_tree_layers(s.c, h, null_layers ? nullptr : &l),
           null_layers ? QUADRANT_INVALID_ARGUMENT : live, "layers");
    expect(quadrant_tree_bounds(s.c, h, null_lo ? nullptr : lo, null_hi ? nullptr : hi),
           null_lo || null_hi ? QUADRANT_INVALID_ARGUMENT : live, "bounds");
    if (x.is_null()) return;
    if (!null_value) CHECK(v == m.t.value(x), "value differs from the model's");
    if (!null_layers) CHECK(l == m.t.layers(x), "layers differ from the model's");
    if (!null_lo && !null_hi)
      for (int i = 0; i < M::kDims; ++i)
        CHECK(bits(lo[i]) == bits(static_cast<double>(m.t.bounds(x).min[i])) &&
                  bits(hi[i]) == bits(static_cast<double>(m.t.bounds(x).max[i])),
              "bounds differ from the model's");
  }

  template <class M>
  void query_into(Slot& s, M& m) {
    constexpr int D = M::kDims;
    ensure_key(s, m);
    const Shape q = shape(one_in(8) ? 5 - D : D);
    const u32 l = layers();
    const std::size_t cap = capacity();
    const std::size_t n = room(cap, kMaxObjects);
    Out<quadrant_handle> hs = Out<quadrant_handle>::of(one_in(4), n);
    Out<u64> vs = Out<u64>::of(one_in(4), n);
    const bool null_count = one_in(24), null_shape = one_in(32), with_stats = one_in(2), null_stats = one_in(4);
    std::vector<u64> want_hv;  // handle, value, handle, ...
    QueryStats st;
    const quadrant_status want = model([&] {
      if (null_count || null_shape) refuse();
      st = model_query(m, q.s, l, INT_MAX, want_hv);
    });
    std::size_t count = 12345;
    quadrant_query_stats cs{};
    const quadrant_shape* qs = null_shape ? nullptr : &q.s;
    std::size_t* cp = null_count ? nullptr : &count;
    const quadrant_status got = with_stats
                                    ? quadrant_tree_query_into_stats(s.c, qs, l, hs.get(), vs.get(), cap, cp,
                                                                     null_stats ? nullptr : &cs)
                                    : quadrant_tree_query_into(s.c, qs, l, hs.get(), vs.get(), cap, cp);
    expect(got, want, "query_into");
    if (want != QUADRANT_OK) return;
    CHECK(2 * count == want_hv.size(), "query_into: the count differs from the model's");
    for (std::size_t i = 0; i < std::min(count, n); ++i) {
      if (hs.get() != nullptr) CHECK(hs.p[i] == want_hv[2 * i], "query_into: a handle differs from the model's (or its order)");
      if (vs.get() != nullptr) CHECK(vs.p[i] == want_hv[2 * i + 1], "query_into: a value differs from the model's");
    }
    if (with_stats && !null_stats)
      CHECK(cs.nodes_visited == st.nodes_visited && cs.box_tests == st.box_tests && cs.hits == st.hits &&
                cs.stopped == 0,
            "query_into_stats: the stats differ from the model's");
  }

  // Pairs into an array: by mask, through the matrix, or across two trees.
  template <class M>
  void pairs_into(Slot& s, M& m) {
    ensure_key(s, m);
    const int kind = pick(3);
    const std::size_t cap = capacity();
    const std::size_t n = room(cap, kMaxObjects * kMaxObjects);  // cross pairs at most
    Out<quadrant_handle> out = Out<quadrant_handle>::of(one_in(6), 2 * n);
    const bool null_count = one_in(24);
    std::size_t count = 12345;
    std::size_t* cp = null_count ? nullptr : &count;
    std::vector<quadrant_handle> want_p;
    quadrant_status want, got;
    if (kind == 0) {
      const u32 l = layers();
      want = model([&] {
        if (null_count) refuse();
        m.t.for_each_pair([&](Handle a, const u64&, Handle b, const u64&) {
          want_p.push_back(m.encode(a));
          want_p.push_back(m.encode(b));
        }, l);
      });
      got = quadrant_tree_pairs_into(s.c, l, out.get(), cap, cp);
    } else if (kind == 1) {
      const bool null_matrix = one_in(12);
      want = model([&] {
        if (null_count || null_matrix) refuse();
        m.t.for_each_pair([&](Handle a, const u64&, Handle b, const u64&) {
          want_p.push_back(m.encode(a));
          want_p.push_back(m.encode(b));
        }, to_matrix(&matrix));
      });
      got = quadrant_tree_pairs_filtered_into(s.c, null_matrix ? nullptr : &matrix, out.get(), cap, cp);
    } else {
      Slot& o = slots[static_cast<std::size_t>(pick(kTrees))];
      if (o.doomed) return;
      const u32 la = layers(), lb = layers();
      want = model([&] {
        if (null_count || o.c == nullptr) refuse();
        std::visit(
            [&](auto& y) {
              using Y = std::decay_t<decltype(y)>;
              if constexpr (std::is_same_v<Y, M>) {
                ensure_key(o, y);
                quadrant::for_each_pair(m.t, y.t, [&](Handle a, const u64&, Handle b, const u64&) {
                  want_p.push_back(m.encode(a));
                  want_p.push_back(y.encode(b));
                }, la, lb);
              } else {
                refuse();  // another dims or scalar
              }
            },
            o.m);
      });
      got = quadrant_trees_pairs_into(s.c, o.c, la, lb, out.get(), cap, cp);
    }
    expect(got, want, "pairs_into");
    if (want != QUADRANT_OK) return;
    CHECK(2 * count == want_p.size(), "pairs_into: the count differs from the model's");
    if (out.get() != nullptr)
      for (std::size_t i = 0; i < 2 * std::min(count, n); ++i)
        CHECK(out.p[i] == want_p[i], "pairs_into: a pair differs from the model's (or their order)");
  }

  template <class M>
  void raycast_into(Slot& s, M& m) {
    constexpr int D = M::kDims;
    using S = typename M::Scalar;
    ensure_key(s, m);
    auto a = doubles(D), b = doubles(D);
    const u32 l = layers();
    const std::size_t cap = capacity();
    const std::size_t n = room(cap, kMaxObjects);
    Out<quadrant_handle> hs = Out<quadrant_handle>::of(one_in(4), n);
    Out<u64> vs = Out<u64>::of(one_in(4), n);
    Out<double> ts = Out<double>::of(one_in(4), n);
    const bool null_count = one_in(24);
    std::vector<u64> want_r;
    const quadrant_status want = model([&] {
      if (null_count) refuse();
      if (cap == 0) return;  // nothing asked: the walk is not made (nor its arguments read)
      const Vec<D, S> pa = to_vec<D, S>(a.get());
      std::size_t k = 0;
      m.t.raycast(Segment<D, S>{pa, to_vec<D, S>(b.get())}, [&](Handle h, const u64& v, S t) {
        want_r.insert(want_r.end(), {m.encode(h), v, bits(static_cast<double>(t))});
        return ++k < cap;
      }, l);
    });
    std::size_t count = 12345;
    expect(quadrant_tree_raycast_into(s.c, a.get(), b.get(), l, hs.get(), vs.get(), ts.get(), cap,
                                      null_count ? nullptr : &count),
           want, "raycast_into");
    if (want != QUADRANT_OK) return;
    CHECK(3 * count == want_r.size(), "raycast_into: the count differs from the model's");
    for (std::size_t i = 0; i < count; ++i) {
      if (hs.get() != nullptr) CHECK(hs.p[i] == want_r[3 * i], "raycast_into: a handle differs from the model's");
      if (vs.get() != nullptr) CHECK(vs.p[i] == want_r[3 * i + 1], "raycast_into: a value differs from the model's");
      if (ts.get() != nullptr) CHECK(bits(ts.p[i]) == want_r[3 * i + 2], "raycast_into: a t differs from the model's");
    }
  }

  template <class M>
  void nearest(Slot& s, M& m) {
    constexpr int D = M::kDims;
    using S = typename M::Scalar;
    ensure_key(s, m);
    auto p = doubles(D);
    std::size_t k;
    switch (pick(5)) {
      case 0: k = 0; break;
      case 1: k = kHuge; break;
      case 2: k = 1; break;
      default: k = static_cast<std::size_t>(pick(70)); break;
    }
    double limit;
    switch (pick(6)) {
      case 0: limit = kInf; break;
      case 1: limit = coord(); break;
      default: limit = length(); break;
    }
    const u32 l = layers();
    const std::size_t n = room(k, kMaxObjects);
    Out<quadrant_handle> hs = Out<quadrant_handle>::of(one_in(4), n);
    Out<double> ds = Out<double>::of(one_in(4), n);
    const bool null_count = one_in(24);
    std::vector<Neighbor<S>> found;
    const quadrant_status want = model([&] {
      if (null_count) refuse();
      if (k == 0) return;  // nothing asked: the search is not made (nor its arguments read)
      if (std::isnan(limit)) refuse();
      const S lim = to_scalar<S>(limit);
      m.t.nearest(to_vec<D, S>(p.get()), k, found, lim, l);
    });
    std::size_t count = 12345;
    expect(quadrant_tree_nearest(s.c, p.get(), k, limit, l, hs.get(), ds.get(), null_count ? nullptr : &count), want,
           "nearest");
    if (want != QUADRANT_OK) return;
    CHECK(count == found.size(), "nearest: the count differs from the model's");
    for (std::size_t i = 0; i < count; ++i) {
      if (hs.get() != nullptr) CHECK(hs.p[i] == m.encode(found[i].handle), "nearest: a handle differs from the model's");
      if (ds.get() != nullptr)
        CHECK(bits(ds.p[i]) == bits(static_cast<double>(found[i].distance)), "nearest: a distance differs");
    }
  }

  // Stats, config, validate, locate and the leaves a shape touches (into an array).
  template <class M>
  void nodes(Slot& s, M& m) {
    constexpr int D = M::kDims;
    using S = typename M::Scalar;
    switch (pick(4)) {
      case 0: {
        const Stats w = m.t.stats();
        quadrant_stats st;
        expect(quadrant_tree_stats(s.c, nullptr), QUADRANT_INVALID_ARGUMENT, "stats(NULL)");
        expect(quadrant_tree_stats(s.c, &st), QUADRANT_OK, "stats");
        CHECK(st.nodes == w.nodes && st.leaves == w.leaves && st.depth == w.depth && st.objects == w.objects &&
                  st.references == w.references && st.outside_world == w.outside_world &&
                  st.root_entries == w.root_entries,
              "stats differ from the model's");
        break;
      }
      case 1: {
        check_config(s);
        CHECK(quadrant_tree_validate(s.c) == QUADRANT_OK, "validate failed");
        break;
      }
      case 2: {
        auto p = doubles(D);
        const bool null_out = one_in(12);
        std::vector<u64> want_n, got_n;
        const quadrant_status want = model([&] {
          if (null_out) refuse();
          put_view(want_n, m.t.locate(to_vec<D, S>(p.get())));
        });
        quadrant_node node{};
        expect(quadrant_tree_locate(s.c, p.get(), null_out ? nullptr : &node), want, "locate");
        if (want == QUADRANT_OK) {
          put_node(got_n, node, D);
          CHECK(got_n == want_n, "locate: the node differs from the model's");
        }
        break;
      }
      default: {
        const Shape q = shape(D);
        const int skip = pick(3);
        const std::size_t cap = capacity();
        const std::size_t n = room(cap, m.t.stats().nodes);  // no more leaves than nodes
        Out<quadrant_node> out = Out<quadrant_node>::of(one_in(6), n);
        const bool null_count = one_in(24);
        std::vector<u64> want_n, got_n;
        std::size_t leaves = 0;
        const quadrant_status want = model([&] {
          if (null_count) refuse();
          model_nodes(m, q.s, skip != 0, INT_MAX, n, want_n, &leaves);  // those the array has room for
        });
        std::size_t count = 12345;
        expect(quadrant_tree_query_nodes_into(s.c, &q.s, skip, out.get(), cap, null_count ? nullptr : &count), want,
               "query_nodes_into");
        if (want != QUADRANT_OK) return;
        CHECK(count == leaves, "query_nodes_into: the count differs from the model's");
        if (out.get() == nullptr) return;
        for (std::size_t i = 0; i < std::min(count, n); ++i) put_node(got_n, out.p[i], D);
        CHECK(got_n == want_n, "query_nodes_into: the nodes differ from the model's");
        break;
      }
    }
  }

  // ---- walks with callbacks ----

  // A walk of slot a (and b for cross pairs) with a callback that stops, acts and records; then the model's walk
  // must have handed out the same.
  void walk(int a) {
    Slot& s = slots[static_cast<std::size_t>(a)];
    if (depth > 0) return;  // no walk inside a walk's callback (other than the nested one below)
    Walk w;
    w.f = this;
    w.a = a;
    w.stop_at = one_in(3) ? 1 + pick(4) : INT_MAX;
    w.act_at = one_in(2) ? 1 : 2 + pick(2);
    w.action = pick(6);
    static constexpr int kGoOn[4] = {1, -1, 7, INT_MIN};
    w.go_on = kGoOn[pick(4)];
    const int kind = pick(7);
    const bool null_fn = one_in(24);
    std::vector<u64> want_r;
    quadrant_status want = QUADRANT_OK, got = QUADRANT_OK;
    int b = -1;
    auto count_stop = [&w, k = 0]() mutable { return ++k < w.stop_at; };
    with(s.m, [&](auto& m) {
      using M = std::decay_t<decltype(m)>;
      constexpr int D = M::kDims;
      using S = typename M::Scalar;
      w.dims = D;
      ensure_key(s, m);
      ++depth;
      switch (kind) {
        case 0: {
          const Shape q = shape(D);
          const u32 l = layers();
          const bool with_stats = one_in(2);
          quadrant_query_stats cs{};
          QueryStats st;
          got = quadrant_tree_query(s.c, &q.s, l, null_fn ? nullptr : on_hit, &w, with_stats ? &cs : nullptr);
          want = model([&] {
            if (null_fn) refuse();
            st = model_query(m, q.s, l, w.stop_at, want_r);
          });
          if (want == QUADRANT_OK && got == QUADRANT_OK && with_stats)
            CHECK(cs.nodes_visited == st.nodes_visited && cs.box_tests == st.box_tests && cs.hits == st.hits &&
                      cs.stopped == (st.stopped ? 1 : 0),
                  "query: the stats differ from the model's");
          break;
        }
        case 1:
        case 2: {
          const u32 l = layers();
          const bool filtered = kind == 2, null_matrix = one_in(12);
          got = filtered ? quadrant_tree_pairs_filtered(s.c, null_matrix ? nullptr : &matrix,
                                                        null_fn ? nullptr : on_pair, &w)
                         : quadrant_tree_pairs(s.c, l, null_fn ? nullptr : on_pair, &w);
          want = model([&] {
            if (null_fn || (filtered && null_matrix)) refuse();
            auto fn = [&](Handle x, const u64& vx, Handle y, const u64& vy) {
              want_r.insert(want_r.end(), {m.encode(x), vx, m.encode(y), vy});
              return count_stop();
            };
            if (filtered) m.t.for_each_pair(fn, to_matrix(&matrix));
            else m.t.for_each_pair(fn, l);
          });
          break;
        }
        case 3: {
          const int ob = pick(kTrees);
          Slot& o = slots[static_cast<std::size_t>(ob)];
          if (o.doomed) break;
          if (ob != a && o.c != nullptr) b = w.b = ob;
          with(o.m, [&](auto& y) { ensure_key(o, y); });
          const u32 la = layers(), lb = layers();
          got = quadrant_trees_pairs(s.c, o.c, la, lb, null_fn ? nullptr : on_pair, &w);
          want = model([&] {
            if (null_fn || o.c == nullptr) refuse();
            std::visit(
                [&](auto& y) {
                  if constexpr (std::is_same_v<std::decay_t<decltype(y)>, M>) {
                    quadrant::for_each_pair(m.t, y.t, [&](Handle x, const u64& vx, Handle z, const u64& vz) {
                      want_r.insert(want_r.end(), {m.encode(x), vx, y.encode(z), vz});
                      return count_stop();
                    }, la, lb);
                  } else {
                    refuse();
                  }
                },
                o.m);
          });
          break;
        }
        case 4: {
          auto pa = doubles(D), pb = doubles(D);
          const u32 l = layers();
          got = quadrant_tree_raycast(s.c, pa.get(), pb.get(), l, null_fn ? nullptr : on_ray, &w);
          want = model([&] {
            if (null_fn) refuse();
            const Vec<D, S> x = to_vec<D, S>(pa.get());
            m.t.raycast(Segment<D, S>{x, to_vec<D, S>(pb.get())}, [&](Handle h, const u64& v, S t) {
              want_r.insert(want_r.end(), {m.encode(h), v, bits(static_cast<double>(t))});
              return count_stop();
            }, l);
          });
          break;
        }
        case 5: {
          const Shape q = shape(D);
          const int skip = pick(3);
          got = quadrant_tree_query_nodes(s.c, &q.s, skip, null_fn ? nullptr : on_node, &w);
          want = model([&] {
            if (null_fn) refuse();
            model_nodes(m, q.s, skip != 0, w.stop_at, SIZE_MAX, want_r, nullptr);
          });
          break;
        }
        default: {
          got = quadrant_tree_for_each_node(s.c, null_fn ? nullptr : on_node, &w);
          want = model([&] {
            if (null_fn) refuse();
            m.t.for_each_node([&](const NodeView<D, S>& v) {
              put_view(want_r, v);
              return count_stop();
            });
          });
          break;
        }
      }
      --depth;
    });
    if (s.c == nullptr) {  // a NULL tree
      expect(quadrant_tree_for_each_node(nullptr, on_node, &w), QUADRANT_INVALID_ARGUMENT, "for_each_node(NULL)");
      return;
    }
    expect(got, want, "a walk with a callback");
    CHECK(w.got == want_r, "a walk's callback was handed other objects, pairs or nodes than the model's walk");
    // A tree destroyed from the callback is freed now; the others are as they were.
    for (const int t : {a, b}) {
      if (t < 0) continue;
      Slot& x = slots[static_cast<std::size_t>(t)];
      if (x.doomed) {
        x.c = nullptr;  // freed by the walk's end (LeakSanitizer checks)
        destroy_tree(x);
      } else {
        with(x.m, [&](auto& m) { check_tree(x, m, true); });
      }
    }
  }

  // What a walk's callback does at its act_at-th call.
  void act(Walk& w) {
    const int which = w.b >= 0 && one_in(2) ? w.b : w.a;
    Slot& s = slots[static_cast<std::size_t>(which)];
    if (s.doomed) return;
    switch (w.action) {
      case 0: refused_mutation(s); break;
      case 1: with(s.m, [&](auto& m) { query_into(s, m); }); break;
      case 2: nested(s); break;
      case 3:
        quadrant_tree_destroy(s.c);  // freed when the walk returns
        s.doomed = true;
        break;
      case 4: {  // another tree (not walked) may change
        const int t = pick(kTrees);
        if (t != w.a && t != w.b) tree_op(t, true);
        break;
      }
      default:
        with(s.m, [&](auto& m) {
          switch (pick(5)) {
            case 0: read_handle(s, m); break;
            case 1: nodes(s, m); break;
            case 2: nearest(s, m); break;
            case 3: pairs_into(s, m); break;
            default: raycast_into(s, m); break;
          }
        });
        break;
    }
  }

  // Every mutation of a tree from inside its own walk: QUADRANT_LOGIC_ERROR, and nothing changes.
  void refused_mutation(Slot& s) {
    with(s.m, [&](auto& m) {
      using M = std::decay_t<decltype(m)>;
      constexpr int D = M::kDims;
      ensure_key(s, m);
      const std::vector<Handle> hs = m.handles();
      const bool have = !hs.empty();
      const Handle x = have ? hs[pick_size(hs.size())] : Handle{};
      const quadrant_handle h = have ? m.encode(x) : 0;
      const u64 old = have ? m.t.value(x) : 0;
      auto lo = lattice_point(D, 0), hi = lattice_point(D, 10);
      quadrant_status got;
      bool needs_object = false;
      switch (pick(9)) {
        case 0: got = quadrant_tree_insert(s.c, lo.get(), hi.get(), 1, ~0u, nullptr); break;
        case 1: needs_object = true, got = quadrant_tree_erase(s.c, h); break;
        case 2: needs_object = true, got = quadrant_tree_move(s.c, h, lo.get(), hi.get()); break;
        case 3: needs_object = true, got = quadrant_tree_move_many(s.c, &h, lo.get(), hi.get(), 1); break;
        case 4: got = quadrant_tree_assign(s.c, lo.get(), hi.get(), nullptr, nullptr, 1, nullptr); break;
        case 5: got = quadrant_tree_rebuild(s.c, s.config.world_min, s.config.world_max); break;
        case 6: needs_object = true, got = quadrant_tree_set_layers(s.c, h, 1); break;
        case 7: needs_object = true, got = quadrant_tree_set_value(s.c, h, old + 1); break;
        default: got = quadrant_tree_clear(s.c); break;
      }
      if (!needs_object || have) CHECK(got == QUADRANT_LOGIC_ERROR, "a mutation from the tree's own callback was not refused as a logic error");
      else CHECK(got == QUADRANT_LOGIC_ERROR || got == QUADRANT_INVALID_ARGUMENT, "a mutation from the tree's own callback went through");
      CHECK(quadrant_last_error()[0] != '\0', "a refused call left no message");
      CHECK(quadrant_tree_size(s.c) == m.t.size(), "a refused mutation changed the size");
      if (have) {
        u64 v = 0;
        expect(quadrant_tree_value(s.c, h, &v), QUADRANT_OK, "value");
        CHECK(v == old, "a refused set_value changed the value");
        CHECK(quadrant_tree_contains(s.c, h) == 1, "a refused mutation dropped an object");
      }
      CHECK(quadrant_tree_validate(s.c) == QUADRANT_OK, "validate failed inside a walk");
    });
  }

  // A walk of the same tree from inside a callback: its own callback's mutations are refused, and it may destroy
  // the tree (freed when the outer walk returns).
  void nested(Slot& s) {
    with(s.m, [&](auto& m) {
      using M = std::decay_t<decltype(m)>;
      constexpr int D = M::kDims;
      // Over the whole lattice (most objects), or any shape.
      const double lo[3] = {-40, -40, -40}, hi[3] = {80, 80, 80};
      Shape q;
      q.s = quadrant_shape_box(D, lo, hi);
      if (one_in(4)) q = shape(D);
      const u32 l = one_in(4) ? layers() : ~0u;
      Nested n;
      n.tree = s.c;
      n.dims = D;
      n.destroy = one_in(3);
      std::size_t hits = 0;
      std::vector<u64> found;
      const quadrant_status want = model([&] { hits = model_query(m, q.s, l, INT_MAX, found).hits; });
      expect(quadrant_tree_query(s.c, &q.s, l, on_nested, &n, nullptr), want, "nested query");
      if (want == QUADRANT_OK) CHECK(n.calls == hits, "a nested walk was handed another number of objects");
      if (n.destroyed) s.doomed = true;
    });
  }

  // ---- contacts and the layer matrix ----

  void layer_matrix() {
    switch (pick(4)) {
      case 0: {
        const u32 x = layers(), y = layers();
        const bool null_matrix = one_in(16);
        quadrant_layer_matrix_between(null_matrix ? nullptr : &matrix, x, y);
        if (!null_matrix)
          for (int i = 0; i < 32; ++i) {
            if ((x >> i & 1u) != 0) mirror[static_cast<std::size_t>(i)] |= y;
            if ((y >> i & 1u) != 0) mirror[static_cast<std::size_t>(i)] |= x;
          }
        break;
      }
      case 1:
      case 2: {
        const int a = pick(34) - 1, b = pick(34) - 1, collide = pick(3);
        const bool null_matrix = one_in(16), bad = a < 0 || a > 31 || b < 0 || b > 31;
        expect(quadrant_layer_matrix_set(null_matrix ? nullptr : &matrix, a, b, collide),
               null_matrix || bad ? QUADRANT_INVALID_ARGUMENT : QUADRANT_OK, "layer_matrix_set");
        if (!null_matrix && !bad) {
          const auto ua = static_cast<std::size_t>(a), ub = static_cast<std::size_t>(b);
          if (collide != 0) mirror[ua] |= 1u << ub, mirror[ub] |= 1u << ua;
          else mirror[ua] &= ~(1u << ub), mirror[ub] &= ~(1u << ua);
        }
        break;
      }
      default: {  // the caller writes it by hand: not symmetric now and then (refused by the calls taking it)
        const std::size_t i = pick_size(32);
        matrix.partners[i] ^= 1u << pick(32);
        mirror[i] = matrix.partners[i];
        break;
      }
    }
    CHECK(std::equal(mirror.begin(), mirror.end(), std::begin(matrix.partners)),
          "the layer matrix helpers did not set what the header says");
  }

  void contacts_op() {
    switch (pick(6)) {
      case 0: {
        quadrant_contacts_destroy(contacts);
        contacts = nullptr;
        tracker.emplace<std::monostate>();
        tracked = 0;
        const bool null_out = one_in(16);
        quadrant_contacts* made = nullptr;
        expect(quadrant_contacts_create(null_out ? nullptr : &made),
               null_out ? QUADRANT_INVALID_ARGUMENT : QUADRANT_OK, "contacts_create");
        if (!null_out) CHECK(made != nullptr, "contacts_create succeeded with no tracker");
        contacts = made;
        break;
      }
      case 1:
        expect(quadrant_contacts_clear(contacts), contacts == nullptr ? QUADRANT_INVALID_ARGUMENT : QUADRANT_OK,
               "contacts_clear");
        tracker.emplace<std::monostate>();
        tracked = 0;
        break;
      default: {
        Slot& s = slots[static_cast<std::size_t>(pick(kTrees))];
        if (s.doomed) return;
        const u32 l = layers();
        const bool use_matrix = one_in(3), null_out = one_in(24);
        quadrant_contact_step step{};
        std::vector<quadrant_handle> want_c[3];
        const quadrant_status want = model([&] {
          if (contacts == nullptr || s.c == nullptr || null_out) refuse();
          const LayerMatrix lm = use_matrix ? to_matrix(&matrix) : LayerMatrix{};
          with(s.m, [&](auto& m) {
            using M = std::decay_t<decltype(m)>;
            using Tracker = ContactTracker<M::kDims, u64, typename M::Scalar>;
            if (!std::holds_alternative<std::monostate>(tracker) && !std::holds_alternative<Tracker>(tracker))
              refuse();  // a tracker of another tree type
            if (tracked != 0 && tracked != s.serial) refuse();  // another tree than the previous steps'
            ensure_key(s, m);
            Tracker fresh;
            Tracker& t = std::holds_alternative<Tracker>(tracker) ? std::get<Tracker>(tracker) : fresh;
            if (use_matrix) t.update(m.t, lm);
            else t.update(m.t, l);
            if (&t == &fresh) tracker.emplace<Tracker>(std::move(fresh));
            tracked = s.serial;
            const Tracker& done = std::get<Tracker>(tracker);
            const std::span<const Contact> lists[3] = {done.begun(), done.ended(), done.contacts()};
            for (int i = 0; i < 3; ++i)
              for (const Contact& c : lists[i]) {
                want_c[i].push_back(m.encode(c.a));
                want_c[i].push_back(m.encode(c.b));
              }
          });
        });
        expect(quadrant_contacts_update(contacts, s.c, l, use_matrix ? &matrix : nullptr, null_out ? nullptr : &step),
               want, "contacts_update");
        if (want != QUADRANT_OK) return;
        const quadrant_contact* got[3] = {step.begun, step.ended, step.contacts};
        const std::size_t n[3] = {step.begun_count, step.ended_count, step.contact_count};
        for (int i = 0; i < 3; ++i) {
          CHECK(2 * n[i] == want_c[i].size(), "contacts_update: a list's length differs from the model's");
          for (std::size_t j = 0; j < n[i]; ++j)
            CHECK(got[i][j].a == want_c[i][2 * j] && got[i][j].b == want_c[i][2 * j + 1],
                  "contacts_update: a contact differs from the model's (or their order)");
        }
        break;
      }
    }
  }

  // ---- the area-of-interest world ----

  // The last successful tick's events are still there, unchanged.
  void check_events() {
    if (events != nullptr && !events_copy.empty())
      CHECK(std::memcmp(events, events_copy.data(), events_copy.size() * sizeof(quadrant_aoi_event)) == 0,
            "the last tick's events changed before the next successful tick");
  }

  void aoi_create() {
    quadrant_aoi_destroy(aoi);
    aoi = nullptr;
    aoi_m.emplace<std::monostate>();
    events = nullptr;
    events_copy.clear();
    quadrant_aoi_settings st;
    const auto scalar = one_in(2) ? QUADRANT_FLOAT : QUADRANT_DOUBLE;
    quadrant_aoi_settings_init(&st, scalar);
    CHECK(st.scalar == scalar && st.world_min[0] == 0 && st.world_max[1] == 1000 && st.hysteresis == 0 &&
              st.skin == 0 && st.max_depth == 8 && st.split_threshold == 16,
          "quadrant_aoi_settings_init: not the documented defaults");
    static constexpr double kLo[3] = {0, -32, 8}, kSize[3] = {8, 32, 64};
    const double lo = kLo[pick(3)], size = kSize[pick(3)];
    for (int i = 0; i < 2; ++i) st.world_min[i] = lo, st.world_max[i] = lo + size;
    st.hysteresis = one_in(2) ? 0 : 0.5 * pick(8);
    st.skin = one_in(2) ? 0 : 0.5 * pick(16);
    st.max_depth = pick(9);
    st.split_threshold = 1 + pick(16);
    if (one_in(4)) {
      switch (pick(8)) {
        case 0: st.scalar = static_cast<quadrant_scalar>(2); break;
        case 1: st.world_min[pick(2)] = coord(); break;
        case 2: st.world_max[pick(2)] = st.world_min[0]; break;
        case 3: st.hysteresis = length(); break;
        case 4: st.skin = length(); break;
        case 5: st.max_depth = -1; break;
        case 6: st.split_threshold = pick(2) - 1; break;
        default: st.world_max[pick(2)] = 1e39; break;
      }
    }
    const bool null_settings = one_in(40), null_out = one_in(40);
    const quadrant_status want = model([&] {
      if (null_settings || null_out) refuse();
      const int sc = static_cast<int>(st.scalar);
      if (sc != QUADRANT_FLOAT && sc != QUADRANT_DOUBLE) refuse();
      auto make = [&](auto scalar_tag) {
        using S = decltype(scalar_tag);
        AoiSettings<S> a;
        a.world = Box<2, S>{to_vec<2, S>(st.world_min), to_vec<2, S>(st.world_max)};
        a.hysteresis = to_scalar<S>(st.hysteresis);
        a.skin = to_scalar<S>(st.skin);
        a.max_depth = st.max_depth;
        a.split_threshold = st.split_threshold;
        aoi_m.emplace<AoiM<S>>(a);
      };
      if (sc == QUADRANT_FLOAT) make(0.0f);
      else make(0.0);
    });
    if (want != QUADRANT_OK) aoi_m.emplace<std::monostate>();
    quadrant_aoi* made = reinterpret_cast<quadrant_aoi*>(this);
    expect(quadrant_aoi_create(null_settings ? nullptr : &st, null_out ? nullptr : &made), want, "aoi_create");
    if (want != QUADRANT_OK) {
      if (!null_out) CHECK(made == nullptr, "a failed aoi_create left *out set");
      return;
    }
    aoi = made;
  }

  // Every id's presence, the size and the pair count; after a tick also positions, lists and validate().
  template <class A>
  void check_aoi(A& a, bool ticked) {
    using S = typename A::Scalar;
    CHECK(quadrant_aoi_size(aoi) == a.w.size() && quadrant_aoi_pair_count(aoi) == a.w.pair_count(),
          "aoi: size or pair_count differs from the model's");
    for (const u64 id : kAllIds) CHECK(quadrant_aoi_contains(aoi, id) == (a.w.contains(id) ? 1 : 0), "aoi: contains");
    check_events();
    if (!ticked) return;
    expect(quadrant_aoi_validate(aoi), QUADRANT_OK, "aoi_validate");
    for (const u64 id : kAllIds) {
      Vec<2, S> p{};
      double xy[2] = {0, 0};
      const quadrant_status want = model([&] { p = a.w.position(id); });
      expect(quadrant_aoi_position(aoi, id, xy), want, "aoi_position");
      if (want == QUADRANT_OK)
        CHECK(bits(xy[0]) == bits(static_cast<double>(p.x)) && bits(xy[1]) == bits(static_cast<double>(p.y)),
              "aoi: a position differs from the model's");
      aoi_list(a, id, 0);
      aoi_list(a, id, 1);
    }
  }
  // visible (kind 0) or watchers (1) of id.
  template <class A>
  void aoi_list(A& a, u64 id, int kind) {
    std::vector<u64> want_ids;
    const quadrant_status want = model([&] {
      if (kind == 0) a.w.for_each_visible(id, [&](u64 x) { want_ids.push_back(x); });
      else a.w.for_each_watcher(id, [&](u64 x) { want_ids.push_back(x); });
    });
    std::vector<u64> got(a.w.size() + 1);
    std::size_t count = 12345;
    expect(kind == 0 ? quadrant_aoi_visible(aoi, id, got.data(), got.size(), &count)
                     : quadrant_aoi_watchers(aoi, id, got.data(), got.size(), &count),
           want, "aoi_visible/watchers");
    if (want != QUADRANT_OK) return;
    CHECK(count == want_ids.size() && count <= got.size() && std::equal(want_ids.begin(), want_ids.end(), got.begin()),
          "aoi: visible or watchers differ from the model's");
  }

  // (x, y) in S: rounded, refused beyond float; NaN, infinite or beyond 1e150 refused (as AoiWorld does).
  template <class S>
  static Vec<2, S> aoi_at(double x, double y) {
    const Vec<2, S> p{to_scalar<S>(x), to_scalar<S>(y)};
    for (int i = 0; i < 2; ++i)
      if (!std::isfinite(p[i]) || std::fabs(static_cast<double>(p[i])) > 1e150) refuse();
    return p;
  }

  void aoi_op() {
    if (aoi == nullptr || one_in(40)) {
      if (aoi == nullptr && one_in(16)) return aoi_null();  // every call refused: throws, which cost
      return aoi_create();
    }
    std::visit(
        [&](auto& a) {
          if constexpr (!std::is_same_v<std::decay_t<decltype(a)>, std::monostate>) aoi_call(a);
        },
        aoi_m);
  }

  template <class A>
  void aoi_call(A& a) {
    using S = typename A::Scalar;
    bool ticked = false;
    switch (pick(12)) {
      case 0:
      case 1:
      case 2: {
        const u64 id = this->id();
        const double x = coord(), y = coord(), r = length(), body = one_in(2) ? 0 : length();
        static constexpr int kModes[8] = {1, 2, 3, 3, 1, 0, 4, -1};
        const int mode = kModes[pick(8)];
        const u32 l = layers();
        const quadrant_status want = model([&] {
          if (mode < 1 || mode > 3) refuse();
          const Vec<2, S> p{to_scalar<S>(x), to_scalar<S>(y)};
          const S view = to_scalar<S>(r);
          a.w.add(id, p, view, static_cast<AoiMode>(mode), l, to_scalar<S>(body));
        });
        expect(quadrant_aoi_add(aoi, id, x, y, r, static_cast<quadrant_aoi_mode>(mode), l, body), want, "aoi_add");
        break;
      }
      case 3: {
        const u64 id = this->id();
        const double x = coord(), y = coord();
        const quadrant_status want = model([&] { a.w.move(id, Vec<2, S>{to_scalar<S>(x), to_scalar<S>(y)}); });
        expect(quadrant_aoi_move(aoi, id, x, y), want, "aoi_move");
        break;
      }
      case 4: {
        const std::size_t n = static_cast<std::size_t>(pick(6));
        auto ids = std::make_unique<u64[]>(n == 0 ? 1 : n);
        for (std::size_t i = 0; i < n; ++i) ids[i] = one_in(8) ? this->id() : Ids::id_of(pick(kIds));
        auto xy = doubles(2 * n);
        if (one_in(24)) ids.reset();
        const std::size_t count = !ids && one_in(2) ? kHuge : n;
        const quadrant_status want = model([&] {
          if (count == 0) return;
          if (!ids || !xy) refuse();
          std::vector<Vec<2, S>> to(count);
          for (std::size_t i = 0; i < count; ++i) {
            to[i] = aoi_at<S>(xy[2 * i], xy[2 * i + 1]);
            if (!a.w.contains(ids[i])) refuse();
          }
          for (std::size_t i = 0; i < count; ++i) a.w.move(ids[i], to[i]);  // checked whole first
        });
        expect(quadrant_aoi_move_many(aoi, ids.get(), xy.get(), count), want, "aoi_move_many");
        break;
      }
      case 5: {
        const u64 id = this->id();
        const double r = length();
        const quadrant_status want = model([&] { a.w.set_view_radius(id, to_scalar<S>(r)); });
        expect(quadrant_aoi_set_view_radius(aoi, id, r), want, "aoi_set_view_radius");
        break;
      }
      case 6: {
        const u64 id = this->id();
        const u32 l = layers();
        const quadrant_status want = model([&] { a.w.set_layers(id, l); });
        expect(quadrant_aoi_set_layers(aoi, id, l), want, "aoi_set_layers");
        break;
      }
      case 7: {
        const u64 id = this->id();
        const quadrant_status want = model([&] { a.w.remove(id); });
        expect(quadrant_aoi_remove(aoi, id), want, "aoi_remove");
        break;
      }
      case 8:
      case 9: {
        const bool null_events = one_in(24), null_count = one_in(24);
        std::vector<quadrant_aoi_event> want_e;
        const quadrant_status want = model([&] {
          if (null_events || null_count) refuse();
          a.w.tick([&](const AoiEvent& e) {
            want_e.push_back(quadrant_aoi_event{
                e.watcher, e.target, e.kind == AoiEvent::Kind::Enter ? QUADRANT_AOI_ENTER : QUADRANT_AOI_LEAVE, 0});
          });
        });
        const quadrant_aoi_event* got = nullptr;
        std::size_t count = 12345;
        expect(quadrant_aoi_tick(aoi, null_events ? nullptr : &got, null_count ? nullptr : &count), want, "aoi_tick");
        if (want != QUADRANT_OK) break;
        CHECK(count == want_e.size(), "aoi_tick: the number of events differs from the model's");
        for (std::size_t i = 0; i < count; ++i)
          CHECK(got[i].watcher == want_e[i].watcher && got[i].target == want_e[i].target &&
                    got[i].kind == want_e[i].kind && got[i].reserved == 0,
                "aoi_tick: an event differs from the model's (or their order)");
        events = got;
        events_copy.assign(got, got + count);
        ticked = true;
        break;
      }
      case 10: {
        const Shape q = shape(one_in(8) ? 3 : 2);
        const u32 l = layers();
        const std::size_t cap = capacity();
        const std::size_t n = room(cap, a.w.size());  // no more than that can come
        Out<u64> out = Out<u64>::of(one_in(4), n);
        const bool null_count = one_in(24), null_shape = one_in(32);
        std::vector<u64> want_ids;
        const quadrant_status want = model([&] {
          if (null_count || null_shape) refuse();
          with_shape<2, S>(q.s, [&](const auto& x) { a.w.query(x, [&](u64 id) { want_ids.push_back(id); }, l); });
        });
        std::size_t count = 12345;
        expect(quadrant_aoi_query_into(aoi, null_shape ? nullptr : &q.s, l, out.get(), cap,
                                       null_count ? nullptr : &count),
               want, "aoi_query_into");
        if (want != QUADRANT_OK) break;
        CHECK(count == want_ids.size(), "aoi_query_into: the count differs from the model's");
        if (out.get() != nullptr)
          for (std::size_t i = 0; i < std::min(count, n); ++i)
            CHECK(out.p[i] == want_ids[i], "aoi_query_into: an id differs from the model's (or their order)");
        break;
      }
      default: {
        // visible / watchers with any capacity, a NULL output, position with NULL.
        const u64 id = this->id();
        const int kind = pick(3);
        if (kind == 2) {
          expect(quadrant_aoi_position(aoi, id, nullptr), QUADRANT_INVALID_ARGUMENT, "aoi_position(NULL)");
          break;
        }
        std::vector<u64> want_ids;
        const bool null_count = one_in(12);
        const quadrant_status want = model([&] {
          if (null_count) refuse();
          if (kind == 0) a.w.for_each_visible(id, [&](u64 x) { want_ids.push_back(x); });
          else a.w.for_each_watcher(id, [&](u64 x) { want_ids.push_back(x); });
        });
        const std::size_t cap = capacity();
        const std::size_t n = room(cap, a.w.size());  // no more than that can come
        Out<u64> out = Out<u64>::of(one_in(4), n);
        std::size_t count = 12345;
        std::size_t* cp = null_count ? nullptr : &count;
        expect(kind == 0 ? quadrant_aoi_visible(aoi, id, out.get(), cap, cp)
                         : quadrant_aoi_watchers(aoi, id, out.get(), cap, cp),
               want, "aoi_visible/watchers");
        if (want != QUADRANT_OK) break;
        CHECK(count == want_ids.size(), "aoi: the count of visible or watchers differs from the model's");
        if (out.get() != nullptr)
          for (std::size_t i = 0; i < std::min(count, n); ++i)
            CHECK(out.p[i] == want_ids[i], "aoi: visible or watchers differ from the model's");
        break;
      }
    }
    check_aoi(a, ticked);
  }

  // ---- the streamer ----

  // The last successful update's arrays are still there, unchanged.
  void check_update() {
    if (!updated) return;
    CHECK(last.load_count == loads_copy.size() && last.unload_count == unloads_copy.size() &&
              last.cancel_count == cancels_copy.size(),
          "fuzz target: the update copies");
    if (!loads_copy.empty())
      CHECK(std::memcmp(last.loads, loads_copy.data(), loads_copy.size() * sizeof(quadrant_stream_load)) == 0,
            "the last update's loads changed before the next successful update");
    if (!unloads_copy.empty())
      CHECK(std::memcmp(last.unloads, unloads_copy.data(), unloads_copy.size() * sizeof(u64)) == 0,
            "the last update's unloads changed before the next successful update");
    if (!cancels_copy.empty())
      CHECK(std::memcmp(last.cancels, cancels_copy.data(), cancels_copy.size() * sizeof(u64)) == 0,
            "the last update's cancels changed before the next successful update");
  }

  void streamer_create() {
    quadrant_streamer_destroy(streamer);
    streamer = nullptr;
    stream_m.emplace<std::monostate>();
    updated = false;
    quadrant_streamer_config cfg;
    const auto scalar = one_in(2) ? QUADRANT_FLOAT : QUADRANT_DOUBLE;
    quadrant_streamer_config_init(&cfg, scalar);
    CHECK(cfg.tree.dims == 3 && cfg.tree.scalar == scalar && cfg.tree.world_max[2] == 1 && cfg.unload_margin == 0 &&
              cfg.max_loads_per_update == 16 && cfg.max_loads_in_flight == 64,
          "quadrant_streamer_config_init: not the documented defaults");
    static constexpr double kLo[3] = {0, -32, 8}, kSize[3] = {8, 32, 64};
    const double lo = kLo[pick(3)], size = kSize[pick(3)];
    for (int i = 0; i < 3; ++i) cfg.tree.world_min[i] = lo, cfg.tree.world_max[i] = lo + size;
    cfg.tree.max_depth = pick(7);
    cfg.tree.split_threshold = one_in(6) ? 0 : 1 + pick(8);
    if (cfg.tree.split_threshold == 0) cfg.tree.max_depth = std::min(cfg.tree.max_depth, 3);
    cfg.tree.placement = static_cast<quadrant_placement>(pick(3));
    cfg.unload_margin = one_in(2) ? 0 : 0.5 * pick(16);
    static constexpr std::size_t kCaps[6] = {0, 1, 2, 3, 16, kHuge};
    cfg.max_loads_per_update = kCaps[pick(6)];
    cfg.max_loads_in_flight = kCaps[pick(6)];
    if (one_in(4)) {
      switch (pick(6)) {
        case 0: cfg.tree.dims = 2; break;
        case 1: cfg.tree.scalar = static_cast<quadrant_scalar>(-1); break;
        case 2: cfg.unload_margin = length(); break;
        case 3: cfg.tree.world_min[pick(3)] = coord(); break;
        case 4: cfg.tree.placement = static_cast<quadrant_placement>(7); break;
        default: cfg.tree.max_depth = -1; break;
      }
    }
    const bool null_config = one_in(40), null_out = one_in(40);
    const quadrant_status want = model([&] {
      if (null_config || null_out || cfg.tree.dims != 3) refuse();
      const int sc = static_cast<int>(cfg.tree.scalar);
      if (sc != QUADRANT_FLOAT && sc != QUADRANT_DOUBLE) refuse();
      auto make = [&](auto scalar_tag) {
        using S = decltype(scalar_tag);
        StreamerConfig<S> c;
        c.tree.world = Box<3, S>{to_vec<3, S>(cfg.tree.world_min), to_vec<3, S>(cfg.tree.world_max)};
        c.tree.max_depth = cfg.tree.max_depth;
        c.tree.split_threshold = cfg.tree.split_threshold;
        c.tree.min_node_size = to_scalar<S>(cfg.tree.min_node_size);
        const int p = static_cast<int>(cfg.tree.placement);
        if (p < 0 || p > 2) refuse();
        c.tree.placement = static_cast<Placement>(p);
        c.unload_margin = to_scalar<S>(cfg.unload_margin);
        c.max_loads_per_update = cfg.max_loads_per_update;
        c.max_loads_in_flight = cfg.max_loads_in_flight;
        stream_m.emplace<StreamM<S>>(c);
      };
      if (sc == QUADRANT_FLOAT) make(0.0f);
      else make(0.0);
    });
    if (want != QUADRANT_OK) stream_m.emplace<std::monostate>();
    quadrant_streamer* made = reinterpret_cast<quadrant_streamer*>(this);
    expect(quadrant_streamer_create(null_config ? nullptr : &cfg, null_out ? nullptr : &made), want,
           "streamer_create");
    if (want != QUADRANT_OK) {
      if (!null_out) CHECK(made == nullptr, "a failed streamer_create left *out set");
      return;
    }
    streamer = made;
  }

  template <class T>
  void check_streamer(T& t) {
    using S = typename T::Scalar;
    expect(quadrant_streamer_validate(streamer), QUADRANT_OK, "streamer_validate");
    CHECK(quadrant_streamer_size(streamer) == t.s.size(), "streamer: size differs from the model's");
    for (const u64 id : kAllIds) {
      CHECK(quadrant_streamer_contains(streamer, id) == (t.s.contains(id) ? 1 : 0), "streamer: contains");
      quadrant_stream_state st = QUADRANT_STREAM_QUEUED;
      double lo[3], hi[3];
      int want_state = 0;
      Box<3, S> box{};
      const quadrant_status want = model([&] {
        want_state = state_of(t.s.state(id));
        box = t.s.bounds(id);
      });
      expect(quadrant_streamer_state(streamer, id, &st), want, "streamer_state");
      expect(quadrant_streamer_bounds(streamer, id, lo, hi), want, "streamer_bounds");
      if (want != QUADRANT_OK) continue;
      CHECK(static_cast<int>(st) == want_state, "streamer: a state differs from the model's");
      for (int i = 0; i < 3; ++i)
        CHECK(bits(lo[i]) == bits(static_cast<double>(box.min[i])) &&
                  bits(hi[i]) == bits(static_cast<double>(box.max[i])),
              "streamer: a box differs from the model's");
    }
    check_update();
  }

  void streamer_op() {
    if (streamer == nullptr || one_in(40)) {
      if (streamer == nullptr && one_in(16)) return streamer_null();  // every call refused: throws, which cost
      return streamer_create();
    }
    std::visit(
        [&](auto& t) {
          if constexpr (!std::is_same_v<std::decay_t<decltype(t)>, std::monostate>) streamer_call(t);
        },
        stream_m);
  }

  // The id of an object present (mostly), or any.
  template <class T>
  u64 object(T& t) {
    if (one_in(4)) return id();
    std::vector<u64> present;
    for (const u64 x : kAllIds)
      if (t.s.contains(x)) present.push_back(x);
    return present.empty() ? id() : present[pick_size(present.size())];
  }

  template <class T>
  void streamer_call(T& t) {
    using S = typename T::Scalar;
    switch (pick(10)) {
      case 0:
      case 1: {
        const u64 x = id();
        std::unique_ptr<double[]> lo, hi;
        boxes(3, 1, lo, hi);
        const quadrant_status want = model([&] { t.s.add(x, to_box<3, S>(lo.get(), hi.get())); });
        expect(quadrant_streamer_add(streamer, x, lo.get(), hi.get()), want, "streamer_add");
        break;
      }
      case 2: {
        const u64 x = object(t);
        const bool null_was = one_in(4);
        int want_was = -1;
        const quadrant_status want = model([&] { want_was = state_of(t.s.remove(x)); });
        quadrant_stream_state was = QUADRANT_STREAM_QUEUED;
        expect(quadrant_streamer_remove(streamer, x, null_was ? nullptr : &was), want, "streamer_remove");
        if (want == QUADRANT_OK && !null_was) CHECK(static_cast<int>(was) == want_was, "streamer_remove: was");
        break;
      }
      case 3: {
        const u64 x = object(t);
        std::unique_ptr<double[]> lo, hi;
        boxes(3, 1, lo, hi);
        const quadrant_status want = model([&] { t.s.move(x, to_box<3, S>(lo.get(), hi.get())); });
        expect(quadrant_streamer_move(streamer, x, lo.get(), hi.get()), want, "streamer_move");
        break;
      }
      case 4: {
        const u64 x = object(t);
        const bool loaded = one_in(2), null_accepted = one_in(4);
        bool want_ok = false;
        const quadrant_status want = model([&] { want_ok = loaded ? t.s.mark_loaded(x) : t.s.mark_failed(x); });
        int accepted = -1;
        int* ap = null_accepted ? nullptr : &accepted;
        expect(loaded ? quadrant_streamer_mark_loaded(streamer, x, ap) : quadrant_streamer_mark_failed(streamer, x, ap),
               want, "streamer_mark_loaded/failed");
        if (want == QUADRANT_OK && !null_accepted) CHECK(accepted == (want_ok ? 1 : 0), "streamer_mark_*: accepted");
        break;
      }
      case 5: {
        static constexpr std::size_t kCaps[6] = {0, 1, 2, 3, 16, kHuge};
        const std::size_t per = kCaps[pick(6)], flight = kCaps[pick(6)];
        t.s.set_limits(per, flight);
        expect(quadrant_streamer_set_limits(streamer, per, flight), QUADRANT_OK, "streamer_set_limits");
        break;
      }
      default: {
        const std::size_t n = static_cast<std::size_t>(pick(4));
        auto src = std::make_unique<quadrant_stream_source[]>(n == 0 ? 1 : n);
        for (std::size_t i = 0; i < n; ++i) {
          quadrant_stream_source& c = src[i];
          c = quadrant_stream_source{};
          c.has_frustum = pick(3) == 0 ? 0 : pick(3);
          c.matrix_row_major = pick(3);
          c.clip_zero_to_one = pick(3);
          matrix16(c.matrix);
          for (int a = 0; a < 3; ++a) c.position[a] = coord();
          c.prefetch_radius = length();
        }
        if (one_in(24)) src.reset();
        const std::size_t count = !src && one_in(2) ? kHuge : n;
        const bool null_out = one_in(24);
        const StreamUpdate<S>* u = nullptr;
        const quadrant_status want = model([&] {
          if (null_out) refuse();
          if (count != 0 && !src) refuse();
          std::vector<StreamingSource<S>> ss;
          for (std::size_t i = 0; i < count; ++i) {
            const quadrant_stream_source& c = src[i];
            StreamingSource<S> x;
            if (c.has_frustum != 0) x.frustum = to_frustum<S>(c.matrix, c.matrix_row_major, c.clip_zero_to_one);
            x.position = to_vec<3, S>(c.position);
            x.prefetch_radius = to_scalar<S>(c.prefetch_radius);
            ss.push_back(x);
          }
          u = &t.s.update(std::span<const StreamingSource<S>>(ss));
        });
        quadrant_stream_update out{};
        expect(quadrant_streamer_update(streamer, src.get(), count, null_out ? nullptr : &out), want,
               "streamer_update");
        if (want != QUADRANT_OK) break;
        CHECK(out.load_count == u->loads.size() && out.unload_count == u->unloads.size() &&
                  out.cancel_count == u->cancels.size(),
              "streamer_update: the number of loads, unloads or cancels differs from the model's");
        for (std::size_t i = 0; i < out.load_count; ++i)
          CHECK(out.loads[i].id == u->loads[i].id &&
                    bits(out.loads[i].distance) == bits(static_cast<double>(u->loads[i].distance)),
                "streamer_update: a load differs from the model's (or their order)");
        CHECK(std::equal(u->unloads.begin(), u->unloads.end(), out.unloads) &&
                  std::equal(u->cancels.begin(), u->cancels.end(), out.cancels),
              "streamer_update: the unloads or cancels differ from the model's");
        const StreamStats& w = u->stats;
        const quadrant_stream_stats& g = out.stats;
        CHECK(g.nodes_visited == w.nodes_visited && g.box_tests == w.box_tests && g.kept_tests == w.kept_tests &&
                  g.wanted == w.wanted && g.dequeued == w.dequeued && g.queued == w.queued &&
                  g.loading == w.loading && g.loaded == w.loaded,
              "streamer_update: the stats differ from the model's");
        updated = true;
        last = out;
        loads_copy.assign(out.loads, out.loads + out.load_count);
        unloads_copy.assign(out.unloads, out.unloads + out.unload_count);
        cancels_copy.assign(out.cancels, out.cancels + out.cancel_count);
        break;
      }
    }
    check_streamer(t);
  }

  // ---- NULL objects ----

  void tree_null() {
    const double p[3] = {1, 1, 1};
    const quadrant_shape q = quadrant_shape_box(2, p, p);
    quadrant_handle h = 0;
    std::size_t n = 0;
    u64 v = 0;
    u32 l = 0;
    double lo[3], hi[3], t = 0;
    quadrant_node node;
    quadrant_stats st;
    quadrant_config cfg;
    Walk w;
    w.f = this;
    const quadrant_status bad = QUADRANT_INVALID_ARGUMENT;
    expect(quadrant_tree_insert(nullptr, p, p, 1, ~0u, &h), bad, "insert(NULL)");
    expect(quadrant_tree_erase(nullptr, h), bad, "erase(NULL)");
    expect(quadrant_tree_move(nullptr, h, p, p), bad, "move(NULL)");
    expect(quadrant_tree_move_many(nullptr, &h, p, p, 1), bad, "move_many(NULL)");
    expect(quadrant_tree_assign(nullptr, p, p, nullptr, nullptr, 1, nullptr), bad, "assign(NULL)");
    expect(quadrant_tree_rebuild(nullptr, p, p), bad, "rebuild(NULL)");
    expect(quadrant_tree_set_layers(nullptr, h, 1), bad, "set_layers(NULL)");
    expect(quadrant_tree_set_value(nullptr, h, 1), bad, "set_value(NULL)");
    expect(quadrant_tree_clear(nullptr), bad, "clear(NULL)");
    expect(quadrant_tree_bounds(nullptr, h, lo, hi), bad, "bounds(NULL)");
    expect(quadrant_tree_value(nullptr, h, &v), bad, "value(NULL)");
    expect(quadrant_tree_layers(nullptr, h, &l), bad, "layers(NULL)");
    expect(quadrant_tree_query(nullptr, &q, ~0u, on_hit, &w, nullptr), bad, "query(NULL)");
    expect(quadrant_tree_query_into(nullptr, &q, ~0u, &h, &v, 1, &n), bad, "query_into(NULL)");
    expect(quadrant_tree_pairs(nullptr, ~0u, on_pair, &w), bad, "pairs(NULL)");
    expect(quadrant_tree_pairs_into(nullptr, ~0u, &h, 0, &n), bad, "pairs_into(NULL)");
    expect(quadrant_tree_pairs_filtered(nullptr, &matrix, on_pair, &w), bad, "pairs_filtered(NULL)");
    expect(quadrant_tree_pairs_filtered_into(nullptr, &matrix, &h, 0, &n), bad, "pairs_filtered_into(NULL)");
    expect(quadrant_trees_pairs(nullptr, nullptr, ~0u, ~0u, on_pair, &w), bad, "trees_pairs(NULL)");
    expect(quadrant_trees_pairs_into(nullptr, nullptr, ~0u, ~0u, &h, 0, &n), bad, "trees_pairs_into(NULL)");
    expect(quadrant_tree_raycast(nullptr, p, p, ~0u, on_ray, &w), bad, "raycast(NULL)");
    expect(quadrant_tree_raycast_into(nullptr, p, p, ~0u, &h, &v, &t, 1, &n), bad, "raycast_into(NULL)");
    expect(quadrant_tree_nearest(nullptr, p, 1, kInf, ~0u, &h, &t, &n), bad, "nearest(NULL)");
    expect(quadrant_tree_stats(nullptr, &st), bad, "stats(NULL)");
    expect(quadrant_tree_config(nullptr, &cfg), bad, "config(NULL)");
    expect(quadrant_tree_validate(nullptr), bad, "validate(NULL)");
    expect(quadrant_tree_query_nodes(nullptr, &q, 1, on_node, &w), bad, "query_nodes(NULL)");
    expect(quadrant_tree_query_nodes_into(nullptr, &q, 1, &node, 1, &n), bad, "query_nodes_into(NULL)");
    expect(quadrant_tree_for_each_node(nullptr, on_node, &w), bad, "for_each_node(NULL)");
    expect(quadrant_tree_locate(nullptr, p, &node), bad, "locate(NULL)");
    CHECK(quadrant_tree_contains(nullptr, h) == 0 && quadrant_tree_size(nullptr) == 0, "NULL tree: contains, size");
    quadrant_tree_destroy(nullptr);
    quadrant_config_init(nullptr, 2, QUADRANT_FLOAT);
    quadrant_layer_matrix_between(nullptr, 1, 1);
    expect(quadrant_layer_matrix_set(nullptr, 0, 0, 1), bad, "layer_matrix_set(NULL)");
    quadrant_contact_step step;
    expect(quadrant_contacts_update(nullptr, slots[0].c, ~0u, nullptr, &step), bad, "contacts_update(NULL)");
    expect(quadrant_contacts_clear(nullptr), bad, "contacts_clear(NULL)");
    expect(quadrant_contacts_create(nullptr), bad, "contacts_create(NULL)");
    quadrant_contacts_destroy(nullptr);
    char version[32];
    std::snprintf(version, sizeof version, "%d.%d.%d", QUADRANT_C_VERSION_MAJOR, QUADRANT_C_VERSION_MINOR,
                  QUADRANT_C_VERSION_PATCH);
    CHECK(std::strcmp(quadrant_version(), version) == 0, "quadrant_version differs from the header's");
  }

  void aoi_null() {
    const quadrant_status bad = QUADRANT_INVALID_ARGUMENT;
    const double p[2] = {1, 1};
    const quadrant_shape q = quadrant_shape_point(2, p);
    const u64 one = 1;
    u64 ids[2];
    std::size_t n = 0;
    const quadrant_aoi_event* e = nullptr;
    double xy[2];
    expect(quadrant_aoi_add(nullptr, 1, 0, 0, 1, QUADRANT_AOI_BOTH, ~0u, 0), bad, "aoi_add(NULL)");
    expect(quadrant_aoi_move(nullptr, 1, 0, 0), bad, "aoi_move(NULL)");
    expect(quadrant_aoi_move_many(nullptr, &one, p, 1), bad, "aoi_move_many(NULL)");
    expect(quadrant_aoi_set_view_radius(nullptr, 1, 1), bad, "aoi_set_view_radius(NULL)");
    expect(quadrant_aoi_set_layers(nullptr, 1, 1), bad, "aoi_set_layers(NULL)");
    expect(quadrant_aoi_remove(nullptr, 1), bad, "aoi_remove(NULL)");
    expect(quadrant_aoi_tick(nullptr, &e, &n), bad, "aoi_tick(NULL)");
    expect(quadrant_aoi_visible(nullptr, 1, ids, 2, &n), bad, "aoi_visible(NULL)");
    expect(quadrant_aoi_watchers(nullptr, 1, ids, 2, &n), bad, "aoi_watchers(NULL)");
    expect(quadrant_aoi_query_into(nullptr, &q, ~0u, ids, 2, &n), bad, "aoi_query_into(NULL)");
    expect(quadrant_aoi_position(nullptr, 1, xy), bad, "aoi_position(NULL)");
    expect(quadrant_aoi_validate(nullptr), bad, "aoi_validate(NULL)");
    CHECK(quadrant_aoi_contains(nullptr, 1) == 0 && quadrant_aoi_size(nullptr) == 0 &&
              quadrant_aoi_pair_count(nullptr) == 0,
          "NULL world: contains, size, pair_count");
    quadrant_aoi_destroy(nullptr);
    quadrant_aoi_settings_init(nullptr, QUADRANT_FLOAT);
  }

  void streamer_null() {
    const quadrant_status bad = QUADRANT_INVALID_ARGUMENT;
    const double p[3] = {1, 1, 1};
    double lo[3], hi[3];
    quadrant_stream_state st;
    int accepted;
    quadrant_stream_update out;
    expect(quadrant_streamer_add(nullptr, 1, p, p), bad, "streamer_add(NULL)");
    expect(quadrant_streamer_remove(nullptr, 1, &st), bad, "streamer_remove(NULL)");
    expect(quadrant_streamer_move(nullptr, 1, p, p), bad, "streamer_move(NULL)");
    expect(quadrant_streamer_mark_loaded(nullptr, 1, &accepted), bad, "streamer_mark_loaded(NULL)");
    expect(quadrant_streamer_mark_failed(nullptr, 1, &accepted), bad, "streamer_mark_failed(NULL)");
    expect(quadrant_streamer_set_limits(nullptr, 1, 1), bad, "streamer_set_limits(NULL)");
    expect(quadrant_streamer_update(nullptr, nullptr, 0, &out), bad, "streamer_update(NULL)");
    expect(quadrant_streamer_state(nullptr, 1, &st), bad, "streamer_state(NULL)");
    expect(quadrant_streamer_bounds(nullptr, 1, lo, hi), bad, "streamer_bounds(NULL)");
    expect(quadrant_streamer_validate(nullptr), bad, "streamer_validate(NULL)");
    CHECK(quadrant_streamer_contains(nullptr, 1) == 0 && quadrant_streamer_size(nullptr) == 0,
          "NULL streamer: contains, size");
    quadrant_streamer_destroy(nullptr);
    quadrant_streamer_config_init(nullptr, QUADRANT_FLOAT);
  }

  // ---- the sequence ----

  // One call on tree slot t (mutations only with `mutations_only`, as from another tree's callback).
  void tree_op(int t, bool mutations_only) {
    Slot& s = slots[static_cast<std::size_t>(t)];
    if (s.doomed) return;
    if (s.c == nullptr) {
      if (one_in(16)) tree_null();  // every call refused: throws, which cost
      else create_tree(s);
      return;
    }
    const int op = pick(mutations_only ? 12 : 22);
    if (op == 0) return create_tree(s);
    if (op == 1) return destroy_tree(s);
    with(s.m, [&](auto& m) {
      switch (op) {
        case 2:
        case 3:
        case 4: insert(s, m); break;
        case 5: erase(s, m); break;
        case 6: move(s, m); break;
        case 7: move_many(s, m); break;
        case 8: assign(s, m); break;
        case 9: one_in(2) ? set_layers(s, m) : set_value(s, m); break;
        case 10: one_in(2) ? rebuild(s, m) : clear(s, m); break;
        case 11: one_in(2) ? insert(s, m) : move(s, m); break;
        case 12:
        case 13: query_into(s, m); break;
        case 14: pairs_into(s, m); break;
        case 15: raycast_into(s, m); break;
        case 16: nearest(s, m); break;
        case 17: nodes(s, m); break;
        case 18: read_handle(s, m); break;
        default: walk(t); break;
      }
    });
  }

  void run() {
    for (int op = 0; op < kMaxOps && in.remaining_bytes() > 0; ++op) {
      switch (pick(16)) {
        case 0: layer_matrix(); break;
        case 1: contacts_op(); break;
        case 2:
        case 3: aoi_op(); break;
        case 4:
        case 5: streamer_op(); break;
        default: tree_op(pick(kTrees), false); break;
      }
    }
    // The end: every tree as the model; then everything is freed (LeakSanitizer checks).
    for (Slot& s : slots) {
      if (s.c != nullptr) with(s.m, [&](auto& m) { check_tree(s, m, true); });
      destroy_tree(s);
    }
    quadrant_contacts_destroy(contacts);
    quadrant_aoi_destroy(aoi);
    quadrant_streamer_destroy(streamer);
  }
};

int walk_step(Walk& w) {
  const int call = ++w.calls;
  if (call == w.act_at) w.f->act(w);
  return call >= w.stop_at ? 0 : w.go_on;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  Fuzz(in).run();
  return 0;
}

// SPDX-License-Identifier: MIT
// The C API (include/quadrant/c/quadrant.h) over the header-only C++ core. Each C tree is one of four C++ trees
// (2D or 3D, float or double) holding 64-bit values, behind one abstract interface; every entry point catches what
// the C++ core throws and turns it into a status and a per-thread message, so no exception crosses the boundary.
#include "quadrant_c_common.hpp"

#include <atomic>
#include <limits>
#include <memory>
#include <tuple>
#include <utility>

#include <quadrant/version.hpp>

static_assert(QUADRANT_C_VERSION_MAJOR == QUADRANT_VERSION_MAJOR && QUADRANT_C_VERSION_MINOR == QUADRANT_VERSION_MINOR &&
                  QUADRANT_C_VERSION_PATCH == QUADRANT_VERSION_PATCH,
              "quadrant.h and version.hpp must give the same version");

using namespace quadrant_c;

thread_local std::string quadrant_c::last_error;

namespace {

// A C handle: slot + 1 in the low 32 bits (so that 0 is no handle), and in the high ones the slot's generation
// plus the tree's key, so that a handle of another tree is refused. The keys are the golden-ratio multiples of
// the trees' creation numbers: keys of trees made close together are far apart, so the generations of two
// objects in the same slot would have to differ by that much for a foreign handle to pass (docs/reliability.md).
constexpr std::uint32_t kKeyStep = 0x9E3779B9u;
std::uint32_t next_tree_key() noexcept {
  static std::atomic<std::uint32_t> made{0};
  return (made.fetch_add(1, std::memory_order_relaxed) + 1) * kKeyStep;
}

}  // namespace

// The C tree: one interface, four implementations. Every coordinate crosses as double.
struct quadrant_tree {
  virtual ~quadrant_tree() = default;
  quadrant_config config{};
  // Set by quadrant_tree_destroy called from inside one of the tree's own callbacks: the walk's entry point frees
  // the tree once this thread has left its last walk of it.
  std::atomic<bool> destroy_pending{false};

  // The C++ tree inside, as the walk guard knows it.
  virtual const void* core() const noexcept = 0;

  virtual quadrant_handle insert(const double* min, const double* max, std::uint64_t value, std::uint32_t layers) = 0;
  virtual void erase(quadrant_handle h) = 0;
  virtual void move(quadrant_handle h, const double* min, const double* max) = 0;
  virtual void move_many(const quadrant_handle* hs, const double* mins, const double* maxs, std::size_t n) = 0;
  virtual void assign(const double* mins, const double* maxs, const std::uint64_t* values, const std::uint32_t* layers,
                      std::size_t n, quadrant_handle* handles) = 0;
  virtual void rebuild(const double* world_min, const double* world_max) = 0;
  virtual void set_layers(quadrant_handle h, std::uint32_t layers) = 0;
  virtual void set_value(quadrant_handle h, std::uint64_t value) = 0;
  virtual void clear() = 0;
  virtual bool contains(quadrant_handle h) const noexcept = 0;
  virtual std::size_t size() const noexcept = 0;
  virtual void bounds(quadrant_handle h, double* min, double* max) const = 0;
  virtual std::uint64_t value(quadrant_handle h) const = 0;
  virtual std::uint32_t layers(quadrant_handle h) const = 0;
  virtual quadrant_query_stats query(const quadrant_shape& shape, std::uint32_t layers, quadrant_hit_fn fn,
                                     void* user) const = 0;
  // The hits into arrays (the first `capacity`; either may be NULL), with no call through a pointer per hit; the
  // stats' hits count them all.
  virtual quadrant_query_stats query_into(const quadrant_shape& shape, std::uint32_t layers, quadrant_handle* handles,
                                          std::uint64_t* values, std::size_t capacity) const = 0;
  // Pairs in `layers`, or through `matrix` when it is not NULL.
  virtual void pairs(std::uint32_t layers, const quadrant_layer_matrix* matrix, quadrant_pair_fn fn,
                     void* user) const = 0;
  virtual void track(quadrant_contacts& contacts, std::uint32_t layers, const quadrant_layer_matrix* matrix) const = 0;
  virtual void pairs_with(const quadrant_tree& other, std::uint32_t layers_a, std::uint32_t layers_b,
                          quadrant_pair_fn fn, void* user) const = 0;
  virtual void raycast(const double* a, const double* b, std::uint32_t layers, quadrant_ray_fn fn, void* user) const = 0;
  virtual std::size_t nearest(const double* p, std::size_t k, double max_distance, std::uint32_t layers,
                              quadrant_handle* handles, double* distances) const = 0;
  virtual void query_nodes(const quadrant_shape& shape, bool skip_empty, quadrant_node_fn fn, void* user) const = 0;
  virtual void for_each_node(quadrant_node_fn fn, void* user) const = 0;
  virtual quadrant_node locate(const double* point) const = 0;
  virtual quadrant_stats stats() const = 0;
  virtual void validate() const = 0;
};

namespace {

template <int D, class S>
struct TreeC final : quadrant_tree {
  using Tree = quadrant::Tree<D, std::uint64_t, S>;
  using B = quadrant::Box<D, S>;
  using V = quadrant::Vec<D, S>;

  explicit TreeC(const quadrant::Config<D, S>& c) : tree(c) {}
  Tree tree;
  const std::uint32_t key = next_tree_key();
  // Scratch of the bulk calls, kept so that a frame of moves or a rebuild allocates nothing once warm.
  std::vector<quadrant::Handle> move_handles;
  std::vector<B> move_boxes;
  std::vector<std::tuple<B, std::uint64_t, std::uint32_t>> items;

  const void* core() const noexcept override { return &tree; }
  static V vec(const double* p, const char* name) { return vec_of<D, S>(p, name); }
  static B box(const double* min, const double* max) { return box_of<D, S>(min, max); }
  quadrant_handle encode(quadrant::Handle h) const noexcept {
    if (h.is_null()) return 0;
    return (std::uint64_t{static_cast<std::uint32_t>(h.generation() + key)} << 32) | (std::uint64_t{h.index()} + 1);
  }
  // The tree's handle for a C handle; a null, stale or foreign one becomes the null handle.
  quadrant::Handle handle(quadrant_handle h) const noexcept {
    if ((h & 0xffffffffu) == 0) return quadrant::Handle{};
    const quadrant::Handle found = tree.handle_at(static_cast<std::uint32_t>((h & 0xffffffffu) - 1));
    const auto generation = static_cast<std::uint32_t>(static_cast<std::uint32_t>(h >> 32) - key);
    return !found.is_null() && found.generation() == generation ? found : quadrant::Handle{};
  }
  quadrant::Handle live(quadrant_handle h, const char* what) const {
    const quadrant::Handle found = handle(h);
    if (found.is_null()) invalid(std::string(what) + ": the handle names no object of this tree (stale or foreign)");
    return found;
  }

  quadrant_handle insert(const double* min, const double* max, std::uint64_t value, std::uint32_t layers) override {
    return encode(tree.insert(box(min, max), value, layers));
  }
  void erase(quadrant_handle h) override { tree.erase(live(h, "erase")); }
  void move(quadrant_handle h, const double* min, const double* max) override {
    const quadrant::Handle found = live(h, "move");
    tree.move(found, box(min, max));
  }
  void move_many(const quadrant_handle* hs, const double* mins, const double* maxs, std::size_t n) override {
    if (n == 0) return;
    need(hs, "handles");
    need(mins, "mins");
    need(maxs, "maxs");
    // Every handle and box is checked before the first move, so a bad one leaves the tree as it was.
    move_handles.resize(n);
    move_boxes.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      move_handles[i] = live(hs[i], "move_many");
      move_boxes[i] = box(mins + i * D, maxs + i * D);
    }
    tree.move(std::span<const quadrant::Handle>(move_handles.data(), n), std::span<const B>(move_boxes.data(), n));
  }
  void assign(const double* mins, const double* maxs, const std::uint64_t* values, const std::uint32_t* layers,
              std::size_t n, quadrant_handle* handles) override {
    if (n > 0) {
      need(mins, "mins");
      need(maxs, "maxs");
    }
    // Boxes are converted (and NaNs refused) here; Tree::assign checks the rest and names the bad item.
    items.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      try {
        items[i] = {box(mins + i * D, maxs + i * D), values != nullptr ? values[i] : std::uint64_t{i},
                    layers != nullptr ? layers[i] : ~0u};
      } catch (const std::invalid_argument& e) {
        invalid(std::string(e.what()) + " (item " + std::to_string(i) + ")");
      }
    }
    tree.assign(items, move_handles);
    if (handles != nullptr)
      for (std::size_t i = 0; i < n; ++i) handles[i] = encode(move_handles[i]);
  }
  void rebuild(const double* world_min, const double* world_max) override {
    need(world_min, "world_min");
    need(world_max, "world_max");
    tree.rebuild(quadrant::Box<D, S>{vec(world_min, "world_min"), vec(world_max, "world_max")});
    for (int i = 0; i < D; ++i) config.world_min[i] = world_min[i], config.world_max[i] = world_max[i];
  }
  void set_layers(quadrant_handle h, std::uint32_t layers) override { tree.set_layers(live(h, "set_layers"), layers); }
  void set_value(quadrant_handle h, std::uint64_t value) override {
    // Tree::value hands out a reference, which C++ callbacks may write; the C contract refuses every mutation from
    // a callback of the same tree.
    quadrant::detail::refuse_inside_walk(&tree, "set_value");
    const quadrant::Handle found = live(h, "set_value");
    tree.value(found) = value;
  }
  void clear() override { tree.clear(); }
  bool contains(quadrant_handle h) const noexcept override { return !handle(h).is_null(); }
  std::size_t size() const noexcept override { return tree.size(); }
  void bounds(quadrant_handle h, double* min, double* max) const override {
    need(min, "min");
    need(max, "max");
    const B& b = tree.bounds(live(h, "bounds"));
    for (int i = 0; i < D; ++i) min[i] = static_cast<double>(b.min[i]), max[i] = static_cast<double>(b.max[i]);
  }
  std::uint64_t value(quadrant_handle h) const override { return tree.value(live(h, "value")); }
  std::uint32_t layers(quadrant_handle h) const override { return tree.layers(live(h, "layers")); }

  quadrant_query_stats query(const quadrant_shape& shape, std::uint32_t layers, quadrant_hit_fn fn,
                             void* user) const override {
    need(reinterpret_cast<const void*>(fn), "fn");
    quadrant::QueryStats st;
    with_shape<D, S>(shape, [&](const auto& s) {
      st = tree.query(s, [&](quadrant::Handle h, const std::uint64_t& v) { return fn(user, encode(h), v) != 0; },
                      layers);
    });
    return quadrant_query_stats{st.nodes_visited, st.box_tests, st.hits, st.stopped ? 1 : 0};
  }
  quadrant_query_stats query_into(const quadrant_shape& shape, std::uint32_t layers, quadrant_handle* handles,
                                  std::uint64_t* values, std::size_t capacity) const override {
    quadrant::QueryStats st;
    std::size_t count = 0;
    with_shape<D, S>(shape, [&](const auto& s) {
      st = tree.query(s, [&](quadrant::Handle h, const std::uint64_t& v) {
        if (count < capacity) {
          if (handles != nullptr) handles[count] = encode(h);
          if (values != nullptr) values[count] = v;
        }
        ++count;
      }, layers);
    });
    return quadrant_query_stats{st.nodes_visited, st.box_tests, count, 0};
  }
  void pairs(std::uint32_t layers, const quadrant_layer_matrix* matrix, quadrant_pair_fn fn,
             void* user) const override {
    need(reinterpret_cast<const void*>(fn), "fn");
    auto call = [&](quadrant::Handle a, const std::uint64_t& va, quadrant::Handle b, const std::uint64_t& vb) {
      return fn(user, encode(a), va, encode(b), vb) != 0;
    };
    if (matrix != nullptr) tree.for_each_pair(call, layer_matrix_of(*matrix));
    else tree.for_each_pair(call, layers);
  }
  void track(quadrant_contacts& contacts, std::uint32_t layers, const quadrant_layer_matrix* matrix) const override;
  void pairs_with(const quadrant_tree& other, std::uint32_t layers_a, std::uint32_t layers_b, quadrant_pair_fn fn,
                  void* user) const override {
    need(reinterpret_cast<const void*>(fn), "fn");
    const auto* b = dynamic_cast<const TreeC*>(&other);
    if (b == nullptr) invalid("trees_pairs: the trees differ in dims or scalar");
    quadrant::for_each_pair(
        tree, b->tree,
        [&](quadrant::Handle ha, const std::uint64_t& va, quadrant::Handle hb, const std::uint64_t& vb) {
          return fn(user, encode(ha), va, b->encode(hb), vb) != 0;
        },
        layers_a, layers_b);
  }
  void raycast(const double* a, const double* b, std::uint32_t layers, quadrant_ray_fn fn, void* user) const override {
    need(reinterpret_cast<const void*>(fn), "fn");
    tree.raycast(quadrant::Segment<D, S>{vec(a, "a"), vec(b, "b")},
                 [&](quadrant::Handle h, const std::uint64_t& v, S t) {
                   return fn(user, encode(h), v, static_cast<double>(t)) != 0;
                 },
                 layers);
  }
  std::size_t nearest(const double* p, std::size_t k, double max_distance, std::uint32_t layers,
                      quadrant_handle* handles, double* distances) const override {
    if (std::isnan(max_distance)) invalid("nearest: max_distance is NaN");
    const S limit = scalar_of<S>(max_distance, "nearest: max_distance");
    std::size_t n = 0;
    tree.for_each_nearest(
        vec(p, "point"),
        [&](quadrant::Handle h, const std::uint64_t&, S d) {
          if (n == k) return false;
          if (handles != nullptr) handles[n] = encode(h);
          if (distances != nullptr) distances[n] = static_cast<double>(d);
          return ++n < k;
        },
        limit, layers);
    return n;
  }
  static quadrant_node node_of(const quadrant::NodeView<D, S>& v) {
    quadrant_node n{};
    put_box(v.cell, n.cell_min, n.cell_max);
    put_box(v.bounds, n.bounds_min, n.bounds_max);
    n.depth = v.depth;
    n.leaf = v.leaf ? 1 : 0;
    n.id = v.id;
    n.parent = v.parent;
    n.items = v.items.size();
    n.count = v.count;
    n.layers = v.layers;
    return n;
  }
  void query_nodes(const quadrant_shape& shape, bool skip_empty, quadrant_node_fn fn, void* user) const override {
    need(reinterpret_cast<const void*>(fn), "fn");
    with_shape<D, S>(shape, [&](const auto& s) {
      tree.query_nodes(
          s,
          [&](const quadrant::NodeView<D, S>& v) {
            const quadrant_node n = node_of(v);
            return fn(user, &n) != 0;
          },
          skip_empty);
    });
  }
  void for_each_node(quadrant_node_fn fn, void* user) const override {
    need(reinterpret_cast<const void*>(fn), "fn");
    tree.for_each_node([&](const quadrant::NodeView<D, S>& v) {
      const quadrant_node n = node_of(v);
      return fn(user, &n) != 0;
    });
  }
  quadrant_node locate(const double* point) const override { return node_of(tree.locate(vec(point, "point"))); }
  quadrant_stats stats() const override {
    const quadrant::Stats s = tree.stats();
    return quadrant_stats{s.nodes, s.leaves, s.depth, s.objects, s.references, s.bytes, s.outside_world,
                          s.root_entries};
  }
  void validate() const override { tree.validate(); }
};

// The tracker of one tree type (the C tracker learns its type at the first update).
struct TrackerBase {
  virtual ~TrackerBase() = default;
};
template <int D, class S>
struct TrackerC final : TrackerBase {
  quadrant::ContactTracker<D, std::uint64_t, S> tracker;
};

}  // namespace

struct quadrant_contacts {
  std::unique_ptr<TrackerBase> impl;
  std::vector<quadrant_contact> begun, ended, current;  // the last step's lists as C values
  void clear() noexcept {
    impl.reset();
    begun.clear();
    ended.clear();
    current.clear();
  }
};

namespace {

template <class Encode>
void put_contacts(std::span<const quadrant::Contact> from, std::vector<quadrant_contact>& to, const Encode& encode) {
  to.clear();
  for (const quadrant::Contact& c : from) to.push_back(quadrant_contact{encode(c.a), encode(c.b)});
}

template <int D, class S>
void TreeC<D, S>::track(quadrant_contacts& c, std::uint32_t layers, const quadrant_layer_matrix* m) const {
  const quadrant::LayerMatrix matrix = m != nullptr ? layer_matrix_of(*m) : quadrant::LayerMatrix{};
  auto* t = dynamic_cast<TrackerC<D, S>*>(c.impl.get());
  if (c.impl != nullptr && t == nullptr)
    invalid("contacts: update: another tree than the previous steps' (call quadrant_contacts_clear to switch)");
  std::unique_ptr<TrackerC<D, S>> fresh;
  if (t == nullptr) t = (fresh = std::make_unique<TrackerC<D, S>>()).get();
  // Throws, changing nothing, for another tree of the same type.
  if (m != nullptr) t->tracker.update(tree, matrix);
  else t->tracker.update(tree, layers);
  if (fresh != nullptr) c.impl = std::move(fresh);
  try {
    const auto encode_here = [this](quadrant::Handle h) { return encode(h); };
    put_contacts(t->tracker.begun(), c.begun, encode_here);
    put_contacts(t->tracker.ended(), c.ended, encode_here);
    put_contacts(t->tracker.contacts(), c.current, encode_here);
  } catch (...) {  // out of memory after the step: start over rather than report half a step
    c.clear();
    throw;
  }
}

template <int D, class S>
quadrant_tree* make_tree(const quadrant_config& c) {
  auto* t = new TreeC<D, S>(config_of<D, S>(c));
  t->config = c;
  return t;
}

}  // namespace

extern "C" {

#define QUADRANT_C_STR2(x) #x
#define QUADRANT_C_STR(x) QUADRANT_C_STR2(x)

const char* quadrant_version(void) {
  return QUADRANT_C_STR(QUADRANT_VERSION_MAJOR) "." QUADRANT_C_STR(QUADRANT_VERSION_MINOR) "." QUADRANT_C_STR(
      QUADRANT_VERSION_PATCH);
}
const char* quadrant_last_error(void) { return last_error.c_str(); }

// ---- shapes ----

static quadrant_shape shape_of(quadrant_shape_kind kind, int dims, const double* a, const double* b) {
  quadrant_shape s{};
  s.kind = kind;
  const int n = dims == 3 ? 3 : 2;
  for (int i = 0; i < n; ++i) {
    if (a != nullptr) s.a[i] = a[i];
    if (b != nullptr) s.b[i] = b[i];
  }
  return s;
}
quadrant_shape quadrant_shape_box(int dims, const double* min, const double* max) {
  return shape_of(QUADRANT_SHAPE_BOX, dims, min, max);
}
quadrant_shape quadrant_shape_point(int dims, const double* p) { return shape_of(QUADRANT_SHAPE_POINT, dims, p, nullptr); }
quadrant_shape quadrant_shape_ball(int dims, const double* center, double radius) {
  quadrant_shape s = shape_of(QUADRANT_SHAPE_BALL, dims, center, nullptr);
  s.r0 = radius;
  return s;
}
// A 2D shape around (x, y) with two lengths and an angle.
static quadrant_shape planar(quadrant_shape_kind kind, double x, double y, double r0, double r1, double angle) {
  const double c[2] = {x, y};
  quadrant_shape s = shape_of(kind, 2, c, nullptr);
  s.r0 = r0, s.r1 = r1, s.angle = angle;
  return s;
}
quadrant_shape quadrant_shape_ring(double x, double y, double inner, double outer) {
  return planar(QUADRANT_SHAPE_RING, x, y, inner, outer, 0);
}
quadrant_shape quadrant_shape_ellipse(double x, double y, double rx, double ry, double angle) {
  return planar(QUADRANT_SHAPE_ELLIPSE, x, y, rx, ry, angle);
}
quadrant_shape quadrant_shape_sector(double x, double y, double dx, double dy, double radius, double half_angle) {
  quadrant_shape s = planar(QUADRANT_SHAPE_SECTOR, x, y, radius, 0, half_angle);
  s.b[0] = dx, s.b[1] = dy;
  return s;
}
quadrant_shape quadrant_shape_oriented_box(double x, double y, double hx, double hy, double angle) {
  return planar(QUADRANT_SHAPE_ORIENTED_BOX, x, y, hx, hy, angle);
}
quadrant_shape quadrant_shape_polygon(const double* xy, size_t vertices) {
  quadrant_shape s = shape_of(QUADRANT_SHAPE_POLYGON, 2, nullptr, nullptr);
  s.points = xy, s.count = vertices;
  return s;
}
quadrant_shape quadrant_shape_segment(int dims, const double* a, const double* b) {
  return shape_of(QUADRANT_SHAPE_SEGMENT, dims, a, b);
}
quadrant_shape quadrant_shape_frustum(const double* matrix16, int row_major, int clip_zero_to_one) {
  quadrant_shape s = shape_of(QUADRANT_SHAPE_FRUSTUM, 3, nullptr, nullptr);
  s.points = matrix16, s.count = 16, s.matrix_row_major = row_major, s.clip_zero_to_one = clip_zero_to_one;
  return s;
}

// ---- trees ----

void quadrant_config_init(quadrant_config* config, int dims, quadrant_scalar scalar) {
  if (config == nullptr) return;
  *config = quadrant_config{};
  config->dims = dims;
  config->scalar = scalar;
  for (int i = 0; i < 3; ++i) config->world_min[i] = 0, config->world_max[i] = 1;
  const quadrant::Config<2, float> defaults{};
  config->max_depth = defaults.max_depth;
  config->split_threshold = defaults.split_threshold;
  config->min_node_size = 0;
  config->placement = QUADRANT_LOOSE;
}

quadrant_status quadrant_tree_create(const quadrant_config* config, quadrant_tree** out) {
  if (out != nullptr) *out = nullptr;
  return on(config, "config", [&] {
    need(out, "out");
    const bool f = is_float(config->scalar, "quadrant_config::scalar");
    if (config->dims == 2) *out = f ? make_tree<2, float>(*config) : make_tree<2, double>(*config);
    else if (config->dims == 3) *out = f ? make_tree<3, float>(*config) : make_tree<3, double>(*config);
    else invalid("quadrant_config::dims is " + std::to_string(config->dims) + ", not 2 or 3");
  });
}
void quadrant_tree_destroy(quadrant_tree* tree) {
  if (tree == nullptr) return;
  if (quadrant::detail::inside_walk(tree->core())) tree->destroy_pending = true;
  else delete tree;
}
quadrant_status quadrant_tree_config(const quadrant_tree* tree, quadrant_config* out) {
  return on(tree, "tree", [&] {
    need(out, "out");
    *out = tree->config;
  });
}

quadrant_status quadrant_tree_insert(quadrant_tree* tree, const double* min, const double* max, uint64_t value,
                                     uint32_t layers, quadrant_handle* handle) {
  return on(tree, "tree", [&] {
    const quadrant_handle h = tree->insert(min, max, value, layers);
    if (handle != nullptr) *handle = h;
  });
}
quadrant_status quadrant_tree_erase(quadrant_tree* tree, quadrant_handle handle) {
  return on(tree, "tree", [&] { tree->erase(handle); });
}
quadrant_status quadrant_tree_move(quadrant_tree* tree, quadrant_handle handle, const double* min, const double* max) {
  return on(tree, "tree", [&] { tree->move(handle, min, max); });
}
quadrant_status quadrant_tree_move_many(quadrant_tree* tree, const quadrant_handle* handles, const double* mins,
                                        const double* maxs, size_t count) {
  return on(tree, "tree", [&] { tree->move_many(handles, mins, maxs, count); });
}
quadrant_status quadrant_tree_assign(quadrant_tree* tree, const double* mins, const double* maxs,
                                     const uint64_t* values, const uint32_t* layers, size_t count,
                                     quadrant_handle* handles) {
  return on(tree, "tree", [&] { tree->assign(mins, maxs, values, layers, count, handles); });
}
quadrant_status quadrant_tree_rebuild(quadrant_tree* tree, const double* world_min, const double* world_max) {
  return on(tree, "tree", [&] { tree->rebuild(world_min, world_max); });
}
quadrant_status quadrant_tree_set_layers(quadrant_tree* tree, quadrant_handle handle, uint32_t layers) {
  return on(tree, "tree", [&] { tree->set_layers(handle, layers); });
}
quadrant_status quadrant_tree_set_value(quadrant_tree* tree, quadrant_handle handle, uint64_t value) {
  return on(tree, "tree", [&] { tree->set_value(handle, value); });
}
quadrant_status quadrant_tree_clear(quadrant_tree* tree) {
  return on(tree, "tree", [&] { tree->clear(); });
}
int quadrant_tree_contains(const quadrant_tree* tree, quadrant_handle handle) {
  return tree != nullptr && tree->contains(handle) ? 1 : 0;
}
size_t quadrant_tree_size(const quadrant_tree* tree) { return tree != nullptr ? tree->size() : 0; }
quadrant_status quadrant_tree_bounds(const quadrant_tree* tree, quadrant_handle handle, double* min, double* max) {
  return on(tree, "tree", [&] { tree->bounds(handle, min, max); });
}
quadrant_status quadrant_tree_value(const quadrant_tree* tree, quadrant_handle handle, uint64_t* value) {
  return on(tree, "tree", [&] {
    need(value, "value");
    *value = tree->value(handle);
  });
}
quadrant_status quadrant_tree_layers(const quadrant_tree* tree, quadrant_handle handle, uint32_t* layers) {
  return on(tree, "tree", [&] {
    need(layers, "layers");
    *layers = tree->layers(handle);
  });
}

// Frees a tree whose destruction a callback asked for, once this thread has left its last walk of it.
static quadrant_status after_walk(const quadrant_tree* tree, quadrant_status status) noexcept {
  if (tree != nullptr && tree->destroy_pending && !quadrant::detail::inside_walk(tree->core())) delete tree;
  return status;
}

quadrant_status quadrant_tree_query(const quadrant_tree* tree, const quadrant_shape* shape, uint32_t layers,
                                    quadrant_hit_fn fn, void* user, quadrant_query_stats* stats) {
  return after_walk(tree, on(tree, "tree", [&] {
    need(shape, "shape");
    const quadrant_query_stats st = tree->query(*shape, layers, fn, user);
    if (stats != nullptr) *stats = st;
  }));
}

namespace {
struct Collect {
  quadrant_handle* handles;
  uint64_t* values;
  size_t capacity, count;
};
int collect_pair(void* user, quadrant_handle a, uint64_t, quadrant_handle b, uint64_t) {
  auto* c = static_cast<Collect*>(user);
  if (c->count < c->capacity && c->handles != nullptr) {
    c->handles[2 * c->count] = a;
    c->handles[2 * c->count + 1] = b;
  }
  ++c->count;
  return 1;
}
struct CollectRay {
  quadrant_handle* handles;
  uint64_t* values;
  double* ts;
  size_t capacity, count;
};
int collect_ray(void* user, quadrant_handle h, uint64_t v, double t) {
  auto* c = static_cast<CollectRay*>(user);
  if (c->handles != nullptr) c->handles[c->count] = h;
  if (c->values != nullptr) c->values[c->count] = v;
  if (c->ts != nullptr) c->ts[c->count] = t;
  return ++c->count < c->capacity;
}
struct CollectNodes {
  quadrant_node* nodes;
  size_t capacity, count;
};
int collect_node(void* user, const quadrant_node* n) {
  auto* c = static_cast<CollectNodes*>(user);
  if (c->nodes != nullptr && c->count < c->capacity) c->nodes[c->count] = *n;
  ++c->count;
  return 1;
}
}  // namespace

quadrant_status quadrant_tree_query_into(const quadrant_tree* tree, const quadrant_shape* shape, uint32_t layers,
                                         quadrant_handle* handles, uint64_t* values, size_t capacity, size_t* count) {
  return quadrant_tree_query_into_stats(tree, shape, layers, handles, values, capacity, count, nullptr);
}
quadrant_status quadrant_tree_query_into_stats(const quadrant_tree* tree, const quadrant_shape* shape,
                                               uint32_t layers, quadrant_handle* handles, uint64_t* values,
                                               size_t capacity, size_t* count, quadrant_query_stats* stats) {
  if (count != nullptr) *count = 0;
  return on(tree, "tree", [&] {
    need(shape, "shape");
    need(count, "count");
    const quadrant_query_stats s = tree->query_into(*shape, layers, handles, values, capacity);
    *count = s.hits;
    if (stats != nullptr) *stats = s;
  });
}
quadrant_status quadrant_tree_pairs(const quadrant_tree* tree, uint32_t layers, quadrant_pair_fn fn, void* user) {
  return after_walk(tree, on(tree, "tree", [&] { tree->pairs(layers, nullptr, fn, user); }));
}
// The pairs in `layers`, or through `matrix`, into an array.
static quadrant_status pairs_into(const quadrant_tree* tree, uint32_t layers, const quadrant_layer_matrix* matrix,
                                  quadrant_handle* pairs, size_t capacity, size_t* count) {
  if (count != nullptr) *count = 0;
  return on(tree, "tree", [&] {
    need(count, "count");
    Collect c{pairs, nullptr, capacity, 0};
    tree->pairs(layers, matrix, &collect_pair, &c);
    *count = c.count;
  });
}
quadrant_status quadrant_tree_pairs_into(const quadrant_tree* tree, uint32_t layers, quadrant_handle* pairs,
                                         size_t capacity, size_t* count) {
  return pairs_into(tree, layers, nullptr, pairs, capacity, count);
}
void quadrant_layer_matrix_between(quadrant_layer_matrix* matrix, uint32_t a, uint32_t b) {
  if (matrix == nullptr) return;
  for (int i = 0; i < 32; ++i) {
    if ((a >> i & 1u) != 0) matrix->partners[i] |= b;
    if ((b >> i & 1u) != 0) matrix->partners[i] |= a;
  }
}
quadrant_status quadrant_layer_matrix_set(quadrant_layer_matrix* matrix, int a, int b, int collide) {
  return on(matrix, "matrix", [&] {
    if (a < 0 || a > 31 || b < 0 || b > 31)
      invalid("layer_matrix_set: layers " + std::to_string(a) + " and " + std::to_string(b) + " must be in 0..31");
    const auto ua = static_cast<unsigned>(a), ub = static_cast<unsigned>(b);
    if (collide != 0) matrix->partners[ua] |= 1u << ub, matrix->partners[ub] |= 1u << ua;
    else matrix->partners[ua] &= ~(1u << ub), matrix->partners[ub] &= ~(1u << ua);
  });
}
quadrant_status quadrant_tree_pairs_filtered(const quadrant_tree* tree, const quadrant_layer_matrix* matrix,
                                             quadrant_pair_fn fn, void* user) {
  return after_walk(tree, on(tree, "tree", [&] {
    need(matrix, "matrix");
    tree->pairs(0, matrix, fn, user);
  }));
}
quadrant_status quadrant_tree_pairs_filtered_into(const quadrant_tree* tree, const quadrant_layer_matrix* matrix,
                                                  quadrant_handle* pairs, size_t capacity, size_t* count) {
  if (matrix == nullptr) {
    if (count != nullptr) *count = 0;
    return fail(QUADRANT_INVALID_ARGUMENT, "quadrant: matrix is NULL");
  }
  return pairs_into(tree, 0, matrix, pairs, capacity, count);
}
quadrant_status quadrant_contacts_create(quadrant_contacts** out) {
  if (out != nullptr) *out = nullptr;
  return on(out, "out", [&] { *out = new quadrant_contacts; });
}
void quadrant_contacts_destroy(quadrant_contacts* contacts) { delete contacts; }
quadrant_status quadrant_contacts_update(quadrant_contacts* contacts, const quadrant_tree* tree, uint32_t layers,
                                         const quadrant_layer_matrix* matrix, quadrant_contact_step* out) {
  return on(contacts, "contacts", [&] {
    need(tree, "tree");
    need(out, "out");
    tree->track(*contacts, layers, matrix);
    *out = quadrant_contact_step{contacts->begun.data(), contacts->begun.size(), contacts->ended.data(),
                                 contacts->ended.size(), contacts->current.data(), contacts->current.size()};
  });
}
quadrant_status quadrant_contacts_clear(quadrant_contacts* contacts) {
  return on(contacts, "contacts", [&] { contacts->clear(); });
}
quadrant_status quadrant_trees_pairs(const quadrant_tree* a, const quadrant_tree* b, uint32_t layers_a,
                                     uint32_t layers_b, quadrant_pair_fn fn, void* user) {
  const quadrant_status status = on(a, "a", [&] {
    need(b, "b");
    a->pairs_with(*b, layers_a, layers_b, fn, user);
  });
  return after_walk(a != b ? b : nullptr, after_walk(a, status));
}
quadrant_status quadrant_trees_pairs_into(const quadrant_tree* a, const quadrant_tree* b, uint32_t layers_a,
                                          uint32_t layers_b, quadrant_handle* pairs, size_t capacity, size_t* count) {
  if (count != nullptr) *count = 0;
  return on(a, "a", [&] {
    need(b, "b");
    need(count, "count");
    Collect c{pairs, nullptr, capacity, 0};
    a->pairs_with(*b, layers_a, layers_b, &collect_pair, &c);
    *count = c.count;
  });
}
quadrant_status quadrant_tree_raycast(const quadrant_tree* tree, const double* a, const double* b, uint32_t layers,
                                      quadrant_ray_fn fn, void* user) {
  return after_walk(tree, on(tree, "tree", [&] { tree->raycast(a, b, layers, fn, user); }));
}
quadrant_status quadrant_tree_raycast_into(const quadrant_tree* tree, const double* a, const double* b,
                                           uint32_t layers, quadrant_handle* handles, uint64_t* values, double* ts,
                                           size_t capacity, size_t* count) {
  if (count != nullptr) *count = 0;
  return on(tree, "tree", [&] {
    need(count, "count");
    if (capacity == 0) return;
    CollectRay c{handles, values, ts, capacity, 0};
    tree->raycast(a, b, layers, &collect_ray, &c);
    *count = c.count;
  });
}
quadrant_status quadrant_tree_nearest(const quadrant_tree* tree, const double* point, size_t k, double max_distance,
                                      uint32_t layers, quadrant_handle* handles, double* distances, size_t* count) {
  if (count != nullptr) *count = 0;
  return on(tree, "tree", [&] {
    need(count, "count");
    *count = k == 0 ? 0 : tree->nearest(point, k, max_distance, layers, handles, distances);
  });
}
quadrant_status quadrant_tree_query_nodes(const quadrant_tree* tree, const quadrant_shape* shape, int skip_empty,
                                         quadrant_node_fn fn, void* user) {
  return after_walk(tree, on(tree, "tree", [&] {
    need(shape, "shape");
    tree->query_nodes(*shape, skip_empty != 0, fn, user);
  }));
}
quadrant_status quadrant_tree_query_nodes_into(const quadrant_tree* tree, const quadrant_shape* shape, int skip_empty,
                                              quadrant_node* nodes, size_t capacity, size_t* count) {
  if (count != nullptr) *count = 0;
  return on(tree, "tree", [&] {
    need(shape, "shape");
    need(count, "count");
    CollectNodes c{nodes, capacity, 0};
    tree->query_nodes(*shape, skip_empty != 0, &collect_node, &c);
    *count = c.count;
  });
}
quadrant_status quadrant_tree_for_each_node(const quadrant_tree* tree, quadrant_node_fn fn, void* user) {
  return after_walk(tree, on(tree, "tree", [&] { tree->for_each_node(fn, user); }));
}
quadrant_status quadrant_tree_locate(const quadrant_tree* tree, const double* point, quadrant_node* out) {
  return on(tree, "tree", [&] {
    need(out, "out");
    *out = tree->locate(point);
  });
}
quadrant_status quadrant_tree_stats(const quadrant_tree* tree, quadrant_stats* out) {
  return on(tree, "tree", [&] {
    need(out, "out");
    *out = tree->stats();
  });
}
quadrant_status quadrant_tree_validate(const quadrant_tree* tree) {
  return validated(tree, "quadrant: tree is NULL", [&] { tree->validate(); });
}

}  // extern "C"

/* SPDX-License-Identifier: MIT */
/* quadrant — the C API: quadtrees and octrees for C and for other languages' foreign-function interfaces (Lua, C#
 * P/Invoke, WebAssembly). C99; no C++ type crosses it. Link the quadrant_c library (shared or static).
 *
 * Errors: every call that can fail returns a quadrant_status; QUADRANT_OK is 0. On any other status nothing
 * changed (the tree is as it was) and quadrant_last_error() gives the library's message. No exception crosses
 * the boundary.
 *
 * Ownership: a tree, an area-of-interest world and a streamer are created by quadrant_*_create and freed by the
 * matching quadrant_*_destroy; nothing else allocates memory the caller must free. Arrays the caller passes are
 * read during the call only; output arrays are filled up to the capacity given, and the count says how many
 * results there were (call again with a larger array when it exceeds the capacity). The arrays a tick or an update
 * hands out belong to their world or streamer and stay valid until its next successful tick or update (or
 * destroy): a refused call leaves them as they were.
 *
 * Handles: a quadrant_handle names one object of one tree; 0 names nothing. A handle goes stale when its object is
 * erased or the tree cleared; a handle of another tree is foreign. Calls given a stale or foreign handle fail with
 * QUADRANT_INVALID_ARGUMENT (quadrant_tree_contains answers 0). The low 32 bits are the object's slot + 1; the high
 * ones its slot's generation plus a key of the tree's (docs/reliability.md says how far the foreign check reaches).
 * Values are 64-bit user data (an id, an index, a pointer cast to an integer), stored as given.
 *
 * Coordinates are doubles across the API. A float tree, world or streamer (QUADRANT_FLOAT) rounds them to the
 * nearest float when it stores or queries them; its results are those of the C++ types over float given the
 * rounded values. A finite value beyond the float range (magnitude above 3.4028235e38: a coordinate, a radius,
 * a max_distance, a matrix entry) has no float: it fails with QUADRANT_INVALID_ARGUMENT naming it. Infinity keeps
 * its meaning where it has one (max_distance: no limit).
 *
 * Callbacks: a callback may not mutate the tree it was called from (quadrant_tree_set_value included): that call
 * fails with QUADRANT_LOGIC_ERROR and changes nothing. It may query the tree again. quadrant_tree_destroy from a
 * callback of the same tree frees it when the walk returns. A callback must return to the library: leaving it by
 * longjmp or by a C++ or foreign exception skips the library's C++ frames, which is undefined behaviour. A binding
 * for a language whose errors unwind (Lua's error, C# and JavaScript exceptions) catches them inside the callback,
 * returns 0 to stop the walk and raises them once the call has returned (the Lua, C# and JavaScript bindings do).
 *
 * Threads: const calls (queries, pairs, ray casts, nearest, stats, validate; for worlds and streamers the calls
 * taking a const pointer) may run on one object from several threads at once; a mutating call needs the object to
 * itself. quadrant_last_error() is per thread.
 */
#ifndef QUADRANT_C_QUADRANT_H
#define QUADRANT_C_QUADRANT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32) && defined(QUADRANT_C_SHARED)
#ifdef QUADRANT_C_BUILDING
#define QUADRANT_C_API __declspec(dllexport)
#else
#define QUADRANT_C_API __declspec(dllimport)
#endif
#elif defined(__GNUC__) && defined(QUADRANT_C_BUILDING)
#define QUADRANT_C_API __attribute__((visibility("default")))
#else
#define QUADRANT_C_API
#endif

/* In C++ the enums below have int as their fixed underlying type, as C's enums are ints: a value outside the listed
   ones that a C caller passes is then an int like any other, which the library refuses, rather than an enum value
   C++ leaves undefined. */
#ifdef __cplusplus
#define QUADRANT_C_ENUM(name) enum name : int
#else
#define QUADRANT_C_ENUM(name) enum name
#endif

/** The version of this header; quadrant_version() gives the library's. */
#define QUADRANT_C_VERSION_MAJOR 0
#define QUADRANT_C_VERSION_MINOR 3
#define QUADRANT_C_VERSION_PATCH 0

/** What a call did. */
typedef QUADRANT_C_ENUM(quadrant_status) {
  QUADRANT_OK = 0,               /**< done */
  QUADRANT_INVALID_ARGUMENT = 1, /**< bad input (a NaN, a stale handle, a bad config...): nothing changed */
  QUADRANT_LOGIC_ERROR = 2,      /**< misuse, such as mutating a tree from inside its own callback: nothing changed */
  QUADRANT_OUT_OF_MEMORY = 3,    /**< an allocation failed: nothing changed */
  QUADRANT_INTERNAL_ERROR = 4    /**< anything else (a bug: please report it with quadrant_last_error()) */
} quadrant_status;

/** The scalar type a tree stores its coordinates in. */
typedef QUADRANT_C_ENUM(quadrant_scalar) { QUADRANT_FLOAT = 0, QUADRANT_DOUBLE = 1 } quadrant_scalar;

/** Where a tree keeps its objects (see docs/placements.md). */
typedef QUADRANT_C_ENUM(quadrant_placement) {
  QUADRANT_LOOSE = 0,
  QUADRANT_PARENT = 1,
  QUADRANT_LEAVES = 2
} quadrant_placement;

/** Names one object of one tree; 0 names nothing. */
typedef uint64_t quadrant_handle;

/** A tree: opaque. */
typedef struct quadrant_tree quadrant_tree;

/** The shape of a tree. quadrant_config_init fills the defaults; every field is checked by quadrant_tree_create. */
typedef struct quadrant_config {
  int dims;                      /**< 2 (quadtree) or 3 (octree) */
  quadrant_scalar scalar;        /**< QUADRANT_FLOAT or QUADRANT_DOUBLE */
  double world_min[3];           /**< the root cell (the first dims values are read): finite, min < max */
  double world_max[3];
  int max_depth;                 /**< the deepest level, >= 0 (default 8) */
  int split_threshold;           /**< a leaf splits above this many entries, >= 0 (default 32; 0: a full tree) */
  double min_node_size;          /**< no cell side below this, finite, >= 0 (default 0) */
  quadrant_placement placement;  /**< default QUADRANT_LOOSE */
} quadrant_config;

/** What one query, ray cast or nearest search did (see QueryStats in the C++ API). */
typedef struct quadrant_query_stats {
  size_t nodes_visited;
  size_t box_tests;
  size_t hits;
  int stopped; /**< 1 when the callback stopped the walk */
} quadrant_query_stats;

/** The shape of a tree at one moment (see Stats in the C++ API). */
typedef struct quadrant_stats {
  size_t nodes, leaves;
  int depth;
  size_t objects, references, bytes, outside_world, root_entries;
} quadrant_stats;

/** Query shapes; which fields each reads is listed beside it. */
typedef QUADRANT_C_ENUM(quadrant_shape_kind) {
  QUADRANT_SHAPE_BOX = 0,          /**< a = min, b = max */
  QUADRANT_SHAPE_POINT = 1,        /**< a */
  QUADRANT_SHAPE_BALL = 2,         /**< a circle (2D) or sphere (3D): a = center, r0 = radius */
  QUADRANT_SHAPE_RING = 3,         /**< 2D: a = center, r0 = inner radius, r1 = outer radius */
  QUADRANT_SHAPE_ELLIPSE = 4,      /**< 2D: a = center, r0 and r1 = semi-axes, angle = rotation (radians, CCW) */
  QUADRANT_SHAPE_SECTOR = 5,       /**< 2D: a = apex, b = direction, r0 = radius, angle = half angle in [0, pi] */
  QUADRANT_SHAPE_ORIENTED_BOX = 6, /**< 2D: a = center, r0 and r1 = half extents, angle = rotation (radians, CCW) */
  QUADRANT_SHAPE_POLYGON = 7,      /**< 2D: a convex polygon, points = x0, y0, x1, y1, ..., count = vertices */
  QUADRANT_SHAPE_SEGMENT = 8,      /**< a to b */
  QUADRANT_SHAPE_FRUSTUM = 9       /**< 3D: points = 16 numbers of a view-projection matrix, count = 16,
                                        matrix_row_major = 0 (OpenGL/glm) or 1, clip_zero_to_one = 0 (OpenGL) or 1
                                        (Direct3D, Vulkan, Metal) */
} quadrant_shape_kind;

/** A query shape: set kind and the fields it reads (the quadrant_shape_* helpers below do it). */
typedef struct quadrant_shape {
  quadrant_shape_kind kind;
  double a[3], b[3];
  double r0, r1, angle;
  const double* points;
  size_t count;
  int matrix_row_major;
  int clip_zero_to_one;
} quadrant_shape;

/** Called for each object a query finds: return nonzero to go on, 0 to stop. */
typedef int (*quadrant_hit_fn)(void* user, quadrant_handle handle, uint64_t value);
/** Called for each overlapping pair: return nonzero to go on, 0 to stop. */
typedef int (*quadrant_pair_fn)(void* user, quadrant_handle a, uint64_t value_a, quadrant_handle b, uint64_t value_b);
/** Called for each object a ray crosses, nearest first, with the fraction t in [0, 1] where it enters the box:
 * return nonzero to go on, 0 to stop (the first hit alone costs one call). */
typedef int (*quadrant_ray_fn)(void* user, quadrant_handle handle, uint64_t value, double t);

/* ---- the library ---- */

/** The library's version, "major.minor.patch". */
QUADRANT_C_API const char* quadrant_version(void);
/** The message of the last call on this thread that did not return QUADRANT_OK ("" if none). Valid until the
 * next failing call on this thread. */
QUADRANT_C_API const char* quadrant_last_error(void);

/* ---- shapes ---- */

/* The helpers read `dims` values from each array (2 or 3). */
QUADRANT_C_API quadrant_shape quadrant_shape_box(int dims, const double* min, const double* max);
QUADRANT_C_API quadrant_shape quadrant_shape_point(int dims, const double* p);
QUADRANT_C_API quadrant_shape quadrant_shape_ball(int dims, const double* center, double radius);
QUADRANT_C_API quadrant_shape quadrant_shape_ring(double x, double y, double inner, double outer);
QUADRANT_C_API quadrant_shape quadrant_shape_ellipse(double x, double y, double rx, double ry, double angle);
QUADRANT_C_API quadrant_shape quadrant_shape_sector(double x, double y, double dx, double dy, double radius,
                                                    double half_angle);
QUADRANT_C_API quadrant_shape quadrant_shape_oriented_box(double x, double y, double hx, double hy, double angle);
QUADRANT_C_API quadrant_shape quadrant_shape_polygon(const double* xy, size_t vertices);
QUADRANT_C_API quadrant_shape quadrant_shape_segment(int dims, const double* a, const double* b);
QUADRANT_C_API quadrant_shape quadrant_shape_frustum(const double* matrix16, int row_major, int clip_zero_to_one);

/* ---- trees ---- */

/** Fills *config with the defaults for a dims-dimensional tree of `scalar` over the world [0, 1]^dims. */
QUADRANT_C_API void quadrant_config_init(quadrant_config* config, int dims, quadrant_scalar scalar);
/** Creates an empty tree; *out receives it (NULL on error). INVALID_ARGUMENT names the first bad field. */
QUADRANT_C_API quadrant_status quadrant_tree_create(const quadrant_config* config, quadrant_tree** out);
/** Frees a tree and everything it holds; NULL is ignored. Handles of it must not be used afterwards. Called from
 * inside one of the tree's own callbacks, it frees the tree when that walk returns (the tree must not be used
 * after the walk). */
QUADRANT_C_API void quadrant_tree_destroy(quadrant_tree* tree);
/** The config the tree was created with. */
QUADRANT_C_API quadrant_status quadrant_tree_config(const quadrant_tree* tree, quadrant_config* out);

/** Stores `value` with the box [min, max] (dims values each; min <= max, finite) in `layers` (a mask; ~0u: every
 * layer); *handle (may be NULL) receives its handle. */
QUADRANT_C_API quadrant_status quadrant_tree_insert(quadrant_tree* tree, const double* min, const double* max,
                                                    uint64_t value, uint32_t layers, quadrant_handle* handle);
/** Removes the object. */
QUADRANT_C_API quadrant_status quadrant_tree_erase(quadrant_tree* tree, quadrant_handle handle);
/** Gives the object a new box. */
QUADRANT_C_API quadrant_status quadrant_tree_move(quadrant_tree* tree, quadrant_handle handle, const double* min,
                                                  const double* max);
/** Gives `count` objects new boxes in one call (mins and maxs: dims values per object, in order); checked whole
 * first: on error nothing moved. */
QUADRANT_C_API quadrant_status quadrant_tree_move_many(quadrant_tree* tree, const quadrant_handle* handles,
                                                       const double* mins, const double* maxs, size_t count);
/** Replaces the tree's contents with `count` objects built at once, several times faster than inserting them one
 * by one (see Tree::assign): object i has the box [mins + i * dims, maxs + i * dims], the value values[i] (values
 * NULL: i) and the layer mask layers[i] (layers NULL: every layer); handles (may be NULL) receives the i-th
 * object's handle at i. Every handle of the old contents goes stale. INVALID_ARGUMENT names the first bad object
 * ("item i") and leaves the tree as it was. */
QUADRANT_C_API quadrant_status quadrant_tree_assign(quadrant_tree* tree, const double* mins, const double* maxs,
                                                    const uint64_t* values, const uint32_t* layers, size_t count,
                                                    quadrant_handle* handles);
/** Re-roots the tree over a new world (dims values each; the config's other fields stay), keeping every object
 * and handle: for objects that outgrew the world (quadrant_stats.outside_world counts them). INVALID_ARGUMENT for
 * a bad world, LOGIC_ERROR from inside a callback of the tree; either way nothing changed. */
QUADRANT_C_API quadrant_status quadrant_tree_rebuild(quadrant_tree* tree, const double* world_min,
                                                     const double* world_max);
/** Changes the object's layer mask. */
QUADRANT_C_API quadrant_status quadrant_tree_set_layers(quadrant_tree* tree, quadrant_handle handle,
                                                        uint32_t layers);
/** Changes the object's value. */
QUADRANT_C_API quadrant_status quadrant_tree_set_value(quadrant_tree* tree, quadrant_handle handle, uint64_t value);
/** Removes every object; every handle goes stale. */
QUADRANT_C_API quadrant_status quadrant_tree_clear(quadrant_tree* tree);

/** 1 when the handle names an object of the tree, else 0 (also for NULL trees and stale handles). */
QUADRANT_C_API int quadrant_tree_contains(const quadrant_tree* tree, quadrant_handle handle);
/** The number of objects. */
QUADRANT_C_API size_t quadrant_tree_size(const quadrant_tree* tree);
/** The object's box (dims values each). */
QUADRANT_C_API quadrant_status quadrant_tree_bounds(const quadrant_tree* tree, quadrant_handle handle, double* min,
                                                    double* max);
/** The object's value. */
QUADRANT_C_API quadrant_status quadrant_tree_value(const quadrant_tree* tree, quadrant_handle handle,
                                                   uint64_t* value);
/** The object's layer mask. */
QUADRANT_C_API quadrant_status quadrant_tree_layers(const quadrant_tree* tree, quadrant_handle handle,
                                                    uint32_t* layers);

/** Calls fn for every object in `layers` whose box the shape touches (exact tests; see docs/queries.md); stats may
 * be NULL. */
QUADRANT_C_API quadrant_status quadrant_tree_query(const quadrant_tree* tree, const quadrant_shape* shape,
                                                   uint32_t layers, quadrant_hit_fn fn, void* user,
                                                   quadrant_query_stats* stats);
/** The same objects into arrays (handles and values may each be NULL): the first `capacity` of them, in the order
 * quadrant_tree_query reports them; *count receives how many there are in all. */
QUADRANT_C_API quadrant_status quadrant_tree_query_into(const quadrant_tree* tree, const quadrant_shape* shape,
                                                        uint32_t layers, quadrant_handle* handles, uint64_t* values,
                                                        size_t capacity, size_t* count);
/** quadrant_tree_query_into, and what the walk did into *stats (may be NULL): nodes visited, box tests, hits. */
QUADRANT_C_API quadrant_status quadrant_tree_query_into_stats(const quadrant_tree* tree, const quadrant_shape* shape,
                                                              uint32_t layers, quadrant_handle* handles,
                                                              uint64_t* values, size_t capacity, size_t* count,
                                                              quadrant_query_stats* stats);
/** Calls fn once for every pair of objects in `layers` whose boxes overlap (touching counts). */
QUADRANT_C_API quadrant_status quadrant_tree_pairs(const quadrant_tree* tree, uint32_t layers, quadrant_pair_fn fn,
                                                   void* user);
/** The same pairs into an array of 2 * capacity handles (a, b, a, b, ...); *count receives how many pairs there
 * are in all. */
QUADRANT_C_API quadrant_status quadrant_tree_pairs_into(const quadrant_tree* tree, uint32_t layers,
                                                        quadrant_handle* pairs, size_t capacity, size_t* count);
/** Calls fn once for every pair of an object of a (in layers_a) and one of b (in layers_b) whose boxes overlap; a
 * and b must be different trees of the same dims and scalar (their placements and worlds may differ). */
QUADRANT_C_API quadrant_status quadrant_trees_pairs(const quadrant_tree* a, const quadrant_tree* b, uint32_t layers_a,
                                                    uint32_t layers_b, quadrant_pair_fn fn, void* user);
/** The same cross pairs into an array of 2 * capacity handles (a's, b's, ...); *count: how many in all. */
QUADRANT_C_API quadrant_status quadrant_trees_pairs_into(const quadrant_tree* a, const quadrant_tree* b,
                                                         uint32_t layers_a, uint32_t layers_b, quadrant_handle* pairs,
                                                         size_t capacity, size_t* count);
/** Walks the segment from a to b and calls fn for every object in `layers` it crosses, nearest first. */
QUADRANT_C_API quadrant_status quadrant_tree_raycast(const quadrant_tree* tree, const double* a, const double* b,
                                                     uint32_t layers, quadrant_ray_fn fn, void* user);
/** The first `capacity` objects the segment crosses, nearest first, into handles, values and ts (each may be NULL):
 * capacity 1 is the first hit alone, and stops the walk there. *count receives how many were found (at most
 * capacity). */
QUADRANT_C_API quadrant_status quadrant_tree_raycast_into(const quadrant_tree* tree, const double* a, const double* b,
                                                          uint32_t layers, quadrant_handle* handles, uint64_t* values,
                                                          double* ts, size_t capacity, size_t* count);
/** The k objects in `layers` nearest to `point` within max_distance (inclusive; INFINITY for no limit), nearest
 * first, into handles and distances (either may be NULL; capacity k); *count receives how many were found. */
QUADRANT_C_API quadrant_status quadrant_tree_nearest(const quadrant_tree* tree, const double* point, size_t k,
                                                     double max_distance, uint32_t layers, quadrant_handle* handles,
                                                     double* distances, size_t* count);
/** The tree's node and memory counts. */
QUADRANT_C_API quadrant_status quadrant_tree_stats(const quadrant_tree* tree, quadrant_stats* out);
/** Checks every invariant of the tree: QUADRANT_OK, or QUADRANT_INTERNAL_ERROR naming the first broken one. */
QUADRANT_C_API quadrant_status quadrant_tree_validate(const quadrant_tree* tree);

/* ---- collision filters and contact events ---- */

/** A symmetric 32 x 32 table of the layer pairs that collide (Unity's layer collision matrix; Box2D's category and
 * mask bits): bit j of partners[i] is set when layers i and j collide. Zero-initialise it (= {0}: nothing
 * collides), then fill it with quadrant_layer_matrix_between and quadrant_layer_matrix_set, which keep it
 * symmetric; a matrix that is not symmetric is refused. Two objects make a pair when some layer of one collides
 * with some layer of the other. */
typedef struct quadrant_layer_matrix {
  uint32_t partners[32];
} quadrant_layer_matrix;

/** Makes every layer of mask a collide with every layer of mask b (and b with a), keeping what was set:
 * "players against anything" is between(m, PLAYERS, ~0u); for_each_pair with a mask is between(m, mask, mask). */
QUADRANT_C_API void quadrant_layer_matrix_between(quadrant_layer_matrix* matrix, uint32_t a, uint32_t b);
/** Makes layers a and b (0..31) collide (collide nonzero) or not, both ways. INVALID_ARGUMENT outside 0..31. */
QUADRANT_C_API quadrant_status quadrant_layer_matrix_set(quadrant_layer_matrix* matrix, int a, int b, int collide);

/** Calls fn once for every overlapping pair the matrix lets through (pruned at nodes: a filtered-out pair costs no
 * box test). */
QUADRANT_C_API quadrant_status quadrant_tree_pairs_filtered(const quadrant_tree* tree,
                                                            const quadrant_layer_matrix* matrix, quadrant_pair_fn fn,
                                                            void* user);
/** The same pairs into an array of 2 * capacity handles, as quadrant_tree_pairs_into. */
QUADRANT_C_API quadrant_status quadrant_tree_pairs_filtered_into(const quadrant_tree* tree,
                                                                 const quadrant_layer_matrix* matrix,
                                                                 quadrant_handle* pairs, size_t capacity,
                                                                 size_t* count);

/** Contact events: which pairs of one tree began and ended overlapping since the last step (Unity's
 * OnTriggerEnter / OnTriggerExit, Box2D's begin / end touch events). Opaque. */
typedef struct quadrant_contacts quadrant_contacts;

/** Two objects whose boxes overlap; a has the lower slot (the handle's low 32 bits). In an ended contact a handle
 * may be stale: its object was erased. */
typedef struct quadrant_contact {
  quadrant_handle a, b;
} quadrant_contact;

/** What one step found, in memory the tracker owns, valid until its next update, clear or destroy. Each list is
 * sorted by (slot of a, slot of b), whatever the tree's placement or layout. */
typedef struct quadrant_contact_step {
  const quadrant_contact* begun; /**< pairs that overlap now and did not at the last step */
  size_t begun_count;
  const quadrant_contact* ended; /**< pairs that did and do not now (moved apart, left the layers, or erased) */
  size_t ended_count;
  const quadrant_contact* contacts; /**< every pair overlapping now */
  size_t contact_count;
} quadrant_contact_step;

/** Creates a tracker with no contacts: its first update reports every pair as begun. */
QUADRANT_C_API quadrant_status quadrant_contacts_create(quadrant_contacts** out);
/** Frees a tracker; NULL is ignored. */
QUADRANT_C_API void quadrant_contacts_destroy(quadrant_contacts* contacts);
/** One step over the tree's pairs in `layers`, or through `matrix` when it is not NULL. INVALID_ARGUMENT, with the
 * tracker unchanged, for another tree than the previous steps' (clear first to switch trees). On
 * OUT_OF_MEMORY the tracker is cleared (its next update reports every pair as begun). */
QUADRANT_C_API quadrant_status quadrant_contacts_update(quadrant_contacts* contacts, const quadrant_tree* tree,
                                                       uint32_t layers, const quadrant_layer_matrix* matrix,
                                                       quadrant_contact_step* out);
/** Forgets every contact and the tree. */
QUADRANT_C_API quadrant_status quadrant_contacts_clear(quadrant_contacts* contacts);

/** One node of a tree, as quadrant_tree_query_nodes, quadrant_tree_for_each_node and quadrant_tree_locate give it
 * (see NodeView in the C++ API; the first dims values of each array are set). */
typedef struct quadrant_node {
  double cell_min[3], cell_max[3];     /**< the node's cell (children halve it) */
  double bounds_min[3], bounds_max[3]; /**< what queries prune by (may be infinite: see docs/placements.md) */
  int depth;                           /**< root = 0 */
  int leaf;                            /**< 1 when the node has no children */
  uint32_t id;                         /**< the node's index (root = 0); reused after merges */
  uint32_t parent;                     /**< the parent's id; the root's is 0xffffffff */
  size_t items;                        /**< objects this node lists */
  size_t count;                        /**< objects listed in the whole subtree */
  uint32_t layers;                     /**< union of the layer masks in the subtree */
} quadrant_node;

/** Called for each node a walk reaches (the pointer is valid during the call): return nonzero to go on, 0 to stop. */
typedef int (*quadrant_node_fn)(void* user, const quadrant_node* node);

/** Calls fn for every leaf whose cell the shape touches, in pre-order (a grid's "which cells does this shape
 * touch"); with skip_empty nonzero, subtrees holding no object are skipped. */
QUADRANT_C_API quadrant_status quadrant_tree_query_nodes(const quadrant_tree* tree, const quadrant_shape* shape,
                                                         int skip_empty, quadrant_node_fn fn, void* user);
/** The same leaves into an array (up to capacity); *count receives how many there are in all. */
QUADRANT_C_API quadrant_status quadrant_tree_query_nodes_into(const quadrant_tree* tree, const quadrant_shape* shape,
                                                              int skip_empty, quadrant_node* nodes, size_t capacity,
                                                              size_t* count);
/** Calls fn for every node in pre-order (a parent before its children): to draw the tree. */
QUADRANT_C_API quadrant_status quadrant_tree_for_each_node(const quadrant_tree* tree, quadrant_node_fn fn, void* user);
/** The leaf whose cell holds `point` into *out; INVALID_ARGUMENT for a point outside the world. */
QUADRANT_C_API quadrant_status quadrant_tree_locate(const quadrant_tree* tree, const double* point,
                                                    quadrant_node* out);

/* ---- area of interest (AoiWorld: who sees whom, Enter/Leave events per tick; see docs/aoi.md) ---- */

/** An area-of-interest world: opaque. 2D; ids are the caller's 64-bit values. */
typedef struct quadrant_aoi quadrant_aoi;

/** Which roles an entity plays. */
typedef QUADRANT_C_ENUM(quadrant_aoi_mode) {
  QUADRANT_AOI_WATCHER = 1, /**< sees markers, is seen by nobody */
  QUADRANT_AOI_MARKER = 2,  /**< is seen, sees nothing */
  QUADRANT_AOI_BOTH = 3     /**< sees and is seen */
} quadrant_aoi_mode;

/** How a world is set up; quadrant_aoi_settings_init fills the defaults, quadrant_aoi_create checks every field. */
typedef struct quadrant_aoi_settings {
  quadrant_scalar scalar; /**< QUADRANT_FLOAT or QUADRANT_DOUBLE */
  double world_min[2];    /**< where entities usually are (outside it still works, slower): finite, min < max */
  double world_max[2];
  double hysteresis;      /**< a visible pair stays visible until its distance exceeds view radius + this; >= 0 */
  double skin;            /**< re-indexing distance (0: automatic; see docs/aoi.md); >= 0 */
  int max_depth;          /**< depth limit of the internal trees, >= 0 (default 8) */
  int split_threshold;    /**< split threshold of the internal trees, >= 1 (default 16) */
} quadrant_aoi_settings;

/** Enter: `watcher` sees `target` since this tick; Leave: no longer. */
typedef QUADRANT_C_ENUM(quadrant_aoi_event_kind) {
  QUADRANT_AOI_ENTER = 0,
  QUADRANT_AOI_LEAVE = 1
} quadrant_aoi_event_kind;

/** One change of the who-sees-whom relation. */
typedef struct quadrant_aoi_event {
  uint64_t watcher; /**< the id of the entity that sees */
  uint64_t target;  /**< the id of the entity seen */
  int32_t kind;     /**< a quadrant_aoi_event_kind */
  int32_t reserved; /**< 0 */
} quadrant_aoi_event;

/** Fills *settings with the defaults over the world [0, 1000]^2. */
QUADRANT_C_API void quadrant_aoi_settings_init(quadrant_aoi_settings* settings, quadrant_scalar scalar);
/** Creates an empty world; *out receives it (NULL on error). */
QUADRANT_C_API quadrant_status quadrant_aoi_create(const quadrant_aoi_settings* settings, quadrant_aoi** out);
/** Frees a world; NULL is ignored. */
QUADRANT_C_API void quadrant_aoi_destroy(quadrant_aoi* aoi);
/** Adds entity `id` at (x, y); it joins the relation at the next tick. `layers` is a mask (~0u: every layer; 0:
 * invisible and blind); body_radius (>= 0) is the half side of its body box for quadrant_aoi_query_into.
 * INVALID_ARGUMENT for an id present, a non-finite position, a NaN, negative or infinite radius, a bad mode. */
QUADRANT_C_API quadrant_status quadrant_aoi_add(quadrant_aoi* aoi, uint64_t id, double x, double y,
                                               double view_radius, quadrant_aoi_mode mode, uint32_t layers,
                                               double body_radius);
/** Moves entity `id` at the next tick (the last move before a tick wins). */
QUADRANT_C_API quadrant_status quadrant_aoi_move(quadrant_aoi* aoi, uint64_t id, double x, double y);
/** Moves `count` entities (xy: x0, y0, x1, y1, ...) in one call; checked whole first: on error none moved. */
QUADRANT_C_API quadrant_status quadrant_aoi_move_many(quadrant_aoi* aoi, const uint64_t* ids, const double* xy,
                                                     size_t count);
/** Gives entity `id` a new view radius at the next tick. */
QUADRANT_C_API quadrant_status quadrant_aoi_set_view_radius(quadrant_aoi* aoi, uint64_t id, double view_radius);
/** Gives entity `id` a new layer mask at the next tick. */
QUADRANT_C_API quadrant_status quadrant_aoi_set_layers(quadrant_aoi* aoi, uint64_t id, uint32_t layers);
/** Removes entity `id` at the next tick (which reports a Leave for each of its pairs). */
QUADRANT_C_API quadrant_status quadrant_aoi_remove(quadrant_aoi* aoi, uint64_t id);
/** Applies every change since the last tick and computes the relation. *events receives the tick's events, ordered
 * by (watcher, target), in memory the world owns, valid until the next tick or destroy; *count their number. */
QUADRANT_C_API quadrant_status quadrant_aoi_tick(quadrant_aoi* aoi, const quadrant_aoi_event** events,
                                                size_t* count);
/** The ids `watcher` saw at the last tick, ascending, into ids (up to capacity; may be NULL); *count: how many. */
QUADRANT_C_API quadrant_status quadrant_aoi_visible(const quadrant_aoi* aoi, uint64_t watcher, uint64_t* ids,
                                                   size_t capacity, size_t* count);
/** The ids that saw `target` at the last tick, ascending, as quadrant_aoi_visible. */
QUADRANT_C_API quadrant_status quadrant_aoi_watchers(const quadrant_aoi* aoi, uint64_t target, uint64_t* ids,
                                                    size_t capacity, size_t* count);
/** The ids in `layers` whose body box (at the last tick) the 2D shape touches, ascending (a skill's area). */
QUADRANT_C_API quadrant_status quadrant_aoi_query_into(const quadrant_aoi* aoi, const quadrant_shape* shape,
                                                      uint32_t layers, uint64_t* ids, size_t capacity,
                                                      size_t* count);
/** 1 when `id` is present (counting changes not yet ticked), else 0. */
QUADRANT_C_API int quadrant_aoi_contains(const quadrant_aoi* aoi, uint64_t id);
/** Entities in the relation as of the last tick. */
QUADRANT_C_API size_t quadrant_aoi_size(const quadrant_aoi* aoi);
/** Pairs (watcher sees target) as of the last tick. */
QUADRANT_C_API size_t quadrant_aoi_pair_count(const quadrant_aoi* aoi);
/** The position of `id` as of the last tick into xy[0], xy[1]. */
QUADRANT_C_API quadrant_status quadrant_aoi_position(const quadrant_aoi* aoi, uint64_t id, double* xy);
/** Checks every invariant by brute force (O(N^2), for tests): QUADRANT_OK or QUADRANT_INTERNAL_ERROR. */
QUADRANT_C_API quadrant_status quadrant_aoi_validate(const quadrant_aoi* aoi);

/* ---- streaming (Streamer: load what the cameras see; see docs/streaming.md) ---- */

/** A streamer: opaque. Objects are 3D boxes named by the caller's 64-bit ids. */
typedef struct quadrant_streamer quadrant_streamer;

/** Where an object stands. */
typedef QUADRANT_C_ENUM(quadrant_stream_state) {
  QUADRANT_STREAM_UNLOADED = 0, /**< not resident, not waiting */
  QUADRANT_STREAM_QUEUED = 1,   /**< wanted but held back by the caps (never reported) */
  QUADRANT_STREAM_LOADING = 2,  /**< issued in loads; waits for mark_loaded / mark_failed */
  QUADRANT_STREAM_LOADED = 3    /**< resident */
} quadrant_stream_state;

/** How a streamer is set up; quadrant_streamer_config_init fills the defaults. tree.dims must be 3. */
typedef struct quadrant_streamer_config {
  quadrant_config tree;         /**< the octree's shape */
  double unload_margin;         /**< how far past the wanted region a resident object stays; finite, >= 0 */
  size_t max_loads_per_update;  /**< loads one update issues at most (default 16; 0 pauses loading) */
  size_t max_loads_in_flight;   /**< objects Loading at once at most (default 64; 0 pauses loading) */
} quadrant_streamer_config;

/** One streaming source: a camera's frustum (optional) and a prefetch ball around its position. */
typedef struct quadrant_stream_source {
  int has_frustum;         /**< 1: matrix holds a view-projection matrix; 0: the position and radius alone */
  int matrix_row_major;    /**< 0 (OpenGL/glm) or 1 */
  int clip_zero_to_one;    /**< 0 (OpenGL) or 1 (Direct3D, Vulkan, Metal) */
  double matrix[16];
  double position[3];      /**< the prefetch center and the priority origin */
  double prefetch_radius;  /**< finite, >= 0 (0: only the boxes holding the position) */
} quadrant_stream_source;

/** A load request: the id and the distance from the nearest source position to its box. */
typedef struct quadrant_stream_load {
  uint64_t id;
  double distance;
} quadrant_stream_load;

/** What one update did (see StreamStats in the C++ API). */
typedef struct quadrant_stream_stats {
  size_t nodes_visited, box_tests, kept_tests, wanted, dequeued, queued, loading, loaded;
} quadrant_stream_stats;

/** The requests of one update, in memory the streamer owns, valid until its next update or destroy. */
typedef struct quadrant_stream_update {
  const quadrant_stream_load* loads; /**< start loading these, nearest first (ties by id) */
  size_t load_count;
  const uint64_t* unloads;           /**< release these (were Loaded), by increasing id */
  size_t unload_count;
  const uint64_t* cancels;           /**< abandon these loads (were Loading), by increasing id */
  size_t cancel_count;
  quadrant_stream_stats stats;
} quadrant_stream_update;

/** Fills *config with the defaults: an octree of `scalar` over [0, 1]^3, no margin, caps 16 and 64. */
QUADRANT_C_API void quadrant_streamer_config_init(quadrant_streamer_config* config, quadrant_scalar scalar);
/** Creates an empty streamer; *out receives it (NULL on error). */
QUADRANT_C_API quadrant_status quadrant_streamer_create(const quadrant_streamer_config* config,
                                                       quadrant_streamer** out);
/** Frees a streamer; NULL is ignored. */
QUADRANT_C_API void quadrant_streamer_destroy(quadrant_streamer* streamer);
/** Adds an Unloaded object with the box [min, max] (3 values each). INVALID_ARGUMENT for an id present or a bad box. */
QUADRANT_C_API quadrant_status quadrant_streamer_add(quadrant_streamer* streamer, uint64_t id, const double* min,
                                                    const double* max);
/** Removes the object at once; *was (may be NULL) receives its state: LOADING means abandon that load, LOADED that
 * the caller should release it. */
QUADRANT_C_API quadrant_status quadrant_streamer_remove(quadrant_streamer* streamer, uint64_t id,
                                                       quadrant_stream_state* was);
/** Gives the object a new box; the next update decides what that changes. */
QUADRANT_C_API quadrant_status quadrant_streamer_move(quadrant_streamer* streamer, uint64_t id, const double* min,
                                                     const double* max);
/** Reports a finished load: *accepted (may be NULL) is 1 for Loading -> Loaded, 0 for a completion that came too
 * late (the caller drops what it loaded). */
QUADRANT_C_API quadrant_status quadrant_streamer_mark_loaded(quadrant_streamer* streamer, uint64_t id,
                                                            int* accepted);
/** Reports a failed load: *accepted is 1 for Loading -> Unloaded (asked again later while wanted), else 0. */
QUADRANT_C_API quadrant_status quadrant_streamer_mark_failed(quadrant_streamer* streamer, uint64_t id,
                                                            int* accepted);
/** Changes the caps from the next update on. */
QUADRANT_C_API quadrant_status quadrant_streamer_set_limits(quadrant_streamer* streamer, size_t max_loads_per_update,
                                                           size_t max_loads_in_flight);
/** One frame: decides loads, unloads and cancels for the sources (count may be 0) into *out. INVALID_ARGUMENT
 * (nothing changes) for a source with a non-finite position or matrix number or a NaN, infinite or negative radius. */
QUADRANT_C_API quadrant_status quadrant_streamer_update(quadrant_streamer* streamer,
                                                       const quadrant_stream_source* sources, size_t count,
                                                       quadrant_stream_update* out);
/** 1 when the id is present, else 0. */
QUADRANT_C_API int quadrant_streamer_contains(const quadrant_streamer* streamer, uint64_t id);
/** The object's state. */
QUADRANT_C_API quadrant_status quadrant_streamer_state(const quadrant_streamer* streamer, uint64_t id,
                                                      quadrant_stream_state* state);
/** The object's box (3 values each). */
QUADRANT_C_API quadrant_status quadrant_streamer_bounds(const quadrant_streamer* streamer, uint64_t id, double* min,
                                                       double* max);
/** Objects present. */
QUADRANT_C_API size_t quadrant_streamer_size(const quadrant_streamer* streamer);
/** Checks the bookkeeping (for tests): QUADRANT_OK or QUADRANT_INTERNAL_ERROR naming the first broken invariant. */
QUADRANT_C_API quadrant_status quadrant_streamer_validate(const quadrant_streamer* streamer);

#ifdef __cplusplus
}
#endif

#endif /* QUADRANT_C_QUADRANT_H */

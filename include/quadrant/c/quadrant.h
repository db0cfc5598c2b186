/* SPDX-License-Identifier: MIT */
/* quadrant — the C API: quadtrees and octrees for C and for other languages' foreign-function interfaces (Lua, C#
 * P/Invoke, WebAssembly). C99; no C++ type crosses it. Link the quadrant_c library (shared or static).
 *
 * Errors: every call that can fail returns a quadrant_status; QUADRANT_OK is 0. On any other status nothing
 * changed (the tree is as it was) and quadrant_last_error() gives the library's message. No exception crosses
 * the boundary.
 *
 * Ownership: a tree is created by quadrant_tree_create and freed by quadrant_tree_destroy; nothing else allocates
 * memory the caller must free. Arrays the caller passes are read during the call only; output arrays are filled
 * up to the capacity given, and the count says how many results there were (call again with a larger array when
 * it exceeds the capacity).
 *
 * Handles: a quadrant_handle names one object of one tree; 0 names nothing. A handle goes stale when its object is
 * erased or the tree cleared: calls given it fail with QUADRANT_INVALID_ARGUMENT (quadrant_tree_contains answers
 * 0). Values are 64-bit user data (an id, an index, a pointer cast to an integer), stored as given.
 *
 * Coordinates are doubles across the API. A float tree (QUADRANT_FLOAT) rounds them to the nearest float when it
 * stores or queries them; its results are those of the C++ Tree<D, T, float> given the rounded values.
 *
 * Threads: const calls (queries, pairs, ray casts, nearest, stats, validate) may run on one tree from several
 * threads at once; a mutating call needs the tree to itself. quadrant_last_error() is per thread. A callback may
 * not mutate the tree it was called from: that call fails with QUADRANT_LOGIC_ERROR and changes nothing.
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

/** The version of this header; quadrant_version() gives the library's. */
#define QUADRANT_C_VERSION_MAJOR 0
#define QUADRANT_C_VERSION_MINOR 2
#define QUADRANT_C_VERSION_PATCH 0

/** What a call did. */
typedef enum quadrant_status {
  QUADRANT_OK = 0,               /**< done */
  QUADRANT_INVALID_ARGUMENT = 1, /**< bad input (a NaN, a stale handle, a bad config...): nothing changed */
  QUADRANT_LOGIC_ERROR = 2,      /**< misuse, such as mutating a tree from inside its own callback: nothing changed */
  QUADRANT_OUT_OF_MEMORY = 3,    /**< an allocation failed: nothing changed */
  QUADRANT_INTERNAL_ERROR = 4    /**< anything else (a bug: please report it with quadrant_last_error()) */
} quadrant_status;

/** The scalar type a tree stores its coordinates in. */
typedef enum quadrant_scalar { QUADRANT_FLOAT = 0, QUADRANT_DOUBLE = 1 } quadrant_scalar;

/** Where a tree keeps its objects (see docs/placements.md). */
typedef enum quadrant_placement { QUADRANT_LOOSE = 0, QUADRANT_PARENT = 1, QUADRANT_LEAVES = 2 } quadrant_placement;

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
typedef enum quadrant_shape_kind {
  QUADRANT_SHAPE_BOX = 0,          /**< a = min, b = max */
  QUADRANT_SHAPE_POINT = 1,        /**< a */
  QUADRANT_SHAPE_BALL = 2,         /**< a circle (2D) or sphere (3D): a = centre, r0 = radius */
  QUADRANT_SHAPE_RING = 3,         /**< 2D: a = centre, r0 = inner radius, r1 = outer radius */
  QUADRANT_SHAPE_ELLIPSE = 4,      /**< 2D: a = centre, r0 and r1 = semi-axes, angle = rotation (radians, CCW) */
  QUADRANT_SHAPE_SECTOR = 5,       /**< 2D: a = apex, b = direction, r0 = radius, angle = half angle in [0, pi] */
  QUADRANT_SHAPE_ORIENTED_BOX = 6, /**< 2D: a = centre, r0 and r1 = half extents, angle = rotation (radians, CCW) */
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
QUADRANT_C_API quadrant_shape quadrant_shape_ball(int dims, const double* centre, double radius);
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
/** Frees a tree and everything it holds; NULL is ignored. Handles of it must not be used afterwards. */
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
/** Walks the segment from a to b and calls fn for every object in `layers` it crosses, nearest first. */
QUADRANT_C_API quadrant_status quadrant_tree_raycast(const quadrant_tree* tree, const double* a, const double* b,
                                                     uint32_t layers, quadrant_ray_fn fn, void* user);
/** The k objects in `layers` nearest to `point` within max_distance (inclusive; INFINITY for no limit), nearest
 * first, into handles and distances (either may be NULL; capacity k); *count receives how many were found. */
QUADRANT_C_API quadrant_status quadrant_tree_nearest(const quadrant_tree* tree, const double* point, size_t k,
                                                     double max_distance, uint32_t layers, quadrant_handle* handles,
                                                     double* distances, size_t* count);
/** The tree's node and memory counts. */
QUADRANT_C_API quadrant_status quadrant_tree_stats(const quadrant_tree* tree, quadrant_stats* out);
/** Checks every invariant of the tree: QUADRANT_OK, or QUADRANT_INTERNAL_ERROR naming the first broken one. */
QUADRANT_C_API quadrant_status quadrant_tree_validate(const quadrant_tree* tree);

#ifdef __cplusplus
}
#endif

#endif /* QUADRANT_C_QUADRANT_H */

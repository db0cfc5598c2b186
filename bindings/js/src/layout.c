/* SPDX-License-Identifier: MIT */
/* The byte offsets of the C API's structs as this compiler lays them out, for the JavaScript package, which reads
 * and writes them in the WebAssembly memory: "name=offset" entries, space-separated, sizes as "struct=size". Built
 * into quadrant_wasm only, so the package never guesses an offset. */
#include <stddef.h>
#include <stdio.h>

#include "quadrant/c/quadrant.h"

#define FIELDS(X)                                                                                              \
  X(quadrant_config, dims) X(quadrant_config, scalar) X(quadrant_config, world_min) X(quadrant_config, world_max) \
  X(quadrant_config, max_depth) X(quadrant_config, split_threshold) X(quadrant_config, min_node_size)             \
  X(quadrant_config, placement)                                                                                  \
  X(quadrant_shape, kind) X(quadrant_shape, a) X(quadrant_shape, b) X(quadrant_shape, r0) X(quadrant_shape, r1)   \
  X(quadrant_shape, angle) X(quadrant_shape, points) X(quadrant_shape, count) X(quadrant_shape, matrix_row_major) \
  X(quadrant_shape, clip_zero_to_one)                                                                            \
  X(quadrant_query_stats, nodes_visited) X(quadrant_query_stats, box_tests) X(quadrant_query_stats, hits)         \
  X(quadrant_stats, nodes) X(quadrant_stats, leaves) X(quadrant_stats, depth) X(quadrant_stats, objects)          \
  X(quadrant_stats, references) X(quadrant_stats, bytes) X(quadrant_stats, outside_world)                        \
  X(quadrant_stats, root_entries)                                                                                \
  X(quadrant_node, cell_min) X(quadrant_node, cell_max) X(quadrant_node, bounds_min) X(quadrant_node, bounds_max) \
  X(quadrant_node, depth) X(quadrant_node, leaf) X(quadrant_node, id) X(quadrant_node, parent)                   \
  X(quadrant_node, items) X(quadrant_node, count) X(quadrant_node, layers)                                       \
  X(quadrant_aoi_settings, scalar) X(quadrant_aoi_settings, world_min) X(quadrant_aoi_settings, world_max)        \
  X(quadrant_aoi_settings, hysteresis) X(quadrant_aoi_settings, skin) X(quadrant_aoi_settings, max_depth)         \
  X(quadrant_aoi_settings, split_threshold)                                                                      \
  X(quadrant_aoi_event, watcher) X(quadrant_aoi_event, target) X(quadrant_aoi_event, kind)                       \
  X(quadrant_streamer_config, tree) X(quadrant_streamer_config, unload_margin)                                   \
  X(quadrant_streamer_config, max_loads_per_update) X(quadrant_streamer_config, max_loads_in_flight)             \
  X(quadrant_stream_source, has_frustum) X(quadrant_stream_source, matrix_row_major)                             \
  X(quadrant_stream_source, clip_zero_to_one) X(quadrant_stream_source, matrix) X(quadrant_stream_source, position) \
  X(quadrant_stream_source, prefetch_radius)                                                                     \
  X(quadrant_stream_load, id) X(quadrant_stream_load, distance)                                                  \
  X(quadrant_stream_update, loads) X(quadrant_stream_update, load_count) X(quadrant_stream_update, unloads)       \
  X(quadrant_stream_update, unload_count) X(quadrant_stream_update, cancels) X(quadrant_stream_update, cancel_count) \
  X(quadrant_stream_update, stats)                                                                               \
  X(quadrant_stream_stats, nodes_visited) X(quadrant_stream_stats, box_tests) X(quadrant_stream_stats, kept_tests) \
  X(quadrant_stream_stats, wanted) X(quadrant_stream_stats, dequeued) X(quadrant_stream_stats, queued)           \
  X(quadrant_stream_stats, loading) X(quadrant_stream_stats, loaded)                                             \
  X(quadrant_contact, a) X(quadrant_contact, b)                                                                  \
  X(quadrant_contact_step, begun) X(quadrant_contact_step, begun_count) X(quadrant_contact_step, ended)          \
  X(quadrant_contact_step, ended_count) X(quadrant_contact_step, contacts) X(quadrant_contact_step, contact_count)

#define STRUCTS(X)                                                                                             \
  X(quadrant_config) X(quadrant_shape) X(quadrant_query_stats) X(quadrant_stats) X(quadrant_node)                \
  X(quadrant_aoi_settings) X(quadrant_aoi_event) X(quadrant_streamer_config) X(quadrant_stream_source)           \
  X(quadrant_stream_load) X(quadrant_stream_update) X(quadrant_layer_matrix) X(quadrant_contact)                 \
  X(quadrant_contact_step)

/** The layout as "quadrant_shape.r0=56 ... quadrant_shape=96 ..."; a static string, built on the first call. */
const char* quadrant_js_layout(void) {
  static char text[8192];
  if (text[0] == 0) {
    size_t at = 0;
#define FIELD(T, f) at += (size_t)snprintf(text + at, sizeof text - at, #T "." #f "=%u ", (unsigned)offsetof(T, f));
#define SIZE(T) at += (size_t)snprintf(text + at, sizeof text - at, #T "=%u ", (unsigned)sizeof(T));
    FIELDS(FIELD)
    STRUCTS(SIZE)
  }
  return text;
}

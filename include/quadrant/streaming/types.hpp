// SPDX-License-Identifier: MIT
// quadrant — the public value types of Streamer: an object's state, a streaming source, the configuration, and what
// one update() reports. Include <quadrant/streaming.hpp>, which brings these and Streamer.
//
// Threads: plain values; nothing here is shared.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "../config.hpp"
#include "../geometry.hpp"

namespace quadrant {

/// Where an object stands in the streamer (see the file comment for the transitions).
enum class StreamState : std::uint8_t {
  Unloaded,  ///< not resident, not waiting
  Queued,    ///< wanted by the last update but not issued because of the caps; never reported to the caller
  Loading,   ///< issued by update() in `loads`; waits for mark_loaded / mark_failed
  Loaded,    ///< resident until it leaves every kept region
};

/// The state's name as spelled in code ("Unloaded", ...); "?" outside the enum.
constexpr const char* to_string(StreamState state) noexcept {
  switch (state) {
    case StreamState::Unloaded: return "Unloaded";
    case StreamState::Queued: return "Queued";
    case StreamState::Loading: return "Loading";
    case StreamState::Loaded: return "Loaded";
  }
  return "?";
}

/// One streaming source for one update: a camera's view frustum (optional: a source may be a position alone, a
/// player with no camera), its position, and a prefetch radius around the position (0: only boxes holding it).
template <class S = float>
struct StreamingSource {
  std::optional<Frustum<S>> frustum;  ///< the view volume (Frustum::from_view_projection), or none
  Vec<3, S> position{};               ///< the camera's position: the prefetch center and the priority origin
  S prefetch_radius = 0;              ///< finite, >= 0
};

/// How a Streamer is set up. Checked by its constructor.
template <class S = float>
struct StreamerConfig {
  Config<3, S> tree;                        ///< the octree's shape (world, depth, split threshold, placement)
  S unload_margin = 0;                      ///< how far past the wanted region a resident object stays; finite, >= 0
  std::size_t max_loads_per_update = 16;    ///< loads one update issues at most (0 pauses loading)
  std::size_t max_loads_in_flight = 64;     ///< objects Loading at once at most (0 pauses loading)
};

/// A load request: the caller's id and the distance that ordered it (nearest source position to the box).
template <class S = float>
struct StreamLoad {
  std::uint64_t id;  ///< the id given to add()
  S distance;        ///< point-to-box distance from the nearest source position (0 inside)
};

/// What one update() did (counters of work, and the states after it).
struct StreamStats {
  std::size_t nodes_visited = 0;  ///< octree nodes the frustum and prefetch queries entered
  std::size_t box_tests = 0;      ///< object boxes the queries tested (objects in subtrees wholly inside: none)
  std::size_t kept_tests = 0;     ///< resident objects not wanted, tested against the kept regions
  std::size_t wanted = 0;         ///< objects wanted by some source
  std::size_t dequeued = 0;       ///< Queued objects no longer wanted (back to Unloaded, not reported)
  std::size_t queued = 0;         ///< Queued after the update
  std::size_t loading = 0;        ///< Loading after the update (at most max_loads_in_flight, unless lowered)
  std::size_t loaded = 0;         ///< Loaded after the update
  /// Every object box tested: box_tests + kept_tests (the cost to compare with testing every object).
  std::size_t objects_tested() const noexcept { return box_tests + kept_tests; }
};

/// The requests of one update(). Lives in the Streamer; valid until its next update().
template <class S = float>
struct StreamUpdate {
  std::vector<StreamLoad<S>> loads;     ///< start loading these, nearest first (ties by id)
  std::vector<std::uint64_t> unloads;   ///< release these (were Loaded), by increasing id
  std::vector<std::uint64_t> cancels;   ///< abandon these loads (were Loading), by increasing id
  StreamStats stats;                    ///< what the update did
};

}  // namespace quadrant

// SPDX-License-Identifier: MIT
// quadrant — the public value types of the area of interest: an entity's mode (AoiMode) and the events a tick
// reports (AoiEvent). Include <quadrant/aoi.hpp>, which brings these and AoiWorld.
//
// Threads: plain values; nothing here is shared.
#pragma once

#include <cstdint>

namespace quadrant {

/// Which roles an entity plays: a watcher sees, a marker is seen, Both does both.
enum class AoiMode : std::uint8_t {
  Watcher = 1,  ///< sees markers, is seen by nobody
  Marker = 2,   ///< is seen by watchers, sees nothing
  Both = 3,     ///< sees and is seen
};

/// One change of the who-sees-whom relation, reported by AoiWorld::tick.
struct AoiEvent {
  /// Enter: `watcher` sees `target` now and did not at the previous tick. Leave: the reverse.
  enum class Kind : std::uint8_t {
    Enter,  ///< the pair begins: watcher sees target since this tick
    Leave,  ///< the pair ends: watcher no longer sees target (out of range, layers, mode, or either removed)
  } kind;   ///< which change
  std::uint64_t watcher;  ///< the id of the entity that sees
  std::uint64_t target;   ///< the id of the entity seen
  /// Exact equality of all three fields.
  friend constexpr bool operator==(const AoiEvent&, const AoiEvent&) = default;
};

}  // namespace quadrant

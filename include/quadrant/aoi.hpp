// SPDX-License-Identifier: MIT
// quadrant — MMO area of interest (opt-in: <quadrant/quadrant.hpp> does not include it): AoiWorld, who sees whom,
// Enter / Leave events per tick, and skill-area queries. The semantics, costs and threading are in aoi/world.hpp;
// docs/aoi.md explains the design.
//
//   aoi/events.hpp    AoiMode, AoiEvent (public value types)
//   aoi/world.hpp     AoiSettings and the class AoiWorld
//   aoi/core.hpp      its internal state (candidate lists, flags, checks)
//   aoi/links.hpp, aoi/tick.hpp, aoi/layout.hpp, aoi/validate.hpp   its members, each including world.hpp
//
// Threads: const members of an AoiWorld may run concurrently with each other; every mutation and tick() need
// exclusive access.
#pragma once

#include "aoi/events.hpp"
#include "aoi/world.hpp"
#include "aoi/links.hpp"
#include "aoi/tick.hpp"
#include "aoi/layout.hpp"
#include "aoi/validate.hpp"

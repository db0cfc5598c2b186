// SPDX-License-Identifier: MIT
// quadrant — umbrella header: everything a user needs.
//
// Threads: const members of a Tree may run concurrently with each other; insert, erase, move, clear and
// assignment need exclusive access. Geometry functions are pure.
#pragma once

#include "aoi.hpp"
#include "config.hpp"
#include "geometry.hpp"
#include "handle.hpp"
#include "neighbor.hpp"
#include "node_view.hpp"
#include "stats.hpp"
#include "streaming.hpp"
#include "tree.hpp"

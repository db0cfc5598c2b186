// SPDX-License-Identifier: MIT
// quadrant — umbrella header of the core: the tree, the geometry and their value types. The systems built on the
// tree are opt-in, each its own header: <quadrant/aoi.hpp> (AoiWorld), <quadrant/streaming.hpp> (Streamer) and
// <quadrant/svg.hpp> (pictures).
//
// Threads: const members of a Tree may run concurrently with each other; insert, erase, move, clear and
// assignment need exclusive access. Geometry functions are pure.
#pragma once

#include "config.hpp"
#include "contacts.hpp"
#include "geometry.hpp"
#include "handle.hpp"
#include "layer_matrix.hpp"
#include "neighbor.hpp"
#include "node_view.hpp"
#include "stats.hpp"
#include "tree.hpp"
#include "version.hpp"

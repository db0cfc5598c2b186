// SPDX-License-Identifier: MIT
// quadrant — camera-driven streaming (opt-in: <quadrant/quadrant.hpp> does not include it): Streamer loads what
// the sources' cameras see and unloads what they leave, with margins, caps and asynchronous loads. The states and
// the exact rules are in streaming/streamer.hpp; docs/streaming.md explains the design and gives the arithmetic.
//
//   streaming/types.hpp     StreamState, StreamingSource, StreamerConfig, StreamLoad, StreamStats, StreamUpdate
//   streaming/streamer.hpp  the class Streamer
//   streaming/regions.hpp   the wanted and kept regions' predicates (internal)
//   streaming/update.hpp    Streamer::update and Streamer::validate, including streamer.hpp
//
// Threads: const members of a Streamer may run concurrently with each other; add, remove, move, mark_loaded,
// mark_failed, set_limits and update need exclusive access.
#pragma once

#include "streaming/types.hpp"
#include "streaming/streamer.hpp"
#include "streaming/update.hpp"

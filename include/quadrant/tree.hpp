// SPDX-License-Identifier: MIT
// quadrant — Tree<D, T, S>: the quadtree (D = 2) and octree (D = 3), one implementation.
//
//   tree/tree.hpp             the class Tree: records, handles, checks and the public contracts
//   tree/build.hpp            assign and rebuild: the bulk build
//   tree/batch_move.hpp       move(handles, boxes[, threads]): the batch move, on one thread or several
//   tree/parallel_pairs.hpp   for_each_pair_parallel and pairs(out, threads): the pair walk on threads
//   tree/cross_pairs.hpp      for_each_pair(a, b, fn): the pairs between two trees
//   tree/nearest.hpp          raycast, nearest and for_each_nearest: the best-first searches
//   tree/nodes.hpp            query_nodes, locate and for_each_node: the nodes as NodeView
//   tree/validate.hpp         validate and stats: the invariants, and what the tree holds
//
// Below them: tree/node_store.hpp (the memory layout), tree/placement.hpp (Loose, Parent, Leaves), tree/core.hpp
// (placing, splitting, merging), tree/walks.hpp and tree/best_first.hpp (queries, pairs, nearest,
// ray casts). docs/architecture.md has the map.
//
// Threads: const members may run concurrently with each other; any mutation (insert, erase, move, clear) needs
// exclusive access to the tree.
#pragma once

#include "tree/tree.hpp"
#include "tree/build.hpp"
#include "tree/batch_move.hpp"
#include "tree/parallel_pairs.hpp"
#include "tree/cross_pairs.hpp"
#include "tree/nearest.hpp"
#include "tree/nodes.hpp"
#include "tree/validate.hpp"

// SPDX-License-Identifier: MIT
// quadrant — Config: the shape of a tree (world, depth, split threshold, placement) and its validation.
//
// Threads: plain values.
#pragma once

#include <cmath>
#include <stdexcept>
#include <string>

#include "geometry.hpp"

namespace quadrant {

/// Where a tree keeps an object.
enum class Placement {
  /// A loose tree: one node per object, chosen by the object's center and size; a node's bounds are its cell
  /// grown by half its side on each side. No object is stored twice and none hoards at the root because it
  /// straddles a split line. The default.
  Loose,
  /// One node per object: the deepest node whose cell contains the object. Objects that straddle a split line stay
  /// in the parent, the classic game quadtree.
  Parent,
  /// Every leaf the object overlaps lists it; queries and pairs report it once. Fast for small objects, costly in memory for large ones.
  Leaves,
};

/// The placement's name as spelled in code ("Loose", "Parent", "Leaves"); "?" for a value outside the enum.
constexpr const char* to_string(Placement placement) noexcept {
  switch (placement) {
    case Placement::Loose: return "Loose";
    case Placement::Parent: return "Parent";
    case Placement::Leaves: return "Leaves";
  }
  return "?";
}

/// The shape of a tree. Every field is checked by the Tree constructor (see `check_config`).
template <int D, class S = float>
struct Config {
  /// The root cell. Objects outside it are still kept and found (they live at the root, or under
  /// Placement::Leaves in the boundary leaves nearest to them). Must be finite with min < max on every axis.
  Box<D, S> world;
  /// The deepest level a node may have; the root is depth 0. Must be >= 0.
  int max_depth = 8;
  /// A leaf may split once it holds more entries than this (it does when the split separates them; see
  /// docs/core.md). 0 builds the full tree down to max_depth at once and never merges (a fixed grid;
  /// at most 2^24 nodes). Must be >= 0.
  int split_threshold = 32;
  /// No node is smaller than this: a cell is split only when its children's sides are all at least this long
  /// (a minimum node width and height). Must be finite and >= 0.
  S min_node_size = 0;
  /// Where objects are kept (see Placement).
  Placement placement = Placement::Loose;
};

/// Throws std::invalid_argument naming the first defect of `config`; returns normally when it is usable.
template <int D, class S>
void check_config(const Config<D, S>& config) {
  check_box(config.world, "Config::world");
  for (int i = 0; i < D; ++i)
    if (!(config.world.min[i] < config.world.max[i]))
      throw std::invalid_argument("quadrant: Config::world is empty on axis " + std::to_string(i) +
                                  " (min must be < max)");
  if (config.max_depth < 0)
    throw std::invalid_argument("quadrant: Config::max_depth must be >= 0, got " + std::to_string(config.max_depth));
  if (config.split_threshold < 0)
    throw std::invalid_argument("quadrant: Config::split_threshold must be >= 0, got " +
                                std::to_string(config.split_threshold));
  if (!std::isfinite(config.min_node_size) || config.min_node_size < 0)
    throw std::invalid_argument("quadrant: Config::min_node_size must be finite and >= 0");
  if (config.placement != Placement::Loose && config.placement != Placement::Parent &&
      config.placement != Placement::Leaves)
    throw std::invalid_argument("quadrant: Config::placement is not a Placement value");
}

}  // namespace quadrant

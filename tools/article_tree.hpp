// SPDX-License-Identifier: MIT
// quadrant tool — the MMO article's own quadtree (seeds/000, Unity C#), ported line for line so that its traversal
// count can be measured on exactly the frames quadrant runs on. It is the reference for the article's figures, not
// part of the library: strict Contains, objects that straddle a center line stay in the node, no split threshold,
// nodes created on demand down to the depth limit, Retrieve returning every object of every node on the path (and
// of all four children when the query straddles a center line, overlapping or not).
#pragma once

#include <cstdint>
#include <vector>

#include <quadrant/geometry.hpp>

namespace quadrant_tools {

class ArticleQuadTree {
 public:
  /// The article's AABB (its y axis points up; quadrant 0 is the upper right one).
  struct AABB {
    float x_min, x_max, y_min, y_max, x_center, y_center;

    static AABB of(const quadrant::Box2& b) {
      return AABB{b.min.x, b.max.x, b.min.y, b.max.y, b.min.x + (b.max.x - b.min.x) * 0.5f,
                  b.min.y + (b.max.y - b.min.y) * 0.5f};
    }
    // Strict, as the article's: an object touching a cell's side is not inside it.
    bool contains(const AABB& o) const {
      return o.x_min > x_min && o.x_max < x_max && o.y_min > y_min && o.y_max < y_max;
    }
  };

  ArticleQuadTree(const quadrant::Box2& world, int depth_max) : world_(AABB::of(world)), depth_max_(depth_max) {
    clear();
  }

  /// The article's Clear(): drops every object and node (node memory is kept, as its node cache does).
  void clear() {
    for (std::size_t i = 0; i < used_; ++i) nodes_[i].objects.clear();
    used_ = 0;
    new_node(world_, 0);
  }

  /// The article's Insert.
  void insert(std::uint32_t id, const AABB& box) { insert(0, id, box); }

  /// The article's Retrieve: appends the candidates for `box` to `out` (the object itself included).
  void retrieve(const AABB& box, std::vector<std::uint32_t>& out) const { retrieve(0, box, out); }

 private:
  struct Node {
    AABB aabb{};
    int depth = 0;
    std::size_t first_child = 0;  // 0 = none (the root is never a child)
    std::vector<std::uint32_t> objects;
  };

  std::size_t new_node(const AABB& aabb, int depth) {
    if (used_ == nodes_.size()) nodes_.emplace_back();
    Node& n = nodes_[used_];
    n.aabb = aabb;
    n.depth = depth;
    n.first_child = 0;
    n.objects.clear();
    return used_++;
  }

  static AABB make(float x_min, float x_max, float y_min, float y_max) {
    return AABB{x_min, x_max, y_min, y_max, x_min + (x_max - x_min) * 0.5f, y_min + (y_max - y_min) * 0.5f};
  }

  void split(std::size_t n) {
    const AABB a = nodes_[n].aabb;
    const int depth = nodes_[n].depth + 1;
    const std::size_t first = new_node(make(a.x_center, a.x_max, a.y_center, a.y_max), depth);
    new_node(make(a.x_min, a.x_center, a.y_center, a.y_max), depth);
    new_node(make(a.x_min, a.x_center, a.y_min, a.y_center), depth);
    new_node(make(a.x_center, a.x_max, a.y_min, a.y_center), depth);
    nodes_[n].first_child = first;
  }

  // 0..3 = quadrants I..IV (upper right, upper left, lower left, lower right), -1 = straddles a center line.
  static int quadrant_index(const AABB& cell, const AABB& b) {
    const bool left = b.x_max < cell.x_center, right = b.x_min > cell.x_center;
    const bool top = b.y_min > cell.y_center, bottom = b.y_max < cell.y_center;
    if (top && right) return 0;
    if (top && left) return 1;
    if (bottom && left) return 2;
    if (bottom && right) return 3;
    return -1;
  }

  void insert(std::size_t n, std::uint32_t id, const AABB& box) {
    if (nodes_[n].depth < depth_max_ && nodes_[n].aabb.contains(box)) {
      const int index = quadrant_index(nodes_[n].aabb, box);
      if (index == -1) {
        nodes_[n].objects.push_back(id);
        return;
      }
      if (nodes_[n].first_child == 0) split(n);
      insert(nodes_[n].first_child + static_cast<std::size_t>(index), id, box);
      return;
    }
    nodes_[n].objects.push_back(id);
  }

  void retrieve(std::size_t n, const AABB& box, std::vector<std::uint32_t>& out) const {
    const Node& node = nodes_[n];
    const int index = quadrant_index(node.aabb, box);
    if (node.first_child != 0) {
      if (index == -1) {
        for (std::size_t k = 0; k < 4; ++k) retrieve(node.first_child + k, box, out);
      } else {
        retrieve(node.first_child + static_cast<std::size_t>(index), box, out);
      }
    }
    out.insert(out.end(), node.objects.begin(), node.objects.end());
  }

  AABB world_;
  int depth_max_;
  std::vector<Node> nodes_;
  std::size_t used_ = 0;
};

}  // namespace quadrant_tools

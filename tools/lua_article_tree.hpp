// SPDX-License-Identifier: MIT
// quadrant tool — the Lua article's own quadtree (seeds/002), ported line for line so that its 计算次数 (collision
// tests) can be measured on exactly the scenes quadrant runs on. It is the reference for the article's figures, not
// part of the library:
//  * a node splits when it holds more than MAX_OBJ_NUM (9) objects, is shallower than MAX_DEPTH (99) and its half
//    side exceeds MIN_WIDTH / MIN_HEIGHT (50); on a 1200 x 1200 screen the smallest node is 75 on a side (depth 4);
//  * a rectangle that straddles a node's center lines is cut into pieces there (rectCarve), one per quadrant, and
//    each piece goes down its own child (思路二): only leaves hold objects;
//  * the collision count (calCollsition(2)) visits the leaves in the order of the nodes table (quadrants I..IV)
//    and tests every pair of pieces in each leaf with the strict isCollision, skipping pairs already recorded as
//    colliding (recordDict records colliding pairs only, so a pair that does not collide in one leaf is tested again
//    in the next leaf they share).
// The article's y axis points up (quadrant I is the upper right one); ours is only a naming, the geometry is the same.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <unordered_set>
#include <utility>
#include <vector>

#include "demo.hpp"

namespace quadrant_tools::lua {

class LuaArticleTree {
 public:
  /// The article's rect table: {index, x, y, width, height}; it spans [x, x + width] x [y, y + height].
  struct Rect {
    std::uint32_t index;
    double x, y, width, height;
  };
  /// What calCollsition(2) prints: 计算次数 (isCollision calls) and 相交次数 (colliding pairs).
  struct Counts {
    std::size_t tests = 0;
    std::size_t collisions = 0;
    std::size_t skipped = 0;  ///< pairs of pieces met in a leaf but skipped: recorded as colliding already
  };
  /// The tree's shape: nodes, leaves, deepest depth, pieces stored (a carved rect counts once per piece) and the
  /// side of the smallest leaf.
  struct Shape {
    std::size_t nodes = 0, leaves = 0, pieces = 0;
    int depth = 0;
    double smallest_leaf_side = 0;
  };

  // The article's constants.
  static constexpr int kMaxDepth = 99;         // MAX_DEPTH
  static constexpr std::size_t kMaxObjNum = 9;  // MAX_OBJ_NUM
  static constexpr double kMinWidth = 50;      // MIN_WIDTH
  static constexpr double kMinHeight = 50;     // MIN_HEIGHT

  /// QuadTree.new({x1, y1, cx, cy}, 0): the root's lower left corner and center.
  LuaArticleTree(double x1, double y1, double cx, double cy) : root_{x1, y1, cx, cy, 0, kNone, {}} { clear(); }

  /// Drops every object and node (node memory is kept, so a rebuild each frame allocates little).
  void clear() {
    for (std::size_t i = 0; i < used_; ++i) nodes_[i].objects.clear();
    used_ = 0;
    new_node(root_.x1, root_.y1, root_.cx, root_.cy, 0);
  }

  /// QuadTree:insert(rect) on the root.
  void insert(const Rect& rect) { insert(0, rect); }

  /// calCollsition(2): the leaf-pair count. Appends the colliding pairs (pair_key of the indices) to `pairs`.
  Counts count_collisions(std::vector<std::uint64_t>& pairs) {
    Counts counts;
    record_.clear();
    check_collision(0, counts, pairs);
    return counts;
  }

  Shape shape() const {
    Shape s;
    s.smallest_leaf_side = 2 * (root_.cx - root_.x1);
    for (std::size_t i = 0; i < used_; ++i) {
      const Node& n = nodes_[i];
      ++s.nodes;
      s.depth = std::max(s.depth, n.depth);
      if (n.first_child != kNone) continue;
      ++s.leaves;
      s.pieces += n.objects.size();
      s.smallest_leaf_side = std::min(s.smallest_leaf_side, 2 * (n.cx - n.x1));
    }
    return s;
  }

  /// Calls fn(x1, y1, x2, y2, depth) for every leaf's square, to draw the article's tree.
  template <class Fn>
  void for_each_leaf(Fn&& fn) const {
    for (std::size_t i = 0; i < used_; ++i) {
      const Node& n = nodes_[i];
      if (n.first_child == kNone) fn(n.x1, n.y1, 2 * n.cx - n.x1, 2 * n.cy - n.y1, n.depth);
    }
  }

 private:
  static constexpr std::size_t kNone = ~std::size_t{0};

  struct Node {
    double x1, y1, cx, cy;  // bounds: lower left corner and center
    int depth;
    std::size_t first_child;  // the four children (quadrants I..IV) are consecutive; kNone = a leaf
    std::vector<Rect> objects;
  };

  std::size_t new_node(double x1, double y1, double cx, double cy, int depth) {
    if (used_ == nodes_.size()) nodes_.emplace_back();
    Node& n = nodes_[used_];
    n.x1 = x1;
    n.y1 = y1;
    n.cx = cx;
    n.cy = cy;
    n.depth = depth;
    n.first_child = kNone;
    n.objects.clear();
    return used_++;
  }

  // QuadTree:getIndex: 1..4 = quadrants I..IV (upper right, upper left, lower left, lower right) returned here as
  // 0..3; -1 when the rect straddles a center line. Touching a line is not straddling it.
  static int get_index(const Node& node, const Rect& rect) {
    const bool on_top = rect.y >= node.cy;
    const bool on_bottom = rect.y + rect.height <= node.cy;
    const bool on_right = rect.x >= node.cx;
    const bool on_left = rect.x + rect.width <= node.cx;
    if (on_top) {
      if (on_right) return 0;
      if (on_left) return 1;
    } else if (on_bottom) {
      if (on_left) return 2;
      if (on_right) return 3;
    }
    return -1;
  }

  // QuadTree:split: children in the order of the article's nodes table.
  void split(std::size_t n) {
    const double x = nodes_[n].x1, y = nodes_[n].y1, cx = nodes_[n].cx, cy = nodes_[n].cy;
    const double width = (cx - x) / 2, height = (cy - y) / 2;
    const int depth = nodes_[n].depth + 1;
    const std::size_t first = new_node(cx, cy, cx + width, cy + height, depth);
    new_node(x, cy, x + width, cy + height, depth);
    new_node(x, y, x + width, y + height, depth);
    new_node(cx, y, cx + width, y + height, depth);
    nodes_[n].first_child = first;
  }

  // rectCarve: the rect cut by the center lines it strictly straddles, into 2 or 4 pieces (none if it straddles
  // neither).
  static std::size_t carve(const Rect& r, const Node& node, Rect (&out)[4]) {
    const double cx = node.cx, cy = node.cy;
    const bool split_x = cx > r.x && cx < r.x + r.width;
    const bool split_y = cy > r.y && cy < r.y + r.height;
    const double left_w = cx - r.x, right_w = r.width - cx + r.x;
    const double low_h = cy - r.y, high_h = r.height - cy + r.y;
    if (split_x && split_y) {
      out[0] = {r.index, r.x, r.y, left_w, low_h};
      out[1] = {r.index, cx, r.y, right_w, low_h};
      out[2] = {r.index, r.x, cy, left_w, high_h};
      out[3] = {r.index, cx, cy, right_w, high_h};
      return 4;
    }
    if (split_x) {
      out[0] = {r.index, r.x, r.y, left_w, r.height};
      out[1] = {r.index, cx, r.y, right_w, r.height};
      return 2;
    }
    if (split_y) {
      out[0] = {r.index, r.x, r.y, r.width, low_h};
      out[1] = {r.index, r.x, cy, r.width, high_h};
      return 2;
    }
    return 0;
  }

  // QuadTree:insert.
  // self.objects[rect.index] = rect: the table is keyed by the rect's index, so a second piece of the same rect
  // would replace the first. It never happens (the pieces of one rect go to different quadrants), so a plain append
  // does the same; check_collision would see such a pair and throws.
  void insert(std::size_t n, const Rect& rect) {
    nodes_[n].objects.push_back(rect);
    if (nodes_[n].first_child != kNone) {
      distribute(n);
      return;
    }
    const Node& node = nodes_[n];
    if (node.objects.size() > kMaxObjNum && node.depth < kMaxDepth && node.cx - node.x1 > kMinWidth &&
        node.cy - node.y1 > kMinHeight) {
      split(n);
      distribute(n);
    }
  }

  // The local _insert(): every object of the node goes down to the child holding it, or is carved and its pieces
  // go down to theirs. (`nodes_` may grow during the recursion, so nodes are named by index, not reference.)
  void distribute(std::size_t n) {
    std::vector<Rect> objects = std::move(nodes_[n].objects);
    nodes_[n].objects.clear();
    for (const Rect& rect : objects) {
      const int index = get_index(nodes_[n], rect);
      if (index != -1) {
        insert(nodes_[n].first_child + static_cast<std::size_t>(index), rect);
        continue;
      }
      Rect pieces[4];
      const std::size_t count = carve(rect, nodes_[n], pieces);
      for (std::size_t k = 0; k < count; ++k) {
        const int piece_index = get_index(nodes_[n], pieces[k]);
        // In Lua self.nodes[-1] is nil and the call fails; rectCarve's pieces never straddle.
        if (piece_index == -1) throw std::logic_error("lua article tree: a carved piece straddles a center line");
        insert(nodes_[n].first_child + static_cast<std::size_t>(piece_index), pieces[k]);
      }
    }
  }

  // isCollision: strict — rects that share only an edge or a corner do not collide.
  static bool is_collision(const Rect& a, const Rect& b) {
    return !(a.x >= b.x + b.width || a.y >= b.y + b.height || b.x >= a.x + a.width || b.y >= a.y + a.height);
  }

  // chechCollision: children in order I..IV; in each leaf every pair of pieces, unless recorded as colliding.
  void check_collision(std::size_t n, Counts& counts, std::vector<std::uint64_t>& pairs) {
    const Node& node = nodes_[n];
    if (node.first_child != kNone) {
      for (std::size_t k = 0; k < 4; ++k) check_collision(node.first_child + k, counts, pairs);
      return;
    }
    const std::vector<Rect>& ret = node.objects;
    for (std::size_t i = 0; i < ret.size(); ++i) {
      for (std::size_t j = i + 1; j < ret.size(); ++j) {
        if (ret[i].index == ret[j].index) throw std::logic_error("lua article tree: two pieces of one rect in a leaf");
        const std::uint64_t key = pair_key(ret[i].index, ret[j].index);
        if (record_.contains(key)) {
          ++counts.skipped;
          continue;
        }
        ++counts.tests;
        if (is_collision(ret[i], ret[j])) {
          ++counts.collisions;
          record_.insert(key);
          pairs.push_back(key);
        }
      }
    }
  }

  Node root_;
  std::vector<Node> nodes_;
  std::size_t used_ = 0;
  std::unordered_set<std::uint64_t> record_;  // recordDict
};

}  // namespace quadrant_tools::lua

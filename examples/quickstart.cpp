// SPDX-License-Identifier: MIT
// The README's usage example: index some boxes, ask what a box touches, list colliding pairs, move one.
#include <quadrant/quadrant.hpp>
#include <cstdio>

int main() {
  quadrant::QuadTree<const char*> tree({.world = {{0, 0}, {120, 80}}});  // Loose placement by default
  auto player = tree.insert({{10, 10}, {12, 12}}, "player");
  tree.insert({{11, 11}, {13, 13}}, "slime");
  tree.insert({{50, 40}, {53, 42}}, "chest");

  tree.query(quadrant::Box2{{0, 0}, {20, 20}}, [](const char* name) { std::printf("near: %s\n", name); });
  tree.for_each_pair([&](quadrant::Handle a, quadrant::Handle b) {
    std::printf("contact: %s - %s\n", tree.value(a), tree.value(b));
  });
  bool changed_node = tree.move(player, {{49, 39}, {51, 41}});  // walk to the chest
  std::printf("player changed node: %s, objects: %zu\n", changed_node ? "yes" : "no", tree.size());
}

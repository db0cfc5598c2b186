// SPDX-License-Identifier: MIT
// The README's example: index some boxes, ask what a circle touches, list colliding pairs, move one.
#include <quadrant/quadrant.hpp>
#include <cstdio>

int main() {
  quadrant::QuadTree<const char*> tree({.world = {{0, 0}, {120, 80}}});
  auto player = tree.insert({{10, 10}, {12, 12}}, "player");
  tree.insert({{11, 11}, {13, 13}}, "slime");
  tree.query(quadrant::Circle<float>{{10, 10}, 5}, [](const char* name) { std::printf("near: %s\n", name); });
  tree.for_each_pair([&](quadrant::Handle a, quadrant::Handle b) {
    std::printf("%s hits %s\n", tree.value(a), tree.value(b));
  });
  tree.move(player, {{49, 39}, {51, 41}});
}

// SPDX-License-Identifier: MIT
// Picking and line of sight: the first object a ray from the mouse hits (one callback, then stop), and every wall
// between a guard and the player, nearest first.
#include <quadrant/quadrant.hpp>

#include <cstdio>
#include <string>

int main() {
  using namespace quadrant;
  QuadTree<std::string> level({.world = {{0, 0}, {100, 100}}});
  level.insert({{20, 0}, {22, 60}}, "wall A");
  level.insert({{50, 30}, {52, 100}}, "wall B");
  level.insert({{70, 45}, {74, 49}}, "barrel");
  level.insert({{10, 45}, {12, 47}}, "lamp");

  // Pick: the first thing along the ray from the camera at (5, 46) towards (95, 46).
  const Segment<2, float> ray{{5, 46}, {95, 46}};
  level.raycast(ray, [](Handle, const std::string& name, float t) {
    std::printf("picked %s at fraction %.3f\n", name.c_str(), double(t));
    return false;  // the nearest is enough
  });

  // Line of sight: everything between the guard and the player, in order.
  int blockers = 0;
  level.raycast(Segment<2, float>{{15, 50}, {90, 47}}, [&](Handle, const std::string& name, float t) {
    ++blockers;
    std::printf("sight line crosses %s at fraction %.3f\n", name.c_str(), double(t));
  });
  return blockers == 3 ? 0 : 1;
}

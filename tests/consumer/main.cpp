// SPDX-License-Identifier: MIT
// A consumer's program: it must compile against the library as a user would get it, and run.
#include <quadrant/quadrant.hpp>

#include <cstdio>

int main() {
  quadrant::QuadTree<int> tree({.world = {{0, 0}, {100, 100}}});
  tree.insert({{1, 1}, {2, 2}}, 7);
  int found = 0;
  tree.query(quadrant::Vec2{1.5f, 1.5f}, [&](const int& v) { found = v; });
  std::printf("found %d\n", found);
  return found == 7 ? 0 : 1;
}

// SPDX-License-Identifier: MIT
// Target selection: the three nearest enemies within 30 units of a turret, nearest first, ignoring friendly
// units by layer. Best-first: the search stops once the third is certain, without sorting every unit.
#include <quadrant/quadrant.hpp>

#include <cstdio>

int main() {
  using namespace quadrant;
  constexpr std::uint32_t kEnemy = 1, kFriend = 2;
  QuadTree<int> units({.world = {{0, 0}, {200, 200}}});
  for (int i = 0; i < 400; ++i) {
    const float x = float((i * 37) % 200), y = float((i * 91) % 200);
    units.insert({{x, y}, {x + 1, y + 1}}, i, i % 4 == 0 ? kFriend : kEnemy);
  }
  const Vec2 turret{100, 100};
  for (const Neighbor<float>& n : units.nearest(turret, 3, 30.0f, kEnemy))
    std::printf("enemy %d at distance %.2f\n", units.value(n.handle), double(n.distance));

  // Incremental form: walk outwards until the first enemy standing north of the turret.
  units.for_each_nearest(turret, [&](Handle h, const int& unit, float distance) {
    if (units.bounds(h).min.y <= turret.y) return true;  // keep looking
    std::printf("nearest enemy to the north: %d at %.2f\n", unit, double(distance));
    return false;
  }, 200.0f, kEnemy);
}

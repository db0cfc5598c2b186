// SPDX-License-Identifier: MIT
// The MMO seed's question: which monsters does the player's sword swing hit? The swing is a sector (a fan of
// radius 3 and half-angle 60 degrees in front of the player); layers keep the player's allies out of it.
#include <quadrant/quadrant.hpp>

#include <cstdio>
#include <numbers>
#include <string>

int main() {
  using namespace quadrant;
  constexpr std::uint32_t kMonsters = 1u << 0, kAllies = 1u << 1;
  QuadTree<std::string> world({.world = {{0, 0}, {120, 80}}});
  const Vec2 player{40, 40};
  const Vec2 facing{1, 0};  // looking east

  world.insert({{41.5f, 39.5f}, {42.5f, 40.5f}}, "slime (in front)", kMonsters);
  world.insert({{42, 41.5f}, {43, 42.5f}}, "goblin (front left)", kMonsters);
  world.insert({{37, 39.5f}, {38, 40.5f}}, "bat (behind)", kMonsters);
  world.insert({{45, 39.5f}, {46, 40.5f}}, "orc (out of reach)", kMonsters);
  world.insert({{41, 38.5f}, {42, 39.5f}}, "healer (an ally in front)", kAllies);

  const Sector<float> swing{player, facing, 3.0f, std::numbers::pi_v<float> / 3};
  int hits = 0;
  world.query(swing, [&](const std::string& name) {
    ++hits;
    std::printf("hit: %s\n", name.c_str());
  }, kMonsters);
  std::printf("%d monsters hit\n", hits);
  return hits == 2 ? 0 : 1;
}

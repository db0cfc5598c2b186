// SPDX-License-Identifier: MIT
// Contact events, Unity style: OnTriggerEnter / OnTriggerExit from a ContactTracker. A player walks right through
// a row of pickups and past a slime; every frame the moves go in as one batch, the tracker compares the frame's
// overlapping pairs with the last frame's, and the game reacts to the pairs that began and ended. A pickup the
// player touches is collected after the events are handled (a tree cannot change inside its own walks), so its
// pair ends the next frame with a stale handle.
#include <quadrant/quadrant.hpp>

#include <cstdio>
#include <string>
#include <vector>

int main() {
  using Box = quadrant::Box<2, float>;
  quadrant::Config<2, float> config;
  config.world = {{0, 0}, {64, 16}};
  quadrant::QuadTree<std::string> tree(config);

  const quadrant::Handle player = tree.insert({{0, 6}, {2, 8}}, "player");
  std::vector<quadrant::Handle> pickups;
  for (int i = 0; i < 3; ++i) {
    const float x = 8.0f + 8.0f * float(i);
    pickups.push_back(tree.insert({{x, 6.5f}, {x + 1, 7.5f}}, "coin " + std::to_string(i)));
  }
  const quadrant::Handle slime = tree.insert({{30, 7}, {34, 10}}, "slime");

  quadrant::ContactTracker<2, std::string> contacts;
  std::vector<quadrant::Handle> collected;
  auto name = [&](quadrant::Handle h) { return tree.contains(h) ? tree.value(h) : std::string("(gone)"); };
  for (int frame = 0; frame < 20; ++frame) {
    // Move: the player walks 2 units a frame, the slime drifts left half a unit.
    const Box p = tree.bounds(player), s = tree.bounds(slime);
    const std::vector<quadrant::Handle> handles{player, slime};
    const std::vector<Box> boxes{{{p.min.x + 2, p.min.y}, {p.max.x + 2, p.max.y}},
                                 {{s.min.x - 0.5f, s.min.y}, {s.max.x - 0.5f, s.max.y}}};
    tree.move(handles, boxes);

    contacts.update(tree);
    for (const quadrant::Contact& c : contacts.begun()) {
      std::printf("frame %2d: enter %s - %s\n", frame, name(c.a).c_str(), name(c.b).c_str());
      // The player picks up a coin it touches (the slime does not).
      for (quadrant::Handle coin : pickups)
        if ((c.a == player && c.b == coin) || (c.a == coin && c.b == player)) collected.push_back(coin);
    }
    for (const quadrant::Contact& c : contacts.ended())
      std::printf("frame %2d: exit  %s - %s\n", frame, name(c.a).c_str(), name(c.b).c_str());
    // Collect after the events: erasing here, outside any walk, is allowed.
    for (quadrant::Handle coin : collected) tree.erase(coin);
    collected.clear();
  }
  std::printf("objects left: %zu, contacts now: %zu\n", tree.size(), contacts.contacts().size());
}

// SPDX-License-Identifier: MIT
// Area of interest on an MMO server: every tick the world says which entities started and stopped seeing each
// other, and the server turns that into spawn and despawn messages for each player's client. Each client keeps
// its list of entities from those messages alone; at the end every list must equal what the world says the player
// sees, and the players' lists must have changed along the way (monsters came into view and went out of it).
#include <quadrant/aoi.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <set>
#include <vector>

namespace {

constexpr std::uint32_t kPlayers = 1u << 0, kMonsters = 1u << 1;

// What the server sends; a real one writes a packet to the player's connection.
struct Client {
  std::set<std::uint64_t> known;  // the entities this client has spawned
  int spawns = 0, despawns = 0;
};

}  // namespace

int main() {
  // A 512 m map; a pair in view stays in view until 4 m past the view radius (no flicker at the edge).
  quadrant::AoiWorld<float> aoi({.world = {{0, 0}, {512, 512}}, .hysteresis = 4});
  // Players see players and monsters within 60 m and are seen; monsters are only seen (they watch nothing).
  const std::vector<std::uint64_t> players{1, 2, 3};
  for (std::uint64_t p : players)
    aoi.add(p, {40.0f, 100.0f * float(p)}, 60, quadrant::AoiMode::Both, kPlayers | kMonsters);
  for (std::uint64_t m = 100; m < 140; ++m)
    aoi.add(m, {12.8f * float(m - 100), 250}, 0, quadrant::AoiMode::Marker, kMonsters, 1.0f);

  std::map<std::uint64_t, Client> clients;
  for (int tick = 0; tick < 100; ++tick) {
    // Players walk east 4 m a tick; monsters pace up and down.
    for (std::uint64_t p : players) aoi.move(p, {40.0f + 4.0f * float(tick), 100.0f * float(p)});
    for (std::uint64_t m = 100; m < 140; ++m)
      aoi.move(m, {12.8f * float(m - 100), 250 + 120 * std::sin(0.05f * float(tick) + float(m))});
    aoi.tick([&](const quadrant::AoiEvent& ev) {
      Client& c = clients[ev.watcher];
      if (ev.kind == quadrant::AoiEvent::Kind::Enter) {
        c.known.insert(ev.target);  // send_spawn(ev.watcher, ev.target)
        ++c.spawns;
      } else {
        c.known.erase(ev.target);  // send_despawn(ev.watcher, ev.target)
        ++c.despawns;
      }
      if (tick < 3 && ev.watcher == 2)
        std::printf("tick %d: player 2 %s entity %llu\n", tick,
                    ev.kind == quadrant::AoiEvent::Kind::Enter ? "spawns" : "despawns",
                    static_cast<unsigned long long>(ev.target));
    });
  }

  int failures = 0;
  for (std::uint64_t p : players) {
    std::set<std::uint64_t> sees;
    aoi.for_each_visible(p, [&](std::uint64_t id) { sees.insert(id); });
    const Client& c = clients[p];
    std::printf("player %llu: %d spawns, %d despawns, %zu in view now\n", static_cast<unsigned long long>(p),
                c.spawns, c.despawns, c.known.size());
    if (sees != c.known) {
      std::printf("  the client's list differs from the world's\n");
      ++failures;
    }
    if (c.despawns == 0) ++failures;  // the walk must take monsters out of view
  }
  aoi.validate();
  return failures == 0 ? 0 : 1;
}

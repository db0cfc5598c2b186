// SPDX-License-Identifier: MIT
// Rotated crates: the tree finds candidate pairs by bounding box, the separating-axis test keeps the real contacts
// (the rotated-rectangle seed's broad phase + narrow phase). A rotated trigger zone queries the crates exactly.
#include <quadrant/quadrant.hpp>

#include <cstdio>
#include <vector>

int main() {
  using namespace quadrant;
  std::vector<OrientedBox<float>> crates;
  for (int i = 0; i < 12; ++i)  // a row of crates, each turned a little more; neighbours nearly touch
    crates.push_back({{8.0f + 4.5f * float(i), 20}, {2, 1}, 0.25f * float(i)});

  QuadTree<int> tree({.world = {{0, 0}, {64, 40}}});
  for (int i = 0; i < int(crates.size()); ++i) tree.insert(bounding_box(crates[i]), i);

  int candidates = 0, contacts = 0;
  tree.for_each_pair([&](Handle a, Handle b) {
    ++candidates;
    const int i = tree.value(a), j = tree.value(b);
    if (!overlaps(crates[i], crates[j])) return;  // boxes touch, the crates do not
    ++contacts;
    std::printf("crates %d and %d collide\n", i, j);
  });
  std::printf("%d candidate pairs from the tree, %d real contacts\n", candidates, contacts);

  // A trigger zone turned 30 degrees: which crates does it touch? Exact, not by bounding box.
  const OrientedBox<float> zone{{30, 24}, {10, 2}, 0.52f};
  int touched = 0;
  tree.query(zone, [&](const int& i) {
    ++touched;
    std::printf("zone touches crate %d\n", i);
  });
  // The query reports a crate when the zone meets its bounding box; the narrow phase decides the crate itself.
  int exact = 0;
  for (const auto& crate : crates) exact += overlaps(zone, crate);
  std::printf("zone meets %d crate boxes, %d crates\n", touched, exact);
  return contacts <= candidates && exact <= touched ? 0 : 1;
}

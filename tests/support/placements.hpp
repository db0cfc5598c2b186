// SPDX-License-Identifier: MIT
// quadrant tests — the placements every oracle test runs under, and the small square world the API tests use.
#pragma once

#include <quadrant/config.hpp>

namespace quadrant_test {

/// Every placement, in declaration order.
inline constexpr quadrant::Placement kPlacements[] = {quadrant::Placement::Loose, quadrant::Placement::Parent,
                                                      quadrant::Placement::Leaves};

/// A 100 x 100 world from the origin under placement p, default otherwise.
inline quadrant::Config<2, float> square(quadrant::Placement p) {
  quadrant::Config<2, float> c;
  c.world = {{0, 0}, {100, 100}};
  c.placement = p;
  return c;
}

}  // namespace quadrant_test

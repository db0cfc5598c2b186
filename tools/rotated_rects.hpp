// quadrant tool — demo scenario rotated-rects (work in progress).
#pragma once

#include <cstdio>

#include "demo.hpp"

namespace quadrant_tools::rotated {

/// `quadrant demo --scenario rotated-rects`.
inline bool run_demo(const DemoOptions&) {
  std::printf("== rotated-rects: not written yet ==\n");
  return true;
}

}  // namespace quadrant_tools::rotated

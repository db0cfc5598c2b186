// quadrant tool — demo scenario lua-rects (work in progress).
#pragma once

#include <cstdio>

#include "demo.hpp"

namespace quadrant_tools::lua {

/// `quadrant demo --scenario lua-rects`.
inline bool run_demo(const DemoOptions&) {
  std::printf("== lua-rects: not written yet ==\n");
  return true;
}

}  // namespace quadrant_tools::lua

// quadrant tool — demo scenario scene-streaming (work in progress).
#pragma once

#include <cstdio>

#include "demo.hpp"

namespace quadrant_tools::streaming {

/// `quadrant demo --scenario scene-streaming`.
inline bool run_demo(const DemoOptions&) {
  std::printf("== scene-streaming: not written yet ==\n");
  return true;
}

}  // namespace quadrant_tools::streaming

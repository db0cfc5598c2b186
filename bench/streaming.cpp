// Workload stub: filled in by its issue.
#include "harness.hpp"

namespace quadrant_bench {

void run_streaming(const Options&, Report&) { std::printf("  (not written yet)\n"); }

}  // namespace quadrant_bench

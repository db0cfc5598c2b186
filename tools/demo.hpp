// SPDX-License-Identifier: MIT
// quadrant tool — what every demo scenario shares: the options, the scenario table entry, and (from
// support/quadrant_support, shared with the benchmarks) a portable random source, pair keys and small statistics
// helpers.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include <quadrant_support/pairs.hpp>
#include <quadrant_support/report.hpp>
#include <quadrant_support/rng.hpp>

namespace quadrant_tools {

/// The options of `quadrant demo`, as parsed. A scenario reads frames / objects only when they were given
/// (frames_set, objects_set); otherwise it uses its own defaults.
struct DemoOptions {
  std::string scenario = "all";
  int frames = 0;
  bool frames_set = false;
  int objects = 0;
  bool objects_set = false;
  std::uint64_t seed = 1;
  bool quick = false;  // fewer frames and configurations, for smoke tests
  std::string svg_dir;  // when set, scenarios write their pictures (SVG) there
};

/// A scenario's disagreements with brute force: the first 20 messages kept, the rest counted.
struct Failures {
  std::vector<std::string> shown;
  std::size_t total = 0;

  void add(std::string message) {
    if (shown.size() < 20) shown.push_back(std::move(message));
    ++total;
  }

  /// Prints the kept messages (MISMATCH ...) and the scenario's last line, "NAME: OK (ok_detail)" or
  /// "NAME: FAILED (...)"; returns true when nothing failed: the scenario's result.
  bool finish(const char* scenario, const char* ok_detail) const {
    for (const std::string& m : shown) std::printf("MISMATCH %s\n", m.c_str());
    if (total > shown.size()) std::printf("... and %zu more mismatches\n", total - shown.size());
    if (total == 0) {
      std::printf("%s: OK (%s)\n", scenario, ok_detail);
      return true;
    }
    std::printf("%s: FAILED (%zu mismatches with brute force or validate())\n", scenario, total);
    return false;
  }
};

/// One runnable scenario: `run` prints its report and returns true when every check passed.
struct Scenario {
  const char* name;
  const char* summary;
  bool (*run)(const DemoOptions&);
};

// Shared with the benchmarks (support/quadrant_support): the random source, pair keys, median and table lines.
using quadrant_support::compare_pairs;
using quadrant_support::Line;
using quadrant_support::median;
using quadrant_support::pair_first;
using quadrant_support::pair_key;
using quadrant_support::pair_second;
using quadrant_support::Rng;

}  // namespace quadrant_tools

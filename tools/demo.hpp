// SPDX-License-Identifier: MIT
// quadrant tool — what every demo scenario shares: the options, the scenario table entry, a portable random source,
// pair keys and small statistics helpers.
#pragma once

#include <algorithm>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

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

/// splitmix64: a tiny generator whose output, and hence every scene, is the same on every platform (the standard
/// distributions are not specified bit for bit, so they are not used).
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed) {}

  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, 1), 53 bits.
  double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  /// Uniform in [lo, hi).
  double uniform(double lo, double hi) { return lo + (hi - lo) * unit(); }
  /// A fair coin.
  bool coin() { return (next() >> 63) != 0; }

 private:
  std::uint64_t state_;
};

/// One line of a table, built from printf-style pieces and printed without trailing blanks.
class Line {
 public:
  __attribute__((format(printf, 2, 3))) Line& add(const char* format, ...) {
    char buf[512];
    va_list args;
    va_start(args, format);
    std::vsnprintf(buf, sizeof buf, format, args);
    va_end(args);
    text_ += buf;
    return *this;
  }
  void print() {
    text_.erase(text_.find_last_not_of(' ') + 1);
    std::printf("%s\n", text_.c_str());
    text_.clear();
  }

 private:
  std::string text_;
};

/// An unordered pair of object ids as one sortable number: (smaller << 32) | larger.
inline std::uint64_t pair_key(std::uint32_t a, std::uint32_t b) {
  if (a > b) std::swap(a, b);
  return (std::uint64_t{a} << 32) | b;
}
inline std::uint32_t pair_first(std::uint64_t key) { return static_cast<std::uint32_t>(key >> 32); }
inline std::uint32_t pair_second(std::uint64_t key) { return static_cast<std::uint32_t>(key & 0xffffffffu); }

/// The median of `values` (0 for none); takes a copy because it reorders.
inline double median(std::vector<double> values) {
  if (values.empty()) return 0;
  const std::size_t mid = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + std::ptrdiff_t(mid), values.end());
  double m = values[mid];
  // An even count: average with the largest of the lower half.
  if (values.size() % 2 == 0) m = (m + *std::max_element(values.begin(), values.begin() + std::ptrdiff_t(mid))) / 2;
  return m;
}

/// Compares a sorted list of pair keys a walk reported against the sorted, duplicate-free reference.
/// `copies` is how many times each pair must appear (1 for for_each_pair, 2 for the article's loop, which meets
/// each pair from both sides). Returns "" when they agree, else a short description of the first differences.
inline std::string compare_pairs(const std::vector<std::uint64_t>& found, const std::vector<std::uint64_t>& expected,
                                 std::size_t copies) {
  std::vector<std::uint64_t> missing, extra, wrong_count;
  std::size_t i = 0, j = 0;
  while (i < found.size() || j < expected.size()) {
    if (j == expected.size() || (i < found.size() && found[i] < expected[j])) {
      extra.push_back(found[i]);
      const std::uint64_t k = found[i];
      while (i < found.size() && found[i] == k) ++i;
      continue;
    }
    if (i == found.size() || expected[j] < found[i]) {
      missing.push_back(expected[j++]);
      continue;
    }
    std::size_t n = 0;
    const std::uint64_t k = expected[j++];
    while (i < found.size() && found[i] == k) ++i, ++n;
    if (n != copies) wrong_count.push_back(k);
  }
  if (missing.empty() && extra.empty() && wrong_count.empty()) return "";
  std::string out;
  auto list = [&](const char* what, const std::vector<std::uint64_t>& keys) {
    if (keys.empty()) return;
    char buf[64];
    std::snprintf(buf, sizeof buf, "%s%zu %s", out.empty() ? "" : "; ", keys.size(), what);
    out += buf;
    for (std::size_t k = 0; k < keys.size() && k < 3; ++k) {
      std::snprintf(buf, sizeof buf, " (%u,%u)", pair_first(keys[k]), pair_second(keys[k]));
      out += buf;
    }
    if (keys.size() > 3) out += " ...";
  };
  list("missing", missing);
  list("extra", extra);
  list(copies == 1 ? "reported more than once" : "not reported once from each side", wrong_count);
  return out;
}

}  // namespace quadrant_tools

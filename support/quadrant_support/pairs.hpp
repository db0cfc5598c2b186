// SPDX-License-Identifier: MIT
// quadrant support — pairs of object ids as sortable keys, and the comparison of the pairs a walk reported with a
// brute-force reference.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

namespace quadrant_support {

/// An unordered pair of object ids as one sortable number: (smaller << 32) | larger.
inline std::uint64_t pair_key(std::uint32_t a, std::uint32_t b) {
  if (a > b) std::swap(a, b);
  return (std::uint64_t{a} << 32) | b;
}
/// The smaller id of a pair key.
inline std::uint32_t pair_first(std::uint64_t key) { return static_cast<std::uint32_t>(key >> 32); }
/// The larger id of a pair key.
inline std::uint32_t pair_second(std::uint64_t key) { return static_cast<std::uint32_t>(key & 0xffffffffu); }

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

}  // namespace quadrant_support

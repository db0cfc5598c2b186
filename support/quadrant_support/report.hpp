// SPDX-License-Identifier: MIT
// quadrant support — what reports of measurements share: the median of samples and a printf-style table line.
#pragma once

#include <algorithm>
#include <cstdarg>
#include <cstddef>
#include <cstdio>
#include <string>
#include <vector>

namespace quadrant_support {

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

/// One line of a table, built from printf-style pieces and printed without trailing blanks.
class Line {
 public:
  /// Appends printf-style text (at most 511 characters per call).
  __attribute__((format(printf, 2, 3))) Line& add(const char* format, ...) {
    char buf[512];
    va_list args;
    va_start(args, format);
    std::vsnprintf(buf, sizeof buf, format, args);
    va_end(args);
    text_ += buf;
    return *this;
  }
  /// Prints the line without its trailing blanks, then starts an empty one.
  void print() {
    text_.erase(text_.find_last_not_of(' ') + 1);
    std::printf("%s\n", text_.c_str());
    text_.clear();
  }

 private:
  std::string text_;
};

}  // namespace quadrant_support

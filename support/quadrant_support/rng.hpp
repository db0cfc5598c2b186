// SPDX-License-Identifier: MIT
// quadrant support — a portable random source for scenes that must be the same on every platform (the demo's, the
// benchmarks').
#pragma once

#include <cstdint>

namespace quadrant_support {

/// splitmix64: a tiny generator whose output, and hence every scene, is the same on every platform (the standard
/// distributions are not specified bit for bit, so they are not used).
class Rng {
 public:
  /// A generator whose sequence is fixed by `seed`.
  explicit Rng(std::uint64_t seed) : state_(seed) {}

  /// The next 64 random bits.
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
  /// Uniform in [0, n) for n >= 1, by a multiply-shift of the top 32 bits (no division).
  std::uint32_t below(std::uint32_t n) { return static_cast<std::uint32_t>(((next() >> 32) * n) >> 32); }
  /// Uniform in [lo, hi] for lo <= hi.
  int between(int lo, int hi) { return lo + static_cast<int>(below(static_cast<std::uint32_t>(hi - lo + 1))); }
  /// True with probability percent / 100.
  bool chance(std::uint32_t percent) { return below(100) < percent; }

 private:
  std::uint64_t state_;
};

}  // namespace quadrant_support

// SPDX-License-Identifier: MIT
// quadrant fuzz targets: the failure check every target uses. A finding aborts, which libFuzzer reports with the
// input that caused it.
#pragma once

#include <cstdio>
#include <cstdlib>

#define QUADRANT_FUZZ_CHECK(cond, what)                                                  \
  do {                                                                                   \
    if (!(cond)) {                                                                       \
      std::fprintf(stderr, "quadrant fuzz: %s (%s:%d): %s\n", what, __FILE__, __LINE__, #cond); \
      std::abort();                                                                      \
    }                                                                                    \
  } while (0)

// Marks a function of a target's brute-force model or checker: not instrumented for coverage. Its branches and
// comparisons would guide the fuzzer by the checker's paths instead of the library's, and their hooks cost more
// than the library's own work in the O(n^2) models (AoiWorld's relation, Streamer's sources x objects).
#define QUADRANT_FUZZ_MODEL __attribute__((no_sanitize("coverage")))

#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>

namespace quadrant_fuzz {

// Whether call() throws std::invalid_argument (another exception escapes: libFuzzer reports it).
template <class Call>
bool throws_invalid(Call&& call) {
  try {
    call();
  } catch (const std::invalid_argument&) {
    return true;
  }
  return false;
}

// Runs x.validate(); a failure is a finding, reported with validate()'s message.
template <class T>
void check_valid(const T& x) {
  try {
    x.validate();
  } catch (const std::logic_error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    QUADRANT_FUZZ_CHECK(false, "validate() failed");
  }
}

// Keys 0..Keys-1 of a target's entities and their fixed 64-bit ids, scattered so that id order differs from key
// order: id = (key + 1) * Mul, undone by Mul's inverse modulo 2^64 (Mul is odd).
template <int Keys, std::uint64_t Mul>
struct ScrambledIds {
  static_assert(Mul % 2 == 1, "an odd multiplier is invertible modulo 2^64");
  static constexpr std::uint64_t inverse() {
    std::uint64_t x = Mul;  // Newton's iteration: each step doubles the correct low bits
    for (int i = 0; i < 6; ++i) x *= 2 - Mul * x;
    return x;
  }
  static constexpr std::uint64_t id_of(int key) { return static_cast<std::uint64_t>(key + 1) * Mul; }
  // The key of an id, or -1 when it is none.
  static constexpr int key_of(std::uint64_t id) {
    const std::uint64_t k = id * inverse() - 1;
    return k < static_cast<std::uint64_t>(Keys) ? static_cast<int>(k) : -1;
  }
  static constexpr std::uint64_t kStranger = (Keys + 7 + 1) * Mul;  // an id no run adds
  static_assert(inverse() * Mul == 1 && key_of(id_of(Keys - 1)) == Keys - 1);
};

// Coordinates and radii in S drawn from the byte stream around a run's scale: random within center +- 3 half,
// lattice steps of `unit` (shared edges, touching distances, 3-4-5 triangles), or fractions of the largest value
// a target accepts (max).
template <class S>
struct Draw {
  FuzzedDataProvider& in;
  double max;
  double center = 0, half = 100, unit = 12.5;

  S value(double v) const { return static_cast<S>(std::clamp(v, -max, max)); }
  S coordinate() {
    switch (in.ConsumeIntegralInRange<int>(0, 9)) {
      case 0: return value(center + in.ConsumeFloatingPointInRange<double>(-3 * half, 3 * half));
      case 1: {
        const double x = in.PickValueInArray({1.0, 0.5, 1 - 1.0 / 1024, 1.0 / 3});
        return value((in.ConsumeBool() ? 1 : -1) * x * max);
      }
      default: return value(center + unit * in.ConsumeIntegralInRange<int>(-24, 24));
    }
  }
  // 0, -0 (a radius of zero, not a negative one), the largest values, random, or lattice half-steps; with
  // near_overflow, also radii whose squares come near double's largest value.
  S radius(bool near_overflow = false) {
    switch (in.ConsumeIntegralInRange<int>(0, 11)) {
      case 0: return S(0);
      case 1: return -S(0);
      case 2: return value(in.ConsumeBool() ? max : max / 3);
      case 3: return value(in.ConsumeFloatingPointInRange<double>(0, 4 * half));
      case 4:
        if (near_overflow) return value(in.ConsumeBool() ? 1e154 : 1.4e154);
        [[fallthrough]];
      default: return value(unit / 2 * in.ConsumeIntegralInRange<int>(0, 24));
    }
  }
};

}  // namespace quadrant_fuzz

// The entry point of a target whose run<S>(FuzzedDataProvider&) decodes one input in float or double, as the
// input's first byte says.
#define QUADRANT_FUZZ_FLOAT_OR_DOUBLE(run)                                                \
  extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {    \
    FuzzedDataProvider in(data, size);                                                    \
    if (in.ConsumeBool()) run<float>(in);                                                 \
    else run<double>(in);                                                                 \
    return 0;                                                                             \
  }

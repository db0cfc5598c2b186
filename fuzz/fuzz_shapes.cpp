// SPDX-License-Identifier: MIT
// Fuzz target: every query shape against boxes, at every magnitude. A shape built from the input (rejected ones
// must be rejected by check_shape with std::invalid_argument, nothing else), a node box and a box inside it; the
// promises the tree relies on: classify(shape, node) == Inside implies overlaps(shape, box) and Outside implies
// !overlaps(shape, box); the prepared form (detail::prepare) answers the same; a box the shape overlaps meets the
// shape's bounding box. The oriented box is also checked against a long-double reference (separating axes on its
// corners), since a wrong answer that overlaps and classify share passes the checks above (its projections once
// overflowed near the largest finite value, a false hit for every box inside its bounding box). Coordinates come
// from a lattice (shared edges, touching), raw values, or values near the largest finite one.
#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <numbers>
#include <stdexcept>

#include <quadrant/geometry.hpp>

#include "fuzz_check.hpp"

namespace {

using namespace quadrant;

const char* g_shape = "";  // the shape under test, named in a finding's report

template <class S>
struct Input {
  FuzzedDataProvider& in;
  S scale = 1;

  S number() {
    switch (in.ConsumeIntegralInRange<int>(0, 9)) {
      case 0: return static_cast<S>(in.ConsumeFloatingPointInRange<double>(-double(scale), double(scale)));
      case 1: return (in.ConsumeBool() ? 1 : -1) * std::numeric_limits<S>::max() / S(in.ConsumeIntegralInRange<int>(1, 4));
      default: return scale / S(8) * static_cast<S>(in.ConsumeIntegralInRange<int>(-8, 8));
    }
  }
  S length() {
    const S x = number();
    return x < 0 ? -x : x;
  }
  template <int D>
  Vec<D, S> point() {
    Vec<D, S> p;
    for (int i = 0; i < D; ++i) p[i] = number();
    return p;
  }
  // A node and a box inside it (each side a fraction of the node's, snapped to the node's faces when asked).
  template <int D>
  void node_and_box(Box<D, S>& node, Box<D, S>& box) {
    for (int i = 0; i < D; ++i) {
      const S x = number(), y = number();
      node.min[i] = std::min(x, y);
      node.max[i] = std::max(x, y);
      const double f = in.ConsumeProbability<double>(), g = in.ConsumeProbability<double>();
      const double lo = double(node.min[i]), hi = double(node.max[i]);
      // Weighted sums, not lo + (hi - lo) * f: hi - lo overflows for a node spanning the finite range.
      S a = static_cast<S>(lo * (1 - std::min(f, g)) + hi * std::min(f, g));
      S b = static_cast<S>(lo * (1 - std::max(f, g)) + hi * std::max(f, g));
      a = std::clamp(a, node.min[i], node.max[i]);
      b = std::clamp(b, a, node.max[i]);
      if (in.ConsumeIntegralInRange<int>(0, 3) == 0) a = node.min[i];
      if (in.ConsumeIntegralInRange<int>(0, 3) == 0) b = node.max[i];
      box.min[i] = a;
      box.max[i] = b;
    }
  }
};

template <int D, class S, class Shape>
void check(const Shape& shape, const Box<D, S>& node, const Box<D, S>& box) {
  try {
    check_shape(shape);
  } catch (const std::invalid_argument&) {
    return;
  }
  const bool hit = overlaps(shape, box);
  if (std::getenv("QUADRANT_FUZZ_VERBOSE") != nullptr)
    std::fprintf(stderr, "%s<%s> node [%g %g]-[%g %g] box [%g %g]-[%g %g] hit %d classify %d\n", g_shape,
                 sizeof(S) == 4 ? "float" : "double", double(node.min[0]), double(node.min[1]), double(node.max[0]),
                 double(node.max[1]), double(box.min[0]), double(box.min[1]), double(box.max[0]), double(box.max[1]),
                 int(hit), int(classify(shape, node)));
  const Relation rel = classify(shape, node);
  QUADRANT_FUZZ_CHECK(!(rel == Relation::Inside && !hit), "classify says Inside but a box inside the node is missed");
  QUADRANT_FUZZ_CHECK(!(rel == Relation::Outside && hit), "classify says Outside but a box inside the node is hit");
  decltype(auto) prepared = detail::prepare(shape);
  QUADRANT_FUZZ_CHECK(overlaps(prepared, box) == hit, "the prepared shape answers differently");
  QUADRANT_FUZZ_CHECK(classify(prepared, node) == rel, "the prepared shape classifies differently");
  if (hit) QUADRANT_FUZZ_CHECK(overlaps(bounding_box(shape), box), "a hit box misses the shape's bounding box");
}

// The oriented box against the box b in long double: the largest gap between their projections on x, y and the
// box's own two axes (unit length), positive when they are apart. Within a band of 64 roundings of S at the box's
// magnitude (and 256 subnormal steps) of zero the answer is rounding's to give, so it is not checked.
template <class S>
void check_against_reference(const OrientedBox<S>& o, const Box<2, S>& b) {
  using LD = long double;
  using L = std::numeric_limits<S>;
  constexpr bool wider = std::numeric_limits<LD>::digits > L::digits + 8 &&
                         std::numeric_limits<LD>::max_exponent > L::max_exponent + 4;
  if constexpr (wider) {
    const LD c = std::cos(LD(o.angle)), s = std::sin(LD(o.angle)), hx = o.half_extents.x, hy = o.half_extents.y;
    const LD cx = o.center.x, cy = o.center.y;
    const LD corners[4][2] = {{cx - c * hx + s * hy, cy - s * hx - c * hy},
                              {cx + c * hx + s * hy, cy + s * hx - c * hy},
                              {cx + c * hx - s * hy, cy + s * hx + c * hy},
                              {cx - c * hx - s * hy, cy - s * hx + c * hy}};
    const LD box[4][2] = {{LD(b.min.x), LD(b.min.y)}, {LD(b.max.x), LD(b.min.y)}, {LD(b.max.x), LD(b.max.y)},
                          {LD(b.min.x), LD(b.max.y)}};
    LD gap = -std::numeric_limits<LD>::infinity();
    const LD axes[4][2] = {{1, 0}, {0, 1}, {c, s}, {-s, c}};
    for (const auto& n : axes) {
      LD olo = std::numeric_limits<LD>::infinity(), ohi = -olo, blo = olo, bhi = -olo;
      for (int k = 0; k < 4; ++k) {
        olo = std::min(olo, n[0] * corners[k][0] + n[1] * corners[k][1]);
        ohi = std::max(ohi, n[0] * corners[k][0] + n[1] * corners[k][1]);
        blo = std::min(blo, n[0] * box[k][0] + n[1] * box[k][1]);
        bhi = std::max(bhi, n[0] * box[k][0] + n[1] * box[k][1]);
      }
      gap = std::max({gap, blo - ohi, olo - bhi});
    }
    const LD magnitude = std::max(std::abs(cx), std::abs(cy)) + hx + hy;
    const LD band = 64 * LD(L::epsilon()) * magnitude + 256 * LD(L::denorm_min());
    const bool hit = overlaps(o, b);
    QUADRANT_FUZZ_CHECK(!(gap > band && hit), "oriented box: a box the reference puts apart is hit");
    QUADRANT_FUZZ_CHECK(!(gap < -band && !hit), "oriented box: a box the reference puts overlapping is missed");
  }
}

template <class S>
void run(FuzzedDataProvider& provider) {
  Input<S> in{provider};
  switch (provider.ConsumeIntegralInRange<int>(0, 2)) {
    case 0: in.scale = S(1e-3); break;
    case 1: in.scale = S(100); break;
    default: in.scale = std::numeric_limits<S>::max() / 2; break;
  }
  const int kind = provider.ConsumeIntegralInRange<int>(0, 8);
  static const char* const names[] = {"circle", "ring", "ellipse", "sector", "oriented box", "segment 2D", "sphere",
                                      "segment 3D", "box"};
  g_shape = names[kind];
  Box<2, S> node2, box2;
  Box<3, S> node3, box3;
  switch (kind) {
    case 0: {
      const Circle<S> c{in.template point<2>(), in.length()};
      in.node_and_box(node2, box2);
      check<2, S>(c, node2, box2);
      break;
    }
    case 1: {
      S a = in.length(), b = in.length();
      const Ring<S> r{in.template point<2>(), std::min(a, b), std::max(a, b)};
      in.node_and_box(node2, box2);
      check<2, S>(r, node2, box2);
      break;
    }
    case 2: {
      const Vec<2, S> c = in.template point<2>(), radii{in.length(), in.length()};
      const Ellipse<S> e{c, radii, static_cast<S>(provider.ConsumeFloatingPointInRange<double>(-7, 7))};
      in.node_and_box(node2, box2);
      check<2, S>(e, node2, box2);
      break;
    }
    case 3: {
      const Vec<2, S> apex = in.template point<2>(), dir = in.template point<2>();
      const Sector<S> s{apex, dir, in.length(),
                        static_cast<S>(provider.ConsumeProbability<double>() * std::numbers::pi)};
      in.node_and_box(node2, box2);
      check<2, S>(s, node2, box2);
      break;
    }
    case 4: {
      const OrientedBox<S> o{in.template point<2>(), {in.length(), in.length()},
                             static_cast<S>(provider.ConsumeFloatingPointInRange<double>(-7, 7))};
      in.node_and_box(node2, box2);
      check<2, S>(o, node2, box2);
      bool valid = true;
      try {
        check_shape(o);
      } catch (const std::invalid_argument&) {
        valid = false;
      }
      if (valid) {
        check_against_reference(o, node2);
        check_against_reference(o, box2);
        check_against_reference(o, Box<2, S>{box2.max, box2.max});
      }
      break;
    }
    case 5: {
      const Segment<2, S> seg{in.template point<2>(), in.template point<2>()};
      in.node_and_box(node2, box2);
      check<2, S>(seg, node2, box2);
      break;
    }
    case 6: {
      const Sphere<S> sp{in.template point<3>(), in.length()};
      in.node_and_box(node3, box3);
      check<3, S>(sp, node3, box3);
      break;
    }
    case 7: {
      const Segment<3, S> seg{in.template point<3>(), in.template point<3>()};
      in.node_and_box(node3, box3);
      check<3, S>(seg, node3, box3);
      break;
    }
    default: {
      in.node_and_box(node2, box2);
      Box<2, S> q, unused;
      in.node_and_box(q, unused);
      check<2, S>(q, node2, box2);
      break;
    }
  }
}

}  // namespace

QUADRANT_FUZZ_FLOAT_OR_DOUBLE(run)

// SPDX-License-Identifier: MIT
// Round query shapes (Circle, Sphere, Ring, Ellipse, Sector), for float and double.
//
// Oracles (none shares code with the library; all in long double):
//  * Circle, Sphere, Ring: the distance from the center to the box's nearest point (clamping the center into the box)
//    and to its farthest point (the largest over its corners). A ring meets a box iff nearest <= outer and farthest
//    >= inner. A distance within tol of a radius is skipped.
//  * Ellipse: the minimum over the box of the ellipse's quadratic form ((frame x / rx)^2 + (frame y / ry)^2), by a
//    golden-section search over x of the closed-form minimum over y (a convex function of x); |sqrt(min) - 1| <= tol
//    is skipped. A zero radius (a segment): disjoint when the segment's distance to the box (minimised along it by
//    golden section, a convex function) exceeds tol; overlapping when the segment, shortened by tol at both ends,
//    passes through the box shrunk by tol (Liang–Barsky; an axis where the box has no extent must be crossed
//    transversally); else skipped.
//  * Sector: the box polygon clipped by each convex half of the fan (Sutherland–Hodgman with general half-planes
//    built from angles), then the clipped polygon's distance to the apex, for a shrunk sector and an inflated one
//    (apex moved by tol forward / back along the axis, radius -/+ 2 tol, half angle -/+ tol): the shrunk one meeting
//    the box means overlap, the inflated one missing it means disjoint, else the case is within tol of touching and
//    skipped. half_angle 0 uses the segment oracle, pi the disc oracle.
//  Random boxes rarely come near a boundary, so a second set places boxes at a signed gap of 1.3 to 1000 bands from
//  a boundary point.
//  tol is 1e-4 for float (circle and ring compute in float) and 1e-9 for double, on shapes of size 1..30; at least
//  95% of the random cases must be decided.
// classify is checked for consistency with overlaps on (shape, node, b inside node) triples, b often on node's faces
// and corners and often of zero size; Inside and Outside must each be frequent.
// At extreme magnitudes (fields from subnormal to the largest finite value, mixed) the oracles decide the problem
// moved to the shape's center, clipped to a square around it and scaled by a power of two, in long double.
#include <quadrant/geometry.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <random>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace {

using namespace quadrant;
using LD = long double;
constexpr LD kPi = std::numbers::pi_v<LD>;
constexpr double kPiD = std::numbers::pi;

template <class S>
class RoundShapes : public ::testing::Test {};
using Scalars = ::testing::Types<float, double>;
TYPED_TEST_SUITE(RoundShapes, Scalars);

template <class S>
constexpr LD tol() {
  return std::is_same_v<S, float> ? 1e-4L : 1e-9L;
}

struct Rng {
  std::mt19937_64 g;
  explicit Rng(std::uint64_t seed) : g(seed) {}
  double real(double a, double b) { return std::uniform_real_distribution<double>(a, b)(g); }
  int integer(int a, int b) { return std::uniform_int_distribution<int>(a, b)(g); }
  bool chance(double p) { return real(0, 1) < p; }
};

template <class S>
Vec<2, S> v2(double x, double y) {
  return Vec<2, S>{static_cast<S>(x), static_cast<S>(y)};
}
template <class S>
Box<2, S> box2(double x0, double y0, double x1, double y1) {
  return Box<2, S>{v2<S>(x0, y0), v2<S>(x1, y1)};
}

template <int D, class S>
Box<D, S> random_box(Rng& r, double lo, double hi, double max_size) {
  Box<D, S> b;
  for (int i = 0; i < D; ++i) {
    b.min[i] = static_cast<S>(r.real(lo, hi));
    b.max[i] = r.chance(0.2) ? b.min[i] : static_cast<S>(b.min[i] + r.real(0, max_size));
  }
  return b;
}

// A box inside n: each axis on a face, both faces, random inside, or zero-size, all often.
template <int D, class S>
Box<D, S> sub_box(Rng& r, const Box<D, S>& n) {
  Box<D, S> b;
  for (int i = 0; i < D; ++i) {
    const auto pick = [&] {
      const S v = static_cast<S>(n.min[i] + r.real(0, 1) * (n.max[i] - n.min[i]));
      return std::clamp(v, n.min[i], n.max[i]);
    };
    S a = n.min[i], c = n.max[i];
    switch (r.integer(0, 6)) {
      case 0: c = a; break;
      case 1: a = c; break;
      case 2: break;
      case 3: c = pick(); break;
      case 4: a = pick(); break;
      case 5: a = c = pick(); break;
      default: a = pick(); c = pick();
    }
    b.min[i] = std::min(a, c);
    b.max[i] = std::max(a, c);
  }
  return b;
}

// ---- oracles ------------------------------------------------------------------------------------------------------

enum class Verdict { Yes, No, Skip };

Verdict within(LD value, LD limit, LD band) {
  if (value <= limit - band) return Verdict::Yes;
  if (value > limit + band) return Verdict::No;
  return Verdict::Skip;
}

template <int D, class S>
LD nearest(const Vec<D, S>& c, const Box<D, S>& b) {
  LD sum = 0;
  for (int i = 0; i < D; ++i) {
    const LD d = std::clamp<LD>(c[i], b.min[i], b.max[i]) - c[i];
    sum += d * d;
  }
  return std::sqrt(sum);
}
template <int D, class S>
LD farthest(const Vec<D, S>& c, const Box<D, S>& b) {
  LD best = 0;
  for (int mask = 0; mask < (1 << D); ++mask) {
    LD sum = 0;
    for (int i = 0; i < D; ++i) {
      const LD d = LD((mask >> i) & 1 ? b.max[i] : b.min[i]) - c[i];
      sum += d * d;
    }
    best = std::max(best, sum);
  }
  return std::sqrt(best);
}

template <class F>
LD golden_min(F f, LD a, LD b) {
  const LD g = (std::sqrt(5.0L) - 1) / 2;
  LD c = b - g * (b - a), d = a + g * (b - a), fc = f(c), fd = f(d);
  LD best = std::min({f(a), f(b), fc, fd});
  for (int it = 0; it < 120 && b - a > 0; ++it) {
    if (fc <= fd) {
      b = d, d = c, fd = fc, c = b - g * (b - a), fc = f(c);
    } else {
      a = c, c = d, fc = fd, d = a + g * (b - a), fd = f(d);
    }
    best = std::min({best, fc, fd});
  }
  return best;
}

// Distance from the segment p0 -> p1 to the box.
template <class S>
LD segment_box_distance(LD x0, LD y0, LD x1, LD y1, const Box<2, S>& b) {
  const auto dist = [&](LD t) {
    const LD x = x0 + t * (x1 - x0), y = y0 + t * (y1 - y0);
    const LD dx = std::clamp<LD>(x, b.min.x, b.max.x) - x, dy = std::clamp<LD>(y, b.min.y, b.max.y) - y;
    return std::sqrt(dx * dx + dy * dy);
  };
  return golden_min(dist, 0, 1);
}
// A segment meets a box certainly when it passes through the box shrunk by band (on the axes where the box has
// extent; a zero-extent axis must be crossed transversally, at a parameter found exactly) away from its own ends;
// certainly not when its distance to the box exceeds band.
template <class S>
Verdict segment_oracle(LD x0, LD y0, LD x1, LD y1, const Box<2, S>& b, LD band) {
  if (segment_box_distance(x0, y0, x1, y1, b) > band) return Verdict::No;
  const LD p[2] = {x0, y0}, w[2] = {x1 - x0, y1 - y0}, len = std::hypot(w[0], w[1]);
  if (len <= 2 * band || (b.min.x == b.max.x && b.min.y == b.max.y)) return Verdict::Skip;  // a point on it
  LD t0 = band / len, t1 = 1 - band / len;
  for (int i = 0; i < 2; ++i) {
    LD lo = b.min[i], hi = b.max[i];
    if (hi - lo > 2 * band) {
      lo += band, hi -= band;
    } else if (hi > lo || std::abs(w[i]) <= band) {
      return Verdict::Skip;  // too thin to decide, or a zero-extent axis met at a grazing angle
    }
    if (w[i] == 0) {
      if (p[i] < lo || p[i] > hi) return Verdict::Skip;
      continue;
    }
    LD a = (lo - p[i]) / w[i], c = (hi - p[i]) / w[i];
    if (a > c) std::swap(a, c);
    t0 = std::max(t0, a), t1 = std::min(t1, c);
  }
  if (t0 > t1) return Verdict::Skip;
  // The point at t0 is inside the shrunk box up to the rounding of the zero-extent axis (exact there by choice).
  return Verdict::Yes;
}

template <class S>
Verdict ellipse_oracle(const Ellipse<S>& e, const Box<2, S>& b, LD band) {
  const LD c = std::cos(LD(e.angle)), s = std::sin(LD(e.angle)), rx = e.radii.x, ry = e.radii.y;
  if (rx == 0 || ry == 0) {
    const LD ax = rx == 0 ? -s * ry : c * rx, ay = rx == 0 ? c * ry : s * rx;
    return segment_oracle(e.center.x - ax, e.center.y - ay, e.center.x + ax, e.center.y + ay, b, band);
  }
  const auto form = [&](LD dx, LD t) {
    const LD qx = c * dx + s * t, qy = -s * dx + c * t;
    return qx * qx / (rx * rx) + qy * qy / (ry * ry);
  };
  const auto over_y = [&](LD x) {  // exact minimum over y of a quadratic in t = y - cy
    const LD dx = x - e.center.x;
    const LD t = -s * c * dx * (1 / (rx * rx) - 1 / (ry * ry)) / (s * s / (rx * rx) + c * c / (ry * ry));
    return form(dx, std::clamp<LD>(t, LD(b.min.y) - e.center.y, LD(b.max.y) - e.center.y));
  };
  return within(std::sqrt(golden_min(over_y, b.min.x, b.max.x)), 1, band);
}

struct LPt {
  LD x, y;
};
using LPoly = std::vector<LPt>;

LPoly clip(const LPoly& poly, LPt n) {  // keeps n . p >= 0
  LPoly out;
  for (std::size_t i = 0; i < poly.size(); ++i) {
    const LPt a = poly[i], b = poly[(i + 1) % poly.size()];
    const LD sa = n.x * a.x + n.y * a.y, sb = n.x * b.x + n.y * b.y;
    if (sa >= 0) out.push_back(a);
    if ((sa >= 0) != (sb >= 0)) {
      const LD t = sa / (sa - sb);
      out.push_back(LPt{a.x + t * (b.x - a.x), a.y + t * (b.y - a.y)});
    }
  }
  return out;
}
LD polygon_distance(const LPoly& p) {  // from the origin
  LD area = 0, best = std::numeric_limits<LD>::infinity();
  bool pos = false, neg = false;
  for (std::size_t i = 0; i < p.size(); ++i) {
    const LPt a = p[i], b = p[(i + 1) % p.size()];
    const LD cr = a.x * b.y - a.y * b.x;
    area += cr;
    pos = pos || cr > 0;
    neg = neg || cr < 0;
    const LD ex = b.x - a.x, ey = b.y - a.y, ee = ex * ex + ey * ey;
    const LD t = ee > 0 ? std::clamp(-(a.x * ex + a.y * ey) / ee, 0.0L, 1.0L) : 0;
    best = std::min(best, std::hypot(a.x + t * ex, a.y + t * ey));
  }
  return std::abs(area) > 1e-24L && !(pos && neg) ? 0 : best;
}
// The fan (apex, axis angle th, half angle al, radius) against the box [lx, hx] x [ly, hy].
bool fan_oracle(LD ax, LD ay, LD th, LD al, LD radius, LD lx, LD ly, LD hx, LD hy) {
  if (radius < 0) return false;
  if (al >= kPi) {
    const LD dx = std::clamp(ax, lx, hx) - ax, dy = std::clamp(ay, ly, hy) - ay;
    return std::hypot(dx, dy) <= radius;
  }
  const LPoly box{{lx - ax, ly - ay}, {hx - ax, ly - ay}, {hx - ax, hy - ay}, {lx - ax, hy - ay}};
  for (const LD sign : {1.0L, -1.0L}) {
    LPoly p = clip(box, LPt{-std::sin(th) * sign, std::cos(th) * sign});
    const LD te = th + sign * al;
    p = clip(p, LPt{std::sin(te) * sign, -std::cos(te) * sign});
    if (al <= kPi / 2) p = clip(p, LPt{std::cos(th), std::sin(th)});
    if (!p.empty() && polygon_distance(p) <= radius) return true;
  }
  return false;
}
template <class S>
Verdict sector_oracle(const Sector<S>& s, const Box<2, S>& b, LD band) {
  const LD th = std::atan2(LD(s.direction.y), LD(s.direction.x)), al = s.half_angle, r = s.radius;
  const LD ux = std::cos(th) * band, uy = std::sin(th) * band;
  if (al == 0) {
    return segment_oracle(s.apex.x, s.apex.y, s.apex.x + r * std::cos(th), s.apex.y + r * std::sin(th), b, band);
  }
  if (s.half_angle >= std::numbers::pi_v<S>) return within(nearest(s.apex, b), r, band);
  const bool yes = fan_oracle(s.apex.x + ux, s.apex.y + uy, th, std::max<LD>(al - band, 0), r - 2 * band, b.min.x,
                              b.min.y, b.max.x, b.max.y);
  const bool no = !fan_oracle(s.apex.x - ux, s.apex.y - uy, th, al + band, r + 2 * band, b.min.x, b.min.y, b.max.x,
                              b.max.y);
  EXPECT_FALSE(yes && no) << "oracle contradicts itself";
  return yes ? Verdict::Yes : (no ? Verdict::No : Verdict::Skip);
}

template <class S>
Verdict ring_oracle(const Ring<S>& r, const Box<2, S>& b, LD band) {
  const Verdict a = within(nearest(r.center, b), r.outer, band);
  const Verdict c = within(-farthest(r.center, b), -LD(r.inner), band);  // farthest >= inner
  if (a == Verdict::No || c == Verdict::No) return Verdict::No;
  return a == Verdict::Yes && c == Verdict::Yes ? Verdict::Yes : Verdict::Skip;
}

template <class S>
std::string num(S v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", double(v));
  return buf;
}
template <int D, class S>
std::string show(const Vec<D, S>& p) {
  std::string s = "(";
  for (int i = 0; i < D; ++i) s += num(p[i]) + (i + 1 < D ? ", " : ")");
  return s;
}
template <int D, class S>
std::string show(const Box<D, S>& b) {
  return "box " + show(b.min) + " - " + show(b.max);
}
template <class S>
std::string show(const Circle<S>& c) {
  return "circle " + show(c.center) + " r " + num(c.radius);
}
template <class S>
std::string show(const Sphere<S>& c) {
  return "sphere " + show(c.center) + " r " + num(c.radius);
}
template <class S>
std::string show(const Ring<S>& r) {
  return "ring " + show(r.center) + " " + num(r.inner) + " .. " + num(r.outer);
}
template <class S>
std::string show(const Ellipse<S>& e) {
  return "ellipse " + show(e.center) + " radii " + show(e.radii) + " angle " + num(e.angle);
}
template <class S>
std::string show(const Sector<S>& s) {
  return "sector " + show(s.apex) + " dir " + show(s.direction) + " r " + num(s.radius) +
         " half " + num(s.half_angle);
}

// Checks overlaps against the oracle on every case, counting the decided ones.
struct Tally {
  const char* name;
  int decided = 0, total = 0, yes = 0;
  template <class Shape, class B>
  void add(Verdict v, const Shape& shape, const B& b) {
    ++total;
    if (v == Verdict::Skip) return;
    ++decided;
    yes += v == Verdict::Yes;
    EXPECT_EQ(overlaps(shape, b), v == Verdict::Yes) << name << ": " << show(shape) << " " << show(b);
  }
  void expect_mostly_decided() const {
    EXPECT_GE(decided, total * 95 / 100) << name << ": " << decided << " of " << total << " decided";
    EXPECT_GE(yes, decided / 20) << name << ": too few overlapping cases";
    EXPECT_LE(yes, decided * 19 / 20) << name << ": too few disjoint cases";
  }
};

// ---- random shapes ------------------------------------------------------------------------------------------------

template <class S>
Circle<S> random_circle(Rng& r) {
  return Circle<S>{v2<S>(r.real(-20, 20), r.real(-20, 20)), static_cast<S>(r.real(0.5, 30))};
}
template <class S>
Sphere<S> random_sphere(Rng& r) {
  const auto c = [&] { return static_cast<S>(r.real(-20, 20)); };
  return Sphere<S>{{c(), c(), c()}, static_cast<S>(r.real(0.5, 30))};
}
template <class S>
Ring<S> random_ring(Rng& r) {
  const double inner = r.chance(0.2) ? 0 : r.real(0.5, 15);
  const double outer = inner + r.real(0, 15);
  return Ring<S>{v2<S>(r.real(-20, 20), r.real(-20, 20)), static_cast<S>(inner), static_cast<S>(outer)};
}
template <class S>
Ellipse<S> random_ellipse(Rng& r, bool degenerate) {
  double rx = r.real(1, 25), ry = rx / r.real(1, 8);
  if (r.chance(0.5)) std::swap(rx, ry);
  if (degenerate) (r.chance(0.5) ? rx : ry) = 0;
  return Ellipse<S>{v2<S>(r.real(-20, 20), r.real(-20, 20)), v2<S>(rx, ry), static_cast<S>(r.real(-7, 7))};
}
template <class S>
Sector<S> random_sector(Rng& r) {
  const double a = r.real(-kPiD, kPiD), len = std::exp(r.real(-3, 3));
  const int kind = r.integer(0, 9);
  const S pi = std::numbers::pi_v<S>;
  const S half = kind == 0 ? S{0} : kind == 1 ? pi / 2 : kind == 2 ? pi : static_cast<S>(r.real(0.05, kPiD - 0.05));
  return Sector<S>{v2<S>(r.real(-20, 20), r.real(-20, 20)), v2<S>(len * std::cos(a), len * std::sin(a)),
                   static_cast<S>(r.real(0.5, 30)), half};
}

// ---- constructed cases --------------------------------------------------------------------------------------------

TYPED_TEST(RoundShapes, CircleAndSphereKnownCases) {
  using S = TypeParam;
  const Circle<S> c{v2<S>(0, 0), 5};
  EXPECT_TRUE(overlaps(c, box2<S>(3, 4, 10, 10)));  // corner (3, 4) on the circle
  EXPECT_FALSE(overlaps(c, Box<2, S>{v2<S>(3, std::nextafter(S{4}, S{5})), v2<S>(10, 10)}));
  EXPECT_TRUE(overlaps(c, box2<S>(5, -1, 6, 1)));  // face touching at (5, 0)
  EXPECT_FALSE(overlaps(c, Box<2, S>{v2<S>(std::nextafter(S{5}, S{6}), -1), v2<S>(6, 1)}));
  EXPECT_TRUE(overlaps(c, box2<S>(-100, -100, 100, 100)));  // holds the circle
  EXPECT_TRUE(overlaps(c, box2<S>(1, 1, 1, 1)));
  EXPECT_TRUE(contains(c, v2<S>(0, -5)));
  EXPECT_FALSE(contains(c, v2<S>(4, 4)));
  EXPECT_EQ(classify(c, box2<S>(-3, -4, 3, 4)), Relation::Inside);  // farthest corners on the circle
  EXPECT_EQ(classify(c, box2<S>(-3, -4, 3, 5)), Relation::Crossing);
  EXPECT_EQ(classify(c, box2<S>(-100, -100, 100, 100)), Relation::Crossing);
  EXPECT_EQ(classify(c, box2<S>(4, 4, 10, 10)), Relation::Outside);
  const Circle<S> dot{v2<S>(1, 2), 0};  // zero radius: a point
  EXPECT_TRUE(overlaps(dot, box2<S>(1, 2, 1, 2)));
  EXPECT_TRUE(overlaps(dot, box2<S>(0, 0, 1, 2)));
  EXPECT_FALSE(overlaps(dot, Box<2, S>{v2<S>(std::nextafter(S{1}, S{2}), 0), v2<S>(3, 3)}));
  EXPECT_EQ(classify(dot, box2<S>(1, 2, 1, 2)), Relation::Inside);
  EXPECT_EQ(classify(dot, box2<S>(0, 0, 3, 3)), Relation::Crossing);

  const Sphere<S> s{{0, 0, 0}, 3};
  EXPECT_TRUE(overlaps(s, Box<3, S>{{1, 2, 2}, {5, 5, 5}}));  // corner (1, 2, 2) on the sphere
  EXPECT_FALSE(overlaps(s, Box<3, S>{{1, 2, std::nextafter(S{2}, S{3})}, {5, 5, 5}}));
  EXPECT_EQ(classify(s, Box<3, S>{{-1, -2, -2}, {1, 2, 2}}), Relation::Inside);
  EXPECT_EQ(classify(s, Box<3, S>{{3, 3, 3}, {4, 4, 4}}), Relation::Outside);
  EXPECT_TRUE(contains(s, Vec<3, S>{0, 0, -3}));
  EXPECT_FALSE(contains(s, Vec<3, S>{0, 2, -3}));

  // Narrow phase: touching counts.
  EXPECT_TRUE(overlaps(Circle<S>{v2<S>(0, 0), 2}, Circle<S>{v2<S>(3, 4), 3}));
  EXPECT_FALSE(overlaps(Circle<S>{v2<S>(0, 0), 2}, Circle<S>{v2<S>(3, 4), static_cast<S>(2.99999)}));
  EXPECT_TRUE(overlaps(Circle<S>{v2<S>(1, 1), 0}, Circle<S>{v2<S>(1, 1), 0}));
  EXPECT_FALSE(overlaps(Circle<S>{v2<S>(1, 1), 0}, Circle<S>{v2<S>(1, std::nextafter(S{1}, S{2})), 0}));
  EXPECT_TRUE(overlaps(Sphere<S>{{0, 0, 0}, 1}, Sphere<S>{{1, 2, 2}, 2}));
  EXPECT_FALSE(overlaps(Sphere<S>{{0, 0, 0}, 1}, Sphere<S>{{1, 2, 2}, static_cast<S>(1.99999)}));
  if constexpr (std::is_same_v<S, float>) {  // float discs are compared in double: one ulp apart is decided
    EXPECT_FALSE(overlaps(Circle<S>{v2<S>(0, 0), 2}, Circle<S>{v2<S>(3, 4), std::nextafter(S{3}, S{0})}));
    EXPECT_FALSE(overlaps(Sphere<S>{{0, 0, 0}, 1}, Sphere<S>{{1, 2, 2}, std::nextafter(S{2}, S{0})}));
  }
}

TYPED_TEST(RoundShapes, RingKnownCases) {
  using S = TypeParam;
  const Ring<S> r{v2<S>(0, 0), 3, 5};
  EXPECT_FALSE(overlaps(r, box2<S>(-2, -2, 2, 2)));  // inside the hole: farthest corner sqrt(8) < 3
  EXPECT_TRUE(overlaps(r, box2<S>(-10, -10, 10, 10)));  // holds the whole ring
  EXPECT_TRUE(overlaps(r, box2<S>(3, 0, 3, 0)));       // on the inner circle
  EXPECT_TRUE(overlaps(r, box2<S>(-2, -2, 2, 2.25)));  // corner (2, 2.25): distance 3.01
  EXPECT_FALSE(overlaps(r, box2<S>(0, 0, 1.5, 2.5)));  // farthest 2.915
  EXPECT_TRUE(overlaps(r, box2<S>(3, 4, 7, 7)));        // touches the outer circle at (3, 4)
  EXPECT_FALSE(contains(r, v2<S>(0, 2.5)));
  EXPECT_TRUE(contains(r, v2<S>(0, -4)));
  EXPECT_FALSE(contains(r, v2<S>(4, 4)));
  EXPECT_EQ(classify(r, box2<S>(3, 0, 3, 4)), Relation::Inside);  // distances 3 .. 5
  EXPECT_EQ(classify(r, box2<S>(-1, -1, 1, 1)), Relation::Outside);
  EXPECT_EQ(classify(r, box2<S>(4, 4, 9, 9)), Relation::Outside);
  EXPECT_EQ(classify(r, box2<S>(-10, -10, 10, 10)), Relation::Crossing);
  const Ring<S> disc{v2<S>(0, 0), 0, 5};  // inner 0: the disc
  EXPECT_TRUE(contains(disc, v2<S>(0, 0)));
  EXPECT_EQ(classify(disc, box2<S>(-1, -1, 1, 1)), Relation::Inside);
  const Ring<S> circle{v2<S>(0, 0), 5, 5};  // inner == outer: the circle line
  EXPECT_TRUE(overlaps(circle, box2<S>(-1, -10, 1, 10)));
  EXPECT_FALSE(overlaps(circle, box2<S>(-1, -1, 1, 1)));
  EXPECT_TRUE(contains(circle, v2<S>(-3, 4)));
}

TYPED_TEST(RoundShapes, EllipseKnownCases) {
  using S = TypeParam;
  const S pi = std::numbers::pi_v<S>;
  const Ellipse<S> e{v2<S>(0, 0), v2<S>(4, 2), 0};
  EXPECT_TRUE(contains(e, v2<S>(4, 0)));
  EXPECT_FALSE(contains(e, v2<S>(4.001, 0)));
  EXPECT_TRUE(contains(e, v2<S>(0, -2)));
  EXPECT_FALSE(contains(e, v2<S>(3, 1.4)));  // 9/16 + 1.96/4 = 1.0525
  EXPECT_TRUE(contains(e, v2<S>(3, 1.3)));   // 0.5625 + 0.4225 = 0.985
  EXPECT_TRUE(overlaps(e, box2<S>(4, -1, 5, 1)));  // touches at (4, 0)
  EXPECT_FALSE(overlaps(e, box2<S>(3, 1.4, 5, 5)));
  EXPECT_TRUE(overlaps(e, box2<S>(-10, -10, 10, 10)));
  EXPECT_EQ(classify(e, box2<S>(-1, -1, 1, 1)), Relation::Inside);
  EXPECT_EQ(classify(e, box2<S>(3, 1.5, 5, 5)), Relation::Outside);  // corner outside, box beyond the curve
  EXPECT_EQ(classify(e, box2<S>(-10, -10, 10, 10)), Relation::Crossing);
  const Ellipse<S> turned{v2<S>(1, 1), v2<S>(4, 2), pi / 2};  // long axis along y
  EXPECT_TRUE(contains(turned, v2<S>(1, 4.999)));
  EXPECT_FALSE(contains(turned, v2<S>(1, 5.001)));
  EXPECT_FALSE(contains(turned, v2<S>(3.001, 1)));
  // A zero radius is a segment: from (-3, -3) / sqrt 2 to (3, 3) / sqrt 2 here.
  const Ellipse<S> seg{v2<S>(0, 0), v2<S>(3, 0), pi / 4};
  EXPECT_FALSE(overlaps(seg, box2<S>(1, 1.2, 1, 1.8)));  // passes x = 1 at y = 1
  EXPECT_TRUE(overlaps(seg, box2<S>(1, 0.5, 1, 1.5)));  // a zero-width box crossing the segment
  EXPECT_TRUE(overlaps(seg, box2<S>(1, 1, 2, 2)));
  EXPECT_FALSE(overlaps(seg, box2<S>(1, -2, 2, -1)));
  EXPECT_FALSE(overlaps(seg, box2<S>(2.2, 2.2, 3, 3)));  // beyond the end (2.12, 2.12)
  EXPECT_NE(classify(seg, box2<S>(-1, -1, 1, 1)), Relation::Outside);
  EXPECT_EQ(classify(seg, box2<S>(1, -2, 2, -1)), Relation::Outside);
  const Ellipse<S> point{v2<S>(2, 3), v2<S>(0, 0), 1};
  EXPECT_TRUE(overlaps(point, box2<S>(2, 3, 4, 4)));
  EXPECT_FALSE(overlaps(point, Box<2, S>{v2<S>(2, std::nextafter(S{3}, S{4})), v2<S>(4, 4)}));
  EXPECT_TRUE(contains(point, v2<S>(2, 3)));
}

TYPED_TEST(RoundShapes, SectorKnownCases) {
  using S = TypeParam;
  const S pi = std::numbers::pi_v<S>;
  const Sector<S> fan{v2<S>(0, 0), v2<S>(1, 0), 2, pi / 4};
  EXPECT_TRUE(contains(fan, v2<S>(1, 0.5)));
  EXPECT_FALSE(contains(fan, v2<S>(1, 1.01)));
  EXPECT_FALSE(contains(fan, v2<S>(-0.1, 0)));
  EXPECT_TRUE(contains(fan, v2<S>(0, 0)));
  EXPECT_TRUE(overlaps(fan, box2<S>(-1, -1, 1, 1)));  // holds the apex
  EXPECT_FALSE(overlaps(fan, box2<S>(-1, -1, -0.5, 1)));
  EXPECT_TRUE(overlaps(fan, box2<S>(2, -0.1, 3, 0.1)));  // touches the arc at (2, 0)
  EXPECT_FALSE(overlaps(fan, box2<S>(2.01, -0.1, 3, 0.1)));
  EXPECT_TRUE(overlaps(fan, box2<S>(0.5, -5, 0.6, 5)));  // crosses the whole fan, no corner inside
  EXPECT_FALSE(overlaps(fan, box2<S>(0.5, 0.7, 0.6, 5)));
  EXPECT_EQ(classify(fan, box2<S>(1, -0.2, 1.2, 0.2)), Relation::Inside);
  EXPECT_EQ(classify(fan, box2<S>(0.5, 0.7, 0.6, 5)), Relation::Outside);
  EXPECT_EQ(classify(fan, box2<S>(-3, -3, -1, 3)), Relation::Outside);
  const Sector<S> half{v2<S>(0, 0), v2<S>(0, 1), 2, pi / 2};  // the upper half disc
  EXPECT_TRUE(contains(half, v2<S>(-1.9, 0.001)));
  EXPECT_FALSE(contains(half, v2<S>(-1, -0.001)));
  EXPECT_TRUE(overlaps(half, box2<S>(-5, -5, 5, 0)));  // touches along the diameter
  EXPECT_EQ(classify(half, box2<S>(-1, 0.1, 1, 1)), Relation::Inside);
  EXPECT_EQ(classify(half, box2<S>(-1, -1, 1, -0.1)), Relation::Outside);
  const Sector<S> wide{v2<S>(0, 0), v2<S>(1, 0), 2, 3 * pi / 4};  // all but the wedge around -x
  EXPECT_TRUE(contains(wide, v2<S>(-1, 1.1)));
  EXPECT_FALSE(contains(wide, v2<S>(-1, 0.9)));
  EXPECT_FALSE(overlaps(wide, box2<S>(-1.2, -0.5, -1, 0.5)));
  EXPECT_EQ(classify(wide, box2<S>(-1.2, -0.5, -1, 0.5)), Relation::Outside);
  EXPECT_EQ(classify(wide, box2<S>(-0.2, 0.5, 0.5, 1)), Relation::Inside);
  const Sector<S> disc{v2<S>(0, 0), v2<S>(1, 0), 2, pi};  // pi: the full disc
  EXPECT_TRUE(contains(disc, v2<S>(-2, 0)));
  EXPECT_TRUE(contains(disc, v2<S>(-1.9, -0.1)));
  EXPECT_EQ(classify(disc, box2<S>(-1, -1, 1, 1)), Relation::Inside);
  const Sector<S> ray{v2<S>(0, 0), v2<S>(1, 0), 2, 0};  // 0: the segment (0, 0) - (2, 0)
  EXPECT_TRUE(contains(ray, v2<S>(1, 0)));
  EXPECT_FALSE(contains(ray, v2<S>(1, 0.001)));
  EXPECT_FALSE(contains(ray, v2<S>(-1, 0)));
  EXPECT_TRUE(overlaps(ray, box2<S>(1, -1, 1, 1)));
  EXPECT_TRUE(overlaps(ray, box2<S>(2, 0, 3, 0)));
  EXPECT_FALSE(overlaps(ray, box2<S>(2.001, -1, 3, 1)));
  EXPECT_FALSE(overlaps(ray, box2<S>(-1, -1, -0.5, 1)));
  const Sector<S> slant{v2<S>(1, 1), v2<S>(-3, -3), 4, 0};  // the segment (1, 1) - (1 - 2.83, 1 - 2.83)
  EXPECT_TRUE(overlaps(slant, box2<S>(0, -1, 0, 1)));
  EXPECT_FALSE(overlaps(slant, box2<S>(0.1, -1, 0.2, 0)));
  const Sector<S> dot{v2<S>(1, 1), v2<S>(1, 0), 0, pi / 3};  // radius 0: the apex
  EXPECT_TRUE(overlaps(dot, box2<S>(1, 1, 2, 2)));
  EXPECT_FALSE(overlaps(dot, Box<2, S>{v2<S>(std::nextafter(S{1}, S{2}), 1), v2<S>(2, 2)}));
}

// ---- random cases against the oracles -----------------------------------------------------------------------------

TYPED_TEST(RoundShapes, CircleSphereRingMatchOracle) {
  using S = TypeParam;
  Rng rng(7001);
  Tally circle{"circle"}, sphere{"sphere"}, ring{"ring"}, discs{"discs"}, balls{"balls"};
  for (int i = 0; i < 6000; ++i) {
    SCOPED_TRACE("case " + std::to_string(i));
    const Circle<S> c = random_circle<S>(rng);
    const Box<2, S> b = random_box<2, S>(rng, -50, 50, 40);
    circle.add(within(nearest(c.center, b), c.radius, tol<S>()), c, b);
    EXPECT_EQ(contains(c, b.min), overlaps(c, Box<2, S>{b.min, b.min}));
    const Sphere<S> s = random_sphere<S>(rng);
    const Box<3, S> b3 = random_box<3, S>(rng, -50, 50, 40);
    sphere.add(within(nearest(s.center, b3), s.radius, tol<S>()), s, b3);
    const Ring<S> r = random_ring<S>(rng);
    ring.add(ring_oracle(r, b, tol<S>()), r, b);
    const Circle<S> d = random_circle<S>(rng);
    LD dist = std::hypot(LD(c.center.x) - d.center.x, LD(c.center.y) - d.center.y);
    discs.add(within(dist, LD(c.radius) + d.radius, tol<S>()), c, d);
    const Sphere<S> t = random_sphere<S>(rng);
    dist = std::sqrt(std::pow(LD(s.center.x) - t.center.x, 2) + std::pow(LD(s.center.y) - t.center.y, 2) +
                     std::pow(LD(s.center.z) - t.center.z, 2));
    balls.add(within(dist, LD(s.radius) + t.radius, tol<S>()), s, t);
  }
  circle.expect_mostly_decided();
  sphere.expect_mostly_decided();
  ring.expect_mostly_decided();
  discs.expect_mostly_decided();
  balls.expect_mostly_decided();
}

TYPED_TEST(RoundShapes, EllipseMatchesOracle) {
  using S = TypeParam;
  Rng rng(7002);
  Tally solid{"ellipse"}, flat{"flat ellipse"}, points{"ellipse points"};
  for (int i = 0; i < 5000; ++i) {
    SCOPED_TRACE("case " + std::to_string(i));
    const bool degenerate = i % 3 == 2;
    const Ellipse<S> e = random_ellipse<S>(rng, degenerate);
    Box<2, S> b = degenerate ? random_box<2, S>(rng, -25, 10, 25) : random_box<2, S>(rng, -30, 20, 30);
    b = Box<2, S>{b.min + e.center, b.max + e.center};
    (degenerate ? flat : solid).add(ellipse_oracle(e, b, tol<S>()), e, b);
    const double reach = 1.5 * std::max(e.radii.x, e.radii.y);
    const Vec<2, S> p = v2<S>(e.center.x + rng.real(-reach, reach), e.center.y + rng.real(-reach, reach));
    EXPECT_EQ(contains(e, p), overlaps(e, Box<2, S>{p, p}));
    if (!degenerate) points.add(ellipse_oracle(e, Box<2, S>{p, p}, tol<S>()), e, Box<2, S>{p, p});
  }
  solid.expect_mostly_decided();
  flat.expect_mostly_decided();
  points.expect_mostly_decided();
}

TYPED_TEST(RoundShapes, SectorMatchesOracle) {
  using S = TypeParam;
  Rng rng(7003);
  Tally boxes{"sector"}, points{"sector points"};
  for (int i = 0; i < 8000; ++i) {
    SCOPED_TRACE("case " + std::to_string(i));
    const Sector<S> s = random_sector<S>(rng);
    const Box<2, S> b = random_box<2, S>(rng, -50, 50, s.half_angle == 0 ? 15 : 40);
    boxes.add(sector_oracle(s, b, tol<S>()), s, b);
    const Vec<2, S> p = v2<S>(s.apex.x + rng.real(-30, 30), s.apex.y + rng.real(-30, 30));
    EXPECT_EQ(contains(s, p), overlaps(s, Box<2, S>{p, p}));
    if (s.half_angle != 0) points.add(sector_oracle(s, Box<2, S>{p, p}, tol<S>()), s, Box<2, S>{p, p});
  }
  boxes.expect_mostly_decided();
  points.expect_mostly_decided();
}

// Fans thinner than rounding (half_angle 1e-18 .. 1e-7): a box across the axis still meets them, a box away from the
// axis by more than tol + radius * half_angle does not. The oracle is the axis segment's.
TYPED_TEST(RoundShapes, ThinSectorsMatchTheirAxis) {
  using S = TypeParam;
  Rng rng(7009);
  Tally thin{"thin sector"};
  const double halves[] = {1e-18, 1e-16, 1e-15, 1e-12, 1e-9, 1e-7};
  for (int i = 0; i < 4000; ++i) {
    SCOPED_TRACE("case " + std::to_string(i));
    Sector<S> s = random_sector<S>(rng);
    s.half_angle = static_cast<S>(halves[i % 6]);
    Box<2, S> b = random_box<2, S>(rng, -s.radius, s.radius, s.radius);
    b = Box<2, S>{b.min + s.apex, b.max + s.apex};
    const LD th = std::atan2(LD(s.direction.y), LD(s.direction.x));
    const LD x1 = s.apex.x + s.radius * std::cos(th), y1 = s.apex.y + s.radius * std::sin(th);
    Verdict v = segment_oracle(LD(s.apex.x), LD(s.apex.y), x1, y1, b, tol<S>());
    if (v == Verdict::No && segment_box_distance(LD(s.apex.x), LD(s.apex.y), x1, y1, b) <=
                                tol<S>() + 1.01L * s.radius * LD(s.half_angle))
      v = Verdict::Skip;
    thin.add(v, s, b);
  }
  thin.expect_mostly_decided();
}

TYPED_TEST(RoundShapes, SectorDirectionLengthDoesNotMatter) {
  using S = TypeParam;
  Rng rng(7004);
  int compared = 0;
  for (int i = 0; i < 3000; ++i) {
    SCOPED_TRACE("case " + std::to_string(i));
    const Sector<S> s = random_sector<S>(rng);
    Sector<S> pow2 = s, other = s, unit = s;
    pow2.direction = s.direction * std::ldexp(S{1}, rng.chance(0.5) ? -20 : 13);  // exact: same answers exactly
    other.direction = s.direction * static_cast<S>(rng.real(0.01, 100));
    const LD len = std::hypot(LD(s.direction.x), LD(s.direction.y));
    unit.direction = v2<S>(static_cast<double>(s.direction.x / len), static_cast<double>(s.direction.y / len));
    const Box<2, S> b = random_box<2, S>(rng, -50, 50, 40);
    EXPECT_EQ(overlaps(pow2, b), overlaps(s, b));
    EXPECT_EQ(classify(pow2, b), classify(s, b));
    if (sector_oracle(s, b, tol<S>()) == Verdict::Skip) continue;  // rescaling turns the edges by a rounding
    ++compared;
    EXPECT_EQ(overlaps(other, b), overlaps(s, b));
    EXPECT_EQ(overlaps(unit, b), overlaps(s, b));
  }
  EXPECT_GE(compared, 2850);
}

// Boxes placed at a signed gap from a boundary point: a corner at P + gap * n (n the outward normal, or the inward
// one for a ring's hole), the box reaching away from the shape. |gap| is 1.3 to 1000 bands, so nearly every case is
// decided while lying close to the boundary. Ellipse and sector compute in double even for float input, so their
// band is 1e-9 for both scalars (but a sector with half_angle pi is the circle, computed in S).
template <int D, class S>
Box<D, S> box_at(Rng& rng, const std::array<LD, D>& corner, const std::array<LD, D>& away, LD size) {
  Box<D, S> b;
  for (int i = 0; i < D; ++i) {
    const LD ext = rng.chance(0.2) ? 0 : size * LD(rng.real(0, 1));
    const LD lo = away[i] >= 0 ? corner[i] : corner[i] - ext, hi = away[i] >= 0 ? corner[i] + ext : corner[i];
    b.min[i] = static_cast<S>(lo);
    b.max[i] = std::max(b.min[i], static_cast<S>(hi));
  }
  return b;
}
LD signed_gap(Rng& rng, LD band) {
  return (rng.chance(0.5) ? 1 : -1) * band * std::pow(10.0L, LD(rng.real(0.1, 3)));
}

TYPED_TEST(RoundShapes, NearBoundaryCasesMatchOracle) {
  using S = TypeParam;
  using A2 = std::array<LD, 2>;
  Rng rng(7008);
  Tally circle{"circle"}, sphere{"sphere"}, ring{"ring"};
  Tally ellipse{"ellipse"}, segment{"flat ellipse"}, sector{"sector"};
  const LD fine = 1e-9L;
  for (int i = 0; i < 4000; ++i) {
    SCOPED_TRACE("case " + std::to_string(i));
    const LD t = rng.real(-kPiD, kPiD), ct = std::cos(t), st = std::sin(t);
    {
      const Circle<S> c = random_circle<S>(rng);
      const LD g = signed_gap(rng, tol<S>());
      const Box<2, S> b = box_at<2, S>(rng, A2{c.center.x + (c.radius + g) * ct, c.center.y + (c.radius + g) * st},
                                       A2{ct, st}, 10);
      circle.add(within(nearest(c.center, b), c.radius, tol<S>()), c, b);
    }
    {
      const Sphere<S> s = random_sphere<S>(rng);
      const LD z = rng.real(-1, 1), w = std::sqrt(1 - z * z), g = signed_gap(rng, tol<S>());
      const std::array<LD, 3> n{w * ct, w * st, z};
      std::array<LD, 3> corner;
      for (int k = 0; k < 3; ++k) corner[k] = s.center[k] + (s.radius + g) * n[k];
      const Box<3, S> b = box_at<3, S>(rng, corner, n, 10);
      sphere.add(within(nearest(s.center, b), s.radius, tol<S>()), s, b);
    }
    {
      Ring<S> r = random_ring<S>(rng);
      if (r.inner == 0) r.inner = r.outer / 2;
      const bool hole = rng.chance(0.5);
      const LD g = signed_gap(rng, tol<S>()), at = hole ? r.inner - g : r.outer + g;
      const LD size = hole ? std::min(std::abs(at * ct), std::abs(at * st)) : 10;  // stays on the center's side
      const Box<2, S> b = box_at<2, S>(rng, A2{r.center.x + at * ct, r.center.y + at * st},
                                       hole ? A2{-ct, -st} : A2{ct, st}, size);
      ring.add(ring_oracle(r, b, tol<S>()), r, b);
    }
    {
      const bool flat = rng.chance(0.25);
      const Ellipse<S> e = random_ellipse<S>(rng, flat);
      const LD ca = std::cos(LD(e.angle)), sa = std::sin(LD(e.angle));
      const LD px = e.radii.x * ct, py = e.radii.y * st;  // boundary point and normal in the ellipse's frame
      LD nx = e.radii.x > 0 ? ct / e.radii.x : 1, ny = e.radii.y > 0 ? st / e.radii.y : 1;
      if (flat) (e.radii.x == 0 ? ny : nx) = 0;  // a segment: the normal is across it
      const LD len = std::hypot(nx, ny), g = signed_gap(rng, fine) * std::max(e.radii.x, e.radii.y);
      nx /= len, ny /= len;
      const A2 n{ca * nx - sa * ny, sa * nx + ca * ny};
      const A2 corner{e.center.x + ca * px - sa * py + g * n[0], e.center.y + sa * px + ca * py + g * n[1]};
      const Box<2, S> b = box_at<2, S>(rng, corner, n, 10);
      (flat ? segment : ellipse).add(ellipse_oracle(e, b, fine), e, b);
    }
    {
      const Sector<S> s = random_sector<S>(rng);
      const LD th = std::atan2(LD(s.direction.y), LD(s.direction.x)), al = s.half_angle;
      A2 p, n;
      const int where = rng.integer(0, 2);
      if (where == 0) {  // on the arc
        const LD a = th + al * LD(rng.real(-1, 1));
        n = A2{std::cos(a), std::sin(a)};
        p = A2{s.radius * n[0], s.radius * n[1]};
      } else {  // on an edge, the normal pointing out of the fan
        const LD side = where == 1 ? 1 : -1, a = th + side * al, rho = s.radius * LD(rng.real(0, 1));
        p = A2{rho * std::cos(a), rho * std::sin(a)};
        n = A2{side * -std::sin(a), side * std::cos(a)};
        if (al == 0 && rng.chance(0.5)) n = A2{-n[0], -n[1]};
      }
      const LD band = s.half_angle >= std::numbers::pi_v<S> ? tol<S>() : fine;  // pi: the circle, in S
      const LD g = signed_gap(rng, band) * (s.radius + 3);  // the oracle turns the edges by band
      const Box<2, S> b = box_at<2, S>(rng, A2{s.apex.x + p[0] + g * n[0], s.apex.y + p[1] + g * n[1]}, n, 10);
      sector.add(sector_oracle(s, b, band), s, b);
    }
  }
  circle.expect_mostly_decided();
  sphere.expect_mostly_decided();
  ring.expect_mostly_decided();
  ellipse.expect_mostly_decided();
  segment.expect_mostly_decided();
  sector.expect_mostly_decided();
}

// ---- classify agrees with overlaps --------------------------------------------------------------------------------

struct Relations {
  int outside = 0, inside = 0, crossing = 0;
  void expect_useful(bool want_inside = true) const {
    const int total = outside + inside + crossing;
    EXPECT_GE(outside, total / 20) << outside << " Outside of " << total;
    if (want_inside) {
      EXPECT_GE(inside, total / 20) << inside << " Inside of " << total;
    }
  }
};

// A point inside each shape, to find boundary points by bisection.
template <class S>
Vec<2, S> inner_point(const Circle<S>& c) {
  return c.center;
}
template <class S>
Vec<3, S> inner_point(const Sphere<S>& c) {
  return c.center;
}
template <class S>
Vec<2, S> inner_point(const Ring<S>& r) {
  return Vec<2, S>{r.center.x + (r.inner + r.outer) / 2, r.center.y};
}
template <class S>
Vec<2, S> inner_point(const Ellipse<S>& e) {
  return e.center;
}
template <class S>
Vec<2, S> inner_point(const Sector<S>& s) {
  const double len = std::hypot(double(s.direction.x), double(s.direction.y)), k = s.radius / (2 * len);
  return v2<S>(s.apex.x + k * s.direction.x, s.apex.y + k * s.direction.y);
}

// Nodes around the shape at many scales (some of zero size on an axis), a third of them centered on a boundary point
// with sizes down to 1e-12 of the shape; for Outside and Inside nodes, overlaps must answer accordingly for the
// node itself and for many boxes inside it.
template <int D, class S, class Shape>
void check_classify(const Shape& shape, Rng& rng, Relations& count) {
  const Box<D, S> bb = bounding_box(shape);
  double scale = 1e-3;
  for (int i = 0; i < D; ++i) scale = std::max(scale, double(bb.max[i]) - double(bb.min[i]));
  for (int n = 0; n < 24; ++n) {
    std::array<double, D> center;
    for (int i = 0; i < D; ++i) center[i] = bb.min[i] - 0.3 * scale + rng.real(0, 1.6) * scale;
    double size = scale * std::pow(10.0, rng.real(-4, 0.3));
    const Vec<D, S> in = inner_point(shape);
    Vec<D, S> out;
    for (int i = 0; i < D; ++i) out[i] = static_cast<S>(center[i]);
    if (n % 3 == 0 && contains(shape, in) && !contains(shape, out)) {  // bisect to the boundary
      std::array<double, D> a, b;
      for (int i = 0; i < D; ++i) a[i] = in[i], b[i] = out[i];
      for (int it = 0; it < 64; ++it) {
        Vec<D, S> mid;
        for (int i = 0; i < D; ++i) mid[i] = static_cast<S>((a[i] + b[i]) / 2);
        for (int i = 0; i < D; ++i) (contains(shape, mid) ? a[i] : b[i]) = (a[i] + b[i]) / 2;
      }
      center = a;
      size = scale * std::pow(10.0, rng.real(-12, -2));
    }
    Box<D, S> node;
    for (int i = 0; i < D; ++i) {
      node.min[i] = static_cast<S>(center[i] - size * rng.real(0, 1));
      const S hi = static_cast<S>(center[i] + size * rng.real(0, 1));
      node.max[i] = rng.chance(0.1) ? node.min[i] : std::max(node.min[i], hi);
    }
    const Relation rel = classify(shape, node);
    if (rel == Relation::Crossing) {
      ++count.crossing;
      continue;
    }
    ++(rel == Relation::Inside ? count.inside : count.outside);
    const bool want = rel == Relation::Inside;
    EXPECT_EQ(overlaps(shape, node), want) << show(shape) << " node " << show(node);
    for (int k = 0; k < 12; ++k) {
      const Box<D, S> b = sub_box(rng, node);
      EXPECT_EQ(overlaps(shape, b), want) << show(shape) << " node " << show(node) << " " << show(b);
    }
  }
}

TYPED_TEST(RoundShapes, ClassifyIsConsistentWithOverlaps) {
  using S = TypeParam;
  Rng rng(7005);
  Relations circles, spheres, rings, ellipses, flat, sectors, narrow;
  for (int i = 0; i < 400; ++i) {
    SCOPED_TRACE("shape " + std::to_string(i));
    check_classify<2, S>(random_circle<S>(rng), rng, circles);
    check_classify<3, S>(random_sphere<S>(rng), rng, spheres);
    check_classify<2, S>(random_ring<S>(rng), rng, rings);
    check_classify<2, S>(random_ellipse<S>(rng, false), rng, ellipses);
    check_classify<2, S>(random_ellipse<S>(rng, true), rng, flat);
    const Sector<S> s = random_sector<S>(rng);
    check_classify<2, S>(s, rng, s.half_angle <= std::numbers::pi_v<S> / 2 ? narrow : sectors);
    // Thin ellipses and tiny or zero radii too.
    Ellipse<S> thin = random_ellipse<S>(rng, false);
    thin.radii.y = static_cast<S>(thin.radii.x * std::pow(10.0, rng.real(-7, -2)));
    check_classify<2, S>(thin, rng, flat);
    check_classify<2, S>(Circle<S>{v2<S>(rng.real(-5, 5), rng.real(-5, 5)), S{0}}, rng, flat);
  }
  circles.expect_useful();
  spheres.expect_useful();
  rings.expect_useful();
  ellipses.expect_useful();
  flat.expect_useful(false);
  sectors.expect_useful();
  narrow.expect_useful();
}

// ---- check_shape --------------------------------------------------------------------------------------------------

template <class Shape>
void expect_rejected(const Shape& s, const std::string& fragment) {
  try {
    check_shape(s);
    ADD_FAILURE() << "accepted, expected: " << fragment;
  } catch (const std::invalid_argument& e) {
    const std::string m = e.what();
    EXPECT_EQ(m.rfind("quadrant: ", 0), 0u) << m;
    EXPECT_NE(m.find(fragment), std::string::npos) << m << " (expected " << fragment << ")";
  }
}

TYPED_TEST(RoundShapes, CheckShapeRejectsEveryInvalidField) {
  using S = TypeParam;
  const S nan = std::numeric_limits<S>::quiet_NaN(), inf = std::numeric_limits<S>::infinity();
  const S pi = std::numbers::pi_v<S>;
  const Circle<S> c{v2<S>(1, 2), 3};
  EXPECT_NO_THROW(check_shape(c));
  EXPECT_NO_THROW(check_shape(Circle<S>{v2<S>(1, 2), 0}));
  expect_rejected(Circle<S>{v2<S>(1, 2), -1}, "circle: radius is negative");
  expect_rejected(Circle<S>{v2<S>(1, 2), nan}, "circle: radius is NaN");
  expect_rejected(Circle<S>{v2<S>(1, 2), inf}, "circle: radius is infinite");
  expect_rejected(Circle<S>{Vec<2, S>{nan, 2}, 1}, "circle: center coordinate is NaN");
  expect_rejected(Circle<S>{Vec<2, S>{1, -inf}, 1}, "circle: center coordinate is infinite");
  EXPECT_NO_THROW(check_shape(Sphere<S>{{1, 2, 3}, 0}));
  expect_rejected(Sphere<S>{{1, 2, nan}, 1}, "sphere: center coordinate is NaN");
  expect_rejected(Sphere<S>{{1, 2, 3}, -0.5}, "sphere: radius is negative");
  expect_rejected(Sphere<S>{{1, 2, 3}, inf}, "sphere: radius is infinite");

  EXPECT_NO_THROW(check_shape(Ring<S>{v2<S>(0, 0), 0, 0}));
  EXPECT_NO_THROW(check_shape(Ring<S>{v2<S>(0, 0), 2, 2}));
  expect_rejected(Ring<S>{v2<S>(0, 0), 3, 2}, "ring: inner radius exceeds outer radius");
  expect_rejected(Ring<S>{v2<S>(0, 0), -1, 2}, "ring: inner radius is negative");
  expect_rejected(Ring<S>{v2<S>(0, 0), 1, nan}, "ring: outer radius is NaN");
  expect_rejected(Ring<S>{v2<S>(0, 0), 1, inf}, "ring: outer radius is infinite");
  expect_rejected(Ring<S>{Vec<2, S>{inf, 0}, 1, 2}, "ring: center coordinate is infinite");

  EXPECT_NO_THROW(check_shape(Ellipse<S>{v2<S>(0, 0), v2<S>(0, 0), 0}));
  EXPECT_NO_THROW(check_shape(Ellipse<S>{v2<S>(0, 0), v2<S>(3, 0), 100}));
  expect_rejected(Ellipse<S>{v2<S>(0, 0), v2<S>(-1, 1), 0}, "ellipse: x radius is negative");
  expect_rejected(Ellipse<S>{v2<S>(0, 0), v2<S>(1, -1), 0}, "ellipse: y radius is negative");
  expect_rejected(Ellipse<S>{v2<S>(0, 0), Vec<2, S>{1, nan}, 0}, "ellipse: y radius is NaN");
  expect_rejected(Ellipse<S>{v2<S>(0, 0), Vec<2, S>{inf, 1}, 0}, "ellipse: x radius is infinite");
  expect_rejected(Ellipse<S>{v2<S>(0, 0), v2<S>(1, 1), nan}, "ellipse: angle is NaN");
  expect_rejected(Ellipse<S>{v2<S>(0, 0), v2<S>(1, 1), inf}, "ellipse: angle is infinite");
  expect_rejected(Ellipse<S>{Vec<2, S>{0, nan}, v2<S>(1, 1), 0}, "ellipse: center coordinate is NaN");

  EXPECT_NO_THROW(check_shape(Sector<S>{v2<S>(0, 0), v2<S>(1e-30, 0), 0, 0}));
  EXPECT_NO_THROW(check_shape(Sector<S>{v2<S>(0, 0), v2<S>(-3, 4), 2, pi}));
  expect_rejected(Sector<S>{v2<S>(0, 0), v2<S>(0, 0), 1, 1}, "sector: direction is zero");
  expect_rejected(Sector<S>{v2<S>(0, 0), v2<S>(1, 0), 1, static_cast<S>(-0.1)},
                  "sector: half_angle is outside [0, pi]");
  expect_rejected(Sector<S>{v2<S>(0, 0), v2<S>(1, 0), 1, std::nextafter(pi, S{4})},
                  "sector: half_angle is outside [0, pi]");
  expect_rejected(Sector<S>{v2<S>(0, 0), v2<S>(1, 0), 1, nan}, "sector: half_angle is NaN");
  expect_rejected(Sector<S>{v2<S>(0, 0), v2<S>(1, 0), 1, inf}, "sector: half_angle is infinite");
  expect_rejected(Sector<S>{v2<S>(0, 0), v2<S>(1, 0), -1, 1}, "sector: radius is negative");
  expect_rejected(Sector<S>{v2<S>(0, 0), v2<S>(1, 0), nan, 1}, "sector: radius is NaN");
  expect_rejected(Sector<S>{v2<S>(0, 0), Vec<2, S>{inf, 0}, 1, 1}, "sector: direction coordinate is infinite");
  expect_rejected(Sector<S>{Vec<2, S>{nan, 0}, v2<S>(1, 0), 1, 1}, "sector: apex coordinate is NaN");
}

// ---- bounding boxes -----------------------------------------------------------------------------------------------

template <class S>
void expect_near_box(const Box<2, S>& got, double x0, double y0, double x1, double y1) {
  const double e = 1e-5;
  EXPECT_LE(double(got.min.x), x0);
  EXPECT_LE(double(got.min.y), y0);
  EXPECT_GE(double(got.max.x), x1);
  EXPECT_GE(double(got.max.y), y1);
  EXPECT_NEAR(double(got.min.x), x0, e);
  EXPECT_NEAR(double(got.min.y), y0, e);
  EXPECT_NEAR(double(got.max.x), x1, e);
  EXPECT_NEAR(double(got.max.y), y1, e);
}

// Points just outside each face of the bounding box (1 to 4 ulps out) are outside the shape.
template <class S, class Shape>
void expect_nothing_beyond(const Shape& shape, Rng& rng) {
  const Box<2, S> bb = bounding_box(shape);
  for (int k = 0; k < 40; ++k) {
    const int ulps = rng.integer(1, 4);
    const auto out = [&](S v, S dir) {
      for (int u = 0; u < ulps; ++u) v = std::nextafter(v, dir);
      return v;
    };
    const S x = static_cast<S>(bb.min.x + rng.real(0, 1) * (bb.max.x - bb.min.x));
    const S y = static_cast<S>(bb.min.y + rng.real(0, 1) * (bb.max.y - bb.min.y));
    const S big = std::numeric_limits<S>::max();
    for (const Vec<2, S> p : {Vec<2, S>{out(bb.min.x, -big), y}, Vec<2, S>{out(bb.max.x, big), y},
                              Vec<2, S>{x, out(bb.min.y, -big)}, Vec<2, S>{x, out(bb.max.y, big)}})
      EXPECT_FALSE(contains(shape, p)) << show(bb) << " " << double(p.x) << ", " << double(p.y);
  }
}

TYPED_TEST(RoundShapes, BoundingBoxesHoldTheShapeAndAreTight) {
  using S = TypeParam;
  const S pi = std::numbers::pi_v<S>;
  const double r2 = std::sqrt(2.0);
  expect_near_box(bounding_box(Circle<S>{v2<S>(1, 2), 3}), -2, -1, 4, 5);
  expect_near_box(bounding_box(Ring<S>{v2<S>(1, 2), 1, 3}), -2, -1, 4, 5);
  const Box<3, S> sb = bounding_box(Sphere<S>{{1, 2, 3}, 1});
  EXPECT_NEAR(double(sb.min.z), 2, 1e-5);
  EXPECT_NEAR(double(sb.max.z), 4, 1e-5);
  expect_near_box(bounding_box(Ellipse<S>{v2<S>(0, 0), v2<S>(4, 1), 0}), -4, -1, 4, 1);
  expect_near_box(bounding_box(Ellipse<S>{v2<S>(0, 0), v2<S>(4, 1), pi / 2}), -1, -4, 1, 4);
  expect_near_box(bounding_box(Ellipse<S>{v2<S>(0, 0), v2<S>(2, 0), pi / 4}), -r2, -r2, r2, r2);
  expect_near_box(bounding_box(Sector<S>{v2<S>(0, 0), v2<S>(1, 0), 2, pi / 4}), 0, -r2, 2, r2);
  expect_near_box(bounding_box(Sector<S>{v2<S>(0, 0), v2<S>(5, 0), 2, pi / 2}), 0, -2, 2, 2);
  expect_near_box(bounding_box(Sector<S>{v2<S>(0, 0), v2<S>(0, -1), 2, 0}), 0, -2, 0, 0);
  expect_near_box(bounding_box(Sector<S>{v2<S>(1, 1), v2<S>(1, 1), 2, pi}), -1, -1, 3, 3);

  Rng rng(7006);
  for (int i = 0; i < 300; ++i) {
    SCOPED_TRACE("shape " + std::to_string(i));
    const Circle<S> c = random_circle<S>(rng);
    const Ring<S> r = random_ring<S>(rng);
    const Ellipse<S> e = random_ellipse<S>(rng, i % 4 == 0);
    const Sector<S> s = random_sector<S>(rng);
    expect_nothing_beyond<S>(c, rng);
    expect_nothing_beyond<S>(r, rng);
    expect_nothing_beyond<S>(e, rng);
    expect_nothing_beyond<S>(s, rng);
    // Points sampled on each shape, rounded to S, lie in its box.
    const Box<2, S> cb = bounding_box(c), eb = bounding_box(e), sb2 = bounding_box(s);
    for (int k = 0; k < 50; ++k) {
      const double t = rng.real(0, 2 * kPiD), rho = std::sqrt(rng.real(0, 1));
      const double cr = c.radius * rho;
      const Vec<2, S> pc = v2<S>(c.center.x + cr * std::cos(t), c.center.y + cr * std::sin(t));
      EXPECT_TRUE(contains(cb, pc));
      const double ex = e.radii.x * rho * std::cos(t), ey = e.radii.y * rho * std::sin(t);
      const double ca = std::cos(double(e.angle)), sa = std::sin(double(e.angle));
      EXPECT_TRUE(contains(eb, v2<S>(e.center.x + ca * ex - sa * ey, e.center.y + sa * ex + ca * ey)));
      const double th = std::atan2(double(s.direction.y), double(s.direction.x)) + s.half_angle * rng.real(-1, 1);
      const Vec<2, S> ps = v2<S>(s.apex.x + s.radius * rho * std::cos(th), s.apex.y + s.radius * rho * std::sin(th));
      EXPECT_TRUE(contains(sb2, ps));
    }
  }
}

// ---- extreme magnitudes -------------------------------------------------------------------------------------------

TYPED_TEST(RoundShapes, HugeBoxesAndExtremeRadii) {
  using S = TypeParam;
  const S pi = std::numbers::pi_v<S>;
  const Box<2, S> all = box2<S>(-1e30, -1e30, 1e30, 1e30), far = box2<S>(1e29, 1e29, 1e30, 1e30);
  const Box<2, S> line = box2<S>(-1e30, 1, 1e30, 1);
  const auto check = [&](const auto& shape, const char* name) {
    SCOPED_TRACE(name);
    EXPECT_TRUE(overlaps(shape, all));
    EXPECT_EQ(classify(shape, all), Relation::Crossing);
    EXPECT_FALSE(overlaps(shape, far));
    EXPECT_EQ(classify(shape, far), Relation::Outside);
    EXPECT_TRUE(overlaps(shape, line));
    EXPECT_NE(classify(shape, line), Relation::Outside);
  };
  check(Circle<S>{v2<S>(0, 0), 3}, "circle");
  check(Ring<S>{v2<S>(0, 0), 1, 3}, "ring");
  check(Ellipse<S>{v2<S>(0, 0), v2<S>(3, 2), 0.3f}, "ellipse");
  check(Ellipse<S>{v2<S>(0, 0), v2<S>(3, 0), 1}, "flat ellipse");
  check(Sector<S>{v2<S>(0, 0), v2<S>(0, 1), 3, pi / 6}, "sector");
  check(Sector<S>{v2<S>(0, 0), v2<S>(0, 1), 3, 0}, "segment sector");
  check(Sector<S>{v2<S>(0, 0), v2<S>(1, 1), 3, 2}, "wide sector");
  const Box<3, S> all3{{-1e30f, -1e30f, -1e30f}, {1e30f, 1e30f, 1e30f}};
  EXPECT_TRUE(overlaps(Sphere<S>{{0, 0, 0}, 1}, all3));
  EXPECT_EQ(classify(Sphere<S>{{0, 0, 0}, 1}, all3), Relation::Crossing);

  // Radii whose square underflows or overflows S.
  const S tiny = static_cast<S>(1e-30), huge = static_cast<S>(1e30);
  const S below = static_cast<S>(0.9), above = static_cast<S>(1.1);
  const Circle<S> small{v2<S>(0, 0), tiny}, big{v2<S>(0, 0), huge};
  EXPECT_TRUE(overlaps(small, Box<2, S>{Vec<2, S>{tiny * below, 0}, v2<S>(1, 1)}));
  EXPECT_FALSE(overlaps(small, Box<2, S>{Vec<2, S>{tiny * above, 0}, v2<S>(1, 1)}));
  EXPECT_TRUE(overlaps(big, Box<2, S>{Vec<2, S>{huge * below, 0}, v2<S>(1e31, 1)}));
  EXPECT_FALSE(overlaps(big, Box<2, S>{Vec<2, S>{huge * above, 0}, v2<S>(1e31, 1)}));
  EXPECT_EQ(classify(Circle<S>{v2<S>(0, 0), huge}, box2<S>(-1e29, -1e29, 1e29, 1e29)), Relation::Inside);
  const S sub = std::numeric_limits<S>::denorm_min();
  EXPECT_FALSE(overlaps(Circle<S>{v2<S>(0, 0), 0}, Box<2, S>{Vec<2, S>{sub, 0}, v2<S>(1, 1)}));
  EXPECT_TRUE(overlaps(Circle<S>{v2<S>(0, 0), sub}, Box<2, S>{Vec<2, S>{sub, 0}, v2<S>(1, 1)}));
  EXPECT_FALSE(overlaps(Ring<S>{v2<S>(0, 0), tiny, tiny}, Box<2, S>{v2<S>(0, 0), Vec<2, S>{tiny / 2, tiny / 2}}));
  EXPECT_TRUE(overlaps(Circle<S>{v2<S>(0, 0), huge}, Circle<S>{Vec<2, S>{huge * 2, 0}, huge}));
  EXPECT_FALSE(overlaps(Circle<S>{v2<S>(0, 0), tiny}, Circle<S>{Vec<2, S>{tiny * S{2.5}, 0}, tiny}));
  const Ellipse<S> needle{v2<S>(0, 0), Vec<2, S>{huge, tiny}, 0}, hair{v2<S>(0, 0), Vec<2, S>{1, tiny}, 0};
  EXPECT_TRUE(overlaps(needle, Box<2, S>{Vec<2, S>{huge / 2, 0}, Vec<2, S>{huge, tiny / 2}}));
  EXPECT_FALSE(overlaps(needle, Box<2, S>{Vec<2, S>{0, tiny * 2}, Vec<2, S>{huge, huge}}));
  EXPECT_TRUE(overlaps(hair, Box<2, S>{Vec<2, S>{0.5, tiny / 2}, Vec<2, S>{1, 1}}));
  EXPECT_FALSE(overlaps(hair, Box<2, S>{Vec<2, S>{0.5, tiny}, Vec<2, S>{1, 1}}));  // 0.25 + 1 > 1

  // Every answer is unchanged when the whole scene is scaled by a power of two, far into both ends of the range.
  Rng rng(7007);
  const int shifts[] = {std::is_same_v<S, float> ? 60 : 400, std::is_same_v<S, float> ? -60 : -400};
  for (int i = 0; i < 2000; ++i) {
    SCOPED_TRACE("case " + std::to_string(i));
    const int e = shifts[i % 2];
    const auto sc = [&](S v) { return std::ldexp(v, e); };
    const auto sv = [&](Vec<2, S> v) { return Vec<2, S>{sc(v.x), sc(v.y)}; };
    const Box<2, S> b = random_box<2, S>(rng, -50, 50, 40), bs{sv(b.min), sv(b.max)};
    const Circle<S> c = random_circle<S>(rng);
    const Ring<S> r = random_ring<S>(rng);
    const Ellipse<S> el = random_ellipse<S>(rng, i % 5 == 0);
    const Sector<S> s = random_sector<S>(rng);
    const Circle<S> cs{sv(c.center), sc(c.radius)};
    const Ring<S> rs{sv(r.center), sc(r.inner), sc(r.outer)};
    const Ellipse<S> es{sv(el.center), sv(el.radii), el.angle};
    const Sector<S> ss{sv(s.apex), s.direction, sc(s.radius), s.half_angle};
    EXPECT_EQ(overlaps(cs, bs), overlaps(c, b));
    EXPECT_EQ(classify(cs, bs), classify(c, b));
    EXPECT_EQ(overlaps(rs, bs), overlaps(r, b));
    EXPECT_EQ(classify(rs, bs), classify(r, b));
    EXPECT_EQ(overlaps(es, bs), overlaps(el, b));
    EXPECT_EQ(overlaps(ss, bs), overlaps(s, b));
    const Circle<S> d = random_circle<S>(rng);
    EXPECT_EQ(overlaps(cs, Circle<S>{sv(d.center), sc(d.radius)}), overlaps(c, d));
  }
}

// ---- near the largest finite value --------------------------------------------------------------------------------

// The reported case: an ellipse<double> whose radii are near the largest double, turned by 45 degrees. Its frame
// coordinates (c x + s y) overflowed; classify then took the infinite margin for room and answered Inside for its
// own bounding box, whose corners overlaps rightly rejects (they lie sqrt(2) radii from the center). Mixed
// magnitudes too: a huge center with small radii, a small center with huge radii.
TEST(RoundShapesExtreme, EllipseNearLargestDoubleIsConsistent) {
  const double big = std::numeric_limits<double>::max();
  const double quarter = kPiD / 4;
  const auto corners = [](const Box<2, double>& n) {
    return std::array<Box<2, double>, 4>{Box<2, double>{n.min, n.min}, Box<2, double>{n.max, n.max},
                                         Box<2, double>{{n.min.x, n.max.y}, {n.min.x, n.max.y}},
                                         Box<2, double>{{n.max.x, n.min.y}, {n.max.x, n.min.y}}};
  };
  // classify against node, overlaps against the node and its corners and a few boxes inside it.
  const auto consistent = [&](const Ellipse<double>& e, const Box<2, double>& node) {
    SCOPED_TRACE(show(e) + " node " + show(node));
    const Relation rel = classify(e, node);
    if (rel == Relation::Crossing) return;
    const bool want = rel == Relation::Inside;
    EXPECT_EQ(overlaps(e, node), want);
    for (const Box<2, double>& c : corners(node)) EXPECT_EQ(overlaps(e, c), want) << show(c);
    Rng rng(7011);
    for (int k = 0; k < 50; ++k) {
      const Box<2, double> b = sub_box(rng, node);
      EXPECT_EQ(overlaps(e, b), want) << show(b);
    }
  };
  for (const double r : {0.85 * big, 0.75 * big, big, big / 2}) {
    const Ellipse<double> e{{0, 0}, {r, r}, quarter};
    const Box<2, double> bb = bounding_box(e);
    EXPECT_NE(classify(e, bb), Relation::Inside) << show(e);  // its corners are outside
    consistent(e, bb);
    for (const Box<2, double>& c : corners(bb)) {
      EXPECT_FALSE(overlaps(e, c)) << show(e) << " " << show(c);
      EXPECT_EQ(classify(e, c), Relation::Outside) << show(e) << " " << show(c);
    }
    // The inscribed square (half side r / sqrt 2, shrunk a little) is inside; the point at the rim is hit.
    const double h = r * 0.7071;
    const Box<2, double> in{{-h, -h}, {h, h}};
    EXPECT_TRUE(overlaps(e, in));
    EXPECT_EQ(classify(e, in), Relation::Inside) << show(e);
    consistent(e, in);
    EXPECT_TRUE(contains(e, Vec<2, double>{r * 0.99999 * 0.7071, r * 0.99999 * 0.7071}));
    EXPECT_FALSE(contains(e, Vec<2, double>{r * 1.00001 * 0.7072, r * 1.00001 * 0.7072}));
  }
  // Small center, huge and unequal radii, turned.
  for (const double a : {0.3, quarter, 1.2, -2.5}) {
    const Ellipse<double> e{{1, -2}, {big, big / 3}, a};
    consistent(e, bounding_box(e));
    consistent(e, Box<2, double>{{-big, -big}, {big, big}});
    consistent(e, Box<2, double>{{0, 0}, {big, big}});
    consistent(e, Box<2, double>{{-big / 8, -big / 8}, {big / 8, big / 8}});
    EXPECT_EQ(classify(e, Box<2, double>{{-big / 8, -big / 8}, {big / 8, big / 8}}), Relation::Inside);
    EXPECT_FALSE(overlaps(e, Box<2, double>{{big, big}, {big, big}}));
    EXPECT_FALSE(overlaps(e, Box<2, double>{{-big, big}, {-big, big}}));
  }
  // Huge center, small radii: answers exact to the spacing of doubles there.
  for (const double c : {big, 0.9 * big, -big / 2}) {
    const Ellipse<double> e{{c, -c}, {3, 1}, 0.5};
    const double in = std::nextafter(c, 0.0);  // one double off, towards 0
    EXPECT_TRUE(overlaps(e, Box<2, double>{{c, -c}, {c, -c}}));
    EXPECT_FALSE(overlaps(e, Box<2, double>{{in, -c}, {in, -c}}));
    EXPECT_FALSE(overlaps(e, Box<2, double>{{c, -in}, {c, -in}}));
    EXPECT_TRUE(overlaps(e, Box<2, double>{{in, -c}, {c, -c}}));
    EXPECT_EQ(classify(e, Box<2, double>{{in, -c}, {in, -c}}), Relation::Outside);
    EXPECT_EQ(classify(e, Box<2, double>{{c, -c}, {c, -c}}), Relation::Inside);
    consistent(e, bounding_box(e));
    consistent(e, Box<2, double>{{std::min(in, c), -c}, {std::max(in, c), -c}});
    consistent(e, Box<2, double>{{-big, -big}, {big, big}});
  }
}

// Siblings of the case above. A needle thinner than the rounding of its length (radii ratio beyond about 1e15, at
// ordinary magnitudes, float too) missed boxes it crosses: the box was scaled onto the unit disc whole, and the huge
// quotients overflowed or rounded the crossing away. A center plus a radius beyond the largest double made the
// bounding box's rounding margin infinite, so the box was the whole plane and the differences overflowed.
template <class S>
void expect_needles_hit() {
  const double a = 0.3, c = std::cos(a), s = std::sin(a);
  for (const double thin : {1e-12, 1e-20, 1e-30, 1e-37, 1e-200, 1e-300}) {
    const S ry = static_cast<S>(thin);
    if (ry == 0) continue;  // below float's range
    const Ellipse<S> e{v2<S>(0, 0), Vec<2, S>{1, ry}, static_cast<S>(a)};
    SCOPED_TRACE(show(e));
    // Boxes across the needle at 0.6 of its length, of several sizes: every one is hit.
    for (const double h : {1e-3, 1e-6, 0.3}) {
      const Box<2, S> b = box2<S>(0.6 * c - h, 0.6 * s - h, 0.6 * c + h, 0.6 * s + h);
      EXPECT_TRUE(overlaps(e, b)) << show(b);
      EXPECT_NE(classify(e, b), Relation::Outside) << show(b);
    }
    // Beyond its end, or off to one side by far more than its width: missed.
    EXPECT_FALSE(overlaps(e, box2<S>(1.2 * c - 1e-3, 1.2 * s - 1e-3, 1.2 * c + 1e-3, 1.2 * s + 1e-3)));
    EXPECT_FALSE(overlaps(e, box2<S>(0.6 * c - s * 1e-2, 0.6 * s + c * 1e-2, 0.6 * c, 0.6 * s + c * 2e-2)));
  }
}
TEST(RoundShapesExtreme, NeedlesAndHugeCenters) {
  expect_needles_hit<float>();
  expect_needles_hit<double>();
  const double big = std::numeric_limits<double>::max();
  // center + radius beyond the largest double: the box reaching to 1.3e308 lies 4.7e307 short of the ellipse.
  const Ellipse<double> e{{big, -8.3238917689171537}, {2.8754481991339374e+306, 6.6737427467398899e+305},
                          -4.4689926057582579};
  const Box<2, double> b{{-1.4976007782496764e+308, -3.1400392786019952e+306},
                         {1.3002220099571815e+308, 1.7024539269891876e+308}};
  EXPECT_FALSE(overlaps(e, b));
  EXPECT_NE(classify(e, b), Relation::Inside);
  // The bounding boxes stay tight there (they were the whole axis).
  EXPECT_GT(bounding_box(e).min.x, 0.9 * big);
  EXPECT_GT(bounding_box(Circle<double>{{big, 0}, 1e306}).min.x, 0.9 * big);
  EXPECT_GT(bounding_box(Sector<double>{{big, 0}, {-1, 0}, 1e306, 0.5}).min.x, 0.9 * big);
  EXPECT_LT(bounding_box(Ring<double>{{-big, 0}, 1, 1e306}).max.x, -0.9 * big);
  // A small ellipse far from the origin: a box holding its center is hit, whatever the frame's rounding.
  const Ellipse<double> small{{1e40, 1e40}, {1, 1}, 0.3};
  EXPECT_TRUE(overlaps(small, Box<2, double>{{1e40, 1e40 - 4e24}, {1e40 + 4e24, 1e40 + 4e24}}));
  EXPECT_TRUE(overlaps(small, Box<2, double>{{1e40 - 4e24, 1e40 - 4e24}, {1e40, 1e40}}));
  EXPECT_FALSE(overlaps(small, Box<2, double>{{std::nextafter(1e40, big), 1e40}, {1e40 + 4e24, 1e40}}));
}

// The open findings of fuzz_shapes (fuzz/open/shapes): a needle 1e-3 wide and 4.5e307 long, and a node of (nearly)
// zero width outside it, at small magnitudes. classify rightly said Outside; overlaps said hit: in the unit-disc
// frame the node's long axis coordinates were near underflow, and the polygon's inside test, by the signs of its
// edges' cross products, saw one sign by rounding alone.
TEST(RoundShapesExtreme, FlatNodesBesideHugeNeedles) {
  struct Case {
    Ellipse<double> e;
    Box<2, double> node;
  };
  const Case cases[] = {
      {{{-0.001, 0.00075000000000000002}, {0.001, 4.4942328371557893e+307}, 6.9999991725763806},
       {{-0.001, -0.001}, {-0.00099999999999999287, -0.00099998683555526042}}},
      {{{-0.001, 0.00075000000000000002}, {0.001, 4.4942328371557893e+307}, 6.999999172578022},
       {{-0.001, -0.001}, {-0.00099999999999993605, -0.00099999999999998544808}}},
      {{{0.001, -0.001}, {4.4942328371557893e+307, 0.00075000000000000002}, 3.609375},
       {{-0.001, -0.001}, {-0.00099987792968750009, -0.00099999999999997205}}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(show(c.e) + " node " + show(c.node));
    EXPECT_EQ(classify(c.e, c.node), Relation::Outside);
    EXPECT_FALSE(overlaps(c.e, c.node));
    EXPECT_FALSE(overlaps(c.e, Box<2, double>{c.node.min, c.node.min}));
    EXPECT_FALSE(overlaps(detail::prepare(c.e), c.node));
  }
  // The same needle, boxes across it near its center and far along it: hit.
  const Ellipse<double> e = cases[0].e;
  const double a = e.angle, ux = -std::sin(a), uy = std::cos(a);  // the long axis
  for (const double t : {0.0, 1.0, 1e100, 1e300, 4e307}) {
    const double x = e.center.x + t * ux, y = e.center.y + t * uy, h = std::max(1e-9, std::abs(t) * 1e-12);
    EXPECT_TRUE(overlaps(e, Box<2, double>{{x - h, y - h}, {x + h, y + h}})) << t;
  }
}

// A reference for overlaps at any magnitude: the problem goes to long double, moved so the shape's center is the
// origin; the box is clipped to the square center +- 2 reach (the shape lies within reach of its center, so a box
// beyond the square misses it, and clipping keeps all of the box the shape could meet) and everything is scaled by
// 2^-e (exact) so that reach is about 1. The oracles above then decide, with a band relative to reach.
int scale_exponent(LD reach) {
  return reach > 0 ? std::ilogb(reach) : 0;
}
template <int D, class S>
bool local_box(const Box<D, S>& b, const Vec<D, S>& c, LD reach, int e, Box<D, LD>& out) {
  const LD lim = 2 * reach;
  for (int i = 0; i < D; ++i) {
    const LD lo = LD(b.min[i]) - LD(c[i]), hi = LD(b.max[i]) - LD(c[i]);
    if (lo > lim || hi < -lim) return false;
    out.min[i] = std::ldexp(std::clamp(lo, -lim, lim), -e);
    out.max[i] = std::ldexp(std::clamp(hi, -lim, lim), -e);
  }
  return true;
}
template <class S>
Verdict reference(const Circle<S>& c, const Box<2, S>& b, LD band) {
  const int e = scale_exponent(c.radius);
  Box<2, LD> lb;
  if (!local_box(b, c.center, c.radius, e, lb)) return Verdict::No;
  return within(nearest(Vec<2, LD>{0, 0}, lb), std::ldexp(LD(c.radius), -e), band);
}
template <class S>
Verdict reference(const Sphere<S>& s, const Box<3, S>& b, LD band) {
  const int e = scale_exponent(s.radius);
  Box<3, LD> lb;
  if (!local_box(b, s.center, s.radius, e, lb)) return Verdict::No;
  return within(nearest(Vec<3, LD>{0, 0, 0}, lb), std::ldexp(LD(s.radius), -e), band);
}
template <class S>
Verdict reference(const Ring<S>& r, const Box<2, S>& b, LD band) {
  const int e = scale_exponent(r.outer);
  Box<2, LD> lb;
  if (!local_box(b, r.center, r.outer, e, lb)) return Verdict::No;
  return ring_oracle(Ring<LD>{{0, 0}, std::ldexp(LD(r.inner), -e), std::ldexp(LD(r.outer), -e)}, lb, band);
}
template <class S>
Verdict reference(const Ellipse<S>& el, const Box<2, S>& b, LD band) {
  const LD reach = std::max<LD>(el.radii.x, el.radii.y);
  const int e = scale_exponent(reach);
  Box<2, LD> lb;
  if (!local_box(b, el.center, reach, e, lb)) return Verdict::No;
  Ellipse<LD> local{{0, 0}, {std::ldexp(LD(el.radii.x), -e), std::ldexp(LD(el.radii.y), -e)}, LD(el.angle)};
  LD& thin = local.radii.x < local.radii.y ? local.radii.x : local.radii.y;
  // The ellipse computes in double: near subnormal numbers its frame coordinates round by a few times the smallest
  // double, which the band must cover too (relative to the smaller radius, or to reach for a segment).
  const LD grain = 256 * LD(std::numeric_limits<double>::denorm_min());
  if (thin < band * 0x1p-20L) thin = 0;  // a needle far thinner than the band is its major axis, a segment
  return ellipse_oracle(local, lb, std::max(band, grain / (thin > 0 ? std::ldexp(thin, e) : std::max(reach, grain))));
}
template <class S>
Verdict reference(const Sector<S>& s, const Box<2, S>& b, LD band) {
  const int e = scale_exponent(s.radius);
  Box<2, LD> lb;
  if (!local_box(b, s.apex, s.radius, e, lb)) return Verdict::No;
  const LD half = s.half_angle >= std::numbers::pi_v<S> ? kPi : LD(s.half_angle);
  const Sector<LD> local{{0, 0}, {LD(s.direction.x), LD(s.direction.y)}, std::ldexp(LD(s.radius), -e), half};
  return sector_oracle(local, lb, band);
}

template <class S>
S to_scalar(LD v) {
  const LD big = std::numeric_limits<S>::max();
  return static_cast<S>(std::clamp(v, -big, big));
}

// A length at one of several magnitudes: up to the largest finite value, up to half of it, within 2^60 of it,
// ordinary, from 2^-60 to 2^60, tiny (down to subnormal), zero, or the largest.
template <class S>
LD extreme_length(Rng& r) {
  using L = std::numeric_limits<S>;
  const LD big = L::max();
  switch (r.integer(0, 6)) {
    case 0: return big * LD(r.real(0, 1));
    case 1: return big / 2 * LD(r.real(0, 1));
    case 2: return std::min(big, std::ldexp(LD(r.real(0.5, 1)), L::max_exponent - r.integer(0, 60)));
    case 3: return LD(r.real(0.5, 30));
    case 4: return std::ldexp(LD(r.real(0.5, 1)), r.integer(-60, 60));
    case 5: return LD(to_scalar<S>(std::ldexp(LD(r.real(0.5, 1)), L::min_exponent - r.integer(-60, 20))));
    default: return r.chance(0.5) ? 0 : big;
  }
}
template <class S>
LD extreme_coordinate(Rng& r) {
  return (r.chance(0.5) ? 1 : -1) * extreme_length<S>(r);
}

// Nodes around a shape at an extreme magnitude (center c, every point within reach of it), some of them spanning
// every finite value, a third centered on a boundary point found by bisection; classify must agree with overlaps for
// the node and boxes inside it, and overlaps with the reference.
template <int D, class S, class Shape>
void check_extreme(const Shape& shape, const std::array<LD, D>& c, LD reach, const Vec<D, S>& in, LD band, Rng& rng,
                   Relations& count, Tally& tally) {
  const LD big = std::numeric_limits<S>::max(), scale = reach > 0 ? reach : 1;
  SCOPED_TRACE(show(shape));
  for (int n = 0; n < 24; ++n) {
    std::array<LD, D> lo, hi;
    if (n % 8 == 7) {  // anywhere
      for (int i = 0; i < D; ++i) {
        LD a = big * LD(rng.real(-1, 1)), b = rng.chance(0.3) ? a : big * LD(rng.real(-1, 1));
        lo[i] = std::min(a, b), hi[i] = std::max(a, b);
      }
    } else {
      std::array<LD, D> center;
      for (int i = 0; i < D; ++i) center[i] = c[i] + scale * LD(rng.real(-1.3, 1.3));
      LD size = scale * std::pow(10.0L, LD(rng.real(-4, 0.3)));
      Vec<D, S> out;
      for (int i = 0; i < D; ++i) out[i] = to_scalar<S>(center[i]);
      if (n % 3 == 0 && contains(shape, in) && !contains(shape, out)) {  // bisect to the boundary
        std::array<LD, D> a, b;
        for (int i = 0; i < D; ++i) a[i] = in[i], b[i] = out[i];
        for (int it = 0; it < 80; ++it) {
          Vec<D, S> mid;
          for (int i = 0; i < D; ++i) mid[i] = to_scalar<S>((a[i] + b[i]) / 2);
          const bool hit = contains(shape, mid);
          for (int i = 0; i < D; ++i) (hit ? a[i] : b[i]) = (a[i] + b[i]) / 2;
        }
        center = a;
        size = scale * std::pow(10.0L, LD(rng.real(-12, -2)));
      }
      for (int i = 0; i < D; ++i) {
        lo[i] = center[i] - size * LD(rng.real(0, 1));
        hi[i] = rng.chance(0.1) ? lo[i] : center[i] + size * LD(rng.real(0, 1));
      }
    }
    Box<D, S> node;
    for (int i = 0; i < D; ++i) {
      node.min[i] = to_scalar<S>(lo[i]);
      node.max[i] = std::max(node.min[i], to_scalar<S>(hi[i]));
    }
    const Relation rel = classify(shape, node);
    tally.add(reference(shape, node, band), shape, node);
    std::array<Box<D, S>, 12> subs;
    for (Box<D, S>& b : subs) {
      for (int i = 0; i < D; ++i) {
        const auto pick = [&] {
          const LD v = LD(node.min[i]) + LD(rng.real(0, 1)) * (LD(node.max[i]) - LD(node.min[i]));
          return std::clamp(to_scalar<S>(v), node.min[i], node.max[i]);
        };
        S a = rng.chance(0.3) ? node.min[i] : pick(), d = rng.chance(0.3) ? node.max[i] : pick();
        if (rng.chance(0.15)) d = a;
        b.min[i] = std::min(a, d), b.max[i] = std::max(a, d);
      }
      tally.add(reference(shape, b, band), shape, b);
    }
    if (rel == Relation::Crossing) {
      ++count.crossing;
      continue;
    }
    ++(rel == Relation::Inside ? count.inside : count.outside);
    const bool want = rel == Relation::Inside;
    EXPECT_EQ(overlaps(shape, node), want) << "node " << show(node);
    for (const Box<D, S>& b : subs) EXPECT_EQ(overlaps(shape, b), want) << "node " << show(node) << " " << show(b);
  }
}

TYPED_TEST(RoundShapes, ExtremeMagnitudesAreConsistentAndExact) {
  using S = TypeParam;
  using A2 = std::array<LD, 2>;
  if (std::numeric_limits<LD>::max_exponent <= 2 * std::numeric_limits<S>::max_exponent)
    GTEST_SKIP() << "the reference squares coordinates near the largest S: it needs a wider long double";
  const LD fine = 1e-9L, band = tol<S>();
  const S pi = std::numbers::pi_v<S>;
  Rng rng(7012);
  Relations circles, spheres, rings, ellipses, sectors;
  Tally circle{"circle"}, sphere{"sphere"}, ring{"ring"}, ellipse{"ellipse"}, sector{"sector"};
  const auto len = [&] { return extreme_length<S>(rng); };
  const auto pos = [&] { return extreme_coordinate<S>(rng); };
  for (int i = 0; i < 300; ++i) {
    SCOPED_TRACE("shape " + std::to_string(i));
    {
      const Circle<S> c{{to_scalar<S>(pos()), to_scalar<S>(pos())}, to_scalar<S>(len())};
      check_extreme<2, S>(c, A2{c.center.x, c.center.y}, c.radius, c.center, band, rng, circles, circle);
    }
    {
      const Sphere<S> s{{to_scalar<S>(pos()), to_scalar<S>(pos()), to_scalar<S>(pos())}, to_scalar<S>(len())};
      check_extreme<3, S>(s, std::array<LD, 3>{s.center.x, s.center.y, s.center.z}, s.radius, s.center, band, rng,
                          spheres, sphere);
    }
    {
      const S outer = to_scalar<S>(len()), inner = rng.chance(0.2) ? S{0} : to_scalar<S>(outer * rng.real(0, 1));
      const Ring<S> r{{to_scalar<S>(pos()), to_scalar<S>(pos())}, std::min(inner, outer), outer};
      const LD mid = (LD(r.inner) + LD(r.outer)) / 2;
      const Vec<2, S> in{to_scalar<S>(r.center.x + mid), r.center.y};
      check_extreme<2, S>(r, A2{r.center.x, r.center.y}, r.outer, in, band, rng, rings, ring);
    }
    {
      LD rx = len(), ry = rx / LD(rng.real(1, 8));
      if (rng.chance(0.2)) ry = rx * std::ldexp(1.0L, -rng.integer(0, 30));
      if (rng.chance(0.1)) ry = 0;
      if (rng.chance(0.15)) ry = len();  // any ratio: needles thinner than a rounding of the other radius
      if (rng.chance(0.5)) std::swap(rx, ry);
      const Ellipse<S> e{{to_scalar<S>(pos()), to_scalar<S>(pos())}, {to_scalar<S>(rx), to_scalar<S>(ry)},
                         static_cast<S>(rng.real(-7, 7))};
      check_extreme<2, S>(e, A2{e.center.x, e.center.y}, std::max(e.radii.x, e.radii.y), e.center, fine, rng,
                          ellipses, ellipse);
    }
    {
      const double a = rng.real(-kPiD, kPiD);
      const int kind = rng.integer(0, 9);
      const S half =
          kind == 0 ? S{0} : kind == 1 ? pi / 2 : kind == 2 ? pi : static_cast<S>(rng.real(0.05, kPiD - 0.05));
      LD dl = std::ldexp(1.0L, rng.integer(-60, 60));
      if (rng.chance(0.2)) dl = LD(std::numeric_limits<S>::max()) * LD(rng.real(0.5, 1));
      Vec<2, S> dir{to_scalar<S>(dl * std::cos(LD(a))), to_scalar<S>(dl * std::sin(LD(a)))};
      if (dir.x == 0 && dir.y == 0) dir.x = 1;
      const Sector<S> s{{to_scalar<S>(pos()), to_scalar<S>(pos())}, dir, to_scalar<S>(len()), half};
      const LD k = LD(s.radius) / (2 * std::hypot(LD(dir.x), LD(dir.y)));
      const Vec<2, S> in{to_scalar<S>(s.apex.x + k * dir.x), to_scalar<S>(s.apex.y + k * dir.y)};
      check_extreme<2, S>(s, A2{s.apex.x, s.apex.y}, s.radius, in, half >= pi ? band : fine, rng, sectors, sector);
    }
  }
  // Most cases are decided (the rest touch the shape within the band, or a zero radius), both ways often; nodes are
  // often Inside and Outside.
  for (const Tally* t : {&circle, &sphere, &ring, &ellipse, &sector}) {
    EXPECT_GE(t->decided, t->total * 7 / 10) << t->name << ": " << t->decided << " of " << t->total << " decided";
    EXPECT_GE(t->yes, t->decided / 10) << t->name;
    EXPECT_LE(t->yes, t->decided * 9 / 10) << t->name;
  }
  for (const Relations* r : {&circles, &spheres, &rings, &ellipses, &sectors}) r->expect_useful();
}

}  // namespace

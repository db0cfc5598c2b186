// SPDX-License-Identifier: MIT
// quadrant — Frustum: the view volume of a camera, from its view-projection matrix, as a 3D query shape.
//
// The six planes come from the rows of the matrix (Gribb & Hartmann): a world point p is visible when its clip
// coordinates c = M (p, 1) satisfy -c.w <= c.x, c.y <= c.w and the depth range of the convention (-c.w <= c.z <= c.w
// for OpenGL, 0 <= c.z <= c.w for Direct3D/Vulkan); each inequality is linear in p, a plane. A box is tested
// against each plane with its "positive vertex" (the corner farthest along the plane normal), which is monotone
// in the box's coordinates, so classify and overlaps agree exactly.
//
// Threads: every function here is pure; call it from any thread.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

#include "box.hpp"
#include "numeric.hpp"

namespace quadrant {

/// The clip-space depth range of a projection: OpenGL's [-1, 1] or Direct3D / Vulkan / Metal's [0, 1].
enum class ClipDepth { MinusOneToOne, ZeroToOne };

/// Where the 16 numbers of a view-projection matrix put its elements. The matrix M is the one that maps column
/// vectors, clip = M (x, y, z, 1); its element (row r, column c) sits at index 4c + r (ColumnMajor: OpenGL, glm,
/// Unity's Matrix4x4) or 4r + c (RowMajor: a C array m[4][4] of that M). A library that multiplies row vectors
/// (v M', as DirectXMath does) stores M' = M transposed row by row, which is ColumnMajor here.
enum class MatrixLayout { ColumnMajor, RowMajor };

/// A plane; the inside (closed) half-space is dot(normal, x) + offset >= 0. Frustum planes have unit normals, or
/// a zero normal and offset 1 for a plane at infinity (always inside).
template <class S = float>
struct Plane {
  Vec<3, S> normal;  ///< unit length, pointing into the frustum (or zero: a plane at infinity)
  S offset;          ///< signed distance of the origin to the plane along the normal
};

/// A camera's view volume: the intersection of six closed half-spaces (left, right, bottom, top, near, far), plus
/// the box of its eight corners to cut the false positives of plane tests.
///
/// Conservative near edges: overlaps(frustum, box) is false exactly when one plane has the whole box on its outer
/// side or the box misses the corners' box (the frustum's extent along x, y and z). A box that is outside the
/// frustum yet reaches inside every plane and meets the corners' box is still reported. That happens only where
/// the box wraps around an edge of the frustum, so that the only axes separating them are made from edge
/// directions (or are a face normal on the side where the frustum ends in an edge), e.g. a box beside the lower
/// left edge of a camera turned away from the world axes. A box that really meets the frustum is never missed.
template <class S = float>
class Frustum {
 public:
  /// Bits of the plane mask of classify(frustum, node, mask): bit i (0..5) for plane i in planes() order, bit 6
  /// for the corners' bounding box.
  static constexpr std::uint32_t all_tests = 0x7f;

  /// The frustum of a view-projection matrix given column-major (OpenGL / glm layout: element (row r, column c) at
  /// index 4c + r; the translation is at 12, 13, 14) and its clip depth convention. Planes are extracted and
  /// normalised in double. Throws std::invalid_argument ("quadrant: frustum: ...") for a NaN or infinite entry, a
  /// singular matrix (|det| <= epsilon of S times the product of its column lengths), or a plane with a zero normal
  /// and the origin outside it. A plane whose normal cancels to within 64 ulps of the matrix entries it is made
  /// from, with a positive offset, is a plane at infinity (an infinite far plane; the depth-0 plane of reversed
  /// depth) and is kept as normal 0, offset 1: it always passes, which can only add boxes, never lose one. O(1).
  ///
  /// A matrix whose view volume passes through infinity (its clip-space corners unproject on both sides of the
  /// plane at infinity: the region is not a camera's) also throws; a transposed camera matrix usually does this,
  /// so the message says to check the layout.
  static Frustum from_view_projection(const std::array<S, 16>& column_major,
                                      ClipDepth depth = ClipDepth::MinusOneToOne) {
    return from_view_projection(column_major.data(), MatrixLayout::ColumnMajor, depth);
  }
  /// The same from 16 numbers at `matrix` laid out as `layout` says (e.g. `&m[0][0]` of a float m[4][4], or a
  /// math library's data pointer). Throws std::invalid_argument for a null pointer or an unknown layout, and as
  /// above.
  static Frustum from_view_projection(const S* matrix, MatrixLayout layout,
                                      ClipDepth depth = ClipDepth::MinusOneToOne);

  /// The planes in the order of the clip inequalities: left (-w <= x), right (x <= w), bottom, top, near (the low
  /// depth bound, -w <= z or 0 <= z; with reversed depth this is the far one) and far (z <= w).
  const std::array<Plane<S>, 6>& planes() const noexcept { return planes_; }
  /// True when all eight corners are finite points: no plane at infinity, and every corner unprojects with a
  /// homogeneous w of the same sign (none at or beyond infinity).
  bool has_corners() const noexcept { return has_corners_; }
  /// The corners (meaningful when has_corners()): index bit 0 picks x = +1 in clip space, bit 1 y = +1, bit 2 the
  /// far depth (else near). Computed through the inverse matrix in double.
  const std::array<Vec<3, S>, 8>& corners() const noexcept { return corners_; }
  /// The box of the corners, widened by max(16 epsilon of S, 1e-10) times its largest extent or coordinate and an
  /// ulp, so it holds the frustum despite rounding; (-inf, +inf) on every axis when !has_corners().
  const Box<3, S>& corner_bounds() const noexcept { return bounds_; }

 private:
  Frustum() = default;
  std::array<Plane<S>, 6> planes_{};
  std::array<Vec<3, S>, 8> corners_{};
  Box<3, S> bounds_{};
  bool has_corners_ = false;
};

namespace detail {

[[noreturn]] inline void frustum_error(const std::string& defect) {
  throw std::invalid_argument("quadrant: frustum: " + defect);
}

/// Inverts the 4x4 row-major matrix a in place by Gauss-Jordan elimination with partial pivoting; returns the
/// determinant (0 when a pivot vanishes, a is then unspecified).
inline double invert4(std::array<std::array<double, 4>, 4>& a) noexcept {
  std::array<std::array<double, 4>, 4> inv{};
  for (int i = 0; i < 4; ++i) inv[i][i] = 1;
  double det = 1;
  for (int c = 0; c < 4; ++c) {
    int p = c;
    for (int r = c + 1; r < 4; ++r)
      if (std::abs(a[r][c]) > std::abs(a[p][c])) p = r;
    if (a[p][c] == 0) return 0;
    if (p != c) {
      std::swap(a[p], a[c]);
      std::swap(inv[p], inv[c]);
      det = -det;
    }
    const double pivot = a[c][c];
    det *= pivot;
    for (int k = 0; k < 4; ++k) {
      a[c][k] /= pivot;
      inv[c][k] /= pivot;
    }
    for (int r = 0; r < 4; ++r) {
      if (r == c || a[r][c] == 0) continue;
      const double f = a[r][c];
      for (int k = 0; k < 4; ++k) {
        a[r][k] -= f * a[c][k];
        inv[r][k] -= f * inv[c][k];
      }
    }
  }
  a = inv;
  return det;
}

/// dot(normal, p) + offset with p the box corner farthest along (Positive) or against the normal: monotone in the
/// box coordinates.
template <bool Positive, class S>
inline S plane_value(const Plane<S>& pl, const Box<3, S>& b) noexcept {
  S sum = pl.offset;
  for (int i = 0; i < 3; ++i) {
    const bool take_max = (pl.normal[i] >= 0) == Positive;
    sum += pl.normal[i] * (take_max ? b.max[i] : b.min[i]);
  }
  return sum;
}

}  // namespace detail

template <class S>
Frustum<S> Frustum<S>::from_view_projection(const S* m, MatrixLayout layout, ClipDepth depth) {
  if (m == nullptr) detail::frustum_error("matrix is null");
  if (layout != MatrixLayout::ColumnMajor && layout != MatrixLayout::RowMajor)
    detail::frustum_error("unknown matrix layout");
  if (depth != ClipDepth::MinusOneToOne && depth != ClipDepth::ZeroToOne) detail::frustum_error("unknown clip depth");
  for (int i = 0; i < 16; ++i) {
    if (std::isnan(m[i])) detail::frustum_error("matrix entry is NaN");
    if (!std::isfinite(m[i])) detail::frustum_error("matrix entry is infinite");
  }
  std::array<std::array<double, 4>, 4> rows{};  // rows[r][c] = element (r, c)
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 4; ++c) rows[r][c] = double(layout == MatrixLayout::ColumnMajor ? m[4 * c + r] : m[4 * r + c]);

  const double eps = double(std::numeric_limits<S>::epsilon());
  std::array<std::array<double, 4>, 4> inv = rows;
  const double det = detail::invert4(inv);
  // Relative to the product of the column norms (Hadamard's bound): the camera's translation lives in the last
  // column only, so a camera far from the origin does not make a healthy matrix look singular.
  double scale = 1;
  for (int c = 0; c < 4; ++c)
    scale *= std::sqrt(rows[0][c] * rows[0][c] + rows[1][c] * rows[1][c] + rows[2][c] * rows[2][c] + rows[3][c] * rows[3][c]);
  if (!(std::abs(det) > eps * scale)) detail::frustum_error("matrix is singular");

  // Plane k = rows[3] + sign * rows[axis], except the Direct3D near plane 0 <= z, which is rows[2] alone.
  const int axis[6] = {0, 0, 1, 1, 2, 2};
  const double sign[6] = {1, -1, 1, -1, 1, -1};
  const char* names[6] = {"left", "right", "bottom", "top", "near", "far"};
  Frustum f;
  bool at_infinity = false;
  for (int k = 0; k < 6; ++k) {
    const bool d3d_near = k == 4 && depth == ClipDepth::ZeroToOne;
    const double w = d3d_near ? 0.0 : 1.0;
    double p[4], mag = 0;
    for (int c = 0; c < 4; ++c) {
      p[c] = w * rows[3][c] + sign[k] * rows[axis[k]][c];
      if (c < 3) mag += w * std::abs(rows[3][c]) + std::abs(rows[axis[k]][c]);
    }
    const double len = std::sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
    // The normal of an infinite far plane cancels exactly (row 3 minus an equal row 2); allow a few ulps of the
    // entries so a matrix product that rounded a little is recognised too.
    if (len <= 64 * eps * mag) {
      if (!(p[3] > 0)) detail::frustum_error(std::string(names[k]) + " plane is degenerate (zero normal)");
      f.planes_[k] = Plane<S>{Vec<3, S>{0, 0, 0}, S{1}};
      at_infinity = true;
      continue;
    }
    f.planes_[k] = Plane<S>{Vec<3, S>{static_cast<S>(p[0] / len), static_cast<S>(p[1] / len),
                                      static_cast<S>(p[2] / len)},
                            static_cast<S>(p[3] / len)};
    if (!std::isfinite(f.planes_[k].offset))
      detail::frustum_error(std::string(names[k]) + " plane is too far from the origin");
  }

  // Corners: unproject the clip-space cube's corners. A homogeneous w of zero or of mixed signs means a corner at
  // (or beyond) infinity; the frustum is then unbounded and its box is everything.
  const double z_near = depth == ClipDepth::ZeroToOne ? 0.0 : -1.0;
  bool finite = !at_infinity;
  int positive_w = 0;
  std::array<std::array<double, 3>, 8> pts{};
  for (int i = 0; i < 8 && finite; ++i) {
    const double ndc[4] = {(i & 1) ? 1.0 : -1.0, (i & 2) ? 1.0 : -1.0, (i & 4) ? 1.0 : z_near, 1.0};
    double h[4] = {0, 0, 0, 0};
    for (int r = 0; r < 4; ++r)
      for (int c = 0; c < 4; ++c) h[r] += inv[r][c] * ndc[c];
    if (h[3] > 0) ++positive_w;
    finite = h[3] != 0;
    for (int r = 0; r < 3 && finite; ++r) {
      pts[i][r] = h[r] / h[3];
      finite = std::isfinite(pts[i][r]) && std::isfinite(static_cast<S>(pts[i][r]));
    }
  }
  // Corners on both sides of the plane at infinity: the region wraps through infinity, which no camera's does.
  if (finite && positive_w != 0 && positive_w != 8)
    detail::frustum_error("the view volume passes through infinity (not a camera's matrix; transposed? check the "
                          "MatrixLayout)");
  f.has_corners_ = finite;
  const S inf = std::numeric_limits<S>::infinity();
  if (!finite) {
    f.bounds_ = Box<3, S>{Vec<3, S>{-inf, -inf, -inf}, Vec<3, S>{inf, inf, inf}};
    return f;
  }
  // The double corners carry the inverse's rounding, and converting to S rounds again: widen the box by a small
  // relative margin so it never cuts off a sliver of the frustum.
  double lo[3], hi[3];
  for (int r = 0; r < 3; ++r) {
    lo[r] = hi[r] = pts[0][r];
    for (int i = 0; i < 8; ++i) {
      f.corners_[i][r] = static_cast<S>(pts[i][r]);
      lo[r] = std::min(lo[r], pts[i][r]);
      hi[r] = std::max(hi[r], pts[i][r]);
    }
  }
  double size = 0;
  for (int r = 0; r < 3; ++r) size = std::max({size, hi[r] - lo[r], std::abs(lo[r]), std::abs(hi[r])});
  const double margin = std::max(16 * eps, 1e-10) * size;
  for (int r = 0; r < 3; ++r) {
    f.bounds_.min[r] = detail::next_below<S>(lo[r] - margin);
    f.bounds_.max[r] = detail::next_above<S>(hi[r] + margin);
  }
  return f;
}

// ---- Frustum as a query shape ---------------------------------------------------------------------------------

/// Nothing to check: from_view_projection already rejected every invalid matrix.
template <class S>
void check_shape(const Frustum<S>&) noexcept {}

/// The box of the eight corners (slightly widened, see Frustum::corner_bounds); with a plane at infinity or a
/// corner that is not finite, the whole space (-inf, +inf) on every axis.
template <class S>
Box<3, S> bounding_box(const Frustum<S>& f) noexcept {
  return f.corner_bounds();
}

/// Conservative closed overlap with a valid box: false only when one plane has the whole box outside it or the box
/// misses the corners' box, so a box meeting the frustum is never missed; near the frustum's edges a box outside
/// it may be reported (see Frustum). O(1): six positive-vertex tests and one box test.
template <class S>
bool overlaps(const Frustum<S>& f, const Box<3, S>& b) noexcept {
  if (!overlaps(f.corner_bounds(), b)) return false;
  for (const Plane<S>& pl : f.planes())
    if (detail::plane_value<true>(pl, b) < 0) return false;
  return true;
}

/// True when the point passes every plane and lies in the corners' box; the same test as overlaps(f, Box{p, p}).
template <class S>
bool contains(const Frustum<S>& f, const Vec<3, S>& p) noexcept {
  return overlaps(f, Box<3, S>{p, p});
}

/// Classify a node, skipping tests its parent already passed wholly. On entry, bit i of `mask` (see
/// Frustum::all_tests) set means test i must still be made; on return, when the result is not Outside, bit i is
/// set when the node is not wholly inside test i (pass that mask to the node's children: a child lies in its
/// parent, so it is wholly inside whatever its parent is). Inside when no bit remains. Monotone positive / negative
/// vertex tests make it exactly consistent with overlaps. O(popcount(mask)).
template <class S>
Relation classify(const Frustum<S>& f, const Box<3, S>& node, std::uint32_t& mask) noexcept {
  mask &= Frustum<S>::all_tests;
  constexpr std::uint32_t box_bit = 1u << 6;
  if (mask & box_bit) {
    if (!overlaps(f.corner_bounds(), node)) return Relation::Outside;
    if (contains(f.corner_bounds(), node)) mask &= ~box_bit;
  }
  for (int i = 0; i < 6; ++i) {
    const std::uint32_t bit = 1u << i;
    if (!(mask & bit)) continue;
    const Plane<S>& pl = f.planes()[i];
    if (detail::plane_value<true>(pl, node) < 0) return Relation::Outside;
    if (detail::plane_value<false>(pl, node) >= 0) mask &= ~bit;
  }
  return mask == 0 ? Relation::Inside : Relation::Crossing;
}

/// Outside / Crossing / Inside for a node's bounds (all tests; see the mask overload). Inside means the node lies
/// within every plane and the corners' box.
template <class S>
Relation classify(const Frustum<S>& f, const Box<3, S>& node) noexcept {
  std::uint32_t mask = Frustum<S>::all_tests;
  return classify(f, node, mask);
}

}  // namespace quadrant

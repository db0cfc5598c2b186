// SPDX-License-Identifier: MIT
// quadrant support — camera maths for the streaming scenes: OpenGL's look-at and perspective in double, and the
// column-major float matrix Frustum::from_view_projection takes.
#pragma once

#include <array>
#include <cmath>
#include <cstddef>
#include <numbers>

#include <quadrant/geometry.hpp>

namespace quadrant_support {

/// A 4 x 4 matrix, row-major, in double: the camera maths is done once per frame, precisely.
using Mat4 = std::array<std::array<double, 4>, 4>;

/// Where a camera is and what it looks at (up is +y).
struct Camera {
  quadrant::Vec3 eye;     ///< the camera's position
  quadrant::Vec3 target;  ///< a point it looks at (not on the vertical through eye)
};

/// A perspective projection's parameters. The defaults are the demo's camera (and the benchmark's).
struct Lens {
  double fov_y = 60 * std::numbers::pi / 180;  ///< vertical field of view, radians
  double aspect = 16.0 / 9;                    ///< width / height
  double near_plane = 0.5;                     ///< distance to the near clip plane, > 0
  double far_plane = 400;                      ///< distance to the far clip plane, > near_plane
};

/// OpenGL's look-at and perspective (clip depth [-1, 1]), multiplied: clip = P * V * world.
inline Mat4 view_projection(const Camera& cam, const Lens& lens = {}) {
  const double ex = cam.eye.x, ey = cam.eye.y, ez = cam.eye.z;
  double f[3] = {cam.target.x - ex, cam.target.y - ey, cam.target.z - ez};
  const double fl = std::sqrt(f[0] * f[0] + f[1] * f[1] + f[2] * f[2]);
  for (double& c : f) c /= fl;
  // side = f x up (up = +y), then the true up = side x f.
  double s[3] = {-f[2], 0, f[0]};
  const double sl = std::sqrt(s[0] * s[0] + s[2] * s[2]);
  s[0] /= sl, s[2] /= sl;
  const double u[3] = {s[1] * f[2] - s[2] * f[1], s[2] * f[0] - s[0] * f[2], s[0] * f[1] - s[1] * f[0]};
  const Mat4 view = {{{s[0], s[1], s[2], -(s[0] * ex + s[1] * ey + s[2] * ez)},
                      {u[0], u[1], u[2], -(u[0] * ex + u[1] * ey + u[2] * ez)},
                      {-f[0], -f[1], -f[2], f[0] * ex + f[1] * ey + f[2] * ez},
                      {0, 0, 0, 1}}};
  const double t = 1 / std::tan(lens.fov_y / 2);
  const double n = lens.near_plane, fa = lens.far_plane;
  const Mat4 proj = {{{t / lens.aspect, 0, 0, 0},
                      {0, t, 0, 0},
                      {0, 0, (fa + n) / (n - fa), 2 * fa * n / (n - fa)},
                      {0, 0, -1, 0}}};
  Mat4 m{};
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 4; ++c)
      for (int k = 0; k < 4; ++k) m[r][c] += proj[r][k] * view[k][c];
  return m;
}

/// The matrix as Frustum::from_view_projection takes it: column-major floats.
inline std::array<float, 16> column_major(const Mat4& m) {
  std::array<float, 16> out{};
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 4; ++c) out[std::size_t(4 * c + r)] = float(m[r][c]);
  return out;
}

}  // namespace quadrant_support

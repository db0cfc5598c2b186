// quadrant — round query shapes: Circle, Sphere, Ring, Ellipse, Sector.
//
// Threads: every function here is pure; call it from any thread.
#pragma once

#include "box.hpp"

namespace quadrant {

/// A closed disc: the points within `radius` of `center`. radius >= 0 (0 is a point).
template <class S = float>
struct Circle {
  Vec<2, S> center;  ///< centre
  S radius;          ///< >= 0
};

/// A closed ball: the points within `radius` of `center`. radius >= 0 (0 is a point).
template <class S = float>
struct Sphere {
  Vec<3, S> center;  ///< centre
  S radius;          ///< >= 0
};

/// A closed annulus: the points whose distance to `center` lies in [inner, outer]. 0 <= inner <= outer.
template <class S = float>
struct Ring {
  Vec<2, S> center;  ///< centre
  S inner;           ///< inner radius, >= 0 (0: a full disc)
  S outer;           ///< outer radius, >= inner
};

/// A closed, rotated ellipse: semi-axes `radii` (x, y before rotation), turned by `angle` radians counter-clockwise
/// about `center`. radii >= 0 (a zero radius is a segment or a point).
template <class S = float>
struct Ellipse {
  Vec<2, S> center;  ///< centre
  Vec<2, S> radii;   ///< semi-axes along the ellipse's own x and y, >= 0
  S angle;           ///< rotation, radians, counter-clockwise
};

/// A closed circular sector (a fan, the shape of a sword swing or a cone of vision): the points within `radius` of
/// `apex` whose direction from the apex is within `half_angle` of `direction`. half_angle in [0, pi]: 0 is a
/// segment, pi/2 a half disc, pi the full disc. `direction` need not be unit length but must not be zero.
template <class S = float>
struct Sector {
  Vec<2, S> apex;       ///< the tip of the fan
  Vec<2, S> direction;  ///< the fan's axis, any non-zero length
  S radius;             ///< >= 0
  S half_angle;         ///< radians, in [0, pi]
};

}  // namespace quadrant

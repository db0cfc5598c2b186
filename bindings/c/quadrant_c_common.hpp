// SPDX-License-Identifier: MIT
// The C API's private helpers, shared by its source files (trees, AoiWorld, Streamer): the per-thread error
// message, the guard that turns C++ exceptions into status codes, argument checks, and the conversion of a
// quadrant_shape into the C++ shape it describes. Not installed.
#pragma once

#include "quadrant/c/quadrant.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <limits>
#include <new>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include <quadrant/quadrant.hpp>

namespace quadrant_c {

// The message of the last failing call on this thread, defined in quadrant_c.cpp: MinGW's g++ emits an inline
// thread_local with a constructor once per file, and the DLL's link then fails on the duplicates.
extern thread_local std::string last_error;

inline quadrant_status fail(quadrant_status status, const char* what) noexcept {
  try {
    last_error = what;
  } catch (...) {  // the message could not be kept: the status still says what happened
  }
  return status;
}

// Runs body (returning void); maps what it throws to a status.
template <class Body>
quadrant_status guarded(Body&& body) noexcept {
  try {
    body();
    return QUADRANT_OK;
  } catch (const std::invalid_argument& e) {
    return fail(QUADRANT_INVALID_ARGUMENT, e.what());
  } catch (const std::bad_alloc&) {
    return fail(QUADRANT_OUT_OF_MEMORY, "quadrant: out of memory");
  } catch (const std::length_error& e) {
    return fail(QUADRANT_OUT_OF_MEMORY, e.what());
  } catch (const std::logic_error& e) {
    return fail(QUADRANT_LOGIC_ERROR, e.what());
  } catch (const std::exception& e) {
    return fail(QUADRANT_INTERNAL_ERROR, e.what());
  } catch (...) {
    return fail(QUADRANT_INTERNAL_ERROR, "quadrant: unknown error");
  }
}

// Runs an object's validate() (called as check()): QUADRANT_OK, or QUADRANT_INTERNAL_ERROR with the broken invariant.
template <class P, class Check>
quadrant_status validated(const P* p, const char* null_message, Check&& check) noexcept {
  if (p == nullptr) return fail(QUADRANT_INVALID_ARGUMENT, null_message);
  try {
    check();
    return QUADRANT_OK;
  } catch (const std::exception& e) {
    return fail(QUADRANT_INTERNAL_ERROR, e.what());
  }
}

template <class P>
void need(const P* p, const char* name);

// A call on the object p (named `name` in the NULL message): runs body, mapping what it throws to a status.
template <class P, class Body>
quadrant_status on(const P* p, const char* name, Body&& body) noexcept {
  return guarded([&] {
    need(p, name);
    body();
  });
}

[[noreturn]] inline void invalid(const std::string& what) { throw std::invalid_argument("quadrant: " + what); }

template <class P>
void need(const P* p, const char* name) {
  if (p == nullptr) invalid(std::string(name) + " is NULL");
}

// An enum field as the int a C caller stored: any value, which C++ may not load as the enum itself.
template <class E>
int as_int(const E& e) {
  static_assert(sizeof(E) == sizeof(int));
  int v = 0;
  std::memcpy(&v, &e, sizeof v);
  return v;
}

// A double as the index's scalar. A float index rounds it to the nearest float, and refuses a finite value beyond
// the float range rather than make it infinite (a value the caller never passed) or clamp it (a radius or a
// distance clamped would silently miss objects). NaN and infinity pass through, for the C++ checks to judge.
template <class S>
S scalar_of(double v, const char* name) {
  if constexpr (std::is_same_v<S, float>) {
    if (std::isfinite(v) && std::abs(v) > static_cast<double>(std::numeric_limits<float>::max())) {
      char text[32];
      std::snprintf(text, sizeof text, "%.17g", v);
      invalid(std::string(name) + " is " + text + ", beyond the range of float (3.4028235e38) of this float index");
    }
  }
  return static_cast<S>(v);
}

// The D values at p as a vector of S (p must not be NULL).
template <int D, class S>
quadrant::Vec<D, S> vec_of(const double* p, const char* name) {
  need(p, name);
  quadrant::Vec<D, S> v;
  for (int i = 0; i < D; ++i) v[i] = scalar_of<S>(p[i], name);
  return v;
}
template <int D, class S>
quadrant::Box<D, S> box_of(const double* min, const double* max) {
  return quadrant::Box<D, S>{vec_of<D, S>(min, "min"), vec_of<D, S>(max, "max")};
}
// Writes a box's corners as doubles (D values each; NULL arrays are skipped).
template <int D, class S>
void put_box(const quadrant::Box<D, S>& b, double* min, double* max) {
  for (int i = 0; i < D; ++i) {
    if (min != nullptr) min[i] = static_cast<double>(b.min[i]);
    if (max != nullptr) max[i] = static_cast<double>(b.max[i]);
  }
}

// The 16 numbers of a view-projection matrix as a frustum.
template <class S>
quadrant::Frustum<S> frustum_of(const double* m16, int row_major, int clip_zero_to_one) {
  need(m16, "matrix");
  S m[16];
  for (int i = 0; i < 16; ++i) m[i] = scalar_of<S>(m16[i], "matrix");
  return quadrant::Frustum<S>::from_view_projection(
      m, row_major ? quadrant::MatrixLayout::RowMajor : quadrant::MatrixLayout::ColumnMajor,
      clip_zero_to_one ? quadrant::ClipDepth::ZeroToOne : quadrant::ClipDepth::MinusOneToOne);
}

// Calls run(shape) with the C++ shape (of D dimensions over S) that `s` describes; throws invalid_argument for a
// kind this dimension lacks or an unknown kind.
template <int D, class S, class Run>
void with_shape(const quadrant_shape& s, Run&& run) {
  auto v2 = [](const double* p) { return vec_of<2, S>(p, "point"); };
  auto two_d = [](const char* kind) {
    if constexpr (D != 2) invalid(std::string("query: a ") + kind + " is a 2D shape; this index is 3D");
  };
  // The kind as an int: a C caller may pass any value, which C++ may not load as the enum.
  const int kind = as_int(s.kind);
  switch (kind) {
    case QUADRANT_SHAPE_BOX: run(box_of<D, S>(s.a, s.b)); return;
    case QUADRANT_SHAPE_POINT: run(vec_of<D, S>(s.a, "point")); return;
    case QUADRANT_SHAPE_BALL:
      if constexpr (D == 2) run(quadrant::Circle<S>{vec_of<D, S>(s.a, "center"), scalar_of<S>(s.r0, "radius")});
      else run(quadrant::Sphere<S>{vec_of<D, S>(s.a, "center"), scalar_of<S>(s.r0, "radius")});
      return;
    case QUADRANT_SHAPE_SEGMENT: run(quadrant::Segment<D, S>{vec_of<D, S>(s.a, "a"), vec_of<D, S>(s.b, "b")}); return;
    case QUADRANT_SHAPE_FRUSTUM:
      if constexpr (D == 3) {
        if (s.points == nullptr || s.count != 16) invalid("query: a frustum needs the 16 numbers of a matrix");
        run(frustum_of<S>(s.points, s.matrix_row_major, s.clip_zero_to_one));
      } else {
        invalid("query: a frustum is a 3D shape; this index is 2D");
      }
      return;
    case QUADRANT_SHAPE_RING:
    case QUADRANT_SHAPE_ELLIPSE:
    case QUADRANT_SHAPE_SECTOR:
    case QUADRANT_SHAPE_ORIENTED_BOX:
    case QUADRANT_SHAPE_POLYGON: {
      static constexpr const char* kNames[] = {"ring", "ellipse", "sector", "oriented box", "polygon"};
      two_d(kNames[kind - QUADRANT_SHAPE_RING]);
      if constexpr (D == 2) {
        // Only the fields the kind reads are converted: the others may hold anything.
        const auto r0 = [&] { return scalar_of<S>(s.r0, "quadrant_shape::r0"); };
        const auto r1 = [&] { return scalar_of<S>(s.r1, "quadrant_shape::r1"); };
        const auto angle = [&] { return scalar_of<S>(s.angle, "quadrant_shape::angle"); };
        switch (kind) {
          case QUADRANT_SHAPE_RING: run(quadrant::Ring<S>{v2(s.a), r0(), r1()}); return;
          case QUADRANT_SHAPE_ELLIPSE: run(quadrant::Ellipse<S>{v2(s.a), {r0(), r1()}, angle()}); return;
          case QUADRANT_SHAPE_SECTOR: run(quadrant::Sector<S>{v2(s.a), v2(s.b), r0(), angle()}); return;
          case QUADRANT_SHAPE_ORIENTED_BOX: run(quadrant::OrientedBox<S>{v2(s.a), {r0(), r1()}, angle()}); return;
          default: {
            if (s.points == nullptr && s.count != 0) invalid("query: the polygon's points are NULL");
            std::vector<quadrant::Vec<2, S>> outline(s.count);
            for (std::size_t i = 0; i < s.count; ++i) outline[i] = v2(s.points + 2 * i);
            run(quadrant::ConvexPolygon<S>(std::span<const quadrant::Vec<2, S>>(outline)));
            return;
          }
        }
      }
      return;
    }
  }
  invalid("query: unknown shape kind " + std::to_string(kind));
}

// The C++ Config a quadrant_config describes (the C++ Tree checks the values; this checks the placement).
template <int D, class S>
quadrant::Config<D, S> config_of(const quadrant_config& c) {
  quadrant::Config<D, S> cc;
  cc.world = quadrant::Box<D, S>{vec_of<D, S>(c.world_min, "quadrant_config::world_min"),
                                 vec_of<D, S>(c.world_max, "quadrant_config::world_max")};
  cc.max_depth = c.max_depth;
  cc.split_threshold = c.split_threshold;
  cc.min_node_size = scalar_of<S>(c.min_node_size, "quadrant_config::min_node_size");
  switch (as_int(c.placement)) {
    case QUADRANT_LOOSE: cc.placement = quadrant::Placement::Loose; break;
    case QUADRANT_PARENT: cc.placement = quadrant::Placement::Parent; break;
    case QUADRANT_LEAVES: cc.placement = quadrant::Placement::Leaves; break;
    default: invalid("quadrant_config::placement is " + std::to_string(as_int(c.placement)) + ", not a placement");
  }
  return cc;
}

// The C++ LayerMatrix of a C one; throws for a matrix that is not symmetric.
inline quadrant::LayerMatrix layer_matrix_of(const quadrant_layer_matrix& m) {
  quadrant::LayerMatrix out;
  for (int i = 0; i < 32; ++i)
    for (int j = 0; j < 32; ++j) {
      const bool ij = (m.partners[i] >> j & 1u) != 0, ji = (m.partners[j] >> i & 1u) != 0;
      if (ij != ji)
        invalid("layer matrix: not symmetric (layer " + std::to_string(i) + " collides with " + std::to_string(j) +
                " but not " + std::to_string(j) + " with " + std::to_string(i) + ")");
      if (ij && i <= j) out.set(i, j);
    }
  return out;
}

// The scalar of a C struct as a bool (true: float); throws for anything else.
template <class E>
bool is_float(const E& scalar, const char* where) {
  const int s = as_int(scalar);
  if (s != QUADRANT_FLOAT && s != QUADRANT_DOUBLE) invalid(std::string(where) + " is " + std::to_string(s) + ", not a scalar");
  return s == QUADRANT_FLOAT;
}

// Fills a C buffer of ids up to its capacity and counts them all (the buffer-filling variants).
struct IdSink {
  std::uint64_t* ids;
  std::size_t capacity, count = 0;
  void operator()(std::uint64_t id) noexcept {
    if (ids != nullptr && count < capacity) ids[count] = id;
    ++count;
  }
};

}  // namespace quadrant_c

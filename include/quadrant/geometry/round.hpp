// SPDX-License-Identifier: MIT
// quadrant — round query shapes: Circle, Sphere, Ring (circle.hpp), Ellipse (ellipse.hpp) and Sector (sector.hpp),
// their box tests and point tests. Kept so that existing includes work; <quadrant/geometry.hpp> brings them all.
//
// Threads: every function here is pure; call it from any thread.
#pragma once

#include "circle.hpp"
#include "ellipse.hpp"
#include "sector.hpp"

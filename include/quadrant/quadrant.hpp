// quadrant — umbrella header: everything a user needs.
#pragma once

#include "config.hpp"
#include "geometry.hpp"
#include "handle.hpp"
#include "tree.hpp"

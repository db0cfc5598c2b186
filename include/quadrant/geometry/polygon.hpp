// quadrant — placeholder, filled in by the shapes work.
#pragma once

#include "box.hpp"

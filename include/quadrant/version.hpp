// SPDX-License-Identifier: MIT
// quadrant — the library's version, as macros (for #if) and as constants. CMake's project version matches it (the
// configure step checks), and so do the installed package's version file and quadrant.pc.
#pragma once

/// Major version: bumped for changes that break the public API.
#define QUADRANT_VERSION_MAJOR 0
/// Minor version: bumped for new features that keep the API compatible.
#define QUADRANT_VERSION_MINOR 3
/// Patch version: bumped for fixes only.
#define QUADRANT_VERSION_PATCH 0
/// The version as one number, MAJOR * 10000 + MINOR * 100 + PATCH, for comparisons in #if.
#define QUADRANT_VERSION (QUADRANT_VERSION_MAJOR * 10000 + QUADRANT_VERSION_MINOR * 100 + QUADRANT_VERSION_PATCH)

namespace quadrant {
/// The version as a string, "MAJOR.MINOR.PATCH".
inline constexpr const char* version_string = "0.3.0";
}  // namespace quadrant

// SPDX-License-Identifier: MIT
// quadrant internals: how a node stores one object. Not for direct inclusion.
#pragma once

#include <cstdint>

#include "../geometry/box.hpp"

namespace quadrant::detail {

// One object as a node lists it: a copy of its box and layer mask, so a node's objects are tested without
// touching the object records, and the object's record index. The handle is rebuilt from the record when an
// object is reported. 24 bytes in 2D float (see the static_asserts in node_store.hpp).
template <int D, class S>
struct StoredEntry {
  Box<D, S> box;
  std::uint32_t id = 0;       // the object's record index (Handle::index)
  std::uint32_t layers = ~0u;
};

}  // namespace quadrant::detail

// SPDX-License-Identifier: MIT
// quadrant internals: an LSD radix sort of records by an unsigned 64-bit key. Not for direct inclusion.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace quadrant::detail {

// Sorts v by key(record) (stable), one byte at a time from the lowest of the `bits` low bits of the key; a byte
// that is the same in every record costs one counting pass and no move. `tmp` is scratch, kept for reuse: sorting
// allocates nothing once both vectors have held as many records.
template <class R, class Key>
void radix_sort(std::vector<R>& v, std::vector<R>& tmp, Key&& key, int bits = 64) {
  tmp.resize(v.size());
  for (int shift = 0; shift < bits; shift += 8) {
    std::size_t counts[256] = {};
    for (const R& r : v) ++counts[key(r) >> shift & 0xffu];
    if (v.empty() || counts[key(v[0]) >> shift & 0xffu] == v.size()) continue;
    std::size_t at = 0;
    for (std::size_t& c : counts) {
      const std::size_t n = c;
      c = at;
      at += n;
    }
    for (const R& r : v) tmp[counts[key(r) >> shift & 0xffu]++] = r;
    v.swap(tmp);
  }
}

}  // namespace quadrant::detail

// SPDX-License-Identifier: MIT
// quadrant internals: an LSD radix sort of records by an unsigned 64-bit key. Not for direct inclusion.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace quadrant::detail {

// Sorts v by key(record) (stable), one byte at a time from the lowest of the `bits` low bits of the key; a byte
// that is the same in every record costs no move. One pass counts every byte's values at once, then one pass a
// byte moves the records. `tmp` is scratch, kept for reuse: sorting allocates nothing once both vectors have held
// as many records.
template <class R, class Key>
void radix_sort(std::vector<R>& v, std::vector<R>& tmp, Key&& key, int bits = 64) {
  constexpr int kMaxBytes = 8;
  const int bytes = std::min((bits + 7) / 8, kMaxBytes);
  if (v.empty()) return;
  tmp.resize(v.size());
  std::size_t counts[kMaxBytes][256] = {};
  for (const R& r : v) {
    const auto k = key(r);
    for (int b = 0; b < bytes; ++b) ++counts[b][k >> (8 * b) & 0xffu];
  }
  for (int b = 0; b < bytes; ++b) {
    std::size_t* const c = counts[b];
    if (c[key(v[0]) >> (8 * b) & 0xffu] == v.size()) continue;
    std::size_t at = 0;
    for (int d = 0; d < 256; ++d) {
      const std::size_t n = c[d];
      c[d] = at;
      at += n;
    }
    for (const R& r : v) tmp[c[key(r) >> (8 * b) & 0xffu]++] = r;
    v.swap(tmp);
  }
}

}  // namespace quadrant::detail

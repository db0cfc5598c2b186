// SPDX-License-Identifier: MIT
// quadrant internals: an LSD radix sort of records by an unsigned 64-bit key. Not for direct inclusion.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

namespace quadrant::detail {

// Sorts the n records at v by key(record) (stable), one byte at a time from the lowest of the `bits` low bits of
// the key; a byte that is the same in every record costs no move. One pass counts every byte's values at once,
// then one pass a byte moves the records between v and `tmp`, n records' worth of bytes, read and written by
// memcpy only (it may hold objects of any trivially copyable type, and holds nothing meaningful afterwards).
// Returns true when the sorted records ended in tmp (an odd number of moving passes).
template <class R, class Key>
bool radix_sort_into(R* v, std::byte* tmp, std::size_t n, Key&& key, int bits) noexcept {
  static_assert(std::is_trivially_copyable_v<R>);
  constexpr int kMaxBytes = 8;
  const int bytes = std::min((bits + 7) / 8, kMaxBytes);
  if (n == 0) return false;
  std::size_t counts[kMaxBytes][256] = {};
  for (std::size_t i = 0; i < n; ++i) {
    const auto k = key(v[i]);
    for (int b = 0; b < bytes; ++b) ++counts[b][k >> (8 * b) & 0xffu];
  }
  bool in_tmp = false;  // where the records are now
  for (int b = 0; b < bytes; ++b) {
    std::size_t* const c = counts[b];
    // v[0] is one of the records wherever they are now: a byte the same in all of them keeps the order.
    if (c[key(v[0]) >> (8 * b) & 0xffu] == n) continue;
    std::size_t at = 0;
    for (int d = 0; d < 256; ++d) {
      const std::size_t count = c[d];
      c[d] = at;
      at += count;
    }
    if (!in_tmp) {
      for (std::size_t i = 0; i < n; ++i)
        std::memcpy(tmp + sizeof(R) * c[key(v[i]) >> (8 * b) & 0xffu]++, &v[i], sizeof(R));
    } else {
      for (std::size_t i = 0; i < n; ++i) {
        R r;
        std::memcpy(&r, tmp + sizeof(R) * i, sizeof(R));
        v[c[key(r) >> (8 * b) & 0xffu]++] = r;
      }
    }
    in_tmp = !in_tmp;
  }
  return in_tmp;
}

// radix_sort_into with `tmp` as the scratch, kept for reuse: sorting allocates nothing once both vectors have held
// as many records.
template <class R, class A, class Key>
void radix_sort(std::vector<R, A>& v, std::vector<R, A>& tmp, Key&& key, int bits = 64) {
  tmp.resize(v.size());
  if (radix_sort_into(v.data(), reinterpret_cast<std::byte*>(tmp.data()), v.size(), key, bits)) v.swap(tmp);
}

}  // namespace quadrant::detail

// SPDX-License-Identifier: MIT
// quadrant internals: the allocator of the tree's large arrays, which asks Linux for transparent huge pages. Not
// for direct inclusion.
//
// A tree of a million objects holds some 60 MB in a handful of arrays (entries, records, nodes, references). Built
// in fresh memory, each 4 KB page of them costs a page fault when first written, and on a virtual machine the
// faults can take most of a large build's time (docs/dev/timings-from-code.md). Walks that jump about such
// arrays also miss the TLB on most pages. A 2 MB page costs one fault and one TLB entry for 512 small ones.
// Linux hands out such pages to memory that asks for them (madvise(MADV_HUGEPAGE)) when transparent huge pages
// are set to "madvise", the default of many distributions; "always" gives them anyway, "never" never. Only the
// whole 2 MB pages inside an allocation are advised (none in one below 2 MB), so a small tree's memory and the heap
// around it are left as they are. Define QUADRANT_NO_HUGE_PAGES to never ask (see docs/core.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#if defined(__linux__) && !defined(QUADRANT_NO_HUGE_PAGES)
#include <sys/mman.h>
#define QUADRANT_HUGE_PAGES 1
#else
#define QUADRANT_HUGE_PAGES 0
#endif

namespace quadrant::detail {

// The huge page of x86-64, and of ARM64 with 4 KB pages; advice on a system with other sizes is merely ignored.
inline constexpr std::size_t kHugePageBytes = std::size_t{2} << 20;

// The whole huge pages inside [p, p + bytes): [first, last), first == last when there is none.
struct HugePageRange {
  std::uintptr_t first = 0, last = 0;
};
constexpr HugePageRange huge_page_interior(std::uintptr_t p, std::size_t bytes) noexcept {
  const std::uintptr_t first = (p + kHugePageBytes - 1) & ~std::uintptr_t{kHugePageBytes - 1};
  const std::uintptr_t last = (p + bytes) & ~std::uintptr_t{kHugePageBytes - 1};
  return first < last ? HugePageRange{first, last} : HugePageRange{};
}

// Asks that the whole huge pages inside [p, p + bytes) be backed by huge pages when first touched. A hint: any
// failure (an old kernel, a system that never gives them) is ignored, and nothing is read or written.
inline void advise_huge_pages([[maybe_unused]] void* p, [[maybe_unused]] std::size_t bytes) noexcept {
#if QUADRANT_HUGE_PAGES && defined(MADV_HUGEPAGE)
  const HugePageRange r = huge_page_interior(reinterpret_cast<std::uintptr_t>(p), bytes);
  if (r.first != r.last) (void)madvise(reinterpret_cast<void*>(r.first), r.last - r.first, MADV_HUGEPAGE);
#endif
}

// std::allocator, with the huge-page advice on every allocation large enough (before anything is written to it).
template <class T>
struct PageAllocator {
  using value_type = T;
  PageAllocator() noexcept = default;
  template <class U>
  PageAllocator(const PageAllocator<U>&) noexcept {}
  T* allocate(std::size_t n) {
    T* p = std::allocator<T>{}.allocate(n);
    advise_huge_pages(p, n * sizeof(T));
    return p;
  }
  void deallocate(T* p, std::size_t n) noexcept { std::allocator<T>{}.deallocate(p, n); }
  template <class U>
  bool operator==(const PageAllocator<U>&) const noexcept {
    return true;
  }
};

// The vector type of the tree's arrays and of the scratch its walks and builds borrow.
template <class T>
using Array = std::vector<T, PageAllocator<T>>;

}  // namespace quadrant::detail

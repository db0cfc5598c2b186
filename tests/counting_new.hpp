// SPDX-License-Identifier: MIT
// Replaces the global operator new and delete of a test binary so that a test can assert that a block of code
// allocated nothing: read g_allocations before and after. Include it in exactly one source file of the binary.
#pragma once

#include <atomic>
#include <cstdlib>
#include <new>

namespace {
/// Heap allocations made by the process since it started (every form of new goes through the replacement below).
std::atomic<long> g_allocations{0};
/// When g_allocations reaches this count, that allocation throws std::bad_alloc (-1: none does): a test makes each
/// allocation of a call fail in turn.
std::atomic<long> g_fail_at{-1};
}  // namespace

void* operator new(std::size_t size) {
  if (g_allocations.fetch_add(1, std::memory_order_relaxed) + 1 == g_fail_at.load(std::memory_order_relaxed))
    throw std::bad_alloc();
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
// The replaced new allocates with malloc, so free is the matching release (GCC cannot see that it is replaced).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpragmas"
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
#pragma GCC diagnostic pop

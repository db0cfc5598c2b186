// SPDX-License-Identifier: MIT
// quadrant internals: running one piece of work on several threads for one call (the batch move, the parallel pair
// walk). Not for direct inclusion.
#pragma once

#include <algorithm>
#include <system_error>
#include <thread>
#include <vector>

namespace quadrant::detail {

// Calls work(t) for t in [0, threads): t = 0 on this thread, the others on threads started for the call (or on
// this one, should the system refuse a thread); joins them all before returning. work must not throw.
template <class Work>
void on_threads(unsigned threads, Work&& work) {
  std::vector<std::thread> workers;
  workers.reserve(threads - 1);
  for (unsigned t = 1; t < threads; ++t) {
    try {
      workers.emplace_back([&work, t] { work(t); });
    } catch (const std::system_error&) {
      work(t);
    }
  }
  work(0);
  for (std::thread& w : workers) w.join();
}

// The threads a call asked for: 0 means one per hardware thread.
inline unsigned resolve_threads(unsigned threads) {
  return threads == 0 ? std::max(1u, std::thread::hardware_concurrency()) : threads;
}

}  // namespace quadrant::detail

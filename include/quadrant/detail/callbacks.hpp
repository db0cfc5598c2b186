// SPDX-License-Identifier: MIT
// quadrant internals: adapting user callbacks. Not for direct inclusion.
#pragma once

#include <type_traits>
#include <utility>

namespace quadrant::detail {

template <class>
inline constexpr bool always_false = false;

// Calls fn with the first argument list it accepts; a callback returning something convertible to bool stops the
// walk on false, one returning void never stops it.
template <class R>
constexpr bool keep_going(R&& result) {
  return static_cast<bool>(std::forward<R>(result));
}

template <class Fn, class... Args>
bool call_and_continue(Fn& fn, Args&&... args) {
  using R = std::invoke_result_t<Fn&, Args...>;
  if constexpr (std::is_void_v<R>) {
    fn(std::forward<Args>(args)...);
    return true;
  } else {
    static_assert(std::is_convertible_v<R, bool>, "quadrant: a callback must return void or bool");
    return keep_going(fn(std::forward<Args>(args)...));
  }
}

// Query callbacks take (Handle, const T&) or (const T&).
template <class Fn, class H, class T>
bool report_hit(Fn& fn, H handle, const T& value) {
  if constexpr (std::is_invocable_v<Fn&, H, const T&>) {
    return call_and_continue(fn, handle, value);
  } else if constexpr (std::is_invocable_v<Fn&, const T&>) {
    return call_and_continue(fn, value);
  } else {
    static_assert(always_false<Fn>, "quadrant: a query callback takes (Handle, const T&) or (const T&)");
    return false;
  }
}

// Pair callbacks take (Handle, Handle), (const T&, const T&) or (Handle, const T&, Handle, const T&). (Handle,
// Handle) is tried first, so a callback taking two `auto` parameters gets handles, as it always has.
// (The two values may differ in type: pairs between two trees.)
template <class Fn, class H, class TA, class TB>
bool report_pair(Fn& fn, H a, const TA& va, H b, const TB& vb) {
  if constexpr (std::is_invocable_v<Fn&, H, H>) {
    return call_and_continue(fn, a, b);
  } else if constexpr (std::is_invocable_v<Fn&, H, const TA&, H, const TB&>) {
    return call_and_continue(fn, a, va, b, vb);
  } else if constexpr (std::is_invocable_v<Fn&, const TA&, const TB&>) {
    return call_and_continue(fn, va, vb);
  } else {
    static_assert(always_false<Fn>,
                  "quadrant: a pair callback takes (Handle, Handle), (const T&, const T&) or (Handle, const T&, Handle, "
                  "const T&)");
    return false;
  }
}

}  // namespace quadrant::detail

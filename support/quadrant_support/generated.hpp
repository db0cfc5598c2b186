// SPDX-License-Identifier: MIT
// quadrant support — a random-access range whose i-th element is make(i), made on the fly: items for Tree::assign
// without a copy of the scene (which reads a random-access range in the order it stores the objects). Written by hand because clang 14 cannot compile libstdc++ 12's views.
#pragma once

#include <compare>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <utility>

namespace quadrant_support {

template <class Make>
class Generated {
 public:
  Generated(std::uint32_t size, Make make) : size_(size), make_(make) {}

  class iterator {
   public:
    using value_type = decltype(std::declval<const Make&>()(std::uint32_t{}));
    using difference_type = std::ptrdiff_t;
    iterator() = default;
    iterator(const Make* make, std::uint32_t i) : make_(make), i_(i) {}
    value_type operator*() const { return (*make_)(i_); }
    iterator& operator++() {
      ++i_;
      return *this;
    }
    iterator operator++(int) {
      iterator old = *this;
      ++i_;
      return old;
    }
    iterator& operator--() {
      --i_;
      return *this;
    }
    iterator operator--(int) {
      iterator old = *this;
      --i_;
      return old;
    }
    iterator& operator+=(difference_type n) {
      i_ = static_cast<std::uint32_t>(static_cast<difference_type>(i_) + n);
      return *this;
    }
    iterator& operator-=(difference_type n) { return *this += -n; }
    friend iterator operator+(iterator it, difference_type n) { return it += n; }
    friend iterator operator+(difference_type n, iterator it) { return it += n; }
    friend iterator operator-(iterator it, difference_type n) { return it -= n; }
    friend difference_type operator-(const iterator& a, const iterator& b) {
      return static_cast<difference_type>(a.i_) - static_cast<difference_type>(b.i_);
    }
    value_type operator[](difference_type n) const { return *(*this + n); }
    bool operator==(const iterator& o) const { return i_ == o.i_; }
    auto operator<=>(const iterator& o) const { return i_ <=> o.i_; }

   private:
    const Make* make_ = nullptr;
    std::uint32_t i_ = 0;
  };

  iterator begin() const { return {&make_, 0}; }
  iterator end() const { return {&make_, size_}; }
  std::size_t size() const { return size_; }

 private:
  std::uint32_t size_;
  Make make_;
};

}  // namespace quadrant_support

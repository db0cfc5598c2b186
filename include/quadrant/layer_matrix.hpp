// SPDX-License-Identifier: MIT
// quadrant — LayerMatrix: which of the 32 layers collide with which, for pair walks (Unity's layer collision
// matrix; Box2D's category and mask bits).
//
// Threads: a plain value; copy it freely.
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace quadrant {

/// A symmetric 32 x 32 table of the layer pairs that collide. An object's layer mask may hold several layers; two
/// objects make a pair when some layer of one collides with some layer of the other. An empty matrix (the default)
/// lets no pair through; `LayerMatrix::all()` lets every pair through, like `for_each_pair` without a mask.
class LayerMatrix {
 public:
  /// No layer collides with any.
  constexpr LayerMatrix() noexcept = default;

  /// Every layer collides with every layer.
  static constexpr LayerMatrix all() noexcept { return between(~0u, ~0u); }

  /// Every layer of `a` collides with every layer of `b` (and so, symmetrically, b with a): "players against
  /// anything" is between(kPlayers, ~0u); `for_each_pair(fn, mask)` is between(mask, mask).
  static constexpr LayerMatrix between(std::uint32_t a, std::uint32_t b) noexcept {
    LayerMatrix m;
    for (int i = 0; i < 32; ++i) {
      if ((a >> i & 1u) != 0) m.partners_[i] |= b;
      if ((b >> i & 1u) != 0) m.partners_[i] |= a;
    }
    return m;
  }

  /// Makes layers a and b (0..31, may be equal) collide, or not. Throws std::invalid_argument for a layer outside
  /// 0..31, with the matrix unchanged.
  constexpr LayerMatrix& set(int a, int b, bool collide = true) {
    const unsigned i = index(a), j = index(b);
    if (collide) {
      partners_[i] |= 1u << j;
      partners_[j] |= 1u << i;
    } else {
      partners_[i] &= ~(1u << j);
      partners_[j] &= ~(1u << i);
    }
    return *this;
  }

  /// Whether layers a and b (0..31) collide. Throws std::invalid_argument for a layer outside 0..31.
  constexpr bool collides(int a, int b) const {
    const unsigned i = index(a), j = index(b);
    return (partners_[i] >> j & 1u) != 0;
  }

  /// The layers that collide with some layer of `mask`.
  constexpr std::uint32_t partners(std::uint32_t mask) const noexcept {
    std::uint32_t p = 0;
    for (; mask != 0; mask &= mask - 1) p |= partners_[std::countr_zero(mask)];
    return p;
  }

  /// The layers that collide with at least one layer: objects with none of them take part in no pair.
  constexpr std::uint32_t active() const noexcept {
    std::uint32_t a = 0;
    for (int i = 0; i < 32; ++i)
      if (partners_[i] != 0) a |= 1u << i;
    return a;
  }

  /// Whether objects with layer masks `a` and `b` make a pair: some layer of a collides with some layer of b.
  constexpr bool allows(std::uint32_t a, std::uint32_t b) const noexcept { return (partners(a) & b) != 0; }

  /// Equal when the same layer pairs collide.
  friend constexpr bool operator==(const LayerMatrix&, const LayerMatrix&) noexcept = default;

 private:
  // The layer as an index, checked. (Masked too: the mask is a no-op for a checked layer, and it keeps the
  // compiler from warning about the thrown-away path's out-of-range index.)
  static constexpr unsigned index(int layer) {
    if (layer < 0 || layer > 31)
      throw std::invalid_argument("quadrant: LayerMatrix: layer " + std::to_string(layer) + " is outside 0..31");
    return static_cast<unsigned>(layer) & 31u;
  }
  std::array<std::uint32_t, 32> partners_{};  // partners_[i]: the layers that collide with layer i
};

}  // namespace quadrant

// SPDX-License-Identifier: MIT
// quadrant support — BruteForceStreamer: quadrant::Streamer's decisions recomputed by testing every object, the
// reference the demo's scene-streaming scenario and the streaming benchmark check the streamer against.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include <quadrant/geometry.hpp>
#include <quadrant/streaming.hpp>

namespace quadrant_support {

using quadrant::Box3;
using quadrant::Vec3;

/// The streamer's decisions recomputed by brute force (the demo's oracle and the benchmark's reference): every
/// object's box tested with the wanted predicate each frame, resident objects that are not wanted with the kept
/// predicate, and the state machine of docs/streaming.md written out again over flat arrays. Shares no code with
/// quadrant::Streamer but the frustum's plane test (overlaps(Frustum, Box)) and the point-to-box distance
/// (quadrant::detail::squared_distance_as<double>); tests/test_streaming.cpp keeps a fully independent oracle.
class BruteForceStreamer {
 public:
  /// An object's state, as quadrant::StreamState.
  enum class State : std::uint8_t {
    Unloaded,  ///< not resident, not waiting
    Queued,    ///< wanted, not issued because of the caps
    Loading,   ///< issued, waiting for mark_loaded
    Loaded,    ///< resident
  };

  /// A streamer over `boxes` (kept by reference: object i is boxes[i]), all Unloaded, with the given unload margin
  /// and caps.
  BruteForceStreamer(const std::vector<Box3>& boxes, float margin, std::size_t per_update, std::size_t in_flight)
      : boxes_(boxes), state_(boxes.size(), State::Unloaded), margin_(margin), per_update_(per_update),
        in_flight_(in_flight) {}

  std::vector<std::uint32_t> loads, unloads, cancels;  ///< the last update's requests (unloads, cancels by id)
  std::size_t tests = 0;                               ///< boxes tested by the last update

  /// Loading -> Loaded (true); anything else is a late completion (false).
  bool mark_loaded(std::uint32_t id) {
    if (state_[id] != State::Loading) return false;
    state_[id] = State::Loaded;
    --loading_, ++loaded_;
    return true;
  }
  /// Object id's state.
  State state(std::uint32_t id) const { return state_[id]; }
  /// Objects Loading.
  std::size_t loading() const { return loading_; }
  /// Objects Loaded.
  std::size_t loaded() const { return loaded_; }
  /// Objects Queued by the last update.
  std::size_t queued() const { return queued_; }

  /// One frame for one source: the cancels, unloads and loads of docs/streaming.md, every object tested.
  void update(const quadrant::StreamingSource<float>& s) {
    loads.clear(), unloads.clear(), cancels.clear();
    tests = 0;
    queued_ = 0;
    const double r2 = double(s.prefetch_radius) * double(s.prefetch_radius);
    const double k = double(s.prefetch_radius) + double(margin_), k2 = k * k;
    candidates_.clear();
    for (std::uint32_t i = 0; i < boxes_.size(); ++i) {
      const Box3& b = boxes_[i];
      ++tests;
      const double d2 = distance_squared(s.position, b);
      const bool wanted = d2 <= r2 || (s.frustum && quadrant::overlaps(*s.frustum, b));
      State& st = state_[i];
      if (st == State::Queued) st = State::Unloaded;
      if ((st == State::Loading || st == State::Loaded) && !wanted) {
        ++tests;
        if (!(d2 <= k2 || (s.frustum && in_grown_frustum(*s.frustum, b)))) {
          if (st == State::Loading) cancels.push_back(i), --loading_;
          else unloads.push_back(i), --loaded_;
          st = State::Unloaded;
        }
      }
      if (wanted && st == State::Unloaded) candidates_.push_back({d2, i});
    }
    std::sort(candidates_.begin(), candidates_.end());  // by (distance, id)
    const std::size_t room = in_flight_ > loading_ ? in_flight_ - loading_ : 0;
    const std::size_t issue = std::min({per_update_, room, candidates_.size()});
    for (std::size_t c = 0; c < candidates_.size(); ++c) {
      const std::uint32_t id = candidates_[c].second;
      if (c < issue) {
        state_[id] = State::Loading, ++loading_;
        loads.push_back(id);
      } else {
        state_[id] = State::Queued, ++queued_;
      }
    }
  }

 private:
  // Point to box, in double: the library's one point-to-box distance (geometry/distance.hpp).
  static double distance_squared(const Vec3& p, const Box3& b) {
    return quadrant::detail::squared_distance_as<double>(p, b);
  }
  // The frustum's planes pushed out by the margin and its corners' box grown by it (docs/streaming.md).
  bool in_grown_frustum(const quadrant::Frustum<float>& f, const Box3& b) const {
    const Box3& c = f.corner_bounds();
    for (int i = 0; i < 3; ++i)
      if (c.max[i] + margin_ < b.min[i] || b.max[i] < c.min[i] - margin_) return false;
    for (const quadrant::Plane<float>& pl : f.planes()) {
      float v = pl.offset + margin_;
      for (int i = 0; i < 3; ++i) v += pl.normal[i] * (pl.normal[i] >= 0 ? b.max[i] : b.min[i]);
      if (v < 0) return false;
    }
    return true;
  }

  const std::vector<Box3>& boxes_;
  std::vector<State> state_;
  float margin_;
  std::size_t per_update_, in_flight_, loading_ = 0, loaded_ = 0, queued_ = 0;
  std::vector<std::pair<double, std::uint32_t>> candidates_;
};

}  // namespace quadrant_support

// SPDX-License-Identifier: MIT
// quadrant internals: Streamer::update and Streamer::validate, members of Streamer (streamer.hpp). Not for direct
// inclusion: <quadrant/streaming.hpp> brings it.
#pragma once

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "regions.hpp"
#include "streamer.hpp"

namespace quadrant {

template <class S>
const StreamUpdate<S>& Streamer<S>::update(std::span<const source_type> sources) {
  // Every input is checked before anything changes; it is the only throw. Past it, any finite position and
  // radius work, up to S's largest values: the prefetch boxes are clamped to S's finite range (ball_bounds), so the
  // octree's box query, which refuses an infinite box, never throws; and the kept regions are tested here, never
  // handed to the tree. The last update's result is cleared only once the queries are done.
  check_sources(sources);
  StreamStats st;
  // A fresh stamp marks this update's wanted objects without clearing a flag per object.
  if (++stamp_ == 0) {
    for (Object& o : objects_) o.wanted_stamp = 0;
    stamp_ = 1;
  }

  // 1. The wanted set: per source, the octree's frustum query (plane masks; subtrees wholly inside reported
  // untested) and the prefetch ball (a box query around it, each hit tested by the exact distance).
  wanted_.clear();
  regions_.clear();
  for (const source_type& src : sources) {
    if (src.frustum) {
      const QueryStats q = tree_.query(*src.frustum, [&](const std::uint32_t& slot) { mark_wanted(slot); });
      st.nodes_visited += q.nodes_visited;
      st.box_tests += q.box_tests;
    }
    const double r2 = detail::radius_squared(src.prefetch_radius);
    const QueryStats q = tree_.query(detail::ball_bounds(src.position, double(src.prefetch_radius)),
                                     [&](const std::uint32_t& slot) {
                                       const Object& o = objects_[slot];
                                       if (o.wanted_stamp == stamp_) return;
                                       ++st.box_tests;
                                       if (detail::squared_distance_as<double>(src.position, o.bounds) <= r2)
                                         mark_wanted(slot);
                                     });
    st.nodes_visited += q.nodes_visited;
    st.box_tests += q.box_tests;
    regions_.push_back(detail::kept_region(src.frustum ? &*src.frustum : nullptr, src.position,
                                           src.prefetch_radius, config_.unload_margin));
  }
  st.wanted = wanted_.size();
  out_.loads.clear();
  out_.unloads.clear();
  out_.cancels.clear();

  // 2. Resident objects that are not wanted stay while some source's kept region holds them; the others are
  // cancelled (Loading) or unloaded (Loaded). Backwards, so the swap-remove only moves entries already seen.
  for (std::size_t i = resident_.size(); i-- > 0;) {
    const std::uint32_t slot = resident_[i];
    Object& o = objects_[slot];
    if (o.wanted_stamp == stamp_) continue;
    ++st.kept_tests;
    bool kept = false;
    for (const detail::KeptRegion<S>& region : regions_)
      if (detail::in_kept_region(region, o.bounds)) {
        kept = true;
        break;
      }
    if (kept) continue;
    (o.state == StreamState::Loading ? out_.cancels : out_.unloads).push_back(o.id);
    unlist(slot);
    o.state = StreamState::Unloaded;
  }

  // 3. The queue is rebuilt from this update's wanted set: what was Queued is Unloaded again for now.
  for (const std::uint32_t slot : queued_) {
    Object& o = objects_[slot];
    if (o.wanted_stamp != stamp_) ++st.dequeued;
    o.state = StreamState::Unloaded;
    o.listed_at = kNone;
  }
  queued_.clear();

  // 4. Wanted and not resident: candidates, nearest first (ties by id); as many as the caps allow are issued.
  candidates_.clear();
  for (const std::uint32_t slot : wanted_) {
    const Object& o = objects_[slot];
    if (o.state != StreamState::Unloaded) continue;
    double key = std::numeric_limits<double>::infinity();
    for (const source_type& src : sources)
      key = std::min(key, detail::squared_distance_as<double>(src.position, o.bounds));
    candidates_.push_back(Candidate{key, o.id, slot});
  }
  const std::size_t room =
      config_.max_loads_in_flight > loading_ ? config_.max_loads_in_flight - loading_ : std::size_t{0};
  const std::size_t issue = std::min({config_.max_loads_per_update, room, candidates_.size()});
  const auto first = candidates_.begin(), cut = first + static_cast<std::ptrdiff_t>(issue);
  std::partial_sort(first, cut, candidates_.end(), [](const Candidate& a, const Candidate& b) {
    return a.key < b.key || (a.key == b.key && a.id < b.id);
  });
  for (auto c = first; c != candidates_.end(); ++c) {
    Object& o = objects_[c->slot];
    if (c < cut) {
      o.state = StreamState::Loading;
      list(c->slot, resident_);
      ++loading_;
      out_.loads.push_back(StreamLoad<S>{o.id, static_cast<S>(std::sqrt(c->key))});
    } else {
      o.state = StreamState::Queued;
      list(c->slot, queued_);
    }
  }

  std::sort(out_.unloads.begin(), out_.unloads.end());
  std::sort(out_.cancels.begin(), out_.cancels.end());
  st.queued = queued_.size();
  st.loading = loading_;
  st.loaded = resident_.size() - loading_;
  out_.stats = st;
  return out_;
}

template <class S>
void Streamer<S>::validate() const {
  auto broken = [](const std::string& what) { throw std::logic_error("quadrant: streaming: validate: " + what); };
  tree_.validate();
  if (tree_.size() != index_.size()) broken("tree size differs from the id map's");
  std::size_t alive = 0, loading = 0;
  for (std::uint32_t slot = 0; slot < objects_.size(); ++slot) {
    const Object& o = objects_[slot];
    if (!o.alive) continue;
    ++alive;
    const auto it = index_.find(o.id);
    if (it == index_.end() || it->second != slot) broken("slot " + std::to_string(slot) + " not in the id map");
    if (!tree_.contains(o.handle) || tree_.value(o.handle) != slot) broken("slot " + std::to_string(slot) + " not in the tree");
    const box_type& tb = tree_.bounds(o.handle);
    for (int i = 0; i < 3; ++i)
      if (tb.min[i] != o.bounds.min[i] || tb.max[i] != o.bounds.max[i]) broken("tree bounds differ for slot " + std::to_string(slot));
    if (o.state == StreamState::Loading) ++loading;
    const std::vector<std::uint32_t>* on = o.state == StreamState::Queued ? &queued_
                                           : o.state == StreamState::Unloaded ? nullptr
                                                                               : &resident_;
    if (on == nullptr) {
      if (o.listed_at != kNone) broken("an Unloaded object is listed");
    } else if (o.listed_at >= on->size() || (*on)[o.listed_at] != slot) {
      broken("slot " + std::to_string(slot) + " missing from its state's list");
    }
  }
  if (alive != index_.size()) broken("live slots differ from the id map's size");
  if (loading != loading_) broken("Loading count is off");
  if (alive + free_slots_.size() != objects_.size()) broken("free slots and live slots do not add up");
  for (const std::uint32_t slot : queued_)
    if (!objects_[slot].alive || objects_[slot].state != StreamState::Queued) broken("queued_ lists a non-Queued slot");
  for (const std::uint32_t slot : resident_)
    if (!objects_[slot].alive ||
        (objects_[slot].state != StreamState::Loading && objects_[slot].state != StreamState::Loaded))
      broken("resident_ lists a non-resident slot");
}

}  // namespace quadrant

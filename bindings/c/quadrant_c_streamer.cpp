// SPDX-License-Identifier: MIT
// The C API's streaming (quadrant_streamer_*): a Streamer<float> or Streamer<double> behind one interface. An
// update's loads, unloads and cancels are handed out as arrays the streamer owns (one crossing per frame).
#include "quadrant_c_common.hpp"

#include <quadrant/streaming.hpp>

using namespace quadrant_c;

struct quadrant_streamer {
  virtual ~quadrant_streamer() = default;
  virtual void add(std::uint64_t id, const double* min, const double* max) = 0;
  virtual quadrant_stream_state remove(std::uint64_t id) = 0;
  virtual void move(std::uint64_t id, const double* min, const double* max) = 0;
  virtual bool mark_loaded(std::uint64_t id) = 0;
  virtual bool mark_failed(std::uint64_t id) = 0;
  virtual void set_limits(std::size_t per_update, std::size_t in_flight) noexcept = 0;
  virtual quadrant_stream_update update(const quadrant_stream_source* sources, std::size_t n) = 0;
  virtual bool contains(std::uint64_t id) const noexcept = 0;
  virtual quadrant_stream_state state(std::uint64_t id) const = 0;
  virtual void bounds(std::uint64_t id, double* min, double* max) const = 0;
  virtual std::size_t size() const noexcept = 0;
  virtual void validate() const = 0;
};

namespace {

quadrant_stream_state state_of(quadrant::StreamState s) noexcept {
  switch (s) {
    case quadrant::StreamState::Unloaded: return QUADRANT_STREAM_UNLOADED;
    case quadrant::StreamState::Queued: return QUADRANT_STREAM_QUEUED;
    case quadrant::StreamState::Loading: return QUADRANT_STREAM_LOADING;
    case quadrant::StreamState::Loaded: return QUADRANT_STREAM_LOADED;
  }
  return QUADRANT_STREAM_UNLOADED;
}

template <class S>
struct StreamerC final : quadrant_streamer {
  explicit StreamerC(const quadrant::StreamerConfig<S>& c) : streamer(c) {}
  quadrant::Streamer<S> streamer;
  std::vector<quadrant::StreamingSource<S>> sources;  // reused by every update
  std::vector<quadrant_stream_load> loads;            // the last update's loads, as C values
  std::vector<quadrant_stream_load> spare_loads;      // the next update's, until it succeeds

  void add(std::uint64_t id, const double* min, const double* max) override {
    streamer.add(id, box_of<3, S>(min, max));
  }
  quadrant_stream_state remove(std::uint64_t id) override { return state_of(streamer.remove(id)); }
  void move(std::uint64_t id, const double* min, const double* max) override {
    streamer.move(id, box_of<3, S>(min, max));
  }
  bool mark_loaded(std::uint64_t id) override { return streamer.mark_loaded(id); }
  bool mark_failed(std::uint64_t id) override { return streamer.mark_failed(id); }
  void set_limits(std::size_t per_update, std::size_t in_flight) noexcept override {
    streamer.set_limits(per_update, in_flight);
  }
  quadrant_stream_update update(const quadrant_stream_source* in, std::size_t n) override {
    if (n != 0) need(in, "sources");
    // The sources and the loads' room first: once the streamer has updated, nothing may throw.
    sources.clear();
    for (std::size_t i = 0; i < n; ++i) {
      const quadrant_stream_source& c = in[i];
      quadrant::StreamingSource<S> s;
      if (c.has_frustum != 0) s.frustum = frustum_of<S>(c.matrix, c.matrix_row_major, c.clip_zero_to_one);
      s.position = vec_of<3, S>(c.position, "position");
      s.prefetch_radius = scalar_of<S>(c.prefetch_radius, "streamer: update: prefetch_radius");
      sources.push_back(s);
    }
    // The new loads go to the spare array, handed out only once the update succeeded: a refused update leaves the
    // previous update's arrays as they were.
    spare_loads.clear();
    spare_loads.reserve(streamer.config().max_loads_per_update < streamer.size()
                            ? streamer.config().max_loads_per_update
                            : streamer.size());
    const quadrant::StreamUpdate<S>& u = streamer.update(std::span<const quadrant::StreamingSource<S>>(sources));
    for (const auto& l : u.loads) spare_loads.push_back(quadrant_stream_load{l.id, static_cast<double>(l.distance)});
    loads.swap(spare_loads);
    const quadrant::StreamStats& st = u.stats;
    return quadrant_stream_update{loads.data(),
                                  loads.size(),
                                  u.unloads.data(),
                                  u.unloads.size(),
                                  u.cancels.data(),
                                  u.cancels.size(),
                                  quadrant_stream_stats{st.nodes_visited, st.box_tests, st.kept_tests, st.wanted,
                                                        st.dequeued, st.queued, st.loading, st.loaded}};
  }
  bool contains(std::uint64_t id) const noexcept override { return streamer.contains(id); }
  quadrant_stream_state state(std::uint64_t id) const override { return state_of(streamer.state(id)); }
  void bounds(std::uint64_t id, double* min, double* max) const override {
    need(min, "min");
    need(max, "max");
    put_box(streamer.bounds(id), min, max);
  }
  std::size_t size() const noexcept override { return streamer.size(); }
  void validate() const override { streamer.validate(); }
};

template <class S>
quadrant_streamer* make_streamer(const quadrant_streamer_config& c) {
  quadrant::StreamerConfig<S> sc;
  sc.tree = config_of<3, S>(c.tree);
  sc.unload_margin = scalar_of<S>(c.unload_margin, "quadrant_streamer_config::unload_margin");
  sc.max_loads_per_update = c.max_loads_per_update;
  sc.max_loads_in_flight = c.max_loads_in_flight;
  return new StreamerC<S>(sc);
}

}  // namespace

extern "C" {

void quadrant_streamer_config_init(quadrant_streamer_config* config, quadrant_scalar scalar) {
  if (config == nullptr) return;
  *config = quadrant_streamer_config{};
  quadrant_config_init(&config->tree, 3, scalar);
  const quadrant::StreamerConfig<float> defaults{};
  config->unload_margin = defaults.unload_margin;
  config->max_loads_per_update = defaults.max_loads_per_update;
  config->max_loads_in_flight = defaults.max_loads_in_flight;
}
quadrant_status quadrant_streamer_create(const quadrant_streamer_config* config, quadrant_streamer** out) {
  if (out != nullptr) *out = nullptr;
  return on(config, "config", [&] {
    need(out, "out");
    if (config->tree.dims != 3)
      invalid("quadrant_streamer_config::tree.dims is " + std::to_string(config->tree.dims) + "; a streamer is 3D");
    *out = is_float(config->tree.scalar, "quadrant_streamer_config::tree.scalar") ? make_streamer<float>(*config)
                                                                                 : make_streamer<double>(*config);
  });
}
void quadrant_streamer_destroy(quadrant_streamer* streamer) { delete streamer; }

quadrant_status quadrant_streamer_add(quadrant_streamer* streamer, uint64_t id, const double* min, const double* max) {
  return on(streamer, "streamer", [&] { streamer->add(id, min, max); });
}
quadrant_status quadrant_streamer_remove(quadrant_streamer* streamer, uint64_t id, quadrant_stream_state* was) {
  return on(streamer, "streamer", [&] {
    const quadrant_stream_state s = streamer->remove(id);
    if (was != nullptr) *was = s;
  });
}
quadrant_status quadrant_streamer_move(quadrant_streamer* streamer, uint64_t id, const double* min,
                                       const double* max) {
  return on(streamer, "streamer", [&] { streamer->move(id, min, max); });
}
quadrant_status quadrant_streamer_mark_loaded(quadrant_streamer* streamer, uint64_t id, int* accepted) {
  return on(streamer, "streamer", [&] {
    const bool ok = streamer->mark_loaded(id);
    if (accepted != nullptr) *accepted = ok ? 1 : 0;
  });
}
quadrant_status quadrant_streamer_mark_failed(quadrant_streamer* streamer, uint64_t id, int* accepted) {
  return on(streamer, "streamer", [&] {
    const bool ok = streamer->mark_failed(id);
    if (accepted != nullptr) *accepted = ok ? 1 : 0;
  });
}
quadrant_status quadrant_streamer_set_limits(quadrant_streamer* streamer, size_t max_loads_per_update,
                                             size_t max_loads_in_flight) {
  return on(streamer, "streamer", [&] { streamer->set_limits(max_loads_per_update, max_loads_in_flight); });
}
quadrant_status quadrant_streamer_update(quadrant_streamer* streamer, const quadrant_stream_source* sources,
                                         size_t count, quadrant_stream_update* out) {
  return on(streamer, "streamer", [&] {
    need(out, "out");
    *out = streamer->update(sources, count);
  });
}
int quadrant_streamer_contains(const quadrant_streamer* streamer, uint64_t id) {
  return streamer != nullptr && streamer->contains(id) ? 1 : 0;
}
quadrant_status quadrant_streamer_state(const quadrant_streamer* streamer, uint64_t id, quadrant_stream_state* state) {
  return on(streamer, "streamer", [&] {
    need(state, "state");
    *state = streamer->state(id);
  });
}
quadrant_status quadrant_streamer_bounds(const quadrant_streamer* streamer, uint64_t id, double* min, double* max) {
  return on(streamer, "streamer", [&] { streamer->bounds(id, min, max); });
}
size_t quadrant_streamer_size(const quadrant_streamer* streamer) { return streamer != nullptr ? streamer->size() : 0; }
quadrant_status quadrant_streamer_validate(const quadrant_streamer* streamer) {
  return validated(streamer, "quadrant: streamer is NULL", [&] { streamer->validate(); });
}

}  // extern "C"

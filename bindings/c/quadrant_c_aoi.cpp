// SPDX-License-Identifier: MIT
// The C API's area of interest (quadrant_aoi_*): an AoiWorld<float> or AoiWorld<double> behind one interface. A
// tick's events are gathered into an array the world owns, so a caller in another language crosses the boundary
// once per tick, not once per event.
#include "quadrant_c_common.hpp"

#include <quadrant/aoi.hpp>

using namespace quadrant_c;

struct quadrant_aoi {
  virtual ~quadrant_aoi() = default;
  virtual void add(std::uint64_t id, double x, double y, double view_radius, int mode, std::uint32_t layers,
                   double body_radius) = 0;
  virtual void move(std::uint64_t id, double x, double y) = 0;
  virtual void move_many(const std::uint64_t* ids, const double* xy, std::size_t n) = 0;
  virtual void set_view_radius(std::uint64_t id, double r) = 0;
  virtual void set_layers(std::uint64_t id, std::uint32_t layers) = 0;
  virtual void remove(std::uint64_t id) = 0;
  virtual const std::vector<quadrant_aoi_event>& tick() = 0;
  virtual void visible(std::uint64_t id, IdSink& out) const = 0;
  virtual void watchers(std::uint64_t id, IdSink& out) const = 0;
  virtual void query(const quadrant_shape& shape, std::uint32_t layers, IdSink& out) const = 0;
  virtual bool contains(std::uint64_t id) const noexcept = 0;
  virtual std::size_t size() const noexcept = 0;
  virtual std::size_t pair_count() const noexcept = 0;
  virtual void position(std::uint64_t id, double* xy) const = 0;
  virtual void validate() const = 0;
};

namespace {

template <class S>
struct AoiC final : quadrant_aoi {
  using V = quadrant::Vec<2, S>;
  explicit AoiC(const quadrant::AoiSettings<S>& s) : world(s) {}
  quadrant::AoiWorld<S> world;
  std::vector<quadrant_aoi_event> events;        // the last tick's, reused
  std::vector<quadrant_aoi_event> spare_events;  // the next tick's, until it succeeds

  static V at(double x, double y) { return V{scalar_of<S>(x, "aoi: x"), scalar_of<S>(y, "aoi: y")}; }

  void add(std::uint64_t id, double x, double y, double view_radius, int mode, std::uint32_t layers,
           double body_radius) override {
    // Checked here as an int: a value outside the enum must not wrap into one of its members.
    if (mode < QUADRANT_AOI_WATCHER || mode > QUADRANT_AOI_BOTH)
      invalid("aoi: add: mode is " + std::to_string(mode) + ", not a quadrant_aoi_mode");
    world.add(id, at(x, y), scalar_of<S>(view_radius, "aoi: add: view_radius"), static_cast<quadrant::AoiMode>(mode),
              layers, scalar_of<S>(body_radius, "aoi: add: body_radius"));
  }
  void move(std::uint64_t id, double x, double y) override { world.move(id, at(x, y)); }
  void move_many(const std::uint64_t* ids, const double* xy, std::size_t n) override {
    if (n == 0) return;
    need(ids, "ids");
    need(xy, "xy");
    // Every check move() makes, first (the same function), so that a bad entry moves nothing.
    for (std::size_t i = 0; i < n; ++i) {
      try {
        quadrant::detail::aoi::check_position(at(xy[2 * i], xy[2 * i + 1]), "move_many");
      } catch (const std::invalid_argument& e) {
        invalid(std::string(e.what()) + " (entry " + std::to_string(i) + ")");
      }
      if (!world.contains(ids[i])) invalid("aoi: move_many: id " + std::to_string(ids[i]) + " is not in the world");
    }
    for (std::size_t i = 0; i < n; ++i) world.move(ids[i], at(xy[2 * i], xy[2 * i + 1]));
  }
  void set_view_radius(std::uint64_t id, double r) override {
    world.set_view_radius(id, scalar_of<S>(r, "aoi: set_view_radius: view_radius"));
  }
  void set_layers(std::uint64_t id, std::uint32_t layers) override { world.set_layers(id, layers); }
  void remove(std::uint64_t id) override { world.remove(id); }
  const std::vector<quadrant_aoi_event>& tick() override {
    // Into the spare array, handed out only once the tick succeeded: a failed tick leaves the previous events.
    spare_events.clear();
    world.tick([&](const quadrant::AoiEvent& e) {
      spare_events.push_back(quadrant_aoi_event{e.watcher, e.target,
                                          e.kind == quadrant::AoiEvent::Kind::Enter ? QUADRANT_AOI_ENTER
                                                                                    : QUADRANT_AOI_LEAVE,
                                          0});
    });
    events.swap(spare_events);
    return events;
  }
  void visible(std::uint64_t id, IdSink& out) const override { world.for_each_visible(id, std::ref(out)); }
  void watchers(std::uint64_t id, IdSink& out) const override { world.for_each_watcher(id, std::ref(out)); }
  void query(const quadrant_shape& shape, std::uint32_t layers, IdSink& out) const override {
    with_shape<2, S>(shape, [&](const auto& s) { world.query(s, std::ref(out), layers); });
  }
  bool contains(std::uint64_t id) const noexcept override { return world.contains(id); }
  std::size_t size() const noexcept override { return world.size(); }
  std::size_t pair_count() const noexcept override { return world.pair_count(); }
  void position(std::uint64_t id, double* xy) const override {
    need(xy, "xy");
    const V p = world.position(id);
    xy[0] = static_cast<double>(p.x), xy[1] = static_cast<double>(p.y);
  }
  void validate() const override { world.validate(); }
};

template <class S>
quadrant_aoi* make_aoi(const quadrant_aoi_settings& c) {
  quadrant::AoiSettings<S> s;
  s.world = quadrant::Box<2, S>{vec_of<2, S>(c.world_min, "quadrant_aoi_settings::world_min"),
                                vec_of<2, S>(c.world_max, "quadrant_aoi_settings::world_max")};
  s.hysteresis = scalar_of<S>(c.hysteresis, "quadrant_aoi_settings::hysteresis");
  s.skin = scalar_of<S>(c.skin, "quadrant_aoi_settings::skin");
  s.max_depth = c.max_depth;
  s.split_threshold = c.split_threshold;
  return new AoiC<S>(s);
}

// Runs a buffer-filling read: ids up to capacity, *count all of them.
template <class Read>
quadrant_status fill_ids(const quadrant_aoi* aoi, std::uint64_t* ids, std::size_t capacity, std::size_t* count,
                         Read&& read) {
  if (count != nullptr) *count = 0;
  return on(aoi, "aoi", [&] {
    need(count, "count");
    IdSink sink{ids, capacity};
    read(sink);
    *count = sink.count;
  });
}

}  // namespace

extern "C" {

void quadrant_aoi_settings_init(quadrant_aoi_settings* settings, quadrant_scalar scalar) {
  if (settings == nullptr) return;
  *settings = quadrant_aoi_settings{};
  settings->scalar = scalar;
  settings->world_max[0] = settings->world_max[1] = 1000;
  const quadrant::AoiSettings<float> defaults{};
  settings->hysteresis = defaults.hysteresis;
  settings->skin = defaults.skin;
  settings->max_depth = defaults.max_depth;
  settings->split_threshold = defaults.split_threshold;
}
quadrant_status quadrant_aoi_create(const quadrant_aoi_settings* settings, quadrant_aoi** out) {
  if (out != nullptr) *out = nullptr;
  return on(settings, "settings", [&] {
    need(out, "out");
    *out = is_float(settings->scalar, "quadrant_aoi_settings::scalar") ? make_aoi<float>(*settings)
                                                                         : make_aoi<double>(*settings);
  });
}
void quadrant_aoi_destroy(quadrant_aoi* aoi) { delete aoi; }

quadrant_status quadrant_aoi_add(quadrant_aoi* aoi, uint64_t id, double x, double y, double view_radius,
                                 quadrant_aoi_mode mode, uint32_t layers, double body_radius) {
  return on(aoi, "aoi", [&] { aoi->add(id, x, y, view_radius, as_int(mode), layers, body_radius); });
}
quadrant_status quadrant_aoi_move(quadrant_aoi* aoi, uint64_t id, double x, double y) {
  return on(aoi, "aoi", [&] { aoi->move(id, x, y); });
}
quadrant_status quadrant_aoi_move_many(quadrant_aoi* aoi, const uint64_t* ids, const double* xy, size_t count) {
  return on(aoi, "aoi", [&] { aoi->move_many(ids, xy, count); });
}
quadrant_status quadrant_aoi_set_view_radius(quadrant_aoi* aoi, uint64_t id, double view_radius) {
  return on(aoi, "aoi", [&] { aoi->set_view_radius(id, view_radius); });
}
quadrant_status quadrant_aoi_set_layers(quadrant_aoi* aoi, uint64_t id, uint32_t layers) {
  return on(aoi, "aoi", [&] { aoi->set_layers(id, layers); });
}
quadrant_status quadrant_aoi_remove(quadrant_aoi* aoi, uint64_t id) {
  return on(aoi, "aoi", [&] { aoi->remove(id); });
}
quadrant_status quadrant_aoi_tick(quadrant_aoi* aoi, const quadrant_aoi_event** events, size_t* count) {
  if (events != nullptr) *events = nullptr;
  if (count != nullptr) *count = 0;
  return on(aoi, "aoi", [&] {
    need(events, "events");
    need(count, "count");
    const std::vector<quadrant_aoi_event>& e = aoi->tick();
    *events = e.data();
    *count = e.size();
  });
}
quadrant_status quadrant_aoi_visible(const quadrant_aoi* aoi, uint64_t watcher, uint64_t* ids, size_t capacity,
                                     size_t* count) {
  return fill_ids(aoi, ids, capacity, count, [&](IdSink& s) { aoi->visible(watcher, s); });
}
quadrant_status quadrant_aoi_watchers(const quadrant_aoi* aoi, uint64_t target, uint64_t* ids, size_t capacity,
                                      size_t* count) {
  return fill_ids(aoi, ids, capacity, count, [&](IdSink& s) { aoi->watchers(target, s); });
}
quadrant_status quadrant_aoi_query_into(const quadrant_aoi* aoi, const quadrant_shape* shape, uint32_t layers,
                                        uint64_t* ids, size_t capacity, size_t* count) {
  return fill_ids(aoi, ids, capacity, count, [&](IdSink& s) {
    need(shape, "shape");
    aoi->query(*shape, layers, s);
  });
}
int quadrant_aoi_contains(const quadrant_aoi* aoi, uint64_t id) { return aoi != nullptr && aoi->contains(id) ? 1 : 0; }
size_t quadrant_aoi_size(const quadrant_aoi* aoi) { return aoi != nullptr ? aoi->size() : 0; }
size_t quadrant_aoi_pair_count(const quadrant_aoi* aoi) { return aoi != nullptr ? aoi->pair_count() : 0; }
quadrant_status quadrant_aoi_position(const quadrant_aoi* aoi, uint64_t id, double* xy) {
  return on(aoi, "aoi", [&] { aoi->position(id, xy); });
}
quadrant_status quadrant_aoi_validate(const quadrant_aoi* aoi) {
  return validated(aoi, "quadrant: aoi is NULL", [&] { aoi->validate(); });
}

}  // extern "C"

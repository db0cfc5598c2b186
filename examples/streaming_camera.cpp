// SPDX-License-Identifier: MIT
// Streaming a level around a camera: 4,000 props on a 1 km map are loaded asynchronously as they come into the
// camera's view (its frustum, from the view-projection matrix a renderer has anyway) or near the player, and
// released once they have left it. The loader here is a queue that finishes each load three frames after it
// starts; one prop in fifty sits on a flaky disk whose loads fail until frame 300, and the streamer asks for it
// again while it is wanted. At the end, with the camera still and the loads done, every prop in view must be
// resident.
#include <quadrant/streaming.hpp>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <random>
#include <span>

namespace {

using Vec3 = quadrant::Vec<3, float>;

// A column-major view-projection matrix (OpenGL conventions): a camera at `eye` looking along yaw (radians about
// +y, 0 looks down -z), slightly down, with a 60-degree vertical field of view.
std::array<float, 16> view_projection(Vec3 eye, float yaw) {
  const float pitch = -0.15f, fovy = 1.047f, aspect = 16.0f / 9, n = 0.5f, f = 300;
  const Vec3 fwd{-std::sin(yaw) * std::cos(pitch), std::sin(pitch), -std::cos(yaw) * std::cos(pitch)};
  const Vec3 side{std::cos(yaw), 0, -std::sin(yaw)};  // fwd x up, normalised
  const Vec3 up{side.y * fwd.z - side.z * fwd.y, side.z * fwd.x - side.x * fwd.z, side.x * fwd.y - side.y * fwd.x};
  const float t = 1 / std::tan(fovy / 2);
  auto dot = [](Vec3 a, Vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; };
  // Rows of projection x view.
  const std::array<float, 4> r0{t / aspect * side.x, t / aspect * side.y, t / aspect * side.z, -t / aspect * dot(side, eye)};
  const std::array<float, 4> r1{t * up.x, t * up.y, t * up.z, -t * dot(up, eye)};
  const float a = (f + n) / (n - f), b = 2 * f * n / (n - f);
  const std::array<float, 4> r2{-a * fwd.x, -a * fwd.y, -a * fwd.z, a * dot(fwd, eye) + b};
  const std::array<float, 4> r3{fwd.x, fwd.y, fwd.z, -dot(fwd, eye)};  // w: the depth in front of the eye
  std::array<float, 16> m{};
  for (int c = 0; c < 4; ++c) {
    m[4 * c + 0] = r0[c];
    m[4 * c + 1] = r1[c];
    m[4 * c + 2] = r2[c];
    m[4 * c + 3] = r3[c];
  }
  return m;
}

struct PendingLoad {
  std::uint64_t id;
  int done_at;  // the frame the load completes
};

}  // namespace

int main() {
  quadrant::StreamerConfig<float> config;
  config.tree.world = {{0, 0, 0}, {1024, 64, 1024}};
  config.unload_margin = 16;       // what the camera moves while a load runs, and then some
  config.max_loads_per_update = 64;
  config.max_loads_in_flight = 192;
  quadrant::Streamer<float> streamer(config);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> at(0, 1016), size(1, 8);
  for (std::uint64_t id = 0; id < 4000; ++id) {
    const float x = at(rng), z = at(rng), s = size(rng);
    streamer.add(id, {{x, 0, z}, {x + s, s, z + s}});
  }

  std::deque<PendingLoad> loader;
  std::size_t loads = 0, unloads = 0, cancels = 0, failures = 0, peak = 0;
  quadrant::Frustum<float> last_view = quadrant::Frustum<float>::from_view_projection(view_projection({0, 0, 0}, 0));
  for (int frame = 0; frame < 400; ++frame) {
    // 1. Completions first: they free in-flight slots for this frame's loads.
    while (!loader.empty() && loader.front().done_at <= frame) {
      const std::uint64_t id = loader.front().id;
      loader.pop_front();
      // A cancelled load finishes late: mark_* return false and the asset is simply dropped.
      if (id % 50 == 7 && frame < 300) {
        failures += streamer.mark_failed(id);
      } else {
        streamer.mark_loaded(id);
      }
    }
    // 2. The camera flies a circle for 300 frames, then hovers; a ball of prefetch around it.
    const float t = float(std::min(frame, 300)) * 0.01f;
    const Vec3 eye{512 + 300 * std::cos(t), 20, 512 + 300 * std::sin(t)};
    const float yaw = -t;  // looking along the circle
    last_view = quadrant::Frustum<float>::from_view_projection(view_projection(eye, yaw));
    const quadrant::StreamingSource<float> source{last_view, eye, 30.0f};
    // 3. Decide, then act.
    const quadrant::StreamUpdate<float>& u = streamer.update(std::span(&source, 1));
    for (const quadrant::StreamLoad<float>& l : u.loads) loader.push_back({l.id, frame + 3});
    loads += u.loads.size();
    unloads += u.unloads.size();
    cancels += u.cancels.size();
    peak = std::max(peak, streamer.loaded());
    if (frame % 100 == 0)
      std::printf("frame %3d: %zu loads, %zu unloads, %zu resident, %zu loading, %zu of 4000 boxes tested\n", frame,
                  u.loads.size(), u.unloads.size(), streamer.loaded(), streamer.loading(), u.stats.objects_tested());
  }
  std::printf("in all: %zu loads, %zu unloads, %zu cancels, %zu failed loads retried; at most %zu resident\n", loads,
              unloads, cancels, failures, peak);

  // Every prop in view is resident now.
  int missing = 0;
  streamer.for_each([&](std::uint64_t, const quadrant::Box<3, float>& box, quadrant::StreamState state) {
    if (quadrant::overlaps(last_view, box) && state != quadrant::StreamState::Loaded) ++missing;
  });
  std::printf("props in view not resident: %d\n", missing);
  streamer.validate();
  return missing == 0 && unloads > 0 && failures > 0 ? 0 : 1;
}

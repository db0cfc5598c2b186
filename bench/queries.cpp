// SPDX-License-Identifier: MIT
// Query cost per shape on a static scene, against testing every object (the same exact predicate, prepared once,
// no index).
//
//   cmake -S . -B build/bench -DCMAKE_BUILD_TYPE=Release -DQUADRANT_BUILD_BENCH=ON
//   cmake --build build/bench --target bench_queries && build/bench/bench/bench_queries --benchmark_repetitions=5
//       --benchmark_report_aggregates_only=true
//
// Scene: 100k boxes of side 1-5 in a 1000 x 1000 world (2D) or 1000^3 (3D), Loose placement, default Config.
// Each iteration runs one query from a fixed list of 256 (shapes of about 1% of the world's area); the counters
// report hits and object boxes tested per query.
#include <benchmark/benchmark.h>

#include <quadrant/quadrant.hpp>

#include <array>
#include <cmath>
#include <numbers>
#include <random>
#include <vector>

namespace {

using namespace quadrant;

constexpr int kObjects = 100'000;
constexpr float kWorld = 1000;

template <int D>
struct Scene {
  Tree<D, int, float> tree{Config<D, float>{.world = world()}};
  std::vector<Box<D, float>> boxes;

  static Box<D, float> world() {
    Box<D, float> w;
    for (int i = 0; i < D; ++i) {
      w.min[i] = 0;
      w.max[i] = kWorld;
    }
    return w;
  }
  Scene() {
    std::mt19937 rng(42);
    std::uniform_real_distribution<float> pos(0, kWorld - 5), side(1, 5);
    for (int k = 0; k < kObjects; ++k) {
      Box<D, float> b;
      for (int i = 0; i < D; ++i) {
        b.min[i] = pos(rng);
        b.max[i] = b.min[i] + side(rng);
      }
      boxes.push_back(b);
      tree.insert(b, k);
    }
  }
};

const Scene<2>& scene2() {
  static const Scene<2> s;
  return s;
}
const Scene<3>& scene3() {
  static const Scene<3> s;
  return s;
}

// 256 shapes built by `make(rng)`, cycled through.
template <class Shape, class Make>
std::vector<Shape> shapes(Make make) {
  std::mt19937 rng(7);
  std::vector<Shape> v;
  for (int i = 0; i < 256; ++i) v.push_back(make(rng));
  return v;
}

Vec2 point2(std::mt19937& rng) {
  std::uniform_real_distribution<float> u(0, kWorld);
  return {u(rng), u(rng)};
}
float angle(std::mt19937& rng) { return std::uniform_real_distribution<float>(0, 6.28f)(rng); }

// r = 56 makes a disc of about 1% of the world's area; the other shapes are of similar size.
std::vector<Box2> boxes_q() {
  return shapes<Box2>([](std::mt19937& rng) {
    const Vec2 c = point2(rng);
    return Box2{{c.x - 50, c.y - 50}, {c.x + 50, c.y + 50}};
  });
}
std::vector<Circle<float>> circles() {
  return shapes<Circle<float>>([](std::mt19937& rng) { return Circle<float>{point2(rng), 56}; });
}
std::vector<Ring<float>> rings() {
  return shapes<Ring<float>>([](std::mt19937& rng) { return Ring<float>{point2(rng), 40, 68}; });
}
std::vector<Ellipse<float>> ellipses() {
  return shapes<Ellipse<float>>([](std::mt19937& rng) { return Ellipse<float>{point2(rng), {90, 35}, angle(rng)}; });
}
std::vector<Sector<float>> sectors() {
  return shapes<Sector<float>>([](std::mt19937& rng) {
    const float a = angle(rng);
    return Sector<float>{point2(rng), {std::cos(a), std::sin(a)}, 100, 0.5f};
  });
}
std::vector<OrientedBox<float>> obbs() {
  return shapes<OrientedBox<float>>([](std::mt19937& rng) { return OrientedBox<float>{point2(rng), {80, 30}, angle(rng)}; });
}
std::vector<ConvexPolygon<float>> polygons() {
  return shapes<ConvexPolygon<float>>([](std::mt19937& rng) {
    const Vec2 c = point2(rng);
    std::array<Vec2, 6> v;
    for (int k = 0; k < 6; ++k) {
      const float a = float(k) * std::numbers::pi_v<float> / 3;
      v[static_cast<std::size_t>(k)] = {c.x + 60 * std::cos(a), c.y + 60 * std::sin(a)};
    }
    return ConvexPolygon<float>{std::span<const Vec2>(v)};
  });
}
std::vector<Segment<2, float>> segments() {
  return shapes<Segment<2, float>>([](std::mt19937& rng) { return Segment<2, float>{point2(rng), point2(rng)}; });
}

template <int D, class Shape>
void run_tree(benchmark::State& state, const Scene<D>& s, const std::vector<Shape>& qs) {
  std::size_t i = 0, hits = 0, tests = 0, queries = 0;
  for (auto _ : state) {
    const QueryStats st = s.tree.query(qs[i++ & 255], [](const int& v) { benchmark::DoNotOptimize(v); });
    hits += st.hits;
    tests += st.box_tests;
    ++queries;
  }
  state.counters["hits"] = double(hits) / double(queries);
  state.counters["tested"] = double(tests) / double(queries);
}

template <class Shape>
void run_scan(benchmark::State& state, const std::vector<Shape>& qs) {
  const auto& s = scene2();
  std::size_t i = 0, hits = 0, queries = 0;
  for (auto _ : state) {
    // The shape's set-up (an ellipse's or sector's trigonometry) done once, as a careful scan would.
    decltype(auto) q = detail::prepare(qs[i++ & 255]);
    for (const Box2& b : s.boxes) hits += overlaps(q, b);
    ++queries;
  }
  state.counters["hits"] = double(hits) / double(queries);
}

#define QUERY_BENCH(name, make)                                                              \
  void BM_tree_##name(benchmark::State& state) { run_tree(state, scene2(), make()); }                \
  void BM_scan_##name(benchmark::State& state) { run_scan(state, make()); }                  \
  BENCHMARK(BM_tree_##name)->Unit(benchmark::kMicrosecond);                                  \
  BENCHMARK(BM_scan_##name)->Unit(benchmark::kMicrosecond)

QUERY_BENCH(box, boxes_q);
QUERY_BENCH(circle, circles);
QUERY_BENCH(ring, rings);
QUERY_BENCH(ellipse, ellipses);
QUERY_BENCH(sector, sectors);
QUERY_BENCH(oriented_box, obbs);
QUERY_BENCH(polygon, polygons);
QUERY_BENCH(segment, segments);

void BM_tree_raycast_first(benchmark::State& state) {
  const auto& s = scene2();
  const auto qs = segments();
  std::size_t i = 0;
  for (auto _ : state)
    s.tree.raycast(qs[i++ & 255], [](Handle, const int& v, float) {
      benchmark::DoNotOptimize(v);
      return false;
    });
}
BENCHMARK(BM_tree_raycast_first)->Unit(benchmark::kMicrosecond);

void BM_tree_raycast_all(benchmark::State& state) {
  const auto& s = scene2();
  const auto qs = segments();
  std::size_t i = 0;
  for (auto _ : state) s.tree.raycast(qs[i++ & 255], [](Handle, const int& v, float) { benchmark::DoNotOptimize(v); });
}
BENCHMARK(BM_tree_raycast_all)->Unit(benchmark::kMicrosecond);

void BM_tree_nearest(benchmark::State& state) {
  const auto& s = scene2();
  const std::size_t k = static_cast<std::size_t>(state.range(0));
  std::vector<Neighbor<float>> out;
  std::mt19937 rng(3);
  std::vector<Vec2> ps;
  for (int n = 0; n < 256; ++n) ps.push_back(point2(rng));
  std::size_t i = 0;
  for (auto _ : state) {
    s.tree.nearest(ps[i++ & 255], k, out);
    benchmark::DoNotOptimize(out.data());
  }
}
BENCHMARK(BM_tree_nearest)->Arg(1)->Arg(10)->Unit(benchmark::kMicrosecond);

void BM_scan_nearest1(benchmark::State& state) {
  const auto& s = scene2();
  std::mt19937 rng(3);
  std::vector<Vec2> ps;
  for (int n = 0; n < 256; ++n) ps.push_back(point2(rng));
  std::size_t i = 0;
  for (auto _ : state) {
    const Vec2 p = ps[i++ & 255];
    float best = std::numeric_limits<float>::infinity();
    for (const Box2& b : s.boxes) best = std::min(best, distance_squared(p, b));
    benchmark::DoNotOptimize(best);
  }
}
BENCHMARK(BM_scan_nearest1)->Unit(benchmark::kMicrosecond);

// 3D: spheres and a camera frustum (60 degree field of view, 300 deep) over 100k boxes in 1000^3.
std::array<float, 16> camera(std::mt19937& rng) {
  std::uniform_real_distribution<float> u(100, 900);
  const float ex = u(rng), ey = u(rng), ez = u(rng);
  const float t = 1 / std::tan(0.5f), n = 1, f = 300;
  std::array<float, 16> m{};  // perspective * translate(-eye), looking down -z
  m[0] = t;
  m[5] = t;
  m[10] = -(f + n) / (f - n);
  m[11] = -1;
  m[12] = -t * ex;
  m[13] = -t * ey;
  m[14] = -2 * f * n / (f - n) - m[10] * ez;
  m[15] = ez;
  return m;
}

void BM_tree_sphere(benchmark::State& state) {
  const auto& s = scene3();
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> u(0, kWorld);
  std::vector<Sphere<float>> qs;
  for (int n = 0; n < 256; ++n) qs.push_back({{u(rng), u(rng), u(rng)}, 134});  // 1% of the volume
  run_tree(state, s, qs);
}
BENCHMARK(BM_tree_sphere)->Unit(benchmark::kMicrosecond);

void BM_frustum(benchmark::State& state, bool use_tree) {
  const auto& s = scene3();
  std::mt19937 rng(5);
  std::vector<Frustum<float>> qs;
  for (int n = 0; n < 256; ++n) qs.push_back(Frustum<float>::from_view_projection(camera(rng)));
  std::size_t i = 0, hits = 0, tests = 0, queries = 0;
  for (auto _ : state) {
    const Frustum<float>& q = qs[i++ & 255];
    if (use_tree) {
      const QueryStats st = s.tree.query(q, [](const int& v) { benchmark::DoNotOptimize(v); });
      hits += st.hits;
      tests += st.box_tests;
    } else {
      for (const Box3& b : s.boxes) hits += overlaps(q, b);
      tests += s.boxes.size();
    }
    ++queries;
  }
  state.counters["hits"] = double(hits) / double(queries);
  state.counters["tested"] = double(tests) / double(queries);
}
BENCHMARK_CAPTURE(BM_frustum, tree, true)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_frustum, scan, false)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();

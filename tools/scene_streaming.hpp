// SPDX-License-Identifier: MIT
// quadrant tool — scenario `scene-streaming`: the scene-management article (seeds/003, Unity C#) reproduced.
//
// Objects with 3D bounds stand on a map; a camera flies a closed path over it. Each frame the octree's frustum
// query gives the visible set, and the difference with the previous frame's is what a streamer loads (came into
// view) and unloads (left it). Every frame is checked three ways: against a scan testing every object with the
// same frustum predicate (the same set), against the article's own per-object test — clip-space out-codes of the
// eight corners — which is looser (ours must be a subset of it), and against the objects whose center projects
// strictly inside the clip volume (they must all be there).
//
// Then quadrant::Streamer flies the same path (issue 7): prefetch radius, unload margin, caps on loads per frame
// and in flight, loads that finish a few frames later; every frame its requests and every object's state are
// checked against BruteForceStreamer, which tests every object and runs the state machine again. The picture
// shows that pass: objects by state, this frame's unloads and cancellations, and the octree nodes the frustum
// walk visited (pruned, reported whole, crossed).
//
// The article's own method runs beside it: a quadtree of depth 5 over the ground, objects filed by their position,
// every object of every node whose cell passes the out-code test loaded. It tests few nodes but loads objects far
// outside the view, and misses objects that reach into view from a cell that does not.
#pragma once

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <numbers>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include <quadrant/quadrant.hpp>
#include <quadrant/streaming.hpp>
#include <quadrant/svg.hpp>

#include <quadrant_support/brute_streamer.hpp>
#include <quadrant_support/camera.hpp>

#include "demo.hpp"
#include "figure.hpp"

namespace quadrant_tools::streaming {

using quadrant::Box3;
using quadrant::Vec3;
using quadrant_support::BruteForceStreamer;
using quadrant_support::Camera;
using quadrant_support::column_major;
using quadrant_support::Mat4;
using quadrant_support::view_projection;  // with kLens: the demo's camera

inline constexpr float kMapSide = 2048;  // the map is [0, 2048] on x and z; y is up, the ground at y = 0
inline constexpr int kDefaultObjects[] = {50000};
inline constexpr int kDefaultFrames = 240;
inline constexpr int kQuickObjects[] = {5000};
inline constexpr int kQuickFrames = 24;
inline constexpr Sizes kSizes{.objects_what = "objects on the map",
                              .objects = kDefaultObjects,
                              .objects_quick = kQuickObjects,
                              .objects_max = 1'000'000,
                              .objects_note = "",
                              .frames_what = "frames of the flight",
                              .frames = kDefaultFrames,
                              .frames_quick = kQuickFrames,
                              .frames_max = 100000,
                              .frames_capped = false,
                              .objects_x_frames_max = 0};
inline constexpr quadrant_support::Lens kLens{};  // 60 degrees vertical, 16:9, near 0.5, far 400
inline constexpr int kArticleDepth = 5;       // the article's maxDepth
inline constexpr float kArticleHeight = 128;  // the y extent of the article's cells (its mainBound)

/// Where the camera is on frame f of `frames`: a figure of eight over the map's center, 25..45 high, looking
/// along the path and down by about 12 degrees.
inline Camera camera_at(int frame, int frames) {
  const double t = 2 * std::numbers::pi * frame / frames;
  auto at = [](double a) {
    return Vec3{float(1024 + 700 * std::sin(a)), float(35 + 10 * std::sin(3 * a)), float(1024 + 450 * std::sin(2 * a))};
  };
  const Vec3 eye = at(t), ahead = at(t + 0.01);
  Vec3 dir = ahead - eye;
  dir.y = 0;
  const float len = std::sqrt(quadrant::dot(dir, dir));
  dir = dir * (1 / len);
  return {eye, {eye.x + dir.x, eye.y - 0.21f, eye.z + dir.z}};
}

/// The article's CheckBoundIsInCamera: the AND of the eight corners' clip-space out-codes is 0 (no single clip
/// plane has every corner outside it). Looser than quadrant's frustum test, which also checks the corners' box.
inline bool outcode_visible(const Mat4& m, const Box3& b) {
  int code = 63;
  for (int i = 0; i < 8; ++i) {
    const double p[3] = {(i & 1) ? b.max.x : b.min.x, (i & 2) ? b.max.y : b.min.y, (i & 4) ? b.max.z : b.min.z};
    double clip[4];
    for (int r = 0; r < 4; ++r) clip[r] = m[r][0] * p[0] + m[r][1] * p[1] + m[r][2] * p[2] + m[r][3];
    const double w = clip[3];
    int c = 0;
    if (clip[0] < -w) c |= 1;
    if (clip[0] > w) c |= 2;
    if (clip[1] < -w) c |= 4;
    if (clip[1] > w) c |= 8;
    if (clip[2] < -w) c |= 16;
    if (clip[2] > w) c |= 32;
    code &= c;
  }
  return code == 0;
}

/// True when the box's center projects strictly inside the clip volume (by a margin of 1e-4 of w): such a box
/// certainly meets the view, whatever the test.
inline bool center_in_view(const Mat4& m, const Box3& b) {
  const Vec3 c = quadrant::center(b);
  double clip[4];
  for (int r = 0; r < 4; ++r) clip[r] = m[r][0] * c.x + m[r][1] * c.y + m[r][2] * c.z + m[r][3];
  const double w = clip[3], in = w * (1 - 1e-4);
  return w > 0 && std::abs(clip[0]) < in && std::abs(clip[1]) < in && std::abs(clip[2]) < in;
}

/// The map: trees and rocks scattered everywhere, houses in villages, a few large landmarks (keeps, cliffs).
inline std::vector<Box3> make_scene(int objects, std::uint64_t seed) {
  Rng rng(seed);
  constexpr int kVillages = 16;
  std::array<Vec3, kVillages> villages{};
  for (Vec3& v : villages) v = {float(rng.uniform(150, kMapSide - 150)), 0, float(rng.uniform(150, kMapSide - 150))};
  std::vector<Box3> out;
  out.reserve(std::size_t(objects));
  for (int i = 0; i < objects; ++i) {
    const double kind = rng.unit();
    double x, z, side, height;
    if (kind < 0.01) {  // landmark
      x = rng.uniform(0, kMapSide), z = rng.uniform(0, kMapSide), side = rng.uniform(40, 120), height = rng.uniform(30, 80);
    } else if (kind < 0.35) {  // a house near a village center: a sum of uniforms is roughly Gaussian
      const Vec3& v = villages[std::size_t(rng.next() % kVillages)];
      const double dx = (rng.unit() + rng.unit() + rng.unit() - 1.5) * 120, dz = (rng.unit() + rng.unit() + rng.unit() - 1.5) * 120;
      x = v.x + dx, z = v.z + dz, side = rng.uniform(6, 20), height = rng.uniform(5, 15);
    } else {  // tree or rock
      x = rng.uniform(0, kMapSide), z = rng.uniform(0, kMapSide), side = rng.uniform(1, 6), height = rng.uniform(2, 25);
    }
    const double half = side / 2;
    out.push_back({{float(x - half), 0, float(z - half)}, {float(x + half), float(height), float(z + half)}});
  }
  return out;
}

/// The article's tree: a full quadtree of depth 5 over the ground (cells are 3D boxes spanning y 0..128), each
/// object filed under the deepest cell holding its position (the center of its base) alone — a position on a
/// split line stays in the parent, as its InsertObj does.
class ArticleSceneTree {
 public:
  explicit ArticleSceneTree(const std::vector<Box3>& objects) {
    nodes_.resize(node_count());
    for (std::uint32_t i = 0; i < objects.size(); ++i) {
      const Vec3 c = quadrant::center(objects[i]);
      int node = 0, depth = 0;
      Box3 cell = root_cell();
      while (depth < kArticleDepth) {
        int child = -1;
        bool single = true;
        for (int k = 0; k < 4; ++k) {
          const Box3 cc = child_cell(cell, k);
          // Unity's Bounds.Contains is closed.
          if (c.x >= cc.min.x && c.x <= cc.max.x && c.z >= cc.min.z && c.z <= cc.max.z) {
            if (child >= 0) single = false;
            child = k;
          }
        }
        if (child < 0 || !single) break;
        cell = child_cell(cell, child);
        node = 4 * node + 1 + child;
        ++depth;
      }
      nodes_[std::size_t(node)].push_back(i);
    }
  }

  /// TriggerMove: the root's objects, then every child cell passing the out-code test, recursively. Appends the
  /// loaded objects to `loaded` and returns the number of cells tested.
  std::size_t trigger_move(const Mat4& m, std::vector<std::uint32_t>& loaded) const {
    std::size_t tested = 0;
    visit(m, 0, root_cell(), 0, loaded, tested);
    return tested;
  }

 private:
  static std::size_t node_count() {
    std::size_t n = 0;
    for (int d = 0; d <= kArticleDepth; ++d) n += std::size_t(1) << (2 * d);
    return n;
  }
  static Box3 root_cell() { return {{0, 0, 0}, {kMapSide, kArticleHeight, kMapSide}}; }
  static Box3 child_cell(const Box3& cell, int k) {
    const float mx = (cell.min.x + cell.max.x) / 2, mz = (cell.min.z + cell.max.z) / 2;
    Box3 c = cell;
    ((k & 1) ? c.min.x : c.max.x) = mx;
    ((k & 2) ? c.min.z : c.max.z) = mz;
    return c;
  }
  void visit(const Mat4& m, int node, const Box3& cell, int depth, std::vector<std::uint32_t>& loaded,
             std::size_t& tested) const {
    const auto& here = nodes_[std::size_t(node)];
    loaded.insert(loaded.end(), here.begin(), here.end());
    if (depth == kArticleDepth) return;
    for (int k = 0; k < 4; ++k) {
      const Box3 cc = child_cell(cell, k);
      ++tested;
      if (outcode_visible(m, cc)) visit(m, 4 * node + 1 + k, cc, depth + 1, loaded, tested);
    }
  }

  std::vector<std::vector<std::uint32_t>> nodes_;
};

/// Elements of sorted `a` not in sorted `b`.
inline std::size_t count_missing(const std::vector<std::uint32_t>& a, const std::vector<std::uint32_t>& b) {
  std::size_t n = 0, j = 0;
  for (std::uint32_t x : a) {
    while (j < b.size() && b[j] < x) ++j;
    if (j == b.size() || b[j] != x) ++n;
  }
  return n;
}

/// What one frame did.
struct FrameRow {
  Vec3 eye;
  std::size_t visible = 0, loads = 0, unloads = 0, nodes = 0, tests = 0;
  std::size_t article_cells = 0, article_loaded = 0, article_extra = 0, article_missed = 0;
  double ms_tree = 0, ms_scan = 0, ms_article = 0;
};

/// The convex hull of points (Andrew's monotone chain), counter-clockwise.
inline std::vector<quadrant::Vec2> convex_hull(std::vector<quadrant::Vec2> p) {
  std::sort(p.begin(), p.end(), [](auto a, auto b) { return a.x < b.x || (a.x == b.x && a.y < b.y); });
  if (p.size() < 3) return p;
  std::vector<quadrant::Vec2> h(2 * p.size());
  std::size_t k = 0;
  auto cross = [](quadrant::Vec2 o, quadrant::Vec2 a, quadrant::Vec2 b) {
    return double(a.x - o.x) * (b.y - o.y) - double(a.y - o.y) * (b.x - o.x);
  };
  for (std::size_t i = 0; i < p.size(); ++i) {
    while (k >= 2 && cross(h[k - 2], h[k - 1], p[i]) <= 0) --k;
    h[k++] = p[i];
  }
  for (std::size_t i = p.size() - 1, t = k + 1; i-- > 0;) {
    while (k >= t && cross(h[k - 2], h[k - 1], p[i]) <= 0) --k;
    h[k++] = p[i];
  }
  h.resize(k - 1);
  return h;
}

inline constexpr float kPrefetch = 40, kMargin = 24;     // the streamer's prefetch radius and unload margin
inline constexpr std::size_t kPerUpdate = 128, kInFlight = 384;  // its caps

/// The source of frame f: the camera's frustum, its position and the prefetch radius.
inline quadrant::StreamingSource<float> source_at(int frame, int frames) {
  const Camera cam = camera_at(frame, frames);
  quadrant::StreamingSource<float> s;
  s.frustum = quadrant::Frustum<float>::from_view_projection(column_major(view_projection(cam, kLens)));
  s.position = cam.eye;
  s.prefetch_radius = kPrefetch;
  return s;
}

/// Top-down (x right, z up) picture of one frame of the streamer: the octree nodes its frustum walk visited
/// (pruned outside, reported whole inside, crossed leaves), every object near the camera by state, this frame's
/// unloads and cancellations, the frustum's footprint, the prefetch and kept circles; the legend (8 rows at most)
/// to the right.
inline void write_picture(const quadrant::Streamer<float>& streamer, const quadrant::StreamingSource<float>& source,
                          const quadrant::StreamUpdate<float>& update, int frame, const std::string& dir,
                          Report& report) {
  using quadrant::Vec2;
  const quadrant::Frustum<float>& frustum = *source.frustum;
  auto flat = [](const Box3& b) { return quadrant::Box2{{b.min.x, b.min.z}, {b.max.x, b.max.z}}; };
  std::vector<Vec2> footprint;
  for (int i = 0; i < 8; ++i) footprint.push_back({frustum.corners()[std::size_t(i)].x, frustum.corners()[std::size_t(i)].z});
  footprint = convex_hull(footprint);
  quadrant::Box2 view = quadrant::bounding_box(quadrant::ConvexPolygon<float>(footprint));
  const float grow = 0.2f * std::max(view.max.x - view.min.x, view.max.y - view.min.y);
  // The footprint grown a little, but never past the map's edge (nothing stands there).
  view.min = {std::max(0.0f, view.min.x - grow), std::max(0.0f, view.min.y - grow)};
  view.max = {std::min(kMapSide, view.max.x + grow), std::min(kMapSide, view.max.y + grow)};

  quadrant::SvgStyle pruned, inside, crossed;
  // Pruned nodes are dashed dark teal outlines, drawn over the objects; the objects not wanted are light grey
  // fills without an outline, so that thousands of them make a pale background, not a dark tangle.
  pruned.stroke = "#2a7f86";
  pruned.stroke_width_px = 1;
  pruned.dash = "5 3";
  pruned.css_class = "cell";
  inside.fill = "#c7e9c0";
  inside.stroke = "#74c476";
  inside.stroke_width_px = 0.5;
  inside.opacity = 0.7;
  inside.css_class = "cell";
  crossed = inside;
  crossed.fill = "#fdd0a2";
  crossed.stroke = "#d08040";
  crossed.opacity = 0.35;
  quadrant::SvgStyle other, loaded, loading, queued, unloaded, cancelled;
  other.fill = "#ebebeb";
  other.stroke = "none";
  loaded.fill = "#1f77b4";
  loaded.stroke = "#0b3d62";
  loaded.stroke_width_px = 0.5;
  loaded.opacity = 0.85;
  loading = loaded;
  loading.fill = "#9467bd";
  loading.stroke = "#4b2a6b";
  queued = loaded;
  queued.fill = "#ffd92f";
  queued.stroke = "#8a7200";
  unloaded = loaded;
  unloaded.fill = "#ff7f0e";
  unloaded.stroke = "#a04a00";
  cancelled = loaded;
  cancelled.fill = "#d62728";
  cancelled.stroke = "#6b1010";
  quadrant::SvgStyle from_above, on_ground, prefetch, kept, eye;
  from_above.stroke = "#d62728";
  from_above.stroke_width_px = 1;
  from_above.dash = "8 4";
  on_ground = from_above;
  on_ground.stroke_width_px = 2.5;
  on_ground.dash.clear();
  prefetch.stroke = "#d62728";
  prefetch.stroke_width_px = 1.2;
  prefetch.dash = "3 3";
  kept = prefetch;
  kept.dash = "1 3";
  eye.fill = "#d62728";
  eye.stroke = "none";

  // The walk's nodes: pre-order, so rel[d] holds the relation of the ancestor at depth d. A node is visited when
  // every ancestor was crossed; it is pruned (Outside), reported whole (Inside) or crossed.
  struct Drawn {
    quadrant::Box2 box;
    const quadrant::SvgStyle* style;
  };
  std::vector<Drawn> cells;
  std::vector<quadrant::Relation> rel(64, quadrant::Relation::Crossing);
  streamer.tree().for_each_node([&](const quadrant::NodeView<3, float>& node) {
    const std::size_t d = std::size_t(node.depth);
    if (d >= rel.size()) return;
    bool visited = true;
    for (std::size_t a = 1; a < d; ++a) visited = visited && rel[a] == quadrant::Relation::Crossing;
    rel[d] = d == 0 ? quadrant::Relation::Crossing : quadrant::classify(frustum, node.bounds);
    if (!visited || d == 0 || node.count == 0 || !quadrant::overlaps(view, flat(node.cell))) return;
    if (rel[d] == quadrant::Relation::Outside) cells.push_back({flat(node.cell), &pruned});
    else if (rel[d] == quadrant::Relation::Inside) cells.push_back({flat(node.cell), &inside});
    else if (node.leaf) cells.push_back({flat(node.cell), &crossed});
  });
  // Objects: largest first, so small objects stay visible on top of landmarks; landmarks are drawn paler.
  std::vector<Drawn> drawn;
  streamer.for_each([&](std::uint64_t id, const Box3& b, quadrant::StreamState state) {
    const quadrant::Box2 fb = flat(b);
    if (!quadrant::overlaps(view, fb)) return;
    const bool was_unloaded = std::binary_search(update.unloads.begin(), update.unloads.end(), id);
    const bool was_cancelled = std::binary_search(update.cancels.begin(), update.cancels.end(), id);
    const quadrant::SvgStyle* style = &other;
    switch (state) {
      case quadrant::StreamState::Loaded: style = &loaded; break;
      case quadrant::StreamState::Loading: style = &loading; break;
      case quadrant::StreamState::Queued: style = &queued; break;
      case quadrant::StreamState::Unloaded: style = was_cancelled ? &cancelled : was_unloaded ? &unloaded : &other; break;
    }
    drawn.push_back({fb, style});
  });
  auto area = [](const quadrant::Box2& b) { return (b.max.x - b.min.x) * (b.max.y - b.min.y); };
  std::stable_sort(drawn.begin(), drawn.end(), [&](const Drawn& a, const Drawn& b) { return area(a.box) > area(b.box); });
  // Objects wider than this (landmarks) are drawn paler, so the nodes and objects under them show; still in
  // their state's colour, so the legend needs no row for them.
  constexpr float kPaler = 30;
  auto shown = [&](const std::vector<Drawn>& list, const quadrant::SvgStyle& s) {
    return std::ranges::any_of(list, [&](const Drawn& d) { return d.style == &s; });
  };
  // Where the frustum meets the ground: its edges (corner pairs differing in one index bit) cut by y = 0.
  std::vector<Vec2> ground;
  const auto& c = frustum.corners();
  for (std::size_t a = 0; a < 8; ++a)
    for (std::size_t bit = 1; bit < 8; bit <<= 1) {
      const std::size_t b = a | bit;
      if (b == a || (c[a].y > 0) == (c[b].y > 0)) continue;
      const float t = c[a].y / (c[a].y - c[b].y);
      ground.push_back({c[a].x + t * (c[b].x - c[a].x), c[a].z + t * (c[b].z - c[a].z)});
    }
  ground = convex_hull(ground);

  // Eight rows at most: the Unloaded state's three looks share a row, and so do the node walk's two kinds of
  // node reported, the frustum's two outlines and the camera's two circles.
  std::vector<LegendRow> rows;
  if (shown(drawn, loaded)) rows.push_back(legend_row(Mark::Box, loaded, "Loaded: resident"));
  if (shown(drawn, loading)) rows.push_back(legend_row(Mark::Box, loading, "Loading: issued, not finished"));
  if (shown(drawn, queued)) rows.push_back(legend_row(Mark::Box, queued, "Queued: wanted, over the caps"));
  LegendRow unloaded_row{Mark::Boxes, {}, "Unloaded:"};
  const std::pair<const quadrant::SvgStyle*, const char*> unloaded_kinds[] = {
      {&other, "not wanted"}, {&unloaded, "this frame"}, {&cancelled, "cancelled"}};
  for (const auto& [style, label] : unloaded_kinds)
    if (shown(drawn, *style)) {
      unloaded_row.label += std::string(unloaded_row.styles.empty() ? " " : " / ") + label;
      unloaded_row.styles.push_back(*style);
    }
  if (!unloaded_row.styles.empty()) rows.push_back(unloaded_row);
  if (shown(cells, inside) && shown(cells, crossed))
    rows.push_back({Mark::Boxes, {inside, crossed}, "node inside the frustum / leaf crossing it"});
  else if (shown(cells, inside) || shown(cells, crossed))
    rows.push_back(shown(cells, inside) ? legend_row(Mark::Box, inside, "node inside the frustum: objects untested")
                                        : legend_row(Mark::Box, crossed, "leaf crossing the frustum: objects tested"));
  if (shown(cells, pruned)) rows.push_back(legend_row(Mark::Box, pruned, "node visited, outside: pruned"));
  if (ground.size() >= 3)
    rows.push_back({Mark::Lines, {on_ground, from_above}, "the frustum: on the ground / from above"});
  else
    rows.push_back(legend_row(Mark::Line, from_above, "the frustum seen from above"));
  char circles[96];
  std::snprintf(circles, sizeof circles, "the camera: prefetch %g / + unload margin %g", double(source.prefetch_radius),
                double(kMargin));
  rows.push_back({Mark::Rings, {prefetch, kept}, circles});
  char title[96];
  std::snprintf(title, sizeof title, "Frame %d of the streamer, from above", frame);
  Figure figure(view, 960, rows, LegendPlace::Right, title);
  quadrant::SvgCanvas& canvas = figure.canvas();
  // Bottom to top: the objects not wanted (a background), the walk's filled nodes, the other objects, the pruned
  // nodes' outlines (which the grey fills would hide).
  auto draw_objects = [&](bool wanted) {
    for (const Drawn& d : drawn) {
      if ((d.style != &other) != wanted) continue;
      quadrant::SvgStyle style = *d.style;
      if (area(d.box) > kPaler * kPaler && style.opacity > 0.5) style.opacity = 0.45;
      canvas.rect(d.box, style);
    }
  };
  draw_objects(false);
  for (const Drawn& d : cells)
    if (d.style != &pruned) canvas.rect(d.box, *d.style);
  draw_objects(true);
  for (const Drawn& d : cells)
    if (d.style == &pruned) canvas.rect(d.box, *d.style);
  canvas.polygon(footprint, from_above);
  if (ground.size() >= 3) canvas.polygon(ground, on_ground);
  const Vec2 eye2{source.position.x, source.position.z};
  canvas.circle(eye2, source.prefetch_radius, prefetch);
  canvas.circle(eye2, source.prefetch_radius + kMargin, kept);
  canvas.circle(eye2, 4 / float(canvas.scale()), eye);
  const std::string path_name = dir + "/scene-streaming.svg";
  figure.save(path_name);
  report.picture(path_name);
  std::printf("picture: %s (top-down, frame %d: the streamer's objects by state, this frame's unloads and cancels,\n"
              "the octree nodes its frustum walk visited, the frustum where it meets the ground and from above, the\n"
              "prefetch and kept circles)\n\n",
              path_name.c_str(), frame);
}

/// What one frame of the streamer did.
struct StreamRow {
  Vec3 eye;
  std::size_t loads = 0, unloads = 0, cancels = 0, loading = 0, loaded = 0, queued = 0, tested = 0, nodes = 0;
  double ms = 0, ms_brute = 0;
};

/// The streamer pass: quadrant::Streamer (Loose octree) over the scene along the same flight, loads finishing 1 to
/// 4 frames after they are issued, checked every frame against BruteForceStreamer (loads in order, unloads,
/// cancels, every object's state, the completion answers).
inline void run_streamer(const DemoOptions& opt, const std::vector<Box3>& scene, int frames, Report& report) {
  using clock = std::chrono::steady_clock;
  quadrant::StreamerConfig<float> config;
  config.tree.world = {{0, 0, 0}, {kMapSide, kMapSide, kMapSide}};
  config.unload_margin = kMargin;
  config.max_loads_per_update = kPerUpdate;
  config.max_loads_in_flight = kInFlight;
  quadrant::Streamer<float> streamer(config);
  for (std::uint32_t i = 0; i < scene.size(); ++i) streamer.add(i, scene[i]);
  BruteForceStreamer brute(scene, kMargin, kPerUpdate, kInFlight);
  Rng rng(opt.seed ^ 0x5eedULL);
  std::vector<std::vector<std::uint32_t>> due(std::size_t(frames) + 5);
  std::vector<StreamRow> rows;
  std::size_t late = 0;
  const int picture_frame = frames / 3;
  for (int f = 0; f < frames; ++f) {
    const std::string at = "streamer frame " + std::to_string(f) + ": ";
    for (std::uint32_t id : due[std::size_t(f)]) {
      const bool got = streamer.mark_loaded(id), want = brute.mark_loaded(id);
      late += !want;
      if (!report.check("streamer: mark_loaded() answers = brute force's", double(want), double(got)))
        report.add(at + "mark_loaded(" + std::to_string(id) + ") disagrees with brute force");
    }
    const quadrant::StreamingSource<float> source = source_at(f, frames);
    StreamRow row;
    row.eye = source.position;
    auto t0 = clock::now();
    const quadrant::StreamUpdate<float>& u = streamer.update(std::span(&source, 1));
    auto t1 = clock::now();
    row.ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
    brute.update(source);
    row.ms_brute = std::chrono::duration<double, std::milli>(clock::now() - t1).count();

    bool same = u.loads.size() == brute.loads.size() && u.unloads.size() == brute.unloads.size() &&
                u.cancels.size() == brute.cancels.size();
    for (std::size_t i = 0; same && i < u.loads.size(); ++i) same = u.loads[i].id == brute.loads[i];
    for (std::size_t i = 0; same && i < u.unloads.size(); ++i) same = u.unloads[i] == brute.unloads[i];
    for (std::size_t i = 0; same && i < u.cancels.size(); ++i) same = u.cancels[i] == brute.cancels[i];
    if (!report.check("streamer: loads, unloads, cancels = brute force's",
                      double(brute.loads.size() + brute.unloads.size() + brute.cancels.size()),
                      double(u.loads.size() + u.unloads.size() + u.cancels.size()), same))
      report.add(at + "requests differ: loads " + std::to_string(u.loads.size()) + " / " +
                   std::to_string(brute.loads.size()) + ", unloads " + std::to_string(u.unloads.size()) + " / " +
                   std::to_string(brute.unloads.size()) + ", cancels " + std::to_string(u.cancels.size()) + " / " +
                   std::to_string(brute.cancels.size()) + " (streamer / brute force)");
    std::size_t wrong_state = 0;
    streamer.for_each([&](std::uint64_t id, const Box3&, quadrant::StreamState st) {
      wrong_state += int(st) != int(brute.state(std::uint32_t(id)));
    });
    if (!report.check("streamer: every object's state = brute force's", double(scene.size()),
                      double(scene.size() - wrong_state)))
      report.add(at + std::to_string(wrong_state) + " objects in another state than brute force's");
    if (!report.check("streamer: caps on loads per update and in flight held", 1,
                      u.stats.loading <= kInFlight && u.loads.size() <= kPerUpdate ? 1 : 0))
      report.add(at + "a cap was exceeded");

    row.loads = u.loads.size();
    row.unloads = u.unloads.size();
    row.cancels = u.cancels.size();
    row.loading = u.stats.loading;
    row.loaded = u.stats.loaded;
    row.queued = u.stats.queued;
    row.tested = u.stats.objects_tested();
    row.nodes = u.stats.nodes_visited;
    rows.push_back(row);
    for (const quadrant::StreamLoad<float>& l : u.loads) due[std::size_t(f) + 1 + rng.next() % 4].push_back(std::uint32_t(l.id));
    if (!opt.svg_dir.empty() && f == picture_frame) write_picture(streamer, source, u, f, opt.svg_dir, report);
    report.tick("the streamer: frame %d of %d", f + 1, frames);
  }
  try {
    streamer.validate();
    report.check("streamer: validate() after the last frame", 1, 1);
  } catch (const std::exception& e) {
    report.check("streamer: validate() after the last frame", 1, 0);
    report.add(std::string("streamer: validate(): ") + e.what());
  }

  std::printf("The streamer (quadrant::Streamer, Loose octree): prefetch radius %g, unload margin %g, at most %zu loads\n"
              "per update and %zu in flight; each load finishes 1-4 frames after it is issued. Every frame its requests\n"
              "and every object's state are checked against a brute-force streamer that tests every object.\n",
              double(kPrefetch), double(kMargin), kPerUpdate, kInFlight);
  Line line;
  line.add("%6s %6s %8s %8s %9s %9s %7s %8s %7s", "frame", "loads", "unloads", "cancels", "in flight", "resident",
           "queued", "tested", "nodes");
  line.print();
  for (int f = 0; f < frames; f += std::max(1, frames / 12)) {
    const StreamRow& r = rows[std::size_t(f)];
    line.add("%6d %6zu %8zu %8zu %9zu %9zu %7zu %8zu %7zu", f, r.loads, r.unloads, r.cancels, r.loading, r.loaded,
             r.queued, r.tested, r.nodes);
    line.print();
    report.table("streamer_frames").push_back({{"frame", f},
                                               {"loads", r.loads},
                                               {"unloads", r.unloads},
                                               {"cancels", r.cancels},
                                               {"in_flight", r.loading},
                                               {"resident", r.loaded},
                                               {"queued", r.queued},
                                               {"tested", r.tested},
                                               {"nodes", r.nodes}});
  }
  auto mean = [&](std::size_t StreamRow::*field) {
    double sum = 0;
    for (const StreamRow& r : rows) sum += double(r.*field);
    return sum / double(rows.size());
  };
  std::vector<double> ms, ms_brute;
  for (const StreamRow& r : rows) ms.push_back(r.ms), ms_brute.push_back(r.ms_brute);
  std::printf("Per frame on average: %.1f loads, %.1f unloads, %.1f cancels, %.0f in flight, %.0f resident, %.0f queued;\n"
              "%zu loads finished after their cancellation (ignored). update(): %.0f boxes tested (brute force: %zu and\n"
              "more), median %.3f ms (brute force %.3f ms).\n\n",
              mean(&StreamRow::loads), mean(&StreamRow::unloads), mean(&StreamRow::cancels), mean(&StreamRow::loading),
              mean(&StreamRow::loaded), mean(&StreamRow::queued), late, mean(&StreamRow::tested), scene.size(),
              median(ms), median(ms_brute));
  report.json()["streamer"] = {{"prefetch_radius", kPrefetch},
                               {"unload_margin", kMargin},
                               {"max_loads_per_update", kPerUpdate},
                               {"max_loads_in_flight", kInFlight},
                               {"loads_per_frame", mean(&StreamRow::loads)},
                               {"unloads_per_frame", mean(&StreamRow::unloads)},
                               {"cancels_per_frame", mean(&StreamRow::cancels)},
                               {"in_flight", mean(&StreamRow::loading)},
                               {"resident", mean(&StreamRow::loaded)},
                               {"queued", mean(&StreamRow::queued)},
                               {"loads_finished_after_cancel", late},
                               {"boxes_tested", mean(&StreamRow::tested)},
                               {"update_ms_median", median(ms)},
                               {"brute_force_ms_median", median(ms_brute)}};
}

/// `quadrant demo --scenario scene-streaming`.
inline bool run_demo(const DemoOptions& opt, Report& report) {
  using clock = std::chrono::steady_clock;
  const int objects = objects_of(opt, kSizes).front();
  const int frames = frames_of(opt, kSizes);
  const std::vector<Box3> scene = make_scene(objects, opt.seed);
  report.json()["parameters"] = {{"objects", objects},
                                 {"map", {kMapSide, kMapSide}},
                                 {"frames", frames},
                                 {"seed", opt.seed},
                                 {"fov_degrees", 60},
                                 {"aspect", "16:9"},
                                 {"near", kLens.near_plane},
                                 {"far", kLens.far_plane},
                                 {"article_depth", kArticleDepth}};

  std::printf("== scene-streaming: a camera over a map: what to load and unload ==\n");
  print_article(kSceneArticle, report);
  std::printf("%d objects on a %g x %g map (trees and rocks everywhere, houses in 16 villages, 1%% landmarks up to\n"
              "120 wide); a camera (fov 60, 16:9, near %g, far %g) flies a figure of eight 25..45 above it, %d frames,\n"
              "seed %llu. Each frame three Octrees (Loose, Parent, Leaves) answer the frustum query; loads are objects that\n"
              "came into view since the last frame, unloads those that left it. Checked every frame: the query equals\n"
              "a scan of every object with the same test, lies within the article's out-code test, and holds every\n"
              "object whose center projects inside the view.\n\n",
              objects, double(kMapSide), double(kMapSide), kLens.near_plane, kLens.far_plane, frames,
              static_cast<unsigned long long>(opt.seed));
  if (frames < kDefaultFrames)
    std::printf("(%d frames: the same figure of eight flown in fewer frames, so the camera moves %.0fx as far each\n"
                "frame as in the default %d, and the loads, unloads and cancels per frame grow with it.)\n\n",
                frames, double(kDefaultFrames) / double(frames), kDefaultFrames);

  report.step("building three octrees over %d objects", objects);
  // One octree per placement over the same objects; Loose (the default) drives the frame table and the picture.
  struct PlacementRun {
    quadrant::Placement placement;
    quadrant::Octree<std::uint32_t> tree;
    double build_ms = 0, nodes = 0, tests = 0;
    std::vector<double> ms;
  };
  std::vector<PlacementRun> runs;
  for (quadrant::Placement p : {quadrant::Placement::Loose, quadrant::Placement::Parent, quadrant::Placement::Leaves}) {
    PlacementRun& run = runs.emplace_back(PlacementRun{
        p, quadrant::Octree<std::uint32_t>({.world = {{0, 0, 0}, {kMapSide, kMapSide, kMapSide}}, .placement = p}),
        0, 0, 0, {}});
    const auto t0 = clock::now();
    for (std::uint32_t i = 0; i < scene.size(); ++i) run.tree.insert(scene[i], i);
    run.build_ms = std::chrono::duration<double, std::milli>(clock::now() - t0).count();
    run.tree.validate();
  }
  const ArticleSceneTree article(scene);

  std::vector<FrameRow> rows;
  std::vector<std::uint32_t> visible, previous, scan, loaded, found;
  for (int f = 0; f < frames; ++f) {
    const Camera cam = camera_at(f, frames);
    // The engine's matrix is floats; every clip-space test below uses exactly those numbers.
    const std::array<float, 16> matrix = column_major(view_projection(cam, kLens));
    Mat4 m{};
    for (int r = 0; r < 4; ++r)
      for (int c = 0; c < 4; ++c) m[r][c] = matrix[std::size_t(4 * c + r)];
    const auto frustum = quadrant::Frustum<float>::from_view_projection(matrix, quadrant::ClipDepth::MinusOneToOne);
    FrameRow row;
    row.eye = cam.eye;

    scan.clear();
    auto t0 = clock::now();
    for (std::uint32_t i = 0; i < scene.size(); ++i)
      if (quadrant::overlaps(frustum, scene[i])) scan.push_back(i);
    auto t1 = clock::now();
    row.ms_scan = std::chrono::duration<double, std::milli>(t1 - t0).count();

    for (PlacementRun& run : runs) {
      found.clear();
      t0 = clock::now();
      const quadrant::QueryStats st = run.tree.query(frustum, [&](const std::uint32_t& id) { found.push_back(id); });
      t1 = clock::now();
      run.ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
      run.nodes += double(st.nodes_visited);
      run.tests += double(st.box_tests);
      std::sort(found.begin(), found.end());
      if (!report.check("frustum query = a scan with the same test", double(scan.size()), double(found.size()),
                        found == scan))
        report.add("frame " + std::to_string(f) + ": " + quadrant::to_string(run.placement) + " found " +
                     std::to_string(found.size()) + " objects, the scan " + std::to_string(scan.size()));
      if (run.placement == quadrant::Placement::Loose) {
        row.ms_tree = run.ms.back();
        row.nodes = st.nodes_visited;
        row.tests = st.box_tests;
        visible = found;
      }
    }
    row.visible = visible.size();

    // The other two checks, independent of the frustum code.
    std::size_t loose = 0, sure = 0, sure_missed = 0;
    std::vector<std::uint32_t> outcode;
    for (std::uint32_t i = 0; i < scene.size(); ++i) {
      const bool in_query = std::binary_search(visible.begin(), visible.end(), i);
      if (outcode_visible(m, scene[i])) outcode.push_back(i);
      else if (in_query) ++loose;
      const bool in_view = center_in_view(m, scene[i]);
      sure += in_view;
      if (!in_query && in_view) ++sure_missed;
    }
    if (!report.check("frustum query within the article's out-code test", double(visible.size()),
                      double(visible.size() - loose)))
      report.add("frame " + std::to_string(f) + ": " + std::to_string(loose) + " objects found that the out-code test rejects");
    if (!report.check("frustum query holds every object whose center is in view", double(sure),
                      double(sure - sure_missed)))
      report.add("frame " + std::to_string(f) + ": " + std::to_string(sure_missed) + " objects in plain view not found");

    row.loads = count_missing(visible, previous);
    row.unloads = count_missing(previous, visible);

    loaded.clear();
    t0 = clock::now();
    row.article_cells = article.trigger_move(m, loaded);
    t1 = clock::now();
    row.ms_article = std::chrono::duration<double, std::milli>(t1 - t0).count();
    std::sort(loaded.begin(), loaded.end());
    row.article_loaded = loaded.size();
    row.article_extra = count_missing(loaded, outcode);
    row.article_missed = count_missing(outcode, loaded);

    rows.push_back(row);
    previous.swap(visible);
    report.tick("the camera: frame %d of %d", f + 1, frames);
  }

  std::printf("Every %d frames (frame 0 loads everything it sees):\n", std::max(1, frames / 12));
  Line line;
  line.add("%6s %14s %8s %6s %7s %7s %7s   %-s", "frame", "camera (x, z)", "visible", "loads", "unloads", "nodes",
           "tests", "| article: cells  loaded  extra  missed");
  line.print();
  for (int f = 0; f < frames; f += std::max(1, frames / 12)) {
    const FrameRow& r = rows[std::size_t(f)];
    line.add("%6d %6.0f, %6.0f %8zu %6zu %7zu %7zu %7zu   | %14zu %7zu %6zu %7zu", f, double(r.eye.x), double(r.eye.z),
             r.visible, r.loads, r.unloads, r.nodes, r.tests, r.article_cells, r.article_loaded, r.article_extra,
             r.article_missed);
    line.print();
    report.table("frames").push_back({{"frame", f},
                                      {"camera", {r.eye.x, r.eye.z}},
                                      {"visible", r.visible},
                                      {"loads", r.loads},
                                      {"unloads", r.unloads},
                                      {"nodes", r.nodes},
                                      {"tests", r.tests},
                                      {"article_cells", r.article_cells},
                                      {"article_loaded", r.article_loaded},
                                      {"article_extra", r.article_extra},
                                      {"article_missed", r.article_missed}});
  }

  auto mean = [&](auto field) {
    double s = 0;
    for (const FrameRow& r : rows) s += double(r.*field);
    return s / double(rows.size());
  };
  auto med = [&](double FrameRow::*field) {
    std::vector<double> v;
    for (const FrameRow& r : rows) v.push_back(r.*field);
    return median(v);
  };
  std::printf("\nPer frame, mean over %d frames (ms: median):\n", frames);
  line.add("%-34s %9s %9s %9s %9s %9s %8s", "", "visited", "tested", "visible", "loaded", "missed", "ms");
  line.print();
  for (const PlacementRun& run : runs) {
    line.add("%-34s %9.0f %9.0f %9.0f %9s %9s %8.3f",
             (std::string("quadrant octree, ") + quadrant::to_string(run.placement)).c_str(), run.nodes / frames,
             run.tests / frames, mean(&FrameRow::visible), "", "0", median(run.ms));
    line.print();
    report.table("per_frame").push_back({{"method", std::string("quadrant octree, ") + quadrant::to_string(run.placement)},
                                         {"visited", run.nodes / frames},
                                         {"tested", run.tests / frames},
                                         {"visible", mean(&FrameRow::visible)},
                                         {"loaded", nullptr},
                                         {"missed", 0},
                                         {"ms", median(run.ms)}});
  }
  line.add("%-34s %9s %9d %9.0f %9s %9s %8.3f", "scan: every object tested", "", objects, mean(&FrameRow::visible), "",
           "0", med(&FrameRow::ms_scan));
  line.print();
  line.add("%-34s %9.0f %9s %9s %9.0f %9.1f %8.3f", "article's node walk (depth 5)", mean(&FrameRow::article_cells), "",
           "", mean(&FrameRow::article_loaded), mean(&FrameRow::article_missed), med(&FrameRow::ms_article));
  line.print();
  report.table("per_frame").push_back({{"method", "scan: every object tested"},
                                       {"visited", nullptr},
                                       {"tested", objects},
                                       {"visible", mean(&FrameRow::visible)},
                                       {"loaded", nullptr},
                                       {"missed", 0},
                                       {"ms", med(&FrameRow::ms_scan)}});
  report.table("per_frame").push_back({{"method", "article's node walk (depth 5)"},
                                       {"visited", mean(&FrameRow::article_cells)},
                                       {"tested", nullptr},
                                       {"visible", nullptr},
                                       {"loaded", mean(&FrameRow::article_loaded)},
                                       {"missed", mean(&FrameRow::article_missed)},
                                       {"ms", med(&FrameRow::ms_article)}});
  report.figure("article_loads_outside_its_own_test", mean(&FrameRow::article_extra));
  report.figure("loads_per_frame", mean(&FrameRow::loads));
  report.figure("unloads_per_frame", mean(&FrameRow::unloads));
  std::printf("  visited: tree nodes (article: cells) tested; tested: object boxes tested; loaded: what the article\n"
              "  loads (every object of every cell it reaches), on average %.0f objects its own per-object test calls\n"
              "  invisible; missed: objects its per-object test calls visible that its walk does not load (filed\n"
              "  under a cell outside the view, reaching into it). Loads / unloads per frame: %.1f / %.1f on average.\n"
              "  The article gives no figures.\n\n",
              mean(&FrameRow::article_extra), mean(&FrameRow::loads), mean(&FrameRow::unloads));

  std::printf("The octrees (default depth and split threshold; Leaves lists an object in every leaf it overlaps):\n");
  line.add("%-10s %10s %12s %14s %14s", "placement", "build ms", "nodes", "entries/obj", "bytes/obj");
  line.print();
  for (const PlacementRun& run : runs) {
    const quadrant::Stats st = run.tree.stats();
    line.add("%-10s %10.1f %12zu %14.2f %14.1f", quadrant::to_string(run.placement), run.build_ms, st.nodes,
             double(st.references) / objects, double(st.bytes) / objects);
    line.print();
    report.table("octrees").push_back({{"placement", quadrant::to_string(run.placement)},
                                       {"build_ms", run.build_ms},
                                       {"nodes", st.nodes},
                                       {"entries_per_object", double(st.references) / objects},
                                       {"bytes_per_object", double(st.bytes) / objects}});
  }
  std::printf("\n");

  report.step("the streamer: %d frames", frames);
  run_streamer(opt, scene, frames, report);
  return report.finish("every frame agrees with the scan and the out-code test; the streamer with brute force");
}

}  // namespace quadrant_tools::streaming

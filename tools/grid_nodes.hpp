// SPDX-License-Identifier: MIT
// quadrant tool — scenario `grid-nodes`: the TypeScript article's grid of fixed depth (seeds/004) reproduced.
//
// A full quadtree of fixed depth (split_threshold 0: the article's QuadTree built down to its height) over a
// 1024 x 1024 map holds point targets in its leaves. The article's questions, each checked against brute force
// over the grid's cells: which leaf holds a point (find / locate), which leaves a rectangle, circle, convex
// polygon or rotated ellipse covers, with and without skipping empty subtrees (findNodesIn*, skipEmpty), and
// which moving targets changed leaf this frame (onTargetPosUpdate / move()'s result).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <string>
#include <type_traits>
#include <vector>

#include <quadrant/quadrant.hpp>
#include <quadrant/svg.hpp>

#include "demo.hpp"
#include "figure.hpp"

namespace quadrant_tools::grid {

using quadrant::Box2;
using quadrant::Vec2;

inline constexpr float kSide = 1024;
inline constexpr int kDepth = 5;  // 32 x 32 leaves of side 32
inline constexpr int kDefaultTargets[] = {2000};
inline constexpr Sizes kSizes{.objects_what = "point targets",
                              .objects = kDefaultTargets,
                              .objects_quick = kDefaultTargets,
                              .objects_max = 1'000'000,
                              .objects_note = "",
                              .frames_what = "frames of moving targets",
                              .frames = 120,
                              .frames_quick = 10,
                              .frames_max = 100000,
                              .frames_capped = false,
                              .objects_x_frames_max = 0};

// The leaf holding p, by arithmetic on the grid (the brute force for locate): cells are half-open, the world's
// upper faces closed.
inline int cell_of(Vec2 p) {
  const float side = kSide / float(1 << kDepth);
  const int n = 1 << kDepth;
  const int cx = std::min(int(p.x / side), n - 1), cy = std::min(int(p.y / side), n - 1);
  return cy * n + cx;
}
inline int cell_of(const Box2& cell) { return cell_of(quadrant::center(cell)); }

// The article's own node tests, as their names say: a leaf is found by a circle when one of its corners lies in
// the circle (isPointsInCircle), by a polygon when one of the polygon's vertices lies in it (isPointsInRect).
inline bool article_circle(const quadrant::Circle<float>& c, const Box2& cell) {
  const Vec2 corners[4] = {cell.min, {cell.max.x, cell.min.y}, cell.max, {cell.min.x, cell.max.y}};
  for (const Vec2& p : corners)
    if (quadrant::dot(p - c.center, p - c.center) <= c.radius * c.radius) return true;
  return false;
}
inline bool article_polygon(const quadrant::ConvexPolygon<float>& poly, const Box2& cell) {
  for (const Vec2& v : poly.vertices())
    if (quadrant::overlaps(cell, v)) return true;
  return false;
}

struct NodeRow {
  std::string shape;
  std::size_t exact = 0, nonempty = 0, article = 0, missed = 0;
  bool has_article = false;
  std::size_t brute_exact = 0, brute_nonempty = 0;
};

/// The grid, the targets, and the leaves two node queries reach: the hexagon's (green; the ones holding targets,
/// what skip_empty reports, darker; the article's vertex test's thick-outlined) and the ellipse's (purple); the
/// legend to the right.
inline void write_picture(const quadrant::QuadTree<int>& tree, const std::vector<Vec2>& targets,
                          const quadrant::ConvexPolygon<float>& hexagon, const quadrant::Ellipse<float>& ellipse,
                          const std::string& dir, Report& report) {
  constexpr double kGridFill = 0.06;
  const quadrant::SvgStyle grid_cell{quadrant::depth_colour(kDepth), "#555555", 0.75, kGridFill, "", "cell"};
  auto reached = [](const char* colour, bool holding) {
    return quadrant::SvgStyle{colour, "none", 1, holding ? 0.3 : 0.25, "", "reached"};
  };
  auto outline = [](const char* colour) { return quadrant::SvgStyle{"none", colour, 2.5, 1, "", "shape"}; };
  const quadrant::SvgStyle article{"none", "#111111", 3, 1, "", "article"};
  const quadrant::SvgStyle dot{"#d62728", "none", 1, 1, "", "target"};
  const char* kHexagon = "#2ca02c";
  const char* kEllipse = "#9467bd";
  std::vector<LegendRow> rows;
  rows.push_back(legend_row(Mark::Box, grid_cell, "leaf cell of the 32 x 32 grid (side 32)"));
  rows.push_back(legend_row(Mark::Dot, dot, "target (a point)"));
  rows.push_back(legend_row(Mark::Line, outline(kHexagon), "the hexagon (ConvexPolygon)"));
  rows.push_back(legend_row(Mark::Box, reached(kHexagon, false), "leaf the hexagon overlaps, no targets"));
  rows.push_back({Mark::Box, {reached(kHexagon, false), reached(kHexagon, true)}, "leaf the hexagon overlaps, holding targets"});
  rows.push_back(legend_row(Mark::Box, article, "leaf the article's vertex test finds"));
  rows.push_back(legend_row(Mark::Line, outline(kEllipse), "the rotated ellipse (Ellipse)"));
  rows.push_back(legend_row(Mark::Box, reached(kEllipse, false), "leaf the ellipse overlaps, no targets"));
  rows.push_back({Mark::Box, {reached(kEllipse, false), reached(kEllipse, true)}, "leaf the ellipse overlaps, holding targets"});
  rows.push_back({Mark::Box, {reached(kHexagon, false), reached(kEllipse, false)}, "leaf both overlap, no targets"});
  rows.push_back({Mark::Box,
                  {reached(kHexagon, false), reached(kHexagon, true), reached(kEllipse, false), reached(kEllipse, true)},
                  "leaf both overlap, holding targets"});
  rows.push_back(legend_note("(darker: the leaves skip_empty reports)"));
  Figure figure(tree.config().world, 900, rows, LegendPlace::Right, "query_nodes on a fixed grid");
  quadrant::SvgCanvas& canvas = figure.canvas();
  quadrant::draw_tree(canvas, tree, {.objects = false, .legend = false, .fill_opacity = kGridFill});
  auto draw_reached = [&](const auto& shape, const char* colour) {
    for (bool skip_empty : {false, true})
      tree.query_nodes(
          shape, [&](const quadrant::NodeView<2, float>& v) { canvas.rect(v.cell, reached(colour, skip_empty)); },
          skip_empty);
    canvas.shape(shape, outline(colour));
  };
  draw_reached(hexagon, kHexagon);
  draw_reached(ellipse, kEllipse);
  tree.for_each_node([&](const quadrant::NodeView<2, float>& v) {
    if (v.leaf && article_polygon(hexagon, v.cell)) canvas.rect(v.cell, article);
  });
  for (const Vec2& p : targets) canvas.circle(p, 1.5f / float(canvas.scale()), dot);
  const std::string path = dir + "/grid-nodes.svg";
  figure.save(path);
  report.picture(path);
  std::printf("picture: %s (the 32 x 32 grid, targets red, the leaves the hexagon and the ellipse reach, the\n"
              "article's vertex test's six leaves outlined)\n\n",
              path.c_str());
}

/// `quadrant demo --scenario grid-nodes`.
inline bool run_demo(const DemoOptions& opt, Report& report) {
  const int targets = objects_of(opt, kSizes).front();
  const int frames = frames_of(opt, kSizes);
  report.json()["parameters"] = {{"depth", kDepth},      {"map", {kSide, kSide}}, {"leaves_per_side", 1 << kDepth},
                                 {"targets", targets},   {"frames", frames},      {"seed", opt.seed}};
  std::printf("== grid-nodes: a fixed-depth grid and its node queries ==\n");
  print_article(kGridArticle, report);
  std::printf("A full quadtree (split_threshold 0) of depth %d over %g x %g: %d x %d leaves of side %g. %d point\n"
              "targets random-walk for %d frames (seed %llu). Every answer is checked against brute force over the\n"
              "grid's cells.\n\n",
              kDepth, double(kSide), double(kSide), 1 << kDepth, 1 << kDepth, double(kSide) / (1 << kDepth), targets,
              frames, static_cast<unsigned long long>(opt.seed));

  quadrant::QuadTree<int> tree({.world = {{0, 0}, {kSide, kSide}}, .max_depth = kDepth, .split_threshold = 0});
  Rng rng(opt.seed);
  std::vector<Vec2> pos;
  std::vector<quadrant::Handle> handles;
  // Targets gather in a few towns, so many cells stay empty (what skipEmpty is for).
  for (int i = 0; i < targets; ++i) {
    const Vec2 town{float(200 + 300 * (i % 3)), float(250 + 250 * (i % 2))};
    const Vec2 p{std::clamp(town.x + float(rng.uniform(-90, 90)), 0.0f, kSide),
                 std::clamp(town.y + float(rng.uniform(-90, 90)), 0.0f, kSide)};
    pos.push_back(p);
    handles.push_back(tree.insert({p, p}, i));
  }

  // Moving targets: move() says when the leaf changed; brute force compares the cells before and after.
  std::size_t moves = 0, changes = 0;
  for (int f = 0; f < frames; ++f) {
    for (int i = 0; i < targets; ++i) {
      const Vec2 before = pos[std::size_t(i)];
      const Vec2 after{std::clamp(before.x + float(rng.uniform(-6, 6)), 0.0f, kSide),
                       std::clamp(before.y + float(rng.uniform(-6, 6)), 0.0f, kSide)};
      const bool changed = tree.move(handles[std::size_t(i)], {after, after});
      pos[std::size_t(i)] = after;
      ++moves;
      changes += changed;
      if (!report.check("move() returns true exactly when the leaf changed", double(cell_of(before) != cell_of(after)),
                        double(changed)))
        report.add("target " + std::to_string(i) + " frame " + std::to_string(f) + ": move() said " +
             (changed ? "changed" : "stayed"));
      if (!report.check("locate(point) = the leaf found by arithmetic", 1,
                        cell_of(tree.locate(after).cell) == cell_of(after) ? 1 : 0))
        report.add("locate of target " + std::to_string(i) + " frame " + std::to_string(f));
    }
  }
  std::printf("Moving targets: %zu moves, %zu changed leaf (move() returned true; brute force agrees on every one).\n\n",
              moves, changes);
  report.figure("moves", moves);
  report.figure("leaf_changes", changes);

  // Node queries by the article's four shapes.
  const float pi = std::numbers::pi_v<float>;
  const std::vector<Vec2> hexagon = [&] {
    std::vector<Vec2> v;
    for (int k = 0; k < 6; ++k) v.push_back({500 + 260 * std::cos(float(k) * pi / 3), 400 + 260 * std::sin(float(k) * pi / 3)});
    return v;
  }();
  const quadrant::ConvexPolygon<float> polygon{std::span<const Vec2>(hexagon)};
  const Box2 rect{{150, 150}, {420, 330}};
  const quadrant::Circle<float> circle{{700, 500}, 150};
  const quadrant::Circle<float> small_circle{{112, 880}, 10};  // inside one cell, touching no corner
  const quadrant::Ellipse<float> ellipse{{450, 600}, {300, 90}, 0.6f};

  std::vector<NodeRow> rows;
  auto measure = [&](const std::string& name, const auto& shape, auto article) {
    NodeRow row;
    row.shape = name;
    tree.query_nodes(shape, [&](const quadrant::NodeView<2, float>&) { ++row.exact; }, false);
    tree.query_nodes(shape, [&](const quadrant::NodeView<2, float>&) { ++row.nonempty; }, true);
    std::size_t found_by_article = 0;
    tree.for_each_node([&](const quadrant::NodeView<2, float>& v) {
      if (!v.leaf) return;
      const bool exact = quadrant::overlaps(shape, v.cell);
      row.brute_exact += exact;
      row.brute_nonempty += exact && v.count > 0;
      if constexpr (!std::is_same_v<decltype(article), std::nullptr_t>) {
        const bool a = article(v.cell);
        found_by_article += a;
        row.missed += exact && !a;
      }
    });
    if constexpr (!std::is_same_v<decltype(article), std::nullptr_t>) {
      row.article = found_by_article;
      row.has_article = true;
    }
    const bool exact_ok = report.check("query_nodes = the leaves brute force finds", double(row.brute_exact),
                                       double(row.exact));
    const bool nonempty_ok = report.check("query_nodes, skip_empty = brute force's non-empty leaves",
                                          double(row.brute_nonempty), double(row.nonempty));
    if (!exact_ok || !nonempty_ok) report.add("node query by " + name);
    rows.push_back(row);
  };
  measure("rectangle", rect, nullptr);
  measure("circle r 150", circle, [&](const Box2& c) { return article_circle(circle, c); });
  measure("circle r 10", small_circle, [&](const Box2& c) { return article_circle(small_circle, c); });
  measure("hexagon r 260", polygon, [&](const Box2& c) { return article_polygon(polygon, c); });
  measure("ellipse 300 x 90", ellipse, nullptr);

  std::printf("Leaves whose cells overlap each shape (query_nodes), all of them and with skip_empty, beside the\n"
              "article's own node tests (a circle finds a leaf when a corner of the leaf is in it, a polygon when a\n"
              "vertex of the polygon is in the leaf) and the overlapping leaves those tests miss:\n");
  Line line;
  line.add("%-18s %8s %10s %10s %8s", "shape", "leaves", "non-empty", "article's", "missed");
  line.print();
  for (const NodeRow& r : rows) {
    line.add("%-18s %8zu %10zu", r.shape.c_str(), r.exact, r.nonempty);
    if (!r.has_article) line.add(" %10s %8s", "-", "-");
    else line.add(" %10zu %8zu", r.article, r.missed);
    line.print();
    report.table("node_queries").push_back({{"shape", r.shape},
                                            {"leaves", r.exact},
                                            {"non_empty", r.nonempty},
                                            {"article", r.has_article ? Report::Json(r.article) : Report::Json(nullptr)},
                                            {"missed", r.has_article ? Report::Json(r.missed) : Report::Json(nullptr)}});
  }
  std::printf("(The article's tests are approximations: a circle smaller than a cell has no corner of any cell in\n"
              " it and finds nothing; a polygon finds only the cells holding its vertices.)\n\n");

  if (!opt.svg_dir.empty()) write_picture(tree, pos, polygon, ellipse, opt.svg_dir, report);

  return report.finish("all answers agree with brute force");
}

}  // namespace quadrant_tools::grid

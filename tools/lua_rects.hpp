// SPDX-License-Identifier: MIT
// quadrant tool — scenario `lua-rects`: the Lua article's rectangle collision test (seeds/002) reproduced.
//
// 500 rectangles on a 1200 x 1200 screen, drawn the way the article draws them, in a quadtree of at most 9 objects
// per node and nodes no smaller than 75 (its MIN_WIDTH 50 on the half side). The article counts the collision
// tests of its tree (10123) against brute force's (124750) and finds the same 5453 intersecting pairs; here its
// tree (ported in lua_article_tree.hpp) and quadrant's three placements run on the same scene, and every answer is
// checked against brute force. Then the article's to-do list: the same rectangles move frame by frame, each tree
// is brought up to date by move() or rebuilt, and the per-frame cost is measured, every frame checked.
#pragma once

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

#include <quadrant/quadrant.hpp>
#include <quadrant/svg.hpp>

#include "demo.hpp"
#include "figure.hpp"
#include "lua_article_tree.hpp"

namespace quadrant_tools::lua {

using quadrant::Box2;
using quadrant::Handle;
using quadrant::Placement;

// The article's screen (SCREEN_WIDTH, SCREEN_HEIGHT), scene size and tree limits.
inline constexpr float kScreen = 1200;
inline constexpr int kArticleRects = 500;
inline constexpr int kMaxDepth = 99;        // MAX_DEPTH
inline constexpr int kSplitThreshold = 9;   // MAX_OBJ_NUM
inline constexpr float kMinNodeSide = 50;   // MIN_WIDTH, MIN_HEIGHT (see article_config for how they map)
// The article's printed results (calCollsition(2) and (3)).
inline constexpr const char* kArticleTree = "10123 / 5453";
inline constexpr const char* kArticleBrute = "124750 / 5453";
inline constexpr int kArticleTreeTests = 10123, kArticleBruteTests = 124750, kArticleCollisions = 5453;
inline constexpr int kDefaultFrames = 200, kQuickFrames = 10;
inline constexpr int kDefaultRects[] = {kArticleRects};
inline constexpr Sizes kSizes{
    .objects_what = "rectangles",
    .objects = kDefaultRects,
    .objects_quick = kDefaultRects,
    .objects_max = 5000,
    .objects_note = "brute force is quadratic, and rect i is up to i wide: past 2000 nearly every pair collides",
    .frames_what = "frames of the moving part",
    .frames = kDefaultFrames,
    .frames_quick = kQuickFrames,
    .frames_max = 100000,
    .frames_capped = false,
    .objects_x_frames_max = 0};
// Speeds of the moving part, pixels per frame on each axis (the article has none: its to-do list asks for it).
inline constexpr double kMinSpeed = 1, kMaxSpeed = 4;

/// One rectangle: the article's {x, y, width, height}, plus a velocity for the moving part.
struct Body {
  float x, y, width, height, vx, vy;
};

inline Box2 box_of(const Body& b) { return Box2{{b.x, b.y}, {b.x + b.width, b.y + b.height}}; }

/// Lua's math.random(lo, hi): an integer in [lo, hi], both included.
inline int lua_random(Rng& rng, int lo, int hi) {
  return lo + static_cast<int>(rng.next() % static_cast<std::uint64_t>(hi - lo + 1));
}

/// The article's scene: rect i (from 1) gets width math.random(10, i > 10 and i or 15), height
/// math.random(15, i > 15 and i or 20), corner math.random(1, 1200) on each axis, in that order — later rects are
/// larger, and many reach past the screen's right and top edges. Velocities come from a second stream, so the
/// static scene is the article's draw alone.
inline std::vector<Body> make_scene(int count, std::uint64_t seed) {
  Rng rng(seed), motion(seed ^ 0x6c75612d72656374ULL);
  std::vector<Body> bodies;
  for (int i = 1; i <= count; ++i) {
    Body b{};
    b.width = static_cast<float>(lua_random(rng, 10, i > 10 ? i : 15));
    b.height = static_cast<float>(lua_random(rng, 15, i > 15 ? i : 20));
    b.x = static_cast<float>(lua_random(rng, 1, static_cast<int>(kScreen)));
    b.y = static_cast<float>(lua_random(rng, 1, static_cast<int>(kScreen)));
    b.vx = static_cast<float>(motion.uniform(kMinSpeed, kMaxSpeed)) * (motion.coin() ? 1.0f : -1.0f);
    b.vy = static_cast<float>(motion.uniform(kMinSpeed, kMaxSpeed)) * (motion.coin() ? 1.0f : -1.0f);
    bodies.push_back(b);
  }
  return bodies;
}

/// One frame of motion: a rect past a screen edge and still moving out turns back, so the rects that start
/// sticking out past 1200 drift in and then bounce between the edges.
inline void step(Body& b) {
  b.x += b.vx;
  b.y += b.vy;
  if ((b.x < 0 && b.vx < 0) || (b.x + b.width > kScreen && b.vx > 0)) b.vx = -b.vx;
  if ((b.y < 0 && b.vy < 0) || (b.y + b.height > kScreen && b.vy > 0)) b.vy = -b.vy;
}

/// The article's isCollision: strict, rects that share only an edge or a corner do not collide.
inline bool strict_overlap(const Box2& a, const Box2& b) {
  return a.min.x < b.max.x && a.min.y < b.max.y && b.min.x < a.max.x && b.min.y < a.max.y;
}

/// calCollsition(3): every i < j pair tested; the colliding pairs come out sorted.
inline std::vector<std::uint64_t> brute_force(const std::vector<Box2>& boxes) {
  std::vector<std::uint64_t> pairs;
  const auto n = static_cast<std::uint32_t>(boxes.size());
  for (std::uint32_t i = 0; i < n; ++i)
    for (std::uint32_t j = i + 1; j < n; ++j)
      if (strict_overlap(boxes[i], boxes[j])) pairs.push_back(pair_key(i, j));
  return pairs;
}

inline LuaArticleTree::Rect rect_of(std::uint32_t index, const Box2& b) {
  // In double, x + width gives back max.x exactly, so the port's strict tests agree with brute force's.
  const double x = b.min.x, y = b.min.y;
  return {index, x, y, double(b.max.x) - x, double(b.max.y) - y};
}

/// The article's tree: root {x1 = 0, y1 = 0, cx = 600, cy = 600}.
inline LuaArticleTree make_article_tree() { return LuaArticleTree(0, 0, kScreen / 2, kScreen / 2); }

/// The article's tree built on `boxes` and counted; its pairs (sorted) in `pairs`.
inline LuaArticleTree::Counts run_article(LuaArticleTree& tree, const std::vector<Box2>& boxes,
                                          std::vector<std::uint64_t>& pairs) {
  tree.clear();
  for (std::uint32_t i = 0; i < boxes.size(); ++i) tree.insert(rect_of(i, boxes[i]));
  pairs.clear();
  const LuaArticleTree::Counts counts = tree.count_collisions(pairs);
  std::sort(pairs.begin(), pairs.end());
  return counts;
}

/// quadrant's tree with the article's limits. The article splits a node when its half side exceeds 50, so its
/// children are at least 50 on a side; min_node_size 50 says the same ("never split a cell whose children would be
/// smaller than 50"). From 1200 the sides go 600, 300, 150, 75: leaves of 75 at depth 4, whose children (37.5)
/// would be too small. The two rules differ only for a child of exactly 50, which 1200 never halves to.
inline quadrant::Config<2, float> article_config(Placement placement) {
  return {.world = {{0, 0}, {kScreen, kScreen}},
          .max_depth = kMaxDepth,
          .split_threshold = kSplitThreshold,
          .min_node_size = kMinNodeSide,
          .placement = placement};
}

enum class Update { Rebuild, Move };
inline const char* name_of(Update u) { return u == Update::Rebuild ? "rebuild" : "move"; }

/// One quadrant tree kept up to date over the frames, and what it did.
class TreeRun {
 public:
  TreeRun(Placement placement, Update update, const std::vector<Box2>& initial)
      : placement_(placement), update_(update), tree_(article_config(placement)), handles_(initial.size()) {
    insert_all(initial);
  }

  /// Brings the tree up to `boxes` (skipped when `already_inserted`: the constructor inserted them), then finds
  /// every pair with for_each_pair and keeps the strictly intersecting ones in `strict` (sorted afterwards,
  /// outside the clock). Returns the milliseconds of update + pair walk + strict test.
  double frame(const std::vector<Box2>& boxes, bool already_inserted, std::vector<std::uint64_t>& strict) {
    using clock = std::chrono::steady_clock;
    strict.clear();
    const auto start = clock::now();
    if (!already_inserted) {
      if (update_ == Update::Rebuild) {
        tree_.clear();
        insert_all(boxes);
      } else {
        for (std::uint32_t i = 0; i < boxes.size(); ++i) changed += tree_.move(handles_[i], boxes[i]);
      }
    }
    const quadrant::PairStats ps = tree_.for_each_pair([&](Handle a, Handle b) {
      const std::uint32_t i = object_of_slot_[a.index()], j = object_of_slot_[b.index()];
      ++closed;
      if (strict_overlap(boxes[i], boxes[j])) strict.push_back(pair_key(i, j));
    });
    const double elapsed_ms = std::chrono::duration<double, std::milli>(clock::now() - start).count();
    std::sort(strict.begin(), strict.end());
    tests += ps.box_tests;
    pairs += strict.size();
    return elapsed_ms;
  }

  std::string name() const { return std::string("quadrant ") + quadrant::to_string(placement_); }
  Update update() const { return update_; }
  const quadrant::QuadTree<std::uint32_t>& tree() const { return tree_; }

  // Totals over the frames run so far.
  std::size_t tests = 0, closed = 0, pairs = 0, changed = 0;
  std::vector<double> ms;
  std::size_t failures = 0;

 private:
  void insert_all(const std::vector<Box2>& boxes) {
    for (std::uint32_t i = 0; i < boxes.size(); ++i) {
      handles_[i] = tree_.insert(boxes[i], i);
      // Handle::index() is dense, so a side array maps it back to the object without a checked lookup.
      if (handles_[i].index() >= object_of_slot_.size()) object_of_slot_.resize(handles_[i].index() + 1);
      object_of_slot_[handles_[i].index()] = i;
    }
  }

  Placement placement_;
  Update update_;
  quadrant::QuadTree<std::uint32_t> tree_;
  std::vector<Handle> handles_;
  std::vector<std::uint32_t> object_of_slot_;
};

inline constexpr Placement kPlacements[] = {Placement::Leaves, Placement::Parent, Placement::Loose};

inline void check_valid(const TreeRun& run, const std::string& when, Report& report) {
  try {
    run.tree().validate();
    report.check("validate() of every tree", 1, 1);
  } catch (const std::exception& e) {
    report.check("validate() of every tree", 1, 0);
    report.add(run.name() + " " + name_of(run.update()) + ", " + when + ": validate(): " + e.what());
  }
}

inline const char* yes_no(bool ok) { return ok ? "yes" : "NO"; }

// ---- the static scene: the article's experiment ----

inline void print_static(const std::vector<Box2>& boxes, Report& report) {
  const std::size_t n = boxes.size();
  const bool article_size = n == static_cast<std::size_t>(kArticleRects);
  const std::vector<std::uint64_t> truth = brute_force(boxes);

  std::printf("Columns:\n"
              "  tests       object-pair tests: the article's count of collision tests; for quadrant\n"
              "              PairStats::box_tests, the closed box tests inside for_each_pair\n"
              "  closed      pairs for_each_pair reports: quadrant's boxes are closed, so rects that only touch are\n"
              "              among them; the article's strict test then runs once on each (strict tests = closed)\n"
              "  collisions  strictly intersecting pairs, the article's count of intersections\n"
              "  agrees      the set of colliding pairs is brute force's\n\n");
  Line line;
  line.add("%-28s %8s %8s %11s %7s  %s", "method", "tests", "closed", "collisions", "agrees",
           article_size ? "article says (tests / collisions)" : "");
  line.print();
  line.add("%-28s %8zu %8s %11zu %7s  %s", "brute force (every i < j)", n * (n - 1) / 2, "-", truth.size(), "yes",
           article_size ? kArticleBrute : "");
  line.print();
  // For --json the article's figures are numbers, as in article_spread: {"tests": ..., "collisions": ...}.
  auto says = [&](int tests) {
    return article_size ? Report::Json({{"tests", tests}, {"collisions", kArticleCollisions}}) : Report::Json(nullptr);
  };
  report.table("static").push_back({{"method", "brute force"},
                                    {"tests", n * (n - 1) / 2},
                                    {"closed", nullptr},
                                    {"collisions", truth.size()},
                                    {"agrees", true},
                                    {"article_says", says(kArticleBruteTests)}});

  LuaArticleTree article = make_article_tree();
  std::vector<std::uint64_t> article_pairs;
  const LuaArticleTree::Counts counts = run_article(article, boxes, article_pairs);
  const std::string article_diff = compare_pairs(article_pairs, truth, 1);
  if (!report.check("pairs: the article's tree (port) = brute force", double(truth.size()),
                    double(article_pairs.size()), article_diff.empty()))
    report.add("article's tree (port), static scene: " + article_diff);
  if (!report.check("the port's collision count = its pairs", double(article_pairs.size()), double(counts.collisions)))
    report.add("article's tree (port): its collision count differs from its pairs");
  line.add("%-28s %8zu %8s %11zu %7s  %s", "article's tree (C++ port)", counts.tests, "-", counts.collisions,
           yes_no(article_diff.empty()), article_size ? kArticleTree : "");
  line.print();
  report.table("static").push_back({{"method", "article's tree (C++ port)"},
                                    {"tests", counts.tests},
                                    {"closed", nullptr},
                                    {"collisions", counts.collisions},
                                    {"agrees", article_diff.empty()},
                                    {"article_says", says(kArticleTreeTests)}});

  struct ShapeRow {
    std::string name;
    quadrant::Stats stats;
    float smallest = 0;
  };
  std::vector<ShapeRow> shapes;
  std::vector<std::uint64_t> strict;
  for (Placement p : kPlacements) {
    TreeRun run(p, Update::Rebuild, boxes);
    run.frame(boxes, true, strict);
    const std::string diff = compare_pairs(strict, truth, 1);
    if (!report.check("pairs: quadrant's trees = brute force (static scene)", double(truth.size()),
                      double(strict.size()), diff.empty()))
      report.add(run.name() + ", static scene: " + diff);
    check_valid(run, "static scene", report);
    line.add("%-28s %8zu %8zu %11zu %7s", run.name().c_str(), run.tests, run.closed, strict.size(),
             yes_no(diff.empty()));
    line.print();
    report.table("static").push_back({{"method", run.name()},
                                      {"tests", run.tests},
                                      {"closed", run.closed},
                                      {"collisions", strict.size()},
                                      {"agrees", diff.empty()},
                                      {"article_says", nullptr}});
    ShapeRow row{run.name(), run.tree().stats(), kScreen};
    run.tree().for_each_node([&](const quadrant::NodeView<2, float>& v) {
      if (v.leaf) row.smallest = std::min(row.smallest, v.cell.max.x - v.cell.min.x);
    });
    shapes.push_back(row);
  }
  std::size_t touching = 0;
  for (std::uint32_t i = 0; i < n; ++i)
    for (std::uint32_t j = i + 1; j < n; ++j)
      touching += quadrant::overlaps(boxes[i], boxes[j]) && !strict_overlap(boxes[i], boxes[j]);
  report.figure("pairs_only_touching", touching);
  std::printf("(%zu pairs only touch, sharing an edge or a corner: quadrant's closed boxes report them and the\n"
              " strict test drops them.",
              touching);
  if (article_size)
    std::printf("\n The article's figures come from its own random scene (math.randomseed(os.time())); its code\n"
                " counts %zu / %zu on this one, and below on many scenes drawn its way.",
                counts.tests, counts.collisions);
  std::printf(")\n\n");

  // The trees' shapes: the article's splits every crowded node and pays in pieces.
  const LuaArticleTree::Shape as = article.shape();
  std::printf("The trees on this scene (entries: objects as nodes list them — the article's carved pieces,\n"
              "quadrant's Stats::references; KiB: Stats::bytes, the heap the tree holds):\n");
  line.add("%-28s %7s %7s %6s %14s %8s %8s", "tree", "nodes", "leaves", "depth", "smallest leaf", "entries", "KiB");
  line.print();
  line.add("%-28s %7zu %7zu %6d %14g %8zu %8s", "article's tree (C++ port)", as.nodes, as.leaves, as.depth,
           as.smallest_leaf_side, as.pieces, "-");
  line.print();
  report.table("trees").push_back({{"tree", "article's tree (C++ port)"},
                                   {"nodes", as.nodes},
                                   {"leaves", as.leaves},
                                   {"depth", as.depth},
                                   {"smallest_leaf", as.smallest_leaf_side},
                                   {"entries", as.pieces},
                                   {"kib", nullptr}});
  for (const ShapeRow& r : shapes) {
    line.add("%-28s %7zu %7zu %6d %14g %8zu %8.1f", r.name.c_str(), r.stats.nodes, r.stats.leaves, r.stats.depth,
             double(r.smallest), r.stats.references, double(r.stats.bytes) / 1024);
    line.print();
    report.table("trees").push_back({{"tree", r.name},
                                     {"nodes", r.stats.nodes},
                                     {"leaves", r.stats.leaves},
                                     {"depth", r.stats.depth},
                                     {"smallest_leaf", r.smallest},
                                     {"entries", r.stats.references},
                                     {"kib", double(r.stats.bytes) / 1024}});
  }
  report.figure("article_pairs_met", counts.tests + counts.skipped);
  report.figure("article_pairs_skipped", counts.skipped);
  std::printf("(No leaf can be smaller than 75, depth 4: min_node_size 50 forbids children of 37.5, as the article's\n"
              " MIN_WIDTH does. The article splits every node holding more than 9 pieces; quadrant's Leaves splits a\n"
              " leaf only when the split separates its rects, not when most of them would be copied into every\n"
              " child, so it keeps fewer nodes and entries and tests more pairs per leaf. The article's count is\n"
              " lower also because recordDict skips a pair already found colliding in an earlier leaf: its leaves\n"
              " meet %zu pairs of pieces and skip %zu of them (a hash lookup each, not counted as a test), where\n"
              " quadrant's Leaves tests every pair of a leaf and reports each from one leaf, with no set. Parent\n"
              " keeps a rect that straddles a center line in the node above, so large rects stay high and meet\n"
              " many; Loose places each rect once, by its center and size.)\n\n",
              counts.tests + counts.skipped, counts.skipped);
}

// The article's one run is one random scene: its code on many scenes drawn its way shows where 10123 / 5453 falls.
inline void print_article_spread(int rects, std::uint64_t first_seed, int scenes, Report& report) {
  std::vector<double> tests, collisions;
  LuaArticleTree tree = make_article_tree();
  std::vector<std::uint64_t> pairs;
  for (int k = 0; k < scenes; ++k) {
    const std::uint64_t seed = first_seed + static_cast<std::uint64_t>(k);
    std::vector<Box2> boxes;
    for (const Body& b : make_scene(rects, seed)) boxes.push_back(box_of(b));
    const LuaArticleTree::Counts c = run_article(tree, boxes, pairs);
    const std::vector<std::uint64_t> truth = brute_force(boxes);
    const std::string diff = compare_pairs(pairs, truth, 1);
    if (!report.check("pairs: the article's tree (port) = brute force", double(truth.size()), double(pairs.size()),
                      diff.empty()))
      report.add("article's tree (port), scene of seed " + std::to_string(seed) + ": " + diff);
    report.tick("the article's code on many scenes: %d of %d", k + 1, scenes);
    tests.push_back(double(c.tests));
    collisions.push_back(double(c.collisions));
  }
  auto [tmin, tmax] = std::minmax_element(tests.begin(), tests.end());
  auto [cmin, cmax] = std::minmax_element(collisions.begin(), collisions.end());
  std::printf("The article's code on %d scenes drawn its way (seeds %llu..%llu), each checked against brute force:\n",
              scenes, static_cast<unsigned long long>(first_seed),
              static_cast<unsigned long long>(first_seed + static_cast<std::uint64_t>(scenes) - 1));
  Line line;
  line.add("%-12s %8s %8s %8s   %s", "", "min", "median", "max", rects == kArticleRects ? "article's own scene" : "");
  line.print();
  line.add("%-12s %8.0f %8.0f %8.0f   %s", "tests", *tmin, median(tests), *tmax, rects == kArticleRects ? "10123" : "");
  line.print();
  line.add("%-12s %8.0f %8.0f %8.0f   %s", "collisions", *cmin, median(collisions), *cmax,
           rects == kArticleRects ? "5453" : "");
  line.print();
  report.json()["article_spread"] = {
      {"scenes", scenes},
      {"first_seed", first_seed},
      {"tests", {{"min", *tmin}, {"median", median(tests)}, {"max", *tmax}}},
      {"collisions", {{"min", *cmin}, {"median", median(collisions)}, {"max", *cmax}}},
      {"article_says", rects == kArticleRects
                           ? Report::Json({{"tests", kArticleTreeTests}, {"collisions", kArticleCollisions}})
                           : Report::Json(nullptr)}};
  std::printf("\n");
}

// The first item of the article's to-do list, 复杂度比较: tests as the scene grows, drawn the article's way (so
// rect i is up to i wide: larger scenes have larger rects too, on the same screen).
inline void print_complexity(const std::vector<int>& sizes, std::uint64_t seed, Report& report) {
  std::printf("Complexity compared (复杂度比较, the first item of the article's to-do list): tests as the scene grows, each drawn the article's way\n"
              "(rect i up to i wide and high, so larger scenes also have larger rects on the same screen), every\n"
              "answer checked:\n");
  Line line;
  line.add("%6s %10s %10s %10s %10s %10s %10s %10s", "rects", "brute", "collisions", "article's", "(met)", "Leaves",
           "Parent", "Loose");
  line.print();
  LuaArticleTree article = make_article_tree();
  std::vector<std::uint64_t> found;
  // The first sizes at which Leaves tests, and the article's leaves meet, more pairs than brute force.
  int leaves_beyond_brute = 0, article_beyond_brute = 0;
  for (int size : sizes) {
    report.step("complexity: %d rects", size);
    std::vector<Box2> boxes;
    for (const Body& b : make_scene(size, seed)) boxes.push_back(box_of(b));
    const std::vector<std::uint64_t> truth = brute_force(boxes);
    const std::size_t n = boxes.size();
    line.add("%6d %10zu %10zu", size, n * (n - 1) / 2, truth.size());
    const LuaArticleTree::Counts counts = run_article(article, boxes, found);
    if (const std::string diff = compare_pairs(found, truth, 1);
        !report.check("pairs: the article's tree (port) = brute force", double(truth.size()), double(found.size()),
                      diff.empty()))
      report.add("article's tree (port), " + std::to_string(size) + " rects: " + diff);
    line.add(" %10zu %10zu", counts.tests, counts.tests + counts.skipped);
    Report::Json row = {{"rects", size},
                        {"brute", n * (n - 1) / 2},
                        {"collisions", truth.size()},
                        {"article_tests", counts.tests},
                        {"article_met", counts.tests + counts.skipped}};
    if (counts.tests + counts.skipped > n * (n - 1) / 2 && article_beyond_brute == 0) article_beyond_brute = size;
    for (Placement p : kPlacements) {
      TreeRun run(p, Update::Rebuild, boxes);
      run.frame(boxes, true, found);
      if (const std::string diff = compare_pairs(found, truth, 1);
          !report.check("pairs: quadrant's trees = brute force (complexity)", double(truth.size()),
                        double(found.size()), diff.empty()))
        report.add(run.name() + ", " + std::to_string(size) + " rects: " + diff);
      check_valid(run, std::to_string(size) + " rects", report);
      line.add(" %10zu", run.tests);
      row[std::string(quadrant::to_string(p)) + "_tests"] = run.tests;
      if (p == Placement::Leaves && run.tests > n * (n - 1) / 2 && leaves_beyond_brute == 0) leaves_beyond_brute = size;
    }
    line.print();
    report.table("complexity").push_back(row);
  }
  std::printf("(Brute force grows as n^2 / 2; the trees' tests grow with the collisions, which this draw makes grow\n"
              " faster than n: every tree tests each colliding pair at least once. The column (met) counts the pairs\n"
              " of pieces the article's leaves meet: its tests plus those recordDict skips. A rect listed by many\n"
              " leaves is tested in each against every rect sharing it; Parent and Loose list each rect once.");
  report.figure("leaves_tests_beyond_brute_from", leaves_beyond_brute ? Report::Json(leaves_beyond_brute) : Report::Json(nullptr));
  report.figure("article_met_beyond_brute_from", article_beyond_brute ? Report::Json(article_beyond_brute) : Report::Json(nullptr));
  if (leaves_beyond_brute != 0)
    std::printf("\n From %d rects on (rects up to %d wide) quadrant's Leaves tests more pairs than brute force.",
                leaves_beyond_brute, leaves_beyond_brute);
  if (article_beyond_brute != 0)
    std::printf("\n From %d rects on the article's leaves meet more pairs than brute force tests.",
                article_beyond_brute);
  std::printf(")\n\n");
}

// ---- the moving scene: the article's to-do list ----

inline void print_dynamic(std::vector<Body> bodies, int frames, Report& report) {
  const std::size_t n = bodies.size();
  std::vector<Box2> boxes;
  for (const Body& b : bodies) boxes.push_back(box_of(b));
  std::vector<TreeRun> runs;
  for (Placement p : kPlacements)
    for (Update u : {Update::Move, Update::Rebuild}) runs.emplace_back(p, u, boxes);
  LuaArticleTree article = make_article_tree();
  std::size_t article_tests = 0, article_failures = 0, truth_pairs = 0;
  std::vector<double> article_ms, brute_ms;
  std::vector<std::uint64_t> found;
  const int validate_every = frames <= 20 ? 1 : 25;

  for (int f = 0; f < frames; ++f) {
    using clock = std::chrono::steady_clock;
    for (Body& b : bodies) step(b);
    for (std::size_t i = 0; i < n; ++i) boxes[i] = box_of(bodies[i]);
    const std::string at = "frame " + std::to_string(f);

    auto start = clock::now();
    const std::vector<std::uint64_t> truth = brute_force(boxes);
    brute_ms.push_back(std::chrono::duration<double, std::milli>(clock::now() - start).count());
    truth_pairs += truth.size();

    // The article's tree has no removal: it is rebuilt every frame (clear, insert all, count).
    start = clock::now();
    const LuaArticleTree::Counts counts = run_article(article, boxes, found);
    article_ms.push_back(std::chrono::duration<double, std::milli>(clock::now() - start).count());
    article_tests += counts.tests;
    if (const std::string diff = compare_pairs(found, truth, 1);
        !report.check("pairs: the article's tree (port) = brute force", double(truth.size()), double(found.size()),
                      diff.empty())) {
      ++article_failures;
      report.add("article's tree (port), " + at + ": " + diff);
    }

    for (TreeRun& run : runs) {
      run.ms.push_back(run.frame(boxes, false, found));
      if (const std::string diff = compare_pairs(found, truth, 1);
          !report.check("pairs: quadrant's trees = brute force (moving, every frame)", double(truth.size()),
                        double(found.size()), diff.empty())) {
        ++run.failures;
        report.add(run.name() + " " + name_of(run.update()) + ", " + at + ": " + diff);
      }
      if ((f + 1) % validate_every == 0 || f + 1 == frames) check_valid(run, at, report);
    }
    report.tick("moving: frame %d of %d", f + 1, frames);
  }

  const double fr = frames;
  std::printf("Per frame, averaged over the frames (ms: the median; the only column that varies run to run):\n"
              "  update      move: insert once, then move() every rect each frame; rebuild: clear() and insert()\n"
              "              all (the article's tree can only be rebuilt: it has no removal)\n"
              "  tests       object-pair tests, as above; collisions: strictly intersecting pairs\n"
              "  changed     rects per frame whose move() returned true (their node changed)\n"
              "  ms          tree update + finding the pairs (+ the strict test on quadrant's closed pairs)\n"
              "  frames ok   frames whose colliding pairs equal brute force's, of %d\n",
              frames);
  Line line;
  line.add("%-26s %-8s %10s %11s %9s %9s %10s", "method", "update", "tests", "collisions", "changed", "ms",
           "frames ok");
  line.print();
  line.add("%-26s %-8s %10zu %11.1f %9s %9.3f %10d", "brute force (every i < j)", "-", n * (n - 1) / 2,
           double(truth_pairs) / fr, "-", median(brute_ms), frames);
  line.print();
  line.add("%-26s %-8s %10.1f %11.1f %9s %9.3f %10zu", "article's tree (C++ port)", "rebuild",
           double(article_tests) / fr, double(truth_pairs) / fr, "-", median(article_ms),
           static_cast<std::size_t>(frames) - article_failures);
  line.print();
  Report::Json& moving = report.table("moving");
  moving.push_back({{"method", "brute force"},
                    {"update", nullptr},
                    {"tests", n * (n - 1) / 2},
                    {"collisions", double(truth_pairs) / fr},
                    {"changed", nullptr},
                    {"ms", median(brute_ms)},
                    {"frames_ok", frames}});
  moving.push_back({{"method", "article's tree (C++ port)"},
                    {"update", "rebuild"},
                    {"tests", double(article_tests) / fr},
                    {"collisions", double(truth_pairs) / fr},
                    {"changed", nullptr},
                    {"ms", median(article_ms)},
                    {"frames_ok", static_cast<std::size_t>(frames) - article_failures}});
  for (const TreeRun& run : runs) {
    line.add("%-26s %-8s %10.1f %11.1f", run.name().c_str(), name_of(run.update()), double(run.tests) / fr,
             double(run.pairs) / fr);
    if (run.update() == Update::Move) line.add(" %9.1f", double(run.changed) / fr);
    else line.add(" %9s", "-");
    line.add(" %9.3f %10zu", median(run.ms), static_cast<std::size_t>(frames) - run.failures);
    line.print();
    moving.push_back({{"method", run.name()},
                      {"update", name_of(run.update())},
                      {"tests", double(run.tests) / fr},
                      {"collisions", double(run.pairs) / fr},
                      {"changed", run.update() == Update::Move ? Report::Json(double(run.changed) / fr)
                                                               : Report::Json(nullptr)},
                      {"ms", median(run.ms)},
                      {"frames_ok", static_cast<std::size_t>(frames) - run.failures}});
  }
  std::printf("\n");
}

// ---- the picture ----

// The article's scene in quadrant's Leaves tree with the article's limits: leaf cells coloured by depth, every
// rect outlined red when it strictly intersects another and filled blue when it intersects none; the screen's
// edge drawn thick (rects reach past it). The legend is to the right.
inline void write_picture(const std::vector<Box2>& boxes, const std::string& dir, Report& report) {
  quadrant::QuadTree<std::uint32_t> tree(article_config(Placement::Leaves));
  for (std::uint32_t i = 0; i < boxes.size(); ++i) tree.insert(boxes[i], i);
  std::vector<bool> colliding(boxes.size(), false);
  for (std::uint64_t key : brute_force(boxes)) colliding[pair_first(key)] = colliding[pair_second(key)] = true;
  const std::size_t hits = std::size_t(std::count(colliding.begin(), colliding.end(), true));

  Box2 view = tree.config().world;
  for (const Box2& b : boxes) {
    view.min.x = std::min(view.min.x, b.min.x);
    view.min.y = std::min(view.min.y, b.min.y);
    view.max.x = std::max(view.max.x, b.max.x);
    view.max.y = std::max(view.max.y, b.max.y);
  }
  view.min = view.min - quadrant::Vec2{4, 4};
  view.max = view.max + quadrant::Vec2{4, 4};
  constexpr double kFillOpacity = 0.3;
  // Leaves filled by depth, drawn here rather than by draw_tree: its palette paints depth 3 red, the colour of an
  // intersection.
  constexpr std::array<const char*, 6> kDepthColours{"#1f77b4", "#ff7f0e", "#bcbd22", "#2ca02c", "#9467bd", "#17becf"};
  auto depth_colour = [&](int d) { return kDepthColours[std::min<std::size_t>(std::size_t(d), kDepthColours.size() - 1)]; };
  const quadrant::SvgStyle hit{"none", "#c00000", 0.8, 1, "", "colliding"};
  const quadrant::SvgStyle alone{"#1f4e79", "#1f4e79", 1, 1, "", "alone"};
  const quadrant::SvgStyle screen{"none", "#000000", 2.5, 1, "", "screen"};
  // Only the depths that have leaves.
  std::vector<bool> leaf_depth(64, false);
  tree.for_each_node([&](const quadrant::NodeView<2, float>& v) {
    if (v.leaf && v.depth < 64) leaf_depth[std::size_t(v.depth)] = true;
  });
  std::vector<LegendRow> rows;
  for (int d = 0; d < 64; ++d)
    if (leaf_depth[std::size_t(d)])
      rows.push_back(legend_row(Mark::Box, {depth_colour(d), "#555555", 0.75, kFillOpacity, "", ""},
                                "leaf cell at depth " + std::to_string(d) + " (side " +
                                    std::to_string(int(kScreen) >> d) + ")"));
  if (hits > 0) rows.push_back(legend_row(Mark::Box, hit, "rect that intersects another"));
  if (hits < boxes.size()) rows.push_back(legend_row(Mark::Box, alone, "rect that intersects none"));
  rows.push_back(legend_row(Mark::Box, screen, "the 1200 x 1200 screen"));
  char title[96];
  std::snprintf(title, sizeof title, "%zu rects in quadrant's Leaves tree", boxes.size());
  Figure figure(view, 960, rows, LegendPlace::Right, title);
  quadrant::SvgCanvas& canvas = figure.canvas();
  tree.for_each_node([&](const quadrant::NodeView<2, float>& v) {
    canvas.rect(v.cell, {v.leaf ? depth_colour(v.depth) : "none", "#555555", 0.75, kFillOpacity, "", "cell"});
  });
  for (std::size_t i = 0; i < boxes.size(); ++i)
    if (colliding[i]) canvas.rect(boxes[i], hit);
  for (std::size_t i = 0; i < boxes.size(); ++i)
    if (!colliding[i]) canvas.rect(boxes[i], alone);
  canvas.rect(tree.config().world, screen);
  const std::string path = dir + "/lua-rects.svg";
  figure.save(path);
  report.picture(path);
  std::printf("picture: %s (quadrant's Leaves tree with the article's limits, leaf cells by depth;\n"
              "the rects, red where they intersect another, blue where they intersect none; the screen's edge\n"
              "thick)\n\n",
              path.c_str());
}

/// `quadrant demo --scenario lua-rects`.
inline bool run_demo(const DemoOptions& opt, Report& report) {
  if (const std::string why = refusal("lua-rects", opt, kSizes); !why.empty()) throw std::invalid_argument(why);
  const int rects = objects_of(opt, kSizes).front();
  const int frames = frames_of(opt, kSizes);
  // Brute force on each scene costs rects^2 / 2: fewer scenes for larger ones.
  const int spread_scenes =
      opt.quick ? 3 : static_cast<int>(std::clamp(25'000'000LL / (static_cast<long long>(rects) * rects), 3LL, 100LL));
  const std::vector<Body> bodies = make_scene(rects, opt.seed);
  std::vector<Box2> boxes;
  for (const Body& b : bodies) boxes.push_back(box_of(b));

  std::printf("== lua-rects: 500 rectangles and the collisions among them ==\n");
  print_article(kLuaArticle, report);
  std::printf("%d rectangles on a %g x %g screen, drawn as the article draws them: rect i gets width\n"
              "math.random(10, i > 10 and i or 15), height math.random(15, i > 15 and i or 20) and corner\n"
              "math.random(1, 1200) on each axis (seed %llu), so later rects are larger and many reach past the\n"
              "screen. A node splits past %d objects and no node is smaller than 75 (the article's MAX_OBJ_NUM %d,\n"
              "MIN_WIDTH %g on the half side; quadrant: split_threshold %d, min_node_size %g). Collisions are strict,\n"
              "as the article's isCollision: rects that only touch do not collide. Every answer is checked against\n"
              "brute force.\n\n",
              rects, double(kScreen), double(kScreen), static_cast<unsigned long long>(opt.seed), kSplitThreshold,
              kSplitThreshold, double(kMinNodeSide), kSplitThreshold, double(kMinNodeSide));

  const std::vector<int> sizes =
      opt.quick ? std::vector<int>{125, 250} : std::vector<int>{125, 250, 500, 1000, 2000};
  report.json()["parameters"] = {{"rects", rects},
                                 {"screen", kScreen},
                                 {"seed", opt.seed},
                                 {"split_threshold", kSplitThreshold},
                                 {"min_node_size", kMinNodeSide},
                                 {"spread_scenes", spread_scenes},
                                 {"complexity_sizes", sizes},
                                 {"frames", frames},
                                 {"speed_px_per_frame", {kMinSpeed, kMaxSpeed}}};
  report.step("the static scene: brute force, the article's tree, quadrant's three placements");
  print_static(boxes, report);
  report.step("the article's code on %d scenes", spread_scenes);
  print_article_spread(rects, opt.seed, spread_scenes, report);
  print_complexity(sizes, opt.seed, report);
  std::printf("Computed every frame, objects moving (游戏中每帧计算与动态更新, the last item of the article's to-do\n"
              "list): the same rects move %g..%g px per frame on\n"
              "each axis and bounce off the screen's edges, for %d frames; every frame each tree is brought up to\n"
              "date and its colliding pairs are checked against brute force. Rects that start past the right or top\n"
              "edge drift back in, so the screen grows more crowded than the static scene: more collisions per\n"
              "frame.\n",
              kMinSpeed, kMaxSpeed, frames);
  report.step("moving: %d frames", frames);
  print_dynamic(bodies, frames, report);
  if (!opt.svg_dir.empty()) write_picture(boxes, opt.svg_dir, report);

  const std::string ok = "the static scene and all " + std::to_string(frames) +
                         " frames agree with brute force; validate() passed";
  return report.finish(ok);
}

}  // namespace quadrant_tools::lua

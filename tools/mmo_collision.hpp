// SPDX-License-Identifier: MIT
// quadrant tool — scenario `mmo-collision`: the MMO article's collision test (seeds/000, Unity C#) reproduced.
//
// 300 boxes move and bounce in a 120 x 80 world; every frame the tree is brought up to date (rebuilt, as the
// article does, or moved object by object), every overlapping pair is found with for_each_pair, and the article's
// loop (query each object's own box) runs too. Both answers are checked against brute force on every frame, for
// every placement, depth limit and split threshold; the counts show what the tree saves, beside the article's own
// figures and its own tree (ported in article_tree.hpp) run on the same frames.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <iterator>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <quadrant/quadrant.hpp>
#include <quadrant/svg.hpp>

#include "article_tree.hpp"
#include "demo.hpp"
#include "figure.hpp"

namespace quadrant_tools::mmo {

using quadrant::Box2;
using quadrant::Handle;
using quadrant::Placement;

// The article's world (QTDemo.X_MIN .. Y_MAX) and defaults.
inline constexpr float kWidth = 120, kHeight = 80;
inline constexpr int kDefaultObjects[] = {300};
inline constexpr int kDefaultFrames = 120, kQuickFrames = 10;
// The article's figures: 300 objects, traversal count at depth 0 and (about) at depth 4.
inline constexpr int kArticleObjects = 300;
inline constexpr Sizes kSizes{.objects_what = "boxes",
                              .objects = kDefaultObjects,
                              .objects_quick = kDefaultObjects,
                              .objects_max = 5000,
                              .objects_note = "brute force is quadratic, and runs for every configuration",
                              .frames_what = "frames",
                              .frames = kDefaultFrames,
                              .frames_quick = kQuickFrames,
                              .frames_max = 100000,
                              .frames_capped = false,
                              .objects_x_frames_max = 10'000'000};

struct Body {
  float x, y, half_w, half_h, vx, vy;
};

inline Box2 box_of(const Body& b) { return Box2{{b.x - b.half_w, b.y - b.half_h}, {b.x + b.half_w, b.y + b.half_h}}; }

// The article's QTElement.Update: when the next step would cross a wall, that velocity component turns first.
inline void step(Body& b) {
  if (b.x + b.vx - b.half_w < 0 || b.x + b.vx + b.half_w > kWidth) b.vx = -b.vx;
  if (b.y + b.vy - b.half_h < 0 || b.y + b.vy + b.half_h > kHeight) b.vy = -b.vy;
  b.x += b.vx;
  b.y += b.vy;
}

/// Every frame's boxes, and the brute-force answer for each frame, computed once and shared by every run.
struct Scene {
  std::size_t objects = 0;
  std::vector<Box2> initial;                       // as created (what the article's AddElement inserts)
  std::vector<std::vector<Box2>> frames;           // after 1, 2, ... updates
  std::vector<std::vector<std::uint64_t>> truth;   // per frame: sorted keys of the overlapping pairs
  std::size_t brute_tests = 0;                     // per frame: n (n - 1) / 2
};

/// Side lengths: uniform in [1, 3] (the brief), or 1 or 2 with equal odds, which is what the article's
/// UnityEngine.Random.Range(1, 3) returns: its int overload excludes the maximum.
enum class Sides { Uniform1To3, Unity1Or2 };

inline float side(Rng& rng, Sides sides) {
  const double u = rng.uniform(1, 3);
  return static_cast<float>(sides == Sides::Uniform1To3 ? u : (u < 2 ? 1.0 : 2.0));
}

inline Scene make_scene(int objects, int frames, std::uint64_t seed, Sides sides = Sides::Uniform1To3) {
  Scene s;
  s.objects = static_cast<std::size_t>(objects);
  s.brute_tests = s.objects * (s.objects - 1) / 2;
  Rng rng(seed);
  std::vector<Body> bodies(s.objects);
  for (Body& b : bodies) {
    // Center in [5, 115] x [5, 75], speed 0.05 .. 0.2 per axis with a random sign (the article's).
    b.x = static_cast<float>(rng.uniform(5, kWidth - 5));
    b.y = static_cast<float>(rng.uniform(5, kHeight - 5));
    b.half_w = side(rng, sides) * 0.5f;
    b.half_h = side(rng, sides) * 0.5f;
    b.vx = static_cast<float>(rng.uniform(0.05, 0.2));
    b.vy = static_cast<float>(rng.uniform(0.05, 0.2));
    if (rng.coin()) b.vx = -b.vx;
    if (rng.coin()) b.vy = -b.vy;
    s.initial.push_back(box_of(b));
  }
  s.frames.resize(static_cast<std::size_t>(frames));
  s.truth.resize(static_cast<std::size_t>(frames));
  for (std::size_t f = 0; f < s.frames.size(); ++f) {
    for (Body& b : bodies) step(b);
    std::vector<Box2>& boxes = s.frames[f];
    for (const Body& b : bodies) boxes.push_back(box_of(b));
    // The reference: every i < j pair tested; generated in increasing key order, so already sorted.
    for (std::uint32_t i = 0; i < s.objects; ++i)
      for (std::uint32_t j = i + 1; j < s.objects; ++j)
        if (quadrant::overlaps(boxes[i], boxes[j])) s.truth[f].push_back(pair_key(i, j));
  }
  return s;
}

enum class Update { Rebuild, Move };

/// One configuration to run over every frame.
struct Run {
  Update update;
  Placement placement;
  int max_depth;
  int split_threshold;
};

/// Per-frame averages of one run (ms: median).
struct Result {
  double pair_tests = 0, article_tests = 0, ms = 0;
  double entries_per_object = 0, bytes_per_object = 0;  // after the last frame
};

inline const char* name_of(Placement p) { return quadrant::to_string(p); }
inline const char* name_of(Update u) { return u == Update::Rebuild ? "rebuild" : "move"; }

inline std::string describe(const Run& r) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "%s %s max_depth %d split_threshold %d", name_of(r.update), name_of(r.placement),
                r.max_depth, r.split_threshold);
  return buf;
}

inline Result run(const Scene& scene, const Run& cfg, Report& report) {
  using clock = std::chrono::steady_clock;
  quadrant::Config<2, float> config;
  config.world = Box2{{0, 0}, {kWidth, kHeight}};
  config.max_depth = cfg.max_depth;
  config.split_threshold = cfg.split_threshold;
  config.placement = cfg.placement;
  quadrant::QuadTree<std::uint32_t> tree(config);

  const std::size_t n = scene.objects;
  std::vector<Handle> handles(n);
  // Handle::index() is dense, so a side array maps it back to the object id without a checked lookup.
  std::vector<std::uint32_t> object_of_slot(n);
  auto insert_all = [&](const std::vector<Box2>& boxes) {
    for (std::uint32_t i = 0; i < n; ++i) {
      handles[i] = tree.insert(boxes[i], i);
      if (handles[i].index() >= object_of_slot.size()) object_of_slot.resize(handles[i].index() + 1);
      object_of_slot[handles[i].index()] = i;
    }
  };
  if (cfg.update == Update::Move) insert_all(scene.initial);

  Result result;
  std::vector<double> ms;
  std::vector<std::uint64_t> found, article;
  std::vector<std::uint32_t> frame_failures;
  for (std::size_t f = 0; f < scene.frames.size(); ++f) {
    const std::vector<Box2>& boxes = scene.frames[f];
    found.clear();
    const auto start = clock::now();
    if (cfg.update == Update::Rebuild) {
      tree.clear();
      insert_all(boxes);
    } else {
      for (std::uint32_t i = 0; i < n; ++i) tree.move(handles[i], boxes[i]);
    }
    const quadrant::PairStats ps = tree.for_each_pair([&](Handle a, Handle b) {
      found.push_back(pair_key(object_of_slot[a.index()], object_of_slot[b.index()]));
    });
    ms.push_back(std::chrono::duration<double, std::milli>(clock::now() - start).count());
    result.pair_tests += static_cast<double>(ps.box_tests);

    // The article's loop: each object asks for what overlaps its own box (and finds itself).
    article.clear();
    std::size_t self_hits = 0;
    for (std::uint32_t i = 0; i < n; ++i) {
      const quadrant::QueryStats qs = tree.query(boxes[i], [&](const std::uint32_t& j) {
        if (j == i) ++self_hits;
        else article.push_back(pair_key(i, j));
      });
      result.article_tests += static_cast<double>(qs.box_tests);
    }

    std::sort(found.begin(), found.end());
    std::sort(article.begin(), article.end());
    const std::string pair_diff = compare_pairs(found, scene.truth[f], 1);
    std::string article_diff = compare_pairs(article, scene.truth[f], 2);
    if (self_hits != n) {
      if (!article_diff.empty()) article_diff += "; ";
      article_diff += std::to_string(n - std::min(n, self_hits)) + " objects did not find themselves";
    }
    if (!report.check("pairs: for_each_pair = brute force", double(scene.truth[f].size()), double(found.size()),
                      pair_diff.empty()))
      report.add(describe(cfg) + ", frame " + std::to_string(f) + ": for_each_pair vs brute force: " + pair_diff);
    if (!report.check("pairs: article's loop, query(own box) = brute force x 2",
                      2.0 * double(scene.truth[f].size()), double(article.size()), article_diff.empty()))
      report.add(describe(cfg) + ", frame " + std::to_string(f) + ": article loop vs brute force: " + article_diff);
  }
  try {
    tree.validate();
    report.check("validate() after the last frame", 1, 1);
  } catch (const std::exception& e) {
    report.check("validate() after the last frame", 1, 0);
    report.add(describe(cfg) + ": validate() after the last frame: " + e.what());
  }
  const double frames = static_cast<double>(scene.frames.size());
  result.pair_tests /= frames;
  result.article_tests /= frames;
  result.ms = median(ms);
  const quadrant::Stats st = tree.stats();
  result.entries_per_object = static_cast<double>(st.references) / static_cast<double>(n);
  result.bytes_per_object = static_cast<double>(st.bytes) / static_cast<double>(n);
  return result;
}

/// The article's own tree on the same frames: mean Retrieve candidates per frame, summed over objects (self
/// included), the article's 遍历次数. Its pairs are checked against brute force too, to vouch for the port.
inline double run_article_tree(const Scene& scene, int depth, Report& report) {
  ArticleQuadTree tree(Box2{{0, 0}, {kWidth, kHeight}}, depth);
  std::vector<ArticleQuadTree::AABB> boxes(scene.objects);
  std::vector<std::uint32_t> candidates;
  std::vector<std::uint64_t> pairs;
  double total = 0;
  for (std::size_t f = 0; f < scene.frames.size(); ++f) {
    tree.clear();
    for (std::uint32_t i = 0; i < scene.objects; ++i) {
      boxes[i] = ArticleQuadTree::AABB::of(scene.frames[f][i]);
      tree.insert(i, boxes[i]);
    }
    pairs.clear();
    for (std::uint32_t i = 0; i < scene.objects; ++i) {
      candidates.clear();
      tree.retrieve(boxes[i], candidates);
      total += static_cast<double>(candidates.size());
      for (std::uint32_t j : candidates)
        if (j > i && quadrant::overlaps(scene.frames[f][i], scene.frames[f][j])) pairs.push_back(pair_key(i, j));
    }
    std::sort(pairs.begin(), pairs.end());
    const std::string diff = compare_pairs(pairs, scene.truth[f], 1);
    if (!report.check("pairs: the article's tree (port) = brute force", double(scene.truth[f].size()),
                      double(pairs.size()), diff.empty()))
      report.add("article's tree (port) depth " + std::to_string(depth) + ", frame " + std::to_string(f) + ": " +
                   diff);
  }
  return total / static_cast<double>(scene.frames.size());
}

// The article's figure for a depth limit, or "" where it gives none.
inline const char* article_says(std::size_t objects, int depth) {
  if (objects != kArticleObjects) return "";
  if (depth == 0) return "90000";
  if (depth == 4) return "~6500";
  return "";
}

// The same figure for --json: a number (6500 for "~6500", with article_says_approx true), or null where none.
inline void add_article_says(Report::Json& row, std::size_t objects, int depth) {
  const std::string says = article_says(objects, depth);
  if (says.empty()) {
    row["article_says"] = nullptr;
    row["article_says_approx"] = nullptr;
    return;
  }
  const bool approx = says.front() == '~';
  row["article_says"] = std::stoi(approx ? says.substr(1) : says);
  row["article_says_approx"] = approx;
}

inline void print_update_table(const Scene& scene, Update update, const std::vector<int>& depths,
                               const std::vector<int>& thresholds, Report& report) {
  report.step("update = %s: %zu placements x %zu depths x %zu thresholds, %zu frames each", name_of(update),
              std::size_t(3), depths.size(), thresholds.size(), scene.frames.size());
  if (update == Update::Rebuild)
    std::printf("update = rebuild: every frame clear(), then insert() every object (the article's way)\n");
  else
    std::printf("update = move: insert() once, then every frame move() every object to its new box\n");
  Line line;
  line.add("%-9s %5s", "", "");
  for (int t : thresholds) {
    char head[48];
    const char* note = t == 0 ? " (full tree)" : t == quadrant::Config<2, float>{}.split_threshold ? " (default)" : "";
    std::snprintf(head, sizeof head, "split_threshold %d%s", t, note);
    line.add(" | %-33s", head);
  }
  line.add(" |").print();
  line.add("%-9s %5s", "placement", "depth");
  for (std::size_t k = 0; k < thresholds.size(); ++k) line.add(" | %10s %13s %8s", "pair tests", "article tests", "ms");
  line.add(" | %s", "article says").print();
  for (Placement p : {Placement::Loose, Placement::Parent, Placement::Leaves}) {
    for (int depth : depths) {
      line.add("%-9s %5d", name_of(p), depth);
      for (int t : thresholds) {
        const Result r = run(scene, Run{update, p, depth, t}, report);
        line.add(" | %10.0f %13.0f %8.3f", r.pair_tests, r.article_tests, r.ms);
        Report::Json row{{"update", name_of(update)},
                         {"placement", name_of(p)},
                         {"max_depth", depth},
                         {"split_threshold", t},
                         {"pair_tests", r.pair_tests},
                         {"article_tests", r.article_tests},
                         {"ms", r.ms}};
        add_article_says(row, scene.objects, depth);
        report.table("update").push_back(std::move(row));
      }
      line.add(" | %s", article_says(scene.objects, depth)).print();
      report.tick("update = %s: %s, max_depth %d done", name_of(update), name_of(p), depth);
    }
  }
  std::printf("\n");
}

// The three placements side by side at the default configuration (max_depth 8, split_threshold 32): what a user
// who changes nothing but the placement gets. docs/placements.md quotes this table.
inline void print_placement_table(const Scene& scene, Report& report) {
  const quadrant::Config<2, float> defaults{};
  std::printf("The placements at the default max_depth %d and split_threshold %d (per frame; ms: median):\n",
              defaults.max_depth, defaults.split_threshold);
  Line line;
  line.add("%-9s %11s %14s %12s %9s %12s %10s", "placement", "pair tests", "article tests", "rebuild ms", "move ms",
           "entries/obj", "bytes/obj");
  line.print();
  for (Placement p : {Placement::Loose, Placement::Parent, Placement::Leaves}) {
    const Result rebuild = run(scene, Run{Update::Rebuild, p, defaults.max_depth, defaults.split_threshold}, report);
    const Result move = run(scene, Run{Update::Move, p, defaults.max_depth, defaults.split_threshold}, report);
    line.add("%-9s %11.0f %14.0f %12.3f %9.3f %12.2f %10.1f", name_of(p), move.pair_tests, move.article_tests,
             rebuild.ms, move.ms, move.entries_per_object, move.bytes_per_object);
    line.print();
    report.table("placements").push_back({{"placement", name_of(p)},
                                          {"max_depth", defaults.max_depth},
                                          {"split_threshold", defaults.split_threshold},
                                          {"pair_tests", move.pair_tests},
                                          {"article_tests", move.article_tests},
                                          {"rebuild_ms", rebuild.ms},
                                          {"move_ms", move.ms},
                                          {"entries_per_object", move.entries_per_object},
                                          {"bytes_per_object", move.bytes_per_object}});
  }
  std::printf("(entries/obj: node entries per object, above 1 only for Leaves; bytes/obj: Stats::bytes, the heap the\n"
              " tree holds, capacity included, divided by the objects. Pair tests are from the move() run.)\n\n");
}

// The article's other question: which monsters does the player's sword swing hit? Object 0 is the player; every
// frame it swings a fan of reach 6 and half-angle 60 degrees the way it moves, and the query (layer "monsters"
// only) must hit exactly the monsters brute force finds.
inline constexpr float kSwordReach = 6;
inline constexpr float kSwordHalfAngle = 1.0471976f;  // 60 degrees
inline constexpr std::uint32_t kPlayerLayer = 1, kMonsterLayer = 2;

inline quadrant::Sector<float> swing_of(const Scene& scene, std::size_t frame) {
  const auto center = [](const Box2& b) { return quadrant::center(b); };
  const quadrant::Vec2 now = center(scene.frames[frame][0]);
  const quadrant::Vec2 before = center(frame == 0 ? scene.initial[0] : scene.frames[frame - 1][0]);
  quadrant::Vec2 facing = now - before;
  if (facing.x == 0 && facing.y == 0) facing = {1, 0};
  return quadrant::Sector<float>{now, facing, kSwordReach, kSwordHalfAngle};
}

inline void print_sword_swing(const Scene& scene, Report& report) {
  std::printf("The player (object 0) swings a sword every frame: a sector of reach %g and half-angle 60 degrees in\n"
              "the direction it moves, querying the monsters' layer only. Hits per swing and tests per swing,\n"
              "averaged over the frames; brute force tests every monster.\n",
              static_cast<double>(kSwordReach));
  Line line;
  line.add("%-10s %12s %14s %14s", "placement", "hits/swing", "tests/swing", "brute tests");
  line.print();
  const std::size_t frames = scene.frames.size();
  for (Placement p : {Placement::Loose, Placement::Parent, Placement::Leaves}) {
    quadrant::QuadTree<int> tree({.world = {{0, 0}, {kWidth, kHeight}}, .max_depth = 5, .placement = p});
    std::vector<Handle> handles;
    for (std::size_t i = 0; i < scene.objects; ++i)
      handles.push_back(tree.insert(scene.initial[i], static_cast<int>(i), i == 0 ? kPlayerLayer : kMonsterLayer));
    double hits = 0, tests = 0;
    for (std::size_t f = 0; f < frames; ++f) {
      for (std::size_t i = 0; i < scene.objects; ++i) tree.move(handles[i], scene.frames[f][i]);
      const quadrant::Sector<float> swing = swing_of(scene, f);
      std::vector<int> got, expected;
      const quadrant::QueryStats st = tree.query(swing, [&](const int& i) { got.push_back(i); }, kMonsterLayer);
      for (std::size_t i = 1; i < scene.objects; ++i)
        if (quadrant::overlaps(swing, scene.frames[f][i])) expected.push_back(static_cast<int>(i));
      std::sort(got.begin(), got.end());
      if (!report.check("sword swing: hits = brute force", double(expected.size()), double(got.size()),
                        got == expected))
        report.add("sword swing, " + std::string(name_of(p)) + ", frame " + std::to_string(f) + ": " +
                     std::to_string(got.size()) + " hits, brute force " + std::to_string(expected.size()));
      hits += static_cast<double>(got.size());
      tests += static_cast<double>(st.box_tests);
    }
    line.add("%-10s %12.2f %14.1f %14zu", name_of(p), hits / double(frames), tests / double(frames), scene.objects - 1);
    line.print();
    report.table("sword_swing").push_back({{"placement", name_of(p)},
                                           {"max_depth", 5},
                                           {"hits_per_swing", hits / double(frames)},
                                           {"tests_per_swing", tests / double(frames)},
                                           {"brute_tests", scene.objects - 1}});
  }
  std::printf("\n");
}

// Contact events, the Unity loop's OnTriggerEnter / OnTriggerExit: a ContactTracker over the default tree, moved by
// one batch a frame. Every frame's begun and ended pairs are checked against the difference of the brute-force
// pair sets of this frame and the last (at frame 0, every pair begins).
inline void print_contact_events(const Scene& scene, Report& report) {
  std::printf("Contact events (ContactTracker, default Loose tree, one move batch a frame): pairs that began and\n"
              "ended touching, each frame checked against the difference of brute force's pair sets.\n");
  Line line;
  line.add("%6s %9s %7s %7s", "frame", "contacts", "begun", "ended");
  line.print();
  quadrant::QuadTree<int> tree({.world = {{0, 0}, {kWidth, kHeight}}});
  std::vector<Handle> handles;
  for (std::size_t i = 0; i < scene.objects; ++i) handles.push_back(tree.insert(scene.initial[i], static_cast<int>(i)));
  quadrant::ContactTracker<2, int> contacts;
  std::size_t begun = 0, ended = 0;
  auto keys = [&](std::span<const quadrant::Contact> list) {
    std::vector<std::uint64_t> out;
    for (const quadrant::Contact& c : list)
      out.push_back(pair_key(static_cast<std::uint32_t>(tree.value(c.a)), static_cast<std::uint32_t>(tree.value(c.b))));
    std::sort(out.begin(), out.end());
    return out;
  };
  const std::size_t frames = scene.frames.size();
  for (std::size_t f = 0; f < frames; ++f) {
    tree.move(handles, scene.frames[f]);
    contacts.update(tree);
    std::vector<std::uint64_t> want_begun, want_ended;
    static const std::vector<std::uint64_t> none;
    const std::vector<std::uint64_t>& before = f == 0 ? none : scene.truth[f - 1];
    std::set_difference(scene.truth[f].begin(), scene.truth[f].end(), before.begin(), before.end(),
                        std::back_inserter(want_begun));
    std::set_difference(before.begin(), before.end(), scene.truth[f].begin(), scene.truth[f].end(),
                        std::back_inserter(want_ended));
    const bool same = keys(contacts.begun()) == want_begun && keys(contacts.ended()) == want_ended &&
                      keys(contacts.contacts()) == scene.truth[f];
    if (!report.check("contacts: begun + ended = brute force's set differences",
                      double(want_begun.size() + want_ended.size()),
                      double(contacts.begun().size() + contacts.ended().size()), same))
      report.add("contact events, frame " + std::to_string(f) + ": " + std::to_string(contacts.begun().size()) +
                   " begun / " + std::to_string(contacts.ended().size()) + " ended, brute force " +
                   std::to_string(want_begun.size()) + " / " + std::to_string(want_ended.size()));
    if (f > 0) {
      begun += contacts.begun().size();
      ended += contacts.ended().size();
    }
    if (f < 3 || f % 20 == 0 || f + 1 == frames) {
      line.add("%6zu %9zu %7zu %7zu", f, contacts.contacts().size(), contacts.begun().size(), contacts.ended().size());
      line.print();
      report.table("contacts").push_back({{"frame", f},
                                          {"contacts", contacts.contacts().size()},
                                          {"begun", contacts.begun().size()},
                                          {"ended", contacts.ended().size()}});
    }
  }
  if (frames > 1) {
    std::printf("From frame 1 on, %.2f pairs began and %.2f ended a frame on average (frame 0 begins every pair).\n",
                double(begun) / double(frames - 1), double(ended) / double(frames - 1));
    report.figure("contacts_begun_per_frame", double(begun) / double(frames - 1));
    report.figure("contacts_ended_per_frame", double(ended) / double(frames - 1));
  }
  std::printf("\n");
}

// The article's picture of its tree, on the last frame: cells coloured by depth (Placement::Parent, max_depth 4, as the
// article builds it; leaves split past 32 objects, the default), each object's line to the node holding it,
// colliding objects in red, and the player's sword swing with the monsters it hits; the legend below the world.
inline void write_picture(const Scene& scene, const std::string& dir, Report& report) {
  const std::size_t last = scene.frames.size() - 1;
  quadrant::QuadTree<int> tree({.world = {{0, 0}, {kWidth, kHeight}}, .max_depth = 4, .placement = Placement::Parent});
  for (std::size_t i = 0; i < scene.objects; ++i) tree.insert(scene.frames[last][i], static_cast<int>(i));
  std::vector<bool> colliding(scene.objects, false);
  tree.for_each_pair([&](Handle a, Handle b) {
    colliding[std::size_t(tree.value(a))] = true;
    colliding[std::size_t(tree.value(b))] = true;
  });
  // The last frame's contact events, from a ContactTracker that saw the frame before (what OnTriggerEnter and
  // OnTriggerExit would be called with).
  std::vector<std::pair<std::size_t, std::size_t>> begun, ended;
  if (last > 0) {
    quadrant::QuadTree<int> moving({.world = {{0, 0}, {kWidth, kHeight}}});
    std::vector<Handle> handles;
    for (std::size_t i = 0; i < scene.objects; ++i)
      handles.push_back(moving.insert(scene.frames[last - 1][i], static_cast<int>(i)));
    quadrant::ContactTracker<2, int> contacts;
    contacts.update(moving);
    moving.move(handles, scene.frames[last]);
    contacts.update(moving);
    for (const quadrant::Contact& c : contacts.begun())
      begun.emplace_back(std::size_t(moving.value(c.a)), std::size_t(moving.value(c.b)));
    for (const quadrant::Contact& c : contacts.ended())
      ended.emplace_back(std::size_t(moving.value(c.a)), std::size_t(moving.value(c.b)));
  }
  const quadrant::Sector<float> swing = swing_of(scene, last);
  std::size_t hit = 0;
  for (std::size_t i = 1; i < scene.objects; ++i) hit += quadrant::overlaps(swing, scene.frames[last][i]);

  constexpr double kFill = 0.35;
  const quadrant::SvgStyle box{"none", "#111111", 1, 1, "", "object"};
  const quadrant::SvgStyle red{"none", "#d62728", 2, 1, "", "highlight"};
  const quadrant::SvgStyle owner{"none", "#444444", 0.5, 1, "", "owner"};
  const quadrant::SvgStyle sector{"#ff7f0e", "#a04a00", 2, 0.3, "", "swing"};
  const quadrant::SvgStyle monster{"#ff7f0e", "#a04a00", 2, 0.8, "", "hit"};
  const quadrant::SvgStyle player{"#1f77b4", "#0b3d62", 2, 1, "", "player"};
  const quadrant::SvgStyle began_style{"none", "#2ca02c", 4, 1, "", "contact-begun"};
  const quadrant::SvgStyle ended_style{"none", "#9467bd", 3, 1, "4 3", "contact-ended"};
  std::vector<bool> leaf_depth(16, false);
  tree.for_each_node([&](const quadrant::NodeView<2, float>& v) {
    if (v.leaf && v.depth < 16) leaf_depth[std::size_t(v.depth)] = true;
  });
  std::vector<LegendRow> rows;
  for (int d = 0; d < 16; ++d)
    if (leaf_depth[std::size_t(d)]) {
      char label[96];
      std::snprintf(label, sizeof label, "leaf cell at depth %d (%g x %g)", d, double(kWidth) / (1 << d),
                    double(kHeight) / (1 << d));
      rows.push_back(legend_row(Mark::Box, {quadrant::depth_colour(d), "#555555", 0.75, kFill, "", ""}, label));
    }
  rows.push_back(legend_row(Mark::Box, box, "a box overlapping no other"));
  rows.push_back(legend_row(Mark::Box, red, "a box overlapping another (for_each_pair)"));
  rows.push_back(legend_row(Mark::Box, player, "the player (box 0)"));
  rows.push_back(legend_row(Mark::Line, owner, "from a box to the center of the node that holds it"));
  rows.push_back(legend_note("(Parent: a box on a split line stays in the node above)"));
  rows.push_back(legend_row(Mark::Box, sector, "its sword swing: a Sector of reach 6, 120 degrees wide"));
  if (hit > 0) rows.push_back(legend_row(Mark::Box, monster, "a monster the swing hits (exact test)"));
  if (!begun.empty())
    rows.push_back(legend_row(Mark::Line, began_style, "a contact that began this frame (ContactTracker::begun)"));
  if (!ended.empty())
    rows.push_back(legend_row(Mark::Line, ended_style, "a contact that ended this frame (ContactTracker::ended)"));
  char title[128];
  std::snprintf(title, sizeof title, "Frame %zu: %zu boxes in %g x %g, Placement::Parent, max_depth 4", last + 1,
                scene.objects, double(kWidth), double(kHeight));
  Figure figure(tree.config().world, 960, rows, LegendPlace::Below, title);
  quadrant::SvgCanvas& canvas = figure.canvas();
  quadrant::draw_tree(canvas, tree, {.objects = false, .owner_lines = true, .legend = false, .fill_opacity = kFill});
  tree.for_each([&](Handle, const int& i, const Box2& b) { canvas.rect(b, colliding[std::size_t(i)] ? red : box); });
  canvas.shape(swing, sector);
  for (std::size_t i = 1; i < scene.objects; ++i)
    if (quadrant::overlaps(swing, scene.frames[last][i])) canvas.rect(scene.frames[last][i], monster);
  canvas.rect(scene.frames[last][0], player);
  auto center = [&](std::size_t i) {
    const Box2& b = scene.frames[last][i];
    return quadrant::Vec<2, float>{(b.min.x + b.max.x) / 2, (b.min.y + b.max.y) / 2};
  };
  for (const auto& [a, b] : begun) canvas.line(center(a), center(b), began_style);
  for (const auto& [a, b] : ended) canvas.line(center(a), center(b), ended_style);
  report.figure("picture_contacts_begun", begun.size());
  report.figure("picture_contacts_ended", ended.size());
  const std::string path = dir + "/mmo-collision.svg";
  figure.save(path);
  report.picture(path);
  std::printf("picture: %s (cells by depth, owner lines, colliding boxes red, the player blue, its sword swing and\n"
              "the monsters it hits orange, the frame's %zu begun contacts green and %zu ended purple; the legend\n"
              "below)\n\n",
              path.c_str(), begun.size(), ended.size());
}

/// `quadrant demo --scenario mmo-collision`.
inline bool run_demo(const DemoOptions& opt, Report& report) {
  const int objects = objects_of(opt, kSizes).front();
  const int frames = frames_of(opt, kSizes);
  const std::vector<int> depths = opt.quick ? std::vector<int>{0, 2, 4} : std::vector<int>{0, 1, 2, 3, 4, 5, 6};
  const std::vector<int> thresholds{0, 8, 32};
  if (const std::string why = refusal("mmo-collision", opt, kSizes); !why.empty()) throw std::invalid_argument(why);
  report.step("computing %d frames of %d boxes and brute force's pairs", frames, objects);
  const Scene scene = make_scene(objects, frames, opt.seed);

  double pairs = 0;
  for (const auto& t : scene.truth) pairs += static_cast<double>(t.size());
  pairs /= static_cast<double>(frames);
  report.json()["parameters"] = {{"objects", objects},  {"frames", frames},
                                 {"seed", opt.seed},    {"world", {kWidth, kHeight}},
                                 {"sides", "uniform in [1, 3]"}, {"depths", depths},
                                 {"split_thresholds", thresholds}};
  report.figure("brute_force_tests_per_frame", scene.brute_tests);
  report.figure("overlapping_pairs_per_frame", pairs);

  std::printf("== mmo-collision: 300 moving boxes and their collisions ==\n");
  print_article(kMmoArticle, report);
  std::printf("%d boxes (sides uniform in [1, 3]) moving 0.05..0.2 per axis per frame, bouncing off the walls of a\n"
              "%g x %g world; %d frames, seed %llu. Per frame, each tree finds every overlapping pair with\n"
              "for_each_pair and runs the article's loop (every object queries its own box); both are checked\n"
              "against brute force, as sets, on every frame.\n\n",
              objects, static_cast<double>(kWidth), static_cast<double>(kHeight), frames,
              static_cast<unsigned long long>(opt.seed));
  std::printf("Counts are per frame, averaged over the frames:\n"
              "  brute force    every i < j pair tested: %d x %d / 2 = %zu box tests; %.1f overlapping pairs found\n"
              "  pair tests     PairStats::box_tests of for_each_pair: object-object tests to report each pair once\n"
              "  article tests  sum over objects of QueryStats::box_tests of query(its own box), self-test included;\n"
              "                 the article's traversal count sums the candidates its Retrieve returned,\n"
              "                 self included (300 x 300 = 90000 at depth 0, ~6500 at depth 4)\n"
              "  ms             median over frames of tree update + for_each_pair (the only non-deterministic column)\n"
              "  depth          Config::max_depth (root = 0), the article's DepthMax\n\n",
              objects, objects - 1, scene.brute_tests, pairs);

  // The article's tree on this scene, and on the same scene with the sides its code really draws.
  report.step("the article's tree (port) at depths 0..%d", depths.back());
  const Scene unity_sides = make_scene(objects, frames, opt.seed, Sides::Unity1Or2);
  std::printf("The article's own tree (its C# Insert / Retrieve ported), on the same frames: Retrieve candidates\n");
  std::vector<double> uniform, unity;
  for (int d : depths) {
    uniform.push_back(run_article_tree(scene, d, report));
    unity.push_back(run_article_tree(unity_sides, d, report));
    Report::Json row{{"max_depth", d},
                     {"candidates_sides_1_to_3", uniform.back()},
                     {"candidates_sides_1_or_2", unity.back()}};
    add_article_says(row, scene.objects, d);
    report.table("article_tree").push_back(std::move(row));
  }
  Line line;
  line.add("%-28s", "depth");
  for (int d : depths) line.add(" %7d", d);
  line.print();
  line.add("%-28s", "article's tree, sides [1, 3]");
  for (double v : uniform) line.add(" %7.0f", v);
  line.print();
  line.add("%-28s", "article's tree, sides 1 or 2");
  for (double v : unity) line.add(" %7.0f", v);
  line.print();
  if (static_cast<std::size_t>(objects) == kArticleObjects) {
    line.add("%-28s", "article says");
    for (int d : depths) line.add(" %7s", article_says(scene.objects, d));
    line.print();
  }
  std::printf("(The article draws sides with UnityEngine.Random.Range(1, 3), whose int overload returns 1 or 2;\n"
              " the second row uses such sides. Everything below uses sides uniform in [1, 3].)\n\n");

  print_update_table(scene, Update::Rebuild, depths, thresholds, report);
  print_update_table(scene, Update::Move, depths, thresholds, report);
  report.step("the placements at the default configuration");
  print_placement_table(scene, report);
  report.step("the sword swing and the contact events");
  print_sword_swing(scene, report);
  print_contact_events(scene, report);
  if (!opt.svg_dir.empty()) write_picture(scene, opt.svg_dir, report);

  return report.finish("all frames agree with brute force");
}

}  // namespace quadrant_tools::mmo

// SPDX-License-Identifier: MIT
// quadrant tool — scenario `mmo-aoi`: an MMO server's area of interest (seeds/000's game server) with AoiWorld.
//
// A 240 x 160 map holds 40 players and 200 monsters. Players (watcher and marker) run about with a view radius of
// 30; most monsters are markers only, a few are guards that watch with radius 15, and some are stealthed (layer 4:
// only players with detection see them). Every tick players and monsters move, a player sometimes teleports
// (recall), monsters die and respawn (remove, and add again the same id later), a player logs out or in now and
// then, and a player's view radius changes (a buff). The server ticks the AoiWorld and sends Enter / Leave events;
// every tick they are checked against a brute-force model of the relation, and so are a sword swing (Sector) and a
// skill circle (Circle) answered by query(). `--svg DIR` writes DIR/mmo-aoi.svg: one tick, what the hero and one
// guard see.
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <numbers>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <quadrant/aoi.hpp>
#include <quadrant/svg.hpp>

#include "demo.hpp"
#include "figure.hpp"

namespace quadrant_tools::aoi {

using quadrant::AoiEvent;
using quadrant::AoiMode;
using V2 = quadrant::Vec2;

inline constexpr float kMapW = 240, kMapH = 160;
inline constexpr int kPlayers = 40, kMonsters = 200, kGuards = 30, kDefaultTicks = 200, kQuickTicks = 25;
inline constexpr Sizes kSizes{.objects_what = "",
                              .objects = {},
                              .objects_quick = {},
                              .objects_max = 0,
                              .objects_note = "the server holds 40 players and 200 monsters (30 of them guards)",
                              .frames_what = "ticks",
                              .frames = kDefaultTicks,
                              .frames_quick = kQuickTicks,
                              .frames_max = 100000,
                              .frames_capped = false,
                              .objects_x_frames_max = 0};
inline constexpr std::uint32_t kPlayerLayer = 1, kMonsterLayer = 2, kStealthLayer = 4;
inline constexpr float kPlayerView = 30, kGuardView = 15, kHysteresis = 2;

/// One entity of the server, as the game knows it (the AoiWorld mirrors it).
struct Mob {
  std::uint64_t id = 0;
  V2 pos{};
  float heading = 0, speed = 0, view = 0, body = 0;
  AoiMode mode = AoiMode::Marker;
  std::uint32_t layers = 0;
  bool alive = true, player = false, guard = false;
  int respawn_at = 0;  // a dead monster comes back at this tick
  const char* kind = "";
};

/// The brute-force relation: W sees T as the contract says, from the previous relation.
inline std::set<std::pair<std::uint64_t, std::uint64_t>> brute_relation(
    const std::map<std::uint64_t, Mob>& mobs, const std::set<std::pair<std::uint64_t, std::uint64_t>>& before) {
  std::set<std::pair<std::uint64_t, std::uint64_t>> now;
  for (const auto& [wid, w] : mobs) {
    if ((static_cast<int>(w.mode) & 1) == 0) continue;
    for (const auto& [tid, t] : mobs) {
      if (wid == tid || (static_cast<int>(t.mode) & 2) == 0 || (w.layers & t.layers) == 0) continue;
      const double dx = double(w.pos.x) - double(t.pos.x), dy = double(w.pos.y) - double(t.pos.y);
      const double lim = double(w.view) + (before.count({wid, tid}) ? double(kHysteresis) : 0.0);
      if (dx * dx + dy * dy <= lim * lim) now.insert({wid, tid});
    }
  }
  return now;
}

/// Brute force of query(): the entities in `layers` whose body box overlaps the shape, in id order.
template <class Shape>
std::vector<std::uint64_t> brute_query(const std::map<std::uint64_t, Mob>& mobs, const Shape& shape,
                                       std::uint32_t layers) {
  std::vector<std::uint64_t> out;
  for (const auto& [id, m] : mobs)
    if ((m.layers & layers) != 0 &&
        quadrant::overlaps(shape, quadrant::Box2{{m.pos.x - m.body, m.pos.y - m.body}, {m.pos.x + m.body, m.pos.y + m.body}}))
      out.push_back(id);
  return out;
}

/// True when the whole view circle of `m` (radius plus hysteresis, and a unit of margin) lies on the map.
inline bool circle_on_map(const Mob& m) {
  const float r = m.view + kHysteresis + 1;
  return m.pos.x - r >= 0 && m.pos.x + r <= kMapW && m.pos.y - r >= 0 && m.pos.y + r <= kMapH;
}

/// The picture of one tick: every entity, and the sight lines of two watchers only (the hero and one guard) so
/// that they read at a glance; every line drawn is a pair the AoiWorld reports.
inline void write_picture(const quadrant::AoiWorld<float>& world, const std::map<std::uint64_t, Mob>& mobs,
                          std::uint64_t hero, const quadrant::Sector<float>& swing, const std::vector<std::uint64_t>& hits,
                          int tick, const std::string& dir, Report& report) {
  const quadrant::SvgStyle map_style{"#fbfbf7", "#888888", 1, 1, "", "map"};
  const quadrant::SvgStyle player{"#1f77b4", "#333333", 0.6, 1, "", "player"};
  const quadrant::SvgStyle guard{"#ff7f0e", "#333333", 0.6, 1, "", "guard"};
  const quadrant::SvgStyle monster{"#d62728", "#333333", 0.6, 1, "", "monster"};
  const quadrant::SvgStyle stealthed{"#9467bd", "#333333", 0.6, 1, "", "stealthed"};
  const quadrant::SvgStyle guard_sees{"none", "#e6750d", 1.4, 1, "", "guard-sees"};
  const quadrant::SvgStyle guard_view{"#fdd0a2", "#e6750d", 1.2, 0.3, "4 3", "guard-view"};
  const quadrant::SvgStyle hero_view{"#c6dbef", "#08519c", 2, 0.35, "", "hero"};
  const quadrant::SvgStyle hero_keep{"none", "#08519c", 1, 1, "2 2", "hero"};
  const quadrant::SvgStyle hero_sees{"none", "#08519c", 1.6, 1, "", "hero"};
  const quadrant::SvgStyle hero_dot{"#08519c", "#ffffff", 1.5, 1, "", "hero"};
  const quadrant::SvgStyle swing_style{"#fdae6b", "#e6550d", 1.5, 0.6, "", "swing"};
  const quadrant::SvgStyle hit_ring{"none", "#e6550d", 3, 1, "", "hit"};
  auto style_of = [&](const Mob& m) -> const quadrant::SvgStyle& {
    if (m.guard) return guard;
    if (m.player) return player;
    return (m.layers & kStealthLayer) != 0 ? stealthed : monster;
  };
  const Mob& h = mobs.at(hero);

  // The guard whose lines are drawn: the one that sees most, its circle whole on the map and clear of the hero's
  // (so the two sets of lines do not mix); none when no guard qualifies.
  std::uint64_t watchman = 0;
  std::size_t watchman_sees = 0;
  for (const auto& [id, m] : mobs) {
    const float dx = m.pos.x - h.pos.x, dy = m.pos.y - h.pos.y, apart = h.view + m.view + 2 * kHysteresis;
    if (!m.guard || !circle_on_map(m) || dx * dx + dy * dy <= apart * apart) continue;
    std::size_t sees = 0;
    world.for_each_visible(id, [&](std::uint64_t) { ++sees; });
    if (sees > watchman_sees) watchman = id, watchman_sees = sees;
  }

  // What this tick shows, so that the legend lists only what is drawn.
  std::size_t guards = 0, plain = 0, hidden = 0, players = 0, hero_lines = 0;
  for (const auto& [id, m] : mobs)
    (m.guard ? guards : m.player ? players : (m.layers & kStealthLayer) != 0 ? hidden : plain)++;
  world.for_each_visible(hero, [&](std::uint64_t) { ++hero_lines; });
  char hero_label[96], guard_label[96];
  std::snprintf(hero_label, sizeof hero_label, "the hero (dot): view radius %g / + hysteresis %g",
                double(h.view), double(kHysteresis));
  std::snprintf(guard_label, sizeof guard_label, "one guard sees a target (dashed: its view radius %g)",
                watchman != 0 ? double(mobs.at(watchman).view) : 0.0);
  std::vector<LegendRow> rows;
  if (players > 0) rows.push_back(legend_row(Mark::Box, player, "player: watches (view radius 30) and is seen"));
  if (guards > 0) rows.push_back(legend_row(Mark::Box, guard, "guard: a monster that watches (view radius 15)"));
  if (plain > 0 && hidden > 0)
    rows.push_back({Mark::Boxes, {monster, stealthed}, "monster (purple: stealthed, seen by detecting players only)"});
  else if (plain + hidden > 0)
    rows.push_back(plain > 0 ? legend_row(Mark::Box, monster, "monster: is seen, watches nothing")
                             : legend_row(Mark::Box, stealthed, "stealthed monster: seen by detecting players only"));
  rows.push_back({Mark::Rings, {hero_view, hero_keep}, hero_label});
  if (hero_lines > 0) rows.push_back(legend_row(Mark::Line, hero_sees, "the hero sees a target"));
  if (watchman != 0) rows.push_back(legend_row(Mark::Line, guard_sees, guard_label));
  rows.push_back(legend_row(Mark::Box, swing_style, "the hero's sword swing: a Sector, reach 9, 120 degrees"));
  if (!hits.empty()) rows.push_back(legend_row(Mark::Ring, hit_ring, "a monster the swing hits"));
  char title[160];
  std::snprintf(title, sizeof title, "Tick %d: %zu entities, %zu pairs (watcher, target)", tick, world.size(),
                world.pair_count());
  // The map with a small border, grown when needed so that the hero's circles are drawn whole.
  const float reach = h.view + kHysteresis + 3;
  const quadrant::Box2 frame{{std::min(-3.0f, h.pos.x - reach), std::min(-3.0f, h.pos.y - reach)},
                             {std::max(kMapW + 3, h.pos.x + reach), std::max(kMapH + 3, h.pos.y + reach)}};
  Figure figure(frame, 1000, rows, LegendPlace::Below, title);
  quadrant::SvgCanvas& canvas = figure.canvas();
  canvas.rect(quadrant::Box2{{0, 0}, {kMapW, kMapH}}, map_style);
  if (watchman != 0) {
    const Mob& g = mobs.at(watchman);
    canvas.circle(g.pos, g.view, guard_view);
    world.for_each_visible(watchman, [&](std::uint64_t t) { canvas.line(g.pos, mobs.at(t).pos, guard_sees); });
  }
  canvas.circle(h.pos, h.view + kHysteresis, hero_keep);
  canvas.circle(h.pos, h.view, hero_view);
  world.for_each_visible(hero, [&](std::uint64_t t) { canvas.line(h.pos, mobs.at(t).pos, hero_sees); });
  canvas.shape(swing, swing_style);
  for (const auto& [id, m] : mobs) {
    const float r = std::max(m.body, 0.9f);
    canvas.rect(quadrant::Box2{{m.pos.x - r, m.pos.y - r}, {m.pos.x + r, m.pos.y + r}}, style_of(m));
  }
  for (std::uint64_t id : hits) {
    const Mob& m = mobs.at(id);
    canvas.circle(m.pos, m.body + 1.5f, hit_ring);
  }
  // The hero's dot, last and smaller than the smallest hit ring's hole (its radius is at least 2): a monster hit
  // under the hero keeps its ring visible around the dot, and a ring crossing the dot loses only a short arc.
  canvas.circle(h.pos, 1.1f, hero_dot);
  const std::string path = dir + "/mmo-aoi.svg";
  figure.save(path);
  report.picture(path);
}

/// `quadrant demo --scenario mmo-aoi`.
inline bool run_demo(const DemoOptions& opt, Report& report) {
  using clock = std::chrono::steady_clock;
  const int ticks = frames_of(opt, kSizes);
  Rng rng(opt.seed * 1000003 + 6);
  quadrant::AoiSettings<float> settings{quadrant::Box2{{0, 0}, {kMapW, kMapH}}, kHysteresis};
  quadrant::AoiWorld<float> world(settings);
  std::map<std::uint64_t, Mob> mobs;  // the live entities, as the model sees them
  std::vector<Mob> roster;            // everyone, alive or not
  auto spot = [&] { return V2{float(rng.uniform(2, kMapW - 2)), float(rng.uniform(2, kMapH - 2))}; };
  for (int i = 0; i < kPlayers + kMonsters; ++i) {
    Mob m;
    m.pos = spot();
    m.heading = float(rng.uniform(0, 2 * std::numbers::pi));
    if (i < kPlayers) {
      m.id = 1000 + std::uint64_t(i);
      m.kind = "player";
      m.player = true;
      m.mode = AoiMode::Both;
      m.view = kPlayerView;
      m.body = 0.5f;
      m.speed = float(rng.uniform(0.5, 1.5));
      m.layers = kPlayerLayer | kMonsterLayer | (i % 2 == 0 ? kStealthLayer : 0u);  // even players detect stealth
    } else {
      m.id = 5000 + std::uint64_t(i);
      const bool guard = i < kPlayers + kGuards;
      m.kind = guard ? "guard" : "monster";
      m.guard = guard;
      m.mode = guard ? AoiMode::Both : AoiMode::Marker;
      m.view = guard ? kGuardView : 0;
      m.body = float(rng.uniform(0.5, 2));
      m.speed = float(rng.uniform(0, 0.4));
      m.layers = guard ? kPlayerLayer | kMonsterLayer : (rng.next() % 10 == 0 ? kStealthLayer : kMonsterLayer);
    }
    world.add(m.id, m.pos, m.view, m.mode, m.layers, m.body);
    mobs[m.id] = m;
    roster.push_back(m);
  }

  std::set<std::pair<std::uint64_t, std::uint64_t>> relation;
  std::vector<double> times;
  std::size_t enters = 0, leaves = 0, swings = 0, swing_hits = 0, skills = 0, skill_hits = 0;
  std::printf("== mmo-aoi: an MMO server's area of interest (who sees whom) with AoiWorld ==\n");
  print_article(kMmoArticle, report, "Builds the server side of the game of");
  std::printf("%d players, %d monsters (%d guards) on a %g x %g map; view radius %g (guards %g), hysteresis %g.\n"
              "(Hysteresis: a target already seen stays seen until it is that much farther than the view radius.)\n"
              "Entities also die, log out, respawn and teleport, so more ids than these come and go. Every tick is\n"
              "checked against a brute-force model: events, both directions of the relation, and the sword swing\n"
              "and skill circle hits.\n",
              kPlayers, kMonsters, kGuards, double(kMapW), double(kMapH), double(kPlayerView), double(kGuardView),
              double(kHysteresis));
  report.json()["parameters"] = {{"players", kPlayers}, {"monsters", kMonsters},       {"guards", kGuards},
                                 {"map", {kMapW, kMapH}}, {"view_radius", kPlayerView}, {"guard_view_radius", kGuardView},
                                 {"hysteresis", kHysteresis}, {"ticks", ticks},          {"seed", opt.seed}};
  Line line;
  line.add("%6s %9s %7s %7s %8s %10s %8s", "tick", "entities", "enter", "leave", "pairs", "tick us", "swing");
  line.print();
  const int picture_tick = ticks / 2;
  bool pictured = false;
  for (int t = 0; t < ticks; ++t) {
    const std::string at = "tick " + std::to_string(t) + ": ";
    // The game moves; the AoiWorld hears about it.
    for (Mob& m : roster) {
      if (!m.alive) {
        if (m.respawn_at == t) {  // respawn: the same id again, somewhere else
          m.alive = true;
          m.pos = spot();
          world.add(m.id, m.pos, m.view, m.mode, m.layers, m.body);
          mobs[m.id] = m;
        }
        continue;
      }
      m.heading += float(rng.uniform(-0.4, 0.4));
      V2 p{m.pos.x + m.speed * std::cos(m.heading), m.pos.y + m.speed * std::sin(m.heading)};
      if (p.x < 0 || p.x > kMapW) m.heading = float(std::numbers::pi) - m.heading;
      if (p.y < 0 || p.y > kMapH) m.heading = -m.heading;
      p = {std::clamp(p.x, 0.0f, kMapW), std::clamp(p.y, 0.0f, kMapH)};
      const bool player = m.player;
      if (player && rng.next() % 100 == 0) p = spot();  // recall: a teleport
      m.pos = p;
      world.move(m.id, p);
      if (player && rng.next() % 200 == 0) {  // a buff, or its end
        m.view = m.view == kPlayerView ? kPlayerView * 1.5f : kPlayerView;
        world.set_view_radius(m.id, m.view);
      }
      const bool dies = player ? rng.next() % 400 == 0 : rng.next() % 150 == 0;  // logout / death
      if (dies) {
        m.alive = false;
        m.respawn_at = t + 3 + int(rng.next() % 10);
        world.remove(m.id);
        mobs.erase(m.id);
        continue;
      }
      mobs[m.id] = m;
    }
    std::size_t in = 0, out = 0;
    std::vector<AoiEvent> events;
    const auto t0 = clock::now();
    world.tick([&](const AoiEvent& e) { events.push_back(e); });
    times.push_back(std::chrono::duration<double, std::micro>(clock::now() - t0).count());

    // The model's tick: the same events, in the same order.
    const auto next = brute_relation(mobs, relation);
    std::vector<AoiEvent> want;
    auto a = relation.begin();
    auto b = next.begin();
    while (a != relation.end() || b != next.end()) {
      if (b == next.end() || (a != relation.end() && *a < *b)) {
        want.push_back({AoiEvent::Kind::Leave, a->first, a->second});
        ++a;
      } else if (a == relation.end() || *b < *a) {
        want.push_back({AoiEvent::Kind::Enter, b->first, b->second});
        ++b;
      } else {
        ++a, ++b;
      }
    }
    relation = next;
    if (!report.check("events: Enter / Leave = brute force's, in order", double(want.size()), double(events.size()),
                      events == want))
      report.add(at + std::to_string(events.size()) + " events, brute force " + std::to_string(want.size()));
    for (const AoiEvent& e : events) (e.kind == AoiEvent::Kind::Enter ? in : out)++;
    enters += in;
    leaves += out;
    for (const auto& [id, m] : mobs) {
      std::vector<std::uint64_t> got, expect;
      world.for_each_visible(id, [&](std::uint64_t x) { got.push_back(x); });
      for (auto it = relation.lower_bound({id, 0}); it != relation.end() && it->first == id; ++it)
        expect.push_back(it->second);
      if (!report.check("for_each_visible = brute force's relation", double(expect.size()), double(got.size()),
                        got == expect))
        report.add(at + "visible set of " + std::to_string(id) + " differs");
      got.clear();
      expect.clear();
      world.for_each_watcher(id, [&](std::uint64_t x) { got.push_back(x); });
      for (const auto& [w, x] : relation)
        if (x == id) expect.push_back(w);
      if (!report.check("for_each_watcher = brute force's relation", double(expect.size()), double(got.size()),
                        got == expect))
        report.add(at + "watchers of " + std::to_string(id) + " differ");
    }
    if (!report.check("pair_count() = brute force's pairs", double(relation.size()), double(world.pair_count())))
      report.add(at + "pair_count differs");

    // A player swings a sword (a 120-degree fan of radius 9 ahead of it) at monsters; a mage casts a circle.
    std::vector<std::uint64_t> player_ids;
    for (const auto& [id, m] : mobs)
      if (m.player) player_ids.push_back(id);
    std::uint64_t hero = player_ids.empty() ? 0 : player_ids[std::size_t(rng.next() % player_ids.size())];
    auto swing_of = [&](std::uint64_t id) {
      const Mob& h = mobs.at(id);
      return quadrant::Sector<float>{h.pos, {std::cos(h.heading), std::sin(h.heading)}, 9, float(std::numbers::pi / 3)};
    };
    // The picture's hero: the player whose swing hits most among those whose view circle lies whole on the map
    // (among all players when none does).
    if (t == picture_tick) {
      const bool any_on_map =
          std::ranges::any_of(player_ids, [&](std::uint64_t id) { return circle_on_map(mobs.at(id)); });
      auto eligible = [&](std::uint64_t id) { return !any_on_map || circle_on_map(mobs.at(id)); };
      auto swing_hits_of = [&](std::uint64_t id) {
        return brute_query(mobs, swing_of(id), kMonsterLayer | kStealthLayer).size();
      };
      for (std::uint64_t id : player_ids)
        if (eligible(id) && (!eligible(hero) || swing_hits_of(id) > swing_hits_of(hero))) hero = id;
    }
    quadrant::Sector<float> swing{{0, 0}, {1, 0}, 9, float(std::numbers::pi / 3)};
    std::vector<std::uint64_t> hits;
    if (hero != 0) {
      swing = swing_of(hero);
      world.query(swing, [&](std::uint64_t id) { hits.push_back(id); }, kMonsterLayer | kStealthLayer);
      const std::vector<std::uint64_t> want_hits = brute_query(mobs, swing, kMonsterLayer | kStealthLayer);
      if (!report.check("sword swing (Sector query): hits = brute force", double(want_hits.size()),
                        double(hits.size()), hits == want_hits))
        report.add(at + "sword swing hits differ");
      ++swings;
      swing_hits += hits.size();
    }
    const quadrant::Circle<float> skill{spot(), 8};
    std::vector<std::uint64_t> burnt;
    world.query(skill, [&](std::uint64_t id) { burnt.push_back(id); });
    const std::vector<std::uint64_t> want_burnt = brute_query(mobs, skill, ~0u);
    if (!report.check("skill circle (Circle query): hits = brute force", double(want_burnt.size()),
                      double(burnt.size()), burnt == want_burnt))
      report.add(at + "skill circle hits differ");
    ++skills;
    skill_hits += burnt.size();
    if (t == picture_tick && hero != 0 && !opt.svg_dir.empty()) {
      write_picture(world, mobs, hero, swing, hits, t, opt.svg_dir, report);
      pictured = true;
    }
    if (t % std::max(1, ticks / 10) == 0 || t == ticks - 1) {
      line.add("%6d %9zu %7zu %7zu %8zu %10.1f %8zu", t, world.size(), in, out, world.pair_count(), times.back(),
               hits.size());
      line.print();
      report.table("ticks").push_back({{"tick", t},
                                       {"entities", world.size()},
                                       {"enter", in},
                                       {"leave", out},
                                       {"pairs", world.pair_count()},
                                       {"tick_us", times.back()},
                                       {"swing_hits", hits.size()}});
    }
    report.tick("tick %d of %d", t + 1, ticks);
  }
  try {
    world.validate();
    report.check("validate() after the last tick", 1, 1);
  } catch (const std::exception& e) {
    report.check("validate() after the last tick", 1, 0);
    report.add(std::string("validate: ") + e.what());
  }
  std::printf("Over %d ticks: %zu Enter and %zu Leave events; %zu sword swings hit %zu monsters, %zu skill circles hit\n"
              "%zu entities; tick() median %.1f us (skin %g: the distance an entity may drift before its list of\n"
              "nearby candidates is rebuilt; see docs/aoi.md).\n\n",
              ticks, enters, leaves, swings, swing_hits, skills, skill_hits, median(times), double(world.skin()));
  report.figure("enter_events", enters);
  report.figure("leave_events", leaves);
  report.figure("sword_swings", swings);
  report.figure("sword_swing_hits", swing_hits);
  report.figure("skill_circles", skills);
  report.figure("skill_circle_hits", skill_hits);
  report.figure("tick_us_median", median(times));
  report.figure("skin", world.skin());
  if (pictured)
    std::printf("picture: %s/mmo-aoi.svg (tick %d: what the hero and one guard see, the hero's sword swing and its\n"
                "hits)\n\n",
                opt.svg_dir.c_str(), picture_tick);
  char detail[96];
  std::snprintf(detail, sizeof detail, "%d ticks, events and skill queries match brute force", ticks);
  return report.finish(detail);
}

}  // namespace quadrant_tools::aoi

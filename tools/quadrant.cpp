// SPDX-License-Identifier: MIT
// quadrant — the command line program: runnable demos of what the library is for.
//
//   quadrant demo [--scenario NAME|all] [--frames N] [--objects N] [--seed N] [--quick] [--svg DIR] [--json FILE]
//   quadrant --version | --help
//
// Each demo scenario reproduces one of the articles' experiments with quadrant, checks every answer against brute
// force and prints a table; a summary table closes the run. Progress lines go to stderr, the report to stdout,
// and --json FILE writes every figure as JSON. Exit status: 0 when every check passed, 1 when one failed, another
// non-zero value for bad arguments.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <quadrant/version.hpp>

#include "demo.hpp"
#include "grid_nodes.hpp"
#include "lua_rects.hpp"
#include "mmo_aoi.hpp"
#include "mmo_collision.hpp"
#include "rotated_rects.hpp"
#include "scene_streaming.hpp"

namespace {

using quadrant_tools::DemoOptions;
using quadrant_tools::Report;
using quadrant_tools::Scenario;
using Json = Report::Json;

// Every demo scenario, by name, in the order `--scenario all` runs them.
const Scenario kScenarios[] = {
    {"mmo-collision", "the MMO article's 300 moving boxes: pairs and traversal counts per placement and depth",
     &quadrant_tools::mmo::kSizes, &quadrant_tools::mmo::run_demo},
    {"mmo-aoi", "an MMO server's area of interest: players and monsters, enter / leave events per tick, skill areas",
     &quadrant_tools::aoi::kSizes, &quadrant_tools::aoi::run_demo},
    {"rotated-rects", "the Unity article's rotated rectangles: tree candidates then polygon SAT; grow N to 100 ms a frame",
     &quadrant_tools::rotated::kSizes, &quadrant_tools::rotated::run_demo},
    {"lua-rects", "the Lua article's 500 rectangles on 1200 x 1200: box tests and pairs vs brute force, then moving",
     &quadrant_tools::lua::kSizes, &quadrant_tools::lua::run_demo},
    {"scene-streaming", "the scene-management article: a camera flies over a map; what comes into and leaves view",
     &quadrant_tools::streaming::kSizes, &quadrant_tools::streaming::run_demo},
    {"grid-nodes", "the TypeScript article's fixed-depth grid: locate, node queries by shape, moving targets",
     &quadrant_tools::grid::kSizes, &quadrant_tools::grid::run_demo},
};

// The widest limits of any scenario: the parser's ranges. Each scenario's own limits are checked before any runs.
int most_objects() {
  int n = 2;
  for (const Scenario& s : kScenarios) n = std::max(n, s.sizes->objects_max);
  return n;
}
int most_frames() {
  int n = 1;
  for (const Scenario& s : kScenarios)
    if (!s.sizes->frames_capped) n = std::max(n, s.sizes->frames_max);
  return n;
}

// `text` after `head`, wrapped at 100 columns, continuation lines indented to the text's start.
std::string wrapped(const std::string& head, const std::string& text) {
  std::string out = head, word;
  std::size_t column = head.size();
  auto flush = [&] {
    if (word.empty()) return;
    if (column > head.size() && column + 1 + word.size() > 100) {
      out += "\n" + std::string(head.size(), ' ');
      column = head.size();
    } else if (column > head.size()) {
      out += ' ';
      ++column;
    }
    out += word;
    column += word.size();
    word.clear();
  };
  for (char c : text) {
    if (c == ' ') flush();
    else word += c;
  }
  flush();
  return out + "\n";
}

// The --help footer: each scenario's defaults and limits, printed from the constants the scenarios use.
std::string sizes_help() {
  std::string out = "Each scenario's sizes (without --objects / --frames: the defaults; they differ per scenario):\n";
  for (const Scenario& s : kScenarios) {
    out += std::string("  ") + s.name + "\n";
    out += wrapped("    --objects: ", quadrant_tools::describe_objects(*s.sizes));
    out += wrapped("    --frames:  ", quadrant_tools::describe_frames(*s.sizes));
  }
  out += "Sizes that a selected scenario refuses are rejected before anything runs.";
  return out;
}

struct Ran {
  const Scenario* scenario;
  bool ok;
  std::size_t checks, passed;
  unsigned long long comparisons;
  double seconds;
};

void print_summary(const std::vector<Ran>& ran, double seconds) {
  std::printf("Summary (checks: kinds of comparison with brute force or a reference; comparisons: how many were made)\n");
  quadrant_tools::Line line;
  line.add("%-16s %8s %13s  %-7s %9s", "scenario", "checks", "comparisons", "result", "time");
  line.print();
  bool ok = true;
  for (const Ran& r : ran) {
    const std::string checks = std::to_string(r.passed) + "/" + std::to_string(r.checks);
    line.add("%-16s %8s %13llu  %-7s %7.1f s", r.scenario->name, checks.c_str(), r.comparisons,
             r.ok ? "OK" : "FAILED", r.seconds);
    line.print();
    ok = ok && r.ok;
  }
  line.add("%-16s %8s %13s  %-7s %7.1f s", "all", "", "", ok ? "OK" : "FAILED", seconds);
  line.print();
}

int run_demo(const DemoOptions& opt) {
  using clock = std::chrono::steady_clock;
  const auto start = clock::now();
  std::printf("quadrant %s demo%s\n\n", quadrant::version_string, opt.quick ? " (quick)" : "");
  Json json;
  json["program"] = "quadrant";
  json["version"] = quadrant::version_string;
  json["options"] = {{"scenario", opt.scenario},
                     {"quick", opt.quick},
                     {"seed", opt.seed},
                     {"frames", opt.frames_set ? Json(opt.frames) : Json(nullptr)},
                     {"objects", opt.objects_set ? Json(opt.objects) : Json(nullptr)},
                     {"svg", opt.svg_dir.empty() ? Json(nullptr) : Json(opt.svg_dir)}};
  json["scenarios"] = Json::object();
  std::vector<Ran> ran;
  auto write_json = [&](const char* error) {
    if (opt.json_path.empty()) return;
    bool ok = true;
    for (const Ran& r : ran) ok = ok && r.ok;
    json["result"] = error != nullptr ? "ERROR" : ok ? "OK" : "FAILED";
    if (error != nullptr) json["error"] = error;
    json["seconds"] = std::chrono::duration<double>(clock::now() - start).count();
    std::ofstream out(opt.json_path, std::ios::trunc);
    out << json.dump(2) << "\n";
    out.close();
    if (!out) std::fprintf(stderr, "quadrant: error: --json %s: cannot write the file\n", opt.json_path.c_str());
  };
  for (const Scenario& s : kScenarios) {
    if (opt.scenario != "all" && opt.scenario != s.name) continue;
    Report report(s.name);
    std::fprintf(stderr, "quadrant demo: running %s\n", s.name);
    bool ok = false;
    try {
      ok = s.run(opt, report);
    } catch (const std::exception& e) {
      json["scenarios"][s.name] = report.to_json(report.seconds());
      write_json(e.what());
      throw;
    }
    const double seconds = report.seconds();
    std::fprintf(stderr, "quadrant demo: %s %s in %.1f s\n", s.name, ok ? "OK" : "FAILED", seconds);
    Json entry = {{"summary", s.summary}};
    const Json result = report.to_json(seconds);
    for (const auto& [key, value] : result.items()) entry[key] = value;
    json["scenarios"][s.name] = entry;
    ran.push_back({&s, ok, report.checks(), report.checks_passed(), report.comparisons(), seconds});
    std::printf("\n");
  }
  const double seconds = std::chrono::duration<double>(clock::now() - start).count();
  print_summary(ran, seconds);
  write_json(nullptr);
  bool ok = true;
  for (const Ran& r : ran) ok = ok && r.ok;
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"quadrant: a header-only C++20 quadtree / octree. Runs the library's demo scenarios.", "quadrant"};
  app.set_version_flag("--version", std::string("quadrant ") + quadrant::version_string);
  app.require_subcommand(1);

  std::vector<std::string> names{"all"};
  std::string scenario_help = "scenario to run (default: all, in this order):";
  for (const Scenario& s : kScenarios) {
    names.emplace_back(s.name);
    scenario_help += std::string("\n  ") + s.name + ": " + s.summary;
  }

  DemoOptions opt;
  CLI::App* demo = app.add_subcommand("demo", "reproduce the experiments of five articles on quadtrees in games (Chinese; Unity C#, Lua and TypeScript code), checked against brute force");
  demo->add_option("--scenario", opt.scenario, scenario_help)->check(CLI::IsMember(names));
  CLI::Option* frames =
      demo->add_option("--frames", opt.frames, "frames (or ticks) to simulate; default and limit per scenario, below")
          ->check(CLI::Range(1, most_frames()));
  CLI::Option* objects =
      demo->add_option("--objects", opt.objects, "objects in the scene; default and limit per scenario, below")
          ->check(CLI::Range(2, most_objects()));
  demo->add_option("--seed", opt.seed, "random seed of the scenes")->capture_default_str();
  demo->add_flag("--quick", opt.quick, "fewer frames and configurations: a smoke test (what the tests run)");
  demo->add_option("--svg", opt.svg_dir, "write each scenario's picture (SVG) into this directory (made if missing)");
  demo->add_option("--json", opt.json_path,
                   "write every figure the demo prints, each scenario's checks and times, as JSON to this file");
  demo->footer(sizes_help());

  CLI11_PARSE(app, argc, argv);
  opt.frames_set = frames->count() > 0;
  opt.objects_set = objects->count() > 0;

  // Every selected scenario's limits, before anything runs.
  for (const Scenario& s : kScenarios) {
    if (opt.scenario != "all" && opt.scenario != s.name) continue;
    const std::string why = quadrant_tools::refusal(s.name, opt, *s.sizes);
    if (!why.empty()) {
      std::fprintf(stderr, "quadrant: error: %s\n", why.c_str());
      return 2;
    }
  }
  if (!opt.svg_dir.empty()) {
    // Made before any scenario runs, so that a path that cannot be a directory fails at once, not after minutes.
    std::error_code ec;
    std::filesystem::create_directories(opt.svg_dir, ec);
    if (ec || !std::filesystem::is_directory(opt.svg_dir)) {
      std::fprintf(stderr, "quadrant: error: --svg %s: cannot make the directory (%s)\n", opt.svg_dir.c_str(),
                   ec ? ec.message().c_str() : "a file of that name exists");
      return 2;
    }
  }
  if (!opt.json_path.empty()) {
    // Likewise: a file that cannot be written fails now.
    std::ofstream probe(opt.json_path, std::ios::trunc);
    if (!probe) {
      std::fprintf(stderr, "quadrant: error: --json %s: cannot write the file\n", opt.json_path.c_str());
      return 2;
    }
  }

  try {
    if (demo->parsed()) return run_demo(opt);
  } catch (const std::exception& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "quadrant: error: %s\n", e.what());
    return 2;
  }
  return 0;
}

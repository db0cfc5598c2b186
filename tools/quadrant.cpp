// SPDX-License-Identifier: MIT
// quadrant — the command line program: runnable demos of what the library is for.
//
//   quadrant demo [--scenario NAME|all] [--frames N] [--objects N] [--seed N] [--quick] [--svg DIR]
//   quadrant --version | --help
//
// Each demo scenario reproduces one of the seed articles' experiments with quadrant, checks every answer against
// brute force and prints a table. Exit status: 0 when every check passed, 1 when one failed, another non-zero
// value for bad arguments.
#include <cstdio>
#include <exception>
#include <filesystem>
#include <system_error>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
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
using quadrant_tools::Scenario;

// Every demo scenario, by name, in the order `--scenario all` runs them.
const Scenario kScenarios[] = {
    {"mmo-collision", "the MMO article's 300 moving boxes: pairs and traversal counts per placement and depth",
     &quadrant_tools::mmo::run_demo},
    {"mmo-aoi", "an MMO server's area of interest: players and monsters, enter / leave events per tick, skill areas",
     &quadrant_tools::aoi::run_demo},
    {"rotated-rects", "the Unity article's rotated rectangles: tree candidates then polygon SAT; grow N to 100 ms a frame",
     &quadrant_tools::rotated::run_demo},
    {"lua-rects", "the Lua article's 500 rectangles on 1200 x 1200: box tests and pairs vs brute force, then moving",
     &quadrant_tools::lua::run_demo},
    {"scene-streaming", "the scene-management article: a camera flies over a map; what comes into and leaves view",
     &quadrant_tools::streaming::run_demo},
    {"grid-nodes", "the TypeScript article's fixed-depth grid: locate, node queries by shape, moving targets",
     &quadrant_tools::grid::run_demo},
};

// Scenarios whose brute force is quadratic set lower limits of their own.
constexpr int kMaxObjects = 1'000'000;
constexpr int kMaxFrames = 100000;

int run_demo(const DemoOptions& opt) {
  std::printf("quadrant %s demo%s\n\n", quadrant::version_string, opt.quick ? " (quick)" : "");
  bool ok = true;
  for (const Scenario& s : kScenarios) {
    if (opt.scenario != "all" && opt.scenario != s.name) continue;
    if (!s.run(opt)) ok = false;
    std::printf("\n");
  }
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"quadrant: a header-only C++20 quadtree / octree. Runs the library's demo scenarios.", "quadrant"};
  app.set_version_flag("--version", std::string("quadrant ") + quadrant::version_string);
  app.require_subcommand(1);

  std::vector<std::string> names{"all"};
  std::string scenario_help = "scenario to run (default: all):";
  for (const Scenario& s : kScenarios) {
    names.emplace_back(s.name);
    scenario_help += std::string("\n  ") + s.name + ": " + s.summary;
  }

  DemoOptions opt;
  CLI::App* demo = app.add_subcommand("demo", "reproduce the seed articles' experiments, checked against brute force");
  demo->add_option("--scenario", opt.scenario, scenario_help)->check(CLI::IsMember(names));
  CLI::Option* frames = demo->add_option("--frames", opt.frames, "frames to simulate (default 120, --quick: 10)")
                            ->check(CLI::Range(1, kMaxFrames));
  CLI::Option* objects =
      demo->add_option("--objects", opt.objects, "objects in each scenario's scene (default: the article's count)")
          ->check(CLI::Range(2, kMaxObjects));
  demo->add_option("--seed", opt.seed, "random seed of the scene")->capture_default_str();
  demo->add_flag("--quick", opt.quick, "few frames and configurations: a smoke test");
  demo->add_option("--svg", opt.svg_dir, "write each scenario's pictures (SVG) into this directory (made if missing)");

  CLI11_PARSE(app, argc, argv);
  opt.frames_set = frames->count() > 0;
  opt.objects_set = objects->count() > 0;

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

  try {
    if (demo->parsed()) return run_demo(opt);
  } catch (const std::exception& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "quadrant: error: %s\n", e.what());
    return 2;
  }
  return 0;
}

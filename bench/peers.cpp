// SPDX-License-Identifier: MIT
// bench_peers — quadrant against the structures users would otherwise pick, on the same data in one run.
//
//   bench_peers [--quick] [--only WORKLOAD]... [--seed N] [--max-n N] [--csv FILE]
//
// Every workload prints a table per case; a contender whose answer (count and checksum) differs from the case's
// reference is reported as PARITY FAILED and the program exits 1. The CSV feeds bench/plot.py.
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "harness.hpp"

namespace {

using namespace quadrant_bench;

const Workload kWorkloads[] = {
    {"moving-boxes", "N boxes moving and bouncing; every frame: update, then every overlapping pair",
     &run_moving_boxes},
    {"static-ranges", "1M boxes built once; 1000 window queries of 0.01% and 1% of the world; build time",
     &run_static_ranges},
    {"nearest", "1M points; 100k 1-NN and 10k 10-NN queries", &run_nearest},
    {"churn", "insert / erase / move mix on 100k live objects", &run_churn},
    {"aoi", "MMO area of interest: entities random-walking, enter / leave events per tick", &run_aoi},
    {"streaming", "camera streaming over 1M static objects: wanted set per frame vs testing every object",
     &run_streaming},
    {"contacts", "N moving boxes; per frame the pairs that began and ended overlapping (contact events)",
     &run_contacts},
    {"two-trees", "a static level and moving actors; per frame every actor-level overlap", &run_two_trees},
};

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"bench_peers: quadrant against Box2D, Boost.Geometry and reference structures, parity checked"};
  Options opt;
  std::string csv = "bench_results.csv";
  std::vector<std::string> names;
  std::string only_help = "workload to run (repeatable; default all):";
  for (const Workload& w : kWorkloads) {
    names.emplace_back(w.name);
    only_help += std::string("\n  ") + w.name + ": " + w.summary;
  }
  app.add_flag("--quick", opt.quick, "small sizes and few frames (a smoke run, under two minutes)");
  app.add_option("--only", opt.only, only_help)->check(CLI::IsMember(names));
  app.add_option("--seed", opt.seed, "seed of every data set (default 1)");
  app.add_option("--max-n", opt.max_n, "skip sizes above N (default 1000000)")->check(CLI::Range(1000, 1000000));
  app.add_option("--csv", csv, "where to write the results (default bench_results.csv)");
  CLI11_PARSE(app, argc, argv);

  std::printf("bench_peers%s, seed %llu\n", opt.quick ? " --quick" : "", static_cast<unsigned long long>(opt.seed));
  Report report;
  try {
    for (const Workload& w : kWorkloads) {
      if (!opt.only.empty() && std::find(opt.only.begin(), opt.only.end(), w.name) == opt.only.end()) continue;
      std::printf("\n== %s: %s\n", w.name, w.summary);
      w.run(opt, report);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_peers: %s\n", e.what());
    return 2;
  }
  if (!report.write_csv(csv)) {
    std::fprintf(stderr, "bench_peers: cannot write %s\n", csv.c_str());
    return 2;
  }
  std::printf("\nwrote %s (%zu rows)\n", csv.c_str(), report.rows().size());
  if (report.parity_failures() > 0) {
    std::printf("PARITY FAILED for %zu contender results\n", report.parity_failures());
    return 1;
  }
  std::printf("parity: every contender agreed with its case's reference\n");
  return 0;
}

// SPDX-License-Identifier: MIT
// quadrant benchmarks — what every workload shares: options, timing, the parity check and the report.
//
// A workload builds one data set from a fixed seed, runs every contender on it and hands each contender's timings
// and answer (a count and an order-independent checksum) to the Report. The first contender of a case is its
// reference; a contender whose answer differs is reported as PARITY FAILED and its time is never printed.
#pragma once

#include <malloc.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <quadrant_support/pairs.hpp>   // pair_key (shared with the demo scenarios)
#include <quadrant_support/report.hpp>  // median, Line
#include <quadrant_support/rng.hpp>     // Rng

namespace quadrant_bench {

using quadrant_support::Rng;

/// The options of `bench_peers`, as parsed.
struct Options {
  bool quick = false;              // smaller N and fewer frames: a smoke run in under two minutes
  std::uint64_t seed = 1;          // every data set derives from it
  std::size_t max_n = 1'000'000;   // sizes above are skipped
  std::vector<std::string> only;   // workload names to run; empty = all
};

/// What a contender answered: how many results and an order-independent checksum of them.
struct Answer {
  std::uint64_t count = 0;
  std::uint64_t checksum = 0;

  /// Adds one result, identified by a 64-bit key (a pair key, or query index << 32 | id).
  void add(std::uint64_t key) noexcept {
    ++count;
    checksum += mix(key);
  }
  void add_pair(std::uint32_t a, std::uint32_t b) noexcept { add(quadrant_support::pair_key(a, b)); }
  void add(const Answer& other) noexcept {
    count += other.count;
    checksum += other.checksum;
  }
  bool operator==(const Answer&) const = default;

  /// splitmix64's finaliser: a sum of mixed keys depends on the set of keys, not on their order.
  static std::uint64_t mix(std::uint64_t z) noexcept {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
};

/// Wall time of `fn()` in milliseconds (steady clock).
template <class Fn>
double time_ms(Fn&& fn) {
  const auto t0 = std::chrono::steady_clock::now();
  fn();
  const auto t1 = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::milli>(t1 - t0).count();
}

/// Calls fn(i) once for every contender i < count, in round `round`'s order: contender round mod count first, then
/// the ones after it, wrapping around. Workloads whose contenders all stay built time them in rounds, a repetition
/// of each per round, rather than all of one contender's repetitions in a row: a slow spell of the machine (a VM's
/// host busy elsewhere, for seconds to minutes) then falls on every contender alike instead of on whichever ran
/// through it, and no contender always runs after the same one (whose data it would find in the caches, or not).
template <class Fn>
void for_each_in_round(std::size_t count, std::size_t round, Fn&& fn) {
  for (std::size_t k = 0; k < count; ++k) fn((round + k) % count);
}

/// Bytes the heap holds for the process right now (glibc's mallinfo2): memory is measured as the difference
/// around building a structure, the same way for every contender, whatever allocator it calls.
inline std::size_t heap_in_use() {
  const struct mallinfo2 mi = mallinfo2();
  return mi.uordblks + mi.hblkhd;
}

/// One contender's result in one case.
struct Row {
  std::string workload;    // "moving-boxes"
  std::string scenario;    // "uniform", "clustered", "1% of windows" ...
  std::size_t n = 0;       // objects
  std::string contender;   // "quadrant Loose move", "Box2D b2DynamicTree", ...
  std::string unit;        // what time_ms measures: "ms/frame", "ms/1000 queries", "ms build"
  double time_ms = NAN;    // median over `samples`
  std::size_t samples = 0;
  double bytes_per_object = NAN;
  Answer answer;
  bool parity = true;      // false: disagreed with the reference; time_ms is not reported
  bool is_quadrant = false;
  std::string note;
};

/// Collects rows, checks parity within each case, prints the table and writes the CSV.
class Report {
 public:
  /// Starts a case: the rows added until the next begin_case are compared with its first row.
  void begin_case(std::string workload, std::string scenario, std::size_t n, std::string unit) {
    workload_ = std::move(workload);
    scenario_ = std::move(scenario);
    n_ = n;
    unit_ = std::move(unit);
    case_start_ = rows_.size();
    std::printf("\n%s / %s / N=%zu (%s)\n", workload_.c_str(), scenario_.c_str(), n_, unit_.c_str());
    std::printf("  %-34s %12s %10s %14s  %s\n", "contender", unit_.c_str(), "bytes/obj", "results", "parity");
    std::fflush(stdout);
  }

  /// Adds a contender's result: `samples` are per-frame (or per-batch) times in ms, of which the median is
  /// reported. Returns false (and prints PARITY FAILED) when `answer` differs from the case's reference.
  bool add(const std::string& contender, const std::vector<double>& samples, const Answer& answer,
           double bytes_per_object = NAN, bool is_quadrant = false, std::string note = {}) {
    Row r;
    r.workload = workload_;
    r.scenario = scenario_;
    r.n = n_;
    r.contender = contender;
    r.unit = unit_;
    r.time_ms = quadrant_support::median(samples);
    r.samples = samples.size();
    r.bytes_per_object = bytes_per_object;
    r.answer = answer;
    r.is_quadrant = is_quadrant;
    r.note = std::move(note);
    if (rows_.size() > case_start_) r.parity = rows_[case_start_].answer == answer;
    if (!r.parity) ++parity_failures_;
    print(r, rows_.size() == case_start_);
    rows_.push_back(std::move(r));
    return rows_.back().parity;
  }

  const std::vector<Row>& rows() const noexcept { return rows_; }
  std::size_t parity_failures() const noexcept { return parity_failures_; }

  /// Writes every row as CSV (a failed row has an empty time). Returns false when the file cannot be written.
  bool write_csv(const std::string& path) const {
    std::FILE* f = std::fopen(path.c_str(), "w");
    if (!f) return false;
    std::fprintf(f, "workload,scenario,n,contender,unit,time_ms,samples,bytes_per_object,count,checksum,parity,quadrant,note\n");
    for (const Row& r : rows_) {
      std::fprintf(f, "%s,%s,%zu,%s,%s,", field(r.workload).c_str(), field(r.scenario).c_str(), r.n,
                   field(r.contender).c_str(), field(r.unit).c_str());
      if (r.parity) std::fprintf(f, "%.6g", r.time_ms);
      std::fprintf(f, ",%zu,", r.samples);
      if (!std::isnan(r.bytes_per_object)) std::fprintf(f, "%.1f", r.bytes_per_object);
      std::fprintf(f, ",%llu,%016llx,%s,%d,%s\n", static_cast<unsigned long long>(r.answer.count),
                   static_cast<unsigned long long>(r.answer.checksum), r.parity ? "ok" : "FAILED",
                   r.is_quadrant ? 1 : 0, field(r.note).c_str());
    }
    return std::fclose(f) == 0;
  }

 private:
  // A CSV field, quoted (RFC 4180) when it holds a comma or a quote.
  static std::string field(const std::string& text) {
    if (text.find_first_of(",\"") == std::string::npos) return text;
    std::string out = "\"";
    for (char c : text) {
      if (c == '"') out += '"';
      out += c;
    }
    return out + "\"";
  }

  void print(const Row& r, bool reference) const {
    quadrant_support::Line line;
    line.add("  %-34s ", r.contender.c_str());
    if (r.parity) {
      line.add("%12.4g ", r.time_ms);
    } else {
      line.add("%12s ", "-");
    }
    if (std::isnan(r.bytes_per_object)) {
      line.add("%10s ", "");
    } else {
      line.add("%10.0f ", r.bytes_per_object);
    }
    line.add("%14llu  ", static_cast<unsigned long long>(r.answer.count));
    if (reference) {
      line.add("reference");
    } else if (r.parity) {
      line.add("same");
    } else {
      const Row& ref = rows_[case_start_];
      line.add("PARITY FAILED: %llu results (checksum %016llx), reference %llu (%016llx)",
               static_cast<unsigned long long>(r.answer.count), static_cast<unsigned long long>(r.answer.checksum),
               static_cast<unsigned long long>(ref.answer.count),
               static_cast<unsigned long long>(ref.answer.checksum));
    }
    if (!r.note.empty()) line.add("  (%s)", r.note.c_str());
    line.print();
    std::fflush(stdout);
  }

  std::vector<Row> rows_;
  std::size_t case_start_ = 0;
  std::size_t parity_failures_ = 0;
  std::string workload_, scenario_, unit_;
  std::size_t n_ = 0;
};

/// One workload of the benchmark program, by name.
struct Workload {
  const char* name;
  const char* summary;
  void (*run)(const Options&, Report&);
};

// The workloads, each defined in its own source file.
void run_moving_boxes(const Options&, Report&);
void run_static_ranges(const Options&, Report&);
void run_nearest(const Options&, Report&);
void run_churn(const Options&, Report&);
void run_aoi(const Options&, Report&);
void run_streaming(const Options&, Report&);
void run_contacts(const Options&, Report&);
void run_two_trees(const Options&, Report&);

}  // namespace quadrant_bench

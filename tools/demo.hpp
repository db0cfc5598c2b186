// SPDX-License-Identifier: MIT
// quadrant tool — what every demo scenario shares: the options, each scenario's sizes (defaults and limits, which
// --help prints from the same constants), the report a scenario fills (its checks against brute force, its figures
// for --json, its progress lines), the scenario table entry, and (from support/quadrant_support, shared with the
// benchmarks) a portable random source, pair keys and small statistics helpers.
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include <quadrant_support/pairs.hpp>
#include <quadrant_support/report.hpp>
#include <quadrant_support/rng.hpp>

namespace quadrant_tools {

/// The options of `quadrant demo`, as parsed. A scenario reads frames / objects only when they were given
/// (frames_set, objects_set); otherwise it uses its own defaults (its Sizes).
struct DemoOptions {
  std::string scenario = "all";
  int frames = 0;
  bool frames_set = false;
  int objects = 0;
  bool objects_set = false;
  std::uint64_t seed = 1;
  bool quick = false;    // fewer frames and configurations, for smoke tests
  std::string svg_dir;   // when set, scenarios write their pictures (SVG) there
  std::string json_path;  // when set, every figure goes there as JSON at the end
};

/// A scenario's scene sizes: its defaults, what --quick uses, and the largest values it accepts. The scenario
/// reads its sizes from here, and `--help` prints them from here, so the two cannot disagree.
/// The article a scenario reproduces: its title as published (Chinese), in English, its author where the page
/// names one, and the language of its code. Printed under each scenario's header and written to the JSON.
struct Article {
  const char* title;
  const char* english;
  const char* author;  // "" when the page names none
  const char* code;
};
inline constexpr Article kMmoArticle{"四叉树在MMO中的应用", "Quadtrees in MMO games", "", "Unity C#"};
inline constexpr Article kCollisionArticle{"四叉树加速碰撞检测", "Speeding up collision detection with a quadtree",
                                           "yanghui01", "Unity C#"};
inline constexpr Article kLuaArticle{"四叉树 - 碰撞检测算法 Lua版", "Quadtree collision detection, Lua version", "",
                                     "Lua"};
inline constexpr Article kSceneArticle{"基于四叉树的场景管理", "Scene management with a quadtree", "", "Unity C#"};
inline constexpr Article kGridArticle{"游戏算法(2):查找优化之四叉树的应用",
                                      "Game algorithms (2): faster searches with a quadtree", "", "TypeScript"};

struct Sizes {
  const char* objects_what;            // what --objects counts; "" when the scenario's scene is fixed
  std::span<const int> objects;        // default size(s); with several, each is run
  std::span<const int> objects_quick;  // under --quick
  int objects_max;                     // the largest --objects accepted
  const char* objects_note;            // why the limit, or how --objects is used here
  const char* frames_what;             // what --frames counts
  int frames, frames_quick;            // default, and under --quick
  int frames_max;                      // the largest --frames accepted (or used: see frames_capped)
  bool frames_capped;                  // a larger --frames is capped at frames_max instead of refused
  long long objects_x_frames_max;      // 0, or the largest objects x frames (every frame is kept in memory)
};

/// The sizes a run uses: --objects when given, else the defaults (--quick's under --quick).
inline std::vector<int> objects_of(const DemoOptions& opt, const Sizes& s) {
  if (opt.objects_set) return {opt.objects};
  const std::span<const int> d = opt.quick ? s.objects_quick : s.objects;
  return {d.begin(), d.end()};
}
inline int frames_of(const DemoOptions& opt, const Sizes& s) {
  if (opt.frames_set) return s.frames_capped ? std::min(opt.frames, s.frames_max) : opt.frames;
  return opt.quick ? s.frames_quick : s.frames;
}

/// Why `scenario` refuses these options ("" when it accepts them): checked for every selected scenario before
/// any runs, so a bad size fails at once rather than after minutes.
inline std::string refusal(const char* scenario, const DemoOptions& opt, const Sizes& s) {
  const std::string name = scenario;
  if (opt.objects_set && s.objects_what[0] != '\0' && opt.objects > s.objects_max)
    return name + ": --objects must be at most " + std::to_string(s.objects_max) + " (" + s.objects_note + ")";
  if (opt.frames_set && !s.frames_capped && opt.frames > s.frames_max)
    return name + ": --frames must be at most " + std::to_string(s.frames_max);
  if (s.objects_x_frames_max > 0 && s.objects_what[0] != '\0') {
    long long most = 0;
    for (int n : objects_of(opt, s)) most = std::max(most, static_cast<long long>(n));
    if (most * frames_of(opt, s) > s.objects_x_frames_max)
      return name + ": --objects x --frames must be at most " + std::to_string(s.objects_x_frames_max) +
             " (every frame is kept in memory)";
  }
  return "";
}

/// "300, 2000 and 8000".
inline std::string list_of(std::span<const int> v) {
  std::string out;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i > 0) out += i + 1 == v.size() ? " and " : ", ";
    out += std::to_string(v[i]);
  }
  return out;
}

/// The --help text of a scenario's --objects and --frames: defaults, --quick's, limits.
inline std::string describe_objects(const Sizes& s) {
  if (s.objects_what[0] == '\0') return std::string("not used: ") + s.objects_note;
  std::string out = list_of(s.objects) + " " + s.objects_what;
  if (s.objects.size() > 1) out += " (each in turn; --objects N runs N alone)";
  if (!std::ranges::equal(s.objects, s.objects_quick)) out += "; --quick: " + list_of(s.objects_quick);
  out += "; at most " + std::to_string(s.objects_max);
  if (s.objects_note[0] != '\0') out += std::string(" (") + s.objects_note + ")";
  return out;
}
inline std::string describe_frames(const Sizes& s) {
  std::string out = std::to_string(s.frames) + " " + s.frames_what;
  if (s.frames_quick != s.frames) out += "; --quick: " + std::to_string(s.frames_quick);
  out += "; at most " + std::to_string(s.frames_max);
  if (s.frames_capped) out += " (more is capped)";
  if (s.objects_x_frames_max > 0) out += "; objects x frames at most " + std::to_string(s.objects_x_frames_max);
  return out;
}

/// What a scenario produces besides its printed report: its checks against brute force (or another reference),
/// the mismatches, every figure it prints (for --json), and progress lines on stderr.
///
/// A check is a named kind of comparison, made many times (every frame, every configuration): each comparison adds
/// what the reference gave (expected) and what the code under test gave (got), both summed over the comparisons,
/// and counts as a mismatch when they disagree. The scenario is OK when no check has a mismatch and no other failure
/// was reported.
class Report {
 public:
  using Json = nlohmann::ordered_json;

  explicit Report(std::string scenario) : scenario_(std::move(scenario)), start_(clock::now()), last_(start_) {}

  const std::string& scenario() const { return scenario_; }

  /// One comparison of check `name`; returns `same`.
  bool check(std::string_view name, double expected, double got, bool same) {
    Check* c = nullptr;
    for (Check& k : checks_)
      if (k.name == name) c = &k;
    if (c == nullptr) c = &checks_.emplace_back(Check{std::string(name)});
    ++c->comparisons;
    c->expected += expected;
    c->got += got;
    if (!same) ++c->mismatches;
    return same;
  }
  /// One comparison of check `name` that agrees when expected == got.
  bool check(std::string_view name, double expected, double got) { return check(name, expected, got, expected == got); }

  /// A failure: the first 20 messages are kept (printed as MISMATCH ...), the rest counted.
  void add(std::string message) {
    if (shown_.size() < 20) shown_.push_back(std::move(message));
    ++total_;
  }

  bool ok() const {
    if (total_ > 0) return false;
    for (const Check& c : checks_)
      if (c.mismatches > 0) return false;
    return true;
  }
  std::size_t checks() const { return checks_.size(); }
  std::size_t checks_passed() const {
    return std::size_t(std::ranges::count_if(checks_, [](const Check& c) { return c.mismatches == 0; }));
  }
  std::uint64_t comparisons() const {
    std::uint64_t n = 0;
    for (const Check& c : checks_) n += c.comparisons;
    return n;
  }
  double seconds() const { return std::chrono::duration<double>(clock::now() - start_).count(); }

  /// The scenario's figures for --json: `json()["parameters"]`, `table(name)` rows, `json()["figures"]`...
  Json& json() { return data_; }
  /// The rows of table `name` (an array in json()["tables"]); push objects onto it.
  Json& table(const std::string& name) {
    Json& t = data_["tables"][name];
    if (!t.is_array()) t = Json::array();
    return t;
  }
  /// A single figure printed in prose, under json()["figures"].
  template <class T>
  void figure(const std::string& name, const T& value) { data_["figures"][name] = value; }
  void picture(const std::string& path) { data_["pictures"].push_back(path); }

  /// A progress line on stderr, "[scenario 12.3 s] text" (stdout flushed first, so the two stay in order).
  __attribute__((format(printf, 2, 3))) void step(const char* format, ...) {
    va_list args;
    va_start(args, format);
    vprogress(format, args);
    va_end(args);
  }
  /// A progress line only when the last one is more than a second old: call it often in long loops.
  __attribute__((format(printf, 2, 3))) void tick(const char* format, ...) {
    if (std::chrono::duration<double>(clock::now() - last_).count() < 1.0) return;
    va_list args;
    va_start(args, format);
    vprogress(format, args);
    va_end(args);
  }

  /// Prints the checks, the kept mismatch messages and the scenario's last line, "NAME: OK (ok_detail)" or
  /// "NAME: FAILED (...)"; returns ok(): the scenario's result.
  bool finish(const std::string& ok_detail) {
    std::printf("Checks (expected: the reference's count, got: the code's, summed over every comparison):\n");
    quadrant_support::Line line;
    line.add("  %-59s %11s %12s %12s  %s", "check", "comparisons", "expected", "got", "result");
    line.print();
    for (const Check& c : checks_) {
      line.add("  %-59s %11llu %12.0f %12.0f  %s", c.name.c_str(), static_cast<unsigned long long>(c.comparisons),
               c.expected, c.got, c.mismatches == 0 ? "OK" : "FAILED");
      line.print();
    }
    for (const std::string& m : shown_) std::printf("MISMATCH %s\n", m.c_str());
    if (total_ > shown_.size()) std::printf("... and %zu more mismatches\n", total_ - shown_.size());
    if (ok())
      std::printf("%s: OK (%s)\n", scenario_.c_str(), ok_detail.c_str());
    else
      std::printf("%s: FAILED (%zu of %zu checks failed; %zu mismatches with brute force or validate())\n",
                  scenario_.c_str(), checks() - checks_passed(), checks(), total_);
    detail_ = ok_detail;
    return ok();
  }

  /// Everything, as one JSON object: result, time, checks, mismatches, then the figures.
  Json to_json(double seconds) const {
    Json j;
    j["result"] = ok() ? "OK" : "FAILED";
    if (ok()) j["detail"] = detail_;
    j["seconds"] = seconds;
    j["comparisons"] = comparisons();
    j["checks"] = Json::array();
    for (const Check& c : checks_)
      j["checks"].push_back({{"check", c.name},
                             {"comparisons", c.comparisons},
                             {"expected", number(c.expected)},
                             {"got", number(c.got)},
                             {"mismatches", c.mismatches},
                             {"result", c.mismatches == 0 ? "OK" : "FAILED"}});
    j["mismatches"] = shown_;
    j["mismatch_count"] = total_;
    for (const auto& [key, value] : data_.items()) j[key] = value;
    return j;
  }

  /// A count as a JSON integer when it is one (sums of counts are), else as a number.
  static Json number(double v) {
    if (std::isfinite(v) && v == std::floor(v) && std::abs(v) < 9e15) return Json(static_cast<long long>(v));
    return Json(v);
  }

 private:
  using clock = std::chrono::steady_clock;
  struct Check {
    std::string name;
    std::uint64_t comparisons = 0, mismatches = 0;
    double expected = 0, got = 0;
  };

  void vprogress(const char* format, va_list args) {
    std::fflush(stdout);
    std::fprintf(stderr, "  [%s %5.1f s] ", scenario_.c_str(), seconds());
    std::vfprintf(stderr, format, args);
    std::fprintf(stderr, "\n");
    std::fflush(stderr);
    last_ = clock::now();
  }

  std::string scenario_;
  clock::time_point start_, last_;
  std::vector<Check> checks_;
  std::vector<std::string> shown_;
  std::size_t total_ = 0;
  std::string detail_;
  Json data_ = Json::object();
};

/// Prints the line naming the article under a scenario's header, and records it in the scenario's JSON.
inline void print_article(const Article& a, Report& report, const char* relation = "Reproduces") {
  std::printf("%s the article \"%s\" (%s)%s%s, whose code is %s.\n", relation, a.english, a.title,
              *a.author ? " by " : "", a.author, a.code);
  report.json()["article"] = {{"title", a.title}, {"english", a.english}, {"author", a.author}, {"code", a.code}};
}

/// One runnable scenario: `run` prints its report, fills `report`, and returns true when every check passed.
struct Scenario {
  const char* name;
  const char* summary;
  const Sizes* sizes;
  bool (*run)(const DemoOptions&, Report&);
};

// Shared with the benchmarks (support/quadrant_support): the random source, pair keys, median and table lines.
using quadrant_support::compare_pairs;
using quadrant_support::Line;
using quadrant_support::median;
using quadrant_support::pair_first;
using quadrant_support::pair_key;
using quadrant_support::pair_second;
using quadrant_support::Rng;

}  // namespace quadrant_tools

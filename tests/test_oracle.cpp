// SPDX-License-Identifier: MIT
// quadrant — differential tests: Tree<D, T, S> against a brute-force oracle.
//
// The oracle is a plain vector of the live objects and their boxes; every query, every pair walk and every
// accessor of the tree is compared with what the oracle computes by testing everything against everything. The
// operation sequences are random with fixed seeds. A seed is derived from the case's parameters, so a case replays
// from its name alone, e.g.
//   ./test_oracle --gtest_filter='Matrix/OracleFuzz.RandomOperations/D2_float_Leaves_Default_Touching'
// and every failure names its seed, parameters and operation index. QUADRANT_ORACLE_SEED=<n> in the environment
// changes the base seed (to explore other sequences); QUADRANT_ORACLE_STATS=1 prints the number of operations
// checked when the binary ends. Nothing is printed on success.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <limits>
#include <numeric>
#include <optional>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <span>
#include <vector>

#include <quadrant/quadrant.hpp>

namespace {

using quadrant::Box;
using quadrant::Config;
using quadrant::Handle;
using quadrant::NodeView;
using quadrant::PairStats;
using quadrant::Placement;
using quadrant::QueryStats;
using quadrant::Tree;
using quadrant::Vec;

// ---- operation counter: every operation checked against the oracle ------------------------------------------

std::atomic<std::uint64_t> g_operations{0};
void count_op(std::uint64_t n = 1) { g_operations.fetch_add(n, std::memory_order_relaxed); }

class OperationReport : public ::testing::Environment {
 public:
  void TearDown() override {
    if (std::getenv("QUADRANT_ORACLE_STATS") != nullptr)
      std::fprintf(stderr, "test_oracle: %llu operations checked against the oracle\n",
                   static_cast<unsigned long long>(g_operations.load()));
  }
};
[[maybe_unused]] ::testing::Environment* const g_report =
    ::testing::AddGlobalTestEnvironment(new OperationReport);

std::uint32_t base_seed() {
  if (const char* s = std::getenv("QUADRANT_ORACLE_SEED"))
    return static_cast<std::uint32_t>(std::strtoul(s, nullptr, 10));
  return 20240611u;
}

// ---- random numbers: std::mt19937 with explicit seeds ---------------------------------------------------------

class Rng {
 public:
  explicit Rng(std::uint32_t seed) : gen_(seed) {}
  /// Uniform in [lo, hi); lo when the range is empty.
  double real(double lo, double hi) {
    if (!(lo < hi)) return lo;
    return std::uniform_real_distribution<double>(lo, hi)(gen_);
  }
  int integer(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(gen_); }
  std::size_t index(std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n - 1)(gen_); }
  bool chance(double p) { return real(0.0, 1.0) < p; }

 private:
  std::mt19937 gen_;
};

// ---- the oracle's own geometry (never the library's) ----------------------------------------------------------

template <int D, class S>
bool oracle_overlap(const Box<D, S>& a, const Box<D, S>& b) {
  for (int i = 0; i < D; ++i)
    if (a.max[i] < b.min[i] || b.max[i] < a.min[i]) return false;
  return true;
}
template <int D, class S>
bool oracle_overlap(const Box<D, S>& a, const Vec<D, S>& p) {
  for (int i = 0; i < D; ++i)
    if (p[i] < a.min[i] || p[i] > a.max[i]) return false;
  return true;
}
template <int D, class S>
bool oracle_inside(const Box<D, S>& outer, const Box<D, S>& inner) {
  for (int i = 0; i < D; ++i)
    if (inner.min[i] < outer.min[i] || inner.max[i] > outer.max[i]) return false;
  return true;
}
template <int D, class S>
bool same_box(const Box<D, S>& a, const Box<D, S>& b) {
  for (int i = 0; i < D; ++i)
    if (!(a.min[i] == b.min[i]) || !(a.max[i] == b.max[i])) return false;
  return true;
}
template <int D, class S>
Box<D, S> oracle_clamp(const Box<D, S>& b, const Box<D, S>& into) {
  Box<D, S> r = b;
  for (int i = 0; i < D; ++i) {
    r.min[i] = std::min(std::max(b.min[i], into.min[i]), into.max[i]);
    r.max[i] = std::min(std::max(b.max[i], into.min[i]), into.max[i]);
  }
  return r;
}
template <int D, class S>
bool finite_box(const Box<D, S>& b) {
  for (int i = 0; i < D; ++i)
    if (!std::isfinite(b.min[i]) || !std::isfinite(b.max[i]) || b.min[i] > b.max[i]) return false;
  return true;
}

template <int D, class S>
std::string str(const Vec<D, S>& v) {
  std::ostringstream os;
  os.precision(std::numeric_limits<S>::max_digits10);
  os << '(';
  for (int i = 0; i < D; ++i) os << (i ? ", " : "") << v[i];
  os << ')';
  return os.str();
}
template <int D, class S>
std::string str(const Box<D, S>& b) {
  return "[" + str(b.min) + " .. " + str(b.max) + "]";
}

// ---- the stored value -----------------------------------------------------------------------------------------

// A value with heap memory now and then (long names), so the sanitizers see values created, copied and destroyed.
struct Item {
  std::uint64_t id = 0;
  std::string name;
  friend bool operator==(const Item&, const Item&) = default;
};

Item make_item(std::uint64_t id) {
  std::string name = id % 5 == 0 ? "a long name that does not fit the small string buffer #" : "o";
  return Item{id, name + std::to_string(id)};
}

// ---- the oracle: the live objects, tested by brute force -------------------------------------------------------

using IdPair = std::pair<std::uint64_t, std::uint64_t>;

template <int D, class S>
class Oracle {
 public:
  struct Object {
    Handle handle;
    Box<D, S> box;
    Item item;
  };

  void add(Handle h, const Box<D, S>& box, Item item) {
    index_[h] = objects_.size();
    objects_.push_back(Object{h, box, std::move(item)});
  }
  void remove(Handle h) {
    const std::size_t i = index_.at(h);
    index_.erase(h);
    if (i + 1 != objects_.size()) {
      objects_[i] = std::move(objects_.back());
      index_[objects_[i].handle] = i;
    }
    objects_.pop_back();
  }
  void clear() {
    objects_.clear();
    index_.clear();
  }
  /// The same object under a new handle (the tree it lives in was copy-assigned).
  void rebind(Handle from, Handle to) {
    const std::size_t i = index_.at(from);
    index_.erase(from);
    index_[to] = i;
    objects_[i].handle = to;
  }
  const Object* find(Handle h) const {
    auto it = index_.find(h);
    return it == index_.end() ? nullptr : &objects_[it->second];
  }
  Object* find(Handle h) {
    auto it = index_.find(h);
    return it == index_.end() ? nullptr : &objects_[it->second];
  }
  const Object* find_id(std::uint64_t id) const {
    for (const Object& o : objects_)
      if (o.item.id == id) return &o;
    return nullptr;
  }
  const std::vector<Object>& objects() const { return objects_; }
  std::size_t size() const { return objects_.size(); }

  /// Ids of the objects overlapping a box or a point, sorted.
  template <class Shape>
  std::vector<std::uint64_t> expected_ids(const Shape& shape) const {
    std::vector<std::uint64_t> ids;
    for (const Object& o : objects_)
      if (oracle_overlap(o.box, shape)) ids.push_back(o.item.id);
    std::sort(ids.begin(), ids.end());
    return ids;
  }
  /// Every unordered overlapping pair (smaller id first), sorted.
  std::vector<IdPair> expected_pairs() const {
    std::vector<IdPair> pairs;
    for (std::size_t i = 0; i < objects_.size(); ++i)
      for (std::size_t j = i + 1; j < objects_.size(); ++j)
        if (oracle_overlap(objects_[i].box, objects_[j].box))
          pairs.emplace_back(std::min(objects_[i].item.id, objects_[j].item.id),
                             std::max(objects_[i].item.id, objects_[j].item.id));
    std::sort(pairs.begin(), pairs.end());
    return pairs;
  }

  std::string describe_id(std::uint64_t id) const {
    const Object* o = find_id(id);
    return "#" + std::to_string(id) + (o ? " " + str(o->box) : std::string(" (not live)"));
  }

 private:
  std::vector<Object> objects_;
  std::unordered_map<Handle, std::size_t> index_;
};

// The difference between what the tree reported and what the oracle expects, readable.
template <int D, class S>
std::string difference(const Oracle<D, S>& oracle, const std::vector<std::uint64_t>& expected,
                       const std::vector<std::uint64_t>& got) {
  std::vector<std::uint64_t> missing, extra;
  std::set_difference(expected.begin(), expected.end(), got.begin(), got.end(), std::back_inserter(missing));
  std::set_difference(got.begin(), got.end(), expected.begin(), expected.end(), std::back_inserter(extra));
  std::ostringstream os;
  os << "expected " << expected.size() << " objects, got " << got.size() << "; missing " << missing.size()
     << ", extra " << extra.size();
  for (std::size_t i = 0; i < std::min<std::size_t>(missing.size(), 4); ++i)
    os << "\n  missing " << oracle.describe_id(missing[i]);
  for (std::size_t i = 0; i < std::min<std::size_t>(extra.size(), 4); ++i)
    os << "\n  extra " << oracle.describe_id(extra[i]);
  return os.str();
}

bool has_duplicates(const std::vector<std::uint64_t>& sorted) {
  return std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end();
}

// ---- query and pair checks, shared by the random sequences and the directed tests -----------------------------

/// The callback forms a query accepts.
enum class Form { HandleVoid, HandleBool, ValueVoid, ValueBool };
constexpr std::array<Form, 4> kForms = {Form::HandleVoid, Form::HandleBool, Form::ValueVoid, Form::ValueBool};
const char* form_name(Form f) {
  switch (f) {
    case Form::HandleVoid: return "(Handle, const T&) -> void";
    case Form::HandleBool: return "(Handle, const T&) -> bool";
    case Form::ValueVoid: return "(const T&) -> void";
    case Form::ValueBool: return "(const T&) -> bool";
  }
  return "?";
}

/// Runs `tree.query(shape)` with the callback form `form`, stopping after `stop_after` calls when it is non-zero
/// (bool forms only), and compares with the oracle: the objects reported, each once, the stats, early stop.
template <int D, class S, class Shape>
void check_query(const Tree<D, Item, S>& tree, const Oracle<D, S>& oracle, const Shape& shape, Form form,
                 std::size_t stop_after = 0) {
  count_op();
  const std::vector<std::uint64_t> expected = oracle.expected_ids(shape);
  std::vector<std::uint64_t> got;
  std::size_t calls = 0, foreign = 0, wrong_value = 0;
  const bool stops = stop_after > 0;
  auto note_value = [&](const Item& item) {
    ++calls;
    got.push_back(item.id);
  };
  auto note_handle = [&](Handle handle, const Item& item) {
    const auto* o = oracle.find(handle);
    if (o == nullptr) ++foreign;
    else if (!(o->item == item)) ++wrong_value;
    note_value(item);
  };
  QueryStats st;
  switch (form) {
    case Form::HandleVoid:
      st = tree.query(shape, [&](Handle handle, const Item& item) { note_handle(handle, item); });
      break;
    case Form::HandleBool:
      st = tree.query(shape, [&](Handle handle, const Item& item) -> bool {
        note_handle(handle, item);
        return !stops || calls < stop_after;
      });
      break;
    case Form::ValueVoid:
      st = tree.query(shape, [&](const Item& item) { note_value(item); });
      break;
    case Form::ValueBool:
      st = tree.query(shape, [&](const Item& item) -> bool {
        note_value(item);
        return !stops || calls < stop_after;
      });
      break;
  }
  SCOPED_TRACE(std::string("query ") + str(shape) + " with " + form_name(form) +
               (stops ? ", stop after " + std::to_string(stop_after) : std::string()));
  EXPECT_EQ(foreign, 0u) << "the query reported handles that are not live";
  EXPECT_EQ(wrong_value, 0u) << "the query passed a value that is not the handle's";
  EXPECT_EQ(st.hits, calls) << "QueryStats::hits differs from the number of callbacks";
  std::sort(got.begin(), got.end());
  EXPECT_FALSE(has_duplicates(got)) << "an object was reported more than once";
  if (stops && stop_after <= expected.size()) {
    EXPECT_EQ(calls, stop_after) << "a callback returning false must stop the query at once";
    EXPECT_TRUE(st.stopped) << "QueryStats::stopped not set";
    EXPECT_TRUE(std::includes(expected.begin(), expected.end(), got.begin(), got.end()))
        << difference(oracle, expected, got);
  } else {
    EXPECT_TRUE(got == expected) << difference(oracle, expected, got);
    EXPECT_FALSE(st.stopped) << "QueryStats::stopped set although the callback never returned false";
  }
}

/// Runs `tree.for_each_pair` (void or bool callback; stopping after `stop_after` when non-zero) and compares with
/// the oracle's overlapping pairs: each unordered pair once, never (a, a), PairStats::pairs = calls.
template <int D, class S>
void check_pairs(const Tree<D, Item, S>& tree, const Oracle<D, S>& oracle, bool bool_form,
                 std::size_t stop_after = 0) {
  count_op();
  const std::vector<IdPair> expected = oracle.expected_pairs();
  std::vector<IdPair> got;
  std::size_t calls = 0, self = 0, foreign = 0;
  const bool stops = stop_after > 0;
  auto note = [&](Handle a, Handle b) {
    ++calls;
    if (a == b) ++self;
    const auto* oa = oracle.find(a);
    const auto* ob = oracle.find(b);
    if (oa == nullptr || ob == nullptr) {
      ++foreign;
      return;
    }
    got.emplace_back(std::min(oa->item.id, ob->item.id), std::max(oa->item.id, ob->item.id));
  };
  PairStats st;
  std::vector<std::pair<Handle, Handle>> in_order;
  if (bool_form) {
    st = tree.for_each_pair([&](Handle a, Handle b) -> bool {
      note(a, b);
      return !stops || calls < stop_after;
    });
  } else {
    st = tree.for_each_pair([&](Handle a, Handle b) {
      note(a, b);
      in_order.emplace_back(a, b);
    });
    // The threaded forms: pairs() gives the same sequence whatever the number of threads; for_each_pair_parallel
    // the same pairs, each once, spread over its workers.
    for (unsigned threads : {1u, 2u, 3u}) {
      std::vector<std::pair<Handle, Handle>> out;
      const PairStats pst = tree.pairs(out, threads);
      EXPECT_TRUE(out == in_order) << "pairs(out, " << threads << ") differs from for_each_pair's sequence";
      EXPECT_EQ(pst.pairs, out.size());
      std::vector<std::vector<std::pair<Handle, Handle>>> per(threads);
      const PairStats par = tree.for_each_pair_parallel(
          [&](unsigned worker, Handle a, Handle b) { per.at(worker).emplace_back(a, b); }, threads);
      std::vector<std::pair<Handle, Handle>> all;
      for (const auto& v : per) all.insert(all.end(), v.begin(), v.end());
      EXPECT_EQ(par.pairs, all.size());
      auto by_index = [](const std::pair<Handle, Handle>& x, const std::pair<Handle, Handle>& y) {
        return std::pair(x.first.index(), x.second.index()) < std::pair(y.first.index(), y.second.index());
      };
      std::vector<std::pair<Handle, Handle>> sorted_seq = in_order;
      std::sort(all.begin(), all.end(), by_index);
      std::sort(sorted_seq.begin(), sorted_seq.end(), by_index);
      EXPECT_TRUE(all == sorted_seq) << "for_each_pair_parallel with " << threads << " threads differs";
      // The value forms: the same pairs, each handle with its own value.
      std::vector<IdPair> seq_ids;
      for (const auto& [a, b] : in_order)
        seq_ids.emplace_back(std::min(tree.value(a).id, tree.value(b).id), std::max(tree.value(a).id, tree.value(b).id));
      std::sort(seq_ids.begin(), seq_ids.end());
      std::vector<std::vector<IdPair>> by_value(threads), by_both(threads);
      std::vector<std::size_t> wrong(threads, 0);
      const PairStats vst = tree.for_each_pair_parallel([&](unsigned worker, const Item& a, const Item& b) {
        by_value.at(worker).emplace_back(std::min(a.id, b.id), std::max(a.id, b.id));
      }, threads);
      tree.for_each_pair_parallel([&](unsigned worker, Handle ha, const Item& a, Handle hb, const Item& b) {
        wrong.at(worker) += !(tree.value(ha) == a) + !(tree.value(hb) == b);
        by_both.at(worker).emplace_back(std::min(a.id, b.id), std::max(a.id, b.id));
      }, threads);
      for (auto* per_form : {&by_value, &by_both}) {
        std::vector<IdPair> ids;
        for (const auto& v : *per_form) ids.insert(ids.end(), v.begin(), v.end());
        std::sort(ids.begin(), ids.end());
        EXPECT_TRUE(ids == seq_ids) << "for_each_pair_parallel's value form with " << threads << " threads differs";
      }
      EXPECT_EQ(vst.pairs, seq_ids.size());
      EXPECT_EQ(std::accumulate(wrong.begin(), wrong.end(), std::size_t{0}), 0u)
          << "for_each_pair_parallel passed a value that is not its handle's";
    }
  }
  SCOPED_TRACE(std::string("for_each_pair with a ") + (bool_form ? "bool" : "void") + " callback" +
               (stops ? ", stop after " + std::to_string(stop_after) : std::string()));
  EXPECT_EQ(self, 0u) << "for_each_pair reported an object paired with itself";
  EXPECT_EQ(foreign, 0u) << "for_each_pair reported handles that are not live";
  EXPECT_EQ(st.pairs, calls) << "PairStats::pairs differs from the number of callbacks";
  std::sort(got.begin(), got.end());
  EXPECT_TRUE(std::adjacent_find(got.begin(), got.end()) == got.end()) << "a pair was reported more than once";
  if (stops && stop_after <= expected.size()) {
    EXPECT_EQ(calls, stop_after) << "a callback returning false must stop for_each_pair at once";
    EXPECT_TRUE(st.stopped) << "PairStats::stopped not set";
    EXPECT_TRUE(std::includes(expected.begin(), expected.end(), got.begin(), got.end()))
        << "reported a pair that does not overlap";
  } else {
    EXPECT_FALSE(st.stopped) << "PairStats::stopped set although the callback never returned false";
    if (got != expected) {
      std::vector<IdPair> missing, extra;
      std::set_difference(expected.begin(), expected.end(), got.begin(), got.end(), std::back_inserter(missing));
      std::set_difference(got.begin(), got.end(), expected.begin(), expected.end(), std::back_inserter(extra));
      std::ostringstream os;
      os << "expected " << expected.size() << " pairs, got " << got.size() << "; missing " << missing.size()
         << ", extra " << extra.size();
      for (std::size_t i = 0; i < std::min<std::size_t>(missing.size(), 4); ++i)
        os << "\n  missing " << oracle.describe_id(missing[i].first) << " with "
           << oracle.describe_id(missing[i].second);
      for (std::size_t i = 0; i < std::min<std::size_t>(extra.size(), 4); ++i)
        os << "\n  extra " << oracle.describe_id(extra[i].first) << " with " << oracle.describe_id(extra[i].second);
      ADD_FAILURE() << os.str();
    }
  }
}

template <int D, class S>
void expect_valid(const Tree<D, Item, S>& tree) {
  try {
    tree.validate();
  } catch (const std::logic_error& e) {
    ADD_FAILURE() << "validate() failed: " << e.what();
  }
}

/// A handle the tree must reject: contains is false and every member taking it throws std::invalid_argument.
template <int D, class S>
void expect_rejected(Tree<D, Item, S>& tree, Handle h, const Box<D, S>& some_box) {
  count_op();
  const std::size_t before = tree.size();
  EXPECT_FALSE(tree.contains(h));
  EXPECT_THROW(tree.erase(h), std::invalid_argument);
  EXPECT_THROW(tree.move(h, some_box), std::invalid_argument);
  EXPECT_THROW(tree.value(h), std::invalid_argument);
  EXPECT_THROW(std::as_const(tree).value(h), std::invalid_argument);
  EXPECT_THROW(tree.bounds(h), std::invalid_argument);
  EXPECT_EQ(tree.size(), before) << "a rejected handle changed the tree";
}

/// Live objects: contains, bounds and value agree with the oracle, and for_each lists exactly them.
template <int D, class S>
void check_accessors(Tree<D, Item, S>& tree, const Oracle<D, S>& oracle) {
  count_op();
  EXPECT_EQ(tree.size(), oracle.size());
  EXPECT_EQ(tree.empty(), oracle.size() == 0);
  for (const auto& o : oracle.objects()) {
    ASSERT_TRUE(tree.contains(o.handle)) << "live object #" << o.item.id << " not contained";
    EXPECT_TRUE(same_box(tree.bounds(o.handle), o.box))
        << "#" << o.item.id << " bounds " << str(tree.bounds(o.handle)) << ", oracle " << str(o.box);
    EXPECT_TRUE(tree.value(o.handle) == o.item) << "#" << o.item.id << " value differs";
    EXPECT_TRUE(std::as_const(tree).value(o.handle) == o.item) << "#" << o.item.id << " const value differs";
  }
  std::size_t listed = 0, wrong = 0;
  std::unordered_set<Handle> seen;
  tree.for_each([&](Handle h, const Item& item, const Box<D, S>& box) {
    ++listed;
    const auto* o = oracle.find(h);
    if (o == nullptr || !(o->item == item) || !same_box(o->box, box) || !seen.insert(h).second) ++wrong;
  });
  EXPECT_EQ(listed, oracle.size()) << "for_each lists a different number of objects";
  EXPECT_EQ(wrong, 0u) << "for_each lists objects the oracle does not have (or twice)";
}

// Depth a node may have: max_depth, and no cell with a side below min_node_size (children halve the world).
template <int D, class S>
int oracle_levels(const Config<D, S>& c) {
  std::array<double, D> side{};
  for (int i = 0; i < D; ++i) side[i] = static_cast<double>(c.world.max[i]) - static_cast<double>(c.world.min[i]);
  int levels = 0;
  while (levels < c.max_depth) {
    bool ok = true;
    for (int i = 0; i < D; ++i)
      if (side[i] / 2 < static_cast<double>(c.min_node_size)) ok = false;
    if (!ok) break;
    for (int i = 0; i < D; ++i) side[i] /= 2;
    ++levels;
  }
  return levels;
}
template <int D>
std::size_t full_tree_nodes(int levels) {
  std::size_t nodes = 0, level = 1;
  for (int d = 0; d <= levels; ++d, level *= std::size_t{1} << D) nodes += level;
  return nodes;
}

// A generous bound on the nodes a tree may need for `objects` objects: a full tree has its fixed size; otherwise
// every split must separate objects, so each object justifies at most a few chains of splits down to the deepest
// level (8 blocks of children per level per object here). A tree beyond it refines where nothing is separated.
template <int D, class S>
std::size_t node_budget(const Config<D, S>& c, std::size_t objects) {
  const int levels = oracle_levels(c);
  if (c.split_threshold == 0) return full_tree_nodes<D>(levels);
  return 1 + 8 * (std::size_t{1} << D) * (objects + 1) * static_cast<std::size_t>(std::max(1, levels));
}

/// Where the tree keeps each object, checked against the placement's definition (computed by the oracle):
/// Leaves lists an object in exactly the leaves whose cell overlaps its box clamped into the world; Parent keeps
/// it in one node whose cell contains it and none of whose children's cells does; Loose in one node whose bounds
/// contain it. Every node respects max_depth and min_node_size; a full tree has all its nodes.
template <int D, class S>
void check_structure(const Tree<D, Item, S>& tree, const Oracle<D, S>& oracle, const Config<D, S>& cfg) {
  count_op();
  struct Snap {
    std::uint32_t id, parent;
    int depth;
    bool leaf;
    Box<D, S> cell, bounds;
    std::vector<quadrant::Entry<D, S>> items;
  };
  std::vector<Snap> nodes;
  tree.for_each_node([&](const NodeView<D, S>& v) {
    nodes.push_back(Snap{v.id, v.parent, v.depth, v.leaf, v.cell, v.bounds, {v.items.begin(), v.items.end()}});
  });
  const int levels = oracle_levels(cfg);
  std::unordered_map<std::uint32_t, std::vector<std::size_t>> children;
  std::unordered_map<Handle, std::size_t> listed;
  std::size_t references = 0;
  for (std::size_t k = 0; k < nodes.size(); ++k) {
    const Snap& n = nodes[k];
    if (n.depth > 0) children[n.parent].push_back(k);
    EXPECT_LE(n.depth, levels) << "node " << n.id << " deeper than max_depth / min_node_size allow";
    if (n.depth > 0) {
      for (int i = 0; i < D; ++i)
        EXPECT_GE(n.cell.max[i] - n.cell.min[i], cfg.min_node_size) << "node " << n.id << " below min_node_size";
    }
    for (const auto& e : n.items) {
      ++references;
      ++listed[e.handle];
      const auto* o = oracle.find(e.handle);
      ASSERT_NE(o, nullptr) << "node " << n.id << " lists a handle that is not live";
      EXPECT_TRUE(same_box(e.box, o->box)) << "node " << n.id << " lists #" << o->item.id << " with box "
                                           << str(e.box) << ", oracle " << str(o->box);
      if (cfg.placement == Placement::Leaves) {
        EXPECT_TRUE(n.leaf) << "an inner node lists #" << o->item.id << " under Placement::Leaves";
      } else if (n.depth > 0) {
        const Box<D, S>& home = cfg.placement == Placement::Parent ? n.cell : n.bounds;
        EXPECT_TRUE(oracle_inside(home, o->box)) << "#" << o->item.id << " " << str(o->box) << " kept in node "
                                                 << n.id << " which does not contain it: " << str(home);
      }
    }
  }
  EXPECT_EQ(tree.stats().references, references);
  if (cfg.placement == Placement::Leaves) {
    // Each leaf lists exactly the objects whose clamped box overlaps its cell.
    for (const Snap& n : nodes) {
      if (!n.leaf) continue;
      std::vector<std::uint64_t> expected, got;
      for (const auto& o : oracle.objects())
        if (oracle_overlap(n.cell, oracle_clamp(o.box, cfg.world))) expected.push_back(o.item.id);
      for (const auto& e : n.items)
        if (const auto* o = oracle.find(e.handle)) got.push_back(o->item.id);
      std::sort(expected.begin(), expected.end());
      std::sort(got.begin(), got.end());
      EXPECT_TRUE(expected == got) << "leaf " << n.id << " " << str(n.cell) << ": "
                                   << difference(oracle, expected, got);
    }
  } else {
    for (const auto& o : oracle.objects()) {
      auto it = listed.find(o.handle);
      EXPECT_EQ(it == listed.end() ? 0u : it->second, 1u) << "#" << o.item.id << " must be kept by one node";
    }
    if (cfg.placement == Placement::Parent) {
      // The deepest node whose cell contains the object: no child's cell contains it.
      for (const Snap& n : nodes) {
        if (n.leaf) continue;
        for (std::size_t c : children[n.id]) {
          for (const auto& e : n.items) {
            EXPECT_FALSE(oracle_inside(nodes[c].cell, e.box))
                << "Placement::Parent keeps " << str(e.box) << " in node " << n.id << " although its child "
                << nodes[c].id << " " << str(nodes[c].cell) << " contains it";
          }
        }
      }
    }
  }
  if (cfg.split_threshold == 0) {
    EXPECT_EQ(nodes.size(), full_tree_nodes<D>(levels)) << "a full tree (split_threshold 0) lost or grew nodes";
  }
}

// ---- the parameter matrix --------------------------------------------------------------------------------------

enum class Scalar { Float, Double };
enum class ConfigKind { Depth0, Depth1, Default, Deep20, Threshold1, FullTree, FullMinSize, MinNodeSize };
enum class Scene { Uniform, Outside, Huge, Points, Clustered, Touching };

constexpr std::array<Placement, 3> kPlacements = {Placement::Loose, Placement::Parent, Placement::Leaves};
constexpr std::array<ConfigKind, 8> kConfigs = {ConfigKind::Depth0,     ConfigKind::Depth1,   ConfigKind::Default,
                                                ConfigKind::Deep20,     ConfigKind::Threshold1,
                                                ConfigKind::FullTree,   ConfigKind::FullMinSize,
                                                ConfigKind::MinNodeSize};
constexpr std::array<Scene, 6> kScenes = {Scene::Uniform, Scene::Outside,   Scene::Huge,
                                          Scene::Points,  Scene::Clustered, Scene::Touching};

const char* name_of(Placement p) { return quadrant::to_string(p); }
const char* name_of(ConfigKind c) {
  switch (c) {
    case ConfigKind::Depth0: return "Depth0";
    case ConfigKind::Depth1: return "Depth1";
    case ConfigKind::Default: return "Default";
    case ConfigKind::Deep20: return "Deep20";
    case ConfigKind::Threshold1: return "Threshold1";
    case ConfigKind::FullTree: return "FullTree";
    case ConfigKind::FullMinSize: return "FullMinSize";
    case ConfigKind::MinNodeSize: return "MinNodeSize";
  }
  return "?";
}
const char* name_of(Scene s) {
  switch (s) {
    case Scene::Uniform: return "Uniform";
    case Scene::Outside: return "Outside";
    case Scene::Huge: return "Huge";
    case Scene::Points: return "Points";
    case Scene::Clustered: return "Clustered";
    case Scene::Touching: return "Touching";
  }
  return "?";
}

/// The Config of a kind. split_threshold 0 keeps the full tree small (<= 6 levels in 2D, 4 in 3D).
template <int D, class S>
Config<D, S> make_config(ConfigKind kind, const Box<D, S>& world, Placement placement) {
  Config<D, S> c;
  c.world = world;
  c.placement = placement;
  double min_side = std::numeric_limits<double>::infinity();
  for (int i = 0; i < D; ++i)
    min_side = std::min(min_side, static_cast<double>(world.max[i]) - static_cast<double>(world.min[i]));
  switch (kind) {
    case ConfigKind::Depth0: c.max_depth = 0; break;
    case ConfigKind::Depth1: c.max_depth = 1; c.split_threshold = 2; break;
    case ConfigKind::Default: break;  // max_depth 8, split_threshold 8
    case ConfigKind::Deep20:
      c.max_depth = 20;
      c.split_threshold = 2;
      break;
    case ConfigKind::Threshold1: c.split_threshold = 1; break;
    case ConfigKind::FullTree: c.split_threshold = 0; c.max_depth = D == 2 ? 5 : 3; break;
    case ConfigKind::FullMinSize:
      // max_depth 20, cut by min_node_size at depth 4 (2D) or 3 (3D): sides 1/16 resp. 1/8 of the world pass.
      c.split_threshold = 0;
      c.max_depth = 20;
      c.min_node_size = static_cast<S>(min_side / (D == 2 ? 24.0 : 12.0));
      break;
    case ConfigKind::MinNodeSize:
      c.max_depth = 20;
      c.split_threshold = 1;
      c.min_node_size = static_cast<S>(min_side / 24.0);
      break;
  }
  return c;
}

// ---- scenes: random objects, moves and queries ----------------------------------------------------------------

template <int D, class S>
class SceneGen {
 public:
  using B = Box<D, S>;
  using V = Vec<D, S>;
  using Objects = std::vector<typename Oracle<D, S>::Object>;

  SceneGen(Scene scene, const B& world, Rng& rng) : scene_(scene), world_(world), rng_(rng) {
    min_side_ = std::numeric_limits<double>::infinity();
    for (int i = 0; i < D; ++i) {
      side_[i] = static_cast<double>(world.max[i]) - static_cast<double>(world.min[i]);
      min_side_ = std::min(min_side_, side_[i]);
      // The split lines of the first levels, computed as cells are halved (std::midpoint in S).
      collect_lines(i, world.min[i], world.max[i], 4);
    }
    cluster_ = rng_.chance(0.5) ? split_point() : point_inside();
    region_ = point_inside();
    region_half_ = 1e-4 * min_side_;
  }

  /// A world for the scene: integer-aligned with a side of 128 for Touching (so split lines are integers),
  /// otherwise random and not square.
  static B make_world(Scene scene, Rng& rng) {
    B w{};
    for (int i = 0; i < D; ++i) {
      if (scene == Scene::Touching) {
        w.min[i] = static_cast<S>(-64 + 8 * rng.integer(-4, 4));
        w.max[i] = static_cast<S>(w.min[i] + S(128));
      } else {
        const double lo = rng.real(-200.0, -20.0);
        w.min[i] = static_cast<S>(lo);
        w.max[i] = static_cast<S>(lo + rng.real(60.0, 320.0));
      }
    }
    return w;
  }

  B object() {
    const double r = rng_.real(0, 1);
    switch (scene_) {
      case Scene::Uniform: return uniform_box(0.06);
      case Scene::Outside: {
        if (r < 0.35) return outside_box();
        if (r < 0.7) return straddling_box();
        return uniform_box(0.05);
      }
      case Scene::Huge: {
        if (r < 0.06) return grown_world(rng_.real(0.0, 1.0));
        if (r < 0.09) return grown_world(1e5);
        if (r < 0.11) return full_range();
        if (r < 0.25) return uniform_box(0.5);
        return uniform_box(0.04);
      }
      case Scene::Points: {
        const V p = scene_point();
        return B{p, p};
      }
      case Scene::Clustered: {
        if (r < 0.45) return B{cluster_, cluster_};
        if (r < 0.55) {
          B b{cluster_, cluster_};
          for (int i = 0; i < D; ++i) {
            const S d = static_cast<S>(rng_.real(0.0, 50 * region_half_));
            if (rng_.chance(0.5)) b.max[i] = static_cast<S>(b.max[i] + d);
            else b.min[i] = static_cast<S>(b.min[i] - d);
          }
          return b;
        }
        if (r < 0.9) return region_box();
        return uniform_box(0.05);
      }
      case Scene::Touching: return grid_box();
    }
    return uniform_box(0.05);
  }

  /// A small move: integer steps for Touching, tiny for Clustered, about 1% of the world otherwise.
  B jitter(const B& b) {
    B n = b;
    for (int i = 0; i < D; ++i) {
      if (rng_.chance(0.25)) continue;
      S d{};
      switch (scene_) {
        case Scene::Touching:
          d = static_cast<S>(rng_.chance(0.5) ? 4 * rng_.integer(-1, 1) : rng_.integer(-2, 2));
          break;
        case Scene::Clustered: d = static_cast<S>(rng_.real(-region_half_ / 4, region_half_ / 4)); break;
        default: d = static_cast<S>(rng_.real(-0.01, 0.01) * side_[i]); break;
      }
      n.min[i] = static_cast<S>(n.min[i] + d);
      n.max[i] = static_cast<S>(n.max[i] + d);
      if (scene_ != Scene::Points && rng_.chance(0.15)) {
        const S grow = scene_ == Scene::Touching ? S(1) : static_cast<S>(rng_.real(0.0, 0.005) * side_[i]);
        n.max[i] = static_cast<S>(n.max[i] + grow);
      }
    }
    return finite_box(n) ? n : b;
  }

  B query_box(const Objects& live) {
    const double r = rng_.real(0, 1);
    if (r < 0.3 || live.empty()) return random_query_box();
    const B& b = live[rng_.index(live.size())].box;
    if (r < 0.45) return b;                    // exactly an object's box
    if (r < 0.62) return touching_box(b);      // sharing a face with an object, from outside
    if (r < 0.67) return grown_world(rng_.real(0.0, 1.0));  // everything inside the world (and more)
    if (r < 0.7) return full_range();
    if (r < 0.85) {
      const V p = query_point(live);
      return B{p, p};
    }
    return random_query_box();
  }

  V query_point(const Objects& live) {
    const double r = rng_.real(0, 1);
    if (r < 0.4 && !live.empty()) {
      // A corner of an object (any mix of min and max coordinates): it lies on the object's boundary.
      const B& b = live[rng_.index(live.size())].box;
      V p{};
      for (int i = 0; i < D; ++i) p[i] = rng_.chance(0.5) ? b.min[i] : b.max[i];
      return p;
    }
    if (r < 0.55) return split_point();
    if (r < 0.65) return scene_ == Scene::Clustered ? cluster_ : boundary_point();
    return scene_point();
  }

  const V& cluster_point() const { return cluster_; }

 private:
  S at(int i, double t) const { return static_cast<S>(static_cast<double>(world_.min[i]) + t * side_[i]); }

  void collect_lines(int axis, S lo, S hi, int levels) {
    if (levels == 0) return;
    const S mid = std::midpoint(lo, hi);
    lines_[axis].push_back(mid);
    collect_lines(axis, lo, mid, levels - 1);
    collect_lines(axis, mid, hi, levels - 1);
  }

  V point_inside() {
    V p{};
    for (int i = 0; i < D; ++i) p[i] = at(i, rng_.real(0.0, 1.0));
    return p;
  }
  V split_point() {
    V p{};
    for (int i = 0; i < D; ++i) {
      const auto& lines = lines_[i];
      // The center lines most often: they are the ones every tree has.
      p[i] = rng_.chance(0.5) ? lines[0] : lines[rng_.index(lines.size())];
    }
    return p;
  }
  V boundary_point() {
    V p = point_inside();
    const int axis = rng_.integer(0, D - 1);
    p[axis] = rng_.chance(0.5) ? world_.min[axis] : world_.max[axis];
    if (rng_.chance(0.3))
      for (int i = 0; i < D; ++i) p[i] = rng_.chance(0.5) ? world_.min[i] : world_.max[i];
    return p;
  }
  V scene_point() {
    const double r = rng_.real(0, 1);
    if (scene_ == Scene::Touching) {
      V p{};
      for (int i = 0; i < D; ++i) p[i] = static_cast<S>(world_.min[i] + static_cast<S>(rng_.integer(-4, 132)));
      return p;
    }
    if (r < 0.6) return point_inside();
    if (r < 0.8) {
      V p = point_inside();
      const V s = split_point();
      for (int i = 0; i < D; ++i)
        if (rng_.chance(0.6)) p[i] = s[i];
      return p;
    }
    if (r < 0.9) return boundary_point();
    V p{};
    for (int i = 0; i < D; ++i) p[i] = at(i, rng_.real(-0.1, 1.1));
    return p;
  }

  B uniform_box(double max_half) {
    B b{};
    for (int i = 0; i < D; ++i) {
      const double c = static_cast<double>(world_.min[i]) + rng_.real(0.0, 1.0) * side_[i];
      const double half = rng_.chance(0.1) ? 0.0 : rng_.real(0.0, max_half * side_[i]);
      b.min[i] = static_cast<S>(c - half);
      b.max[i] = static_cast<S>(c + half);
    }
    return b;
  }
  B outside_box() {
    B b = uniform_box(0.05);
    const int axis = rng_.integer(0, D - 1);
    const double width = rng_.chance(0.2) ? 0.0 : rng_.real(0.0, 0.1 * side_[axis]);
    const double gap = rng_.chance(0.15) ? 0.0 : (rng_.chance(0.1) ? 10 * side_[axis] : rng_.real(0.0, side_[axis]));
    if (rng_.chance(0.5)) {
      const S start = static_cast<S>(world_.max[axis] + static_cast<S>(gap));
      b.min[axis] = start;  // gap 0: touches the world's face from outside
      b.max[axis] = static_cast<S>(start + static_cast<S>(width));
    } else {
      const S end = static_cast<S>(world_.min[axis] - static_cast<S>(gap));
      b.max[axis] = end;
      b.min[axis] = static_cast<S>(end - static_cast<S>(width));
    }
    return b;
  }
  B straddling_box() {
    B b = uniform_box(0.05);
    const int axis = rng_.integer(0, D - 1);
    const S face = rng_.chance(0.5) ? world_.min[axis] : world_.max[axis];
    const S half = static_cast<S>(rng_.real(0.01, 0.1) * side_[axis]);
    b.min[axis] = static_cast<S>(face - half);
    b.max[axis] = static_cast<S>(face + half);
    return b;
  }
  B grown_world(double by) {
    B b = world_;
    for (int i = 0; i < D; ++i) {
      b.min[i] = static_cast<S>(static_cast<double>(world_.min[i]) - by * side_[i] * rng_.real(0.0, 1.0));
      b.max[i] = static_cast<S>(static_cast<double>(world_.max[i]) + by * side_[i] * rng_.real(0.0, 1.0));
    }
    return b;
  }
  static B full_range() {
    B b{};
    for (int i = 0; i < D; ++i) {
      b.min[i] = std::numeric_limits<S>::lowest();
      b.max[i] = std::numeric_limits<S>::max();
    }
    return b;
  }
  B region_box() {
    B b{};
    for (int i = 0; i < D; ++i) {
      const double c = static_cast<double>(region_[i]) + rng_.real(-region_half_, region_half_);
      const double half = rng_.chance(0.5) ? 0.0 : rng_.real(0.0, region_half_ / 10);
      b.min[i] = static_cast<S>(c - half);
      b.max[i] = static_cast<S>(c + half);
    }
    return b;
  }
  // Integer boxes on a grid of 4 (sizes 0 to 12) around and across the world: faces coincide exactly, also on the
  // world's split lines (which are integers).
  B grid_box() {
    B b{};
    for (int i = 0; i < D; ++i) {
      const int lo = 4 * rng_.integer(-1, 32);
      const int size = rng_.chance(0.12) ? 0 : (rng_.chance(0.7) ? 4 * rng_.integer(1, 3) : rng_.integer(1, 12));
      b.min[i] = static_cast<S>(world_.min[i] + static_cast<S>(lo));
      b.max[i] = static_cast<S>(b.min[i] + static_cast<S>(size));
    }
    return b;
  }
  B random_query_box() {
    switch (scene_) {
      case Scene::Touching: {
        B b = grid_box();
        if (rng_.chance(0.3))
          for (int i = 0; i < D; ++i) b.max[i] = static_cast<S>(b.max[i] + S(16));
        return b;
      }
      case Scene::Clustered:
        if (rng_.chance(0.5)) {
          B b = region_box();
          for (int i = 0; i < D; ++i) {
            b.min[i] = static_cast<S>(b.min[i] - static_cast<S>(rng_.real(0.0, 3 * region_half_)));
            b.max[i] = static_cast<S>(b.max[i] + static_cast<S>(rng_.real(0.0, 3 * region_half_)));
          }
          return b;
        }
        return uniform_box(0.15);
      case Scene::Outside: return rng_.chance(0.4) ? outside_box() : uniform_box(0.2);
      default: return uniform_box(0.15);
    }
  }
  // A box sharing one face with b from outside (touching counts as overlap), or b's face itself.
  B touching_box(const B& b) {
    B q = b;
    const int axis = rng_.integer(0, D - 1);
    const S w = scene_ == Scene::Touching ? static_cast<S>(rng_.integer(0, 8))
                                          : static_cast<S>(rng_.real(0.0, 0.05) * side_[axis]);
    if (rng_.chance(0.5)) {
      q.min[axis] = b.max[axis];
      q.max[axis] = static_cast<S>(b.max[axis] + w);
    } else {
      q.max[axis] = b.min[axis];
      q.min[axis] = static_cast<S>(b.min[axis] - w);
    }
    // Shift the other axes a little so the query is not just the object's face.
    for (int i = 0; i < D; ++i) {
      if (i == axis || !rng_.chance(0.5)) continue;
      const S d = static_cast<S>(std::min(static_cast<double>(b.max[i] - b.min[i]), 0.01 * side_[i]));
      q.min[i] = static_cast<S>(q.min[i] + d);
      q.max[i] = static_cast<S>(q.max[i] + d);
    }
    return finite_box(q) ? q : b;
  }

  Scene scene_;
  B world_;
  Rng& rng_;
  std::array<double, D> side_{};
  double min_side_ = 0;
  std::array<std::vector<S>, D> lines_;
  V cluster_{}, region_{};
  double region_half_ = 0;
};

// ---- the random operation sequences ---------------------------------------------------------------------------

struct CaseParam {
  int dim;
  Scalar scalar;
  Placement placement;
  ConfigKind config;
  Scene scene;
};

std::string case_name(const CaseParam& p) {
  return "D" + std::to_string(p.dim) + (p.scalar == Scalar::Float ? "_float_" : "_double_") + name_of(p.placement) +
         "_" + name_of(p.config) + "_" + name_of(p.scene);
}
// GoogleTest prints a case's parameter with this (in failure messages and ctest names).
void PrintTo(const CaseParam& p, std::ostream* os) { *os << case_name(p); }

std::uint32_t case_seed(const CaseParam& p) {
  std::uint32_t k = static_cast<std::uint32_t>(p.dim - 2);
  k = k * 2 + (p.scalar == Scalar::Double ? 1u : 0u);
  k = k * 3 + static_cast<std::uint32_t>(p.placement);
  k = k * 8 + static_cast<std::uint32_t>(p.config);
  k = k * 6 + static_cast<std::uint32_t>(p.scene);
  return base_seed() + 7919u * (k + 1);
}

// Live objects a scene aims at: tens to a few hundred, so that brute force stays cheap.
std::size_t target_live(Scene s, int dim) {
  std::size_t n = 100;
  switch (s) {
    case Scene::Uniform: n = 120; break;
    case Scene::Outside: n = 100; break;
    case Scene::Huge: n = 70; break;
    case Scene::Points: n = 120; break;
    case Scene::Clustered: n = 160; break;
    case Scene::Touching: n = 120; break;
  }
  return dim == 3 ? n * 3 / 4 : n;
}

template <int D, class S>
class Fuzzer {
 public:
  using TreeT = Tree<D, Item, S>;
  using B = Box<D, S>;
  using V = Vec<D, S>;

  Fuzzer(const CaseParam& p, std::uint32_t seed)
      : rng_(seed),
        world_(SceneGen<D, S>::make_world(p.scene, rng_)),
        cfg_(make_config(p.config, world_, p.placement)),
        gen_(p.scene, world_, rng_),
        tree_(cfg_),
        other_(cfg_),
        target_(target_live(p.scene, D)) {
    // Another tree of the same type: its handles are foreign here (same indices and generations, other owner).
    for (int i = 0; i < 4; ++i) foreign_.push_back(other_.insert(gen_.object(), make_item(1000000 + i)));
  }

  void run(int operations) {
    SCOPED_TRACE("world " + str(cfg_.world) + ", max_depth " + std::to_string(cfg_.max_depth) + ", split_threshold " +
                 std::to_string(cfg_.split_threshold) + ", min_node_size " + std::to_string(cfg_.min_node_size));
    expect_valid(*tree_);
    check_structure(*tree_, oracle_, cfg_);
    copy_at_ = rng_.integer(operations / 4, operations / 2);
    clear_at_ = rng_.integer(operations / 2 + 1, operations * 2 / 3);
    assign_at_ = rng_.integer(operations * 2 / 3 + 1, operations * 5 / 6);
    for (op_ = 0; op_ < operations && !::testing::Test::HasFailure(); ++op_) step();
    if (::testing::Test::HasFailure()) return;
    SCOPED_TRACE("final checks after " + std::to_string(operations) + " operations");
    check_accessors(*tree_, oracle_);
    check_structure(*tree_, oracle_, cfg_);
    check_pairs(*tree_, oracle_, false);
    // Drain: erase everything, validating each time; an empty tree merges back to its root (full trees keep
    // every node).
    while (oracle_.size() > 0 && !::testing::Test::HasFailure()) do_erase();
    check_structure(*tree_, oracle_, cfg_);
    const std::size_t expected_nodes = cfg_.split_threshold == 0 ? full_tree_nodes<D>(oracle_levels(cfg_)) : 1;
    EXPECT_EQ(tree_->stats().nodes, expected_nodes) << "an empty tree keeps nodes it should have merged";
    check_query(*tree_, oracle_, full_box(), Form::HandleVoid);
  }

 private:
  enum class Op { Insert, Erase, Move, QueryBox, QueryPoint, Pairs, Value, BadInput, Stale, Clear, Assign, MoveMany };

  static B full_box() {
    B b{};
    for (int i = 0; i < D; ++i) {
      b.min[i] = std::numeric_limits<S>::lowest();
      b.max[i] = std::numeric_limits<S>::max();
    }
    return b;
  }

  Op choose() {
    const std::size_t n = oracle_.size();
    if (n == 0) return rng_.chance(0.9) ? Op::Insert : Op::QueryBox;
    const double pair_weight = n > 150 ? 1.0 : 2.0;
    const std::array<double, 12> weights = {
        n < target_ ? 40.0 : 9.0,  // insert
        n > target_ ? 25.0 : 9.0,  // erase
        26.0,                      // move
        15.0,                      // query box
        8.0,                       // query point
        pair_weight,               // for_each_pair
        2.0,                       // value
        1.0,                       // bad input
        1.5,                       // stale handles
        0.12,                      // clear
        0.25,                      // assign
        3.0,                       // move many
    };
    double total = 0;
    for (double w : weights) total += w;
    double r = rng_.real(0.0, total);
    for (std::size_t i = 0; i < weights.size(); ++i) {
      if (r < weights[i]) return static_cast<Op>(i);
      r -= weights[i];
    }
    return Op::QueryBox;
  }

  static const char* op_name(Op op) {
    switch (op) {
      case Op::Insert: return "insert";
      case Op::Erase: return "erase";
      case Op::Move: return "move";
      case Op::QueryBox: return "query(Box)";
      case Op::QueryPoint: return "query(Vec)";
      case Op::Pairs: return "for_each_pair";
      case Op::Value: return "value";
      case Op::BadInput: return "bad input";
      case Op::Stale: return "stale handles";
      case Op::Clear: return "clear";
      case Op::Assign: return "assign";
      case Op::MoveMany: return "move(handles, boxes)";
    }
    return "?";
  }

  void step() {
    if (op_ == copy_at_) {
      SCOPED_TRACE("operation " + std::to_string(op_) + ": copy");
      do_copy();
    }
    Op op = choose();
    if (op_ == clear_at_) op = Op::Clear;
    if (op_ == assign_at_) op = Op::Assign;
    SCOPED_TRACE("operation " + std::to_string(op_) + ": " + op_name(op) + " (" + std::to_string(oracle_.size()) +
                 " live)");
    switch (op) {
      case Op::Insert: do_insert(); break;
      case Op::Erase: do_erase(); break;
      case Op::Move: do_move(); break;
      case Op::QueryBox: do_query_box(); break;
      case Op::QueryPoint: do_query_point(); break;
      case Op::Pairs: do_pairs(); break;
      case Op::Value: do_value(); break;
      case Op::BadInput: do_bad_input(); break;
      case Op::Stale: do_stale(); break;
      case Op::Clear: do_clear(); break;
      case Op::Assign: do_assign(); break;
      case Op::MoveMany: do_move_many(); break;
    }
    if (op_ % 50 == 49) check_accessors(*tree_, oracle_);
    if (op_ % 100 == 99) check_structure(*tree_, oracle_, cfg_);
  }

  // After every mutation: the invariants, the size, the stats, and a node budget (for the most objects the tree
  // has held: emptied nodes may stay until their subtree is light enough to merge).
  void after_mutation() {
    expect_valid(*tree_);
    EXPECT_EQ(tree_->size(), oracle_.size());
    EXPECT_EQ(tree_->empty(), oracle_.size() == 0);
    const quadrant::Stats st = tree_->stats();
    EXPECT_EQ(st.objects, oracle_.size());
    peak_ = std::max(peak_, oracle_.size());
    EXPECT_LE(st.nodes, node_budget(cfg_, peak_))
        << "the tree grew to " << st.nodes << " nodes (" << st.references << " references) for " << oracle_.size()
        << " objects (at most " << peak_ << " so far): it refines where splitting separates nothing";
  }

  void note_stale(Handle h) {
    if (stale_.size() < 256) stale_.push_back(h);
    else stale_[rng_.index(stale_.size())] = h;
  }

  Handle pick_live() { return oracle_.objects()[rng_.index(oracle_.size())].handle; }

  void do_insert() {
    count_op();
    const B box = gen_.object();
    Item item = make_item(next_id_++);
    const Handle h = tree_->insert(box, item);
    SCOPED_TRACE("inserted #" + std::to_string(item.id) + " " + str(box));
    EXPECT_FALSE(h.is_null());
    EXPECT_EQ(oracle_.find(h), nullptr) << "insert returned the handle of a live object";
    EXPECT_TRUE(std::find(stale_.begin(), stale_.end(), h) == stale_.end())
        << "insert returned a handle equal to a stale one";
    EXPECT_TRUE(tree_->contains(h));
    if (tree_->contains(h)) {
      EXPECT_TRUE(same_box(tree_->bounds(h), box));
      EXPECT_TRUE(tree_->value(h) == item);
    }
    oracle_.add(h, box, std::move(item));
    after_mutation();
  }

  void do_erase() {
    count_op();
    const Handle h = pick_live();
    SCOPED_TRACE("erase #" + std::to_string(oracle_.find(h)->item.id) + " " + str(oracle_.find(h)->box));
    tree_->erase(h);
    oracle_.remove(h);
    note_stale(h);
    EXPECT_FALSE(tree_->contains(h)) << "an erased handle is still contained";
    after_mutation();
    if (rng_.chance(0.25)) expect_rejected(*tree_, h, gen_.object());
  }

  // The ids of the nodes listing h, and the shape of the whole tree (to tell a relocation from a restructure).
  std::vector<std::uint32_t> nodes_listing(Handle h) const {
    std::vector<std::uint32_t> ids;
    tree_->for_each_node([&](const NodeView<D, S>& v) {
      for (const auto& e : v.items)
        if (e.handle == h) {
          ids.push_back(v.id);
          break;
        }
    });
    std::sort(ids.begin(), ids.end());
    return ids;
  }
  std::vector<std::uint64_t> tree_shape() const {
    std::vector<std::uint64_t> shape;
    tree_->for_each_node([&](const NodeView<D, S>& v) {
      shape.push_back((std::uint64_t{v.id} << 33) | (std::uint64_t{v.parent} << 1) | (v.leaf ? 1u : 0u));
    });
    return shape;
  }

  void do_move() {
    count_op();
    const Handle h = pick_live();
    auto* o = oracle_.find(h);
    const double r = rng_.real(0, 1);
    const bool same = r < 0.15;
    const bool teleport = !same && r < 0.45;
    const B box = same ? o->box : (teleport ? gen_.object() : gen_.jitter(o->box));
    SCOPED_TRACE(std::string(same ? "move to the same box" : teleport ? "teleport" : "jitter") + " #" +
                 std::to_string(o->item.id) + " " + str(o->box) + " -> " + str(box));
    // Every 10th move: which nodes list the object, before and after (walks the whole tree).
    const bool sample = ++moves_ % 10 == 0;
    std::vector<std::uint32_t> nodes_before;
    std::vector<std::uint64_t> shape_before;
    if (sample) {
      nodes_before = nodes_listing(h);
      shape_before = tree_shape();
    }
    const bool moved = tree_->move(h, box);
    o->box = box;
    if (same) {
      EXPECT_FALSE(moved) << "moving to the same box must not change nodes";
    }
    if (sample) {
      const std::vector<std::uint32_t> nodes_after = nodes_listing(h);
      if (!moved) {
        EXPECT_TRUE(nodes_before == nodes_after) << "move returned false but the nodes listing the object changed";
      } else {
        EXPECT_TRUE(nodes_before != nodes_after || shape_before != tree_shape())
            << "move returned true but the object is listed by the same nodes of an unchanged tree";
      }
    }
    EXPECT_TRUE(tree_->contains(h));
    EXPECT_TRUE(same_box(tree_->bounds(h), box)) << "bounds after move: " << str(tree_->bounds(h));
    EXPECT_TRUE(tree_->value(h) == o->item) << "move changed the value";
    after_mutation();
  }

  // A batch of moves in one call: up to 40 objects (one may come twice: its last box wins), mostly small steps.
  // Same result as moving them one by one; the return value counts the objects whose nodes changed, at most one
  // per item.
  void do_move_many() {
    count_op();
    const std::size_t k = 1 + rng_.index(std::min<std::size_t>(oracle_.size(), 40));
    std::vector<Handle> handles;
    std::vector<B> boxes;
    for (std::size_t i = 0; i < k; ++i) {
      const Handle h = i > 0 && rng_.chance(0.05) ? handles[rng_.index(i)] : pick_live();
      const B& now = oracle_.find(h)->box;
      handles.push_back(h);
      boxes.push_back(rng_.chance(0.2) ? gen_.object() : gen_.jitter(now));
    }
    SCOPED_TRACE(std::to_string(k) + " objects");
    const std::size_t relocated = tree_->move(std::span<const Handle>(handles), std::span<const B>(boxes));
    EXPECT_LE(relocated, k);
    for (std::size_t i = 0; i < k; ++i) oracle_.find(handles[i])->box = boxes[i];
    for (std::size_t i = 0; i < k; ++i)
      EXPECT_TRUE(same_box(tree_->bounds(handles[i]), oracle_.find(handles[i])->box)) << "item " << i;
    after_mutation();
  }

  void do_query_box() {
    const B q = gen_.query_box(oracle_.objects());
    const Form form = kForms[rng_.index(kForms.size())];
    check_query(*tree_, oracle_, q, form);
    // Early stop, sampled: a bool callback returning false at the k-th hit.
    if (rng_.chance(0.25)) {
      const std::size_t expected = oracle_.expected_ids(q).size();
      const std::size_t k = expected == 0 ? 1 : 1 + rng_.index(expected + (rng_.chance(0.2) ? 1 : 0));
      check_query(*tree_, oracle_, q, rng_.chance(0.5) ? Form::HandleBool : Form::ValueBool, k);
    }
  }

  void do_query_point() {
    const V p = gen_.query_point(oracle_.objects());
    const Form form = kForms[rng_.index(kForms.size())];
    check_query(*tree_, oracle_, p, form);
    if (rng_.chance(0.2)) {
      const std::size_t expected = oracle_.expected_ids(p).size();
      const std::size_t k = expected == 0 ? 1 : 1 + rng_.index(expected);
      check_query(*tree_, oracle_, p, Form::HandleBool, k);
    }
  }

  void do_pairs() {
    check_pairs(*tree_, oracle_, rng_.chance(0.5));
    if (rng_.chance(0.3)) {
      const std::size_t expected = oracle_.expected_pairs().size();
      const std::size_t k = expected == 0 ? 1 : 1 + rng_.index(expected + 1);
      check_pairs(*tree_, oracle_, true, k);
    }
  }

  void do_value() {
    count_op();
    const Handle h = pick_live();
    auto* o = oracle_.find(h);
    o->item.name = "renamed " + std::to_string(op_) + (rng_.chance(0.5) ? " with a long enough tail to allocate" : "");
    tree_->value(h).name = o->item.name;
    EXPECT_TRUE(std::as_const(*tree_).value(h) == o->item);
    // The new value is what queries pass to their callbacks.
    check_query(*tree_, oracle_, o->box, Form::HandleBool);
  }

  // Invalid boxes and points are rejected with std::invalid_argument and change nothing.
  void do_bad_input() {
    count_op();
    const S nan = std::numeric_limits<S>::quiet_NaN();
    const S inf = std::numeric_limits<S>::infinity();
    B bad = gen_.object();
    const int axis = rng_.integer(0, D - 1);
    switch (rng_.integer(0, 3)) {
      case 0: bad.min[axis] = nan; break;
      case 1: bad.max[axis] = rng_.chance(0.5) ? inf : -inf; break;
      case 2: bad.min[axis] = S(1); bad.max[axis] = S(-1); break;  // min > max
      default: bad.max[axis] = nan; bad.min[axis] = -inf; break;
    }
    SCOPED_TRACE("bad box " + str(bad));
    const std::size_t before = tree_->size();
    EXPECT_THROW(tree_->insert(bad, make_item(next_id_)), std::invalid_argument);
    EXPECT_EQ(tree_->size(), before);
    if (oracle_.size() > 0) {
      const Handle h = pick_live();
      EXPECT_THROW(tree_->move(h, bad), std::invalid_argument);
      EXPECT_TRUE(same_box(tree_->bounds(h), oracle_.find(h)->box)) << "a rejected move changed the box";
    }
    if (rng_.chance(0.3)) {
      std::vector<std::pair<B, Item>> items;
      const std::size_t good = rng_.index(6);
      for (std::size_t k = 0; k < good; ++k) items.emplace_back(gen_.object(), make_item(next_id_ + 1 + k));
      items.insert(items.begin() + static_cast<std::ptrdiff_t>(rng_.index(good + 1)), {bad, make_item(next_id_)});
      try {
        tree_->assign(items);
        ADD_FAILURE() << "assign accepted a bad box";
      } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("(item "), std::string::npos) << e.what();
      }
      EXPECT_EQ(tree_->size(), before) << "a rejected assign changed the tree";
      check_query(*tree_, oracle_, full_box(), Form::HandleVoid);
    }
    if (oracle_.size() > 0 && rng_.chance(0.3)) {
      // A batch of moves with one bad item (a bad box, a stale or null handle) anywhere: rejected as a whole.
      std::vector<Handle> handles;
      std::vector<B> boxes;
      const std::size_t good = rng_.index(6);
      for (std::size_t k = 0; k < good; ++k) {
        handles.push_back(pick_live());
        boxes.push_back(gen_.object());
      }
      const std::size_t at = rng_.index(good + 1);
      const int kind = rng_.integer(0, 2);
      const Handle bad_handle = kind == 1 && !stale_.empty() ? stale_[rng_.index(stale_.size())]
                                : kind == 2                  ? Handle{}
                                                             : pick_live();
      handles.insert(handles.begin() + static_cast<std::ptrdiff_t>(at), bad_handle);
      boxes.insert(boxes.begin() + static_cast<std::ptrdiff_t>(at), kind == 0 ? bad : gen_.object());
      if (rng_.chance(0.15)) boxes.push_back(gen_.object());  // sizes differ
      try {
        tree_->move(std::span<const Handle>(handles), std::span<const B>(boxes));
        if (kind == 1 && stale_.empty() && handles.size() == boxes.size()) {  // no stale handle yet: all good
          for (std::size_t i = 0; i < handles.size(); ++i) oracle_.find(handles[i])->box = boxes[i];
        } else {
          ADD_FAILURE() << "move(handles, boxes) accepted a bad item";
        }
      } catch (const std::invalid_argument& e) {
        if (handles.size() == boxes.size()) {
          EXPECT_NE(std::string(e.what()).find("(item " + std::to_string(at) + ")"), std::string::npos) << e.what();
        }
      }
      check_query(*tree_, oracle_, full_box(), Form::HandleVoid);
      for (const auto& o : oracle_.objects())
        if (!same_box(tree_->bounds(o.handle), o.box)) {
          ADD_FAILURE() << "a rejected move(handles, boxes) changed a box";
          break;
        }
    }
    std::size_t calls = 0;
    EXPECT_THROW(tree_->query(bad, [&](const Item&) { ++calls; }), std::invalid_argument);
    V p = gen_.query_point(oracle_.objects());
    p[axis] = rng_.chance(0.5) ? nan : inf;
    EXPECT_THROW(tree_->query(p, [&](const Item&) { ++calls; }), std::invalid_argument);
    EXPECT_EQ(calls, 0u);
    after_mutation();
  }

  // Erased and cleared handles, the null handle and another tree's handles are all rejected.
  void do_stale() {
    const B box = gen_.object();
    if (!stale_.empty()) expect_rejected(*tree_, stale_[rng_.index(stale_.size())], box);
    expect_rejected(*tree_, Handle{}, box);
    expect_rejected(*tree_, foreign_[rng_.index(foreign_.size())], box);
    after_mutation();
  }

  void do_clear() {
    count_op();
    std::vector<Handle> was_live;
    for (const auto& o : oracle_.objects()) was_live.push_back(o.handle);
    tree_->clear();
    oracle_.clear();
    after_mutation();
    EXPECT_TRUE(tree_->empty());
    for (Handle h : was_live) {
      EXPECT_FALSE(tree_->contains(h)) << "a handle survived clear()";
      note_stale(h);
    }
    if (!was_live.empty()) expect_rejected(*tree_, was_live[rng_.index(was_live.size())], gen_.object());
    check_query(*tree_, oracle_, full_box(), Form::HandleVoid);
    check_pairs(*tree_, oracle_, false);
    const std::size_t expected_nodes = cfg_.split_threshold == 0 ? full_tree_nodes<D>(oracle_levels(cfg_)) : 1;
    EXPECT_EQ(tree_->stats().nodes, expected_nodes) << "clear() leaves a tree of the wrong size";
  }

  // The contents replaced by a bulk build: most of the live objects (their boxes and values) and new ones, in a
  // shuffled order. Each item gets a live handle to its own box and value, and every old handle goes stale.
  void do_assign() {
    count_op();
    std::vector<std::pair<B, Item>> items;
    std::vector<Handle> was_live;
    for (const auto& o : oracle_.objects()) {
      was_live.push_back(o.handle);
      if (rng_.chance(0.8)) items.emplace_back(o.box, o.item);
    }
    const std::size_t extra = rng_.index(target_ + 1);
    for (std::size_t k = 0; k < extra; ++k) items.emplace_back(gen_.object(), make_item(next_id_++));
    for (std::size_t k = items.size(); k > 1; --k) std::swap(items[k - 1], items[rng_.index(k)]);
    SCOPED_TRACE("assign of " + std::to_string(items.size()) + " items");
    std::vector<Handle> handles = {Handle{}};  // assign sets the size
    tree_->assign(items, handles);
    ASSERT_EQ(handles.size(), items.size());
    oracle_.clear();
    for (Handle h : was_live) note_stale(h);
    for (std::size_t i = 0; i < items.size(); ++i) {
      const Handle h = handles[i];
      ASSERT_TRUE(tree_->contains(h)) << "item " << i;
      EXPECT_EQ(oracle_.find(h), nullptr) << "assign gave two items the same handle";
      EXPECT_TRUE(same_box(tree_->bounds(h), items[i].first));
      EXPECT_TRUE(tree_->value(h) == items[i].second);
      oracle_.add(h, items[i].first, items[i].second);
    }
    for (Handle h : was_live) EXPECT_FALSE(tree_->contains(h)) << "a handle survived assign()";
    after_mutation();
    check_structure(*tree_, oracle_, cfg_);
    check_query(*tree_, oracle_, full_box(), Form::HandleVoid);
    check_pairs(*tree_, oracle_, false);
  }

  // A copy is independent of the original and refuses its handles (handle_at maps them by slot); continue with
  // it, copy-assigned into the tree under test, whose handles are then remapped the same way.
  void do_copy() {
    count_op();
    TreeT copy(*tree_);
    expect_valid(copy);
    // The oracle knows the original's handles, so the copy is checked by the values it reports.
    check_query(copy, oracle_, full_box(), Form::ValueBool);
    if (oracle_.size() == 0) return;
    const Handle h = pick_live();
    EXPECT_FALSE(copy.contains(h)) << "a copy accepted a handle of the original";
    const Handle hc = copy.handle_at(h.index());
    ASSERT_TRUE(copy.contains(hc));
    EXPECT_EQ(copy.value(hc).id, tree_->value(h).id);
    copy.erase(hc);
    expect_valid(copy);
    EXPECT_FALSE(copy.contains(hc));
    EXPECT_TRUE(tree_->contains(h)) << "erasing from a copy changed the original";
    expect_valid(*tree_);
    *tree_ = copy;
    EXPECT_FALSE(tree_->contains(h)) << "a copy-assigned tree accepted its old handles";
    oracle_.remove(h);
    note_stale(h);
    for (const auto& o : std::vector<typename Oracle<D, S>::Object>(oracle_.objects())) {
      const Handle mapped = tree_->handle_at(o.handle.index());
      ASSERT_TRUE(tree_->contains(mapped));
      EXPECT_EQ(tree_->value(mapped).id, o.item.id);
      note_stale(o.handle);
      oracle_.rebind(o.handle, mapped);
    }
    after_mutation();
    check_accessors(*tree_, oracle_);
  }

  Rng rng_;
  B world_;
  Config<D, S> cfg_;
  SceneGen<D, S> gen_;
  std::optional<TreeT> tree_;
  TreeT other_;
  Oracle<D, S> oracle_;
  std::vector<Handle> stale_, foreign_;
  std::size_t target_;
  std::uint64_t next_id_ = 1;
  std::uint64_t moves_ = 0;
  std::size_t peak_ = 0;
  int op_ = 0, clear_at_ = -1, copy_at_ = -1, assign_at_ = -1;
};

class OracleFuzz : public ::testing::TestWithParam<CaseParam> {};

// Operations per case; the matrix has 576 cases.
constexpr int kOperationsPerCase = 1000;

TEST_P(OracleFuzz, RandomOperations) {
  const CaseParam p = GetParam();
  const std::uint32_t seed = case_seed(p);
  SCOPED_TRACE("seed " + std::to_string(seed) + ", case " + case_name(p) +
               " (replay: --gtest_filter='*RandomOperations/" + case_name(p) + "')");
  if (p.dim == 2 && p.scalar == Scalar::Float) Fuzzer<2, float>(p, seed).run(kOperationsPerCase);
  if (p.dim == 2 && p.scalar == Scalar::Double) Fuzzer<2, double>(p, seed).run(kOperationsPerCase);
  if (p.dim == 3 && p.scalar == Scalar::Float) Fuzzer<3, float>(p, seed).run(kOperationsPerCase);
  if (p.dim == 3 && p.scalar == Scalar::Double) Fuzzer<3, double>(p, seed).run(kOperationsPerCase);
}

std::vector<CaseParam> all_cases() {
  std::vector<CaseParam> cases;
  for (int dim : {2, 3})
    for (Scalar scalar : {Scalar::Float, Scalar::Double})
      for (Placement placement : kPlacements)
        for (ConfigKind config : kConfigs)
          for (Scene scene : kScenes) cases.push_back(CaseParam{dim, scalar, placement, config, scene});
  return cases;
}

std::string param_name(const ::testing::TestParamInfo<CaseParam>& param) { return case_name(param.param); }

INSTANTIATE_TEST_SUITE_P(Matrix, OracleFuzz, ::testing::ValuesIn(all_cases()), param_name);

// ---- directed tests, typed over (D, S) ------------------------------------------------------------------------

template <int Dim, class Scalar_>
struct Space {
  static constexpr int dim = Dim;
  using scalar = Scalar_;
};

template <class Sp>
class OracleTyped : public ::testing::Test {
 protected:
  static constexpr int D = Sp::dim;
  using S = typename Sp::scalar;
  using B = Box<D, S>;
  using V = Vec<D, S>;
  using TreeT = Tree<D, Item, S>;

  static B cube(double lo, double hi) {
    B b{};
    for (int i = 0; i < D; ++i) {
      b.min[i] = static_cast<S>(lo);
      b.max[i] = static_cast<S>(hi);
    }
    return b;
  }
  static V point(double x) {
    V p{};
    for (int i = 0; i < D; ++i) p[i] = static_cast<S>(x);
    return p;
  }
  static Config<D, S> config(Placement placement, int max_depth, int threshold, double lo = -100, double hi = 100) {
    Config<D, S> c;
    c.world = cube(lo, hi);
    c.placement = placement;
    c.max_depth = max_depth;
    c.split_threshold = threshold;
    return c;
  }
  // Inserts into the tree and the oracle, validating.
  static Handle add(TreeT& tree, Oracle<D, S>& oracle, const B& box, std::uint64_t id) {
    count_op();
    const Handle h = tree.insert(box, make_item(id));
    oracle.add(h, box, make_item(id));
    return h;
  }
};

struct SpaceNames {
  template <class Sp>
  static std::string GetName(int) {
    return "D" + std::to_string(Sp::dim) + (std::is_same_v<typename Sp::scalar, float> ? "_float" : "_double");
  }
};

using Spaces = ::testing::Types<Space<2, float>, Space<2, double>, Space<3, float>, Space<3, double>>;
TYPED_TEST_SUITE(OracleTyped, Spaces, SpaceNames);

// Every callback form, on every placement, agrees with the oracle; so do both for_each_pair forms.
TYPED_TEST(OracleTyped, CallbackFormsAgreeWithOracle) {
  using T = TestFixture;
  for (Placement placement : kPlacements) {
    SCOPED_TRACE(name_of(placement));
    typename T::TreeT tree(T::config(placement, 8, 4));
    Oracle<T::D, typename T::S> oracle;
    Rng rng(77);
    SceneGen<T::D, typename T::S> gen(Scene::Uniform, tree.config().world, rng);
    for (std::uint64_t id = 1; id <= 150; ++id) T::add(tree, oracle, gen.object(), id);
    expect_valid(tree);
    for (int q = 0; q < 40; ++q) {
      const auto box = gen.query_box(oracle.objects());
      const auto p = gen.query_point(oracle.objects());
      for (Form form : kForms) {
        check_query(tree, oracle, box, form);
        check_query(tree, oracle, p, form);
      }
      // A generic lambda binds to the (Handle, const T&) form.
      std::vector<std::uint64_t> got;
      tree.query(box, [&](auto handle, const auto& item) {
        static_assert(std::is_same_v<decltype(handle), Handle>);
        got.push_back(item.id);
      });
      std::sort(got.begin(), got.end());
      EXPECT_TRUE(got == oracle.expected_ids(box)) << difference(oracle, oracle.expected_ids(box), got);
    }
    check_pairs(tree, oracle, false);
    check_pairs(tree, oracle, true);
  }
}

// A callback returning false after k hits gets exactly k calls, for queries and pairs, on every placement.
TYPED_TEST(OracleTyped, EarlyStopGetsExactlyKCalls) {
  using T = TestFixture;
  for (Placement placement : kPlacements)
    for (int threshold : {0, 1, 8}) {
      SCOPED_TRACE(std::string(name_of(placement)) + ", split_threshold " + std::to_string(threshold));
      typename T::TreeT tree(T::config(placement, threshold == 0 ? 3 : 8, threshold));
      Oracle<T::D, typename T::S> oracle;
      Rng rng(4242u + static_cast<std::uint32_t>(threshold));
      SceneGen<T::D, typename T::S> gen(Scene::Uniform, tree.config().world, rng);
      std::uint64_t id = 1;
      // 30 objects on one point on the split lines, 30 around it, 30 anywhere.
      for (int i = 0; i < 30; ++i) T::add(tree, oracle, typename T::B{T::point(0), T::point(0)}, id++);
      for (int i = 0; i < 30; ++i) T::add(tree, oracle, T::cube(rng.real(-20, 0), rng.real(0, 20)), id++);
      for (int i = 0; i < 30; ++i) T::add(tree, oracle, gen.object(), id++);
      expect_valid(tree);
      const auto q = T::cube(-5, 5);
      const std::size_t hits = oracle.expected_ids(q).size();
      ASSERT_GE(hits, 60u);
      for (std::size_t k = 1; k <= hits + 1; ++k) {
        check_query(tree, oracle, q, Form::HandleBool, k);
        check_query(tree, oracle, T::point(0), Form::ValueBool, k);
      }
      const std::size_t pairs = oracle.expected_pairs().size();
      for (std::size_t k : {std::size_t{1}, std::size_t{2}, std::size_t{3}, pairs / 3, pairs / 2, pairs - 1, pairs,
                            pairs + 1})
        check_pairs(tree, oracle, true, k);
    }
}

// split_threshold 0 builds the full tree at construction: depth 20 would need more than 2^31 nodes and is refused;
// min_node_size cuts the full tree short, and the tree then has every node down to that depth.
TYPED_TEST(OracleTyped, FullTreeSizeLimits) {
  using T = TestFixture;
  for (Placement placement : kPlacements) {
    SCOPED_TRACE(name_of(placement));
    EXPECT_THROW(typename T::TreeT(T::config(placement, 20, 0)), std::invalid_argument);
    // The largest full trees the tests build: depth 6 in 2D, 4 in 3D, reached through min_node_size.
    const int levels = T::D == 2 ? 6 : 4;
    auto c = T::config(placement, 20, 0);
    c.min_node_size = static_cast<typename T::S>(T::D == 2 ? 200.0 / 80 : 200.0 / 20);  // 200 / 2^levels passes
    typename T::TreeT tree(c);
    expect_valid(tree);
    EXPECT_EQ(oracle_levels(c), levels);
    EXPECT_EQ(tree.stats().nodes, full_tree_nodes<T::D>(levels));
    EXPECT_EQ(tree.stats().depth, levels);
    Oracle<T::D, typename T::S> oracle;
    Rng rng(99);
    SceneGen<T::D, typename T::S> gen(Scene::Uniform, c.world, rng);
    for (std::uint64_t id = 1; id <= 60; ++id) T::add(tree, oracle, gen.object(), id);
    expect_valid(tree);
    check_structure(tree, oracle, c);
    check_pairs(tree, oracle, false);
  }
}

// Hundreds of objects on exactly one point (on the world's split lines, and off them) are all kept and found,
// at max_depth 20 with split_threshold 1, in a full tree, and at depth 0.
TYPED_TEST(OracleTyped, HundredsOnOnePoint) {
  using T = TestFixture;
  const int per_point = T::D == 2 ? 300 : 200;
  for (Placement placement : kPlacements)
    for (int variant = 0; variant < 3; ++variant) {
      SCOPED_TRACE(std::string(name_of(placement)) + ", variant " + std::to_string(variant));
      const auto c = variant == 0 ? T::config(placement, 20, 1)
                                  : variant == 1 ? T::config(placement, T::D == 2 ? 5 : 3, 0)
                                                 : T::config(placement, 0, 8);
      typename T::TreeT tree(c);
      Oracle<T::D, typename T::S> oracle;
      const auto on_lines = T::point(0);  // the center of the world: on every axis' first split line
      auto off_lines = T::point(37.25);
      off_lines[0] = static_cast<typename T::S>(-50);  // on one split line only
      std::uint64_t id = 1;
      for (int i = 0; i < per_point; ++i) {
        T::add(tree, oracle, typename T::B{on_lines, on_lines}, id++);
        T::add(tree, oracle, typename T::B{off_lines, off_lines}, id++);
        if (i % 25 == 0) expect_valid(tree);
      }
      // A few small boxes with a corner on the point (small: under Placement::Leaves at depth 20 every edge
      // inside an overlap of more than split_threshold boxes is refined down to max_depth).
      for (int i = 0; i < 10; ++i) T::add(tree, oracle, typename T::B{on_lines, T::point(0.001 * (1 + i))}, id++);
      expect_valid(tree);
      check_query(tree, oracle, on_lines, Form::HandleVoid);
      check_query(tree, oracle, off_lines, Form::HandleVoid);
      check_query(tree, oracle, typename T::B{off_lines, off_lines}, Form::ValueVoid);
      check_query(tree, oracle, T::cube(-1, 0), Form::HandleVoid);  // touches the point with its max corner
      check_query(tree, oracle, T::cube(0.005, 3), Form::HandleVoid);
      check_pairs(tree, oracle, false);
      check_structure(tree, oracle, c);
      EXPECT_LE(tree.stats().nodes, node_budget(c, oracle.size()));
      // Spread half of them to points near the first one, then erase everything.
      Rng rng(5);
      std::vector<Handle> handles;
      for (const auto& o : oracle.objects()) handles.push_back(o.handle);
      for (std::size_t i = 0; i < handles.size(); i += 2) {
        count_op();
        typename T::V p{};
        for (int k = 0; k < T::D; ++k) p[k] = static_cast<typename T::S>(rng.integer(-8, 8) * 0.125);
        const typename T::B b{p, p};
        tree.move(handles[i], b);
        oracle.find(handles[i])->box = b;
        if (i % 20 == 0) expect_valid(tree);
      }
      expect_valid(tree);
      check_query(tree, oracle, on_lines, Form::HandleVoid);
      check_pairs(tree, oracle, true);
      for (Handle h : handles) {
        count_op();
        tree.erase(h);
        oracle.remove(h);
        if (oracle.size() % 20 == 0) expect_valid(tree);
      }
      EXPECT_TRUE(tree.empty());
      EXPECT_EQ(tree.stats().nodes, c.split_threshold == 0 ? full_tree_nodes<T::D>(oracle_levels(c)) : 1u);
    }
}

// Unit boxes tiling the world exactly: faces coincide, many on the world's split lines. Touching counts, so each box
// overlaps its 3^D - 1 neighbours; grid points lie in up to 2^D boxes. Then every box shifts by one along x.
TYPED_TEST(OracleTyped, TouchingGridOnSplitLines) {
  using T = TestFixture;
  const int half = T::D == 2 ? 8 : 4;
  for (Placement placement : kPlacements)
    for (int threshold : {0, 1, 8}) {
      SCOPED_TRACE(std::string(name_of(placement)) + ", split_threshold " + std::to_string(threshold));
      const auto c = T::config(placement, threshold == 0 ? 3 : 8, threshold, -half, half);
      typename T::TreeT tree(c);
      Oracle<T::D, typename T::S> oracle;
      std::uint64_t id = 1;
      const int cells = 2 * half;
      int total = 1;
      for (int i = 0; i < T::D; ++i) total *= cells;
      for (int k = 0; k < total; ++k) {
        typename T::B b{};
        int rest = k;
        for (int i = 0; i < T::D; ++i, rest /= cells) {
          b.min[i] = static_cast<typename T::S>(-half + rest % cells);
          b.max[i] = static_cast<typename T::S>(b.min[i] + 1);
        }
        T::add(tree, oracle, b, id++);
      }
      expect_valid(tree);
      EXPECT_LE(tree.stats().nodes, node_budget(c, oracle.size()));
      check_pairs(tree, oracle, false);
      // King's-move neighbours: ((3n - 2)^D - n^D) / 2 unordered pairs for n cells per axis.
      std::size_t line = 1, self = 1;
      for (int i = 0; i < T::D; ++i) {
        line *= static_cast<std::size_t>(3 * cells - 2);
        self *= static_cast<std::size_t>(cells);
      }
      EXPECT_EQ(oracle.expected_pairs().size(), (line - self) / 2) << "the oracle itself miscounts touching pairs";
      Rng rng(3);
      for (int q = 0; q < 150; ++q) {
        typename T::V p{};
        for (int i = 0; i < T::D; ++i) p[i] = static_cast<typename T::S>(rng.integer(-half - 1, half + 1));
        check_query(tree, oracle, p, Form::HandleVoid);
        const auto& o = oracle.objects()[rng.index(oracle.size())];
        check_query(tree, oracle, o.box, Form::ValueVoid);
      }
      // Shift every box by +1 along x: the last column leaves the world (into its upper face and beyond).
      for (const auto& o : std::vector<typename Oracle<T::D, typename T::S>::Object>(oracle.objects())) {
        count_op();
        auto b = o.box;
        b.min[0] = static_cast<typename T::S>(b.min[0] + 1);
        b.max[0] = static_cast<typename T::S>(b.max[0] + 1);
        tree.move(o.handle, b);
        oracle.find(o.handle)->box = b;
      }
      expect_valid(tree);
      EXPECT_LE(tree.stats().nodes, node_budget(c, oracle.size()));
      check_structure(tree, oracle, c);
      check_pairs(tree, oracle, true);
      for (int q = 0; q < 100; ++q) {
        typename T::V p{};
        for (int i = 0; i < T::D; ++i) p[i] = static_cast<typename T::S>(rng.integer(-half - 1, half + 2));
        check_query(tree, oracle, p, Form::HandleBool);
      }
    }
}

// Three boxes that only touch a cell with a face: their top faces lie on the world's center line (so they touch the
// cells above it), or they lie wholly outside the world (so their boxes clamped into the world lie on its face).
// No split can ever separate them there, so the tree must not keep splitting: at most node_budget nodes. Queries and
// pairs stay exact.
TYPED_TEST(OracleTyped, LeavesObjectsTouchingACellFaceDoNotRefineToMaxDepth) {
  using T = TestFixture;
  for (Placement placement : kPlacements)
    for (bool outside : {false, true}) {
      SCOPED_TRACE(std::string(name_of(placement)) +
                   (outside ? ", boxes outside the world" : ", boxes touching y = 0"));
      auto c = T::config(placement, T::D == 2 ? 12 : 8, 2);
      typename T::TreeT tree(c);
      Oracle<T::D, typename T::S> oracle;
      for (int i = 0; i < 3; ++i) {
        auto b = T::cube(-80, -20);
        b.min[1] = static_cast<typename T::S>(-40 + 5 * i);
        b.max[1] = 0;  // the world's center line
        if (outside) {
          b.min[0] = static_cast<typename T::S>(150 + 10 * i);
          b.max[0] = 200;
        }
        T::add(tree, oracle, b, static_cast<std::uint64_t>(i + 1));
        expect_valid(tree);
      }
      const quadrant::Stats st = tree.stats();
      EXPECT_LE(st.nodes, node_budget(c, 3)) << "3 objects take " << st.nodes << " nodes and " << st.references
                                              << " references";
      check_pairs(tree, oracle, false);
      check_query(tree, oracle, T::cube(-50, 0), Form::HandleVoid);
      check_query(tree, oracle, T::point(0), Form::HandleVoid);
      check_query(tree, oracle, T::cube(100, 160), Form::HandleVoid);
      check_structure(tree, oracle, c);
    }
}

// Handles go stale on erase and on clear and stay stale after their slots are reused; new handles work.
TYPED_TEST(OracleTyped, StaleHandlesAfterEraseClearAndReuse) {
  using T = TestFixture;
  for (Placement placement : kPlacements) {
    SCOPED_TRACE(name_of(placement));
    typename T::TreeT tree(T::config(placement, 8, 2));
    Oracle<T::D, typename T::S> oracle;
    Rng rng(11);
    SceneGen<T::D, typename T::S> gen(Scene::Uniform, tree.config().world, rng);
    std::uint64_t id = 1;
    std::vector<Handle> stale;
    for (int round = 0; round < 3; ++round) {
      for (int i = 0; i < 60; ++i) T::add(tree, oracle, gen.object(), id++);
      for (int i = 0; i < 20; ++i) {
        count_op();
        const Handle h = oracle.objects()[rng.index(oracle.size())].handle;
        tree.erase(h);
        oracle.remove(h);
        stale.push_back(h);
      }
      expect_valid(tree);
      for (int i = 0; i < 20; ++i) T::add(tree, oracle, gen.object(), id++);  // reuses the freed slots
      for (Handle h : stale) expect_rejected(tree, h, gen.object());
      check_accessors(tree, oracle);
      check_query(tree, oracle, T::cube(-1000, 1000), Form::HandleVoid);
      for (const auto& o : oracle.objects()) stale.push_back(o.handle);
      tree.clear();
      oracle.clear();
      expect_valid(tree);
      EXPECT_TRUE(tree.empty());
      for (Handle h : stale) expect_rejected(tree, h, gen.object());
    }
  }
}

}  // namespace

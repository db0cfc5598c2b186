// SPDX-License-Identifier: MIT
// svg.hpp: the documents are well-formed XML (checked by Python's parser when python3 is on PATH, and structurally
// here), element counts match what was drawn (counted from the tree, never hard-coded), text and attributes are
// escaped and round-trip, world coordinates land where the documented transform puts them (y up), bad input throws
// and adds nothing, save reports unwritable paths. One picture with every shape is written to the working directory
// (the build's tests dir under ctest) and converted to PNG when rsvg-convert is on PATH.
#include <quadrant/quadrant.hpp>
#include <quadrant/svg.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <numbers>
#include <random>
#include <sstream>
#include <string>
#include <vector>

using namespace quadrant;

namespace {

// One element of the document: its tag and attributes (values still escaped), and the raw text after its start tag.
struct Tag {
  std::string name;
  std::map<std::string, std::string> attrs;
  std::string text;
};

// A small scanner for the subset the canvas writes: start tags with double-quoted attributes, self-closing or
// followed by text and an end tag. Fails the test on anything else (unbalanced quotes, a stray '<').
std::vector<Tag> scan(const std::string& doc) {
  std::vector<Tag> tags;
  std::size_t i = 0;
  while ((i = doc.find('<', i)) != std::string::npos) {
    if (doc.compare(i, 2, "<?") == 0 || doc.compare(i, 2, "</") == 0) {
      i = doc.find('>', i);
      EXPECT_NE(i, std::string::npos);
      continue;
    }
    Tag t;
    std::size_t j = i + 1;
    while (j < doc.size() && (std::isalnum(static_cast<unsigned char>(doc[j])) != 0)) t.name += doc[j++];
    for (;;) {
      while (j < doc.size() && doc[j] == ' ') ++j;
      if (j >= doc.size()) {
        ADD_FAILURE() << "unterminated tag " << t.name;
        return tags;
      }
      if (doc[j] == '/' || doc[j] == '>') break;
      const std::size_t eq = doc.find("=\"", j), close = doc.find('"', eq + 2);
      EXPECT_TRUE(eq != std::string::npos && close != std::string::npos) << "bad attribute in " << t.name;
      const std::string value = doc.substr(eq + 2, close - eq - 2);
      EXPECT_EQ(value.find('<'), std::string::npos) << "unescaped < in an attribute";
      t.attrs[doc.substr(j, eq - j)] = value;
      j = close + 1;
    }
    if (doc[j] == '>') t.text = doc.substr(j + 1, doc.find('<', j) - j - 1);
    tags.push_back(t);
    i = j;
  }
  return tags;
}

std::size_t count(const std::vector<Tag>& tags, const std::string& name, const std::string& cls) {
  std::size_t n = 0;
  for (const Tag& t : tags) {
    const bool has_class = cls.empty() || (t.attrs.count("class") != 0 && t.attrs.at("class") == cls);
    if ((name.empty() || t.name == name) && has_class) ++n;
  }
  return n;
}

double attr(const Tag& t, const std::string& name) {
  EXPECT_EQ(t.attrs.count(name), 1u) << t.name << " has no " << name;
  return t.attrs.count(name) != 0 ? std::stod(t.attrs.at(name)) : std::numeric_limits<double>::quiet_NaN();
}

bool on_path(const char* program) {
  return std::system((std::string("command -v ") + program + " >/dev/null 2>&1").c_str()) == 0;
}

std::string temp_file(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("quadrant_test_svg_" + name)).string();
}

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Saves the canvas and parses it with Python's XML parser; false (with a failure) when the parser rejects it.
void expect_parses(const SvgCanvas& canvas, const std::string& name) {
  const std::string file = temp_file(name + ".svg");
  canvas.save(file);
  if (!on_path("python3")) return;  // the C++ scan still ran in the callers
  const std::string cmd =
      "python3 -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' '" + file + "'";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << "python's XML parser rejected " << file;
}

// Checks the root element the way a viewer needs it.
void expect_root(const std::vector<Tag>& tags, const SvgCanvas& canvas) {
  ASSERT_FALSE(tags.empty());
  const Tag& root = tags.front();
  EXPECT_EQ(root.name, "svg");
  EXPECT_EQ(root.attrs.at("xmlns"), "http://www.w3.org/2000/svg");
  EXPECT_DOUBLE_EQ(attr(root, "width"), canvas.width_px());
  EXPECT_DOUBLE_EQ(attr(root, "height"), canvas.height_px());
  ASSERT_EQ(root.attrs.count("viewBox"), 1u);
  std::istringstream vb(root.attrs.at("viewBox"));
  double x = -1, y = -1, w = -1, h = -1;
  vb >> x >> y >> w >> h;
  EXPECT_EQ(x, 0);
  EXPECT_EQ(y, 0);
  EXPECT_DOUBLE_EQ(w, canvas.width_px());
  EXPECT_DOUBLE_EQ(h, canvas.height_px());
}

QuadTree<int> random_tree(Placement placement, unsigned seed, int objects) {
  QuadTree<int> tree(Config<2>{{{0, 0}, {100, 100}}, 5, 4, 0, placement});
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> pos(0, 96), size(0.5f, 6);
  for (int i = 0; i < objects; ++i) {
    const float x = pos(rng), y = pos(rng);
    tree.insert({{x, y}, {x + size(rng), y + size(rng)}}, i);
  }
  return tree;
}

}  // namespace

TEST(Svg, DocumentIsWellFormedWithRoot) {
  SvgCanvas canvas(Box<2, double>{{-5, -5}, {15, 5}}, 400, 10);
  EXPECT_DOUBLE_EQ(canvas.scale(), 380.0 / 20);
  EXPECT_DOUBLE_EQ(canvas.height_px(), 20 + 10 * canvas.scale());
  canvas.rect(Box2{{0, 0}, {1, 1}});
  canvas.line(Vec2{0, 0}, Vec2{1, 1});
  const auto tags = scan(canvas.str());
  expect_root(tags, canvas);
  EXPECT_EQ(canvas.str().rfind("<?xml", 0), 0u);
  EXPECT_EQ(count(tags, "rect", "background"), 1u);
  EXPECT_EQ(count(tags, "line", ""), 1u);
  expect_parses(canvas, "root");
}

TEST(Svg, DrawTreeCountsMatchTheTree) {
  for (Placement placement : {Placement::Loose, Placement::Parent, Placement::Leaves}) {
    SCOPED_TRACE(to_string(placement));
    const QuadTree<int> tree = random_tree(placement, 11, 80);
    std::size_t nodes = 0, entries = 0;
    int deepest = 0;
    tree.for_each_node([&](const NodeView<2, float>& n) {
      ++nodes;
      entries += n.items.size();
      deepest = std::max(deepest, n.depth);
    });
    ASSERT_GT(nodes, 1u);
    SvgCanvas canvas(tree.config().world, 600);
    draw_tree(canvas, tree, TreeDrawing{true, true, true, true, true, 0.35});
    const auto tags = scan(canvas.str());
    expect_root(tags, canvas);
    EXPECT_EQ(count(tags, "rect", "cell"), nodes);
    EXPECT_EQ(count(tags, "rect", "object"), tree.size());
    // Owner lines: one per entry; Leaves lists a straddler in every leaf it touches, the others once.
    EXPECT_EQ(count(tags, "line", "owner"), entries);
    if (placement != Placement::Leaves) {
      EXPECT_EQ(entries, tree.size());
    }
    // Bounds are clipped to the picture, never dropped for a node whose bounds meet it (all of them do here).
    EXPECT_EQ(count(tags, "rect", "bounds"), nodes);
    // Legend: a panel, then one swatch and one label per depth present.
    EXPECT_EQ(count(tags, "rect", "legend"), std::size_t(deepest) + 2);
    EXPECT_EQ(count(tags, "text", "legend"), std::size_t(deepest) + 1);
    // Leaves are filled with their depth's colour, inner nodes only outlined.
    std::size_t filled = 0;
    for (const Tag& t : tags)
      if (t.attrs.count("class") != 0 && t.attrs.at("class") == "cell" && t.attrs.at("fill") != "none") ++filled;
    EXPECT_EQ(filled, tree.stats().leaves);
    expect_parses(canvas, "tree");

    // Nothing asked for, nothing drawn (but the background).
    SvgCanvas empty(tree.config().world, 300);
    draw_tree(empty, tree, TreeDrawing{false, false, false, false, false, 0.35});
    EXPECT_EQ(scan(empty.str()).size(), 2u);
  }
}

TEST(Svg, DrawObjectsDrawsWhatThePredicatePicks) {
  const QuadTree<int> tree = random_tree(Placement::Loose, 5, 50);
  SvgCanvas canvas(tree.config().world, 500);
  std::size_t even = 0;
  tree.for_each([&](Handle, const int& v, const Box2&) { even += v % 2 == 0 ? 1 : 0; });
  draw_objects(canvas, tree, [](Handle, const int& v) { return v % 2 == 0; });
  const auto tags = scan(canvas.str());
  EXPECT_EQ(count(tags, "rect", "highlight"), even);
  for (const Tag& t : tags)
    if (t.name == "rect" && t.attrs.at("class") == "highlight") {
      EXPECT_EQ(t.attrs.at("stroke"), "#d62728");
    }
}

TEST(Svg, TextAndAttributesAreEscapedAndRoundTrip) {
  SvgCanvas canvas(Box<2, double>{{0, 0}, {10, 10}}, 200);
  const std::string content = "a<b & \"c\" 'd' > e";
  canvas.text(Vec2{1, 1}, content, 14);
  canvas.rect(Box2{{1, 1}, {2, 2}}, {"none", "#000", 1, 1, "", "k\"<&'>"});
  const std::string doc = canvas.str();
  EXPECT_EQ(doc.find(content), std::string::npos);
  const auto tags = scan(doc);
  ASSERT_EQ(count(tags, "text", ""), 1u);
  if (!on_path("python3")) GTEST_SKIP() << "python3 is not on PATH: the XML round trip cannot be checked";
  const std::string svg = temp_file("escape.svg"), out = temp_file("escape.txt");
  canvas.save(svg);
  const std::string cmd =
      "python3 -c 'import sys, xml.etree.ElementTree as E\n"
      "ns = \"{http://www.w3.org/2000/svg}\"\n"
      "t = E.parse(sys.argv[1])\n"
      "text = next(t.iter(ns + \"text\")).text\n"
      "cls = [r.get(\"class\") for r in t.iter(ns + \"rect\")][-1]\n"
      "open(sys.argv[2], \"w\", encoding=\"utf-8\").write(text + \"\\n\" + cls)' '" + svg + "' '" + out + "'";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  EXPECT_EQ(read_all(out), content + "\nk\"<&'>");
}

TEST(Svg, WorldCoordinatesMapToPixelsWithYUp) {
  const double width = 1000, margin = 20;
  SvgCanvas canvas(Box<2, double>{{0, 0}, {100, 100}}, width, margin);
  const double s = (width - 2 * margin) / 100;  // the documented transform
  ASSERT_DOUBLE_EQ(canvas.scale(), s);
  canvas.rect(Box<2, double>{{0, 0}, {10, 10}});
  canvas.line(Vec<2, double>{0, 100}, Vec<2, double>{100, 0});
  canvas.circle(Vec<2, double>{50, 25}, 5);
  canvas.shape(Ellipse<double>{{50, 50}, {10, 4}, std::numbers::pi / 6});
  canvas.shape(Sector<double>{{30, 70}, {0, 1}, 10, 0});        // a segment straight up
  canvas.shape(Sector<double>{{30, 70}, {1, 0}, 10, std::numbers::pi / 4});
  canvas.shape(Sector<double>{{30, 70}, {1, 0}, 10, std::numbers::pi});
  canvas.shape(Ring<double>{{70, 70}, 0, 8});
  canvas.shape(Ring<double>{{70, 70}, 3, 8});
  const auto tags = scan(canvas.str());
  expect_root(tags, canvas);
  std::vector<const Tag*> rects, lines, paths;
  for (const Tag& t : tags) {
    if (t.name == "rect" && t.attrs.count("class") == 0) rects.push_back(&t);
    if (t.name == "line") lines.push_back(&t);
    if (t.name == "path") paths.push_back(&t);
  }
  ASSERT_EQ(rects.size(), 1u);
  // The rect's top-left corner is world (0, 10): x = margin, y = margin + (100 - 10) * s.
  EXPECT_NEAR(attr(*rects[0], "x"), margin, 1e-9);
  EXPECT_NEAR(attr(*rects[0], "y"), margin + 90 * s, 1e-9);
  EXPECT_NEAR(attr(*rects[0], "width"), 10 * s, 1e-9);
  EXPECT_NEAR(attr(*rects[0], "height"), 10 * s, 1e-9);
  // World top-left (0, 100) is the picture's top-left.
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_NEAR(attr(*lines[0], "x1"), margin, 1e-9);
  EXPECT_NEAR(attr(*lines[0], "y1"), margin, 1e-9);
  EXPECT_NEAR(attr(*lines[0], "x2"), margin + 100 * s, 1e-9);
  EXPECT_NEAR(attr(*lines[0], "y2"), margin + 100 * s, 1e-9);
  // The zero-angle sector is a line going up the picture (pixel y shrinks).
  EXPECT_NEAR(attr(*lines[1], "y2"), attr(*lines[1], "y1") - 10 * s, 1e-9);
  const Tag* circle = nullptr;
  const Tag* ellipse = nullptr;
  for (const Tag& t : tags) {
    if (t.name == "circle") circle = &t;
    if (t.name == "ellipse") ellipse = &t;
  }
  ASSERT_TRUE(circle != nullptr && ellipse != nullptr);
  EXPECT_NEAR(attr(*circle, "cx"), margin + 50 * s, 1e-9);
  EXPECT_NEAR(attr(*circle, "cy"), margin + 75 * s, 1e-9);
  EXPECT_NEAR(attr(*circle, "r"), 5 * s, 1e-9);
  EXPECT_NEAR(attr(*ellipse, "rx"), 10 * s, 1e-9);
  // Counter-clockwise in the world is a negative SVG rotation (SVG's y points down).
  EXPECT_EQ(ellipse->attrs.at("transform").rfind("rotate(-30 ", 0), 0u) << ellipse->attrs.at("transform");
  ASSERT_EQ(paths.size(), 4u);
  // The quarter fan: apex, then the rim point at -45 degrees (below the axis: larger pixel y), small arc, sweep 0.
  std::istringstream fan(paths[0]->attrs.at("d"));
  std::string m, l, a;
  double ax = 0, ay = 0, fx = 0, fy = 0, rx = 0, ry = 0, rot = -1, large = -1, sweep = -1, tx = 0, ty = 0;
  fan >> m >> ax >> ay >> l >> fx >> fy >> a >> rx >> ry >> rot >> large >> sweep >> tx >> ty;
  EXPECT_EQ(m + l + a, "MLA");
  EXPECT_NEAR(ax, margin + 30 * s, 1e-9);
  EXPECT_NEAR(ay, margin + 30 * s, 1e-9);
  EXPECT_NEAR(fx, ax + 10 * s * std::cos(std::numbers::pi / 4), 1e-6);
  EXPECT_NEAR(fy, ay + 10 * s * std::sin(std::numbers::pi / 4), 1e-6);
  EXPECT_NEAR(ty, ay - 10 * s * std::sin(std::numbers::pi / 4), 1e-6);
  EXPECT_EQ(large, 0);
  EXPECT_EQ(sweep, 0);
  // The half-turn fan is the full disc: two arcs, no apex segment.
  EXPECT_EQ(paths[1]->attrs.at("d").find('L'), std::string::npos);
  // Rings are even-odd paths: one circle (two arcs) without a hole, two circles with one.
  EXPECT_EQ(paths[2]->attrs.at("fill-rule"), "evenodd");
  EXPECT_EQ(std::count(paths[2]->attrs.at("d").begin(), paths[2]->attrs.at("d").end(), 'M'), 1);
  EXPECT_EQ(std::count(paths[3]->attrs.at("d").begin(), paths[3]->attrs.at("d").end(), 'M'), 2);
  expect_parses(canvas, "coords");
}

TEST(Svg, NonFiniteInputThrowsAndAddsNothing) {
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  using B = Box<2, double>;
  using V = Vec<2, double>;
  EXPECT_THROW(SvgCanvas(B{{0, 0}, {nan, 1}}), std::invalid_argument);
  EXPECT_THROW(SvgCanvas(B{{0, 0}, {inf, 1}}), std::invalid_argument);
  EXPECT_THROW(SvgCanvas(B{{0, 0}, {0, 1}}), std::invalid_argument);  // empty view
  EXPECT_THROW(SvgCanvas(B{{0, 0}, {1, 1}}, nan), std::invalid_argument);
  EXPECT_THROW(SvgCanvas(B{{0, 0}, {1, 1}}, 20, 10), std::invalid_argument);  // no room inside the margins
  SvgCanvas canvas(B{{0, 0}, {1, 1}}, 100);
  const std::string before = canvas.str();
  EXPECT_THROW(canvas.rect(B{{0, nan}, {1, 1}}), std::invalid_argument);
  EXPECT_THROW(canvas.rect(B{{0, 0}, {inf, 1}}), std::invalid_argument);
  EXPECT_THROW(canvas.line(V{0, 0}, V{nan, 0}), std::invalid_argument);
  EXPECT_THROW(canvas.circle(V{0, 0}, inf), std::invalid_argument);
  EXPECT_THROW(canvas.circle(V{0, 0}, -1.0), std::invalid_argument);
  EXPECT_THROW(canvas.polygon({V{0, 0}, V{1, 0}, V{0, inf}}), std::invalid_argument);
  EXPECT_THROW(canvas.polyline({V{0, 0}, V{nan, 0}}), std::invalid_argument);
  EXPECT_THROW(canvas.text(V{nan, 0}, "x"), std::invalid_argument);
  EXPECT_THROW(canvas.text(V{0, 0}, "x", nan), std::invalid_argument);
  EXPECT_THROW(canvas.shape(Ellipse<double>{{0, 0}, {1, 1}, nan}), std::invalid_argument);
  EXPECT_THROW(canvas.shape(Sector<double>{{0, 0}, {0, 0}, 1, 0.5}), std::invalid_argument);
  EXPECT_THROW(canvas.shape(Ring<double>{{0, 0}, 2, 1}), std::invalid_argument);
  EXPECT_THROW(canvas.shape(OrientedBox<double>{{0, 0}, {1, nan}, 0}), std::invalid_argument);
  EXPECT_THROW(canvas.shape(Segment<2, double>{{0, 0}, {inf, 0}}), std::invalid_argument);
  // Finite in the world, but its pixel position overflows a double.
  EXPECT_THROW(canvas.line(V{0, 0}, V{1e308, 0}), std::invalid_argument);
  EXPECT_THROW(canvas.rect(B{{0, 0}, {1, 1}}, {"none", "#000", nan, 1, "", ""}), std::invalid_argument);
  EXPECT_THROW(canvas.rect(B{{0, 0}, {1, 1}}, {"none", "#000", 1, 2, "", ""}), std::invalid_argument);
  EXPECT_EQ(canvas.str(), before);
  EXPECT_EQ(canvas.str().find("nan"), std::string::npos);
}

TEST(Svg, SaveWritesTheDocumentAndReportsUnwritablePaths) {
  SvgCanvas canvas(Box<2, double>{{0, 0}, {1, 1}}, 100);
  canvas.circle(Vec<2, double>{0.5, 0.5}, 0.25);
  const std::string file = temp_file("save.svg");
  canvas.save(file);
  EXPECT_EQ(read_all(file), canvas.str());
  const std::string bad = "/nonexistent-quadrant-dir/picture.svg";
  try {
    canvas.save(bad);
    ADD_FAILURE() << "save to an unwritable path did not throw";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(bad), std::string::npos) << e.what();
  }
}

// The picture to look at: a random Parent tree with cells, owner lines and objects, highlighted colliding objects,
// and every query shape, each labelled. Written to the working directory; PNG when rsvg-convert exists.
TEST(Svg, PictureOfATreeAndEveryShape) {
  const QuadTree<int> tree = random_tree(Placement::Parent, 3, 60);
  SvgCanvas canvas(tree.config().world, 800);
  draw_tree(canvas, tree, TreeDrawing{true, false, true, true, true, 0.35});
  std::vector<Handle> colliding;
  tree.for_each_pair([&](Handle a, Handle b) {
    colliding.push_back(a);
    colliding.push_back(b);
  });
  draw_objects(canvas, tree, [&](Handle h, const int&) {
    return std::find(colliding.begin(), colliding.end(), h) != colliding.end();
  });
  const SvgStyle shape_style{"#9467bd", "#4b2a75", 2, 0.3, "", "shape"};
  canvas.shape(Circle<float>{{15, 85}, 8}, shape_style);
  canvas.shape(Ring<float>{{40, 85}, 4, 9}, shape_style);
  canvas.shape(Ellipse<float>{{65, 85}, {10, 4}, std::numbers::pi_v<float> / 6}, shape_style);
  canvas.shape(Sector<float>{{80, 78}, {1, 1}, 16, std::numbers::pi_v<float> / 5}, shape_style);
  canvas.shape(OrientedBox<float>{{15, 55}, {8, 3}, std::numbers::pi_v<float> / 4}, shape_style);
  canvas.shape(ConvexPolygon<float>{{30, 48}, {45, 50}, {48, 62}, {36, 66}}, shape_style);
  canvas.shape(Segment<2, float>{{55, 50}, {75, 65}}, {"none", "#4b2a75", 3, 1, "", "shape"});
  canvas.shape(Box2{{85, 45}, {95, 60}}, shape_style);
  canvas.text(Vec2{5, 72}, "circle, ring, ellipse (30 deg CCW), sector (NE)", 14);
  canvas.text(Vec2{5, 40}, "obb (45 deg), polygon, segment (up-right), box", 14);
  canvas.text(Vec2{2, 2}, "origin (0,0) bottom-left", 14, "#d62728");
  const auto tags = scan(canvas.str());
  expect_root(tags, canvas);
  EXPECT_EQ(count(tags, "", "shape"), 8u);
  const std::string svg = (std::filesystem::current_path() / "test_svg_picture.svg").string();
  canvas.save(svg);
  std::cout << "picture: " << svg << "\n";
  expect_parses(canvas, "picture");
  if (!on_path("rsvg-convert")) GTEST_SKIP() << "rsvg-convert is not on PATH: no PNG";
  const std::string png = (std::filesystem::current_path() / "test_svg_picture.png").string();
  ASSERT_EQ(std::system(("rsvg-convert -o '" + png + "' '" + svg + "'").c_str()), 0);
  EXPECT_GT(std::filesystem::file_size(png), 1000u);
  std::cout << "png: " << png << "\n";
}

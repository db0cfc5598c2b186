// SPDX-License-Identifier: MIT
// A picture of a quadtree with SvgCanvas: 300 boxes, the tree's leaf cells coloured by depth, a circle query with
// the boxes it hits filled black, and a legend in a band left of the world so it covers nothing. The picture goes to the
// path given (default quadtree.svg); render it with any browser or `rsvg-convert quadtree.svg -o quadtree.png`.
// The program checks the hits against brute force and that the picture holds one filled box per hit.
#include <quadrant/quadrant.hpp>
#include <quadrant/svg.hpp>

#include <cstdio>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace {

// `colour` ("#rrggbb") painted at `opacity` over white, as "#rrggbb": a legend swatch that looks like the fill.
std::string over_white(const std::string& colour, double opacity) {
  char out[8];
  unsigned rgb[3];
  std::sscanf(colour.c_str(), "#%2x%2x%2x", &rgb[0], &rgb[1], &rgb[2]);
  for (unsigned& c : rgb) c = static_cast<unsigned>(255 - (255 - double(c)) * opacity + 0.5);
  std::snprintf(out, sizeof out, "#%02x%02x%02x", rgb[0], rgb[1], rgb[2]);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  using Box = quadrant::Box<2, float>;
  quadrant::Config<2, float> config;
  config.world = {{0, 0}, {1000, 1000}};
  config.split_threshold = 8;
  quadrant::QuadTree<int> tree(config);
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> at(0, 980), size(4, 20);
  std::vector<Box> boxes;
  for (int i = 0; i < 300; ++i) {
    // Denser towards the lower left, so the tree is deeper there.
    const float x = at(rng) * at(rng) / 980, y = at(rng) * at(rng) / 980, s = size(rng);
    boxes.push_back({{x, y}, {x + s, y + s}});
    tree.insert(boxes.back(), i);
  }

  // The view: the world plus a band on the left for the legend.
  quadrant::SvgCanvas canvas(Box{{-330, 0}, {1000, 1000}}, 900, 12);
  constexpr double kFill = 0.3;
  quadrant::draw_tree(canvas, tree, {.objects = true, .legend = false, .fill_opacity = kFill});
  canvas.rect(config.world, {"none", "#000000", 2, 1, "", "world"});
  const quadrant::Circle<float> query{{300, 250}, 180};
  canvas.shape(query, {"#ffcc00", "#806600", 2, 0.35, "6 3", "query"});
  int hits = 0;
  tree.query(query, [&](quadrant::Handle h, const int&) {
    canvas.rect(tree.bounds(h), {"#111111", "#111111", 1, 1, "", "hit"});
    ++hits;
  });
  // One legend row per kind of mark; only the depths that have leaves (the colours drawn).
  std::set<int> leaf_depths;
  tree.for_each_node([&](const quadrant::NodeView<2, float>& node) {
    if (node.leaf) leaf_depths.insert(node.depth);
  });
  std::vector<quadrant::SvgCanvas::LegendEntry> legend;
  for (int d : leaf_depths)
    legend.push_back({over_white(quadrant::depth_colour(d), kFill), "leaf cell at depth " + std::to_string(d)});
  legend.push_back({"#ffffff", "a box (outline)"});
  legend.push_back({over_white("#ffcc00", 0.35), "the query circle"});
  legend.push_back({"#111111", "a box the circle hits"});
  canvas.legend(legend, 1, 13);
  const std::string path = argc > 1 ? argv[1] : "quadtree.svg";
  canvas.save(path);

  int brute = 0;
  for (const Box& b : boxes) brute += quadrant::overlaps(query, b);
  const std::string svg = canvas.str();
  int drawn = 0;
  for (std::size_t at_ = svg.find("class=\"hit\""); at_ != std::string::npos; at_ = svg.find("class=\"hit\"", at_ + 1))
    ++drawn;
  std::printf("%zu boxes, %zu nodes, %d hit by the circle (brute force: %d), %d drawn; wrote %s\n", tree.size(),
              tree.stats().nodes, hits, brute, drawn, path.c_str());
  return hits == brute && drawn == hits && hits > 0 ? 0 : 1;
}

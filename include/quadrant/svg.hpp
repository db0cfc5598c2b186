// SPDX-License-Identifier: MIT
// quadrant — svg: pictures of trees and scenes, a debugging aid: the grid, objects and the lines to the nodes that own them.
//
// SvgCanvas draws in world coordinates: it maps a world view box onto a picture `width_px` wide, y pointing up, and
// writes pixel coordinates, so one SVG user unit is one pixel and stroke widths and text sizes are pixels whatever
// the zoom. The transform (see SvgCanvas::to_pixel):
//   scale = (width_px - 2 margin_px) / (view.max.x - view.min.x)
//   px = margin_px + (x - view.min.x) * scale,   py = margin_px + (view.max.y - y) * scale
//   height_px = 2 margin_px + (view.max.y - view.min.y) * scale
// draw_tree draws a Tree's cells coloured by depth, its objects, and the "owner" lines from each object to the node
// listing it; draw_objects draws the objects a predicate picks, to highlight them over a drawing.
//
// Threads: an SvgCanvas is a plain value: const members may run concurrently, drawing needs exclusive access.
// draw_tree and draw_objects only read the tree (const members), so they may run alongside other readers of it.
#pragma once

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <initializer_list>
#include <numbers>
#include <ranges>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "geometry.hpp"
#include "tree.hpp"

namespace quadrant {

/// How an element is painted. Colours are CSS strings ("#d62728", "none", "red"); all sizes are pixels.
struct SvgStyle {
  std::string fill = "none";       ///< fill colour; "none" for outlines only
  std::string stroke = "#222222";  ///< outline colour; "none" for no outline
  double stroke_width_px = 1;      ///< outline width in pixels, whatever the zoom; >= 0
  double opacity = 1;              ///< fill opacity in [0, 1] (the outline stays opaque)
  std::string dash;                ///< stroke-dasharray in pixels, e.g. "4 2"; empty for a solid line
  std::string css_class;           ///< class attribute, to find elements in the document; empty for none
};

/// An SVG picture of a 2D region of the world, built element by element and written by str() or save().
/// Every drawing call throws std::invalid_argument for a non-finite coordinate, size or style number (or a
/// coordinate so far out of view that its pixel position overflows), and then adds nothing.
class SvgCanvas {
 public:
  /// A canvas showing `view` (finite, min < max on both axes) `width_px` pixels wide, with `margin_px` of border
  /// around it; the height follows the aspect ratio. `background` fills the whole picture ("" for transparent).
  /// Throws std::invalid_argument for a bad view box, width or margin (width must exceed 2 margins).
  template <class S>
  explicit SvgCanvas(const Box<2, S>& view, double width_px = 800, double margin_px = 16,
                     std::string background = "#ffffff")
      : background_(std::move(background)) {
    view_ = {{double(view.min.x), double(view.min.y)}, {double(view.max.x), double(view.max.y)}};
    if (!is_valid(view_) || !(view_.min.x < view_.max.x) || !(view_.min.y < view_.max.y))
      throw std::invalid_argument("quadrant: SvgCanvas: the view box must be finite with min < max on both axes");
    if (!std::isfinite(margin_px) || margin_px < 0 || !std::isfinite(width_px) || !(width_px > 2 * margin_px))
      throw std::invalid_argument("quadrant: SvgCanvas: need a finite margin >= 0 and width > 2 * margin");
    width_ = width_px;
    margin_ = margin_px;
    scale_ = (width_px - 2 * margin_px) / (view_.max.x - view_.min.x);
    height_ = 2 * margin_px + (view_.max.y - view_.min.y) * scale_;
    if (!(scale_ > 0) || !std::isfinite(scale_) || !std::isfinite(height_))
      throw std::invalid_argument("quadrant: SvgCanvas: the view box is too small or too large to draw");
  }

  /// The world region shown.
  const Box<2, double>& view() const noexcept { return view_; }
  /// Picture width in pixels.
  double width_px() const noexcept { return width_; }
  /// Picture height in pixels: 2 margins plus the view's height times scale().
  double height_px() const noexcept { return height_; }
  /// Border around the view, pixels.
  double margin_px() const noexcept { return margin_; }
  /// Pixels per world unit (the same on both axes).
  double scale() const noexcept { return scale_; }
  /// The world region the whole picture covers: the view grown by the margin.
  Box<2, double> visible() const noexcept {
    const double m = margin_ / scale_;
    return {{view_.min.x - m, view_.min.y - m}, {view_.max.x + m, view_.max.y + m}};
  }
  /// Where a world point lands in the picture, in pixels (y down, as SVG counts). Not checked for finiteness.
  template <class S>
  Vec<2, double> to_pixel(const Vec<2, S>& p) const noexcept {
    return {margin_ + (double(p.x) - view_.min.x) * scale_, margin_ + (view_.max.y - double(p.y)) * scale_};
  }

  /// An axis-aligned box. A box thinner than 1 px on an axis (a point, a wall) is drawn 1 px thick so it shows.
  template <class S>
  void rect(const Box<2, S>& box, const SvgStyle& style = {}) {
    check_shape(box);
    Vec<2, double> lo = to_pixel(Vec<2, S>{box.min.x, box.max.y}), hi = to_pixel(Vec<2, S>{box.max.x, box.min.y});
    widen(lo.x, hi.x);
    widen(lo.y, hi.y);
    Element e("rect");
    e.num("x", lo.x).num("y", lo.y).num("width", hi.x - lo.x).num("height", hi.y - lo.y);
    add(e, style);
  }
  /// A straight line from a to b (only the stroke of `style` is used).
  template <class S>
  void line(const Vec<2, S>& a, const Vec<2, S>& b, const SvgStyle& style = {}) {
    check_point(a, "SvgCanvas::line");
    check_point(b, "SvgCanvas::line");
    const Vec<2, double> pa = to_pixel(a), pb = to_pixel(b);
    Element e("line");
    e.num("x1", pa.x).num("y1", pa.y).num("x2", pb.x).num("y2", pb.y);
    add(e, style);
  }
  /// A circle of world radius r >= 0.
  template <class S>
  void circle(const Vec<2, S>& center, std::type_identity_t<S> r, const SvgStyle& style = {}) {
    check_shape(Circle<S>{center, r});
    const Vec<2, double> c = to_pixel(center);
    Element e("circle");
    e.num("cx", c.x).num("cy", c.y).num("r", double(r) * scale_);
    add(e, style);
  }
  /// A closed polygon through `points` (a range of Vec<2, S>, any winding, any count).
  template <std::ranges::input_range R>
  void polygon(const R& points, const SvgStyle& style = {}) { add_points("polygon", points, style); }
  /// A closed polygon from a braced list of points.
  void polygon(std::initializer_list<Vec<2, double>> points, const SvgStyle& style = {}) {
    add_points("polygon", points, style);
  }
  /// An open line through `points` (a range of Vec<2, S>).
  template <std::ranges::input_range R>
  void polyline(const R& points, const SvgStyle& style = {}) { add_points("polyline", points, style); }
  /// An open line from a braced list of points.
  void polyline(std::initializer_list<Vec<2, double>> points, const SvgStyle& style = {}) {
    add_points("polyline", points, style);
  }
  /// Text (UTF-8; XML-escaped here, control characters dropped) with its baseline starting at world point `at`,
  /// `size_px` pixels high, in `colour`.
  template <class S>
  void text(const Vec<2, S>& at, std::string_view content, double size_px = 12, std::string_view colour = "#000000") {
    check_point(at, "SvgCanvas::text");
    text_px(to_pixel(at), content, size_px, colour, {});
  }

  /// A Box query shape (same as rect).
  template <class S>
  void shape(const Box<2, S>& b, const SvgStyle& style = {}) { rect(b, style); }
  /// A Circle query shape.
  template <class S>
  void shape(const Circle<S>& c, const SvgStyle& style = {}) { circle(c.center, c.radius, style); }
  /// A Ring: both circles in one path filled even-odd, so the hole stays empty.
  template <class S>
  void shape(const Ring<S>& r, const SvgStyle& style = {}) {
    check_shape(r);
    const Vec<2, double> c = to_pixel(r.center);
    std::string d = circle_path(c, double(r.outer) * scale_);
    if (r.inner > 0) {
      // Appended in two steps: `" " + path` trips g++ 12's false -Wrestrict at -O3 (MinGW's libstdc++).
      d += ' ';
      d += circle_path(c, double(r.inner) * scale_);
    }
    add_path(d, style, true);
  }
  /// An Ellipse, rotated counter-clockwise in the world (clockwise in SVG's y-down pixels). A zero radius draws
  /// the segment the ellipse degenerates to.
  template <class S>
  void shape(const Ellipse<S>& el, const SvgStyle& style = {}) {
    check_shape(el);
    const double a = double(el.angle), rx = double(el.radii.x), ry = double(el.radii.y);
    if (rx == 0 || ry == 0) {
      const Vec<2, double> c{double(el.center.x), double(el.center.y)};
      const Vec<2, double> h = rx == 0 ? Vec<2, double>{-std::sin(a) * ry, std::cos(a) * ry}
                                       : Vec<2, double>{std::cos(a) * rx, std::sin(a) * rx};
      line(c - h, c + h, style);
      return;
    }
    const Vec<2, double> c = to_pixel(el.center);
    Element e("ellipse");
    e.num("cx", c.x).num("cy", c.y).num("rx", rx * scale_).num("ry", ry * scale_);
    e.attr_raw("transform", "rotate(" + num(-a * 180 / std::numbers::pi) + " " + num(c.x) + " " + num(c.y) + ")");
    add(e, style);
  }
  /// A Sector (fan): apex, the arc, back to the apex. half_angle 0 draws the segment along the axis; pi the disc.
  template <class S>
  void shape(const Sector<S>& s, const SvgStyle& style = {}) {
    check_shape(s);
    const double r = double(s.radius), h = double(s.half_angle);
    const double axis = std::atan2(double(s.direction.y), double(s.direction.x));
    const Vec<2, double> apex{double(s.apex.x), double(s.apex.y)};
    auto rim = [&](double angle) { return to_pixel(apex + Vec<2, double>{std::cos(angle), std::sin(angle)} * r); };
    if (h == 0) return line(apex, apex + Vec<2, double>{std::cos(axis), std::sin(axis)} * r, style);
    if (h >= std::numbers::pi) return add_path(circle_path(to_pixel(apex), r * scale_), style, false);
    const Vec<2, double> p = to_pixel(apex), from = rim(axis - h), to = rim(axis + h);
    // World counter-clockwise is SVG's negative-angle direction (y flipped): sweep flag 0.
    const std::string rr = num(r * scale_) + " " + num(r * scale_);
    const char* large = 2 * h > std::numbers::pi ? " 0 1 0 " : " 0 0 0 ";
    add_path("M " + num(p.x) + " " + num(p.y) + " L " + num(from.x) + " " + num(from.y) + " A " + rr + large +
                 num(to.x) + " " + num(to.y) + " Z",
             style, false);
  }
  /// An OrientedBox, by its four corners.
  template <class S>
  void shape(const OrientedBox<S>& o, const SvgStyle& style = {}) {
    check_shape(o);
    polygon(corners(o), style);
  }
  /// A ConvexPolygon, by its vertices.
  template <class S>
  void shape(const ConvexPolygon<S>& poly, const SvgStyle& style = {}) { polygon(poly.vertices(), style); }
  /// A Segment<2>.
  template <class S>
  void shape(const Segment<2, S>& seg, const SvgStyle& style = {}) { line(seg.a, seg.b, style); }

  /// One row of a legend: a colour swatch and its label.
  struct LegendEntry {
    std::string colour;  ///< swatch fill
    std::string label;   ///< text beside it
  };
  /// A legend in the picture's top-left corner (fixed pixel size, over the drawing, on a white panel). Every
  /// element it adds has class "legend". `fill_opacity` paints the swatches as the drawing paints its fills.
  void legend(std::span<const LegendEntry> entries, double fill_opacity = 1, double size_px = 12) {
    if (entries.empty()) return;
    const double row = size_px * 1.5, pad = size_px * 0.5;
    std::size_t longest = 0;
    for (const LegendEntry& entry : entries) longest = std::max(longest, entry.label.size());
    const double panel_w = 2 * pad + size_px * 1.5 + double(longest) * size_px * 0.6;
    const double panel_h = 2 * pad + row * double(entries.size());
    const SvgStyle panel{"#ffffff", "#888888", 1, 0.85, "", "legend"};
    add_px_rect(margin_ / 2, margin_ / 2, panel_w, panel_h, panel);
    for (std::size_t i = 0; i < entries.size(); ++i) {
      const double y = margin_ / 2 + pad + row * double(i);
      add_px_rect(margin_ / 2 + pad, y + (row - size_px) / 2, size_px, size_px,
                  {entries[i].colour, "#444444", 1, fill_opacity, "", "legend"});
      text_px({margin_ / 2 + pad + size_px * 1.5, y + (row + size_px) / 2 - 1}, entries[i].label, size_px, "#000000",
              "legend");
    }
  }

  /// The complete standalone SVG document (XML declaration, xmlns, width, height, viewBox in pixels).
  std::string str() const {
    std::string doc = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" +
                      num(width_) + "\" height=\"" + num(height_) + "\" viewBox=\"0 0 " + num(width_) + " " +
                      num(height_) + "\">\n";
    if (!background_.empty())
      doc += "<rect class=\"background\" x=\"0\" y=\"0\" width=\"100%\" height=\"100%\" fill=\"" +
             escape(background_) + "\"/>\n";
    return doc + body_ + "</svg>\n";
  }
  /// Writes str() to `path`. Throws std::runtime_error naming the path when the file cannot be written.
  void save(const std::string& path) const {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    const std::string doc = str();
    if (out) out.write(doc.data(), static_cast<std::streamsize>(doc.size()));
    if (out) out.close();
    if (!out) throw std::runtime_error("quadrant: SvgCanvas::save: cannot write '" + path + "'");
  }

  /// `s` with & < > " ' replaced by XML entities and control characters other than tab, newline and carriage
  /// return dropped (XML 1.0 forbids them): safe in text and in attribute values.
  static std::string escape(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (const char ch : s) {
      if (ch == '&') out += "&amp;";
      else if (ch == '<') out += "&lt;";
      else if (ch == '>') out += "&gt;";
      else if (ch == '"') out += "&quot;";
      else if (ch == '\'') out += "&apos;";
      else if (static_cast<unsigned char>(ch) >= 0x20 || ch == '\t' || ch == '\n' || ch == '\r') out += ch;
    }
    return out;
  }

 private:
  // An element under construction: built completely (every number checked) before it joins the document, so a
  // throwing call adds nothing.
  struct Element {
    std::string s;
    explicit Element(const char* tag) : s(std::string("<") + tag) {}
    Element& num(const char* name, double v) { return attr_raw(name, SvgCanvas::num(v)); }
    Element& attr_raw(const char* name, const std::string& value) {
      s += std::string(" ") + name + "=\"" + value + "\"";
      return *this;
    }
  };

  // Shortest round-trip up to 10 significant digits: sub-micro-pixel precision; locale independent.
  static std::string num(double v) {
    if (!std::isfinite(v)) throw std::invalid_argument("quadrant: SvgCanvas: non-finite number (or pixel overflow)");
    if (v == 0) return "0";  // also folds -0
    std::array<char, 32> buf{};
    const auto res = std::to_chars(buf.data(), buf.data() + buf.size(), v, std::chars_format::general, 10);
    return std::string(buf.data(), res.ptr);
  }
  static void widen(double& lo, double& hi) {
    if (hi - lo >= 1) return;
    const double mid = lo + (hi - lo) / 2;
    lo = mid - 0.5;
    hi = mid + 0.5;
  }
  template <class R>
  void add_points(const char* tag, const R& points, const SvgStyle& style) {
    std::string list;
    for (const auto& p : points) {
      check_point(p, tag);
      const Vec<2, double> q = to_pixel(p);
      if (!list.empty()) list += ' ';
      list += num(q.x);
      list += ',';
      list += num(q.y);
    }
    Element e(tag);
    e.attr_raw("points", list);
    add(e, style);
  }
  std::string circle_path(const Vec<2, double>& c, double r) const {
    const std::string rr = num(r) + " " + num(r) + " 0 1 0 ";
    return "M " + num(c.x + r) + " " + num(c.y) + " A " + rr + num(c.x - r) + " " + num(c.y) + " A " + rr +
           num(c.x + r) + " " + num(c.y) + " Z";
  }
  void add_path(const std::string& d, const SvgStyle& style, bool even_odd) {
    Element e("path");
    e.attr_raw("d", d);
    if (even_odd) e.attr_raw("fill-rule", "evenodd");
    add(e, style);
  }
  void add_px_rect(double x, double y, double w, double h, const SvgStyle& style) {
    Element e("rect");
    e.num("x", x).num("y", y).num("width", w).num("height", h);
    add(e, style);
  }
  void text_px(const Vec<2, double>& p, std::string_view content, double size_px, std::string_view colour,
               std::string_view css_class) {
    if (!std::isfinite(size_px) || size_px <= 0)
      throw std::invalid_argument("quadrant: SvgCanvas::text: size_px must be finite and > 0");
    Element e("text");
    e.num("x", p.x).num("y", p.y).num("font-size", size_px);
    e.attr_raw("font-family", "sans-serif").attr_raw("fill", escape(colour));
    if (!css_class.empty()) e.attr_raw("class", escape(css_class));
    body_ += e.s + ">" + escape(content) + "</text>\n";
  }
  void add(Element& e, const SvgStyle& st) {
    if (!std::isfinite(st.stroke_width_px) || st.stroke_width_px < 0 || !(st.opacity >= 0 && st.opacity <= 1))
      throw std::invalid_argument("quadrant: SvgStyle: stroke_width_px must be finite >= 0, opacity in [0, 1]");
    if (!st.css_class.empty()) e.attr_raw("class", escape(st.css_class));
    e.attr_raw("fill", escape(st.fill.empty() ? "none" : st.fill));
    if (st.opacity != 1) e.num("fill-opacity", st.opacity);
    e.attr_raw("stroke", escape(st.stroke.empty() ? "none" : st.stroke)).num("stroke-width", st.stroke_width_px);
    if (!st.dash.empty()) e.attr_raw("stroke-dasharray", escape(st.dash));
    body_ += e.s + "/>\n";
  }

  Box<2, double> view_{};
  double width_ = 0, height_ = 0, margin_ = 0, scale_ = 1;
  std::string background_;
  std::string body_;
};

/// What draw_tree draws. Elements carry classes: "cell", "bounds", "object", "owner", "legend".
struct TreeDrawing {
  bool cells = true;         ///< every node's cell outlined (one rect per node); leaves filled by depth colour
  bool bounds = false;       ///< every node's bounds dashed (Loose: the grown cells), clipped to the picture
  bool objects = true;       ///< every object's box
  bool owner_lines = false;  ///< a line from each object's box center to the center of each node listing it
  bool legend = true;        ///< the depth colours, for the depths present
  double fill_opacity = 0.35;  ///< opacity of the depth fills
};

/// The depth colour palette (Tableau 10), repeating past depth 9.
inline const char* depth_colour(int depth) noexcept {
  static constexpr std::array<const char*, 10> palette{"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                                       "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
  return palette[static_cast<std::size_t>(depth < 0 ? 0 : depth) % palette.size()];
}

/// Draws `tree` as `drawing` asks (see TreeDrawing), in this order: cells, bounds, owner lines, objects, legend.
/// A quadtree's children tile their parent, so only leaves are filled: the colour seen is the leaf's depth.
/// O(nodes + entries); reads the tree only (see the file comment for threads).
template <class T, class S>
void draw_tree(SvgCanvas& canvas, const Tree<2, T, S>& tree, const TreeDrawing& drawing = {}) {
  int deepest = 0;
  tree.for_each_node([&](const NodeView<2, S>& node) {
    deepest = std::max(deepest, node.depth);
    if (!drawing.cells) return;
    canvas.rect(node.cell, {node.leaf ? depth_colour(node.depth) : "none", "#555555", 0.75, drawing.fill_opacity,
                            "", "cell"});
  });
  if (drawing.bounds) {
    // Bounds may be infinite (the root; Leaves on the world's faces): clip them to what the picture shows.
    const Box<2, double> vis = canvas.visible();
    tree.for_each_node([&](const NodeView<2, S>& node) {
      Box<2, double> b{};
      for (int i = 0; i < 2; ++i) {
        b.min[i] = std::max(double(node.bounds.min[i]), vis.min[i]);
        b.max[i] = std::min(double(node.bounds.max[i]), vis.max[i]);
      }
      if (b.min.x <= b.max.x && b.min.y <= b.max.y)
        canvas.rect(b, {"none", depth_colour(node.depth), 1, 1, "5 3", "bounds"});
    });
  }
  if (drawing.owner_lines) {
    const SvgStyle owner_style{"none", "#444444", 0.5, 1, "", "owner"};
    tree.for_each_node([&](const NodeView<2, S>& node) {
      const Vec<2, double> cell_center{(double(node.cell.min.x) + double(node.cell.max.x)) / 2,
                                       (double(node.cell.min.y) + double(node.cell.max.y)) / 2};
      for (const Entry<2, S>& item : node.items) {
        const Vec<2, double> center{(double(item.box.min.x) + double(item.box.max.x)) / 2,
                                    (double(item.box.min.y) + double(item.box.max.y)) / 2};
        canvas.line(center, cell_center, owner_style);
      }
    });
  }
  if (drawing.objects) {
    const SvgStyle object_style{"none", "#111111", 1, 1, "", "object"};
    tree.for_each([&](Handle, const T&, const Box<2, S>& box) { canvas.rect(box, object_style); });
  }
  if (drawing.legend && drawing.cells) {
    std::vector<SvgCanvas::LegendEntry> rows;
    for (int d = 0; d <= deepest; ++d) rows.push_back({depth_colour(d), "depth " + std::to_string(d)});
    canvas.legend(rows, drawing.fill_opacity);
  }
}

/// Draws the box of every object for which pick(Handle, const T&) is true, in `style` — to highlight objects
/// (colliding ones, query hits) over a draw_tree picture. O(objects); reads the tree only.
template <class T, class S, class Pred>
void draw_objects(SvgCanvas& canvas, const Tree<2, T, S>& tree, Pred pick,
                  const SvgStyle& style = {"none", "#d62728", 2, 1, "", "highlight"}) {
  tree.for_each([&](Handle h, const T& value, const Box<2, S>& box) {
    if (pick(h, value)) canvas.rect(box, style);
  });
}

}  // namespace quadrant

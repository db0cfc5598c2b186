// SPDX-License-Identifier: MIT
// quadrant tool — the demo's pictures: a scene drawn with SvgCanvas in world coordinates, and its legend outside the
// scene (below it or to its right), the canvas grown to make room. Anything drawn past the scene's box is covered,
// so the legend sits on a clean band. Each legend row explains one mark, and its swatch is drawn with the style the
// scene uses for that mark (a box, a line, a dot, a ring), so it looks like the mark.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include <quadrant/svg.hpp>

namespace quadrant_tools {

/// How a legend row's swatch is drawn.
enum class Mark {
  Box,   // a rectangle in the style (filled and/or outlined): cells, objects, shapes
  Line,  // a short horizontal line in the style's stroke: lines, paths, outlines of large shapes
  Dot,   // a small filled circle: points
  Ring,  // a small circle, outlined: circles drawn around things
  Note,  // no swatch: a line of text
  // One row for marks that belong together: each style its own swatch, in the order the label names them.
  Boxes,  // boxes side by side (kinds of one thing: a state and its variants)
  Lines,  // full-width lines, one above the other (one thing drawn two ways)
  Rings,  // rings around one center, each wider than the last (a radius and a margin beyond it)
};

struct LegendRow {
  Mark mark;
  std::vector<quadrant::SvgStyle> styles;  // drawn one over the other (a fill painted twice shows darker)
  std::string label;
};

inline LegendRow legend_row(Mark mark, const quadrant::SvgStyle& style, std::string label) {
  return {mark, {style}, std::move(label)};
}
inline LegendRow legend_note(std::string label) { return {Mark::Note, {}, std::move(label)}; }

enum class LegendPlace { Below, Right };

/// A picture: `scene` (world coordinates) drawn `scene_px` wide, and the legend `rows` outside it. Draw the scene on
/// canvas(), then save(): it covers whatever was drawn outside the scene's box and draws the legend there.
class Figure {
 public:
  Figure(const quadrant::Box2& scene, double scene_px, std::vector<LegendRow> rows, LegendPlace place,
         std::string title = "", double text_px = 13)
      : scene_(scene),
        rows_(std::move(rows)),
        title_(std::move(title)),
        text_(text_px),
        layout_(plan(scene, scene_px, rows_, place, !title_.empty(), text_px)),
        canvas_(layout_.view, layout_.width, kMargin) {}

  quadrant::SvgCanvas& canvas() { return canvas_; }

  /// Covers everything outside the scene, draws the legend, writes the SVG.
  void save(const std::string& path) {
    // The whole picture and a little more (so that no stroke along its edge peeks past a cover).
    quadrant::Box<2, double> all = canvas_.visible();
    const double extra = 8 / canvas_.scale();
    all.min = all.min - quadrant::Vec<2, double>{extra, extra};
    all.max = all.max + quadrant::Vec<2, double>{extra, extra};
    const quadrant::SvgStyle white{"#ffffff", "none", 0, 1, "", "legend"};
    const quadrant::Box<2, double> s{{double(scene_.min.x), double(scene_.min.y)},
                                     {double(scene_.max.x), double(scene_.max.y)}};
    canvas_.rect(quadrant::Box<2, double>{all.min, {s.min.x, all.max.y}}, white);
    canvas_.rect(quadrant::Box<2, double>{{s.max.x, all.min.y}, all.max}, white);
    canvas_.rect(quadrant::Box<2, double>{{s.min.x, s.max.y}, {s.max.x, all.max.y}}, white);
    canvas_.rect(quadrant::Box<2, double>{{s.min.x, all.min.y}, {s.max.x, s.min.y}}, white);

    const double row_h = text_ * 1.6;
    double x = layout_.x0, y = layout_.y0;
    if (!title_.empty()) {
      canvas_.text(world(x, y + row_h / 2 + text_ * 0.35), title_, text_ + 1, "#000000");
      y += row_h;
    }
    const double top = y;
    for (std::size_t i = 0; i < rows_.size(); ++i) {
      if (i > 0 && i % layout_.per_column == 0) {
        x += layout_.column_w;
        y = top;
      }
      draw_row(rows_[i], x, y, row_h);
      y += row_h;
    }
    canvas_.save(path);
  }

 private:
  static constexpr double kMargin = 16, kSwatchW = 30, kGap = 8, kColumnGap = 28, kBandGap = 14;

  struct Layout {
    quadrant::Box<2, double> view;
    double width = 0;
    double x0 = 0, y0 = 0;  // pixel position of the legend's top-left corner
    std::size_t per_column = 1;
    double column_w = 0;
  };

  // Characters of a UTF-8 string (continuation bytes not counted): the width estimate of a label.
  static double text_width(const std::string& s, double text_px) {
    std::size_t n = 0;
    for (unsigned char c : s) n += (c & 0xc0) != 0x80;
    return double(n) * text_px * 0.55;
  }

  static Layout plan(const quadrant::Box2& scene, double scene_px, const std::vector<LegendRow>& rows,
                     LegendPlace place, bool title, double text_px) {
    const double scene_w = double(scene.max.x) - double(scene.min.x);
    const double scene_h = double(scene.max.y) - double(scene.min.y);
    const double scale = (scene_px - 2 * kMargin) / scene_w;
    const double row_h = text_px * 1.6;
    double label_w = 0;
    for (const LegendRow& r : rows)
      label_w = std::max(label_w, text_width(r.label, text_px) - (r.mark == Mark::Note ? kSwatchW + kGap : 0));
    const double item_w = kSwatchW + kGap + label_w;
    Layout l;
    l.view = {{double(scene.min.x), double(scene.min.y)}, {double(scene.max.x), double(scene.max.y)}};
    const double title_h = title ? row_h : 0;
    if (place == LegendPlace::Below) {
      const double avail = scene_px - 2 * kMargin;
      const std::size_t columns = std::clamp<std::size_t>(
          std::size_t((avail + kColumnGap) / (item_w + kColumnGap)), 1, std::max<std::size_t>(1, rows.size()));
      l.per_column = (rows.size() + columns - 1) / std::max<std::size_t>(1, columns);
      l.per_column = std::max<std::size_t>(1, l.per_column);
      l.column_w = item_w + kColumnGap;
      const double band = kBandGap + title_h + double(l.per_column) * row_h;
      l.view.min.y -= band / scale;
      l.width = scene_px;
      l.x0 = kMargin;
      l.y0 = kMargin + scene_h * scale + kBandGap;
    } else {
      l.per_column = std::max<std::size_t>(1, rows.size());
      l.column_w = item_w;
      const double band = kBandGap * 2 + item_w;
      const double legend_h = title_h + double(rows.size()) * row_h;
      if (legend_h > scene_h * scale) l.view.min.y -= (legend_h - scene_h * scale) / scale;
      l.view.max.x += band / scale;
      l.width = scene_px + band;
      l.x0 = kMargin + scene_w * scale + kBandGap * 2;
      l.y0 = kMargin;
    }
    return l;
  }

  // The world point at picture pixel (px, py).
  quadrant::Vec<2, double> world(double px, double py) const {
    const quadrant::Box<2, double>& v = canvas_.view();
    return {v.min.x + (px - kMargin) / canvas_.scale(), v.max.y - (py - kMargin) / canvas_.scale()};
  }

  void draw_row(const LegendRow& r, double x, double y, double row_h) {
    const double mid = y + row_h / 2;
    const double sw = r.mark == Mark::Note ? 0 : kSwatchW + kGap;
    // Several styles in one swatch (Boxes, Lines, Rings): boxes share its width, lines stack, rings nest.
    const double parts = double(std::max<std::size_t>(1, r.styles.size())), part_gap = 3;
    const double part_w = (kSwatchW - part_gap * (parts - 1)) / parts;
    for (std::size_t i = 0; i < r.styles.size(); ++i) {
      const quadrant::SvgStyle& style = r.styles[i];
      const double left = x + double(i) * (part_w + part_gap);
      switch (r.mark) {
        case Mark::Box: {
          const double h = text_ * 0.9;
          canvas_.rect(quadrant::Box<2, double>{world(x + 2, mid + h / 2), world(x + kSwatchW - 2, mid - h / 2)},
                       style);
          break;
        }
        case Mark::Line:
          canvas_.line(world(x, mid), world(x + kSwatchW, mid), style);
          break;
        case Mark::Dot:
          canvas_.circle(world(x + kSwatchW / 2, mid), 4 / canvas_.scale(), style);
          break;
        case Mark::Ring:
          canvas_.circle(world(x + kSwatchW / 2, mid), text_ * 0.55 / canvas_.scale(), style);
          break;
        case Mark::Note:
          break;
        case Mark::Boxes: {
          const double h = text_ * 0.9;
          canvas_.rect(quadrant::Box<2, double>{world(left + 1, mid + h / 2), world(left + part_w - 1, mid - h / 2)},
                       style);
          break;
        }
        case Mark::Lines: {
          const double at = mid + (double(i) - (parts - 1) / 2) * text_ * 0.45;
          canvas_.line(world(x, at), world(x + kSwatchW, at), style);
          break;
        }
        case Mark::Rings:
          canvas_.circle(world(x + kSwatchW / 2, mid), text_ * (0.3 + 0.38 * double(i)) / canvas_.scale(), style);
          break;
      }
    }
    canvas_.text(world(x + sw, mid + text_ * 0.35), r.label, text_, r.mark == Mark::Note ? "#444444" : "#000000");
  }

  quadrant::Box2 scene_;
  std::vector<LegendRow> rows_;
  std::string title_;
  double text_;
  Layout layout_;
  quadrant::SvgCanvas canvas_;
};

}  // namespace quadrant_tools

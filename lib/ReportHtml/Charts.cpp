//===- Charts.cpp - line charts and units of the page ---------------------===//
//
// Server-side SVG, so that the page reads without its script: the step time
// and loss per step with the run's events and epochs marked, the y axis
// fitted to the data (not to 0), whole steps on the x axis; the script
// adds TensorBoard-style smoothing.
//
//===----------------------------------------------------------------------===//

#include "Page.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>

using namespace hwreport;
using namespace hwreport::html;

namespace {

/// A tick spacing of 1, 2 or 5 times a power of ten giving at most `n`
/// ticks over `span` (at least `minimum`).
double niceStep(double span, int n, double minimum) {
  double raw = std::max(span / n, minimum);
  double power = std::pow(10, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * power >= raw)
      return std::max(m * power, minimum);
  return 10 * power;
}

/// The y range the chart shows: the data's, except outliers (a first
/// warm-up step ten times slower) that would flatten the rest; those are
/// drawn at the edge and counted. Never forced to include 0.
std::pair<double, double> yRange(std::vector<double> ys) {
  std::sort(ys.begin(), ys.end());
  double lo = ys.front(), hi = ys.back();
  if (ys.size() >= 8) {
    auto at = [&](double q) { return ys[size_t(q * double(ys.size() - 1))]; };
    double spread = std::max(at(0.9) - at(0.1), 0.01 * std::fabs(at(0.5)));
    lo = std::max(lo, at(0.1) - 3 * spread);
    hi = std::min(hi, at(0.9) + 3 * spread);
  }
  double pad =
      hi > lo ? 0.05 * (hi - lo) : std::max(0.05 * std::fabs(lo), 1e-9);
  return {lo - pad, hi + pad};
}

/// Epoch ends (dotted, labelled at the bottom) and events (dashed, labels
/// stacked downwards where they crowd) across the plot, `px` placing steps.
void writeMarks(llvm::raw_ostream &os, llvm::function_ref<double(double)> px,
                double top, double bottom, double height,
                const std::vector<std::pair<double, std::string>> &marks,
                const std::vector<std::pair<double, std::string>> &epochs) {
  for (const auto &[x, label] : epochs)
    os << llvm::formatv("<line x1=\"{0:f1}\" y1=\"{1}\" x2=\"{0:f1}\" "
                        "y2=\"{2}\" class=\"epoch\"/><text x=\"{3:f1}\" "
                        "y=\"{4}\" class=\"epoch-label\" "
                        "text-anchor=\"end\">{5}</text>",
                        px(x), top, bottom, px(x) - 3, height - 6,
                        escapeHtml(label));
  // Labels of marks close together stack downwards.
  double lastAt = -1e9;
  int stacked = 0;
  for (const auto &[x, label] : marks) {
    double at = px(x);
    stacked = at - lastAt < 120 ? stacked + 1 : 0;
    lastAt = stacked ? lastAt : at;
    os << llvm::formatv("<line x1=\"{0:f1}\" y1=\"{1}\" x2=\"{0:f1}\" "
                        "y2=\"{2}\" class=\"mark\"/><text x=\"{3:f1}\" "
                        "y=\"{4}\" class=\"mark-label\">{5}</text>",
                        at, top, bottom, at + 3, top + 10 + 12 * (stacked % 8),
                        escapeHtml(label));
  }
}

} // namespace

std::string hwreport::html::lineChart(
    const std::string &id, const std::string &title, const std::string &yUnit,
    const std::vector<std::pair<double, double>> &points,
    const std::vector<std::pair<double, std::string>> &marks,
    const std::vector<std::pair<double, std::string>> &epochs) {
  return lineChart(id, title, yUnit, std::vector<Series>{{"", points}}, marks,
                   epochs);
}

std::string hwreport::html::lineChart(
    const std::string &id, const std::string &title, const std::string &yUnit,
    const std::vector<Series> &series,
    const std::vector<std::pair<double, std::string>> &marks,
    const std::vector<std::pair<double, std::string>> &epochs) {
  const double width = 900, height = 230, left = 78, right = 20, top = 28,
               bottom = 40;
  std::string out;
  llvm::raw_string_ostream os(out);
  std::vector<double> ys;
  double x0 = INFINITY, x1 = -INFINITY;
  for (const Series &s : series)
    for (auto [x, y] : s.points)
      if (std::isfinite(y)) {
        ys.push_back(y);
        x0 = std::min(x0, x);
        x1 = std::max(x1, x);
      }
  if (ys.empty()) {
    os << "<svg id=\"" << id << "\" class=\"chart\" width=\"" << width
       << "\" height=\"60\" xmlns=\"http://www.w3.org/2000/svg\"><text x=\""
       << left << "\" y=\"18\" class=\"chart-title\">" << escapeHtml(title)
       << "</text><text x=\"" << left << "\" y=\"44\">no data</text></svg>";
    return out;
  }
  if (x1 <= x0)
    x1 = x0 + 1;
  auto [y0, y1] = yRange(ys);
  auto px = [&](double x) {
    return left + (x - x0) / (x1 - x0) * (width - left - right);
  };
  auto py = [&](double y) {
    y = std::min(std::max(y, y0), y1);
    return top + (1 - (y - y0) / (y1 - y0)) * (height - top - bottom);
  };
  os << llvm::formatv("<svg id=\"{0}\" class=\"chart\" width=\"{1}\" "
                      "height=\"{2}\" viewBox=\"0 0 {1} {2}\" data-y0=\"{3}\" "
                      "data-y1=\"{4}\" xmlns=\"http://www.w3.org/2000/svg\">",
                      id, width, height, y0, y1);
  os << "<text x=\"" << left << "\" y=\"18\" class=\"chart-title\">"
     << escapeHtml(title);
  if (series.size() > 1)
    for (auto [i, s] : llvm::enumerate(series))
      os << " <tspan class=\"legend s" << i << "\">&#9644; "
         << escapeHtml(s.label) << "</tspan>";
  os << "</text>";
  size_t off = llvm::count_if(ys, [&](double y) { return y < y0 || y > y1; });
  auto [low, high] = std::minmax_element(ys.begin(), ys.end());
  if (off)
    os << llvm::formatv("<text x=\"{0}\" y=\"18\" class=\"tick\" "
                        "text-anchor=\"end\">{1} of {2} points off scale "
                        "(up to {3} {4}), drawn at the edge</text>",
                        width - right, off, ys.size(),
                        llvm::format("%g", *high > y1 ? *high : *low),
                        escapeHtml(yUnit));
  // Horizontal grid and y ticks.
  double yStep = niceStep(y1 - y0, 4, 1e-300);
  for (double y = std::ceil(y0 / yStep) * yStep; y <= y1; y += yStep)
    os << llvm::formatv(
        "<line x1=\"{0}\" y1=\"{1:f1}\" x2=\"{2}\" "
        "y2=\"{1:f1}\" class=\"grid\"/><text x=\"{3}\" "
        "y=\"{4:f1}\" class=\"tick\" text-anchor=\"end\">{5}"
        " {6}</text>",
        left, py(y), width - right, left - 4, py(y) + 4,
        llvm::format("%g", std::fabs(y) < yStep * 1e-6 ? 0.0 : y),
        escapeHtml(yUnit));
  os << llvm::formatv("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" "
                      "class=\"axis\"/><line x1=\"{0}\" y1=\"{3}\" x2=\"{0}\" "
                      "y2=\"{1}\" class=\"axis\"/>",
                      left, height - bottom, width - right, top);
  // x ticks at whole steps.
  double xStep = niceStep(x1 - x0, 10, 1);
  for (double x = std::ceil(x0 / xStep) * xStep; x <= x1; x += xStep)
    os << llvm::formatv("<text x=\"{0:f1}\" y=\"{1}\" class=\"tick xtick\" "
                        "text-anchor=\"middle\">{2}</text>",
                        px(x), height - bottom + 14, int64_t(x));
  os << llvm::formatv("<text x=\"{0}\" y=\"{1}\" class=\"tick\" "
                      "text-anchor=\"end\">step</text>",
                      left - 10, height - bottom + 14);
  writeMarks(os, px, top, height - bottom, height, marks, epochs);
  // Each raw series, and the smoothed one the script recomputes.
  for (auto [i, s] : llvm::enumerate(series)) {
    std::string line;
    for (auto [x, y] : s.points)
      if (std::isfinite(y))
        line += llvm::formatv("{0:f1},{1:f1} ", px(x), py(y)).str();
    os << "<polyline class=\"series raw s" << i << "\" points=\"" << line
       << "\"/><polyline class=\"series smooth s" << i << "\" points=\"" << line
       << "\"/>";
  }
  os << "</svg>";
  return out;
}

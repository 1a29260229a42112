//===- Charts.cpp - line charts and units of the page ---------------------===//
//
// Server-side SVG, so that the page reads without its script: the step time
// and loss per step with the run's events marked.
//
//===----------------------------------------------------------------------===//

#include "Page.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>

using namespace hwreport;
using namespace hwreport::html;

std::string hwreport::html::lineChart(
    const std::string &id, const std::string &title, const std::string &yUnit,
    const std::vector<std::pair<double, double>> &points,
    const std::vector<std::pair<double, std::string>> &marks) {
  const double width = 900, height = 220, left = 70, right = 20, top = 28,
               bottom = 30;
  std::string out;
  llvm::raw_string_ostream os(out);
  os << "<svg id=\"" << id << "\" class=\"chart\" width=\"" << width
     << "\" height=\"" << height << "\" viewBox=\"0 0 " << width << " "
     << height << "\" xmlns=\"http://www.w3.org/2000/svg\">";
  os << "<text x=\"" << left << "\" y=\"18\" class=\"chart-title\">"
     << escapeHtml(title) << "</text>";
  if (points.empty()) {
    os << "<text x=\"" << left << "\" y=\"60\">no data</text></svg>";
    return out;
  }
  double x0 = points.front().first, x1 = points.front().first;
  double y0 = 0, y1 = points.front().second;
  for (auto [x, y] : points) {
    x0 = std::min(x0, x);
    x1 = std::max(x1, x);
    if (std::isfinite(y)) {
      y0 = std::min(y0, y);
      y1 = std::max(y1, y);
    }
  }
  if (x1 <= x0)
    x1 = x0 + 1;
  if (y1 <= y0)
    y1 = y0 + 1;
  auto px = [&](double x) {
    return left + (x - x0) / (x1 - x0) * (width - left - right);
  };
  auto py = [&](double y) {
    return top + (1 - (y - y0) / (y1 - y0)) * (height - top - bottom);
  };
  os << llvm::formatv("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" "
                      "class=\"axis\"/>",
                      left, height - bottom, width - right);
  os << llvm::formatv("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" "
                      "class=\"axis\"/>",
                      left, top, height - bottom);
  os << llvm::formatv("<text x=\"{0}\" y=\"{1}\" class=\"tick\" "
                      "text-anchor=\"end\">{2:g} {3}</text>",
                      left - 4, top + 4, y1, escapeHtml(yUnit));
  os << llvm::formatv("<text x=\"{0}\" y=\"{1}\" class=\"tick\" "
                      "text-anchor=\"end\">{2:g}</text>",
                      left - 4, height - bottom, y0);
  os << llvm::formatv("<text x=\"{0}\" y=\"{1}\" class=\"tick\">step "
                      "{2:g}</text><text x=\"{3}\" y=\"{1}\" class=\"tick\" "
                      "text-anchor=\"end\">{4:g}</text>",
                      left, height - 8, x0, width - right, x1);
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
                        at, top, height - bottom, at + 3,
                        top + 10 + 12 * (stacked % 8), escapeHtml(label));
  }
  os << "<polyline class=\"series\" points=\"";
  for (auto [x, y] : points)
    if (std::isfinite(y))
      os << llvm::formatv("{0:f1},{1:f1} ", px(x), py(y));
  os << "\"/></svg>";
  return out;
}

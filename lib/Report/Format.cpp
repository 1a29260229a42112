//===- Format.cpp - seconds, joules and objectives as text ----------------===//

#include "HwAgent/Report/Format.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>

/// `value` of `unit` with a prefix for its magnitude: "12.3 u<unit>",
/// "4.56 m<unit>" or "1.23 <unit>".
static std::string formatWithPrefix(double value, const char *unit) {
  if (!std::isfinite(value))
    return "illegal";
  double magnitude = std::abs(value);
  if (magnitude < 1e-3)
    return llvm::formatv("{0:f1} u{1}", value * 1e6, unit).str();
  if (magnitude < 1.0)
    return llvm::formatv("{0:f2} m{1}", value * 1e3, unit).str();
  return llvm::formatv("{0:f2} {1}", value, unit).str();
}

std::string hwreport::formatSeconds(double seconds) {
  return formatWithPrefix(seconds, "s");
}

std::string hwreport::formatJoules(double joules) {
  return formatWithPrefix(joules, "J");
}

std::string hwreport::formatObjective(hwcore::Objective objective,
                                      double value) {
  switch (objective) {
  case hwcore::Objective::time:
    return formatSeconds(value);
  case hwcore::Objective::energy:
    return formatJoules(value);
  case hwcore::Objective::edp:
    return llvm::formatv("{0:e2} J*s", value).str();
  }
  return formatSeconds(value);
}

std::string hwreport::formatScaled(double v, const char *unit, int digits) {
  if (!std::isfinite(v))
    return "-";
  if (v >= 1)
    return llvm::formatv("{0} {1}", llvm::format("%.*f", digits, v), unit);
  if (v >= 1e-3)
    return llvm::formatv("{0:f3} m{1}", v * 1e3, unit);
  return llvm::formatv("{0:f1} u{1}", v * 1e6, unit);
}

std::string hwreport::formatBytes(double b) {
  if (b >= 1 << 20)
    return llvm::formatv("{0:f1} MiB", b / (1 << 20));
  if (b >= 1 << 10)
    return llvm::formatv("{0:f1} KiB", b / (1 << 10));
  return llvm::formatv("{0} B", int64_t(b));
}

std::string hwreport::formatFlops(double flops) {
  const struct {
    double scale;
    const char *prefix;
  } units[] = {{1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}};
  for (const auto &unit : units)
    if (flops >= unit.scale)
      return llvm::formatv("{0:f1} {1}FLOP", flops / unit.scale, unit.prefix);
  return llvm::formatv("{0} FLOP", int64_t(flops));
}

std::string hwreport::formatCount(size_t n, const char *noun) {
  return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

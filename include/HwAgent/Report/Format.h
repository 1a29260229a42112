//===- Format.h - seconds, joules and objectives as text --------*- C++ -*-===//
//
// The compiler's units as people read them: remarks, the text summary and
// the DOT graph print values with these (the HTML page has its own table
// format, HwAgent/ReportHtml).
//
//===----------------------------------------------------------------------===//

#ifndef HWAGENT_REPORT_FORMAT_H
#define HWAGENT_REPORT_FORMAT_H

#include "HwAgent/Core/Vocabulary.h"

#include <cstddef>
#include <string>

namespace hwreport {

/// "12.3 us" / "4.56 ms" / "1.23 s"; "illegal" for an infinite time.
std::string formatSeconds(double seconds);
/// Joules as "12.3 uJ", "4.56 mJ" or "1.23 J".
std::string formatJoules(double joules);
/// An objective's value: seconds, joules or joule-seconds.
std::string formatObjective(hwcore::Objective objective, double value);

/// The page's and the program graph's units (tables read "12.220 ms"): `v`
/// in `unit` (with `digits` decimals), milli-`unit` or micro-`unit`,
/// whichever reads best; "-" when not finite.
std::string formatScaled(double v, const char *unit, int digits);
/// "1.5 MiB", "3.0 KiB", "12 B".
std::string formatBytes(double b);
/// Floating-point operations as "38.7 GFLOP", "512.0 MFLOP", "3.2 kFLOP"
/// or "12 FLOP" (decimal prefixes, as FLOP counts are quoted).
std::string formatFlops(double flops);

/// "1 program", "3 programs": `n` and `noun`, with an "s" unless `n` is 1.
std::string formatCount(size_t n, const char *noun);

} // namespace hwreport

#endif // HWAGENT_REPORT_FORMAT_H

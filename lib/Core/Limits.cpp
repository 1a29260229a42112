//===- Limits.cpp - the ranges compiler and runtime both accept -----------===//

#include "HwAgent/Core/Limits.h"

#include <cmath>
#include <sstream>

using namespace hwcore;

static_assert(kMaxWatts == 1e6 && kMaxJoules == 1e6,
              "the messages print the range as [0, 1e6]");

bool hwcore::physicalEnergy(double value) {
  return std::isfinite(value) && value >= 0 && value <= kMaxWatts;
}

/// "[0, 1e6], got <value>": the value as a C++ stream prints it (six
/// significant digits, as absl::StrCat does).
static std::string rangeGot(double value) {
  std::ostringstream os;
  os << value;
  return "[0, 1e6], got " + os.str();
}

std::string hwcore::checkPowerCap(double watts) {
  if (physicalEnergy(watts))
    return "";
  std::ostringstream os;
  os << watts;
  return "power cap must be watts in [0, 1e6] (0: none), got " + os.str();
}

std::string hwcore::checkPowerModel(const PowerModel &power) {
  for (BackendKind kind : kAllBackends) {
    unsigned b = index(kind);
    for (double watts : {power.idle[b], power.running[b]})
      if (!physicalEnergy(watts))
        return std::string("power of backend ") + backendName(kind) +
               ": idle and running watts must be in " + rangeGot(watts);
  }
  for (double watts :
       {power.boundary, power.boundaryPerByte, power.staticPower})
    if (!physicalEnergy(watts))
      return "power: boundary, boundary_per_byte and static_power must be "
             "in " +
             rangeGot(watts);
  return "";
}

std::string hwcore::checkFixedJoules(BackendKind backend, double joules) {
  if (physicalEnergy(joules))
    return "";
  return std::string("fixed joules on ") + backendName(backend) +
         " must be in " + rangeGot(joules);
}

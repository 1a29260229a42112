//===- HwAgentInterfaces.cpp - feature extraction interface ---------------===//

#include "HwAgent/IR/HwAgentInterfaces.h"

#include "HwAgent/IR/HwAgentInterfaces.cpp.inc"

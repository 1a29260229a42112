//===- HwAgentDialect.cpp - hwagent dialect -------------------------------===//

#include "HwAgent/IR/HwAgentDialect.h"
#include "HwAgent/IR/HwAgentOps.h"

using namespace mlir;
using namespace mlir::hwagent;

#include "HwAgent/IR/HwAgentOpsDialect.cpp.inc"

void HwAgentDialect::initialize() {
  registerAttributes();
  addOperations<
#define GET_OP_LIST
#include "HwAgent/IR/HwAgentOps.cpp.inc"
      >();
}

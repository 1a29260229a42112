//===- Utils.cpp - small IR helpers shared by hwagent analyses ------------===//

#include "HwAgent/Analysis/Utils.h"

using namespace mlir;

void hwagent::forEachInput(Operation *op, function_ref<void(Value)> fn) {
  for (Value operand : op->getOperands())
    fn(operand);
  if (op->getNumRegions() == 0)
    return;
  op->walk([&](Operation *nested) {
    if (nested == op)
      return;
    for (Value operand : nested->getOperands()) {
      Region *defRegion = operand.getParentRegion();
      if (defRegion && !op->isAncestor(defRegion->getParentOp()))
        fn(operand);
    }
  });
}

//===- ShareLoopNests.cpp - identical linalg ops compiled once ------------===//
//
// hwagent-share-loop-nests: a training step repeats the same ops on the
// same shapes (the blocks of a network, the backward pass's elementwise
// ops, the evaluation step's forward). Each copy used to become a loop nest
// of its own, and LLVM's optimization and code generation of those nests
// is most of a cold start (docs/importer.md, "Start-up"). Identical linalg
// ops on buffers (op, attributes, operand types, body; captured constants
// by value) are grouped with OperationEquivalence; each group of
// `min-copies` or more becomes one private noinline function taking the
// operands, called in place of every copy.
//
//===----------------------------------------------------------------------===//

#include "HwAgent/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::hwagent {
#define GEN_PASS_DEF_SHARELOOPNESTS
#include "HwAgent/Transforms/Passes.h.inc"
} // namespace mlir::hwagent

using namespace mlir;

namespace {

constexpr auto kFlags = OperationEquivalence::IgnoreLocations;

/// The values `op`'s regions read from above it; failure when one is not a
/// constant (it would have to become an argument whose value differs per
/// copy: such ops stay where they are).
FailureOr<llvm::SetVector<Value>> capturedConstants(Operation *op) {
  llvm::SetVector<Value> above;
  getUsedValuesDefinedAbove(op->getRegions(), above);
  for (Value v : above) {
    Operation *def = v.getDefiningOp();
    if (!def || !def->hasTrait<OpTrait::ConstantLike>())
      return failure();
  }
  return above;
}

/// A linalg op on buffers, without results, that lowers to loops.
bool isCandidate(Operation *op) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  return linalgOp && linalgOp.hasPureBufferSemantics() &&
         op->getNumResults() == 0 && succeeded(capturedConstants(op));
}

/// The op's hash without its operands' identities: their types only.
llvm::hash_code shapeHash(Operation *op) {
  return OperationEquivalence::computeHash(
      op, [](Value v) { return hash_value(v.getType()); },
      OperationEquivalence::ignoreHashValue, kFlags);
}

/// Identical but for the operands: the op's own operands may be any values
/// of the same types; values its body captures must be equal constants, and
/// values defined in the body must correspond (block arguments and results
/// are marked as they are matched).
bool sameComputation(Operation *lhs, Operation *rhs) {
  llvm::DenseMap<Value, Value> matched;
  auto mark = [&](Value a, Value b) { matched[a] = b; };
  auto check = [&](Value a, Value b) -> LogicalResult {
    if (a == b || matched.lookup(a) == b)
      return success();
    // A value of the body that was not matched above differs.
    if (a.getType() != b.getType() ||
        lhs->isAncestor(a.getParentRegion()->getParentOp()))
      return failure();
    if (llvm::is_contained(lhs->getOperands(), a) &&
        llvm::is_contained(rhs->getOperands(), b))
      return success();
    Operation *da = a.getDefiningOp(), *db = b.getDefiningOp();
    return success(da && db &&
                   OperationEquivalence::isEquivalentTo(da, db, kFlags));
  };
  return OperationEquivalence::isEquivalentTo(lhs, rhs, check, mark, kFlags);
}

/// `@name(operands...)` holding a clone of `op` (and of the constants its
/// body reads), inserted at `module`'s end.
func::FuncOp outline(ModuleOp module, Operation *op, StringRef name) {
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  auto type =
      b.getFunctionType(TypeRange(ValueRange(op->getOperands())), TypeRange());
  auto fn = func::FuncOp::create(b, op->getLoc(), name, type);
  fn.setPrivate();
  // LLVM would inline a small function straight back into every caller.
  fn->setAttr("passthrough", b.getArrayAttr({b.getStringAttr("noinline")}));
  Block *body = fn.addEntryBlock();
  b.setInsertionPointToStart(body);
  IRMapping map;
  map.map(op->getOperands(), body->getArguments());
  llvm::SetVector<Value> captured = *capturedConstants(op);
  for (Value value : captured)
    map.map(value, b.clone(*value.getDefiningOp())->getResult(0));
  b.clone(*op, map);
  func::ReturnOp::create(b, op->getLoc());
  return fn;
}

struct ShareLoopNestsPass
    : public hwagent::impl::ShareLoopNestsBase<ShareLoopNestsPass> {
  using ShareLoopNestsBase::ShareLoopNestsBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Groups of identical ops, in the order their first copy appears.
    SmallVector<SmallVector<Operation *>> groups;
    llvm::DenseMap<llvm::hash_code, SmallVector<unsigned>> byHash;
    module.walk([&](Operation *op) {
      if (!isCandidate(op))
        return;
      SmallVector<unsigned> &same = byHash[shapeHash(op)];
      for (unsigned g : same)
        if (sameComputation(groups[g].front(), op)) {
          groups[g].push_back(op);
          return;
        }
      same.push_back(groups.size());
      groups.push_back({op});
    });

    SymbolTable symbols(module);
    unsigned next = 0;
    for (ArrayRef<Operation *> group : groups) {
      if (int64_t(group.size()) < std::max<int64_t>(2, minCopies))
        continue;
      std::string name;
      do
        name = "__hwagent_shared_" + std::to_string(next++);
      while (symbols.lookup(name));
      func::FuncOp fn = outline(module, group.front(), name);
      symbols.insert(fn);
      for (Operation *op : group) {
        OpBuilder b(op);
        func::CallOp::create(b, op->getLoc(), fn, op->getOperands());
        op->erase();
      }
    }
  }
};

} // namespace

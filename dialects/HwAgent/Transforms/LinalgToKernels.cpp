//===- LinalgToKernels.cpp - large contractions as kernel calls ----------===//
//
// hwagent-linalg-to-kernels: on bufferized code, each large f32 contraction
// (a linalg op computing C += A * B over loops, its operands indexed by
// affine sums of the loops) becomes one call of the runtime's
// hwagent_contract_f32 with a constant spec of its loops and index
// expressions (layout in hwagent_kernels.h). The kernel packs the operands
// and multiplies them with oneDNN's SGEMM, or runs a convolution
// (hwcore::recognizeConvolution) as oneDNN's convolution primitive, so a
// convolution too thin for GEMMs (depthwise) is sent as well. This is
// IREE's "ukernel" split: the compiler decides what is a contraction, a
// tuned library does the inner product (docs/cpu-backend.md).
//
//===----------------------------------------------------------------------===//

#include "HwAgent/Transforms/Passes.h"

#include "HwAgent/Core/Convolution.h"
#include "hwagent_rt/hwagent_kernels.h"

#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"

#include <limits>

namespace mlir::hwagent {
#define GEN_PASS_DEF_LINALGTOKERNELS
#define GEN_PASS_DEF_EXPANDSTRIDEDCOPIES
#include "HwAgent/Transforms/Passes.h.inc"
} // namespace mlir::hwagent

using namespace mlir;
using namespace mlir::hwagent;

namespace {

constexpr StringLiteral kKernelName = HWAGENT_CONTRACT_F32_SYMBOL;

/// An index expression: constant + sum of coefficient * loop.
struct Linear {
  int64_t constant = 0;
  SmallVector<std::pair<int64_t, int64_t>> terms;
};

/// Adds scale * `expr` to `out`; false when `expr` is not an affine sum of
/// dimensions (mod, floordiv, symbols, a product of two dimensions).
bool linearize(AffineExpr expr, int64_t scale, Linear &out) {
  if (auto d = dyn_cast<AffineDimExpr>(expr)) {
    out.terms.push_back({d.getPosition(), scale});
    return true;
  }
  if (auto c = dyn_cast<AffineConstantExpr>(expr)) {
    out.constant += scale * c.getValue();
    return true;
  }
  auto binary = dyn_cast<AffineBinaryOpExpr>(expr);
  if (!binary)
    return false;
  if (binary.getKind() == AffineExprKind::Add)
    return linearize(binary.getLHS(), scale, out) &&
           linearize(binary.getRHS(), scale, out);
  if (binary.getKind() == AffineExprKind::Mul) {
    if (auto c = dyn_cast<AffineConstantExpr>(binary.getRHS()))
      return linearize(binary.getLHS(), scale * c.getValue(), out);
    if (auto c = dyn_cast<AffineConstantExpr>(binary.getLHS()))
      return linearize(binary.getRHS(), scale * c.getValue(), out);
  }
  return false;
}

/// True for a body `yield(acc + a * b)` over f32 (either operand order).
bool isMultiplyAccumulate(linalg::LinalgOp op) {
  Block *body = op.getBlock();
  if (body->getNumArguments() != 3 ||
      !llvm::all_of(body->getArgumentTypes(), [](Type t) { return t.isF32(); }))
    return false;
  auto yield = dyn_cast<linalg::YieldOp>(body->getTerminator());
  if (!yield || yield.getNumOperands() != 1 ||
      !llvm::hasNItems(body->without_terminator(), 2))
    return false;
  auto add = yield.getOperand(0).getDefiningOp<arith::AddFOp>();
  if (!add)
    return false;
  Value a = body->getArgument(0), b = body->getArgument(1),
        acc = body->getArgument(2);
  Value product = add.getLhs() == acc ? add.getRhs() : add.getLhs();
  if (add.getLhs() != acc && add.getRhs() != acc)
    return false;
  auto mul = product.getDefiningOp<arith::MulFOp>();
  return mul && ((mul.getLhs() == a && mul.getRhs() == b) ||
                 (mul.getLhs() == b && mul.getRhs() == a));
}

/// The spec of `op` (hwagent_kernels.h), or nothing when the kernel cannot
/// or should not run it.
std::optional<SmallVector<int64_t>> specOf(linalg::LinalgOp op,
                                           int64_t minFlops, int64_t minDim) {
  if (!op.hasPureBufferSemantics() || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1 || !isMultiplyAccumulate(op))
    return std::nullopt;
  for (OpOperand &operand : op->getOpOperands()) {
    auto type = dyn_cast<MemRefType>(operand.get().getType());
    if (!type || !type.getElementType().isF32() || !type.hasStaticShape() ||
        type.getNumElements() > std::numeric_limits<int32_t>::max())
      return std::nullopt;
  }
  SmallVector<int64_t> extents = op.getStaticLoopRanges();
  if (extents.size() > 16 || llvm::any_of(extents, ShapedType::isDynamic))
    return std::nullopt;

  SmallVector<int64_t> spec = {HWAGENT_CONTRACT_SPEC_VERSION,
                               static_cast<int64_t>(extents.size())};
  spec.append(extents.begin(), extents.end());
  // Which operands each loop moves: A = 1, B = 2, C = 4.
  SmallVector<unsigned> uses(extents.size(), 0);
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  for (auto [o, map] : llvm::enumerate(maps)) {
    if (map.getNumSymbols() != 0)
      return std::nullopt;
    spec.push_back(map.getNumResults());
    for (AffineExpr expr : map.getResults()) {
      Linear index;
      if (!linearize(expr, 1, index))
        return std::nullopt;
      spec.push_back(index.constant);
      spec.push_back(static_cast<int64_t>(index.terms.size()));
      for (auto [loop, coefficient] : index.terms) {
        spec.push_back(loop);
        spec.push_back(coefficient);
        if (coefficient != 0)
          uses[loop] |= 1u << o;
      }
    }
  }
  // GEMM dimensions as the kernel will see them (batch loops aside).
  uint64_t m = 1, n = 1, k = 1, points = 1;
  for (auto [extent, use] : llvm::zip(extents, uses)) {
    auto e = static_cast<uint64_t>(extent);
    points = llvm::SaturatingMultiply(points, e);
    if (!(use & 4))
      k = llvm::SaturatingMultiply(k, e);
    else if ((use & 3) == 2)
      n = llvm::SaturatingMultiply(n, e);
    else if ((use & 3) != 3)
      m = llvm::SaturatingMultiply(m, e);
  }
  uint64_t flops = llvm::SaturatingMultiply(points, uint64_t{2});
  auto lo = static_cast<uint64_t>(std::max<int64_t>(minDim, 0));
  uint64_t limit = std::numeric_limits<int32_t>::max();
  if (flops < static_cast<uint64_t>(std::max<int64_t>(minFlops, 0)) ||
      std::max({m, n, k}) > limit)
    return std::nullopt;
  // A thin GEMM (a depthwise convolution is N = 1, K = 9) loses to the
  // loops, but the kernel runs a convolution as oneDNN's convolution
  // primitive, not as GEMMs.
  if ((m < lo || n < lo || k < lo) &&
      !hwcore::recognizeConvolution(spec.data(),
                                    static_cast<int64_t>(spec.size())))
    return std::nullopt;
  return spec;
}

struct LinalgToKernelsPass
    : hwagent::impl::LinalgToKernelsBase<LinalgToKernelsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    SmallVector<std::pair<linalg::LinalgOp, SmallVector<int64_t>>> work;
    module.walk([&](linalg::LinalgOp op) {
      if (auto spec = specOf(op, minFlops, minDim))
        work.push_back({op, std::move(*spec)});
    });
    if (work.empty())
      return;

    OpBuilder b(ctx);
    b.setInsertionPointToStart(module.getBody());
    Location loc = module.getLoc();
    Type f32 = Float32Type::get(ctx);
    auto unranked = UnrankedMemRefType::get(f32, 0);
    auto specType = MemRefType::get({ShapedType::kDynamic}, b.getI64Type());
    SymbolTable symbols(module);
    auto kernel = symbols.lookup<func::FuncOp>(kKernelName);
    if (!kernel) {
      kernel = func::FuncOp::create(
          b, loc, kKernelName,
          b.getFunctionType({specType, unranked, unranked, unranked}, {}));
      kernel.setPrivate();
      kernel->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                      b.getUnitAttr());
      symbols.insert(kernel);
    }

    // One constant global per distinct spec.
    llvm::DenseMap<ArrayRef<int64_t>, memref::GlobalOp> globals;
    for (auto &[op, spec] : work) {
      memref::GlobalOp &global = globals[spec];
      if (!global) {
        auto type = MemRefType::get({static_cast<int64_t>(spec.size())},
                                    b.getI64Type());
        auto value = DenseIntElementsAttr::get(
            RankedTensorType::get(type.getShape(), b.getI64Type()),
            ArrayRef<int64_t>(spec));
        b.setInsertionPointToStart(module.getBody());
        global = memref::GlobalOp::create(
            b, loc, "__hwagent_contract_spec", b.getStringAttr("private"), type,
            value, /*constant=*/true, /*alignment=*/nullptr);
        symbols.insert(global); // Renames it uniquely.
      }
      b.setInsertionPoint(op);
      Location at = op.getLoc();
      Value specValue = memref::GetGlobalOp::create(b, at, global.getType(),
                                                    global.getSymName());
      SmallVector<Value> args = {
          memref::CastOp::create(b, at, specType, specValue)};
      for (OpOperand &operand : op->getOpOperands())
        args.push_back(memref::CastOp::create(b, at, unranked, operand.get()));
      func::CallOp::create(b, at, kernel, args);
      op->erase();
      ++numKernelCalls;
    }
  }
};

struct ExpandStridedCopiesPass
    : hwagent::impl::ExpandStridedCopiesBase<ExpandStridedCopiesPass> {
  void runOnOperation() override {
    SmallVector<memref::CopyOp> copies;
    getOperation().walk([&](memref::CopyOp copy) {
      auto source = dyn_cast<MemRefType>(copy.getSource().getType());
      auto target = dyn_cast<MemRefType>(copy.getTarget().getType());
      if (source && target && source.hasRank() &&
          (!source.getLayout().isIdentity() ||
           !target.getLayout().isIdentity()))
        copies.push_back(copy);
    });
    for (memref::CopyOp copy : copies) {
      OpBuilder b(copy);
      linalg::CopyOp::create(b, copy.getLoc(), copy.getSource(),
                             copy.getTarget());
      copy.erase();
    }
  }
};

} // namespace

//===- ParallelLoops.cpp - loops outside the kernels on every core --------===//
//
// hwagent-outline-parallel-loops turns each large top-level scf.parallel of
// a bufferized function into a call of a dispatcher that runs slices of its
// outermost dimension on the runtime's threads (hwagent_parallel_for);
// hwagent-define-parallel-dispatch writes the dispatcher once the LLVM
// lowering has flattened the loop's captured values into scalars. The split
// is IREE's and MLIR's async-parallel-for's: outline the body as a function
// of an iteration range, hand the range to a thread pool. The pool is the
// OpenMP runtime oneDNN already uses (libgomp), so the process has one set
// of worker threads and one thread limit (docs/cpu-backend.md).
//
//===----------------------------------------------------------------------===//

#include "HwAgent/Transforms/Passes.h"
#include "hwagent_rt/hwagent_kernels.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/RegionUtils.h"

#include <optional>

namespace mlir::hwagent {
#define GEN_PASS_DEF_ORDERLOOPS
#define GEN_PASS_DEF_OUTLINEPARALLELLOOPS
#define GEN_PASS_DEF_DEFINEPARALLELDISPATCH
#include "HwAgent/Transforms/Passes.h.inc"
} // namespace mlir::hwagent

using namespace mlir;

namespace {

constexpr StringLiteral kBodyPrefix = "__hwagent_par_body_";
constexpr StringLiteral kDispatchPrefix = "__hwagent_par_dispatch_";
constexpr StringLiteral kTrampolinePrefix = "__hwagent_par_tramp_";
constexpr StringLiteral kRuntimeEntry = HWAGENT_PARALLEL_FOR_SYMBOL;
/// Trip count assumed for a loop whose bounds are not constants.
constexpr double kUnknownTrips = 16;
/// Leading dimensions are collapsed into the outermost one until it has at
/// least this many iterations, so that two to sixteen threads get balanced
/// slices (a batch of 8 is not enough for 12 cores).
constexpr int64_t kMinOuterIterations = 64;

std::optional<int64_t> staticTrips(Value lb, Value ub, Value step) {
  std::optional<int64_t> l = getConstantIntValue(lb),
                         u = getConstantIntValue(ub),
                         s = getConstantIntValue(step);
  if (!l || !u || !s || *s <= 0)
    return std::nullopt;
  return *u <= *l ? 0 : (*u - *l + *s - 1) / *s;
}

double trips(scf::ParallelOp loop, unsigned dim) {
  std::optional<int64_t> n =
      staticTrips(loop.getLowerBound()[dim], loop.getUpperBound()[dim],
                  loop.getStep()[dim]);
  return n ? static_cast<double>(*n) : kUnknownTrips;
}

/// Ops one execution of `block` runs, nested loops multiplied by their trip
/// counts: the unit of the runtime's grain (an op of a vectorized loop body
/// is a fraction of a nanosecond per element, a call or a division more).
double blockWork(Block &block) {
  double work = 0;
  for (Operation &op : block) {
    double inner = 0;
    for (Region &region : op.getRegions())
      for (Block &nested : region)
        inner += blockWork(nested);
    double times = 1;
    if (auto loop = dyn_cast<scf::ForOp>(op)) {
      std::optional<int64_t> n = staticTrips(
          loop.getLowerBound(), loop.getUpperBound(), loop.getStep());
      times = n ? static_cast<double>(*n) : kUnknownTrips;
    } else if (auto loop = dyn_cast<scf::ParallelOp>(op)) {
      for (unsigned d = 0; d < loop.getNumLoops(); ++d)
        times *= trips(loop, d);
    }
    work += 1 + times * inner;
  }
  return work;
}

bool capturable(Type type) {
  return isa<MemRefType, IndexType, IntegerType, FloatType, VectorType>(type);
}

/// Loops (by position) whose coefficient in `expr` is one: `expr` is a
/// dimension or a sum with that dimension as a term (a window's `oh + kh`).
void unitTerms(AffineExpr expr, SmallVectorImpl<unsigned> &out) {
  if (auto dim = dyn_cast<AffineDimExpr>(expr)) {
    out.push_back(dim.getPosition());
    return;
  }
  auto binary = dyn_cast<AffineBinaryOpExpr>(expr);
  if (binary && binary.getKind() == AffineExprKind::Add) {
    unitTerms(binary.getLHS(), out);
    unitTerms(binary.getRHS(), out);
  }
}

/// The loop order hwagent-order-loops gives `op` (interchangeGenericOp's
/// vector: new position -> old), or nothing when it keeps its own.
std::optional<SmallVector<unsigned>> loopOrder(linalg::LinalgOp op) {
  unsigned numLoops = op.getNumLoops();
  if (numLoops < 2 || op.getNumDpsInits() != 1)
    return std::nullopt;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  // How each loop would do innermost, per operand: it leaves the operand
  // where it is (+1: a register), moves it along its unit-stride dimension
  // (+1: a vector), or moves it by a larger stride (-2: a cache line per
  // element).
  SmallVector<double> score(numLoops, 0);
  for (OpOperand &operand : op->getOpOperands()) {
    AffineMap map = op.getMatchingIndexingMap(&operand);
    auto type = dyn_cast<MemRefType>(operand.get().getType());
    bool unitInner = false;
    if (type && type.getRank() > 0) {
      SmallVector<int64_t> strides;
      int64_t offset;
      unitInner = succeeded(type.getStridesAndOffset(strides, offset)) &&
                  strides.back() == 1;
    }
    SmallVector<unsigned> contiguous;
    if (unitInner)
      unitTerms(map.getResult(map.getNumResults() - 1), contiguous);
    for (unsigned l = 0; l < numLoops; ++l) {
      if (!map.isFunctionOfDim(l))
        score[l] += 1;
      else if (llvm::is_contained(contiguous, l) &&
               !llvm::any_of(map.getResults().drop_back(), [&](AffineExpr e) {
                 return e.isFunctionOfDim(l);
               }))
        score[l] += 1;
      else
        score[l] -= 2;
    }
  }
  // A short loop gains less from being innermost (a 3-tap window is not a
  // vector): positive scores are weighted by the trip count up to 16.
  for (unsigned l = 0; l < numLoops; ++l) {
    int64_t trips = ranges[l];
    if (score[l] > 0 && !ShapedType::isDynamic(trips) && trips < 16)
      score[l] *= static_cast<double>(trips) / 16.0;
  }
  // The innermost: the best score, the current innermost unless another is
  // strictly better, a parallel loop over a reduction on ties.
  unsigned inner = numLoops - 1;
  for (unsigned l = 0; l < numLoops; ++l) {
    bool parallel = iterators[l] == utils::IteratorType::parallel;
    bool innerParallel = iterators[inner] == utils::IteratorType::parallel;
    if (score[l] > score[inner] ||
        (score[l] == score[inner] && parallel && !innerParallel))
      inner = l;
  }
  SmallVector<unsigned> order;
  SmallVector<bool> placed(numLoops, false);
  auto place = [&](unsigned l) {
    if (!placed[l] && l != inner) {
      placed[l] = true;
      order.push_back(l);
    }
  };
  AffineMap output = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  for (AffineExpr result : output.getResults())
    if (auto dim = dyn_cast<AffineDimExpr>(result))
      if (iterators[dim.getPosition()] == utils::IteratorType::parallel)
        place(dim.getPosition());
  for (unsigned l = 0; l < numLoops; ++l)
    if (iterators[l] == utils::IteratorType::parallel)
      place(l);
  for (unsigned l = 0; l < numLoops; ++l)
    place(l);
  order.push_back(inner);
  for (unsigned l = 0; l < numLoops; ++l)
    if (order[l] != l)
      return order;
  return std::nullopt;
}

struct OrderLoopsPass : public hwagent::impl::OrderLoopsBase<OrderLoopsPass> {
  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> ops;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (op.hasPureBufferSemantics())
        ops.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : ops) {
      std::optional<SmallVector<unsigned>> order = loopOrder(op);
      if (!order)
        continue;
      rewriter.setInsertionPoint(op);
      auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
      if (!generic) {
        FailureOr<linalg::GenericOp> generalized =
            linalg::generalizeNamedOp(rewriter, op);
        if (failed(generalized))
          continue;
        generic = *generalized;
      }
      (void)linalg::interchangeGenericOp(rewriter, generic, *order);
    }
  }
};

struct OutlineParallelLoopsPass
    : public hwagent::impl::OutlineParallelLoopsBase<OutlineParallelLoopsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<scf::ParallelOp> loops;
    for (auto fn : module.getOps<func::FuncOp>())
      fn.walk([&](scf::ParallelOp loop) {
        // Only loops directly in a function body: one nested in a
        // sequential loop (the LSTM's time loop) would fork per iteration.
        if (isa<func::FuncOp>(loop->getParentOp()) && loop.getNumResults() == 0)
          loops.push_back(loop);
      });
    SymbolTable symbols(module);
    unsigned counter = 0;
    for (scf::ParallelOp loop : loops)
      outline(collapseLeading(loop), symbols, counter);
  }

  /// Collapses leading dimensions with static trip counts into the first
  /// until it has kMinOuterIterations (the innermost dimension, the one the
  /// JIT vectorizes, stays as it is).
  scf::ParallelOp collapseLeading(scf::ParallelOp loop) {
    unsigned numLoops = loop.getNumLoops();
    unsigned last = 0;
    int64_t outer = 1;
    for (unsigned d = 0; d + 1 < numLoops; ++d) {
      std::optional<int64_t> n = staticTrips(
          loop.getLowerBound()[d], loop.getUpperBound()[d], loop.getStep()[d]);
      if (!n)
        break;
      outer *= *n;
      last = d;
      if (outer >= kMinOuterIterations)
        break;
    }
    if (last == 0)
      return loop;
    std::vector<unsigned> first;
    for (unsigned d = 0; d <= last; ++d)
      first.push_back(d);
    SmallVector<std::vector<unsigned>> groups = {first};
    for (unsigned d = last + 1; d < numLoops; ++d)
      groups.push_back({d});
    Block *block = loop->getBlock();
    Operation *prev = loop->getPrevNode(), *next = loop->getNextNode();
    IRRewriter rewriter(loop.getContext());
    collapseParallelLoops(rewriter, loop, groups);
    auto collapsed = cast<scf::ParallelOp>(next->getPrevNode());
    // The collapse computes the new bounds with arith ops on constants: fold
    // them, so that the outlined body keeps constant inner trip counts (the
    // JIT vectorizes those without runtime checks) instead of capturing them.
    SmallVector<Operation *> created;
    for (Operation *op = prev ? prev->getNextNode() : &block->front();
         op != collapsed.getOperation(); op = op->getNextNode())
      created.push_back(op);
    for (Operation *op : created)
      foldInPlace(op);
    return collapsed;
  }

  /// Replaces `op` by the constant or value it folds to (in program order,
  /// so that chains of constant arithmetic fold completely).
  static void foldInPlace(Operation *op) {
    if (op->getNumResults() != 1 || op->getNumRegions() != 0)
      return;
    SmallVector<Attribute> operands;
    for (Value operand : op->getOperands()) {
      Attribute constant;
      matchPattern(operand, m_Constant(&constant));
      operands.push_back(constant);
    }
    SmallVector<OpFoldResult> results;
    if (failed(op->fold(operands, results)) || results.size() != 1)
      return;
    Value replacement = dyn_cast<Value>(results.front());
    if (!replacement) {
      auto attr = dyn_cast<TypedAttr>(cast<Attribute>(results.front()));
      if (!attr || !arith::ConstantOp::isBuildableWith(attr, attr.getType()))
        return;
      OpBuilder b(op);
      replacement = arith::ConstantOp::create(b, op->getLoc(), attr);
    }
    if (replacement == op->getResult(0))
      return;
    op->getResult(0).replaceAllUsesWith(replacement);
    op->erase();
  }

  std::string freshName(SymbolTable &symbols, unsigned &counter) {
    while (true) {
      std::string suffix = std::to_string(counter++);
      if (!symbols.lookup((kBodyPrefix + suffix).str()) &&
          !symbols.lookup((kDispatchPrefix + suffix).str()) &&
          !symbols.lookup((kTrampolinePrefix + suffix).str()))
        return suffix;
    }
  }

  void outline(scf::ParallelOp loop, SymbolTable &symbols, unsigned &counter) {
    double perIteration = blockWork(*loop.getBody());
    for (unsigned d = 1; d < loop.getNumLoops(); ++d)
      perIteration *= trips(loop, d);
    std::optional<int64_t> outer = staticTrips(
        loop.getLowerBound()[0], loop.getUpperBound()[0], loop.getStep()[0]);
    if (outer && (*outer < 2 || perIteration * *outer < minWork))
      return;

    // What the body reads from above: constants are cloned, the rest passed.
    SetVector<Value> used;
    getUsedValuesDefinedAbove(loop.getRegion(), used);
    for (Value operand : loop->getOperands())
      used.insert(operand);
    SmallVector<Value> captured;
    SmallVector<Operation *> constants;
    for (Value value : used) {
      Operation *def = value.getDefiningOp();
      if (def && def->hasTrait<OpTrait::ConstantLike>() &&
          def->getNumOperands() == 0 && def->getNumResults() == 1) {
        constants.push_back(def);
        continue;
      }
      if (!capturable(value.getType()))
        return; // Left inline: runs on one thread, as before.
      captured.push_back(value);
    }

    MLIRContext *ctx = loop.getContext();
    Location loc = loop.getLoc();
    auto parent = loop->getParentOfType<func::FuncOp>();
    Type index = IndexType::get(ctx);
    SmallVector<Type> params = {index, index};
    for (Value value : captured)
      params.push_back(value.getType());
    auto type = FunctionType::get(ctx, params, {});
    std::string suffix = freshName(symbols, counter);

    OpBuilder b(ctx);
    b.setInsertionPointAfter(parent);
    auto body =
        func::FuncOp::create(b, loc, (kBodyPrefix + suffix).str(), type);
    body.setPrivate();
    auto dispatch =
        func::FuncOp::create(b, loc, (kDispatchPrefix + suffix).str(), type);
    dispatch.setPrivate();
    symbols.insert(body);
    symbols.insert(dispatch);

    // The body: the loop with its outermost range cut to [begin, end).
    Block *entry = body.addEntryBlock();
    b.setInsertionPointToStart(entry);
    IRMapping map;
    for (auto [i, value] : llvm::enumerate(captured))
      map.map(value, entry->getArgument(i + 2));
    for (Operation *constant : constants)
      map.map(constant->getResult(0), b.clone(*constant)->getResult(0));
    Value lb = map.lookup(loop.getLowerBound()[0]);
    Value ub = map.lookup(loop.getUpperBound()[0]);
    Value step = map.lookup(loop.getStep()[0]);
    auto at = [&](Value iteration) {
      return arith::AddIOp::create(
          b, loc, lb, arith::MulIOp::create(b, loc, iteration, step));
    };
    Value sliceLb = at(entry->getArgument(0));
    Value sliceUb =
        arith::MinSIOp::create(b, loc, ub, at(entry->getArgument(1)));
    auto slice = cast<scf::ParallelOp>(b.clone(*loop, map));
    unsigned numLoops = loop.getNumLoops();
    slice->setOperand(0, sliceLb);
    slice->setOperand(numLoops, sliceUb);
    func::ReturnOp::create(b, loc);

    // The call: the outermost dimension's iteration count and the work per
    // iteration, from which the runtime chooses the threads.
    b.setInsertionPoint(loop);
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value iterations = arith::MaxSIOp::create(
        b, loc,
        arith::CeilDivSIOp::create(
            b, loc,
            arith::SubIOp::create(b, loc, loop.getUpperBound()[0],
                                  loop.getLowerBound()[0]),
            loop.getStep()[0]),
        zero);
    Value work = arith::ConstantIndexOp::create(
        b, loc, static_cast<int64_t>(std::clamp(perIteration, 1.0, 1.0e15)));
    SmallVector<Value> operands = {iterations, work};
    operands.append(captured.begin(), captured.end());
    func::CallOp::create(b, loc, dispatch, operands);
    loop.erase();
  }
};

struct DefineParallelDispatchPass
    : public hwagent::impl::DefineParallelDispatchBase<
          DefineParallelDispatchPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<LLVM::LLVMFuncOp> dispatchers;
    for (auto fn : module.getOps<LLVM::LLVMFuncOp>())
      if (fn.isExternal() && fn.getName().starts_with(kDispatchPrefix))
        dispatchers.push_back(fn);
    if (dispatchers.empty())
      return;
    // One table for every look-up (ModuleOp::lookupSymbol scans the module:
    // a second per imported MobileNetV2 with its 750 parallel loops).
    SymbolTable symbols(module);
    LLVM::LLVMFuncOp runtime = runtimeEntry(module, symbols);
    for (LLVM::LLVMFuncOp dispatch : dispatchers)
      if (failed(define(module, symbols, dispatch, runtime)))
        return signalPassFailure();
  }

  /// `void hwagent_parallel_for(void (*)(void *, int64_t, int64_t), void *,
  /// int64_t iterations, int64_t work_per_iteration)`.
  LLVM::LLVMFuncOp runtimeEntry(ModuleOp module, SymbolTable &symbols) {
    if (auto existing = symbols.lookup<LLVM::LLVMFuncOp>(kRuntimeEntry))
      return existing;
    MLIRContext *ctx = &getContext();
    auto ptr = LLVM::LLVMPointerType::get(ctx);
    auto i64 = IntegerType::get(ctx, 64);
    OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
    return LLVM::LLVMFuncOp::create(
        b, module.getLoc(), kRuntimeEntry,
        LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx),
                                    {ptr, ptr, i64, i64}));
  }

  LogicalResult define(ModuleOp module, SymbolTable &symbols,
                       LLVM::LLVMFuncOp dispatch, LLVM::LLVMFuncOp runtime) {
    StringRef suffix = dispatch.getName().drop_front(kDispatchPrefix.size());
    auto body = symbols.lookup<LLVM::LLVMFuncOp>((kBodyPrefix + suffix).str());
    if (!body || body.isExternal())
      return dispatch.emitError("no outlined loop body ")
             << kBodyPrefix << suffix << " for this parallel dispatcher";
    MLIRContext *ctx = &getContext();
    auto ptr = LLVM::LLVMPointerType::get(ctx);
    auto i64 = IntegerType::get(ctx, 64);
    ArrayRef<Type> params = dispatch.getFunctionType().getParams();
    if (params.size() < 2 || params[0] != i64 || params[1] != i64 ||
        body.getFunctionType().getParams() != params)
      return dispatch.emitError("parallel dispatcher and body ")
             << kBodyPrefix << suffix
             << " disagree on their parameters (expected i64 iterations, "
                "i64 work, then the same captures)";
    auto captures = LLVM::LLVMStructType::getLiteral(ctx, params.drop_front(2));
    Location loc = dispatch.getLoc();
    auto voidType = LLVM::LLVMVoidType::get(ctx);

    // The trampoline: (context, begin, end) -> body(begin, end, captures).
    OpBuilder b(ctx);
    b.setInsertionPointAfter(body);
    auto trampoline = LLVM::LLVMFuncOp::create(
        b, loc, (kTrampolinePrefix + suffix).str(),
        LLVM::LLVMFunctionType::get(voidType, {ptr, i64, i64}),
        LLVM::Linkage::Internal);
    Block *entry = trampoline.addEntryBlock(b);
    b.setInsertionPointToStart(entry);
    auto field = [&](Value base, int32_t i) {
      return LLVM::GEPOp::create(b, loc, ptr, captures, base,
                                 ArrayRef<LLVM::GEPArg>{0, i});
    };
    SmallVector<Value> args = {entry->getArgument(1), entry->getArgument(2)};
    for (auto [i, param] : llvm::enumerate(params.drop_front(2)))
      args.push_back(LLVM::LoadOp::create(
          b, loc, param, field(entry->getArgument(0), int32_t(i))));
    LLVM::CallOp::create(b, loc, body, args);
    LLVM::ReturnOp::create(b, loc, ValueRange());

    // The dispatcher: captures into a stack struct, then the runtime.
    entry = dispatch.addEntryBlock(b);
    b.setInsertionPointToStart(entry);
    Value one = LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(1));
    Value context = LLVM::AllocaOp::create(b, loc, ptr, captures, one);
    for (unsigned i = 2; i < params.size(); ++i)
      LLVM::StoreOp::create(b, loc, entry->getArgument(i),
                            field(context, int32_t(i - 2)));
    Value function = LLVM::AddressOfOp::create(b, loc, trampoline);
    LLVM::CallOp::create(b, loc, runtime,
                         ValueRange{function, context, entry->getArgument(0),
                                    entry->getArgument(1)});
    LLVM::ReturnOp::create(b, loc, ValueRange());
    dispatch.setLinkage(LLVM::Linkage::Internal);
    body.setLinkage(LLVM::Linkage::Internal);
    return success();
  }
};

} // namespace

//===- ProgramDispatch.cpp - programs outlined and dispatched -------------===//

#include "LowerToRuntime.h"

#include "HwAgent/Analysis/Utils.h"
#include "hwagent_rt/hwagent_abi.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/Support/FormatVariadic.h"

#include <queue>

using namespace mlir;
using namespace mlir::hwagent;

//===----------------------------------------------------------------------===//
// Contiguous programs
//===----------------------------------------------------------------------===//

/// Orders one block: every program's regions become one unit, every other
/// op its own unit, and units are listed in a topological order that keeps
/// the original order where it can.
static LogicalResult
reorderBlock(Block &block,
             const llvm::DenseMap<Operation *, unsigned> &programOf,
             unsigned numPrograms) {
  Operation *terminator =
      block.mightHaveTerminator() ? block.getTerminator() : nullptr;
  SmallVector<Operation *> ops;
  for (Operation &op : block)
    if (&op != terminator)
      ops.push_back(&op);
  // Units: programs first (0..numPrograms-1), then the other ops.
  llvm::DenseMap<Operation *, unsigned> unitOf;
  std::vector<std::vector<Operation *>> members(numPrograms);
  std::vector<unsigned> firstPosition(numPrograms, ~0u);
  for (auto [position, op] : llvm::enumerate(ops)) {
    auto it = programOf.find(op);
    unsigned unit;
    if (it != programOf.end()) {
      unit = it->second;
    } else {
      unit = members.size();
      members.emplace_back();
      firstPosition.push_back(~0u);
    }
    unitOf[op] = unit;
    members[unit].push_back(op);
    firstPosition[unit] = std::min<unsigned>(firstPosition[unit], position);
  }
  unsigned numUnits = members.size();
  std::vector<SmallVector<unsigned>> successors(numUnits);
  std::vector<unsigned> indegree(numUnits, 0);
  for (Operation *op : ops) {
    unsigned to = unitOf[op];
    forEachInput(op, [&](Value value) {
      Operation *def = value.getDefiningOp();
      if (!def || def->getBlock() != &block || def == terminator)
        return;
      unsigned from = unitOf.lookup(def);
      if (from != to) {
        successors[from].push_back(to);
        ++indegree[to];
      }
    });
  }
  using Entry = std::pair<unsigned, unsigned>; // (first position, unit)
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> ready;
  for (unsigned u = 0; u < numUnits; ++u)
    if (!members[u].empty() && indegree[u] == 0)
      ready.push({firstPosition[u], u});
  SmallVector<unsigned> order;
  while (!ready.empty()) {
    unsigned u = ready.top().second;
    ready.pop();
    order.push_back(u);
    for (unsigned s : successors[u])
      if (--indegree[s] == 0)
        ready.push({firstPosition[s], s});
  }
  unsigned scheduled = 0;
  for (unsigned u = 0; u < numUnits; ++u)
    scheduled += !members[u].empty();
  if (order.size() != scheduled) {
    for (unsigned u = 0; u < numPrograms; ++u)
      if (!members[u].empty() && indegree[u] > 0)
        return members[u].front()->emitOpError()
               << "belongs to a program that is not convex: a value leaves "
                  "the program and comes back through other ops, so it "
                  "cannot be launched as one unit";
    return block.getParentOp()->emitOpError()
           << "cannot order its programs and ops";
  }
  for (unsigned u : order)
    for (Operation *op : members[u]) {
      if (terminator)
        op->moveBefore(terminator);
      else
        op->moveBefore(&block, block.end());
    }
  return success();
}

LogicalResult
hwagent::makeProgramsContiguous(FunctionOpInterface function,
                                ArrayRef<const ProgramGroup *> groups) {
  llvm::DenseMap<Block *, llvm::DenseMap<Operation *, unsigned>> byBlock;
  for (auto [index, group] : llvm::enumerate(groups))
    for (RegionOp region : group->regions)
      byBlock[region->getBlock()][region] = index;
  for (auto &[block, programOf] : byBlock)
    if (failed(reorderBlock(*block, programOf, groups.size())))
      return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// Outlining
//===----------------------------------------------------------------------===//

namespace {
/// What crosses a program's boundary.
struct Interface {
  SmallVector<Value> inputs;
  SmallVector<Value> outputs;
};
} // namespace

static Interface interfaceOf(const ProgramGroup &group) {
  Interface interface;
  llvm::SmallPtrSet<Operation *, 8> members;
  for (RegionOp region : group.regions)
    members.insert(region);
  llvm::SmallPtrSet<Value, 8> seen;
  for (RegionOp region : group.regions) {
    for (Value input : region.getInputs()) {
      Operation *def = input.getDefiningOp();
      if ((!def || !members.contains(def)) && seen.insert(input).second)
        interface.inputs.push_back(input);
    }
    for (Value result : region.getResults())
      if (llvm::any_of(result.getUsers(), [&](Operation *user) {
            return !members.contains(user);
          }))
        interface.outputs.push_back(result);
  }
  return interface;
}

/// A private function computing the program's regions in order.
static func::FuncOp outline(const ProgramGroup &group,
                            const Interface &interface, StringRef name,
                            SymbolTable &symbols) {
  FunctionOpInterface function = group.function;
  MLIRContext *ctx = function->getContext();
  auto module = function->getParentOfType<ModuleOp>();
  OpBuilder builder = OpBuilder::atBlockEnd(module.getBody());
  SmallVector<Type> inputTypes, outputTypes;
  for (Value v : interface.inputs)
    inputTypes.push_back(v.getType());
  for (Value v : interface.outputs)
    outputTypes.push_back(v.getType());
  Location loc = RegionOp(group.regions.front()).getLoc();
  auto fn = func::FuncOp::create(
      builder, loc, name, FunctionType::get(ctx, inputTypes, outputTypes));
  fn.setPrivate();
  symbols.insert(fn);
  Block *entry = fn.addEntryBlock();
  OpBuilder body = OpBuilder::atBlockEnd(entry);
  IRMapping mapping;
  for (auto [value, arg] : llvm::zip(interface.inputs, entry->getArguments()))
    mapping.map(value, arg);
  for (RegionOp region : group.regions) {
    Block &block = region.getBodyBlock();
    for (auto [input, arg] :
         llvm::zip(region.getInputs(), block.getArguments()))
      mapping.map(arg, mapping.lookupOrDefault(input));
    for (Operation &op : block.without_terminator())
      body.clone(op, mapping);
    for (auto [result, yielded] :
         llvm::zip(region.getResults(), region.getYield().getValues()))
      mapping.map(result, mapping.lookupOrDefault(yielded));
  }
  SmallVector<Value> results;
  for (Value output : interface.outputs)
    results.push_back(mapping.lookup(output));
  func::ReturnOp::create(body, loc, results);
  return fn;
}

//===----------------------------------------------------------------------===//
// Dispatch
//===----------------------------------------------------------------------===//

void hwagent::declareRuntimeCalls(ModuleOp module, SymbolTable &symbols) {
  OpBuilder builder = OpBuilder::atBlockEnd(module.getBody());
  auto i32 = builder.getI32Type();
  auto i64 = builder.getI64Type();
  auto declare = [&](StringRef name, FunctionType type) {
    if (symbols.lookup(name))
      return;
    auto fn = func::FuncOp::create(builder, module.getLoc(), name, type);
    fn.setPrivate();
    symbols.insert(fn);
  };
  declare(HWAGENT_SELECT_SYMBOL, builder.getFunctionType({i64}, {i32}));
  declare(HWAGENT_BEGIN_SYMBOL, builder.getFunctionType({i64, i32}, {}));
  declare(HWAGENT_END_SYMBOL, builder.getFunctionType({i64, i32, i32}, {i32}));
}

/// An i32 that is 1 when any float tensor among `values` holds inf or NaN:
/// |x| compared unordered-or-equal with +inf is true exactly then.
static Value anyNonFinite(OpBuilder &b, Location loc, ValueRange values) {
  Value any = arith::ConstantIntOp::create(b, loc, 0, 1);
  for (Value value : values) {
    auto type = dyn_cast<RankedTensorType>(value.getType());
    if (!type || !isa<FloatType>(type.getElementType()))
      continue;
    auto floatType = cast<FloatType>(type.getElementType());
    auto boolTensor = RankedTensorType::get({}, b.getI1Type());
    Value init =
        tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{}, b.getI1Type());
    Value falseValue = arith::ConstantIntOp::create(b, loc, 0, 1);
    init = linalg::FillOp::create(b, loc, falseValue, init).getResult(0);
    unsigned rank = type.getRank();
    SmallVector<AffineMap> maps = {b.getMultiDimIdentityMap(rank),
                                   AffineMap::get(rank, 0, {}, b.getContext())};
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::reduction);
    auto check = linalg::GenericOp::create(
        b, loc, TypeRange{boolTensor}, ValueRange{value}, ValueRange{init},
        maps, iterators, [&](OpBuilder &nb, Location nl, ValueRange args) {
          Value magnitude = math::AbsFOp::create(nb, nl, args[0]);
          Value inf = arith::ConstantFloatOp::create(
              nb, nl, floatType,
              APFloat::getInf(floatType.getFloatSemantics()));
          Value bad = arith::CmpFOp::create(nb, nl, arith::CmpFPredicate::UEQ,
                                            magnitude, inf);
          Value merged = arith::OrIOp::create(nb, nl, args[1], bad);
          linalg::YieldOp::create(nb, nl, merged);
        });
    Value flag =
        tensor::ExtractOp::create(b, loc, check.getResult(0), ValueRange{});
    any = arith::OrIOp::create(b, loc, any, flag);
  }
  return arith::ExtUIOp::create(b, loc, b.getI32Type(), any);
}

LogicalResult hwagent::lowerProgram(const ProgramGroup &group, int64_t program,
                                    const hwagent_program_info_t &info,
                                    SymbolTable &symbols) {
  Interface interface = interfaceOf(group);
  std::string base =
      llvm::formatv("__hwagent_{0}_p{1}",
                    FunctionOpInterface(group.function).getName(), program)
          .str();
  auto legal = [&](int backend) { return (info.legal_mask >> backend) & 1u; };
  func::FuncOp cpu = outline(group, interface, base + "_cpu", symbols);
  func::FuncOp ane;
  if (legal(HWAGENT_BACKEND_ANE)) {
    ane = outline(group, interface, base + "_ane", symbols);
    storeInHalf(ane);
  }

  // The run-time choice, where the program's first region stood (its
  // regions are contiguous, so every input is defined before it).
  RegionOp first = group.regions.front();
  OpBuilder b(first);
  Location loc = first.getLoc();
  Value id = arith::ConstantIntOp::create(b, loc, program, 64);
  auto backendConst = [&](OpBuilder &builder, int backend) {
    return arith::ConstantIntOp::create(builder, loc, backend, 32);
  };
  Value selected =
      func::CallOp::create(b, loc, HWAGENT_SELECT_SYMBOL, b.getI32Type(), id)
          .getResult(0);
  Value index = arith::IndexCastOp::create(b, loc, b.getIndexType(), selected);
  SmallVector<Type> resultTypes;
  for (Value v : interface.outputs)
    resultTypes.push_back(v.getType());

  auto runVariant = [&](OpBuilder &builder, func::FuncOp fn, int backend) {
    Value backendValue = backendConst(builder, backend);
    func::CallOp::create(builder, loc, HWAGENT_BEGIN_SYMBOL, TypeRange{},
                         ValueRange{id, backendValue});
    auto call = func::CallOp::create(builder, loc, fn, interface.inputs);
    return std::make_pair(call, backendValue);
  };
  auto runCpu = [&](OpBuilder &builder, int backend) -> SmallVector<Value> {
    auto [call, backendValue] = runVariant(builder, cpu, backend);
    Value zero = backendConst(builder, 0);
    func::CallOp::create(builder, loc, HWAGENT_END_SYMBOL, builder.getI32Type(),
                         ValueRange{id, backendValue, zero});
    return SmallVector<Value>(call.getResults());
  };

  SmallVector<int64_t> cases;
  if (ane)
    cases.push_back(HWAGENT_BACKEND_ANE);
  if (legal(HWAGENT_BACKEND_GPU))
    cases.push_back(HWAGENT_BACKEND_GPU);
  auto sw = scf::IndexSwitchOp::create(b, loc, resultTypes, index, cases,
                                       cases.size());
  for (auto [position, backend] : llvm::enumerate(cases)) {
    Block &block = sw.getCaseRegions()[position].emplaceBlock();
    OpBuilder cb = OpBuilder::atBlockEnd(&block);
    if (backend == HWAGENT_BACKEND_GPU) {
      // The GPU is simulated: its numerics are the CPU variant's.
      scf::YieldOp::create(cb, loc, runCpu(cb, HWAGENT_BACKEND_GPU));
      continue;
    }
    auto [call, backendValue] = runVariant(cb, ane, HWAGENT_BACKEND_ANE);
    Value nonfinite = anyNonFinite(cb, loc, call.getResults());
    Value fault =
        func::CallOp::create(cb, loc, HWAGENT_END_SYMBOL, cb.getI32Type(),
                             ValueRange{id, backendValue, nonfinite})
            .getResult(0);
    Value failed = arith::CmpIOp::create(cb, loc, arith::CmpIPredicate::ne,
                                         fault, backendConst(cb, 0));
    auto retry = scf::IfOp::create(cb, loc, resultTypes, failed,
                                   /*withElseRegion=*/true);
    // Without results (a program whose values nothing reads) the builder
    // already ended both blocks with a yield: the ones below replace them.
    for (Block *block : {retry.thenBlock(), retry.elseBlock()})
      if (!block->empty() && block->back().hasTrait<OpTrait::IsTerminator>())
        block->back().erase();
    OpBuilder tb = retry.getThenBodyBuilder();
    scf::YieldOp::create(tb, loc, runCpu(tb, HWAGENT_BACKEND_CPU));
    OpBuilder eb = retry.getElseBodyBuilder();
    scf::YieldOp::create(eb, loc, call.getResults());
    scf::YieldOp::create(cb, loc, retry.getResults());
  }
  Block &defaultBlock = sw.getDefaultRegion().emplaceBlock();
  OpBuilder db = OpBuilder::atBlockEnd(&defaultBlock);
  scf::YieldOp::create(db, loc, runCpu(db, HWAGENT_BACKEND_CPU));

  for (auto [output, replacement] :
       llvm::zip(interface.outputs, sw.getResults()))
    output.replaceAllUsesWith(replacement);
  for (RegionOp region : llvm::reverse(group.regions))
    region.erase();
  return success();
}

//===- HwAgentOps.cpp - hwagent operations --------------------------------===//

#include "HwAgent/IR/HwAgentOps.h"

#include "HwAgent/Core/Vocabulary.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/DenseMap.h"

using namespace mlir;
using namespace mlir::hwagent;

//===----------------------------------------------------------------------===//
// Custom directives
//===----------------------------------------------------------------------===//

/// `cpu`, `ane` or `gpu` without the `#hwagent.backend<...>` wrapper.
static ParseResult parseBackend(OpAsmParser &parser, BackendAttr &backend) {
  SMLoc loc = parser.getCurrentLocation();
  StringRef name;
  if (parser.parseKeyword(&name))
    return failure();
  std::optional<Backend> parsed = symbolizeBackend(name);
  if (!parsed)
    return parser.emitError(loc)
           << "unknown backend '" << name << "' (expected "
           << ::hwcore::backendNames() << ")";
  backend = BackendAttr::get(parser.getContext(), *parsed);
  return success();
}

static void printBackend(OpAsmPrinter &printer, Operation *,
                         BackendAttr backend) {
  printer << stringifyBackend(backend.getValue());
}

#define GET_OP_CLASSES
#include "HwAgent/IR/HwAgentOps.cpp.inc"

//===----------------------------------------------------------------------===//
// RegionOp
//===----------------------------------------------------------------------===//

void RegionOp::build(OpBuilder &builder, OperationState &state, int64_t id,
                     TypeRange resultTypes, ValueRange inputs) {
  state.addAttribute(getIdAttrName(state.name), builder.getI64IntegerAttr(id));
  state.addOperands(inputs);
  state.addTypes(resultTypes);
  Region *body = state.addRegion();
  Block *block = new Block();
  body->push_back(block);
  for (Value input : inputs)
    block->addArgument(input.getType(), input.getLoc());
}

YieldOp RegionOp::getYield() {
  return dyn_cast_or_null<YieldOp>(getBodyBlock().getTerminator());
}

ParseResult RegionOp::parse(OpAsmParser &parser, OperationState &result) {
  int64_t id = 0;
  if (parser.parseInteger(id))
    return failure();
  result.addAttribute("id", parser.getBuilder().getI64IntegerAttr(id));
  if (succeeded(parser.parseOptionalKeyword("program"))) {
    int64_t program = 0;
    if (parser.parseInteger(program))
      return failure();
    result.addAttribute("program",
                        parser.getBuilder().getI64IntegerAttr(program));
  }

  SmallVector<OpAsmParser::Argument> arguments;
  SmallVector<OpAsmParser::UnresolvedOperand> operands;
  SmallVector<Type> operandTypes;
  if (parser.parseCommaSeparatedList(
          OpAsmParser::Delimiter::Paren, [&]() -> ParseResult {
            OpAsmParser::Argument argument;
            OpAsmParser::UnresolvedOperand operand;
            if (parser.parseArgument(argument) || parser.parseEqual() ||
                parser.parseOperand(operand) ||
                parser.parseColonType(argument.type))
              return failure();
            arguments.push_back(argument);
            operands.push_back(operand);
            operandTypes.push_back(argument.type);
            return success();
          }))
    return failure();
  if (parser.resolveOperands(operands, operandTypes, parser.getNameLoc(),
                             result.operands))
    return failure();

  SmallVector<Type> resultTypes;
  if (parser.parseArrow() || parser.parseLParen())
    return failure();
  if (failed(parser.parseOptionalRParen())) {
    if (parser.parseTypeList(resultTypes) || parser.parseRParen())
      return failure();
  }
  result.addTypes(resultTypes);

  if (parser.parseOptionalAttrDictWithKeyword(result.attributes))
    return failure();
  Region *body = result.addRegion();
  if (parser.parseRegion(*body, arguments, /*enableNameShadowing=*/false))
    return failure();
  return success();
}

void RegionOp::print(OpAsmPrinter &printer) {
  printer << ' ' << getIdAttr().getInt();
  if (std::optional<int64_t> program = getProgram())
    printer << " program " << *program;
  printer << " (";
  Block &block = getBodyBlock();
  for (auto [index, input] : llvm::enumerate(getInputs())) {
    if (index)
      printer << ", ";
    if (index < block.getNumArguments())
      printer.printRegionArgument(block.getArgument(index), {},
                                  /*omitType=*/true);
    printer << " = " << input << " : " << input.getType();
  }
  printer << ") -> (";
  llvm::interleaveComma(getResultTypes(), printer);
  printer << ")";
  printer.printOptionalAttrDictWithKeyword((*this)->getAttrs(),
                                           /*elidedAttrs=*/{"id", "program"});
  printer << ' ';
  printer.printRegion(getBody(), /*printEntryBlockArgs=*/false,
                      /*printBlockTerminators=*/true);
}

/// Ids must be unique within the enclosing isolated op (the function), and
/// the regions of one program must share a backend. Only the last region of
/// each block runs the check, so that verifying a function with n regions
/// stays O(n) rather than O(n^2).
static LogicalResult verifyUniqueIds(RegionOp op) {
  for (Operation *next = op->getNextNode(); next; next = next->getNextNode())
    if (isa<RegionOp>(next))
      return success();
  Operation *scope = op->getParentWithTrait<OpTrait::IsIsolatedFromAbove>();
  if (!scope)
    return success();
  llvm::DenseMap<int64_t, RegionOp> seen, programs;
  LogicalResult status = success();
  scope->walk<WalkOrder::PreOrder>([&](Operation *nested) {
    auto region = dyn_cast<RegionOp>(nested);
    if (!region)
      return WalkResult::advance();
    int64_t id = region.getIdAttr().getInt();
    auto [it, inserted] = seen.try_emplace(id, region);
    if (!inserted) {
      InFlightDiagnostic diag = region.emitOpError()
                                << "id " << id
                                << " is not unique in its function";
      diag.attachNote(it->second.getLoc()) << "first used here";
      status = failure();
      return WalkResult::interrupt();
    }
    if (std::optional<int64_t> program = region.getProgram()) {
      auto [first, fresh] = programs.try_emplace(*program, region);
      if (!fresh && first->second.getBackend() != region.getBackend()) {
        InFlightDiagnostic diag =
            region.emitOpError()
            << "is in program " << *program
            << " but not on the backend of its other regions";
        diag.attachNote(first->second.getLoc()) << "program starts here";
        status = failure();
        return WalkResult::interrupt();
      }
    }
    return WalkResult::skip();
  });
  return status;
}

LogicalResult RegionOp::verify() {
  if (getIdAttr().getInt() < 0)
    return emitOpError() << "id must be non-negative, got "
                         << getIdAttr().getInt();
  if ((*this)->getParentOfType<RegionOp>())
    return emitOpError() << "may not be nested in another 'hwagent.region'";

  Block &block = getBodyBlock();
  if (block.getNumArguments() != getInputs().size())
    return emitOpError() << "has " << getInputs().size()
                         << " operands but its body has "
                         << block.getNumArguments() << " arguments";
  for (auto [index, input, argument] :
       llvm::enumerate(getInputs(), block.getArguments()))
    if (input.getType() != argument.getType())
      return emitOpError() << "operand #" << index << " has type "
                           << input.getType() << " but body argument #" << index
                           << " has type " << argument.getType();

  if (getProgram() && !getBackend())
    return emitOpError() << "is in a program but has no backend";
  if (std::optional<Backend> backend = getBackend()) {
    if (CostsAttr costs = getCostsAttr()) {
      BackendCostAttr entry = costs.lookup(*backend);
      if (entry && !entry.getLegal())
        return emitOpError()
               << "is assigned to backend '" << stringifyBackend(*backend)
               << "' that its costs mark illegal: " << entry.getReason();
    }
  }
  return verifyUniqueIds(*this);
}

LogicalResult RegionOp::verifyRegions() {
  Block &block = getBodyBlock();
  auto yield =
      dyn_cast_or_null<YieldOp>(block.empty() ? nullptr : &block.back());
  if (!yield)
    return emitOpError() << "body must end with 'hwagent.yield'";
  if (yield.getValues().size() != getNumResults())
    return yield.emitOpError() << "yields " << yield.getValues().size()
                               << " values but the enclosing region has "
                               << getNumResults() << " results";
  for (auto [index, value, type] :
       llvm::enumerate(yield.getValues(), getResultTypes()))
    if (value.getType() != type)
      return yield.emitOpError()
             << "value #" << index << " has type " << value.getType()
             << " but the enclosing region's result #" << index << " has type "
             << type;
  return success();
}

//===----------------------------------------------------------------------===//
// TransferOp
//===----------------------------------------------------------------------===//

int64_t TransferOp::getTransferredBytes() {
  auto type = cast<RankedTensorType>(getInput().getType());
  if (!type.hasStaticShape())
    return -1;
  int64_t bits = type.getElementTypeBitWidth();
  return type.getNumElements() * ((bits + 7) / 8);
}

LogicalResult TransferOp::verify() {
  if (getSource() == getDestination())
    return emitOpError() << "transfers from '" << stringifyBackend(getSource())
                         << "' to itself; a boundary joins two backends";

  auto inputType = cast<RankedTensorType>(getInput().getType());
  auto resultType = cast<RankedTensorType>(getResult().getType());
  Type inElement = inputType.getElementType();
  Type outElement = resultType.getElementType();
  if (inElement != outElement &&
      !(isa<FloatType>(inElement) && isa<FloatType>(outElement)))
    return emitOpError() << "cannot convert element type " << inElement
                         << " to " << outElement
                         << " on a boundary; only floating-point types "
                            "convert into each other";

  if (inputType.getRank() != resultType.getRank())
    return emitOpError() << "changes rank from " << inputType.getRank()
                         << " to " << resultType.getRank();

  ArrayRef<int64_t> inShape = inputType.getShape();
  SmallVector<int64_t> expected(inShape.begin(), inShape.end());
  if (std::optional<ArrayRef<int64_t>> permutation = getPermutation()) {
    if (permutation->size() != inShape.size())
      return emitOpError() << "permutation has " << permutation->size()
                           << " entries for a rank-" << inShape.size()
                           << " tensor";
    SmallVector<bool> used(inShape.size(), false);
    for (auto [index, dim] : llvm::enumerate(*permutation)) {
      if (dim < 0 || dim >= static_cast<int64_t>(inShape.size()) || used[dim])
        return emitOpError() << "permutation is not a permutation of [0, "
                             << inShape.size() << ")";
      used[dim] = true;
      expected[index] = inShape[dim];
    }
  }
  if (ArrayRef<int64_t>(expected) != resultType.getShape()) {
    std::string shape;
    llvm::raw_string_ostream os(shape);
    llvm::interleave(
        expected, os,
        [&](int64_t dim) {
          if (ShapedType::isDynamic(dim))
            os << '?';
          else
            os << dim;
        },
        "x");
    return emitOpError() << "result type " << resultType
                         << " does not have the shape the input takes after "
                            "the transfer, expected shape "
                         << shape;
  }
  return success();
}

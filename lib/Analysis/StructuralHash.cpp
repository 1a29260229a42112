//===- StructuralHash.cpp - stable keys for regions -----------------------===//

#include "HwAgent/Analysis/StructuralHash.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/xxhash.h"

using namespace mlir;

namespace {
/// Writes a canonical text of a body: values are "%<n>" in definition order,
/// types and attributes in MLIR syntax (which carries no locations).
class CanonicalPrinter {
public:
  explicit CanonicalPrinter(llvm::raw_ostream &os) : os(os) {}

  void printBlock(Block &block) {
    os << "^(";
    for (BlockArgument arg : block.getArguments()) {
      os << define(arg) << ":";
      arg.getType().print(os);
      os << ",";
    }
    os << ")\n";
    for (Operation &op : block)
      printOp(op);
  }

private:
  std::string define(Value value) {
    unsigned id = ids.size();
    ids[value] = id;
    return "%" + std::to_string(id);
  }

  void printOp(Operation &op) {
    os << op.getName().getStringRef() << "(";
    for (Value operand : op.getOperands()) {
      auto it = ids.find(operand);
      // Every value a region uses is defined inside it (isolated from above).
      os << (it == ids.end() ? std::string("?")
                             : "%" + std::to_string(it->second))
         << ",";
    }
    os << ")->(";
    for (Value result : op.getResults()) {
      os << define(result) << ":";
      result.getType().print(os);
      os << ",";
    }
    os << ")";
    op.getAttrDictionary().print(os);
    os << "{";
    for (Region &region : op.getRegions()) {
      os << "[";
      for (Block &block : region)
        printBlock(block);
      os << "]";
    }
    os << "}\n";
  }

  llvm::raw_ostream &os;
  llvm::DenseMap<Value, unsigned> ids;
};
} // namespace

std::string hwagent::getStructuralHash(RegionOp region) {
  std::string text;
  llvm::raw_string_ostream os(text);
  CanonicalPrinter(os).printBlock(region.getBodyBlock());
  uint64_t hash = llvm::xxh3_64bits(llvm::StringRef(text));
  std::string key;
  llvm::raw_string_ostream keyStream(key);
  keyStream << llvm::format_hex_no_prefix(hash, 16);
  return key;
}

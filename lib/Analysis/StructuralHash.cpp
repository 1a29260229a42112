//===- StructuralHash.cpp - stable keys for regions -----------------------===//

#include "HwAgent/Analysis/StructuralHash.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/xxhash.h"

using namespace mlir;

namespace mlir::hwagent {
/// Writes a canonical text of a body: values are "%<n>" in definition order,
/// types and attributes in MLIR syntax (which carries no locations).
class CanonicalPrinter {
public:
  CanonicalPrinter(llvm::raw_ostream &os, StructuralHasher &cache)
      : os(os), cache(cache) {}

  void printBlock(Block &block) {
    os << "^(";
    for (BlockArgument arg : block.getArguments()) {
      os << define(arg) << ":";
      printType(arg.getType());
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
      printType(result.getType());
      os << ",";
    }
    os << ")";
    auto [attrs, inserted] =
        cache.attributes.try_emplace(op.getAttrDictionary());
    if (inserted) {
      llvm::raw_string_ostream text(attrs->second);
      op.getAttrDictionary().print(text);
    }
    os << attrs->second;
    os << "{";
    for (Region &region : op.getRegions()) {
      os << "[";
      for (Block &block : region)
        printBlock(block);
      os << "]";
    }
    os << "}\n";
  }

  void printType(Type type) {
    auto [text, inserted] = cache.types.try_emplace(type);
    if (inserted) {
      llvm::raw_string_ostream stream(text->second);
      type.print(stream);
    }
    os << text->second;
  }

  llvm::raw_ostream &os;
  StructuralHasher &cache;
  llvm::DenseMap<Value, unsigned> ids;
};
} // namespace mlir::hwagent

std::string hwagent::getStructuralHash(RegionOp region) {
  StructuralHasher hasher;
  return hasher(region);
}

std::string hwagent::StructuralHasher::operator()(RegionOp region) {
  std::string text;
  llvm::raw_string_ostream os(text);
  CanonicalPrinter(os, *this).printBlock(region.getBodyBlock());
  uint64_t hash = llvm::xxh3_64bits(llvm::StringRef(text));
  std::string key;
  llvm::raw_string_ostream keyStream(key);
  keyStream << llvm::format_hex_no_prefix(hash, 16);
  return key;
}

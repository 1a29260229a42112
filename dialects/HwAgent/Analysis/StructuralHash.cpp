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
      define(arg);
      os << ":";
      printType(arg.getType());
      os << ",";
    }
    os << ")\n";
    for (Operation &op : block)
      printOp(op);
  }

private:
  void define(Value value) {
    unsigned id = ids.size();
    ids[value] = id;
    os << '%' << id;
  }

  void printOp(Operation &op) {
    os << op.getName().getStringRef() << "(";
    for (Value operand : op.getOperands()) {
      auto it = ids.find(operand);
      // Every value a region uses is defined inside it (isolated from above).
      if (it == ids.end())
        os << '?';
      else
        os << '%' << it->second;
      os << ',';
    }
    os << ")->(";
    for (Value result : op.getResults()) {
      define(result);
      os << ":";
      printType(result.getType());
      os << ",";
    }
    os << ")" << attributeText(op) << "{";
    for (Region &region : op.getRegions()) {
      os << "[";
      for (Block &block : region)
        printBlock(block);
      os << "]";
    }
    os << "}\n";
  }

  /// The op's attribute dictionary (inherent and discardable) in MLIR
  /// syntax. Building that dictionary for an op with properties uniques a
  /// new attribute every time, so ops are matched first on their name,
  /// discardable attributes and properties.
  const std::string &attributeText(Operation &op) {
    if (!op.getPropertiesStorageSize())
      return dictionaryText(op.getRawDictionaryAttrs());
    llvm::hash_code key = llvm::hash_combine(
        op.getName().getAsOpaquePointer(),
        op.getRawDictionaryAttrs().getAsOpaquePointer(), op.hashProperties());
    auto &bucket = cache.propertyTexts[static_cast<size_t>(key)];
    for (auto &[seen, text] : bucket)
      if (seen->getName() == op.getName() &&
          seen->getRawDictionaryAttrs() == op.getRawDictionaryAttrs() &&
          op.getName().compareOpProperties(seen->getPropertiesStorage(),
                                           op.getPropertiesStorage()))
        return text;
    bucket.emplace_back(&op, dictionaryText(op.getAttrDictionary()));
    return bucket.back().second;
  }

  const std::string &dictionaryText(DictionaryAttr dictionary) {
    auto [text, inserted] = cache.attributes.try_emplace(dictionary);
    if (inserted) {
      llvm::raw_string_ostream stream(text->second);
      dictionary.print(stream);
    }
    return text->second;
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
  // One buffer for every region: the text is only hashed.
  text.clear();
  llvm::raw_svector_ostream os(text);
  CanonicalPrinter(os, *this).printBlock(region.getBodyBlock());
  uint64_t hash = llvm::xxh3_64bits(llvm::StringRef(text.data(), text.size()));
  std::string key;
  llvm::raw_string_ostream keyStream(key);
  keyStream << llvm::format_hex_no_prefix(hash, 16);
  return key;
}

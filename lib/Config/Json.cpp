//===- Json.cpp - reading hwagent's versioned JSON files ------------------===//

#include "HwAgent/Config/Json.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace hwconfig;
namespace json = llvm::json;

/// The name ObjectMapper errors give the root; describeError strips it.
static constexpr const char *kRootName = "$";

std::string hwconfig::describeError(const json::Path::Root &root) {
  std::string message = llvm::toString(root.getError());
  // llvm::json writes "<message> at $.a.b[0]".
  std::string marker = std::string(" at ") + kRootName;
  size_t at = message.rfind(marker);
  if (at == std::string::npos) {
    std::string whole = std::string(" when parsing ") + kRootName;
    if (message.size() >= whole.size() &&
        message.compare(message.size() - whole.size(), whole.size(), whole) ==
            0)
      message.erase(message.size() - whole.size());
    return "(top level): " + message;
  }
  std::string path = message.substr(at + marker.size());
  if (!path.empty() && path.front() == '.')
    path.erase(0, 1);
  return (path.empty() ? "(top level)" : path) + ": " + message.substr(0, at);
}

/// The deepest nesting of arrays and objects in `text`, strings skipped.
static unsigned nesting(const std::string &text) {
  unsigned depth = 0, deepest = 0;
  bool inString = false, escaped = false;
  for (char c : text) {
    if (inString) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        inString = false;
      continue;
    }
    if (c == '"')
      inString = true;
    else if (c == '[' || c == '{')
      deepest = std::max(deepest, ++depth);
    else if ((c == ']' || c == '}') && depth > 0)
      --depth;
  }
  return deepest;
}

std::optional<json::Value>
hwconfig::parseDocument(const std::string &text, const std::string &schema,
                        int64_t minVersion, int64_t maxVersion,
                        int64_t &version, std::string &error) {
  if (nesting(text) > kMaxNesting) {
    error = "(top level): nested deeper than " + std::to_string(kMaxNesting) +
            " levels";
    return std::nullopt;
  }
  llvm::Expected<json::Value> value = json::parse(text);
  if (!value) {
    error = "(top level): not valid JSON: " + llvm::toString(value.takeError());
    return std::nullopt;
  }
  json::Path::Root root(kRootName);
  json::ObjectMapper mapper(*value, root);
  std::string foundSchema;
  if (!mapper || !mapper.map("schema", foundSchema) ||
      !mapper.map("version", version)) {
    error = describeError(root);
    return std::nullopt;
  }
  if (foundSchema != schema) {
    error = "schema: expected '" + schema + "', got '" + foundSchema + "'";
    return std::nullopt;
  }
  if (version < minVersion || version > maxVersion) {
    error = "version: this build reads version " +
            (minVersion == maxVersion ? std::to_string(maxVersion)
                                      : std::to_string(minVersion) + " to " +
                                            std::to_string(maxVersion)) +
            ", got " + std::to_string(version);
    return std::nullopt;
  }
  return std::move(*value);
}

std::optional<std::string> hwconfig::readTextFile(const std::string &path,
                                                  std::string &error) {
  // Only regular files of a sane size: /dev/zero would be read forever and
  // a FIFO would block the open (issue 38). stat() opens nothing.
  constexpr uint64_t kMaxTextFileBytes = 256ull << 20;
  llvm::sys::fs::file_status status;
  if (std::error_code ec = llvm::sys::fs::status(path, status)) {
    error = path + ": cannot read: " + ec.message();
    return std::nullopt;
  }
  if (status.type() != llvm::sys::fs::file_type::regular_file) {
    error = path + ": cannot read: not a regular file";
    return std::nullopt;
  }
  if (status.getSize() > kMaxTextFileBytes) {
    error = path + ": cannot read: " + std::to_string(status.getSize()) +
            " bytes, above the limit of " + std::to_string(kMaxTextFileBytes);
    return std::nullopt;
  }
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer) {
    error = path + ": cannot read: " + buffer.getError().message();
    return std::nullopt;
  }
  return (*buffer)->getBuffer().str();
}

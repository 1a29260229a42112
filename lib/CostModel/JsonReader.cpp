//===- JsonReader.cpp - validating reads of hwagent JSON files ------------===//

#include "hwagent/CostModel/JsonReader.h"

#include "llvm/Support/Error.h"

#include <cmath>

using namespace hwcore;
namespace json = llvm::json;

bool JsonReader::fail(const std::string &path, const std::string &message) {
  if (error.empty())
    error = (path.empty() ? std::string("(top level)") : path) + ": " + message;
  return false;
}

std::optional<json::Object>
JsonReader::parseDocument(const std::string &text, const std::string &schema,
                          int64_t version) {
  llvm::Expected<json::Value> value = json::parse(text);
  if (!value) {
    fail("", "not valid JSON: " + llvm::toString(value.takeError()));
    return std::nullopt;
  }
  json::Object *root = value->getAsObject();
  if (!root) {
    fail("", "expected a JSON object");
    return std::nullopt;
  }
  std::string foundSchema;
  int64_t foundVersion = 0;
  if (!string(*root, "schema", "", foundSchema) ||
      !integer(*root, "version", "", foundVersion))
    return std::nullopt;
  if (foundSchema != schema) {
    fail("schema", "expected '" + schema + "', got '" + foundSchema + "'");
    return std::nullopt;
  }
  if (foundVersion != version) {
    fail("version", "this build reads version " + std::to_string(version) +
                        ", got " + std::to_string(foundVersion));
    return std::nullopt;
  }
  return std::move(*root);
}

/// Reads `key` of `o` into `out` with `get` (a json::Value accessor giving
/// an optional); `expected` names the type in the error. Absent and not
/// required: `out` keeps its default.
template <typename T, typename Get>
static bool readScalar(JsonReader &reader, const json::Object &o,
                       llvm::StringRef key, const std::string &path, T &out,
                       bool required, Get get, const char *expected) {
  std::string field = JsonReader::join(path, key);
  const json::Value *value = o.get(key);
  if (!value)
    return required ? reader.fail(field, "missing") : true;
  auto read = get(*value);
  if (!read)
    return reader.fail(field, expected);
  out = T(*read);
  return true;
}

bool JsonReader::number(const json::Object &o, llvm::StringRef key,
                        const std::string &path, double &out,
                        Constraint constraint, bool required) {
  double v = out;
  if (!readScalar(*this, o, key, path, v, required,
                  [](const json::Value &value) { return value.getAsNumber(); },
                  "expected a number"))
    return false;
  if (!o.get(key))
    return true; // absent and not required
  std::string field = join(path, key);
  if (!std::isfinite(v))
    return fail(field, "must be finite");
  switch (constraint) {
  case Any:
    break;
  case NonNegative:
    if (v < 0)
      return fail(field, "must be non-negative");
    break;
  case Positive:
    if (v <= 0)
      return fail(field, "must be positive");
    break;
  case AtLeastOne:
    if (v < 1)
      return fail(field, "must be at least 1");
    break;
  case UnitInterval:
    if (v < 0 || v > 1)
      return fail(field, "must be in [0, 1]");
    break;
  }
  out = v;
  return true;
}

bool JsonReader::integer(const json::Object &o, llvm::StringRef key,
                         const std::string &path, int64_t &out,
                         bool required) {
  return readScalar(*this, o, key, path, out, required,
                    [](const json::Value &v) { return v.getAsInteger(); },
                    "expected an integer");
}

bool JsonReader::string(const json::Object &o, llvm::StringRef key,
                        const std::string &path, std::string &out,
                        bool required) {
  return readScalar(*this, o, key, path, out, required,
                    [](const json::Value &v) { return v.getAsString(); },
                    "expected a string");
}

bool JsonReader::boolean(const json::Object &o, llvm::StringRef key,
                         const std::string &path, bool &out, bool required) {
  return readScalar(*this, o, key, path, out, required,
                    [](const json::Value &v) { return v.getAsBoolean(); },
                    "expected true or false");
}

bool JsonReader::strings(const json::Object &o, llvm::StringRef key,
                         const std::string &path,
                         std::vector<std::string> &out, bool required) {
  std::string field = join(path, key);
  const json::Array *list = array(o, key, path, required);
  if (!list)
    return !required && !o.get(key);
  for (auto [index, value] : llvm::enumerate(*list)) {
    std::optional<llvm::StringRef> text = value.getAsString();
    if (!text)
      return fail(field + "[" + std::to_string(index) + "]",
                  "expected a string");
    out.push_back(text->str());
  }
  return true;
}

const json::Object *JsonReader::object(const json::Object &o,
                                       llvm::StringRef key,
                                       const std::string &path,
                                       bool required) {
  std::string field = join(path, key);
  const json::Value *value = o.get(key);
  if (!value) {
    if (required)
      fail(field, "missing");
    return nullptr;
  }
  const json::Object *object = value->getAsObject();
  if (!object)
    fail(field, "expected an object");
  return object;
}

const json::Array *JsonReader::array(const json::Object &o,
                                     llvm::StringRef key,
                                     const std::string &path, bool required) {
  std::string field = join(path, key);
  const json::Value *value = o.get(key);
  if (!value) {
    if (required)
      fail(field, "missing");
    return nullptr;
  }
  const json::Array *list = value->getAsArray();
  if (!list)
    fail(field, "expected an array");
  return list;
}

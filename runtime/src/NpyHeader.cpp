//===- NpyHeader.cpp - NumPy .npy headers, parsed as NumPy parses them ----===//
//
// A recursive-descent reader for the subset of Python literals a .npy header
// holds: one dict of string keys whose values are strings, True/False and
// tuples of integers. Anything else (a list, as a structured dtype is
// written, an expression, trailing text) is refused with what was found.
//
//===----------------------------------------------------------------------===//

#include "NpyHeader.h"

#include "hwagent_rt/hwagent_types.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

#include <cstring>
#include <map>

namespace hwagent_rt {
namespace {

absl::Status headerError(const std::string &where, absl::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat(where, ": malformed .npy header: ", what));
}

/// One value of the header dict.
struct Value {
  enum Kind { String, Bool, Tuple } kind = String;
  std::string text;
  bool flag = false;
  std::vector<int64_t> ints;
};

/// The parser over the header text; errors say what was expected where.
class Literal {
public:
  Literal(absl::string_view text, const std::string &where)
      : text(text), where(where) {}

  absl::Status dict(std::map<std::string, Value> &out) {
    skipSpace();
    if (!eat('{'))
      return expected("'{'");
    skipSpace();
    while (!eat('}')) {
      std::string key;
      if (absl::Status s = string(key); !s.ok())
        return s;
      skipSpace();
      if (!eat(':'))
        return expected("':'");
      skipSpace();
      Value value;
      if (absl::Status s = parseValue(value); !s.ok())
        return s;
      out[key] = std::move(value); // Python: a repeated key's last value.
      skipSpace();
      if (eat(','))
        skipSpace();
      else if (peek() != '}')
        return expected("',' or '}'");
    }
    skipSpace();
    if (pos != text.size())
      return expected("the end of the header after '}'");
    return absl::OkStatus();
  }

private:
  absl::string_view text;
  const std::string &where;
  size_t pos = 0;

  char peek() const { return pos < text.size() ? text[pos] : '\0'; }
  bool eat(char c) {
    if (peek() != c || pos >= text.size())
      return false;
    ++pos;
    return true;
  }
  void skipSpace() {
    while (pos < text.size() && std::strchr(" \t\n\r\f\v", text[pos]))
      ++pos;
  }
  absl::Status expected(absl::string_view what) const {
    if (pos >= text.size())
      return headerError(where,
                         absl::StrCat("expected ", what, ", the header ends"));
    return headerError(where,
                       absl::StrCat("expected ", what, " at byte ", pos,
                                    ", found '", text.substr(pos, 12), "'"));
  }

  absl::Status string(std::string &out) {
    char quote = peek();
    if (quote != '\'' && quote != '"')
      return expected("a quoted string");
    size_t end = text.find(quote, pos + 1);
    if (end == absl::string_view::npos)
      return expected("a closing quote");
    absl::string_view body = text.substr(pos + 1, end - pos - 1);
    if (body.find_first_of("\\\n") != absl::string_view::npos)
      return expected("a string without escapes");
    out = std::string(body);
    pos = end + 1;
    return absl::OkStatus();
  }

  absl::Status integer(int64_t &out) {
    size_t start = pos;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9')
      ++pos;
    absl::string_view digits = text.substr(start, pos - start);
    if (digits.empty())
      return expected("a non-negative integer");
    if (digits.size() > 1 && digits[0] == '0') // Python refuses "03".
      return expected("an integer without leading zeros");
    out = 0;
    for (char c : digits)
      if (__builtin_mul_overflow(out, 10, &out) ||
          __builtin_add_overflow(out, c - '0', &out))
        return headerError(where,
                           absl::StrCat("dimension ", digits, " is too large"));
    return absl::OkStatus();
  }

  /// `()`, `(n,)`, `(n, m)`, `(n, m,)`; `(n)` is an int, not a tuple.
  absl::Status tuple(std::vector<int64_t> &out) {
    ++pos; // '('
    skipSpace();
    bool comma = false;
    while (!eat(')')) {
      int64_t d;
      if (absl::Status s = integer(d); !s.ok())
        return s;
      out.push_back(d);
      skipSpace();
      comma = eat(',');
      skipSpace();
      if (!comma && peek() != ')')
        return expected("',' or ')'");
    }
    if (out.size() == 1 && !comma)
      return headerError(where, "the shape must be a tuple, as (n,)");
    return absl::OkStatus();
  }

  absl::Status parseValue(Value &value) {
    char c = peek();
    if (c == '\'' || c == '"') {
      value.kind = Value::String;
      return string(value.text);
    }
    if (c == '(') {
      value.kind = Value::Tuple;
      return tuple(value.ints);
    }
    if (c == '[')
      return absl::InvalidArgumentError(absl::StrCat(
          where, ": structured and sub-array dtypes (a list 'descr') are "
                 "not supported; save a plain array"));
    for (bool flag : {false, true}) {
      absl::string_view word = flag ? "True" : "False";
      if (text.substr(pos, word.size()) == word) {
        pos += word.size();
        value.kind = Value::Bool;
        value.flag = flag;
        return absl::OkStatus();
      }
    }
    return expected("a string, a tuple, True or False");
  }
};

/// NumPy's dtype string ('<f4', '|u1', 'f8'...) as a hwagent_dtype_t; -2
/// for big-endian data wider than a byte, -1 for a dtype hwagent lacks.
int32_t numpyDtype(absl::string_view descr) {
  char order = descr.empty() ? '\0' : descr[0];
  bool hasOrder = std::strchr("<>|=", order) && order != '\0';
  absl::string_view kind = hasOrder ? descr.substr(1) : descr;
  static const std::pair<const char *, int32_t> kinds[] = {
      {"f4", HWAGENT_DTYPE_F32}, {"f2", HWAGENT_DTYPE_F16},
      {"f8", HWAGENT_DTYPE_F64}, {"i4", HWAGENT_DTYPE_I32},
      {"i8", HWAGENT_DTYPE_I64}, {"i1", HWAGENT_DTYPE_I8},
      {"u1", HWAGENT_DTYPE_U8},  {"b1", HWAGENT_DTYPE_BOOL}};
  for (auto [name, dtype] : kinds)
    if (kind == name) {
      bool wide = hwagent_dtype_size(dtype) > 1;
      return order == '>' && wide ? -2 : dtype;
    }
  return -1;
}

/// The three keys' values checked as NumPy checks them.
absl::Status readDict(const std::map<std::string, Value> &dict,
                      const std::string &where, NpyHeader &header) {
  if (dict.size() != 3 || !dict.count("descr") ||
      !dict.count("fortran_order") || !dict.count("shape"))
    return headerError(where, "the keys must be exactly 'descr', "
                              "'fortran_order' and 'shape'");
  const Value &descr = dict.at("descr"), &fortran = dict.at("fortran_order"),
              &shape = dict.at("shape");
  if (descr.kind != Value::String)
    return headerError(where, "'descr' must be a string");
  if (fortran.kind != Value::Bool)
    return headerError(where, "'fortran_order' must be True or False");
  if (shape.kind != Value::Tuple)
    return headerError(where, "'shape' must be a tuple of integers");
  header.dtype = numpyDtype(descr.text);
  if (header.dtype == -2)
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": big-endian data ('", descr.text,
                     "') is not supported; save it little-endian"));
  if (header.dtype < 0)
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": dtype '", descr.text,
                     "' is not supported (f32, f16, f64, i32, i64, i8, u8, "
                     "bool)"));
  if (fortran.flag)
    return absl::InvalidArgumentError(absl::StrCat(
        where, ": Fortran-ordered arrays are not supported; save a "
               "C-ordered copy (np.ascontiguousarray)"));
  if (shape.ints.size() > HWAGENT_MAX_RANK)
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": rank ", shape.ints.size(),
                     " is above the maximum ", HWAGENT_MAX_RANK));
  header.shape = shape.ints;
  uint64_t bytes = uint64_t(hwagent_dtype_size(header.dtype));
  for (int64_t d : header.shape)
    if (__builtin_mul_overflow(bytes, uint64_t(d), &bytes) ||
        bytes > uint64_t(INT64_MAX))
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": the shape overflows"));
  header.dataBytes = bytes;
  return absl::OkStatus();
}

} // namespace

absl::StatusOr<NpyHeader> parseNpyHeader(const char *bytes, size_t size,
                                         const std::string &where) {
  static const char magic[] = "\x93NUMPY";
  if (size < 10 || std::memcmp(bytes, magic, 6) != 0)
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": not a NumPy .npy array (bad magic)"));
  uint8_t major = uint8_t(bytes[6]);
  size_t headerLength = 0, headerStart = major == 1 ? 10 : 12;
  if (major < 1 || major > 3)
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": .npy format version ", int(major),
                     " is not supported (1-3)"));
  if (size < headerStart)
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": truncated .npy header"));
  for (size_t i = 8; i < headerStart; ++i)
    headerLength |= size_t(uint8_t(bytes[i])) << (8 * (i - 8));
  if (headerLength > kNpyMaxHeaderBytes)
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": the .npy header is ", headerLength,
                     " bytes, above NumPy's limit of ", kNpyMaxHeaderBytes));
  if (size - headerStart < headerLength)
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": truncated .npy header"));
  std::map<std::string, Value> dict;
  Literal literal(absl::string_view(bytes + headerStart, headerLength), where);
  if (absl::Status s = literal.dict(dict); !s.ok())
    return s;
  NpyHeader header;
  if (absl::Status s = readDict(dict, where, header); !s.ok())
    return s;
  header.dataStart = headerStart + headerLength;
  return header;
}

} // namespace hwagent_rt

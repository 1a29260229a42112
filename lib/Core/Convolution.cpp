//===- Convolution.cpp - convolutions recognized in contraction specs -----===//

#include "HwAgent/Core/Convolution.h"

#include <utility>
#include <vector>

using namespace hwcore;

namespace {

constexpr int64_t kMaxLoops = 16;
constexpr int64_t kSpecVersion = 1; // HWAGENT_CONTRACT_SPEC_VERSION

struct Dimension {
  int64_t constant = 0;
  std::vector<std::pair<int64_t, int64_t>> terms;
};

/// The spec's operands as dimensions, or nothing when it is malformed.
std::optional<std::vector<Dimension>>
readOperand(const int64_t *spec, int64_t size, int64_t &cursor, int64_t loops) {
  auto next = [&](int64_t &value) {
    if (cursor >= size)
      return false;
    value = spec[cursor++];
    return true;
  };
  int64_t rank = 0;
  if (!next(rank) || rank < 0 || rank > kMaxLoops)
    return std::nullopt;
  std::vector<Dimension> dims(rank);
  for (Dimension &dim : dims) {
    int64_t count = 0;
    if (!next(dim.constant) || !next(count) || count < 0 || count > loops)
      return std::nullopt;
    for (int64_t t = 0; t < count; ++t) {
      int64_t loop = 0, coefficient = 0;
      if (!next(loop) || !next(coefficient) || loop < 0 || loop >= loops)
        return std::nullopt;
      if (coefficient != 0)
        dim.terms.push_back({loop, coefficient});
    }
  }
  return dims;
}

/// Every dimension one loop with coefficient 1 (or a unit constant 0), or
/// a window s*o + d*k; no loop twice in one operand. `uses`: per loop, the
/// bits of the operands it moves; `windows`: each window's two terms.
bool collectUses(const std::vector<Dimension> (&operands)[3], int64_t loops,
                 std::vector<unsigned> &uses,
                 std::vector<std::pair<int64_t, int64_t>> (&windows)[2],
                 int &spatial) {
  for (int o = 0; o < 3; ++o) {
    std::vector<bool> seen(loops, false);
    for (const Dimension &dim : operands[o]) {
      if (dim.constant != 0 || dim.terms.size() > 2)
        return false;
      for (auto [loop, coefficient] : dim.terms) {
        if (seen[loop] || coefficient < 1 ||
            (dim.terms.size() == 1 && coefficient != 1))
          return false;
        seen[loop] = true;
        uses[loop] |= 1u << o;
      }
      if (dim.terms.size() == 2) {
        if (spatial == ConvolutionForm::kMaxSpatial)
          return false;
        windows[0].push_back(dim.terms[0]);
        windows[1].push_back(dim.terms[1]);
        ++spatial;
      }
    }
  }
  return true;
}

} // namespace

std::optional<ConvolutionForm> hwcore::recognizeConvolution(const int64_t *spec,
                                                            int64_t size) {
  if (!spec || size < 2 || spec[0] != kSpecVersion || spec[1] < 1 ||
      spec[1] > kMaxLoops || size < 2 + spec[1])
    return std::nullopt;
  const int64_t loops = spec[1];
  const int64_t *extents = spec + 2;
  int64_t cursor = 2 + loops;
  std::vector<Dimension> operands[3];
  for (auto &operand : operands) {
    auto dims = readOperand(spec, size, cursor, loops);
    if (!dims)
      return std::nullopt;
    operand = std::move(*dims);
  }
  if (cursor != size)
    return std::nullopt;

  ConvolutionForm form;
  // The windowed operand: the one with two-term dimensions.
  int windowed = -1;
  for (int o = 0; o < 3; ++o)
    for (const Dimension &dim : operands[o])
      if (dim.terms.size() > 1) {
        if (windowed != -1 && windowed != o)
          return std::nullopt;
        windowed = o;
      }
  if (windowed == -1)
    return std::nullopt;

  std::vector<unsigned> uses(loops, 0);
  std::vector<std::pair<int64_t, int64_t>> windows[2]; // (loop, coefficient)
  if (!collectUses(operands, loops, uses, windows, form.spatial))
    return std::nullopt;

  // In each window one loop moves the windowed operand S and one other
  // operand, the second loop S and the third operand; the shorter loop is
  // the kernel's, so its other operand is the filter W.
  const int u = windowed == 0 ? 1 : 0, v = windowed == 2 ? 1 : 2;
  const unsigned bitS = 1u << windowed, bitU = 1u << u, bitV = 1u << v;
  int filter = -1;
  std::vector<bool> assigned(loops, false);
  for (int w = 0; w < form.spatial; ++w) {
    auto p = windows[0][w], q = windows[1][w];
    if (uses[p.first] == (bitS | bitV))
      std::swap(p, q);
    if (uses[p.first] != (bitS | bitU) || uses[q.first] != (bitS | bitV))
      return std::nullopt;
    // p moves U, q moves V.
    bool kernelIsQ = extents[q.first] <= extents[p.first];
    int f = kernelIsQ ? v : u;
    if (filter != -1 && filter != f)
      return std::nullopt;
    filter = f;
    auto out = kernelIsQ ? p : q, kernel = kernelIsQ ? q : p;
    form.out[w] = static_cast<int>(out.first);
    form.kernel[w] = static_cast<int>(kernel.first);
    form.stride[w] = out.second;
    form.dilation[w] = kernel.second;
    assigned[out.first] = assigned[kernel.first] = true;
  }
  form.src = windowed;
  form.weights = filter;
  form.dst = filter == u ? v : u;
  form.kind = form.dst == 2       ? ConvolutionForm::Kind::Forward
              : form.weights == 2 ? ConvolutionForm::Kind::WeightGradient
                                  : ConvolutionForm::Kind::InputGradient;

  // The other loops by the operands they move.
  const unsigned bitW = 1u << form.weights, bitD = 1u << form.dst;
  for (int64_t l = 0; l < loops; ++l) {
    if (assigned[l] || extents[l] == 1)
      continue; // A unit loop moves nothing.
    unsigned use = uses[l];
    int *slot = use == (bitS | bitD)          ? &form.batch
                : use == (bitS | bitW)        ? &form.inChannel
                : use == (bitW | bitD)        ? &form.outChannel
                : use == (bitS | bitW | bitD) ? &form.group
                                              : nullptr;
    if (!slot || *slot != -1)
      return std::nullopt;
    *slot = static_cast<int>(l);
  }
  return form;
}

//===- StepBuffers.cpp - host buffers of a compiled step ------------------===//

#include "RunnerSteps.h"

#include "HwAgent/Analysis/StepSignature.h"

#include <algorithm>
#include <cmath>
#include <cstring>

using namespace mlir;
using namespace mlir::hwagent;

/// Host buffers for `fn`'s arguments, as the model info describes them.
std::vector<ArgBuffer>
mlir::hwagent::detail::makeBuffers(const hwagent_function_info_t &fn) {
  std::vector<ArgBuffer> buffers(fn.num_args);
  for (uint32_t a = 0; a < fn.num_args; ++a) {
    const hwagent_value_info_t &info = fn.args[a];
    ArgBuffer &b = buffers[a];
    b.name = info.name;
    b.role = static_cast<hwagent_role_t>(info.role);
    b.dtype = static_cast<hwagent_dtype_t>(info.dtype);
    b.shape.assign(info.shape, info.shape + std::max(info.rank, 0));
    for (int64_t d : b.shape)
      b.elements = mlir::hwagent::detail::saturatingMul(b.elements, d);
  }
  return buffers;
}

/// Deterministic contents: N(0, 1) data (scaled), one-hot rows for labels
/// of f32, labels in range for integer inputs, N(0, 1/fan_in) parameters.
void mlir::hwagent::detail::synthesize(ArgBuffer &b, bool oneHot,
                                       int64_t classes, float inputScale,
                                       std::mt19937_64 &rng) {
  std::normal_distribution<float> normal(0.0f, 1.0f);
  int64_t n = b.elements;
  if (b.dtype == HWAGENT_DTYPE_F32) {
    float *data = reinterpret_cast<float *>(b.data());
    if (b.role != HWAGENT_ROLE_PARAMETER && oneHot) {
      int64_t width = b.shape.empty() ? 1 : b.shape.back();
      for (int64_t k = 0; k < n; ++k)
        data[k] = (k % width) == ((k / width) * 7 + 3) % width ? 1.0f : 0.0f;
    } else if (b.role != HWAGENT_ROLE_PARAMETER) {
      for (int64_t k = 0; k < n; ++k)
        data[k] = inputScale * normal(rng);
    } else {
      const std::vector<int64_t> &s = b.shape;
      double fan = s.size() == 2 ? s[0] : s.size() > 2 ? double(n) / s[0] : 0;
      float scale = fan > 0 ? float(1.0 / std::sqrt(fan)) : 0.0f;
      for (int64_t k = 0; k < n; ++k)
        data[k] = scale * normal(rng);
    }
    return;
  }
  for (int64_t k = 0; k < n; ++k) {
    int64_t label = (k * 7 + 3) % classes;
    if (b.dtype == HWAGENT_DTYPE_I32)
      reinterpret_cast<int32_t *>(b.data())[k] = int32_t(label);
    else
      reinterpret_cast<int64_t *>(b.data())[k] = label;
  }
}

bool mlir::hwagent::detail::bindAll(hwagent_step_t *step,
                                    std::vector<ArgBuffer> &buffers,
                                    llvm::raw_ostream &errs) {
  for (ArgBuffer &b : buffers)
    if (hwagent_step_bind(step, b.name.c_str(), b.data(), b.dtype,
                          int32_t(b.shape.size()),
                          b.shape.data()) != HWAGENT_OK) {
      errs << "hwagent-run: " << hwagent_error_message() << "\n";
      return false;
    }
  return true;
}

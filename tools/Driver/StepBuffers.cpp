//===- StepBuffers.cpp - host buffers of a compiled step ------------------===//

#include "RunnerSteps.h"

#include "HwAgent/Analysis/StepSignature.h"

#include <algorithm>
#include <cmath>
#include <cstring>

using namespace mlir;
using namespace mlir::hwagent;

std::vector<ArgBuffer>
mlir::hwagent::detail::makeBuffers(const StepSignature &signature) {
  std::vector<ArgBuffer> buffers(signature.args.size());
  for (auto [a, value] : llvm::enumerate(signature.args)) {
    ArgBuffer &b = buffers[a];
    auto tensor = cast<RankedTensorType>(value.type);
    b.name = value.name;
    b.role = value.role;
    b.dtype = static_cast<hwagent_dtype_t>(dtypeOf(tensor.getElementType()));
    b.shape.assign(tensor.getShape().begin(), tensor.getShape().end());
    for (int64_t d : b.shape)
      b.elements = mlir::hwagent::detail::saturatingMul(b.elements, d);
    b.storage.assign(std::max<int64_t>(1, b.bytes()), 0);
  }
  return buffers;
}

void mlir::hwagent::detail::shareParameters(std::vector<ArgBuffer> &args,
                                            const std::vector<unsigned> &params,
                                            std::vector<ArgBuffer> &evalArgs) {
  for (ArgBuffer &b : evalArgs)
    for (unsigned p : params)
      if (args[p].name == b.name && args[p].shape == b.shape &&
          args[p].dtype == b.dtype) {
        b.shared = &args[p];
        b.role = HWAGENT_ROLE_PARAMETER;
        b.storage.clear();
      }
}

/// Deterministic contents: N(0, 1) data (scaled), one-hot rows for labels
/// of f32, labels in range for integer inputs, N(0, 1/fan_in) parameters.
void mlir::hwagent::detail::synthesize(ArgBuffer &b, bool oneHot,
                                       int64_t classes, float inputScale,
                                       std::mt19937_64 &rng, bool write) {
  std::normal_distribution<float> normal(0.0f, 1.0f);
  int64_t n = b.elements;
  if (!write) {
    // The caller's contents; the numbers they would have taken are drawn.
    if (b.dtype == HWAGENT_DTYPE_F32 &&
        (b.role == HWAGENT_ROLE_PARAMETER || !oneHot))
      for (int64_t k = 0; k < n; ++k)
        (void)normal(rng);
    return;
  }
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

//===- SyntheticGraph.cpp - large synthetic training graphs ---------------===//

#include "SyntheticGraph.h"

#include "Driver/InitAll.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"

#include <string>

std::string mlir::hwagent::bench::makeSyntheticGraph(int numOps) {
  const std::string t = "tensor<16x16xf32>";
  std::string out;
  out.reserve(static_cast<size_t>(numOps) * 200);
  out += "#id = affine_map<(d0, d1) -> (d0, d1)>\n"
         "#row = affine_map<(d0, d1) -> (d0, 0)>\n"
         "func.func @synthetic(%x: " +
         t;
  for (int w = 0; w < 8; ++w)
    out += ", %w" + std::to_string(w) + ": " + t;
  out += ", %b: " + t + ") -> " + t +
         " {\n"
         "  %zero = arith.constant 0.0 : f32\n"
         "  %e = tensor.empty() : " +
         t + "\n";
  std::string current = "%x", residual = "%x";
  int ops = 0, layer = 0, id = 0;
  auto fresh = [&] { return "%v" + std::to_string(id++); };
  auto binary = [&](const std::string &a, const std::string &b,
                    const char *arith) {
    std::string v = fresh();
    out += "  " + v +
           " = linalg.generic {indexing_maps = [#id, #id, #id], "
           "iterator_types = [\"parallel\", \"parallel\"]} ins(" +
           a + ", " + b + " : " + t + ", " + t + ") outs(%e : " + t +
           ") {\n  ^bb0(%p: f32, %q: f32, %o: f32):\n    %s = " + arith +
           " %p, %q : f32\n    linalg.yield %s : f32\n  } -> " + t + "\n";
    ++ops;
    return v;
  };
  while (ops < numOps) {
    std::string m = fresh();
    out += "  " + m + " = linalg.matmul ins(" + current + ", %w" +
           std::to_string(layer % 8) + " : " + t + ", " + t +
           ") outs(%e : " + t + ") -> " + t + "\n";
    ++ops;
    std::string biased = binary(m, "%b", "arith.addf");
    std::string relu = fresh();
    out += "  " + relu +
           " = linalg.generic {indexing_maps = [#id, #id], iterator_types = "
           "[\"parallel\", \"parallel\"]} ins(" +
           biased + " : " + t + ") outs(%e : " + t +
           ") {\n  ^bb0(%p: f32, %o: f32):\n    %s = arith.maximumf %p, "
           "%zero : f32\n    linalg.yield %s : f32\n  } -> " +
           t + "\n";
    ++ops;
    current = relu;
    if (layer % 4 == 3) {
      current = binary(current, residual, "arith.addf");
      residual = current;
    }
    if (layer % 8 == 7) {
      std::string r = fresh();
      out += "  " + r +
             " = linalg.generic {indexing_maps = [#id, #row], iterator_types "
             "= [\"parallel\", \"reduction\"]} ins(" +
             current + " : " + t + ") outs(%e : " + t +
             ") {\n  ^bb0(%p: f32, %acc: f32):\n    %s = arith.addf %p, "
             "%acc : f32\n    linalg.yield %s : f32\n  } -> " +
             t + "\n";
      ++ops;
      current = binary(current, r, "arith.subf");
    }
    ++layer;
  }
  out += "  return " + current + " : " + t + "\n}\n";
  return out;
}

std::string mlir::hwagent::bench::makeGenericChain(int numOps,
                                                   bool sharedInit) {
  const std::string t = "tensor<64x64xf32>";
  const std::string map = "affine_map<(d0, d1) -> (d0, d1)>";
  const char *ops[] = {"arith.addf", "arith.mulf", "arith.subf"};
  std::string out = "func.func @train_step(%x: " + t + ", %w: " + t +
                    ") -> (tensor<f32>, " + t + ") {\n";
  if (sharedInit)
    out += "  %e = tensor.empty() : " + t + "\n";
  std::string previous = "%x";
  for (int i = 0; i < numOps; ++i) {
    std::string value = "%v" + std::to_string(i);
    std::string init = "%e";
    if (!sharedInit) {
      init = "%e" + std::to_string(i);
      out += "  " + init + " = tensor.empty() : " + t + "\n";
    }
    out += "  " + value + " = linalg.generic {indexing_maps = [" + map + ", " +
           map + ", " + map +
           "], iterator_types = [\"parallel\", \"parallel\"]} ins(" + previous +
           ", " + (i % 2 ? "%x" : "%w") + " : " + t + ", " + t + ") outs(" +
           init + " : " + t +
           ") {\n  ^bb0(%a: f32, %b: f32, %o: f32):\n    %s = " + ops[i % 3] +
           " %a, %b : f32\n    linalg.yield %s : f32\n  } -> " + t + "\n";
    previous = value;
  }
  out += "  %l = tensor.empty() : tensor<f32>\n"
         "  %zero = arith.constant 0.0 : f32\n"
         "  %init = linalg.fill ins(%zero : f32) outs(%l : tensor<f32>) -> "
         "tensor<f32>\n"
         "  %loss = linalg.reduce ins(" +
         previous + " : " + t +
         ") outs(%init : tensor<f32>) dimensions = [0, 1]\n"
         "    (%a: f32, %b: f32) {\n"
         "      %s = arith.addf %a, %b : f32\n"
         "      linalg.yield %s : f32\n"
         "    }\n"
         "  %w2 = arith.subf %w, " +
         previous + " : " + t + "\n  return %loss, %w2 : tensor<f32>, " + t +
         "\n}\n";
  return out;
}

std::string mlir::hwagent::bench::makeElementwiseChain(int numOps) {
  const std::string t = "tensor<64x64xf32>";
  const char *ops[] = {"arith.addf", "arith.mulf", "arith.subf"};
  std::string out = "func.func @train_step(%x: " + t + ", %w: " + t +
                    ") -> (tensor<f32>, " + t + ") {\n";
  std::string previous = "%x";
  for (int i = 0; i < numOps; ++i) {
    std::string value = "%v" + std::to_string(i);
    out += "  " + value + " = " + ops[i % 3] + " " + previous + ", " +
           (i % 2 ? "%x" : "%w") + " : " + t + "\n";
    previous = value;
  }
  out += "  %e = tensor.empty() : tensor<f32>\n"
         "  %zero = arith.constant 0.0 : f32\n"
         "  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> "
         "tensor<f32>\n"
         "  %loss = linalg.reduce ins(" +
         previous + " : " + t +
         ") outs(%init : tensor<f32>) dimensions = [0, 1]\n"
         "    (%a: f32, %b: f32) {\n"
         "      %s = arith.addf %a, %b : f32\n"
         "      linalg.yield %s : f32\n"
         "    }\n"
         "  %w2 = arith.subf %w, " +
         previous + " : " + t +
         "\n"
         "  return %loss, %w2 : tensor<f32>, " +
         t + "\n}\n";
  return out;
}

mlir::MLIRContext &mlir::hwagent::bench::getBenchContext() {
  static MLIRContext *context = [] {
    registerAllPasses();
    DialectRegistry registry;
    registerAllDialects(registry);
    auto *ctx = new MLIRContext(registry);
    ctx->loadAllAvailableDialects();
    ctx->disableMultithreading();
    return ctx;
  }();
  return *context;
}

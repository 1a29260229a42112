// Trees or the profile's geometric mean (docs/cost-model.md "Learned
// correction"): @a and @b hold the same 128x128x128 matmul, measured at 3x
// its analytic CPU time (Inputs/profile-x3.json: 12.582 ms against
// 4.194 ms), so the profile's geometric mean is x3.00; @c's 64x64x64 matmul
// has no entry. The trees of Inputs/learned-x2.json say x2 and record no
// geometric-mean figure: they apply. The same trees recorded as losing to
// the geometric mean held out (Inputs/learned-x2-geometric-mean-wins.json)
// leave @c the profile's x3.00; without a profile they apply again (there
// is no geometric mean to keep).

// RUN: hwagent-opt %s --hwagent-form-regions --hwagent-profile --hwagent-estimate-costs="target=%S/Inputs/simple-target.json profile-db=%S/Inputs/profile-x3.json learned-model=%S/Inputs/learned-x2.json" | FileCheck %s --check-prefix=TREES
// TREES-LABEL: func.func @c
// TREES: cpu = {{.*}} note "compute-bound, learned (xgboost) x2.00"

// RUN: hwagent-opt %s --hwagent-form-regions --hwagent-profile --hwagent-estimate-costs="target=%S/Inputs/simple-target.json profile-db=%S/Inputs/profile-x3.json learned-model=%S/Inputs/learned-x2-geometric-mean-wins.json" | FileCheck %s --check-prefix=GEOMEAN
// GEOMEAN-LABEL: func.func @c
// GEOMEAN: cpu = {{.*}} note "compute-bound, learned x3.00"

// RUN: hwagent-opt %s --hwagent-form-regions --hwagent-profile --hwagent-estimate-costs="target=%S/Inputs/simple-target.json learned-model=%S/Inputs/learned-x2-geometric-mean-wins.json" | FileCheck %s --check-prefix=NOPROFILE
// NOPROFILE-LABEL: func.func @c
// NOPROFILE: cpu = {{.*}} note "compute-bound, learned (xgboost) x2.00"

func.func @a(%x: tensor<128x128xf32>, %w: tensor<128x128xf32>) -> tensor<128x128xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x128xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<128x128xf32>) -> tensor<128x128xf32>
  %m = linalg.matmul ins(%x, %w : tensor<128x128xf32>, tensor<128x128xf32>) outs(%z : tensor<128x128xf32>) -> tensor<128x128xf32>
  return %m : tensor<128x128xf32>
}

func.func @b(%x: tensor<128x128xf32>, %w: tensor<128x128xf32>) -> tensor<128x128xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x128xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<128x128xf32>) -> tensor<128x128xf32>
  %m = linalg.matmul ins(%x, %w : tensor<128x128xf32>, tensor<128x128xf32>) outs(%z : tensor<128x128xf32>) -> tensor<128x128xf32>
  return %m : tensor<128x128xf32>
}

func.func @c(%x: tensor<64x64xf32>, %w: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %m = linalg.matmul ins(%x, %w : tensor<64x64xf32>, tensor<64x64xf32>) outs(%z : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %m : tensor<64x64xf32>
}

// Hand-checked predictions on a target with round numbers
// (Inputs/simple-target.json): cpu 1 GFLOP/s and 1 GB/s, no dispatch; ane
// 10 GFLOP/s, 10 GB/s, 1 ms dispatch, weights passed as inputs.
//
// The region is a 128x128x128 matmul with its zero fill:
//   flops 2*128^3 = 4194304, bytes 3*128*128*4 = 196608, weights 65536 B.
//   cpu: max(4194304/1e9, 196608/1e9) = 4.194e-3 s (compute-bound)
//   ane: 1e-3 + max(4.194e-4, 1.97e-5) + 65536/1e10 = 1.426e-3 s
// so the ANE is cheaper ...
// RUN: hwagent-opt %s --hwagent-form-regions --hwagent-profile --hwagent-estimate-costs="target=%S/Inputs/simple-target.json" | FileCheck %s --check-prefix=NOMINAL
// NOMINAL: module attributes {hwagent.target = #hwagent.target<"simple", transfer_bandwidth = 1.000000e+09, sync = 1.000000e-04, devices = [<backend = cpu, peak_flops = 1.000000e+09, {{.*}}>, <backend = ane, peak_flops = 1.000000e+10, {{.*}}max_dim = 16384, max_rank = 4>], links = [<from = cpu, to = ane, bandwidth = 1.000000e+09, convert_bandwidth = 5.000000e+08, sync = 1.000000e-04>, <from = ane, to = cpu, {{.*}}>]>}
// NOMINAL: hwagent.region 0 {{.*}}costs = #hwagent.costs<cpu = 4.194000e-03 note "compute-bound", ane = 1.426000e-03 note "dispatch-bound, weight refresh 6.55e-06 s">
//
// ... until another app keeps the ANE 75 % busy: x4 = 5.704e-3 s > cpu.
// RUN: hwagent-opt %s --hwagent-form-regions --hwagent-profile --hwagent-estimate-costs="target=%S/Inputs/simple-target.json telemetry=%S/Inputs/busy-ane.json" | FileCheck %s --check-prefix=BUSY
// BUSY: costs = #hwagent.costs<cpu = 4.194000e-03 note "compute-bound", ane = 5.704000e-03 note "dispatch-bound, weight refresh 6.55e-06 s, telemetry x4.00">
//
// A measured profile (9 samples of 1e-4 s on the cpu, weight 0.9) makes the
// cpu cheaper: 0.9 * 1e-4 + 0.1 * 4.194e-3 = 5.094e-4 s. The region's key is
// its structural hash, stable across runs and SSA names (the second RUN
// renames every value and still matches).
// RUN: hwagent-opt %s --hwagent-form-regions --hwagent-profile --hwagent-estimate-costs="target=%S/Inputs/simple-target.json profile-db=%S/Inputs/measured-profile.json" 2>&1 | FileCheck %s --check-prefix=MEASURED
// RUN: sed -e 's/%x/%renamed_x/g' -e 's/%w/%renamed_w/g' -e 's/%m/%renamed_m/g' %s | hwagent-opt --hwagent-form-regions --hwagent-profile --hwagent-estimate-costs="target=%S/Inputs/simple-target.json profile-db=%S/Inputs/measured-profile.json" 2>&1 | FileCheck %s --check-prefix=MEASURED
// MEASURED: warning: hwagent-estimate-costs: profile entry fedcba9876543210 (ane) matches no region; ignored
// MEASURED: costs = #hwagent.costs<cpu = 5.094000e-04 note "compute-bound, measured", ane = 1.426000e-03
//
// Inference (no weight refresh): ane = 1e-3 + 4.194e-4 = 1.419e-3.
// RUN: hwagent-opt %s --hwagent-form-regions --hwagent-profile --hwagent-estimate-costs="target=%S/Inputs/simple-target.json training=false" | FileCheck %s --check-prefix=INFER
// INFER: ane = 1.419000e-03 note "dispatch-bound">

func.func @step(%x: tensor<128x128xf32>, %w: tensor<128x128xf32>) -> tensor<128x128xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x128xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<128x128xf32>) -> tensor<128x128xf32>
  %m = linalg.matmul ins(%x, %w : tensor<128x128xf32>, tensor<128x128xf32>) outs(%z : tensor<128x128xf32>) -> tensor<128x128xf32>
  return %m : tensor<128x128xf32>
}

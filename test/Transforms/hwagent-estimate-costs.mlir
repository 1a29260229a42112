// Hand-checked predictions on a target with round numbers
// (Inputs/simple-target.json): cpu 1 GFLOP/s and 1 GB/s, no launch; ane
// 10 GFLOP/s in fp16, 10 GB/s, 1 ms launch per program, weights passed as
// inputs, intermediates on chip (only a program's boundary moves).
//
// The region is a 128x128x128 matmul with its zero fill:
//   flops 2*128^3 = 4194304, bytes 3*128*128*4 = 196608, weights 65536 B.
//   cpu: max(4194304/1e9, 196608/1e9) = 4.194e-3 s (compute-bound)
//   ane, alone as a program: 1e-3 + max(4.194e-4, 196608/2 / 1e10) =
//        1.419e-3 s (launch-bound; f16 halves the bytes). The function is a
//        forward pass, not a training step: its weights stay between steps
//        and need no handling (a training step's weights do: the routing
//        tests and the unit tests cover that).
// so the ANE is cheaper ...
// RUN: hwagent-opt %s --hwagent-form-regions --hwagent-profile --hwagent-estimate-costs="target=%S/Inputs/simple-target.json" | FileCheck %s --check-prefix=NOMINAL
// NOMINAL: module attributes {hwagent.target = #hwagent.target<"simple" description "round numbers for hand-checked tests", transfer_bandwidth = 1.000000e+09, convert_bandwidth = 5.000000e+08, sync = 1.000000e-04, devices = [<backend = cpu, peak_flops = {f32 = 1.000000e+09 : f64}, bandwidth = 1.000000e+09>, <backend = ane, {{.*}}launch = 1.000000e-03, weight_updates = ["input"], static_shapes = true, max_dim = 16384, max_rank = 4, {{.*}}>]>, hwagent.training = true}
// NOMINAL: hwagent.region 0 {{.*}}costs = #hwagent.costs<cpu = 4.194000e-03 note "compute-bound" terms<compute = 4.194000e-03, {{.*}}flops = 4194304, weight_bytes = 65536, {{.*}}>, ane = 1.419000e-03 note "launch-bound" terms<compute = 4.194000e-04, {{.*}}weight_bytes = 32768, spilled = false, telemetry = 1.000000e+00>>
//
// ... until another app keeps the ANE 75 % busy: x4 = 5.678e-3 s > cpu.
// RUN: hwagent-opt %s --hwagent-form-regions --hwagent-profile --hwagent-estimate-costs="target=%S/Inputs/simple-target.json telemetry=%S/Inputs/busy-ane.json" | FileCheck %s --check-prefix=BUSY
// BUSY: costs = #hwagent.costs<cpu = 4.194000e-03 note "compute-bound" {{.*}}, ane = 5.678000e-03 note "launch-bound, telemetry x4.00"
//
// A measured profile (9 samples of 1e-4 s on the cpu, weight 0.9) makes the
// cpu cheaper: 0.9 * 1e-4 + 0.1 * 4.194e-3 = 5.094e-4 s. The region's key is
// its structural hash, stable across runs and SSA names (the second RUN
// renames every value and still matches).
// RUN: hwagent-opt %s --hwagent-form-regions --hwagent-profile --hwagent-estimate-costs="target=%S/Inputs/simple-target.json profile-db=%S/Inputs/measured-profile.json" 2>&1 | FileCheck %s --check-prefix=MEASURED
// RUN: sed -e 's/%x/%renamed_x/g' -e 's/%w/%renamed_w/g' -e 's/%m/%renamed_m/g' %s | hwagent-opt --hwagent-form-regions --hwagent-profile --hwagent-estimate-costs="target=%S/Inputs/simple-target.json profile-db=%S/Inputs/measured-profile.json" 2>&1 | FileCheck %s --check-prefix=MEASURED
// MEASURED: warning: hwagent-estimate-costs: profile entry fedcba9876543210 (ane) matches no region; ignored
// MEASURED: costs = #hwagent.costs<cpu = 5.094000e-04 note "compute-bound, measured" {{.*}}, ane = 1.419000e-03
//
// Inference gives the same prediction here.
// RUN: hwagent-opt %s --hwagent-form-regions --hwagent-profile --hwagent-estimate-costs="target=%S/Inputs/simple-target.json training=false" | FileCheck %s --check-prefix=INFER
// INFER: ane = 1.419000e-03 note "launch-bound" terms
//
// backends= restricts the target (the CPU must stay: it runs the host).
// RUN: hwagent-opt %s --hwagent-form-regions --hwagent-estimate-costs="target=apple-m4 backends=cpu,ane" | FileCheck %s --check-prefix=RESTRICT
// RESTRICT: devices = [<backend = ane{{.*}}>, <backend = cpu{{.*}}>]>
// RESTRICT-NOT: backend = gpu
// RESTRICT: costs = #hwagent.costs<cpu = {{.*}}, ane = {{.*}}>

func.func @step(%x: tensor<128x128xf32>, %w: tensor<128x128xf32>) -> tensor<128x128xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x128xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<128x128xf32>) -> tensor<128x128xf32>
  %m = linalg.matmul ins(%x, %w : tensor<128x128xf32>, tensor<128x128xf32>) outs(%z : tensor<128x128xf32>) -> tensor<128x128xf32>
  return %m : tensor<128x128xf32>
}

// Objectives and the power cap (docs/partitioning.md): on apple-m4-max a
// large matmul goes to the GPU for time (~12 TFLOP/s at ~44 W published) and
// to the ANE for energy (~6 TFLOP/s at ~5 W); a convolution stack goes to the
// ANE for both; a tiny dispatch-bound step stays on the CPU for both.

// RUN: hwagent-opt %s --partition-backends="target=apple-m4-max training=false explain=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=TIME
// RUN: hwagent-opt %s --partition-backends="target=apple-m4-max training=false explain=true objective=energy" -o /dev/null 2>&1 | FileCheck %s --check-prefix=ENERGY
// RUN: hwagent-opt %s --partition-backends="target=apple-m4-max training=false explain=true objective=edp" -o /dev/null 2>&1 | FileCheck %s --check-prefix=EDP

// TIME: remark: program 0 on gpu (simulated)
// TIME: remark: program 0 on ane (simulated)
// TIME: remark: program 0 on cpu
// ENERGY: remark: program 0 on ane (simulated)
// ENERGY: remark: region 0 -> ane (simulated) in program 0; alone: {{.*}}; objective energy: on the ane {{[0-9.]+}}x slower than the gpu, {{[0-9.]+}}x less energy (alone)
// ENERGY: remark: program 0 on ane (simulated)
// ENERGY: remark: program 0 on cpu
// EDP: remark: program 0 on ane (simulated)
// EDP: remark: program 0 on ane (simulated)
// EDP: remark: program 0 on cpu

// The summary names the objective and bounds it in its unit.
// RUN: hwagent-opt %s --partition-backends="target=apple-m4-max training=false summary=true objective=energy" -o /dev/null 2>&1 | FileCheck %s --check-prefix=SUMMARY
// SUMMARY: hwagent partition of @gemm for apple-m4-max (strategy optimal, objective energy;
// SUMMARY: predicted step energy (modelled): optimal
// SUMMARY: lower bound {{[0-9.]+}} mJ (within

// Under a cap below the GPU's power (42 W at its peak here) the GPU clocks
// down (power ~ f^3, docs/targets.md "DVFS"): at 20 W it keeps 0.78 of its
// clock and stays the fastest (16.05 ms against 12.63 ms at the peak; the
// ANE takes 23.24 ms); under 5 W the GPU would need 0.48 of its clock and
// the ANE is faster. Under a cap no placement meets even at the lowest
// clock (below the 0.2 W static power), an error says so with the lowest
// power found.
// RUN: hwagent-opt %s --partition-backends="target=apple-m4-max training=false explain=true power-cap=20" -o /dev/null 2>&1 | FileCheck %s --check-prefix=CAP
// CAP: remark: program 0 on gpu (simulated)
// CAP: objective time under a 20.00 W cap
// RUN: hwagent-opt %s --partition-backends="target=apple-m4-max training=false summary=true power-cap=20" -o /dev/null 2>&1 | FileCheck %s --check-prefix=CLOCK
// CLOCK: hwagent partition of @gemm for apple-m4-max (strategy optimal, power cap 20.00 W met at 0.78 of the peak clock;
// CLOCK: predicted step time: optimal 16.05 ms, {{.*}}, ane 23.24 ms, gpu 16.05 ms
// CLOCK: average power 20.00 W
// RUN: hwagent-opt %s --partition-backends="target=apple-m4-max training=false explain=true power-cap=5" -o /dev/null 2>&1 | FileCheck %s --check-prefix=CAP5
// CAP5: remark: program 0 on ane (simulated)
// A fixed strategy over the cap even at its lowest clock is kept, with a
// warning.
// RUN: hwagent-opt %s --partition-backends="target=apple-m4-max training=false strategy=gpu power-cap=1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=FIXED
// FIXED: warning: hwagent-assign-backends: no placement of strategy 'gpu' fits power-cap=1.00 W: the lowest average power is {{[0-9.]+}} W (modelled)
// RUN: not hwagent-opt %s --partition-backends="target=apple-m4-max training=false power-cap=0.1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOFIT
// NOFIT: error: hwagent-assign-backends: no placement found fits power-cap=0.10 W: the lowest average power found is {{[0-9.]+}} W (modelled)

// Bad values name the option.
// RUN: not hwagent-opt %s --partition-backends="objective=fast" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BADOBJ
// BADOBJ: hwagent-opt: --partition-backends: 'fast' is not a value of objective
// BADOBJ-NEXT: choices: time, energy, edp
// RUN: not hwagent-opt %s --partition-backends="power-cap=-1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BADCAP
// BADCAP: error: hwagent-assign-backends: power cap must be watts in [0, 1e6] (0: none), got -1

func.func @gemm(%a: tensor<4096x4096xf32>, %b: tensor<4096x4096xf32>) -> tensor<4096x4096xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4096x4096xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  %c = linalg.matmul ins(%a, %b : tensor<4096x4096xf32>, tensor<4096x4096xf32>) outs(%z : tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  return %c : tensor<4096x4096xf32>
}

func.func @convs(%x: tensor<1x256x56x56xf32>, %w0: tensor<256x256x3x3xf32>, %w1: tensor<256x256x3x3xf32>, %w2: tensor<256x256x3x3xf32>) -> tensor<1x256x50x50xf32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<1x256x54x54xf32>
  %z0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<1x256x54x54xf32>) -> tensor<1x256x54x54xf32>
  %c0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w0 : tensor<1x256x56x56xf32>, tensor<256x256x3x3xf32>) outs(%z0 : tensor<1x256x54x54xf32>) -> tensor<1x256x54x54xf32>
  %e1 = tensor.empty() : tensor<1x256x52x52xf32>
  %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<1x256x52x52xf32>) -> tensor<1x256x52x52xf32>
  %c1 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%c0, %w1 : tensor<1x256x54x54xf32>, tensor<256x256x3x3xf32>) outs(%z1 : tensor<1x256x52x52xf32>) -> tensor<1x256x52x52xf32>
  %e2 = tensor.empty() : tensor<1x256x50x50xf32>
  %z2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x256x50x50xf32>) -> tensor<1x256x50x50xf32>
  %c2 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%c1, %w2 : tensor<1x256x52x52xf32>, tensor<256x256x3x3xf32>) outs(%z2 : tensor<1x256x50x50xf32>) -> tensor<1x256x50x50xf32>
  return %c2 : tensor<1x256x50x50xf32>
}

func.func @tiny(%a: tensor<16x16xf32>, %b: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x16xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<16x16xf32>) -> tensor<16x16xf32>
  %c = linalg.matmul ins(%a, %b : tensor<16x16xf32>, tensor<16x16xf32>) outs(%z : tensor<16x16xf32>) -> tensor<16x16xf32>
  return %c : tensor<16x16xf32>
}

// The module records what it was partitioned for: the runtime's sessions
// optimize it too (docs/adaptive.md "Objectives"); time and no cap leave
// nothing.
// RUN: hwagent-opt %s --partition-backends="target=apple-m4-max training=false objective=energy power-cap=30" | FileCheck %s --check-prefix=ATTR
// ATTR: module attributes {{{.*}}hwagent.objective = #hwagent.objective<energy>, hwagent.power_cap = 3.000000e+01 : f64
// RUN: hwagent-opt %s --partition-backends="target=apple-m4-max training=false" | FileCheck %s --check-prefix=NOATTR
// NOATTR-NOT: hwagent.objective
// NOATTR-NOT: hwagent.power_cap

// Hand-written costs on the two-backend target of Inputs/simple-target.json
// (carried on the module as estimate-costs would leave it). Costs without
// terms are taken as compute; a CPU program launches for free, an ANE
// program pays 1 ms. A boundary carrying 1000 f32 costs sync 1e-4 +
// 4000 B / 1e9 B/s + f32->f16 conversion 4000 B / 5e8 B/s = 112 us.
//
// Each region takes 1 ms on the CPU and 300 us of compute on the ANE. Alone
// on the ANE a region costs 1.3 ms (its launch): worse than the CPU, which
// is what the per-region choice sees. Together the two regions form one
// program that pays one launch: 1 ms + 600 us + two boundaries (224 us) =
// 1.824 ms < 2 ms on the CPU. Split (one on each), the step pays 2.524 ms.

// RUN: hwagent-opt %s --hwagent-assign-backends="explain=true" 2>&1 | FileCheck %s
// CHECK: remark: program 0 on ane (simulated): regions [0, 1], 1.60 ms (1.00 ms launch, launch-bound, utilization 1.00)
// CHECK: remark: region 0 -> ane (simulated) in program 0 (2 regions share one 1.00 ms launch); alone: cpu 1.00 ms, ane 1.30 ms; margin 700.0 us over cpu; decided by programs and boundaries: cpu alone would be 300.0 us faster, but moving it costs the step launches and transfers
// CHECK: remark: region 1 -> ane (simulated) in program 0
// CHECK-LABEL: func.func @chain
// CHECK-SAME: hwagent.programs = [#hwagent.program<id = 0, backend = ane, regions = [0, 1], costs = <cpu = 2.000000e-03 note "compute-bound", ane = 1.600000e-03 note "launch-bound">, weights = none, weight_bytes = 0>]
// CHECK: hwagent.region 0 program 0 {{.*}}backend = #hwagent.backend<ane>
// CHECK: hwagent.region 1 program 0 {{.*}}backend = #hwagent.backend<ane>

// The per-region choice keeps both on the CPU; forcing the CPU too.
// RUN: hwagent-opt %s --hwagent-assign-backends="strategy=local" | FileCheck %s --check-prefix=LOCAL
// LOCAL: hwagent.region 0 program 0 {{.*}}backend = #hwagent.backend<cpu>
// LOCAL: hwagent.region 1 program 0 {{.*}}backend = #hwagent.backend<cpu>

// RUN: hwagent-opt %s --hwagent-assign-backends="report=-" -o /dev/null | FileCheck %s --check-prefix=REPORT
// REPORT:      "schema": "hwagent.partition",
// REPORT-NEXT: "version": 4,
// REPORT-NEXT: "target": "simple",
// REPORT-NEXT: "strategy": "optimal",
// REPORT-NEXT: "simulated_backends": [
// REPORT-NEXT:   "ane"
// REPORT:      "name": "chain",
// REPORT-NEXT: "step_time": {
// REPORT-NEXT:   "optimal": 0.00182{{[0-9]*}},
// REPORT-NEXT:   "greedy": 0.00182{{[0-9]*}},
// REPORT-NEXT:   "local": 0.002,
// REPORT-NEXT:   "cpu": 0.002,
// REPORT-NEXT:   "ane": 0.00182{{[0-9]*}},
// REPORT-NEXT:   "gpu": 0.002
// REPORT-NEXT: },
// A target without power values: no joules (docs/cost-model.md "Energy").
// REPORT-NEXT: "step_energy": {
// REPORT-NEXT:   "optimal": 0,
// REPORT:      "energy": {
// REPORT-NEXT:   "programs": 0,
// REPORT:      "program_time": {{0.0016|0.00159}}{{[0-9]*}},
// REPORT-NEXT: "boundary_time": 0.000224{{[0-9]*}},
// REPORT-NEXT: "objective": "time",
// REPORT-NEXT: "power_cap": 0,
// REPORT-NEXT: "clock": 1,
// REPORT-NEXT: "lower_bound": {{.*}},
// REPORT-NEXT: "gap_to_lower_bound": {{.*}},
// REPORT:      "programs": [
// REPORT:        "backend": "ane",
// REPORT-NEXT:   "regions": [
// REPORT-NEXT:     0,
// REPORT-NEXT:     1
// REPORT:      "boundaries": [
// REPORT:        "from": "host",
// REPORT-NEXT:   "to": 0,
// REPORT-NEXT:   "bytes": 4000,
// REPORT-NEXT:   "converted_bytes": 4000,
// REPORT-NEXT:   "seconds": 0.000112{{[0-9]*}}

// RUN: hwagent-opt %s --hwagent-assign-backends="dot=%t.dot summary=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=SUMMARY
// RUN: FileCheck %s --check-prefix=DOT < %t.dot
// SUMMARY: hwagent partition of @chain for simple (strategy optimal; ane times are simulated predictions)
// SUMMARY: region  backend  program           cpu          ane  (alone)
// SUMMARY: 0       ane      0             1.00 ms      1.30 ms
// SUMMARY: program 0 on ane (simulated): regions [0, 1], 1.60 ms
// SUMMARY: predicted step time: optimal 1.82 ms, greedy 1.82 ms, local 2.00 ms, cpu 2.00 ms, ane 1.82 ms, gpu 2.00 ms
// SUMMARY: optimal: 1 program, programs 1.60 ms, boundaries 224.0 us; lower bound
// DOT: digraph hwagent {
// DOT: label="@chain (optimal: 1.82 ms)";
// DOT: subgraph cluster_0_p0 {
// DOT: label="program 0: ane 1.60 ms";
// DOT: f0_r0 [label="r0\n1.30 ms", fillcolor="#f4a261"];
// DOT: f0_r2 [label="host (cpu)", fillcolor="#dddddd"];
// DOT: f0_r2 -> f0_r0 [label="4000 B\n12.0 us", color=red];

module attributes {hwagent.target = #hwagent.target<"simple" description "round numbers for hand-checked tests", transfer_bandwidth = 1.000000e+09, convert_bandwidth = 5.000000e+08, sync = 1.000000e-04, devices = [<backend = cpu, peak_flops = {f32 = 1.000000e+09 : f64}, bandwidth = 1.000000e+09>, <backend = ane, simulated = true, peak_flops = {f16 = 1.000000e+10 : f64}, program_ramp = true, compute_type = "f16", bandwidth = 1.000000e+10, fused_memory = true, launch = 1.000000e-03, weight_updates = ["input"], static_shapes = true, max_dim = 16384, max_rank = 4, op_kinds = ["conv", "depthwise", "matmul", "elementwise", "reduction", "normalization", "pooling", "data_movement"], element_types = ["f16", "f32"]>]>, hwagent.training = true} {
func.func @chain(%x: tensor<1000xf32>) -> tensor<1000xf32> {
  %a = hwagent.region 0 (%i = %x : tensor<1000xf32>) -> (tensor<1000xf32>)
      attributes {costs = #hwagent.costs<cpu = 1.0e-3, ane = 0.3e-3>} {
    %e = math.exp %i : tensor<1000xf32>
    hwagent.yield %e : tensor<1000xf32>
  }
  %b = hwagent.region 1 (%i = %a : tensor<1000xf32>) -> (tensor<1000xf32>)
      attributes {costs = #hwagent.costs<cpu = 1.0e-3, ane = 0.3e-3>} {
    %t = math.tanh %i : tensor<1000xf32>
    hwagent.yield %t : tensor<1000xf32>
  }
  return %b : tensor<1000xf32>
}
}

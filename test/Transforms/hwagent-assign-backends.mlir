// Hand-written costs on the two-backend target of Inputs/simple-target.json:
// a boundary carrying 1000 f32 costs sync 1e-4 + 4000 B / 1e9 B/s + f32->f16
// conversion 4000 B / 5e8 B/s = 1.12e-4 s.
//
// Each region is 50 us faster on the ANE alone, but putting both there adds
// two boundaries (224 us), and moving either alone adds two as well (in and
// out): the optimal placement keeps both on the CPU, while greedy offload
// and the per-region choice pay for the boundaries.

// RUN: hwagent-opt %s --hwagent-assign-backends="target=%S/Inputs/simple-target.json explain=true" 2>&1 | FileCheck %s
// CHECK: remark: region 0 -> cpu: cpu 1.00 ms, ane 950.0 us; margin 174.0 us over ane; decided by boundary cost: ane alone would be 50.0 us faster, but its transfers would add 224.0 us
// CHECK: remark: region 1 -> cpu: cpu 1.00 ms, ane 950.0 us; margin 174.0 us over ane; decided by boundary cost
// CHECK-LABEL: func.func @chain
// CHECK: hwagent.region 0 {{.*}}backend = #hwagent.backend<cpu>
// CHECK: hwagent.region 1 {{.*}}backend = #hwagent.backend<cpu>

// RUN: hwagent-opt %s --hwagent-assign-backends="target=%S/Inputs/simple-target.json strategy=greedy" | FileCheck %s --check-prefix=GREEDY
// GREEDY: hwagent.region 0 {{.*}}backend = #hwagent.backend<ane>
// GREEDY: hwagent.region 1 {{.*}}backend = #hwagent.backend<ane>

// RUN: hwagent-opt %s --hwagent-assign-backends="target=%S/Inputs/simple-target.json report=-" -o /dev/null | FileCheck %s --check-prefix=REPORT
// REPORT:      "schema": "hwagent.partition",
// REPORT-NEXT: "version": 1,
// REPORT-NEXT: "target": "simple",
// REPORT-NEXT: "strategy": "optimal",
// REPORT-NEXT: "simulated_backends": [
// REPORT-NEXT:   "ane"
// REPORT:      "name": "chain",
// REPORT-NEXT: "step_time": {
// REPORT-NEXT:   "optimal": 0.002,
// REPORT-NEXT:   "greedy": 0.002124,
// REPORT-NEXT:   "local": 0.002124,
// REPORT-NEXT:   "cpu": 0.002,
// REPORT-NEXT:   "ane": 0.002124
// REPORT-NEXT: },
// REPORT-NEXT: "boundary_time": 0,
// REPORT:      "edges": [
// REPORT:        "from": "host",
// REPORT-NEXT:   "to": 0,
// REPORT-NEXT:   "bytes": 4000,

// RUN: hwagent-opt %s --hwagent-assign-backends="target=%S/Inputs/simple-target.json dot=%t.dot summary=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=SUMMARY
// RUN: FileCheck %s --check-prefix=DOT < %t.dot
// SUMMARY: hwagent partition of @chain for simple (strategy optimal; ane times are simulated predictions)
// SUMMARY: region  backend           cpu          ane   boundaries
// SUMMARY: 0       cpu            1.00 ms     950.0 us       0.0 us
// SUMMARY: predicted step time: optimal 2.00 ms, greedy 2.12 ms, local 2.12 ms, cpu 2.00 ms, ane 2.12 ms
// DOT: digraph hwagent {
// DOT: label="@chain (optimal: 2.00 ms)";
// DOT: f0_r0 [label="r0\ncpu 1.00 ms", fillcolor="#8ecae6"];
// DOT: f0_r2 [label="host (cpu)", fillcolor="#dddddd"];
// DOT: f0_r2 -> f0_r0 [label="4000 B"];

// Boundaries move with the assignment: with the ANE forced, the transfers
// into and out of it show up on the edges and in the dot file.
// RUN: hwagent-opt %s --hwagent-assign-backends="target=%S/Inputs/simple-target.json strategy=ane dot=%t.ane.dot" -o /dev/null
// RUN: FileCheck %s --check-prefix=ANEDOT < %t.ane.dot
// ANEDOT: f0_r2 -> f0_r0 [label="4000 B\n112.0 us", color=red];

func.func @chain(%x: tensor<1000xf32>) -> tensor<1000xf32> {
  %a = hwagent.region 0 (%i = %x : tensor<1000xf32>) -> (tensor<1000xf32>)
      attributes {costs = #hwagent.costs<cpu = 1.0e-3 note "compute-bound", ane = 0.95e-3 note "compute-bound">} {
    %e = math.exp %i : tensor<1000xf32>
    hwagent.yield %e : tensor<1000xf32>
  }
  %b = hwagent.region 1 (%i = %a : tensor<1000xf32>) -> (tensor<1000xf32>)
      attributes {costs = #hwagent.costs<cpu = 1.0e-3 note "compute-bound", ane = 0.95e-3 note "compute-bound">} {
    %t = math.tanh %i : tensor<1000xf32>
    hwagent.yield %t : tensor<1000xf32>
  }
  return %b : tensor<1000xf32>
}

// Inputs that once broke the pipeline (issue 13's fuzzing classes), each
// handled at its root.

// Region formation on dynamic shapes: the tensor.dim that sizes a
// tensor.empty moves into the region with it; the region does not read its
// own result (it used to fail with "operand does not dominate this use").
// RUN: hwagent-opt %s --split-input-file --partition-backends | FileCheck %s --check-prefix=DYN
// DYN-LABEL: func.func @dynamic(
// DYN:         hwagent.region 0 program 0 (%[[A:.*]] = %arg0 : tensor<?x512xf32>, %{{.*}} = %arg1 : tensor<512x512xf32>)
// DYN:           %[[D:.*]] = tensor.dim %[[A]], %{{.*}} : tensor<?x512xf32>
// DYN:           tensor.empty(%[[D]]) : tensor<?x512xf32>
// DYN:           linalg.matmul
func.func @dynamic(%a: tensor<?x512xf32>, %b: tensor<512x512xf32>) -> tensor<?x512xf32> {
  %c0 = arith.constant 0 : index
  %d = tensor.dim %a, %c0 : tensor<?x512xf32>
  %e = tensor.empty(%d) : tensor<?x512xf32>
  %m = linalg.matmul ins(%a, %b : tensor<?x512xf32>, tensor<512x512xf32>) outs(%e : tensor<?x512xf32>) -> tensor<?x512xf32>
  return %m : tensor<?x512xf32>
}

// -----

// A host-side scalar op that reads a region's value and sizes a later
// tensor takes part in clustering: left between the regions, the region
// holding both the size's producer and its consumer would feed and read it
// (it failed with "could not order the regions of a block").
// DYN-LABEL: func.func @host_reads_region(
// DYN:         hwagent.region 0
// DYN:         hwagent.region 1
// DYN:           %[[D:.*]] = tensor.dim
// DYN:           %[[N:.*]] = arith.addi %[[D]]
// DYN:           tensor.empty(%[[N]])
// DYN:           linalg.matmul
func.func @host_reads_region(%a: tensor<?x512xf32>, %b: tensor<512x512xf32>) -> tensor<?x512xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d0 = tensor.dim %a, %c0 : tensor<?x512xf32>
  %e = tensor.empty(%d0) : tensor<?x512xf32>
  %m = linalg.matmul ins(%a, %b : tensor<?x512xf32>, tensor<512x512xf32>) outs(%e : tensor<?x512xf32>) -> tensor<?x512xf32>
  %d = tensor.dim %m, %c0 : tensor<?x512xf32>
  %n = arith.addi %d, %c1 : index
  %e2 = tensor.empty(%n) : tensor<?x512xf32>
  %p = tensor.pad %m low[0, 0] high[1, 0] {
  ^bb0(%i: index, %j: index):
    %z = arith.constant 0.0 : f32
    tensor.yield %z : f32
  } : tensor<?x512xf32> to tensor<?x512xf32>
  %r = linalg.matmul ins(%p, %b : tensor<?x512xf32>, tensor<512x512xf32>) outs(%e2 : tensor<?x512xf32>) -> tensor<?x512xf32>
  return %r : tensor<?x512xf32>
}

// -----

// Shapes of 2^32 per axis: FLOPs and bytes saturate at INT64_MAX instead of
// wrapping to 0 (which priced the region as a 5 us dispatch).
// DYN-LABEL: func.func @huge(
// DYN: features = #hwagent.features<flops = 9223372036854775807, bytes_read = 9223372036854775807
func.func @huge(%a: tensor<4294967296x4294967296xf32>, %b: tensor<4294967296x4294967296xf32>) -> tensor<4294967296x4294967296xf32> {
  %e = tensor.empty() : tensor<4294967296x4294967296xf32>
  %m = linalg.matmul ins(%a, %b : tensor<4294967296x4294967296xf32>, tensor<4294967296x4294967296xf32>) outs(%e : tensor<4294967296x4294967296xf32>) -> tensor<4294967296x4294967296xf32>
  return %m : tensor<4294967296x4294967296xf32>
}

// A configuration error is one line naming the file and field: no dump of
// the module after it.
// RUN: not hwagent-opt %s --split-input-file --partition-backends="target=%S/Inputs/bad-target.json" -o /dev/null 2>&1 | FileCheck %s --check-prefix=CONFIG
// CONFIG: error: hwagent-estimate-costs: {{.*}}bad-target.json: backends[0].launch: expected number
// CONFIG-NOT: see current operation

// Outputs that cannot be written are errors, with the reason.
// RUN: not hwagent-opt %s --split-input-file --partition-backends="report=%t.missing/r.json" -o /dev/null 2>&1 | FileCheck %s --check-prefix=REPORT
// REPORT: error: hwagent-assign-backends: cannot write report '{{.*}}missing/r.json': {{.*}}No such file or directory
// REPORT-NOT: see current operation
// RUN: not hwagent-opt %s --split-input-file --partition-backends="dot=%S" -o /dev/null 2>&1 | FileCheck %s --check-prefix=DOT
// DOT: error: hwagent-assign-backends: cannot write dot file '{{.*}}': {{.*}}directory
// RUN: not hwagent-opt %s --split-input-file --partition-backends="report=/dev/full" -o /dev/null 2>&1 | FileCheck %s --check-prefix=FULL
// FULL: error: hwagent-assign-backends: cannot write report '/dev/full': No space left on device

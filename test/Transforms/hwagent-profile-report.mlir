// RUN: hwagent-opt %s --hwagent-form-regions --hwagent-profile="report=%t.json" -o /dev/null
// RUN: FileCheck %s --input-file=%t.json
// RUN: hwagent-opt %s --hwagent-form-regions --hwagent-profile="report=-" -o /dev/null | FileCheck %s
// RUN: not hwagent-opt %s --hwagent-form-regions --hwagent-profile="report=%t.missing/dir/out.json" -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOFILE
// RUN: not hwagent-opt %s --hwagent-form-regions="granularity=coarse" 2>&1 | FileCheck %s --check-prefix=BADOPT

// CHECK:      "schema": "hwagent.profile",
// CHECK-NEXT: "version": 1,
// CHECK:      "name": "mlp",
// CHECK:      "features": {
// CHECK-NEXT:   "flops": 1088,
// CHECK:      "regions": [
// CHECK:        "id": 0,
// CHECK-NEXT:   "key": "{{[0-9a-f]+}}",
// CHECK-NEXT:   "location": "{{.*}}hwagent-profile-report.mlir:[[@LINE+31]]:8",
// CHECK-NEXT:   "ops": [
// CHECK:          "linalg.matmul",
// CHECK:          "linalg.generic"
// CHECK-NEXT:   ],
// CHECK-NEXT:   "features": {
// CHECK-NEXT:     "flops": 1088,
// CHECK-NEXT:     "bytes_read": 640,
// CHECK-NEXT:     "bytes_written": 256,
// CHECK-NEXT:     "arithmetic_intensity": 1.2142857142857142,
// CHECK-NEXT:     "params": 128,
// CHECK-NEXT:     "param_bytes": 512,
// CHECK-NEXT:     "op_histogram": {
// CHECK-NEXT:       "matmul": 1,
// CHECK-NEXT:       "elementwise": 1
// CHECK-NEXT:     },
// CHECK-NEXT:     "depth": 2,
// CHECK-NEXT:     "element_types": [
// CHECK-NEXT:       "f32"
// CHECK-NEXT:     ],
// CHECK-NEXT:     "dynamic_dims": 0,
// CHECK-NEXT:     "max_dim": 16,
// CHECK-NEXT:     "max_rank": 2,
// CHECK-NEXT:     "rows": 8,
// CHECK-NEXT:     "loops": false,
// CHECK-NEXT:     "phase": "unknown"
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @mlp(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x16xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %m = linalg.matmul ins(%x, %w : tensor<4x8xf32>, tensor<8x16xf32>) outs(%z : tensor<4x16xf32>) -> tensor<4x16xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m : tensor<4x16xf32>) outs(%e : tensor<4x16xf32>) {
  ^bb0(%p: f32, %o: f32):
    %s = arith.maximumf %p, %zero : f32
    linalg.yield %s : f32
  } -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}

// NOFILE: error: hwagent-profile: cannot write report '{{.*}}out.json': {{.*}}
// BADOPT: hwagent-opt: --hwagent-form-regions: 'coarse' is not a value of granularity
// BADOPT-NEXT: choices: per-op, fused, per-layer

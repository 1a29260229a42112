// The ANE variant of a program writes the infinities its constants hold (a
// causal mask's -inf, a max's initial value) as fp16's largest finite
// magnitude: softmax and max give the same results and the program's
// outputs stay finite, so the runtime's overflow check does not re-run
// every masked attention program on the CPU. The CPU variant keeps -inf.
// RUN: hwagent-opt %s --partition-backends="target=%S/Inputs/simple-target.json strategy=ane" --hwagent-lower-to-runtime | FileCheck %s

// CHECK-LABEL: func.func private @__hwagent_f_p0_cpu(
// CHECK:         arith.constant 0xFF800000 : f32
// CHECK-LABEL: func.func private @__hwagent_f_p0_ane(
// CHECK-NOT:     0xFF800000
// CHECK-NOT:     0x7F800000
// CHECK:         arith.constant -6.550400e+04 : f32

func.func @f(%x: tensor<16x16xf32>, %w: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<16x16xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<16x16xf32>) -> tensor<16x16xf32>
  %m = linalg.matmul ins(%x, %w : tensor<16x16xf32>, tensor<16x16xf32>) outs(%z : tensor<16x16xf32>) -> tensor<16x16xf32>
  %masked = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                            iterator_types = ["parallel", "parallel"]}
      ins(%m : tensor<16x16xf32>) outs(%e : tensor<16x16xf32>) {
  ^bb0(%v: f32, %out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %keep = arith.cmpi ule, %j, %i : index
    %s = arith.select %keep, %v, %ninf : f32
    linalg.yield %s : f32
  } -> tensor<16x16xf32>
  %t = math.tanh %masked : tensor<16x16xf32>
  return %t : tensor<16x16xf32>
}

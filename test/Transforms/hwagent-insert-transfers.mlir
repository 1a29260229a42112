// RUN: hwagent-opt %s --split-input-file --hwagent-insert-transfers | FileCheck %s

// cpu -> ane -> ane -> cpu: one transfer in (f32 -> f16), none between the
// two ANE regions (they exchange f16), one out (f16 -> f32). The ANE regions
// take and give f16 and widen/narrow inside.
// CHECK-LABEL: func.func @chain
// CHECK-SAME: (%[[X:.*]]: tensor<1000xf32>)
// CHECK:      %[[IN:.*]] = hwagent.transfer %[[X]] from cpu to ane : tensor<1000xf32> -> tensor<1000xf16>
// CHECK:      %[[A:.*]] = hwagent.region 0 (%[[AI:.*]] = %[[IN]] : tensor<1000xf16>) -> (tensor<1000xf16>)
// CHECK-NEXT:   %[[W:.*]] = arith.extf %[[AI]] {hwagent.boundary} : tensor<1000xf16> to tensor<1000xf32>
// CHECK-NEXT:   %[[E:.*]] = math.exp %[[W]]
// CHECK-NEXT:   %[[N:.*]] = arith.truncf %[[E]] {hwagent.boundary} : tensor<1000xf32> to tensor<1000xf16>
// CHECK-NEXT:   hwagent.yield %[[N]] : tensor<1000xf16>
// CHECK:      %[[B:.*]] = hwagent.region 1 (%{{.*}} = %[[A]] : tensor<1000xf16>) -> (tensor<1000xf16>)
// CHECK:      %[[OUT:.*]] = hwagent.transfer %[[B]] from ane to cpu : tensor<1000xf16> -> tensor<1000xf32>
// CHECK:      %[[C:.*]] = hwagent.region 2 (%{{.*}} = %[[OUT]] : tensor<1000xf32>, %{{.*}} = %[[X]] : tensor<1000xf32>)
// CHECK:      return %[[C]], %[[OUT]] : tensor<1000xf32>, tensor<1000xf32>
func.func @chain(%x: tensor<1000xf32>) -> (tensor<1000xf32>, tensor<1000xf32>) {
  %a = hwagent.region 0 (%i = %x : tensor<1000xf32>) -> (tensor<1000xf32>) attributes {backend = #hwagent.backend<ane>} {
    %e = math.exp %i : tensor<1000xf32>
    hwagent.yield %e : tensor<1000xf32>
  }
  %b = hwagent.region 1 (%i = %a : tensor<1000xf32>) -> (tensor<1000xf32>) attributes {backend = #hwagent.backend<ane>} {
    %t = math.tanh %i : tensor<1000xf32>
    hwagent.yield %t : tensor<1000xf32>
  }
  %c = hwagent.region 2 (%i = %b : tensor<1000xf32>, %j = %x : tensor<1000xf32>) -> (tensor<1000xf32>) attributes {backend = #hwagent.backend<cpu>} {
    %s = arith.addf %i, %j : tensor<1000xf32>
    hwagent.yield %s : tensor<1000xf32>
  }
  return %c, %b : tensor<1000xf32>, tensor<1000xf32>
}

// -----

// The GPU keeps f32; scalars pass without a transfer.
// CHECK-LABEL: func.func @gpu
// CHECK: hwagent.transfer %{{.*}} from cpu to gpu : tensor<8xf32> -> tensor<8xf32>
// CHECK: hwagent.region 0 (%{{.*}} = %{{.*}} : tensor<8xf32>, %{{.*}} = %arg1 : f32)
// CHECK: hwagent.transfer %{{.*}} from gpu to cpu : tensor<8xf32> -> tensor<8xf32>
func.func @gpu(%x: tensor<8xf32>, %s: f32) -> tensor<8xf32> {
  %a = hwagent.region 0 (%i = %x : tensor<8xf32>, %k = %s : f32) -> (tensor<8xf32>) attributes {backend = #hwagent.backend<gpu>} {
    %b = tensor.splat %k : tensor<8xf32>
    %e = arith.mulf %i, %b : tensor<8xf32>
    hwagent.yield %e : tensor<8xf32>
  }
  return %a : tensor<8xf32>
}


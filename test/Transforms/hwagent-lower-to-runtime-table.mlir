// The region table's boundaries are the flows the partitioner priced: one
// edge per distinct input (region 1 reads %a twice: one edge), from the
// producing region through transfers, and one edge to the host per result
// the host reads (directly or through a transfer). Bytes and conversion are
// those of the data as the lowered program produces it: f32 from the host
// (converted at the ANE), f16 out of an ANE region (its variants take and
// give f16 whatever backend runs them). Every ordered backend pair of the
// target has its price.
// RUN: rm -rf %t && mkdir -p %t
// RUN: hwagent-opt %s --hwagent-insert-transfers --hwagent-lower-to-runtime="table-out=%t/table" -o /dev/null
// RUN: FileCheck %s < %t/table

// CHECK:      hwagent-region-table 1
// CHECK-NEXT: target t
// CHECK-NEXT: link 1.000000e+09 5.000000e+08 1.000000e-04
// CHECK-NEXT: pair 0 1 1.000000e+09 5.000000e+08 1.000000e-04
// CHECK-NEXT: pair 1 0 2.000000e+09 0.000000e+00 3.000000e-04
// CHECK-NEXT: compile 0 0.000000e+00
// CHECK-NEXT: compile 1 3.000000e-02
// CHECK-NEXT: region 0 {{[0-9a-f]+}} 1 3 1.000000e-03 5.000000e-04 0.000000e+00
// CHECK-NEXT: region 1 {{[0-9a-f]+}} 1 3
// CHECK-NEXT: region 2 {{[0-9a-f]+}} 0 1
// CHECK-NEXT: edge -1 0 4000 1
// CHECK-NEXT: edge 0 1 2000 0
// CHECK-NEXT: edge 1 -1 2000 0
// CHECK-NEXT: edge 1 2 2000 0
// CHECK-NEXT: edge -1 2 4000 1
// CHECK-NEXT: edge 2 -1 4000 1
// CHECK-NOT:  edge

#cpu = #hwagent.device<backend = cpu, peak_flops = 1.0e9, ramp_flops = 1.0, ramp_exponent = 1.0, bandwidth = 1.0e9, dispatch = 0.0, sram_bytes = 0, spill_factor = 1.0, compile = 0.0, max_dim = 0, max_rank = 0>
#ane = #hwagent.device<backend = ane, peak_flops = 1.0e10, ramp_flops = 1.0, ramp_exponent = 1.0, bandwidth = 1.0e10, dispatch = 1.0e-3, sram_bytes = 0, spill_factor = 1.0, compile = 0.03, max_dim = 16384, max_rank = 4>
module attributes {hwagent.target = #hwagent.target<"t", transfer_bandwidth = 1.0e9, sync = 1.0e-4, devices = [#cpu, #ane],
    links = [<from = cpu, to = ane, bandwidth = 1.0e9, convert_bandwidth = 5.0e8, sync = 1.0e-4>,
             <from = ane, to = cpu, bandwidth = 2.0e9, convert_bandwidth = 0.0, sync = 3.0e-4>]>} {
  func.func @chain(%x: tensor<1000xf32>) -> (tensor<1000xf32>, tensor<1000xf32>) {
    %a = hwagent.region 0 (%i = %x : tensor<1000xf32>) -> (tensor<1000xf32>) attributes {backend = #hwagent.backend<ane>, costs = #hwagent.costs<cpu = 1.0e-3, ane = 5.0e-4>} {
      %e = math.exp %i : tensor<1000xf32>
      hwagent.yield %e : tensor<1000xf32>
    }
    %b = hwagent.region 1 (%i = %a : tensor<1000xf32>, %k = %a : tensor<1000xf32>) -> (tensor<1000xf32>) attributes {backend = #hwagent.backend<ane>, costs = #hwagent.costs<cpu = 1.0e-3, ane = 5.0e-4>} {
      %t = arith.addf %i, %k : tensor<1000xf32>
      hwagent.yield %t : tensor<1000xf32>
    }
    %c = hwagent.region 2 (%i = %b : tensor<1000xf32>, %j = %x : tensor<1000xf32>) -> (tensor<1000xf32>) attributes {backend = #hwagent.backend<cpu>, costs = #hwagent.costs<cpu = 1.0e-3, ane = illegal "test">} {
      %s = arith.addf %i, %j : tensor<1000xf32>
      hwagent.yield %s : tensor<1000xf32>
    }
    return %c, %b : tensor<1000xf32>, tensor<1000xf32>
  }
}

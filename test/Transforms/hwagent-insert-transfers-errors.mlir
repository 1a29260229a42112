// RUN: hwagent-opt %s --verify-diagnostics --hwagent-insert-transfers

// expected-error @+1 {{hwagent-insert-transfers: regions without a backend; run hwagent-assign-backends first}}
func.func @unassigned(%x: tensor<8xf32>) -> tensor<8xf32> {
  %a = hwagent.region 0 (%i = %x : tensor<8xf32>) -> (tensor<8xf32>) {
    hwagent.yield %i : tensor<8xf32>
  }
  return %a : tensor<8xf32>
}

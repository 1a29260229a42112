// Malformed inputs get one diagnostic naming the file and the field.

// RUN: not hwagent-opt %s --hwagent-estimate-costs="target=apple-m9" 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: error: hwagent-estimate-costs: unknown target 'apple-m9' (built-in targets: apple-m1 apple-m2-pro apple-m4 apple-m4-max apple-a16 apple-a17-pro host; or give the path of a target JSON file)

// RUN: not hwagent-opt %s --hwagent-estimate-costs="target=%S/Inputs/missing.json" 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: error: hwagent-estimate-costs: {{.*}}Inputs/missing.json: cannot read: No such file or directory

// Devices and FIFOs are refused at once, not read forever or waited on.
// RUN: not hwagent-opt %s --hwagent-estimate-costs="target=/dev/zero" 2>&1 | FileCheck %s --check-prefix=DEVICE
// DEVICE: error: hwagent-estimate-costs: /dev/zero: cannot read: not a regular file

// RUN: not hwagent-opt %s --hwagent-estimate-costs="target=%S/Inputs/bad-target-type.json" 2>&1 | FileCheck %s --check-prefix=BADTYPE
// BADTYPE: error: hwagent-estimate-costs: {{.*}}Inputs/bad-target-type.json: backends[0].bandwidth: expected number

// Frequency scaling (docs/targets.md "DVFS"): an exponent below 1 other
// than 0 (no scaling) and a lowest clock outside (0, 1] are refused.
// RUN: not hwagent-opt %s --hwagent-estimate-costs="target=%S/Inputs/bad-dvfs-exponent.json" 2>&1 | FileCheck %s --check-prefix=BADDVFS
// BADDVFS: error: hwagent-estimate-costs: {{.*}}Inputs/bad-dvfs-exponent.json: backends[0].dvfs_exponent: must be 0 (no frequency scaling) or in [1, 6], got 0.5
// RUN: not hwagent-opt %s --hwagent-estimate-costs="target=%S/Inputs/bad-min-clock.json" 2>&1 | FileCheck %s --check-prefix=BADCLOCK
// BADCLOCK: error: hwagent-estimate-costs: {{.*}}Inputs/bad-min-clock.json: backends[0].min_clock: must be in (0, 1]

// RUN: not hwagent-opt %s --hwagent-estimate-costs="target=%S/Inputs/not-json.json" 2>&1 | FileCheck %s --check-prefix=NOTJSON
// NOTJSON: error: hwagent-estimate-costs: {{.*}}Inputs/not-json.json: (top level): not valid JSON: {{.*}}

// RUN: not hwagent-opt %s --hwagent-estimate-costs="target=apple-m4 telemetry=%S/Inputs/bad-telemetry.json" 2>&1 | FileCheck %s --check-prefix=TELEMETRY
// TELEMETRY: error: hwagent-estimate-costs: {{.*}}Inputs/bad-telemetry.json: utilization.ane: must be in [0, 1]

// RUN: not hwagent-opt %s --hwagent-estimate-costs="target=%S/Inputs/simple-target.json profile-db=%S/Inputs/bad-profile.json" 2>&1 | FileCheck %s --check-prefix=PROFILE
// PROFILE: error: hwagent-estimate-costs: {{.*}}Inputs/bad-profile.json: entries[0].backend: unknown backend 'tpu'

// RUN: not hwagent-opt %s --hwagent-estimate-costs="target=apple-m4 backends=ane" 2>&1 | FileCheck %s --check-prefix=NOCPU
// NOCPU: error: hwagent-estimate-costs: backends= must include cpu (the host runs on it)
// RUN: not hwagent-opt %s --hwagent-estimate-costs="target=apple-m4 backends=cpu,npu" 2>&1 | FileCheck %s --check-prefix=NPU
// NPU: error: hwagent-estimate-costs: unknown backend 'npu' in backends= (expected cpu, ane or gpu)
// RUN: not hwagent-opt %s --hwagent-estimate-costs="target=host backends=cpu,ane" 2>&1 | FileCheck %s --check-prefix=NOANE
// NOANE: error: hwagent-estimate-costs: target 'host' has no backend 'ane'

// A profile recorded on another target is stale: reported, then ignored.
// RUN: hwagent-opt %s --hwagent-form-regions --hwagent-estimate-costs="target=%S/Inputs/simple-target.json profile-db=%S/Inputs/stale-profile.json" 2>&1 | FileCheck %s --check-prefix=STALE
// STALE: warning: hwagent-estimate-costs: {{.*}}stale-profile.json was recorded on target 'apple-m1', not 'simple'; its 1 entries are stale and ignored
// exp over 64 floats: 512 bytes moved at 1 GB/s = 5.12e-7 s (memory-bound).
// STALE: costs = #hwagent.costs<cpu = 5.120000e-07 note "memory-bound"

func.func @f(%a: tensor<64xf32>) -> tensor<64xf32> {
  %r = math.exp %a : tensor<64xf32>
  return %r : tensor<64xf32>
}

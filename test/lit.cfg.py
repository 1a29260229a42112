# -*- Python -*-
import os

import lit.formats
from lit.llvm import llvm_config

config.name = "HWAGENT"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.excludes = ["CMakeLists.txt", "README.md", "lit.cfg.py", "lit.site.cfg.py", "check_trace.py", "install",
                   "unittests", "Inputs", "fuzz"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.hwagent_obj_root, "test")

llvm_config.use_default_substitutions()
config.substitutions.append(("%models", config.shared_models_dir))
config.substitutions.append(("%examples", os.path.join(config.hwagent_src_root, "examples")))
config.substitutions.append(("%scripts", os.path.join(config.hwagent_src_root, "scripts")))
# Debian's Python, with the python3-numpy and python3-sklearn that
# scripts/dev installs (the data tests export scikit-learn's digits with it).
config.substitutions.append(("%pydata", "/usr/bin/python3"))

llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
# The JIT keeps compiled objects on disk (tools/Driver/Jit.h): the tests'
# stay in the build folder, never in the user's cache.
config.environment["HWAGENT_JIT_CACHE"] = os.path.join(config.hwagent_obj_root, "jit-cache")
tool_dirs = [config.hwagent_tools_dir, config.llvm_tools_dir]
llvm_config.add_tool_substitutions(
    ["hwagent-opt", "hwagent-calibrate", "hwagent-run", "hwagent-report",
     "hwagent-learn"],
    tool_dirs)

# The benchmarks are optional (HWAGENT_BUILD_BENCHMARKS); the tests that
# replay a scenario with hwagent-bench-adaptive say REQUIRES: hwagent-bench.
if os.path.exists(os.path.join(config.hwagent_tools_dir, "hwagent-bench-adaptive")):
    config.available_features.add("hwagent-bench")
    llvm_config.add_tool_substitutions(
        ["hwagent-bench-adaptive", "hwagent-bench-scenarios"], tool_dirs)

# The real models live outside the repository, in ../shared/models.
if os.path.isdir(config.shared_models_dir):
    config.available_features.add("shared-models")

//===- AbiTest.cpp - the names compiled steps call, and the headers -------===//
//
// The compiler emits calls by the names in hwagent_abi.h and
// hwagent_kernels.h; the shared runtime must define every one of them (a
// renamed function would otherwise fail only when a compiled step loads).
// The tensor files are their own library: the runtime exports none of
// them.
//
//===----------------------------------------------------------------------===//

#include "hwagent_rt/hwagent_abi.h"
#include "hwagent_rt/hwagent_kernels.h"

#include <gtest/gtest.h>

#include <dlfcn.h>

namespace {

TEST(Abi, TheRuntimeDefinesEveryNameTheCompilerEmits) {
  void *library = dlopen(HWAGENT_RT_SHARED_LIBRARY, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(library, nullptr) << dlerror();
  for (const char *name :
       {HWAGENT_SELECT_SYMBOL, HWAGENT_BEGIN_SYMBOL, HWAGENT_END_SYMBOL,
        "_mlir_ciface_" HWAGENT_CONTRACT_F32_SYMBOL,
        HWAGENT_PARALLEL_FOR_SYMBOL, "_mlir_memref_to_llvm_alloc",
        "_mlir_memref_to_llvm_aligned_alloc", "_mlir_memref_to_llvm_free"})
    EXPECT_NE(dlsym(library, name), nullptr) << name;
  // The tensor files live in libhwagent_tensorfile, so that compiled steps
  // do not link libzip; a name that is no entry point resolves to nothing.
  EXPECT_EQ(dlsym(library, "hwagent_tensor_file_open"), nullptr);
  EXPECT_EQ(dlsym(library, "hwagent_no_such_entry"), nullptr);
  dlclose(library);
}

} // namespace

//===- Allocator.cpp - the buffers of compiled steps ----------------------===//
//
// MLIR's generic allocation functions (finalize-memref-to-llvm with
// use-generic-functions) backed by a caching allocator: freed buffers are
// kept by size and handed to the next allocation of that size. A training
// step allocates the same buffers every time, so from the second step on no
// buffer comes from the system and no page is touched for the first time;
// this is what "buffers reused across steps" means here (the idea of
// PyTorch's CUDA caching allocator). Sizes are rounded up to 64 bytes, buffers
// aligned to 64 (a cache line, an AVX-512 vector).
//
//===----------------------------------------------------------------------===//

#include "hwagent_rt/hwagent_kernels.h"

#include "Errors.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace {

constexpr size_t kAlignment = 64;

struct Cache {
  std::mutex mutex;
  /// Live buffers and their (rounded) sizes.
  std::unordered_map<void *, size_t> live;
  /// Free buffers by size.
  std::unordered_map<size_t, std::vector<void *>> free;
  /// The buffers in `free`: a second free of one is caught, not passed to
  /// the system (which would free memory the cache hands out again).
  std::unordered_set<void *> cached;
  int64_t liveBytes = 0, peakBytes = 0, cachedBytes = 0;
};

Cache &cache() {
  static Cache *c = new Cache; // Never destroyed: buffers may outlive main.
  return *c;
}

void *allocate(size_t alignment, size_t size) {
  alignment = std::max(alignment, kAlignment);
  // Round to a multiple of the alignment (aligned_alloc requires it); a
  // zero-size buffer still gets a distinct address.
  size_t rounded =
      (std::max<size_t>(size, 1) + alignment - 1) / alignment * alignment;
  Cache &c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  void *p = nullptr;
  auto it = c.free.find(rounded);
  if (alignment == kAlignment && it != c.free.end() && !it->second.empty()) {
    p = it->second.back();
    it->second.pop_back();
    c.cached.erase(p);
    c.cachedBytes -= static_cast<int64_t>(rounded);
  } else {
    p = std::aligned_alloc(alignment, rounded);
    if (!p) {
      // Give the cached buffers back and try once more.
      for (auto &[bytes, buffers] : c.free)
        for (void *q : buffers)
          std::free(q);
      c.free.clear();
      c.cached.clear();
      c.cachedBytes = 0;
      p = std::aligned_alloc(alignment, rounded);
    }
    if (!p)
      hwagent_rt::outOfMemory(rounded, "a buffer of the step");
  }
  c.live[p] = alignment == kAlignment ? rounded : rounded | 1;
  c.liveBytes += static_cast<int64_t>(rounded);
  c.peakBytes = std::max(c.peakBytes, c.liveBytes);
  return p;
}

} // namespace

void hwagent_rt::outOfMemory(size_t bytes, const char *what) {
  std::fprintf(stderr,
               "hwagent: cannot allocate %zu bytes for %s: out of memory or "
               "over the process's memory limit (ulimit -v)\n",
               bytes, what);
  std::_Exit(1);
}

extern "C" void *_mlir_memref_to_llvm_alloc(size_t size) {
  return allocate(kAlignment, size);
}

extern "C" void *_mlir_memref_to_llvm_aligned_alloc(size_t alignment,
                                                    size_t size) {
  return allocate(alignment, size);
}

extern "C" void _mlir_memref_to_llvm_free(void *pointer) {
  if (!pointer)
    return;
  Cache &c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  auto it = c.live.find(pointer);
  if (it == c.live.end()) {
    // Freed before and cached: a double free, which must not reach the
    // system while the cache may hand the buffer out again.
    if (c.cached.count(pointer)) {
      hwagent_rt::fail(HWAGENT_INVALID_ARGUMENT,
                       "hwagent_buffer_free: the buffer was already freed");
      return;
    }
    // Not one of ours (a caller's buffer handed over): the system's.
    std::free(pointer);
    return;
  }
  // Sizes are multiples of 64: the low bit marks an over-aligned buffer,
  // which is not cached.
  size_t size = it->second & ~size_t{1};
  bool cached = !(it->second & 1);
  c.live.erase(it);
  c.liveBytes -= static_cast<int64_t>(size);
  if (!cached) {
    std::free(pointer);
    return;
  }
  c.free[size].push_back(pointer);
  c.cached.insert(pointer);
  c.cachedBytes += static_cast<int64_t>(size);
}

extern "C" void hwagent_buffer_free(void *pointer) {
  _mlir_memref_to_llvm_free(pointer);
}

extern "C" void hwagent_buffer_stats(hwagent_buffer_stats_t *stats) {
  if (!stats)
    return;
  Cache &c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  *stats = {c.liveBytes, c.peakBytes, c.cachedBytes};
}

extern "C" void hwagent_buffer_reset_peak(void) {
  Cache &c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  c.peakBytes = c.liveBytes;
}

extern "C" void hwagent_buffer_release_cache(void) {
  Cache &c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  for (auto &entry : c.free)
    for (void *p : entry.second)
      std::free(p);
  c.free.clear();
  c.cached.clear();
  c.cachedBytes = 0;
}

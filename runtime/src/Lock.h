//===- Lock.h - the runtime's mutex -----------------------------*- C++ -*-===//
//
// absl::Mutex in the library. The ThreadSanitizer test build defines
// HWAGENT_RT_STD_MUTEX to use std::mutex instead: TSan sees pthread locks,
// while Debian's Abseil is not built with TSan annotations, so races on
// absl::Mutex-protected data would be reported falsely. The locking
// discipline checked is the same.
//
//===----------------------------------------------------------------------===//

#ifndef HWAGENT_RT_LOCK_H
#define HWAGENT_RT_LOCK_H

#ifdef HWAGENT_RT_STD_MUTEX
#include <mutex>
#else
#include "absl/synchronization/mutex.h"
#endif

namespace hwagent_rt {

#ifdef HWAGENT_RT_STD_MUTEX
class Mutex {
public:
  void Lock() { mutex.lock(); }
  void Unlock() { mutex.unlock(); }

private:
  std::mutex mutex;
};
#else
using Mutex = absl::Mutex;
#endif

class MutexLock {
public:
  explicit MutexLock(Mutex *mutex) : mutex(*mutex) { mutex->Lock(); }
  ~MutexLock() { mutex.Unlock(); }
  MutexLock(const MutexLock &) = delete;
  MutexLock &operator=(const MutexLock &) = delete;

private:
  Mutex &mutex;
};

} // namespace hwagent_rt

#endif // HWAGENT_RT_LOCK_H

// The clock shim: an LD_PRELOAD library that fakes a process's wall clock.
// It interposes clock_gettime for CLOCK_REALTIME and CLOCK_REALTIME_COARSE,
// gettimeofday, time and timespec_get(TIME_UTC), and applies the parameters
// of the control file named by $LOCKSMITH_CLOCK_FILE (shim_time.h). The
// monotonic clocks are untouched: that is the point of the Redlock debate (a
// lease measured by a monotonic clock survives a wall-clock jump, an expiry
// by wall clock does not). No file, or no variable: the real clock.
//
// Why not libfaketime: it hangs Debian's redis-server at start. So this shim
// takes no lock, allocates nothing, starts no thread and runs no constructor:
// everything happens lazily inside the first clock call. The real
// clock_gettime comes from dlsym(RTLD_NEXT) on first use; a clock call made
// while that lookup runs (on the same thread) takes the raw system call.
//
// How updates arrive. The controller replaces the control file atomically
// (a new inode each time). The shim looks at it at most once per
// kCheckIntervalNs of real time: one stat(); only when the file changed does
// it open, read and decode it. One thread does the check while the others go
// on with the parameters they have; it publishes the new ones through a
// seqlock, so a reader never sees half an update. errno is preserved.
//
// Thread- and async-signal-safe: only atomics and async-signal-safe system
// calls (stat, open, pread, close) on the clock path.
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <climits>

#include "nemesis/shim_time.h"

namespace {
namespace st = locksmith::shim_time;

// How stale the parameters may get: a nemesis op is seen within this much
// real time by every process that reads its clock.
constexpr int64_t kCheckIntervalNs = 1'000'000;
// A check whose thread has not finished within this long is abandoned (its
// thread was lost across fork()); another thread may check then.
constexpr int64_t kAbandonedCheckNs = 1'000'000'000;

using ClockGettimeFn = int (*)(clockid_t, struct timespec*);

constinit std::atomic<ClockGettimeFn> real_clock_gettime{nullptr};
__attribute__((tls_model("initial-exec"))) thread_local bool resolving = false;

// The control file's path: read once from the environment.
enum class PathState : int { kUnread, kReading, kNone, kSet };
constinit std::atomic<int> path_state{static_cast<int>(PathState::kUnread)};
char control_path[PATH_MAX];

// The parameters, behind a seqlock (odd: being written).
constinit std::atomic<uint32_t> params_seq{0};
constinit std::atomic<int64_t> params_fields[st::kParamFields] = {
    0, st::kRealRate, 0, 0, 0, 0, 0};
constinit std::atomic<bool> params_identity{true};

// The check: when the next is due, who is doing it (0: nobody; else the real
// time it began), and what the file looked like when last read (only the
// checking thread touches those).
constinit std::atomic<int64_t> next_check_ns{INT64_MIN};
constinit std::atomic<int64_t> checking_since_ns{0};
struct FileIdentity {
  dev_t dev = 0;
  ino_t ino = 0;
  int64_t mtime_ns = 0;
  int64_t ctime_ns = 0;
  off_t size = -1;  // -1: no file was read
  bool operator==(const FileIdentity&) const = default;
};
FileIdentity last_read;

int RawClockGettime(clockid_t clock, struct timespec* ts) {
  return static_cast<int>(syscall(SYS_clock_gettime, clock, ts));
}

int RealClockGettime(clockid_t clock, struct timespec* ts) {
  ClockGettimeFn fn = real_clock_gettime.load(std::memory_order_acquire);
  if (fn == nullptr) {
    if (resolving) return RawClockGettime(clock, ts);
    resolving = true;
    fn = reinterpret_cast<ClockGettimeFn>(dlsym(RTLD_NEXT, "clock_gettime"));
    resolving = false;
    if (fn == nullptr) return RawClockGettime(clock, ts);
    real_clock_gettime.store(fn, std::memory_order_release);
  }
  return fn(clock, ts);
}

// True once the control file's path is known; false while there is none.
bool HavePath() {
  int state = path_state.load(std::memory_order_acquire);
  if (state == static_cast<int>(PathState::kUnread)) {
    int expected = state;
    if (path_state.compare_exchange_strong(expected, static_cast<int>(PathState::kReading))) {
      const char* env = getenv(st::kControlFileEnv);
      size_t n = 0;
      if (env != nullptr) {
        while (env[n] != '\0' && n + 1 < sizeof(control_path)) {
          control_path[n] = env[n];
          ++n;
        }
      }
      control_path[n] = '\0';
      const bool usable = env != nullptr && env[n] == '\0' && n > 0;
      state = static_cast<int>(usable ? PathState::kSet : PathState::kNone);
      path_state.store(state, std::memory_order_release);
    } else {
      state = expected;
    }
  }
  return state == static_cast<int>(PathState::kSet);
}

void Publish(const st::ClockParams& p) {
  int64_t fields[st::kParamFields] = {};
  st::ParamFields(p, fields);
  params_seq.fetch_add(1, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_release);
  for (int i = 0; i < st::kParamFields; ++i) {
    params_fields[i].store(fields[i], std::memory_order_relaxed);
  }
  params_identity.store(st::IsIdentity(p), std::memory_order_relaxed);
  params_seq.fetch_add(1, std::memory_order_release);
}

// The published parameters; false when a writer stayed in the middle of an
// update (a signal handler interrupting it): the caller uses the real clock.
bool Load(st::ClockParams* p, bool* identity) {
  for (int attempt = 0; attempt < 64; ++attempt) {
    const uint32_t before = params_seq.load(std::memory_order_acquire);
    if (before & 1u) continue;
    int64_t fields[st::kParamFields] = {};
    for (int i = 0; i < st::kParamFields; ++i) {
      fields[i] = params_fields[i].load(std::memory_order_relaxed);
    }
    const bool id = params_identity.load(std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_acquire);
    if (params_seq.load(std::memory_order_relaxed) == before) {
      *p = st::ParamsOf(fields);
      *identity = id;
      return true;
    }
  }
  return false;
}

// Reads the control file when it changed since last read; publishes its
// parameters, or the identity when it is gone. A torn or foreign file is
// ignored (the previous parameters stay) and read again next time.
void CheckFile() {
  struct stat info;
  if (stat(control_path, &info) != 0) {
    if (last_read.size != -1) {
      last_read = FileIdentity{};
      Publish(st::ClockParams{});
    }
    return;
  }
  const FileIdentity now{info.st_dev, info.st_ino,
                         st::Join(info.st_mtim.tv_sec, info.st_mtim.tv_nsec),
                         st::Join(info.st_ctim.tv_sec, info.st_ctim.tv_nsec), info.st_size};
  if (now == last_read) return;
  const int fd = open(control_path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  unsigned char bytes[st::kControlSize + 1];
  const ssize_t n = pread(fd, bytes, sizeof(bytes), 0);
  close(fd);
  st::ClockParams params;
  uint64_t generation = 0;
  if (n < 0 || !st::DecodeControl(bytes, static_cast<size_t>(n), &params, &generation)) return;
  last_read = now;
  Publish(params);
}

// Runs CheckFile when one is due and no other thread is doing it.
void MaybeCheck(int64_t real_ns) {
  const int64_t due = next_check_ns.load(std::memory_order_relaxed);
  // A real clock stepped back by more than an interval is a reason to look too.
  if (real_ns < due && real_ns > due - 2 * kCheckIntervalNs) return;
  int64_t since = checking_since_ns.load(std::memory_order_relaxed);
  if (since != 0 && real_ns - since < kAbandonedCheckNs && real_ns >= since) return;
  if (!checking_since_ns.compare_exchange_strong(since, real_ns == 0 ? 1 : real_ns,
                                                 std::memory_order_acquire)) {
    return;
  }
  const int saved_errno = errno;
  CheckFile();
  errno = saved_errno;
  next_check_ns.store(real_ns + kCheckIntervalNs, std::memory_order_relaxed);
  checking_since_ns.store(0, std::memory_order_release);
}

// The faked time for the real reading `real_ns`.
int64_t Faked(int64_t real_ns) {
  if (!HavePath()) return real_ns;
  MaybeCheck(real_ns);
  st::ClockParams p;
  bool identity = true;
  if (!Load(&p, &identity) || identity) return real_ns;
  return st::FakeNs(p, real_ns);
}

bool IsWallClock(clockid_t clock) {
  return clock == CLOCK_REALTIME || clock == CLOCK_REALTIME_COARSE;
}

// The faked reading of `clock` (a wall clock); the real call's result.
int FakedClock(clockid_t clock, struct timespec* ts) {
  const int rc = RealClockGettime(clock, ts);
  if (rc != 0) return rc;
  const st::SplitTime t = st::Split(Faked(st::Join(ts->tv_sec, ts->tv_nsec)));
  ts->tv_sec = static_cast<time_t>(t.sec);
  ts->tv_nsec = static_cast<long>(t.nsec);
  return 0;
}

}  // namespace

extern "C" {

__attribute__((visibility("default"))) int clock_gettime(clockid_t clock,
                                                         struct timespec* ts) noexcept {
  if (!IsWallClock(clock)) return RealClockGettime(clock, ts);
  return FakedClock(clock, ts);
}

__attribute__((visibility("default"))) int gettimeofday(struct timeval* tv, void* tz) noexcept {
  if (tz != nullptr) {
    // What glibc reports: no time zone (the field is obsolete).
    auto* zone = static_cast<struct timezone*>(tz);
    zone->tz_minuteswest = 0;
    zone->tz_dsttime = 0;
  }
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wnonnull-compare"
  // glibc declares tv non-null, but the kernel's call accepts NULL.
  if (tv == nullptr) return 0;
#pragma GCC diagnostic pop
  struct timespec ts;
  const int rc = FakedClock(CLOCK_REALTIME, &ts);
  if (rc != 0) return rc;
  tv->tv_sec = ts.tv_sec;
  tv->tv_usec = static_cast<suseconds_t>(ts.tv_nsec / 1000);
  return 0;
}

// glibc's time() reads the coarse clock too (the seconds of the last tick).
__attribute__((visibility("default"))) time_t time(time_t* out) noexcept {
  struct timespec ts;
  if (FakedClock(CLOCK_REALTIME_COARSE, &ts) != 0) {
    errno = EOVERFLOW;
    return static_cast<time_t>(-1);
  }
  if (out != nullptr) *out = ts.tv_sec;
  return ts.tv_sec;
}

__attribute__((visibility("default"))) int timespec_get(struct timespec* ts, int base) noexcept {
  if (base != TIME_UTC) return 0;
  return FakedClock(CLOCK_REALTIME, ts) == 0 ? base : 0;
}

}  // extern "C"

// The power shim: an LD_PRELOAD library that lets the controller undo, after
// a SIGKILL, every change a server made to its files since their last fsync,
// as if the machine had lost power (the model of Jepsen's lazyfs, without a
// FUSE filesystem). Before a change to a file under $LOCKSMITH_POWER_SCOPE it
// appends to the undo journal in $LOCKSMITH_POWER_JOURNAL_DIR what the change
// destroys (nemesis/power_journal_format.h); the journal is a file, so it
// outlives the process. No variables: the shim does nothing.
//
// What it interposes: open/open64/openat/openat64/creat/creat64 (which files
// are covered, which are new, O_TRUNC), write/pwrite/pwrite64/writev/pwritev/
// pwritev64, ftruncate/ftruncate64, fallocate/fallocate64/posix_fallocate/
// posix_fallocate64, fsync/fdatasync (of a file or a directory), rename/
// renameat/renameat2, close. Each call goes to the kernel as a raw system
// call, so nothing is looked up at run time.
//
// The bookkeeping per file is an epoch: from an open or a sync to the next
// sync. The first change of an epoch records the size (kBase); a change
// inside that size records the bytes it overwrites (kUndo); a change beyond
// it needs nothing (truncating to the base size undoes it). A sync is
// recorded as begun before the real fsync and done after it succeeded:
// everything recorded for the file before the begin is durable.
//
// Like the clock shim: no constructor, no allocation, no thread; the
// environment is read on first use. Thread-safe: one spinlock around the
// bookkeeping (never held across the real fsync). Not modelled (see
// docs/faults.md): writes through mmap, stdio's own writes (glibc calls the
// kernel internally), dup'ed descriptors, unlink, sync(), sync_file_range.
#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include <atomic>
#include <climits>
#include <cstring>

#include "nemesis/power_journal_format.h"

namespace {
namespace pj = locksmith::power_journal;

constexpr int kMaxFds = 65536;      // descriptors at or above are never covered
constexpr int kMaxCovered = 256;    // files open at once that are covered
constexpr size_t kUndoChunk = 65536;

long Sys(long number, long a = 0, long b = 0, long c = 0, long d = 0, long e = 0) {
  return syscall(number, a, b, c, d, e);
}

// The bookkeeping's lock; a thread never takes it twice.
constinit std::atomic_flag busy = ATOMIC_FLAG_INIT;
struct Guard {
  Guard() {
    while (busy.test_and_set(std::memory_order_acquire)) Sys(SYS_sched_yield);
  }
  ~Guard() { busy.clear(std::memory_order_release); }
};

// A fork while another thread holds the lock would leave the child's copy
// held for good (a Redis rewrite child, forked while the fsync thread
// records a sync): fork waits for it (registered on first use).
void LockForFork() {
  while (busy.test_and_set(std::memory_order_acquire)) Sys(SYS_sched_yield);
}
void UnlockAfterFork() { busy.clear(std::memory_order_release); }

// The covered directory and the journal's, read once from the environment.
enum class EnvState : int { kUnread, kReading, kOff, kOn };
constinit std::atomic<int> env_state{static_cast<int>(EnvState::kUnread)};
char scope[pj::kMaxPath];
size_t scope_len = 0;
char journal_dir[pj::kMaxPath];
size_t journal_dir_len = 0;

bool CopyEnv(const char* name, char* out, size_t* len) {
  const char* value = getenv(name);
  if (value == nullptr || value[0] != '/') return false;
  size_t n = strlen(value);
  while (n > 1 && value[n - 1] == '/') --n;
  if (n + 2 >= static_cast<size_t>(pj::kMaxPath)) return false;
  memcpy(out, value, n);
  out[n] = '\0';
  *len = n;
  return true;
}

bool Enabled() {
  int state = env_state.load(std::memory_order_acquire);
  if (state == static_cast<int>(EnvState::kUnread)) {
    int expected = state;
    if (env_state.compare_exchange_strong(expected, static_cast<int>(EnvState::kReading))) {
      const bool on = CopyEnv(pj::kScopeEnv, scope, &scope_len) &&
                      CopyEnv(pj::kJournalDirEnv, journal_dir, &journal_dir_len);
      state = static_cast<int>(on ? EnvState::kOn : EnvState::kOff);
      if (on) pthread_atfork(LockForFork, UnlockAfterFork, UnlockAfterFork);
      env_state.store(state, std::memory_order_release);
    } else {
      state = expected;  // another thread reads it: not covered meanwhile
    }
  }
  return state == static_cast<int>(EnvState::kOn);
}

bool Below(const char* path, const char* dir, size_t dir_len) {
  return strncmp(path, dir, dir_len) == 0 && (path[dir_len] == '/' || path[dir_len] == '\0');
}

bool InScope(const char* path) {
  return Below(path, scope, scope_len) && !Below(path, journal_dir, journal_dir_len);
}

// Zero-initialised (the table lives in .bss): `used` false is a free slot.
struct Covered {
  bool used;
  int fd;
  bool append;
  bool needs_base;
  int reader;  // reader + 1: a read-only descriptor of the file, for a write-only fd (0: none)
  uint64_t base_size;
  char path[pj::kMaxPath];
};
Covered covered[kMaxCovered];
// slot + 1 of each descriptor, 0 when not covered (read without the lock on
// the fast path; written under it).
constinit std::atomic<uint16_t> slot_of_fd[kMaxFds] = {};
// The journal's descriptor, -1 until the first record (atomic: close() reads
// it without the lock).
constinit std::atomic<int> journal_fd{-1};
uint64_t saved_files = 0;
uint64_t sync_ids = 0;
char undo_buffer[kUndoChunk];

Covered* SlotOf(int fd) {
  if (fd < 0 || fd >= kMaxFds) return nullptr;
  const uint16_t slot = slot_of_fd[fd].load(std::memory_order_acquire);
  return slot == 0 ? nullptr : &covered[slot - 1];
}

// Appends one record; the lock is held.
void Append(pj::Kind kind, const char* path, uint64_t a, uint64_t b, const void* payload,
            size_t payload_len) {
  if (journal_fd.load(std::memory_order_relaxed) < 0) {
    char file[pj::kMaxPath + 16];
    memcpy(file, journal_dir, journal_dir_len);
    file[journal_dir_len] = '/';
    strcpy(file + journal_dir_len + 1, pj::kJournalFile);
    journal_fd.store(static_cast<int>(Sys(SYS_openat, AT_FDCWD, reinterpret_cast<long>(file),
                                          O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600)),
                     std::memory_order_relaxed);
    if (journal_fd.load(std::memory_order_relaxed) < 0) return;
  }
  pj::RecordHeader header = {pj::kMagic, static_cast<uint32_t>(kind),
                             static_cast<uint32_t>(Sys(SYS_getpid)),
                             static_cast<uint32_t>(strlen(path)), a, b, payload_len};
  struct iovec parts[3] = {{&header, sizeof(header)},
                           {const_cast<char*>(path), header.path_len},
                           {const_cast<void*>(payload), payload_len}};
  Sys(SYS_writev, journal_fd.load(std::memory_order_relaxed), reinterpret_cast<long>(parts), 3);
}

int64_t SizeOf(int fd) {
  struct stat st;
  if (Sys(SYS_fstat, fd, reinterpret_cast<long>(&st)) != 0) return -1;
  return st.st_size;
}

// "/proc/self/fd/<fd>" into `link` (32 bytes).
void FdLink(int fd, char* link) {
  memcpy(link, "/proc/self/fd/", 14);
  int digits = 1;
  for (int n = fd; n >= 10; n /= 10) ++digits;
  for (int i = digits - 1, v = fd; i >= 0; --i, v /= 10) link[14 + i] = static_cast<char>('0' + v % 10);
  link[14 + digits] = '\0';
}

// A descriptor that reads `file`: its own, or (write-only) one opened once
// through /proc/self/fd, which reaches the same file whatever its name now.
int ReaderOf(Covered& file) {
  if ((Sys(SYS_fcntl, file.fd, F_GETFL) & O_ACCMODE) != O_WRONLY) return file.fd;
  if (file.reader == 0) {
    char link[32];
    FdLink(file.fd, link);
    const long fd = Sys(SYS_openat, AT_FDCWD, reinterpret_cast<long>(link), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    file.reader = static_cast<int>(fd) + 1;
  }
  return file.reader - 1;
}

// Records the bytes of [from, to) of `fd` before they change.
void SaveRange(int fd, const char* path, uint64_t from, uint64_t to) {
  while (from < to) {
    const size_t want = static_cast<size_t>(to - from < kUndoChunk ? to - from : kUndoChunk);
    const long got = Sys(SYS_pread64, fd, reinterpret_cast<long>(undo_buffer),
                         static_cast<long>(want), static_cast<long>(from));
    if (got <= 0) return;  // past the end now: truncating undoes the rest
    Append(pj::Kind::kUndo, path, from, 0, undo_buffer, static_cast<size_t>(got));
    from += static_cast<uint64_t>(got);
  }
}

// Before `file` changes from `offset` for `len` bytes (-1 offset: where its
// descriptor stands); `to_end`: everything from offset on (a truncation).
void BeforeChange(Covered& file, int64_t offset, uint64_t len, bool to_end) {
  if (file.needs_base) {
    const int64_t size = SizeOf(file.fd);
    if (size < 0) return;
    file.base_size = static_cast<uint64_t>(size);
    file.needs_base = false;
    Append(pj::Kind::kBase, file.path, file.base_size, 0, nullptr, 0);
  }
  if (offset < 0) {
    offset = file.append ? SizeOf(file.fd) : Sys(SYS_lseek, file.fd, 0, SEEK_CUR);
    if (offset < 0) return;
  }
  const uint64_t from = static_cast<uint64_t>(offset);
  uint64_t to = to_end ? file.base_size : from + len;
  if (to > file.base_size) to = file.base_size;
  if (from < to) SaveRange(ReaderOf(file), file.path, from, to);
}

void BeforeWrite(int fd, int64_t offset, uint64_t len) {
  if (SlotOf(fd) == nullptr) return;
  Guard guard;
  if (Covered* file = SlotOf(fd); file != nullptr) BeforeChange(*file, offset, len, false);
}

// `dirfd`-relative `path` made absolute into `out` (no normalisation).
bool Absolute(int dirfd, const char* path, char* out) {
  const size_t len = strlen(path);
  if (path[0] == '/') {
    if (len >= static_cast<size_t>(pj::kMaxPath)) return false;
    memcpy(out, path, len + 1);
    return true;
  }
  long base_len;
  if (dirfd == AT_FDCWD) {
    base_len = Sys(SYS_getcwd, reinterpret_cast<long>(out), pj::kMaxPath) - 1;  // counts the NUL
  } else {
    char link[32];
    FdLink(dirfd, link);
    base_len = Sys(SYS_readlinkat, AT_FDCWD, reinterpret_cast<long>(link),
                   reinterpret_cast<long>(out), pj::kMaxPath - 1);
  }
  if (base_len <= 0 || static_cast<size_t>(base_len) + 1 + len >= static_cast<size_t>(pj::kMaxPath)) {
    return false;
  }
  out[base_len] = '/';
  memcpy(out + base_len + 1, path, len + 1);
  return true;
}

bool Exists(const char* path) {
  struct stat st;
  return Sys(SYS_newfstatat, AT_FDCWD, reinterpret_cast<long>(path), reinterpret_cast<long>(&st),
             0) == 0;
}

void Cover(int fd, const char* path, int flags) {
  if (fd >= kMaxFds) return;
  for (int i = 0; i < kMaxCovered; ++i) {
    if (covered[i].used) continue;
    covered[i].used = true;
    covered[i].fd = fd;
    covered[i].append = (flags & O_APPEND) != 0;
    covered[i].needs_base = true;
    covered[i].reader = 0;
    strcpy(covered[i].path, path);
    slot_of_fd[fd].store(static_cast<uint16_t>(i + 1), std::memory_order_release);
    return;
  }
}

void Uncover(int fd) {
  Covered* file = SlotOf(fd);
  if (file == nullptr) return;
  slot_of_fd[fd].store(0, std::memory_order_release);
  if (file->reader != 0) Sys(SYS_close, file->reader - 1);
  file->used = false;
}

int Open(int dirfd, const char* path, int flags, mode_t mode) {
  const bool writes = (flags & O_ACCMODE) != O_RDONLY || (flags & O_CREAT) != 0;
  char abs[pj::kMaxPath];
  if (!writes || !Enabled() || !Absolute(dirfd, path, abs) || !InScope(abs)) {
    return static_cast<int>(Sys(SYS_openat, dirfd, reinterpret_cast<long>(path), flags, mode));
  }
  Guard guard;
  const bool existed = Exists(abs);
  if (existed && (flags & O_TRUNC) != 0 && (flags & O_ACCMODE) != O_RDONLY) {
    const int old = static_cast<int>(Sys(SYS_openat, AT_FDCWD, reinterpret_cast<long>(abs),
                                         O_RDONLY | O_CLOEXEC));
    if (old >= 0) {
      const int64_t size = SizeOf(old);
      Append(pj::Kind::kBase, abs, static_cast<uint64_t>(size < 0 ? 0 : size), 0, nullptr, 0);
      if (size > 0) SaveRange(old, abs, 0, static_cast<uint64_t>(size));
      Sys(SYS_close, old);
    }
  }
  const int fd = static_cast<int>(Sys(SYS_openat, dirfd, reinterpret_cast<long>(path), flags, mode));
  if (fd < 0) return fd;
  if (!existed) Append(pj::Kind::kCreate, abs, 0, 0, nullptr, 0);
  Uncover(fd);  // a descriptor closed behind our back (dup2, close_range)
  if ((flags & O_ACCMODE) != O_RDONLY) Cover(fd, abs, flags);
  return fd;
}

mode_t ModeOf(int flags, va_list args) {
  return (flags & (O_CREAT | O_TMPFILE)) != 0 ? static_cast<mode_t>(va_arg(args, int)) : 0;
}

// Records a sync's begin; returns its id (0: not covered).
uint64_t BeginSync(int fd) {
  if (!Enabled()) return 0;
  if (SlotOf(fd) != nullptr) {
    Guard guard;
    Covered* file = SlotOf(fd);
    if (file == nullptr) return 0;
    const uint64_t id = ++sync_ids;
    Append(pj::Kind::kSyncBegin, file->path, id, 0, nullptr, 0);
    for (Covered& other : covered) {
      if (other.used && strcmp(other.path, file->path) == 0) other.needs_base = true;
    }
    return id;
  }
  struct stat st;
  char path[pj::kMaxPath];
  if (Sys(SYS_fstat, fd, reinterpret_cast<long>(&st)) != 0 || !S_ISDIR(st.st_mode)) return 0;
  if (!Absolute(fd, ".", path)) return 0;
  path[strlen(path) - 2] = '\0';  // drop the "/."
  if (!InScope(path)) return 0;
  Guard guard;
  const uint64_t id = ++sync_ids;
  Append(pj::Kind::kSyncBegin, path, id, 1, nullptr, 0);
  return id;
}

int Sync(long number, int fd) {
  const uint64_t id = BeginSync(fd);
  const int r = static_cast<int>(Sys(number, fd));
  if (r == 0 && id != 0) {
    Guard guard;
    Append(pj::Kind::kSyncDone, "", id, 0, nullptr, 0);
  }
  return r;
}

int Rename(int olddir, const char* oldpath, int newdir, const char* newpath, unsigned flags) {
  char old_abs[pj::kMaxPath], new_abs[pj::kMaxPath];
  if (!Enabled() || !Absolute(olddir, oldpath, old_abs) || !Absolute(newdir, newpath, new_abs) ||
      !(InScope(old_abs) || InScope(new_abs))) {
    return static_cast<int>(Sys(SYS_renameat2, olddir, reinterpret_cast<long>(oldpath), newdir,
                                reinterpret_cast<long>(newpath), flags));
  }
  Guard guard;
  // The file the rename replaces is kept (a hard link) so the undo can put
  // it back.
  char saved[pj::kMaxPath + 64];
  bool kept = false;
  const uint64_t n = ++saved_files;
  if (Exists(new_abs)) {
    memcpy(saved, journal_dir, journal_dir_len);
    char* p = saved + journal_dir_len;
    *p++ = '/';
    strcpy(p, pj::kSavedPrefix);
    p += strlen(pj::kSavedPrefix);
    for (uint64_t part : {static_cast<uint64_t>(Sys(SYS_getpid)), n}) {
      char digits[24];
      int d = 0;
      do digits[d++] = static_cast<char>('0' + part % 10); while ((part /= 10) != 0);
      while (d > 0) *p++ = digits[--d];
      *p++ = '-';
    }
    *--p = '\0';
    kept = Sys(SYS_linkat, AT_FDCWD, reinterpret_cast<long>(new_abs), AT_FDCWD,
               reinterpret_cast<long>(saved), 0) == 0;
  }
  const int r = static_cast<int>(Sys(SYS_renameat2, olddir, reinterpret_cast<long>(oldpath),
                                     newdir, reinterpret_cast<long>(newpath), flags));
  if (r != 0) {
    if (kept) Sys(SYS_unlinkat, AT_FDCWD, reinterpret_cast<long>(saved), 0);
    return r;
  }
  Append(pj::Kind::kRename, old_abs, kept ? 1 : 0, n, new_abs, strlen(new_abs));
  for (Covered& file : covered) {
    if (file.used && strcmp(file.path, old_abs) == 0) strcpy(file.path, new_abs);
  }
  return r;
}

uint64_t IovLength(const struct iovec* iov, int count) {
  uint64_t total = 0;
  for (int i = 0; i < count; ++i) total += iov[i].iov_len;
  return total;
}

}  // namespace

#define LOCKSMITH_EXPORT extern "C" __attribute__((visibility("default")))

LOCKSMITH_EXPORT int open(const char* path, int flags, ...) {
  va_list args;
  va_start(args, flags);
  const mode_t mode = ModeOf(flags, args);
  va_end(args);
  return Open(AT_FDCWD, path, flags, mode);
}
LOCKSMITH_EXPORT int open64(const char* path, int flags, ...) {
  va_list args;
  va_start(args, flags);
  const mode_t mode = ModeOf(flags, args);
  va_end(args);
  return Open(AT_FDCWD, path, flags, mode);
}
LOCKSMITH_EXPORT int openat(int dirfd, const char* path, int flags, ...) {
  va_list args;
  va_start(args, flags);
  const mode_t mode = ModeOf(flags, args);
  va_end(args);
  return Open(dirfd, path, flags, mode);
}
LOCKSMITH_EXPORT int openat64(int dirfd, const char* path, int flags, ...) {
  va_list args;
  va_start(args, flags);
  const mode_t mode = ModeOf(flags, args);
  va_end(args);
  return Open(dirfd, path, flags, mode);
}
LOCKSMITH_EXPORT int creat(const char* path, mode_t mode) {
  return Open(AT_FDCWD, path, O_WRONLY | O_CREAT | O_TRUNC, mode);
}
LOCKSMITH_EXPORT int creat64(const char* path, mode_t mode) {
  return Open(AT_FDCWD, path, O_WRONLY | O_CREAT | O_TRUNC, mode);
}

LOCKSMITH_EXPORT ssize_t write(int fd, const void* buf, size_t count) {
  BeforeWrite(fd, -1, count);
  return Sys(SYS_write, fd, reinterpret_cast<long>(buf), static_cast<long>(count));
}
LOCKSMITH_EXPORT ssize_t pwrite(int fd, const void* buf, size_t count, off_t offset) {
  BeforeWrite(fd, offset, count);
  return Sys(SYS_pwrite64, fd, reinterpret_cast<long>(buf), static_cast<long>(count), offset);
}
LOCKSMITH_EXPORT ssize_t pwrite64(int fd, const void* buf, size_t count, off_t offset) {
  return pwrite(fd, buf, count, offset);
}
LOCKSMITH_EXPORT ssize_t writev(int fd, const struct iovec* iov, int count) {
  if (SlotOf(fd) != nullptr) BeforeWrite(fd, -1, IovLength(iov, count));
  return Sys(SYS_writev, fd, reinterpret_cast<long>(iov), count);
}
LOCKSMITH_EXPORT ssize_t pwritev(int fd, const struct iovec* iov, int count, off_t offset) {
  if (SlotOf(fd) != nullptr) BeforeWrite(fd, offset, IovLength(iov, count));
  // The kernel takes the offset as two halves (low, high).
  return Sys(SYS_pwritev, fd, reinterpret_cast<long>(iov), count, offset, 0);
}
LOCKSMITH_EXPORT ssize_t pwritev64(int fd, const struct iovec* iov, int count, off_t offset) {
  return pwritev(fd, iov, count, offset);
}

LOCKSMITH_EXPORT int ftruncate(int fd, off_t length) {
  if (SlotOf(fd) != nullptr && length >= 0) {
    Guard guard;
    if (Covered* file = SlotOf(fd); file != nullptr) BeforeChange(*file, length, 0, true);
  }
  return static_cast<int>(Sys(SYS_ftruncate, fd, length));
}
LOCKSMITH_EXPORT int ftruncate64(int fd, off_t length) { return ftruncate(fd, length); }

LOCKSMITH_EXPORT int fallocate(int fd, int mode, off_t offset, off_t len) {
  if (SlotOf(fd) != nullptr && offset >= 0) {
    Guard guard;
    if (Covered* file = SlotOf(fd); file != nullptr) {
      // Punching, zeroing, collapsing or inserting changes bytes from offset
      // on; a plain allocation only grows the file.
      const bool changes = (mode & ~FALLOC_FL_KEEP_SIZE) != 0;
      BeforeChange(*file, offset, 0, changes);
    }
  }
  return static_cast<int>(Sys(SYS_fallocate, fd, mode, offset, len));
}
LOCKSMITH_EXPORT int fallocate64(int fd, int mode, off_t offset, off_t len) {
  return fallocate(fd, mode, offset, len);
}
LOCKSMITH_EXPORT int posix_fallocate(int fd, off_t offset, off_t len) {
  // Returns the error rather than setting errno.
  const int saved = errno;
  const int r = fallocate(fd, 0, offset, len);
  const int error = r == 0 ? 0 : errno;
  errno = saved;
  return error;
}
LOCKSMITH_EXPORT int posix_fallocate64(int fd, off_t offset, off_t len) {
  return posix_fallocate(fd, offset, len);
}

LOCKSMITH_EXPORT int fsync(int fd) { return Sync(SYS_fsync, fd); }
LOCKSMITH_EXPORT int fdatasync(int fd) { return Sync(SYS_fdatasync, fd); }

LOCKSMITH_EXPORT int rename(const char* oldpath, const char* newpath) {
  return Rename(AT_FDCWD, oldpath, AT_FDCWD, newpath, 0);
}
LOCKSMITH_EXPORT int renameat(int olddir, const char* oldpath, int newdir, const char* newpath) {
  return Rename(olddir, oldpath, newdir, newpath, 0);
}
LOCKSMITH_EXPORT int renameat2(int olddir, const char* oldpath, int newdir, const char* newpath,
                               unsigned flags) {
  return Rename(olddir, oldpath, newdir, newpath, flags);
}

LOCKSMITH_EXPORT int close(int fd) {
  if (SlotOf(fd) != nullptr) {
    Guard guard;
    Uncover(fd);
  }
  if (fd >= 0 && fd == journal_fd.load(std::memory_order_relaxed)) {
    // The program closes descriptors it does not know (a daemon's start):
    // the journal reopens on the next record.
    Guard guard;
    if (fd == journal_fd.load(std::memory_order_relaxed)) journal_fd.store(-1);
  }
  return static_cast<int>(Sys(SYS_close, fd));
}

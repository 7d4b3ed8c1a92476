// RunRegistry: the on-disk record of what each run created (namespaces,
// links, address slice, processes with their start times) and which
// controller process owns it, so `locksmith cleanup` can remove exactly what
// a SIGKILLed run left behind and nothing of a run that is still alive.
//
// Layout: <dir>/lock (flock: serialises slice allocation against cleanup),
// <dir>/runs/<tag>.json (one record per run, replaced atomically by rename).
// The directories must be the caller's own, writable by no one else, and no
// symbolic links (new ones are made 0700); a record file must be a regular
// file of the caller's that no one else may write, or it is unreadable (left
// alone by cleanup): a record names processes to kill, so one planted by
// someone else must never be acted on.
// Every run on a machine must use the same directory, or two runs could get
// the same address slice: DefaultDir() is /run/locksmith for root. A run
// records an object *before* creating it, so a crash at any point leaves a
// record that covers it (cleanup tolerates objects that never appeared).
//
// Thread-safety: RunRegistry is immutable after construction and its methods
// may be called from any thread; Lock excludes other threads and processes.
// Callers serialise Save() calls for the same record themselves.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace locksmith {

struct RecordedProcess {
  int pid = 0;
  uint64_t start_time = 0;  // /proc/<pid>/stat field 22: tells pid reuse apart
  std::string host;
  bool operator==(const RecordedProcess&) const = default;
};

struct RunRecord {
  std::string tag;
  int controller_pid = 0;
  uint64_t controller_start_time = 0;
  int slice = -1;                  // address slice; -1 for a loopback run
  std::vector<std::string> netns;  // namespace names (under /var/run/netns)
  std::vector<std::string> links;  // root-namespace links: bridge, host-side veths
  std::vector<RecordedProcess> processes;
  // The run's cgroup (RunCgroupPath: contained programs run in its leaves);
  // "" where cgroup v2 is not to be had.
  std::string cgroup;
  bool operator==(const RunRecord&) const = default;
};

std::string SerializeRunRecord(const RunRecord& record);
Result<RunRecord> ParseRunRecord(std::string_view json);

// True while the record's controller process runs: same pid, same start time.
bool ControllerAlive(const RunRecord& record);
// A record for the calling process as controller.
Result<RunRecord> NewRecordForThisProcess(const std::string& tag);

// A run directory's controller: RunTest writes <run_dir>/controller.json
// right after config.json, naming the process that writes the run (pid, its
// start time, the boot it started in). The file is never removed: once that
// process has ended it names a dead process, whatever way the run ended
// (finished, interrupted, SIGKILLed). `locksmith check RUN_DIR` reads it to
// refuse to rewrite results.json and the reports of a run still going.
inline constexpr char kRunControllerFile[] = "controller.json";

// What controller.json says: the process that writes the run.
struct RunControllerFacts {
  int pid = 0;
  uint64_t start_time = 0;
  std::string boot_id;
};
// Parses controller.json's text; an error (one line, naming `path`) when it
// is not what WriteRunController writes.
Result<RunControllerFacts> ParseRunController(std::string_view text, const std::string& path);

// Writes controller.json for the calling process (atomically: a reader sees
// the whole file or none).
Status WriteRunController(const std::string& run_dir);

// The pid of the process that wrote run_dir's controller.json while it still
// runs (same boot, same pid, same start time); nullopt when it has ended or
// when there is no controller.json (runs from before it existed). An
// unreadable or malformed file is an error naming it.
Result<std::optional<int>> LiveRunController(const std::string& run_dir);

class RunRegistry {
 public:
  // RAII holder of the registry's exclusive flock.
  class Lock {
   public:
    explicit Lock(int fd) : fd_(fd) {}
    Lock(Lock&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
    Lock& operator=(Lock&&) = delete;
    Lock(const Lock&) = delete;
    ~Lock();

   private:
    int fd_;
  };

  // /run/locksmith as root; otherwise $XDG_RUNTIME_DIR/locksmith or
  // /tmp/locksmith-<uid>. Checked the same way in every case.
  static std::string DefaultDir();

  explicit RunRegistry(std::string dir);
  const std::string& dir() const { return dir_; }

  // Creates the directory if needed (0700), checks that it and runs/ are
  // the caller's own and writable by no one else, and blocks until the
  // flock is ours. An error of one line names a directory that fails.
  Result<Lock> Acquire() const;
  // With the lock held: fails if `record.tag` is registered already; with
  // want_slice, sets record.slice to the lowest slice no record holds and
  // that is not in `busy` (records of dead runs keep theirs until cleanup
  // removes their bridge; `busy` names slices whose addresses the kernel
  // already has, such as an unregistered run's bridge, which no record
  // shows). Then writes the record.
  Status RegisterLocked(RunRecord& record, bool want_slice, const std::set<int>& busy = {}) const;
  // Atomically replaces the record file.
  Status Save(const RunRecord& record) const;
  // Removes the record file (absent is fine).
  Status Remove(const std::string& tag) const;

  struct Listing {
    std::vector<RunRecord> records;
    std::vector<std::string> unreadable;  // "path: reason"
  };
  Listing List() const;

 private:
  std::string RecordPath(const std::string& tag) const;
  std::string dir_;
};

}  // namespace locksmith

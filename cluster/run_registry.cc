#include "cluster/run_registry.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "base/atomic_file.h"
#include "base/input_file.h"
#include "base/json_input.h"
#include "base/unique_fd.h"
#include "cluster/net_plan.h"
#include "cluster/proc_info.h"
#include "cluster/process_cgroup.h"

namespace locksmith {
namespace fs = std::filesystem;
using nlohmann::json;

std::string SerializeRunRecord(const RunRecord& r) {
  json procs = json::array();
  for (const auto& p : r.processes) {
    procs.push_back({{"pid", p.pid}, {"start_time", p.start_time}, {"host", p.host}});
  }
  json j = {{"tag", r.tag},
            {"controller_pid", r.controller_pid},
            {"controller_start_time", r.controller_start_time},
            {"slice", r.slice},
            {"netns", r.netns},
            {"links", r.links},
            {"processes", procs}};
  if (!r.cgroup.empty()) j["cgroup"] = r.cgroup;
  return j.dump(2) + "\n";
}

namespace {

// Member `key` of a run record as a whole number in [min, max] (max >= 0).
// nlohmann's get<int>() of a float or of a number out of int's range is
// undefined behaviour, not an exception, and the record may be anyone's bytes.
Result<int64_t> RecordWholeNumber(const json& j, const char* key, int64_t min, int64_t max) {
  const json& v = j.at(key);
  bool in_range = false;
  if (v.is_number_unsigned()) {
    const uint64_t u = v.get<uint64_t>();
    in_range = u <= static_cast<uint64_t>(max) && static_cast<int64_t>(u) >= min;
  } else if (v.is_number_integer()) {
    in_range = v.get<int64_t>() >= min && v.get<int64_t>() <= max;
  }
  if (!in_range) {
    return Error{"malformed run record: \"" + std::string(key) + "\" must be a whole number from " +
                 std::to_string(min) + " to " + std::to_string(max)};
  }
  return v.get<int64_t>();
}

// A process's start time (clock ticks since boot): a whole number >= 0.
Result<uint64_t> RecordStartTime(const json& j, const char* key) {
  const json& v = j.at(key);
  if (!v.is_number_unsigned()) {
    return Error{"malformed run record: \"" + std::string(key) + "\" must be a whole number >= 0"};
  }
  return v.get<uint64_t>();
}

}  // namespace

Result<RunRecord> ParseRunRecord(std::string_view text) {
  auto parsed = ParseJsonInput(text);
  if (!parsed) return Error{"malformed run record: " + parsed.error()};
  try {
    const json& j = *parsed;
    RunRecord r;
    r.tag = j.at("tag").get<std::string>();
    constexpr int64_t kMaxPid = std::numeric_limits<int>::max();
    const Result<int64_t> pid = RecordWholeNumber(j, "controller_pid", 1, kMaxPid);
    if (!pid) return Error{pid.error()};
    r.controller_pid = static_cast<int>(*pid);
    const Result<uint64_t> start = RecordStartTime(j, "controller_start_time");
    if (!start) return Error{start.error()};
    r.controller_start_time = *start;
    const Result<int64_t> slice = RecordWholeNumber(j, "slice", -1, kSliceCount - 1);
    if (!slice) return Error{slice.error()};
    r.slice = static_cast<int>(*slice);
    r.netns = j.at("netns").get<std::vector<std::string>>();
    r.links = j.at("links").get<std::vector<std::string>>();
    for (const auto& p : j.at("processes")) {
      const Result<int64_t> process_pid = RecordWholeNumber(p, "pid", 1, kMaxPid);
      if (!process_pid) return Error{process_pid.error()};
      const Result<uint64_t> process_start = RecordStartTime(p, "start_time");
      if (!process_start) return Error{process_start.error()};
      r.processes.push_back(
          {static_cast<int>(*process_pid), *process_start, p.at("host").get<std::string>()});
    }
    if (j.contains("cgroup")) r.cgroup = j.at("cgroup").get<std::string>();
    // Names come back from disk and are handed to `ip`: accept only ours.
    if (auto s = ValidateTag(r.tag); !s.ok()) return Error{s.error()};
    if (!r.cgroup.empty()) {
      if (auto s = CheckRunCgroupPath(r.cgroup, r.tag, false); !s.ok()) return Error{s.error()};
    }
    for (const auto& n : r.netns) {
      if (TagFromNetnsName(n) != r.tag) return Error{"namespace '" + n + "' is not of run " + r.tag};
    }
    for (const auto& l : r.links) {
      if (TagFromLinkName(l) != r.tag) return Error{"link '" + l + "' is not of run " + r.tag};
    }
    return r;
  } catch (const json::exception& e) {
    return Error{std::string("malformed run record: ") + e.what()};
  }
}

bool ControllerAlive(const RunRecord& record) {
  return IsSameProcessAlive(record.controller_pid, record.controller_start_time);
}

Result<RunRecord> NewRecordForThisProcess(const std::string& tag) {
  auto st = ReadProcStat(getpid());
  if (!st) return Error{"cannot read /proc/self/stat to record the controller's start time"};
  RunRecord r;
  r.tag = tag;
  r.controller_pid = getpid();
  r.controller_start_time = st->start_time;
  // Recorded before the cgroup is made, as every object of a run is.
  if (!tag.empty()) {
    if (auto cgroup = RunCgroupPath(tag)) r.cgroup = *cgroup;
  }
  return r;
}

namespace {

// A record is a few hundred bytes a process; anything this large is not one.
constexpr uint64_t kMaxRecordBytes = 4 << 20;

// "uid 1000, mode 0666" of a file or directory, for refusals.
std::string OwnerText(const struct stat& st) {
  char mode[8];
  std::snprintf(mode, sizeof(mode), "%04o", static_cast<unsigned>(st.st_mode & 07777));
  return "uid " + std::to_string(st.st_uid) + ", mode " + mode;
}

// This boot's id: after a reboot, pids and start times (ticks since boot)
// repeat, so a pid and start time identify a process only within one boot.
std::string BootId() {
  std::ifstream in("/proc/sys/kernel/random/boot_id");
  std::string id;
  std::getline(in, id);
  return id;
}

}  // namespace

Status WriteRunController(const std::string& run_dir) {
  auto self = NewRecordForThisProcess("");
  if (!self) return Error{self.error()};
  const json j = {{"pid", self->controller_pid},
                  {"start_time", self->controller_start_time},
                  {"boot_id", BootId()}};
  return WriteFileAtomically(run_dir + "/" + kRunControllerFile, j.dump(2) + "\n");
}

// controller.json holds a pid, a start time and a boot id: anything larger
// was not written by a run.
constexpr uint64_t kMaxControllerFileBytes = 64 << 10;

Result<RunControllerFacts> ParseRunController(std::string_view text, const std::string& path) {
  auto parsed = ParseJsonInput(text);
  const json j = parsed ? std::move(parsed).value() : json();
  const bool well_formed = j.is_object() && j.contains("pid") && j["pid"].is_number_integer() &&
                           j.contains("start_time") && j["start_time"].is_number_unsigned() &&
                           j.contains("boot_id") && j["boot_id"].is_string();
  if (!well_formed) {
    return Error{path + " is malformed (want \"pid\", \"start_time\" and \"boot_id\")"};
  }
  const int64_t pid = j["pid"].get<int64_t>();
  if (pid <= 0 || pid > std::numeric_limits<int>::max()) {
    return Error{path + " is malformed (pid " + std::to_string(pid) + ")"};
  }
  return RunControllerFacts{static_cast<int>(pid), j["start_time"].get<uint64_t>(),
                            j["boot_id"].get<std::string>()};
}

Result<std::optional<int>> LiveRunController(const std::string& run_dir) {
  const std::string path = run_dir + "/" + kRunControllerFile;
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(path, ec))) return std::optional<int>();
  // A run directory may be anyone's: a FIFO here must not hang `check`.
  auto text = ReadInputFile(path, kMaxControllerFileBytes);
  if (!text) return Error{text.error()};
  auto facts = ParseRunController(*text, path);
  if (!facts) {
    return Error{facts.error() + "; remove it if no locksmith run is writing " + run_dir};
  }
  // Another boot (the machine rebooted since, or the run was on another
  // machine sharing the store): that pid and start time name nothing here.
  if (facts->boot_id != BootId()) return std::optional<int>();
  if (!IsSameProcessAlive(facts->pid, facts->start_time)) return std::optional<int>();
  return std::optional<int>(facts->pid);
}

namespace {

// A registry directory (or runs/) fit to trust: made 0700 if missing, then
// a directory, no symbolic link, the caller's, writable by no one else.
Status CheckRegistryDir(const std::string& dir) {
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
    return Error{"cannot create the run registry " + dir + ": " + std::strerror(errno)};
  }
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0) {
    return Error{"cannot read the run registry " + dir + ": " + std::strerror(errno)};
  }
  if (!S_ISDIR(st.st_mode) || st.st_uid != ::geteuid() || (st.st_mode & 022) != 0) {
    return Error{"refusing the run registry " + dir + ": " + OwnerText(st) +
                 ", not a directory of uid " + std::to_string(::geteuid()) +
                 " that no one else may write (someone else may have made it: remove it)"};
  }
  return OkStatus();
}

// The contents of a record file fit to trust (see CheckRegistryDir), or why not.
Result<std::string> ReadRecordFile(const std::string& path) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  if (fd.get() < 0) return Error{std::string("cannot open it: ") + std::strerror(errno)};
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != ::geteuid() ||
      (st.st_mode & 022) != 0) {
    return Error{"not a regular file of uid " + std::to_string(::geteuid()) +
                 " that no one else may write (" + OwnerText(st) + "); never acted on"};
  }
  if (static_cast<uint64_t>(st.st_size) > kMaxRecordBytes) return Error{"too large for a record"};
  std::string text(static_cast<size_t>(st.st_size), '\0');
  const ssize_t n = ::pread(fd.get(), text.data(), text.size(), 0);
  if (n < 0) return Error{std::string("cannot read it: ") + std::strerror(errno)};
  text.resize(static_cast<size_t>(n));
  return text;
}

}  // namespace

RunRegistry::Lock::~Lock() {
  if (fd_ >= 0) close(fd_);  // closing the descriptor drops the flock
}

std::string RunRegistry::DefaultDir() {
  if (geteuid() == 0) return "/run/locksmith";
  if (const char* xdg = getenv("XDG_RUNTIME_DIR"); xdg != nullptr && *xdg != '\0') {
    return std::string(xdg) + "/locksmith";
  }
  return "/tmp/locksmith-" + std::to_string(geteuid());
}

RunRegistry::RunRegistry(std::string dir) : dir_(std::move(dir)) {}

std::string RunRegistry::RecordPath(const std::string& tag) const {
  return dir_ + "/runs/" + tag + ".json";
}

Result<RunRegistry::Lock> RunRegistry::Acquire() const {
  std::error_code ec;
  fs::create_directories(fs::path(dir_).parent_path(), ec);
  for (const std::string& dir : {dir_, dir_ + "/runs"}) {
    if (auto s = CheckRegistryDir(dir); !s.ok()) return Error{s.error()};
  }
  std::string path = dir_ + "/lock";
  int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) return Error{"cannot open " + path + ": " + std::strerror(errno)};
  while (flock(fd, LOCK_EX) != 0) {
    if (errno != EINTR) {
      int err = errno;
      close(fd);
      return Error{"cannot lock " + path + ": " + std::strerror(err)};
    }
  }
  return Lock(fd);
}

Status RunRegistry::RegisterLocked(RunRecord& record, bool want_slice,
                                   const std::set<int>& busy) const {
  if (fs::exists(RecordPath(record.tag))) {
    return Error{"run tag " + record.tag + " is already registered in " + dir_ +
                 "; pick another tag"};
  }
  if (want_slice) {
    Listing listing = List();
    if (!listing.unreadable.empty()) {
      // A record we cannot read may hold any slice: refuse rather than collide.
      return Error{"cannot allocate addresses: unreadable run record " + listing.unreadable[0] +
                   " (inspect it, then remove it or run `locksmith cleanup`)"};
    }
    std::set<int> used = busy;
    for (const auto& r : listing.records) used.insert(r.slice);
    record.slice = -1;
    for (int s = 0; s < kSliceCount; ++s) {
      if (!used.contains(s)) {
        record.slice = s;
        break;
      }
    }
    if (record.slice < 0) {
      return Error{"all " + std::to_string(kSliceCount) +
                   " address slices of 198.18.0.0/24 are held by other runs; "
                   "run `locksmith cleanup` (with --remove-unregistered for runs with no "
                   "record) to free those of dead runs"};
    }
  }
  return Save(record);
}

Status RunRegistry::Save(const RunRecord& record) const {
  for (const std::string& dir : {dir_, dir_ + "/runs"}) {
    if (auto s = CheckRegistryDir(dir); !s.ok()) return Error{s.error()};
  }
  return WriteFileAtomically(RecordPath(record.tag), SerializeRunRecord(record),
                             /*private_file=*/true);
}

Status RunRegistry::Remove(const std::string& tag) const {
  std::error_code ec;
  fs::remove(RecordPath(tag), ec);
  if (ec) return Error{"cannot remove run record " + RecordPath(tag) + ": " + ec.message()};
  return OkStatus();
}

RunRegistry::Listing RunRegistry::List() const {
  Listing listing;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir_ + "/runs", ec)) {
    if (entry.path().extension() != ".json") continue;
    auto text = ReadRecordFile(entry.path().string());
    if (!text && !fs::exists(fs::symlink_status(entry.path(), ec))) continue;  // removed meanwhile
    if (!text) {
      listing.unreadable.push_back(entry.path().string() + ": " + text.error());
      continue;
    }
    auto record = ParseRunRecord(*text);
    if (!record.ok()) {
      listing.unreadable.push_back(entry.path().string() + ": " + record.error());
    } else if (entry.path().stem() != record->tag) {
      listing.unreadable.push_back(entry.path().string() + ": holds tag " + record->tag);
    } else {
      listing.records.push_back(std::move(*record));
    }
  }
  return listing;
}

}  // namespace locksmith

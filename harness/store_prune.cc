#include "harness/store_prune.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <map>
#include <set>

#include "base/atomic_file.h"
#include "base/exit_codes.h"
#include "base/input_file.h"
#include "base/terminal_text.h"
#include "base/unique_fd.h"
#include "harness/report_command.h"
#include "reports/run_results.h"
#include "reports/suite_record_reader.h"

namespace locksmith {
namespace {

namespace fs = std::filesystem;

// One run or suite directory the store made.
struct StoreDir {
  bool suite = false;
  std::string name, stamp;
  std::string rel;  // relative to the root: NAME/STAMP or suites/NAME/STAMP
};

std::vector<std::string> RealSubdirs(const fs::path& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (IsRealDirectory(it->path())) names.push_back(it->path().filename().string());
  }
  return names;
}

// The store's run and suite directories under `root` (names that are no
// stamp, links and foreign directories left out).
std::vector<StoreDir> StoreDirs(const fs::path& root) {
  std::vector<StoreDir> dirs;
  for (const std::string& name : RealSubdirs(root)) {
    const bool suites = name == "suites";
    for (const std::string& second : RealSubdirs(root / name)) {
      if (!suites) {
        if (StampSeconds(second)) dirs.push_back({false, name, second, name + "/" + second});
        continue;
      }
      for (const std::string& stamp : RealSubdirs(root / name / second)) {
        if (StampSeconds(stamp)) {
          dirs.push_back({true, second, stamp, "suites/" + second + "/" + stamp});
        }
      }
    }
  }
  return dirs;
}

// Opens the directory `rel` beneath `base` one component at a time, never
// following a link; -1 when a component is a link, missing or no directory.
int OpenBeneath(int base, const fs::path& rel) {
  UniqueFd fd(::fcntl(base, F_DUPFD_CLOEXEC, 0));
  for (const fs::path& part : rel) {
    const std::string name = part.string();
    if (name.empty() || name == ".") continue;
    if (name == "..") return -1;
    fd.Reset(::openat(fd.get(), name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (fd.get() < 0) return -1;
  }
  return ::fcntl(fd.get(), F_DUPFD_CLOEXEC, 0);
}

bool HasRegularFile(int dir, const char* name) {
  struct stat st {};
  return ::fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode);
}

// The names in the directory open as `dir`, but . and ..
std::vector<std::string> Entries(int dir) {
  std::vector<std::string> names;
  DIR* d = ::fdopendir(::fcntl(dir, F_DUPFD_CLOEXEC, 0));
  if (d == nullptr) return names;
  ::rewinddir(d);
  while (const dirent* e = ::readdir(d)) {
    if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0) {
      names.push_back(e->d_name);
    }
  }
  ::closedir(d);
  return names;
}

// Removes `name` in the directory open as `parent`: a file or a link
// itself, a directory with all it holds, never through a link.
Status RemoveAt(int parent, const std::string& name, uint64_t& bytes) {
  struct stat st {};
  if (::fstatat(parent, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    return Error{name + ": " + std::strerror(errno)};
  }
  if (S_ISDIR(st.st_mode)) {
    UniqueFd dir(
        ::openat(parent, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (dir.get() < 0) return Error{name + ": " + std::strerror(errno)};
    for (const std::string& entry : Entries(dir.get())) {
      if (Status s = RemoveAt(dir.get(), entry, bytes); !s) return Error{name + "/" + s.error()};
    }
  } else {
    bytes += static_cast<uint64_t>(st.st_size);
  }
  if (::unlinkat(parent, name.c_str(), S_ISDIR(st.st_mode) ? AT_REMOVEDIR : 0) != 0) {
    return Error{name + ": " + std::strerror(errno)};
  }
  return OkStatus();
}

// A finished run down to its config.json and results.json; whether
// anything went.
bool PruneRun(int root, const StoreDir& d, PruneReport& report) {
  UniqueFd dir(OpenBeneath(root, d.rel));
  if (dir.get() < 0 || !HasRegularFile(dir.get(), "config.json")) return false;
  if (!HasRegularFile(dir.get(), "results.json")) {
    report.skipped.push_back(d.rel + ": no results.json (still running, or it failed early)");
    return false;
  }
  bool removed = false;
  for (const std::string& entry : Entries(dir.get())) {
    if (entry == "config.json" || entry == "results.json") continue;
    if (Status s = RemoveAt(dir.get(), entry, report.bytes_freed); !s) {
      report.failed.push_back(d.rel + "/" + s.error());
      return removed;
    }
    removed = true;
  }
  return removed;
}

// A suite without the run directories its summary lists (each a real
// directory inside it with a config.json), its index.html written again
// without links to them; whether anything went.
bool PruneSuite(int root, const fs::path& root_path, const StoreDir& d, PruneReport& report) {
  UniqueFd dir(OpenBeneath(root, d.rel));
  if (dir.get() < 0 || !HasRegularFile(dir.get(), "summary.json")) return false;
  auto json = ReadJsonFile((root_path / d.rel / "summary.json").string());
  auto record = json ? SuiteRecordFromJson(*json) : Result<SuiteRecord>(Error{json.error()});
  if (!record) {
    report.skipped.push_back(d.rel + ": " + record.error());
    return false;
  }
  bool removed = false;
  std::set<std::string> parents;
  for (SuiteRun& run : record->runs) {
    if (run.dir.empty()) continue;
    const fs::path rel(run.dir);
    UniqueFd parent(OpenBeneath(dir.get(), rel.parent_path()));
    const std::string last = rel.filename().string();
    UniqueFd target(parent.get() < 0 ? -1 : OpenBeneath(parent.get(), last));
    if (target.get() < 0 || !HasRegularFile(target.get(), "config.json")) continue;
    if (Status s = RemoveAt(parent.get(), last, report.bytes_freed); !s) {
      report.failed.push_back(d.rel + "/" + run.dir + ": " + s.error());
      continue;
    }
    removed = true;
    run.dir.clear();
    if (!rel.parent_path().empty()) parents.insert(rel.parent_path().string());
  }
  // A cell's directory left empty goes too (rmdir: one still holding anything stays).
  for (const std::string& p : parents) ::unlinkat(dir.get(), p.c_str(), AT_REMOVEDIR);
  if (removed) {
    const std::string index = (root_path / d.rel / "index.html").string();
    if (Status s = WriteFileAtomically(index, RenderSuiteIndex(*record)); !s) {
      report.failed.push_back(s.error());
    }
  }
  return removed;
}

}  // namespace

std::optional<int64_t> StampSeconds(const std::string& stamp) {
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0;
  char t = 0;
  if (stamp.size() < 15 || std::sscanf(stamp.c_str(), "%4d%2d%2d%c%2d%2d%2d", &y, &mo, &d, &t,
                                       &h, &mi, &s) != 7 || t != 'T') {
    return std::nullopt;
  }
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 60) return std::nullopt;
  std::tm tm{};
  tm.tm_year = y - 1900;
  tm.tm_mon = mo - 1;
  tm.tm_mday = d;
  tm.tm_hour = h;
  tm.tm_min = mi;
  tm.tm_sec = s;
  return static_cast<int64_t>(::timegm(&tm));
}

Result<PruneReport> PruneStore(const std::string& root, const PruneRule& rule,
                               std::chrono::system_clock::time_point now) {
  if (!rule.keep && !rule.keep_days) return Error{"store prune needs --keep N or --keep-days D"};
  if (rule.keep && *rule.keep < 1) return Error{"--keep must be at least 1"};
  if (rule.keep_days && !(*rule.keep_days > 0)) return Error{"--keep-days must be above 0"};
  struct stat st {};
  if (::lstat(root.c_str(), &st) != 0) return Error{"no such store: " + root};
  if (S_ISLNK(st.st_mode)) return Error{"the store " + root + " is a symbolic link: refused"};
  if (!S_ISDIR(st.st_mode)) return Error{"the store " + root + " is not a directory"};
  UniqueFd root_fd(::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (root_fd.get() < 0) return Error{"cannot open the store " + root + ": " + std::strerror(errno)};

  std::map<std::pair<bool, std::string>, std::vector<StoreDir>> by_name;
  for (StoreDir& d : StoreDirs(root)) by_name[{d.suite, d.name}].push_back(std::move(d));
  const int64_t now_s = std::chrono::duration_cast<std::chrono::seconds>(
                            now.time_since_epoch()).count();
  PruneReport report;
  for (auto& [key, dirs] : by_name) {
    std::sort(dirs.begin(), dirs.end(),
              [](const StoreDir& a, const StoreDir& b) { return a.stamp > b.stamp; });
    for (size_t i = 0; i < dirs.size(); ++i) {
      const double age_days = double(now_s - *StampSeconds(dirs[i].stamp)) / 86400;
      const bool kept = (rule.keep && i < size_t(*rule.keep)) ||
                        (rule.keep_days && age_days < *rule.keep_days);
      if (kept) continue;
      const bool pruned = dirs[i].suite ? PruneSuite(root_fd.get(), root, dirs[i], report)
                                        : PruneRun(root_fd.get(), dirs[i], report);
      if (pruned) report.pruned.push_back(dirs[i].rel);
    }
  }
  return report;
}

int PruneStoreCommand(const std::string& root, const PruneRule& rule, std::ostream& out,
                      std::ostream& err) {
  auto report = PruneStore(root, rule, std::chrono::system_clock::now());
  if (!report) {
    err << "locksmith: store prune: " << TerminalSafe(report.error()) << "\n";
    return kExitBadInput;
  }
  for (const auto& p : report->pruned) out << "pruned " << TerminalSafe(p) << "\n";
  for (const auto& s : report->skipped) out << "left alone " << TerminalSafe(s) << "\n";
  char freed[64];
  std::snprintf(freed, sizeof freed, "%.1f MiB", double(report->bytes_freed) / (1 << 20));
  out << "store prune: " << report->pruned.size() << " directories pruned, " << freed
      << " freed; summaries kept\n";
  UpdateStoreIndex(root, err);
  if (!report->failed.empty()) {
    for (const auto& f : report->failed) {
      err << "locksmith: store prune: cannot remove " << TerminalSafe(f) << "\n";
    }
    return kExitRunFailed;
  }
  return 0;
}

}  // namespace locksmith

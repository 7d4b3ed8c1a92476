#include "harness/report_command.h"

#include <sys/stat.h>

#include <filesystem>
#include <initializer_list>

#include "base/exit_codes.h"
#include "base/terminal_text.h"
#include "cluster/run_registry.h"
#include "harness/run_judge.h"
#include "history/history_log.h"
#include "nemesis/fault_descriptions.h"
#include "reports/html_report.h"
#include "reports/run_results.h"
#include "reports/store_index.h"
#include "reports/suite_record_reader.h"
#include "reports/suite_report.h"

namespace locksmith {
namespace {

namespace fs = std::filesystem;

bool Exists(const fs::path& p) {
  std::error_code ec;
  return fs::exists(p, ec);
}

// What `report` reads or writes inside a run directory.
constexpr const char* kRunFiles[] = {"results.json", "config.json", "history.bin",
                                     "history.jsonl", "controller.json", "report.html"};

bool IsLink(const fs::path& p) {
  std::error_code ec;
  return fs::is_symlink(fs::symlink_status(p, ec));
}

std::string LinkRefusal(const fs::path& p) {
  return p.string() + " is a symbolic link: refusing to read or write through links inside a "
         "store (a link planted there could make a report copy or overwrite files elsewhere)";
}

// The refusal for the first link among `dir/rel`'s components below `dir`
// and `files` inside it; "" when there is none.
std::string LinksInside(const fs::path& dir, const fs::path& rel,
                        std::initializer_list<const char*> files) {
  fs::path at = dir;
  for (const fs::path& part : rel) {
    if (part.empty() || part == ".") continue;
    at /= part;
    if (IsLink(at)) return LinkRefusal(at);
  }
  for (const char* file : files) {
    if (IsLink(at / file)) return LinkRefusal(at / file);
  }
  return "";
}

int BadInput(std::ostream& err, const std::string& message) {
  err << "locksmith: " << TerminalSafe(message) << "\n";
  return kExitBadInput;
}

// Refuses a run still going: it writes its own report when it ends.
std::string LiveRunError(const std::string& run_dir) {
  auto live = LiveRunController(run_dir);
  if (!live) return live.error();
  if (live->has_value()) {
    return run_dir + " is still running (locksmith pid " + std::to_string(**live) +
           "): its report is written when the run ends";
  }
  return "";
}

std::string RunReport(const std::string& run_dir, uint64_t max_history_bytes) {
  for (const char* file : kRunFiles) {
    if (IsLink(fs::path(run_dir) / file)) return LinkRefusal(fs::path(run_dir) / file);
  }
  if (!Exists(RunHistoryFile(run_dir)) && !Exists(fs::path(run_dir) / "results.json")) {
    return run_dir + " is not a run directory (it has no history.jsonl or results.json)";
  }
  if (std::string live = LiveRunError(run_dir); !live.empty()) return live;
  // A run from before results.json described its faults gets them
  // described now, for the page (results.json stays as it was).
  HtmlReportOptions options;
  options.describe_faults = [](const History& history) { return DescribeFaults(history); };
  options.declare_service_events = RegisteredServiceEvents;
  options.max_history_bytes = max_history_bytes;
  if (Status s = WriteHtmlReport(run_dir, options); !s) {
    return "cannot write " + run_dir + "/report.html: " + s.error();
  }
  return "";
}

int SuiteReports(const std::string& suite_dir, uint64_t max_history_bytes, std::ostream& out,
                 std::ostream& err) {
  if (std::string link = LinksInside(suite_dir, "", {"summary.json", "junit.xml", "index.html"});
      !link.empty()) {
    return BadInput(err, link);
  }
  auto summary = ReadJsonFile(suite_dir + "/summary.json");
  if (!summary) return BadInput(err, summary.error());
  auto record = SuiteRecordFromJson(*summary);
  if (!record) return BadInput(err, suite_dir + "/summary.json: " + record.error());
  int written = 0, failed = 0;
  std::string first_error;
  for (const SuiteRun& run : record->runs) {
    if (run.dir.empty()) continue;  // it failed before it had a directory
    const std::string run_dir = (fs::path(suite_dir) / run.dir).string();
    if (std::string link = LinksInside(suite_dir, run.dir, {}); !link.empty()) {
      if (failed++ == 0) first_error = link;
      continue;
    }
    // A run that failed before its workload has no history: nothing to draw.
    if (run.verdict == "failed" && !Exists(RunHistoryFile(run_dir))) continue;
    if (std::string e = RunReport(run_dir, max_history_bytes); !e.empty()) {
      if (failed++ == 0) first_error = e;
      continue;
    }
    ++written;
  }
  if (Status s = WriteSuiteReports(*record, suite_dir); !s) {
    return BadInput(err, "cannot write the suite's tables in " + suite_dir + ": " + s.error());
  }
  out << "suite " << TerminalSafe(record->name) << ": " << written
      << " run reports written; index: " << TerminalSafe(suite_dir) << "/index.html\n";
  if (failed > 0) {
    return BadInput(err, std::to_string(failed) + " of " + std::to_string(failed + written) +
                             " run reports could not be written; the first: " + first_error);
  }
  return 0;
}

}  // namespace

std::optional<std::string> StoreRootOf(const std::string& dir) {
  std::error_code ec;
  const fs::path path = fs::weakly_canonical(fs::absolute(dir, ec), ec);
  if (ec || !path.has_parent_path()) return std::nullopt;
  if (Exists(path / "summary.json")) {
    // ROOT/suites/NAME/STAMP
    const fs::path suites = path.parent_path().parent_path();
    if (suites.filename() != "suites") return std::nullopt;
    return suites.parent_path().string();
  }
  // ROOT/NAME/STAMP, where ROOT is a store's root, not a suite's directory.
  const fs::path root = path.parent_path().parent_path();
  if (root.empty() || root == path.root_path()) return std::nullopt;
  if (!fs::is_symlink(root / "latest", ec) || Exists(root / "summary.json")) return std::nullopt;
  return root.string();
}

void UpdateStoreIndex(const std::string& root, std::ostream& err) {
  std::vector<std::string> damaged;
  if (Status s = WriteStoreIndex(root, &damaged); !s) {
    err << "locksmith: warning: store index not written: " << TerminalSafe(s.error()) << "\n";
  }
  for (const std::string& file : damaged) {
    err << "locksmith: warning: store index: skipped " << TerminalSafe(file) << "\n";
  }
}

int RegenerateReports(const std::string& dir, std::ostream& out, std::ostream& err,
                      uint64_t max_history_bytes) {
  // The store's own `latest` link is followed; any other link named as the
  // directory is refused, as links inside a store are.
  if (IsLink(dir) && fs::path(dir).filename() != "latest") return BadInput(err, LinkRefusal(dir));
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) return BadInput(err, "no such directory: " + dir);
  if (!S_ISDIR(st.st_mode)) {
    return BadInput(err, dir + " is not a directory (give a run's or a suite's directory)");
  }
  if (Exists(fs::path(dir) / "summary.json")) {
    if (int code = SuiteReports(dir, max_history_bytes, out, err); code != 0) return code;
  } else {
    if (std::string e = RunReport(dir, max_history_bytes); !e.empty()) return BadInput(err, e);
    out << "report: " << TerminalSafe(dir) << "/report.html\n";
  }
  if (auto root = StoreRootOf(dir)) {
    UpdateStoreIndex(*root, err);
    out << "store index: " << TerminalSafe(*root) << "/index.html\n";
  }
  return 0;
}

}  // namespace locksmith

#include "reports/store_index.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <sstream>

#include <nlohmann/json.hpp>

#include "base/atomic_file.h"
#include "base/input_file.h"
#include "base/limits.h"
#include "reports/escape.h"
#include "reports/run_results.h"
#include "reports/run_summary.h"
#include "reports/suite_record_reader.h"
#include "reports/suite_report.h"

namespace locksmith {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

// The few top-level facts of a results.json, streamed: "valid", the length
// of "anomalies" and "interrupted". Nothing else is kept, so a results.json
// with thousands of anomalies costs a scan, not a tree.
class ResultsFacts : public nlohmann::json_sax<json> {
 public:
  std::optional<std::string> verdict;
  int anomalies = 0;
  bool interrupted = false;

  bool null() override { return Scalar(); }
  bool boolean(bool v) override {
    if (depth_ == 1 && key_ == "valid") verdict = v ? "valid" : "invalid";
    if (depth_ == 1 && key_ == "interrupted") interrupted = v;
    return Scalar();
  }
  bool number_integer(number_integer_t) override { return Scalar(); }
  bool number_unsigned(number_unsigned_t) override { return Scalar(); }
  bool number_float(number_float_t, const string_t&) override { return Scalar(); }
  bool string(string_t& v) override {
    if (depth_ == 1 && key_ == "valid" && v == "unknown") verdict = "unknown";
    return Scalar();
  }
  bool binary(binary_t&) override { return Scalar(); }
  bool start_object(std::size_t) override { return Open(); }
  bool key(string_t& k) override {
    if (depth_ == 1) key_ = k;
    return true;
  }
  bool end_object() override { return Close(); }
  bool start_array(std::size_t) override { return Open(); }
  bool end_array() override { return Close(); }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    return false;
  }

 private:
  bool InAnomalies() const { return depth_ == 2 && key_ == "anomalies"; }
  bool Scalar() {
    if (InAnomalies()) ++anomalies;
    return true;
  }
  bool Open() {
    if (InAnomalies()) ++anomalies;
    ++depth_;
    return true;
  }
  bool Close() {
    --depth_;
    return true;
  }

  int depth_ = 0;
  std::string key_;  // the current top-level key
};

// The facts of a run's results.json, or why it is damaged.
Result<ResultsFacts> ReadResultsFacts(const std::string& path) {
  auto text = ReadInputFile(path, kMaxStoredJsonBytes);
  if (!text) return Error{text.error()};
  ResultsFacts facts;
  if (!json::sax_parse(*text, &facts)) return Error{path + ": not valid JSON"};
  if (!facts.verdict) return Error{path + ": not a run's results (no \"valid\" at its top)"};
  return facts;
}

void Warn(std::vector<std::string>* warnings, const std::string& line) {
  if (warnings != nullptr) warnings->push_back(line);
}

bool IsLink(const fs::path& p) {
  std::error_code ec;
  return fs::is_symlink(fs::symlink_status(p, ec));
}

std::string LinkWarning(const fs::path& p) {
  return p.string() + ": a symbolic link inside the store, not followed";
}

// The directories in `dir`. A link is never followed (it could take the
// index's reads outside the store): one line in `warnings` says so, but for
// the store's own `latest`.
std::vector<fs::path> SubDirs(const fs::path& dir, std::vector<std::string>* warnings) {
  std::vector<fs::path> dirs;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (IsLink(it->path())) {
      if (it->path().filename() != "latest") Warn(warnings, LinkWarning(it->path()));
      continue;
    }
    if (fs::is_directory(fs::symlink_status(it->path(), ec))) dirs.push_back(it->path());
  }
  return dirs;
}

// Whether a file the index reads is there; a link is not (and is said).
bool Exists(const fs::path& p, std::vector<std::string>* warnings = nullptr) {
  if (IsLink(p)) {
    Warn(warnings, LinkWarning(p));
    return false;
  }
  std::error_code ec;
  return fs::exists(p, ec);
}

// A run's entry. A damaged results.json or config.json is left out (and
// said in `warnings`): the entry shows what remains.
StoreEntry RunEntry(const fs::path& dir, const std::string& name, const std::string& stamp,
                    std::vector<std::string>* warnings) {
  StoreEntry e;
  e.kind = StoreEntry::Kind::kRun;
  e.name = name;
  e.stamp = stamp;
  e.dir = name + "/" + stamp;
  if (Exists(dir / "results.json", warnings)) {  // a run still going has none yet
    if (auto facts = ReadResultsFacts((dir / "results.json").string()); facts) {
      e.verdict = *facts->verdict;
      e.anomalies = facts->anomalies;
      e.interrupted = facts->interrupted;
    } else {
      Warn(warnings, facts.error());
    }
  }
  const std::string config_path = (dir / "config.json").string();
  auto config = IsLink(config_path) ? Result<nlohmann::json>(Error{LinkWarning(config_path)})
                                    : ReadJsonFile(config_path);
  if (config && !config->is_object()) config = Error{config_path + ": not a JSON object"};
  if (!config) {
    Warn(warnings, config.error());
  } else {
    const RunSummary s = RunSummary::FromConfig(*config);
    std::string client;
    if (auto it = config->find("client"); it != config->end() && it->is_string()) {
      client = it->get<std::string>();
    }
    auto part = [](const std::string& v) { return v.empty() ? std::string("-") : v; };
    e.details = part(s.backend) + (client.empty() ? "" : "/" + client) + " / " +
                part(s.workload) + " / " + part(s.nemesis.empty() ? "none" : s.nemesis);
    if (!s.time_limit.empty()) e.details += ", " + s.time_limit + " s";
  }
  if (Exists(dir / "report.html")) e.link = e.dir + "/report.html";
  return e;
}

// A suite's entry, from its summary.json read as `report SUITE_DIR` reads
// it; a damaged one is left out (and said in `warnings`).
StoreEntry SuiteEntry(const fs::path& dir, const std::string& name, const std::string& stamp,
                      std::vector<std::string>* warnings) {
  StoreEntry e;
  e.kind = StoreEntry::Kind::kSuite;
  e.name = name;
  e.stamp = stamp;
  e.dir = "suites/" + name + "/" + stamp;
  if (Exists(dir / "index.html")) e.link = e.dir + "/index.html";
  const std::string path = (dir / "summary.json").string();
  if (!Exists(path, warnings)) return e;  // the suite is only starting
  auto summary = ReadJsonFile(path);
  if (!summary) {
    Warn(warnings, summary.error());
    return e;
  }
  auto record = SuiteRecordFromJson(*summary);
  if (!record) {
    Warn(warnings, path + ": " + record.error());
    return e;
  }
  std::map<std::string, int> by_verdict;
  std::vector<int> codes;
  for (const SuiteRun& run : record->runs) {
    ++by_verdict[run.verdict];
    codes.push_back(run.exit_code);
  }
  if (!codes.empty()) {
    const int code = WorstExitCode(codes);
    e.verdict = code == 0 ? "valid" : code == 1 ? "invalid" : code == 2 ? "unknown" : "failed";
  }
  e.anomalies = by_verdict["invalid"];
  e.interrupted = !record->interrupted.empty();
  e.details = std::to_string(record->runs.size()) + " of " +
              std::to_string(record->planned_runs) + " runs";
  for (const char* v : {"invalid", "unknown", "failed"}) {
    if (by_verdict[v] > 0) e.details += ", " + std::to_string(by_verdict[v]) + " " + v;
  }
  return e;
}

}  // namespace

std::string StampText(const std::string& stamp) {
  if (stamp.size() >= 15 && stamp[8] == 'T') {
    return stamp.substr(0, 4) + "-" + stamp.substr(4, 2) + "-" + stamp.substr(6, 2) + " " +
           stamp.substr(9, 2) + ":" + stamp.substr(11, 2) + ":" + stamp.substr(13, 2) + " UTC";
  }
  return stamp;
}

std::vector<StoreEntry> ScanStore(const std::string& root, std::vector<std::string>* warnings) {
  std::vector<StoreEntry> entries;
  const fs::path base(root);
  for (const fs::path& name_dir : SubDirs(base, warnings)) {
    const std::string name = name_dir.filename().string();
    if (name == "suites") {
      for (const fs::path& suite_dir : SubDirs(name_dir, warnings)) {
        for (const fs::path& stamp_dir : SubDirs(suite_dir, warnings)) {
          entries.push_back(SuiteEntry(stamp_dir, suite_dir.filename().string(),
                                       stamp_dir.filename().string(), warnings));
        }
      }
      continue;
    }
    for (const fs::path& stamp_dir : SubDirs(name_dir, warnings)) {
      // A run directory has its config.json from its first moment on (a
      // linked one is said in the entry).
      if (!Exists(stamp_dir / "config.json") && !IsLink(stamp_dir / "config.json")) continue;
      entries.push_back(RunEntry(stamp_dir, name, stamp_dir.filename().string(), warnings));
    }
  }
  std::sort(entries.begin(), entries.end(), [](const StoreEntry& a, const StoreEntry& b) {
    if (a.stamp != b.stamp) return a.stamp > b.stamp;
    return a.dir < b.dir;
  });
  return entries;
}

std::string RenderStoreIndex(const std::vector<StoreEntry>& entries, const std::string& root) {
  int runs = 0, suites = 0;
  std::map<std::string, int> verdicts;
  for (const auto& e : entries) {
    (e.kind == StoreEntry::Kind::kRun ? runs : suites)++;
    ++verdicts[e.verdict];
  }
  std::ostringstream h;
  h << "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>locksmith store</title>"
    << IndexPageStyle() << "</head><body>\n<h1>locksmith store</h1>\n<p>" << HtmlEscape(root) << ": "
    << runs << (runs == 1 ? " run" : " runs") << " and " << suites
    << (suites == 1 ? " suite" : " suites")
    << ", newest first (a suite's own runs are listed in its index)";
  for (const auto& [verdict, n] : verdicts) h << "; " << n << " " << HtmlEscape(verdict);
  h << "</p>\n<table><tr><th>started</th><th>kind</th><th>name</th><th>verdict</th>"
       "<th>anomalies</th><th>what</th><th>directory</th></tr>\n";
  for (const auto& e : entries) {
    const bool run = e.kind == StoreEntry::Kind::kRun;
    std::string css = e.verdict;
    std::replace(css.begin(), css.end(), ' ', '-');
    h << "<tr class=\"" << HtmlEscape(css) << "\"><td>" << HtmlEscape(StampText(e.stamp))
      << "</td><td>" << (run ? "run" : "suite") << "</td><td>";
    if (!e.link.empty()) {
      h << "<a href=\"" << HrefOfPath(e.link) << "\">" << HtmlEscape(e.name) << "</a>";
    } else {
      h << HtmlEscape(e.name);
    }
    h << "</td><td>" << HtmlEscape(e.verdict)
      << (e.interrupted ? " <small>(interrupted)</small>" : "") << "</td><td>";
    if (e.verdict != "no verdict") {
      h << e.anomalies << (run ? "" : " invalid run" + std::string(e.anomalies == 1 ? "" : "s"));
    }
    h << "</td><td>" << HtmlEscape(e.details) << "</td><td><small>" << HtmlEscape(e.dir)
      << "</small></td></tr>\n";
  }
  h << "</table>\n</body></html>\n";
  return h.str();
}

Status WriteStoreIndex(const std::string& root, std::vector<std::string>* warnings) {
  return WriteFileAtomically(root + "/index.html",
                             RenderStoreIndex(ScanStore(root, warnings), root));
}

}  // namespace locksmith

#include "harness/trend_command.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>

#include "base/atomic_file.h"
#include "base/exit_codes.h"
#include "base/input_file.h"
#include "base/terminal_text.h"
#include "reports/escape.h"
#include "reports/run_results.h"
#include "reports/store_index.h"
#include "reports/suite_record_reader.h"

namespace locksmith {
namespace {

namespace fs = std::filesystem;

bool LooksLikeStamp(const std::string& name) {
  return name.size() >= 16 && name[8] == 'T' && std::isdigit(static_cast<unsigned char>(name[0]));
}

// The nights of a store's suites, by suite name, each by stamp.
std::map<std::string, std::vector<SuiteNight>> StoreNights(const fs::path& root,
                                                           const std::string& page_dir,
                                                           std::vector<std::string>& warnings) {
  std::map<std::string, std::vector<SuiteNight>> by_suite;
  std::error_code ec;
  for (fs::directory_iterator suites(root / "suites", ec), end; !ec && suites != end;
       suites.increment(ec)) {
    if (!IsRealDirectory(suites->path())) continue;
    std::vector<fs::path> stamps;
    std::error_code inner;
    for (fs::directory_iterator it(suites->path(), inner); !inner && it != end;
         it.increment(inner)) {
      if (IsRealDirectory(it->path()) && fs::exists(it->path() / "summary.json", inner)) {
        stamps.push_back(it->path());
      }
    }
    std::sort(stamps.begin(), stamps.end());
    for (const fs::path& dir : stamps) {
      auto night = ReadNight(dir.string(), page_dir);
      if (!night) {
        warnings.push_back(night.error());
        continue;
      }
      by_suite[night->record.name].push_back(std::move(*night));
    }
  }
  return by_suite;
}

std::string Plural(size_t n, const char* one) {
  return std::to_string(n) + " " + one + (n == 1 ? "" : "s");
}

nlohmann::json GroupBrief(const std::optional<RunGroup>& g) {
  if (!g) return nullptr;
  auto optional = [](const std::optional<double>& v) {
    return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
  };
  return {{"verdict", CellVerdict(*g)},
          {"runs", g->runs},
          {"judged", g->judged},
          {"violations", g->violations},
          {"wilson_95", {g->rate.low, g->rate.high}},
          {"median_acquire_p50_ms", optional(g->median_acquire_p50_ms)},
          {"median_acquire_p99_ms", optional(g->median_acquire_p99_ms)}};
}

void PrintChanges(const SuiteNight& old_night, const SuiteNight& new_night,
                  const std::vector<CellChange>& changes, std::ostream& out) {
  const auto regressed = std::count_if(changes.begin(), changes.end(),
                                       [](const CellChange& c) { return c.regression.any(); });
  out << "compare " << TerminalSafe(old_night.label) << " -> " << TerminalSafe(new_night.label)
      << ": ";
  if (changes.empty()) {
    out << "no cell changed\n";
    return;
  }
  out << Plural(changes.size(), "cell") << " changed, " << regressed << " regressed\n";
  for (const CellChange& c : changes) {
    out << (c.regression.any() ? "  REGRESSED " : "  changed   ") << TerminalSafe(c.cell);
    if (c.regression.any()) out << ": " << TerminalSafe(c.why);
    out << "\n";
    for (const std::string& change : c.changes) out << "    " << TerminalSafe(change) << "\n";
  }
}

}  // namespace

Result<SuiteNight> ReadNight(const std::string& path, const std::string& page_dir) {
  std::error_code ec;
  const bool dir = IsRealDirectory(path);
  const fs::path summary = dir ? fs::path(path) / "summary.json" : fs::path(path);
  if (!dir && !fs::exists(fs::symlink_status(summary, ec))) {
    return Error{"no such summary or suite directory: " + path};
  }
  auto json = ReadJsonFile(summary.string());
  if (!json) return Error{json.error()};
  auto record = SuiteRecordFromJson(*json);
  if (!record) return Error{summary.string() + ": " + record.error()};
  SuiteNight night;
  night.record = std::move(*record);
  const fs::path suite_dir = fs::absolute(summary, ec).parent_path();
  const std::string stamp = suite_dir.filename().string();
  night.label = LooksLikeStamp(stamp) ? StampText(stamp) : path;
  if (fs::is_regular_file(fs::symlink_status(suite_dir / "index.html", ec))) {
    const fs::path page = fs::absolute(page_dir, ec);
    night.link = fs::relative(suite_dir / "index.html", page, ec).generic_string();
    if (ec) night.link.clear();
  }
  return night;
}

Result<std::vector<TrendSection>> TrendSectionsOf(const std::vector<std::string>& inputs,
                                                  const std::string& page_dir,
                                                  std::vector<std::string>& warnings) {
  std::vector<TrendSection> sections;
  auto add = [&](SuiteNight night) {
    auto it = std::find_if(sections.begin(), sections.end(), [&](const TrendSection& s) {
      return s.suite == night.record.name;
    });
    if (it == sections.end()) it = sections.insert(sections.end(), {night.record.name, {}});
    it->nights.push_back(std::move(night));
  };
  for (const std::string& input : inputs) {
    std::error_code ec;
    if (IsRealDirectory(input) && !fs::exists(fs::path(input) / "summary.json", ec) &&
        IsRealDirectory(fs::path(input) / "suites")) {
      for (auto& [suite, nights] : StoreNights(input, page_dir, warnings)) {
        for (auto& night : nights) add(std::move(night));
      }
      continue;
    }
    auto night = ReadNight(input, page_dir);
    if (!night) return Error{night.error()};
    add(std::move(*night));
  }
  if (sections.empty()) return Error{"no suite summary found in the inputs given"};
  for (TrendSection& s : sections) {
    if (s.nights.size() <= kMaxTrendNights) continue;
    warnings.push_back("suite " + s.suite + ": drawing the newest " +
                       std::to_string(kMaxTrendNights) + " of " +
                       std::to_string(s.nights.size()) + " nights");
    s.nights.erase(s.nights.begin(), s.nights.end() - kMaxTrendNights);
  }
  return sections;
}

int WriteTrend(const std::string& out_dir, const std::vector<std::string>& inputs,
               std::ostream& out, std::ostream& err) {
  std::error_code ec;
  if (fs::is_symlink(out_dir, ec)) {
    err << "locksmith: trend: " << TerminalSafe(out_dir) << " is a symbolic link\n";
    return kExitBadInput;
  }
  std::vector<std::string> warnings;
  auto sections = TrendSectionsOf(inputs, out_dir, warnings);
  for (const auto& w : warnings) err << "locksmith: warning: " << TerminalSafe(w) << "\n";
  if (!sections) {
    err << "locksmith: trend: " << TerminalSafe(sections.error()) << "\n";
    return kExitBadInput;
  }
  fs::create_directories(out_dir, ec);
  const std::string page = (fs::path(out_dir) / "trend.html").string();
  if (Status s = WriteFileAtomically(page, RenderTrendPage(*sections)); !s) {
    err << "locksmith: trend: " << TerminalSafe(s.error()) << "\n";
    return kExitRunFailed;
  }
  for (const TrendSection& s : *sections) {
    std::vector<const SuiteRecord*> nights;
    for (const SuiteNight& n : s.nights) nights.push_back(&n.record);
    out << "suite " << TerminalSafe(s.suite) << ": " << Plural(s.nights.size(), "night");
    for (const CellChange& c : CompareNights(nights)) {
      if (c.regression.any()) out << "\n  REGRESSED " << TerminalSafe(c.cell + ": " + c.why);
    }
    out << "\n";
  }
  out << "trend: " << TerminalSafe(page) << "\n";
  return 0;
}

nlohmann::json CompareJson(const SuiteNight& old_night, const SuiteNight& new_night,
                           const std::vector<CellChange>& changes) {
  nlohmann::json cells = nlohmann::json::array();
  int regressed = 0;
  for (const CellChange& c : changes) {
    regressed += c.regression.any();
    cells.push_back({{"cell", c.cell},
                     {"regressed", c.regression.any()},
                     {"rate_rose", c.regression.rate_rose},
                     {"newly_violating", c.regression.newly_violating},
                     {"why", c.why},
                     {"changes", c.changes},
                     {"old", GroupBrief(c.before)},
                     {"new", GroupBrief(c.now)}});
  }
  return {{"old", old_night.label}, {"new", new_night.label},
          {"old_suite", old_night.record.name}, {"new_suite", new_night.record.name},
          {"changed", changes.size()}, {"regressed", regressed}, {"cells", cells}};
}

int CompareSummaries(const std::string& old_path, const std::string& new_path, bool json,
                     std::ostream& out, std::ostream& err) {
  auto old_night = ReadNight(old_path, ".");
  auto new_night = old_night ? ReadNight(new_path, ".") : old_night;
  if (!old_night || !new_night) {
    err << "locksmith: compare: "
        << TerminalSafe(!old_night ? old_night.error() : new_night.error()) << "\n";
    return kExitBadInput;
  }
  old_night->label = old_path;
  new_night->label = new_path;
  if (old_night->record.name != new_night->record.name) {
    err << "locksmith: warning: comparing suite " << TerminalSafe(old_night->record.name)
        << " with suite " << TerminalSafe(new_night->record.name) << "\n";
  }
  const auto changes = CompareNights({&old_night->record, &new_night->record});
  if (json) {
    out << DumpJson(CompareJson(*old_night, *new_night, changes), 2) << "\n";
  } else {
    PrintChanges(*old_night, *new_night, changes, out);
  }
  const bool regressed = std::any_of(changes.begin(), changes.end(),
                                     [](const CellChange& c) { return c.regression.any(); });
  return regressed ? 1 : 0;
}

}  // namespace locksmith

#include "harness/run_flag_table.h"

#include <algorithm>
#include <stdexcept>

#include "base/option_set.h"
#include "harness/run_config.h"

namespace locksmith {
namespace {

// A switch's flag takes no value: given, it turns its option on, so a
// switch is off unless given.
std::string ShownDefault(const OptionSpec& spec, const std::string& default_text) {
  return spec.kind == OptionKind::kFlag ? "off" : default_text;
}

bool HasRowFor(const std::vector<RunFlagRow>& rows, const std::string& flag) {
  return std::any_of(rows.begin(), rows.end(),
                     [&](const RunFlagRow& row) { return row.flag == flag; });
}

// Adds `row` to the module rows: to the owners of a row with the same flag,
// meaning and default, or as a new row after the last one of its flag.
void AddModuleRow(std::vector<RunFlagRow>& rows, RunFlagRow row) {
  auto last_of_flag = rows.end();
  for (auto it = rows.begin(); it != rows.end(); ++it) {
    if (it->flag != row.flag) continue;
    if (it->meaning == row.meaning && it->default_text == row.default_text) {
      it->owners += ", " + row.owners;
      return;
    }
    last_of_flag = it;
  }
  if (last_of_flag == rows.end()) {
    rows.push_back(std::move(row));
  } else {
    rows.insert(last_of_flag + 1, std::move(row));
  }
}

// One table cell: a '|' would end the cell and '<' open an HTML tag.
std::string Cell(const std::string& text) {
  std::string cell;
  for (char c : text) {
    if (c == '|') {
      cell += "\\|";
    } else if (c == '<') {
      cell += "&lt;";
    } else if (c == '>') {
      cell += "&gt;";
    } else {
      cell += c;
    }
  }
  return cell;
}

// Code in a cell: only '|' needs escaping there (entities are not decoded).
std::string Code(const std::string& text) {
  if (text.empty()) return "";
  std::string code = "`";
  for (char c : text) code += c == '|' ? std::string("\\|") : std::string(1, c);
  return code + "`";
}

}  // namespace

const std::vector<RunFlagRow>& RunOwnFlags() {
  static const std::vector<RunFlagRow> kFlags = {
      {"--scenario", "common", "",
       "run scenario NAME of the library (locksmith scenarios lists them); other flags "
       "override its keys"},
      {"--config", "common", "",
       "JSON scenario/config file (keys as the flags: \"concurrency\", \"hold\", ...); flags "
       "override it; a run's config.json replays that run. A regular file of at most 1 MiB; "
       "\"description\" at most 4096 bytes, \"scenario\" 64"},
      {"--seed", "common", "random, logged", "seed for every random choice"},
      {"--test-count", "common", "1",
       "K runs, the first with --seed, the others with seeds derived from it; prints "
       "violations in k of K runs with a Wilson 95% interval and writes index.html, "
       "summary.json and junit.xml under STORE/suites/"},
  };
  return kFlags;
}

const RunFlagRow& RunOwnFlag(std::string_view flag) {
  for (const auto& row : RunOwnFlags()) {
    if (row.flag == flag) return row;
  }
  throw std::logic_error("not a flag run parses itself: " + std::string(flag));
}

std::string HelpLine(const RunFlagRow& row) {
  if (row.default_text.empty()) return row.meaning;
  return row.meaning + " [default: " + row.default_text + "]";
}

std::vector<RunFlagRow> RunFlagRows() {
  std::vector<RunFlagRow> rows = RunOwnFlags();
  RunConfig defaults;
  OptionSet common;
  defaults.Declare(common);
  for (const auto& spec : common.Specs()) {
    if (spec.flag.empty()) continue;
    rows.push_back({spec.flag, "common", ShownDefault(spec, common.DefaultText(spec)),
                    OptionMeaning(spec)});
  }
  // As `run --help`: a module flag that is a common one is the common one.
  std::vector<RunFlagRow> module_rows;
  for (const auto& m : ModuleKeys()) {
    if (m.spec.flag.empty() || HasRowFor(rows, m.spec.flag)) continue;
    AddModuleRow(module_rows, {m.spec.flag, m.kind + " " + m.name,
                               ShownDefault(m.spec, m.default_text), OptionMeaning(m.spec)});
  }
  rows.insert(rows.end(), module_rows.begin(), module_rows.end());
  return rows;
}

std::string MarkdownFlagTable(const std::vector<RunFlagRow>& rows) {
  std::string table = "| flag | module | default | meaning |\n|---|---|---|---|\n";
  for (const auto& row : rows) {
    table += "| " + Code(row.flag) + " | " + Cell(row.owners) + " | " + Code(row.default_text) +
             " | " + Cell(row.meaning) + " |\n";
  }
  return table;
}

}  // namespace locksmith

// RunFlagTable: every flag of `locksmith run` as rows of data (the flag,
// whose it is, its default, what it means), built from the declarations
// `run --help` is built from: the few flags the CLI parses itself
// (RunOwnFlags), RunConfig's common options and every registered module's
// options (ModuleKeys). `locksmith run --help-markdown` prints the rows as
// the Markdown table docs/running.md holds, so that reference cannot drift
// from the binary (tests/run_cli_test.cc compares them;
// scripts/gen-flag-doc.sh rewrites it). Free functions; thread-safe (the
// registries are immutable).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace locksmith {

struct RunFlagRow {
  std::string flag;          // "--lease"
  std::string owners;        // "common", or "workload mutex, workload inventory"
  std::string default_text;  // as --help shows it; "off" for a switch; "" when none
  std::string meaning;       // the declared help with its choices, without the default
};

// The flags `run` parses itself rather than from a declared option:
// --scenario, --config, --seed and --test-count.
const std::vector<RunFlagRow>& RunOwnFlags();
// The row of one of RunOwnFlags(); any other flag is a programming error.
const RunFlagRow& RunOwnFlag(std::string_view flag);
// A row's help line as `run --help` prints it: "meaning [default: d]".
std::string HelpLine(const RunFlagRow& row);

// Every run flag: its own flags, the common options, then each module's in
// registry order. A flag that several modules declare with one meaning and
// default is one row naming them all; one they declare differently
// (--read-fraction: 0 for mutex, 0.8 for rw-cache) has a row for each, next
// to each other.
std::vector<RunFlagRow> RunFlagRows();

// `rows` as a Markdown table (flag | module | default | meaning), one row a
// line, every cell escaped so a '|' or '<' in a help text cannot break it.
std::string MarkdownFlagTable(const std::vector<RunFlagRow>& rows);

}  // namespace locksmith

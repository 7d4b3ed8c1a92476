// StoreIndex: store/index.html, the static equivalent of `jepsen serve`: every
// run and every suite in a store, newest first, with its verdict, each
// linking to its report.html or the suite's index.html. A store holds runs
// at ROOT/NAME/STAMP/ and suites at ROOT/suites/NAME/STAMP/ (their runs live
// inside the suite's directory and are listed by its own index). Built from
// each run's config.json and results.json (the verdict and the anomaly count
// are streamed out of results.json without building a tree) and each
// suite's summary.json (read as `report SUITE_DIR` reads it): never a history, so a store of thousands of runs
// indexes in well under a second. Every value shown is escaped. Free
// functions; thread-safe, but two writers of one store race on the file
// (each write is atomic: the last one wins).
#pragma once

#include <string>
#include <vector>

#include "base/result.h"

namespace locksmith {

struct StoreEntry {
  enum class Kind { kRun, kSuite };
  Kind kind = Kind::kRun;
  std::string name;   // the test or suite name (the NAME directory)
  std::string stamp;  // the STAMP directory: a UTC time, so newest sorts last
  std::string dir;    // relative to the store root: "NAME/STAMP", "suites/NAME/STAMP"
  // "valid", "invalid", "unknown", "failed" (a suite with a failed run) or
  // "no verdict" (no results.json: still running, or it failed before the check).
  std::string verdict = "no verdict";
  int anomalies = 0;     // a run's anomalies; a suite's invalid runs
  bool interrupted = false;
  std::string details;   // "redis / mutex / kill", "3 of 4 runs, 1 invalid, 1 unknown"
  std::string link;      // the page to open, relative to the root; empty when none exists
};

// Every run and suite under `root`, newest first. Unreadable or foreign
// directories are skipped, never an error; a missing root is an empty list.
// A damaged file (a results.json, config.json or summary.json that is not a
// regular file, too large, not JSON, nested too deep, or of the wrong shape
// or types) is left out of its entry, which shows what remains ("no
// verdict"), and `warnings` (when given) gets one line naming the file: one
// file someone broke never stops the index.
std::vector<StoreEntry> ScanStore(const std::string& root,
                                  std::vector<std::string>* warnings = nullptr);

// "20261124T035720.389Z" -> "2026-11-24 03:57:20 UTC"; other names as they are.
std::string StampText(const std::string& stamp);

// The page, with links relative to the store root.
std::string RenderStoreIndex(const std::vector<StoreEntry>& entries, const std::string& root);

// ScanStore + RenderStoreIndex, written atomically to root/index.html.
Status WriteStoreIndex(const std::string& root, std::vector<std::string>* warnings = nullptr);

}  // namespace locksmith

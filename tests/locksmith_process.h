// LocksmithProcess: runs the locksmith binary as a child for end-to-end
// tests, with its stdout/stderr captured to files, and finds what a run may
// have left behind (namespaces, links, iptables rules, nftables tables,
// processes). Test-only;
// not thread-safe.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/testing/temp_dir.h"
#include "history/history.h"
#include "history/history_log.h"

namespace locksmith::testing {

class LocksmithProcess {
 public:
  // Starts `locksmith args...` in `dir` (stdout to dir/stdout.txt).
  LocksmithProcess(const std::string& dir, const std::vector<std::string>& args);
  ~LocksmithProcess();  // SIGKILLs the child if it still runs

  pid_t pid() const { return pid_; }
  // Waits for the exit code; nullopt on timeout (the child keeps running).
  std::optional<int> Wait(std::chrono::seconds timeout);
  void Signal(int sig);
  std::string Stdout() const;
  std::string Stderr() const;

 private:
  std::string dir_;
  pid_t pid_ = -1;
  bool reaped_ = false;
};

// A `locksmith run` that ended: exit code, stdout, run directory, and what
// it wrote.
struct FinishedRun {
  int code = -1;
  std::string out;
  std::string run;  // gone with its temporary directory once RunAndLoad returns
  nlohmann::json config;
  nlohmann::json results;
  History history;
  std::string log;  // the run's locksmith.log
};
// Runs `locksmith run <flags> --store store` in a fresh temp dir, loads its
// results and history, and checks that nothing of the run is left.
FinishedRun RunAndLoad(const std::vector<std::string>& flags, std::chrono::seconds timeout);
// The run's anomalies by class ("unsafe-grant", "expired-lease-use").
std::map<std::string, int> AnomalyClasses(const nlohmann::json& results);
// counts[key], 0 when absent (AnomalyClasses' classes).
int Count(const std::map<std::string, int>& counts, const std::string& key);
// How many client ops of `f` completed as `type`.
int Count(const History& history, const std::string& f, OpType type);
// The workers (process numbers modulo `concurrency`: a worker whose client
// ended in `info` goes on under the next number) with at least one client
// op of `f` completed as `type`. "Every worker acquired and released" is
// what a no-fault run must show, however slowly a loaded machine ran it.
std::set<int64_t> WorkersWith(const History& history, const std::string& f, OpType type,
                              int concurrency);
// A counter of the client-stats checker (an exec client's "program_stops"),
// -1 when the run's results do not have it.
int64_t ClientStat(const nlohmann::json& results, const std::string& name);
// The completions of the nemesis's `f` ops (each an info op with what was
// done, or an error), in history order.
std::vector<Op> NemesisDone(const History& history, const std::string& f);
// The fault families whose window-opening op completed without an error.
std::set<std::string> FamiliesStruck(const History& history);

// Runs locksmith to completion and returns its exit code (-1 on timeout).
int RunLocksmith(const std::string& dir, const std::vector<std::string>& args,
                 std::chrono::seconds timeout, std::string* out = nullptr);

// The run directory store/latest points at, and its files.
std::string LatestRun(const std::string& store);
nlohmann::json ReadJson(const std::string& path);
// Writes `config` as <dir>/<name> and returns its path, for --config.
std::string WriteConfigFile(const std::string& dir, const nlohmann::json& config,
                            const std::string& name = "config.json");
std::string ReadText(const std::string& path);
// The cluster tag the run logged ("cluster <tag>: ..."), or "".
std::string RunTag(const std::string& run_dir);
// Everything of run `tag` / `run_dir` still present: namespaces and links
// whose name carries the tag, root iptables rules naming it, its nftables
// guard table, and processes
// whose command line or working directory is in the run directory. Empty when all is gone.
std::vector<std::string> Leftovers(const std::string& tag, const std::string& run_dir);
// Waits until the file has at least `lines` lines; false on timeout.
// Fails the test (EXPECT) when the run left anything behind (Leftovers).
void ExpectNothingLeft(const std::string& run_dir);

bool WaitForLines(const std::string& path, size_t lines, std::chrono::seconds timeout);
// Waits until the run's history (RunHistoryFile) holds at least `ops` whole
// ops; false on timeout.
bool WaitForOps(const std::string& run_dir, size_t ops, std::chrono::seconds timeout);
// The run's history as JSON lines, as `locksmith export` writes it ("" when
// it cannot be read).
std::string HistoryJsonl(const std::string& run_dir);
// Waits until the file contains `text`, polling every millisecond (to act
// within a short phase of a run); false on timeout.
bool WaitForText(const std::string& path, const std::string& text, std::chrono::seconds timeout);

}  // namespace locksmith::testing

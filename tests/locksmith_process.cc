#include "tests/locksmith_process.h"


#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "history/history_file.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

namespace locksmith::testing {
namespace fs = std::filesystem;

LocksmithProcess::LocksmithProcess(const std::string& dir, const std::vector<std::string>& args)
    : dir_(dir) {
  std::vector<std::string> argv{LOCKSMITH_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  pid_ = fork();
  if (pid_ == 0) {
    // The test runner may block signals; the child must see SIGINT.
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    if (chdir(dir.c_str()) != 0) _exit(127);
    int out = open("stdout.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int err = open("stderr.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(out, 1);
    dup2(err, 2);
    std::vector<char*> cargv;
    for (auto& a : argv) cargv.push_back(a.data());
    cargv.push_back(nullptr);
    execv(cargv[0], cargv.data());
    _exit(127);
  }
}

LocksmithProcess::~LocksmithProcess() {
  if (pid_ > 0 && !reaped_) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
}

std::optional<int> LocksmithProcess::Wait(std::chrono::seconds timeout) {
  const auto until = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < until) {
    int status = 0;
    pid_t r = waitpid(pid_, &status, WNOHANG);
    if (r == pid_) {
      reaped_ = true;
      if (WIFEXITED(status)) return WEXITSTATUS(status);
      return 128 + WTERMSIG(status);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return std::nullopt;
}

void LocksmithProcess::Signal(int sig) { kill(pid_, sig); }
std::string LocksmithProcess::Stdout() const { return ReadText(dir_ + "/stdout.txt"); }
std::string LocksmithProcess::Stderr() const { return ReadText(dir_ + "/stderr.txt"); }

int RunLocksmith(const std::string& dir, const std::vector<std::string>& args,
                 std::chrono::seconds timeout, std::string* out) {
  LocksmithProcess p(dir, args);
  auto code = p.Wait(timeout);
  if (out != nullptr) *out = p.Stdout() + p.Stderr();
  return code.value_or(-1);
}

std::string LatestRun(const std::string& store) {
  std::error_code ec;
  auto target = fs::canonical(fs::path(store) / "latest", ec);
  return ec ? "" : target.string();
}

std::string ReadText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

FinishedRun RunAndLoad(const std::vector<std::string>& flags, std::chrono::seconds timeout) {
  TempDir dir;
  // Searchable (not readable) by others: a server that runs as a system user
  // of its own (mariadbd as mysql) must reach its data in the run directory.
  fs::permissions(dir.path(), fs::perms::others_exec, fs::perm_options::add);
  FinishedRun f;
  std::vector<std::string> args = {"run", "--store", "store"};
  args.insert(args.end(), flags.begin(), flags.end());
  f.code = RunLocksmith(dir.path(), args, timeout, &f.out);
  f.run = LatestRun(dir.path() + "/store");
  f.config = ReadJson(f.run + "/config.json");
  f.results = ReadJson(f.run + "/results.json");
  f.log = ReadText(f.run + "/locksmith.log");
  auto history = LoadHistoryFile(RunHistoryFile(f.run), "jsonl", nullptr);
  EXPECT_TRUE(history.ok()) << history.error();
  if (history.ok()) f.history = *history;
  ExpectNothingLeft(f.run);
  return f;
}

std::map<std::string, int> AnomalyClasses(const nlohmann::json& results) {
  std::map<std::string, int> classes;
  for (const auto& a : results["anomalies"]) ++classes[a.value("class", "")];
  return classes;
}

int Count(const std::map<std::string, int>& counts, const std::string& key) {
  auto it = counts.find(key);
  return it == counts.end() ? 0 : it->second;
}

int Count(const History& history, const std::string& f, OpType type) {
  int n = 0;
  for (const Op& op : history) n += op.is_client() && op.f == f && op.type == type;
  return n;
}

std::set<int64_t> WorkersWith(const History& history, const std::string& f, OpType type,
                              int concurrency) {
  std::set<int64_t> workers;
  for (const Op& op : history) {
    if (op.is_client() && op.f == f && op.type == type) workers.insert(op.process % concurrency);
  }
  return workers;
}

int64_t ClientStat(const nlohmann::json& results, const std::string& name) {
  const auto& stats = results["stats"]["client-stats"]["stats"];
  return stats.contains(name) ? stats[name].get<int64_t>() : -1;
}

std::vector<Op> NemesisDone(const History& history, const std::string& f) {
  std::vector<Op> done;
  for (const Op& op : history) {
    if (op.is_nemesis() && op.type == OpType::kInfo && op.f == f) done.push_back(op);
  }
  return done;
}

std::set<std::string> FamiliesStruck(const History& history) {
  std::set<std::string> struck;
  for (const Op& op : history) {
    if (!op.is_nemesis() || op.type != OpType::kInfo || !op.error.empty()) continue;
    auto mark = FaultMarkFromJson(op.fault);
    if (mark.ok() && mark->begins) struck.insert(mark->family);
  }
  return struck;
}

std::string WriteConfigFile(const std::string& dir, const nlohmann::json& config,
                            const std::string& name) {
  const std::string path = dir + "/" + name;
  std::ofstream(path) << config.dump(2);
  return path;
}

nlohmann::json ReadJson(const std::string& path) {
  return nlohmann::json::parse(ReadText(path), nullptr, false);
}

std::string RunTag(const std::string& run_dir) {
  std::istringstream log(ReadText(run_dir + "/locksmith.log"));
  for (std::string line; std::getline(log, line);) {
    auto at = line.find(" cluster ");
    if (at == std::string::npos) continue;
    std::string rest = line.substr(at + 9);
    return rest.substr(0, rest.find(':'));
  }
  return "";
}

namespace {

std::string Capture(const std::string& command) {
  std::string out;
  FILE* p = popen(command.c_str(), "r");  // fixed commands only, no input in them
  if (p == nullptr) return out;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
  pclose(p);
  return out;
}

std::vector<std::string> LinesContaining(const std::string& text, const std::string& needle) {
  std::vector<std::string> hits;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.find(needle) != std::string::npos) hits.push_back(line);
  }
  return hits;
}

}  // namespace

std::vector<std::string> Leftovers(const std::string& tag, const std::string& run_dir) {
  std::vector<std::string> left;
  if (!tag.empty()) {
    const std::string name = "lsm-" + tag;
    for (auto& l : LinesContaining(Capture("ip netns list 2>/dev/null"), name)) left.push_back("netns " + l);
    for (auto& l : LinesContaining(Capture("ip -o link show 2>/dev/null"), name)) left.push_back("link " + l);
    for (auto& l : LinesContaining(Capture("iptables-save 2>/dev/null"), tag)) left.push_back("iptables " + l);
    for (auto& l : LinesContaining(Capture("nft list tables 2>/dev/null"), name)) left.push_back("nft " + l);
  }
  for (const auto& entry : fs::directory_iterator("/proc")) {
    const std::string pid = entry.path().filename();
    if (pid.find_first_not_of("0123456789") != std::string::npos) continue;
    std::string cmdline = ReadText(entry.path().string() + "/cmdline");
    for (char& c : cmdline) {
      if (c == '\0') c = ' ';
    }
    // Servers rewrite their titles (redis-server shows only its address), so
    // their working directory, which is inside the run directory, counts too.
    std::error_code ec;
    const std::string cwd = fs::read_symlink(entry.path() / "cwd", ec).string();
    if (cmdline.find(run_dir) != std::string::npos || cwd.rfind(run_dir, 0) == 0) {
      left.push_back("process " + pid + ": " + cmdline + " (cwd " + cwd + ")");
    }
  }
  return left;
}

bool WaitForLines(const std::string& path, size_t lines, std::chrono::seconds timeout) {
  const auto until = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < until) {
    const std::string text = ReadText(path);
    if (static_cast<size_t>(std::count(text.begin(), text.end(), '\n')) >= lines) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return false;
}

bool WaitForOps(const std::string& run_dir, size_t ops, std::chrono::seconds timeout) {
  const auto until = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < until) {
    auto history = LoadHistoryFile(RunHistoryFile(run_dir), "jsonl", nullptr);
    if (history && history->size() >= ops) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return false;
}

std::string HistoryJsonl(const std::string& run_dir) {
  auto history = LoadHistoryFile(RunHistoryFile(run_dir), "jsonl", nullptr);
  std::string text;
  if (!history) return text;
  for (const Op& op : *history) text += OpToJsonLine(op) + "\n";
  return text;
}

bool WaitForText(const std::string& path, const std::string& text, std::chrono::seconds timeout) {
  const auto until = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < until) {
    if (ReadText(path).find(text) != std::string::npos) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return false;
}

void ExpectNothingLeft(const std::string& run_dir) {
  const std::string tag = RunTag(run_dir);
  if (geteuid() == 0) {
    EXPECT_FALSE(tag.empty()) << "no cluster tag in the run's log";
  }
  auto left = Leftovers(tag, run_dir);
  EXPECT_TRUE(left.empty()) << "left behind: " << left.front();
}

}  // namespace locksmith::testing

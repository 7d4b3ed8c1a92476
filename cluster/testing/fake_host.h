// FakeHost (test-only): a Host that runs nothing. It records every call
// (spawns with the environment they would get, signals, kills, file writes,
// directories, execs), keeps files in memory, hands out fake pids that stay
// "alive" until killed, SIGKILLed or Exit()ed, and fails any operation on
// demand, so lifecycle and nemesis logic can be unit-tested without root or
// servers. Like a real host it refuses pids it did not start and paths
// outside its directory. Attached to a FakeNet (AttachNet), the host has a
// network of its own: Exec of `iptables ...` (and of `iptables-restore
// --noflush FILE` of a file written to the host) runs in its namespace there, so
// a partition's rules decide FakeNet::Reachable. Thread-safe (one mutex), as
// the Host contract asks: tests call it from several threads.
#pragma once

#include <signal.h>

#include <algorithm>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "cluster/host.h"
#include "cluster/testing/fake_net.h"

namespace locksmith::testing {

class FakeHost : public Host {
 public:
  // The operations a test can make fail.
  enum class Op {
    kSpawn, kSignal, kKill, kExec, kWriteFile, kReadFile, kMakeDirectory, kRemoveFile
  };

  struct Spawned {
    int pid = 0;
    ProcessSpec spec;  // env: the host's spawn environment, then the spec's own
  };
  struct Signalled {
    int pid = 0;
    int signal = 0;
  };

  explicit FakeHost(std::string name, std::string address = "127.0.0.1", bool own_network = false)
      : name_(std::move(name)),
        address_(std::move(address)),
        dir_("/fake-hosts/" + name_),
        own_network_(own_network) {}

  // --- Host.
  const std::string& Name() const override { return name_; }
  const std::string& Address() const override { return address_; }
  int ServicePort(int preferred) override {
    std::lock_guard lock(mu_);
    auto it = ports_.find(preferred);
    return it == ports_.end() ? preferred : it->second;
  }
  bool HasOwnNetwork() const override {
    std::lock_guard lock(mu_);
    return own_network_;
  }
  const std::string& Directory() const override { return dir_; }

  Status WriteFile(const std::string& path, std::string_view content) override {
    std::lock_guard lock(mu_);
    if (auto s = ValidateHostPath(path); !s.ok()) return s;
    if (auto e = TakeFailure(Op::kWriteFile)) return Error{*e};
    writes_.emplace_back(path, std::string(content));
    files_[path] = std::string(content);
    return OkStatus();
  }
  Result<std::string> ReadFile(const std::string& path, size_t max_bytes) override {
    std::lock_guard lock(mu_);
    if (auto s = ValidateHostPath(path); !s.ok()) return Error{s.error()};
    if (auto e = TakeFailure(Op::kReadFile)) return Error{*e};
    auto it = files_.find(path);
    if (it == files_.end()) return Error{"host " + name_ + ": no file " + path};
    const std::string& all = it->second;
    return all.substr(all.size() - std::min(all.size(), max_bytes));
  }
  Status RemoveFile(const std::string& path) override {
    std::lock_guard lock(mu_);
    if (auto s = ValidateHostPath(path); !s.ok()) return s;
    if (auto e = TakeFailure(Op::kRemoveFile)) return Error{*e};
    files_.erase(path);
    return OkStatus();
  }
  Status MakeDirectory(const std::string& path) override {
    std::lock_guard lock(mu_);
    if (auto s = ValidateHostPath(path); !s.ok()) return s;
    if (auto e = TakeFailure(Op::kMakeDirectory)) return Error{*e};
    directories_.insert(path);
    return OkStatus();
  }

  Status SetSpawnEnv(const std::string& entry) override {
    if (auto s = ValidateEnvEntry(entry); !s.ok()) return s;
    std::lock_guard lock(mu_);
    const std::string key = entry.substr(0, entry.find('=') + 1);
    std::erase_if(spawn_env_, [&](const std::string& e) { return e.rfind(key, 0) == 0; });
    spawn_env_.push_back(entry);
    return OkStatus();
  }
  std::vector<std::string> SpawnEnv() const override {
    std::lock_guard lock(mu_);
    return spawn_env_;
  }

  Result<int> Spawn(const ProcessSpec& spec) override {
    std::function<void(int)> hook;
    int pid = 0;
    {
      std::lock_guard lock(mu_);
      if (auto e = TakeFailure(Op::kSpawn)) return Error{"host " + name_ + ": " + *e};
      if (torn_down_) return Error{"host " + name_ + ": the cluster is torn down"};
      pid = next_pid_++;
      ProcessSpec recorded = spec;
      recorded.env = spawn_env_;
      recorded.env.insert(recorded.env.end(), spec.env.begin(), spec.env.end());
      spawns_.push_back({pid, std::move(recorded)});
      live_.insert(pid);
      hook = on_spawn_;
    }
    if (hook) hook(pid);  // outside the lock: the hook may call back into the host
    return pid;
  }
  Status Signal(int pid, int signal) override {
    std::lock_guard lock(mu_);
    if (auto s = CheckOwn(pid); !s.ok()) return s;
    if (auto e = TakeFailure(Op::kSignal)) return Error{*e};
    if (!live_.contains(pid)) return Error{"process " + std::to_string(pid) + " has exited"};
    signals_.push_back({pid, signal});
    if (signal == SIGSTOP) stopped_.insert(pid);
    if (signal == SIGCONT) stopped_.erase(pid);
    if (signal == SIGKILL) Exited(pid);
    return OkStatus();
  }
  Status Kill(int pid) override {
    std::lock_guard lock(mu_);
    if (auto s = CheckOwn(pid); !s.ok()) return s;
    if (auto e = TakeFailure(Op::kKill)) return Error{*e};
    kills_.push_back(pid);
    Exited(pid);
    return OkStatus();
  }
  bool Alive(int pid) override {
    std::lock_guard lock(mu_);
    return live_.contains(pid);
  }
  Result<ExecResult> Exec(const std::vector<std::string>& argv,
                          std::chrono::milliseconds /*timeout*/) override {
    std::lock_guard lock(mu_);
    if (auto e = TakeFailure(Op::kExec)) return Error{*e};
    execs_.push_back(argv);
    if (net_ != nullptr && !argv.empty() && argv[0] == "iptables") {
      Status s = net_->Iptables(netns_, {argv.begin() + 1, argv.end()});
      return ExecResult{s.ok() ? 0 : 1, s.ok() ? "" : s.error()};
    }
    // iptables-restore [-w] --noflush FILE, FILE a path in this host's
    // directory.
    if (net_ != nullptr && argv.size() >= 3 && argv[0] == "iptables-restore" &&
        std::find(argv.begin(), argv.end(), "--noflush") != argv.end()) {
      const std::string prefix = dir_ + "/";
      const std::string& path = argv.back();
      auto file = path.rfind(prefix, 0) == 0 ? files_.find(path.substr(prefix.size()))
                                             : files_.end();
      if (file == files_.end()) return ExecResult{2, "iptables-restore: cannot open " + path};
      Status s = net_->IptablesRestore(netns_, file->second);
      return ExecResult{s.ok() ? 0 : 1, s.ok() ? "" : s.error()};
    }
    return exec_result_;
  }

  // --- Test controls.
  // The host lives in namespace `netns` of `net` (which must outlive it):
  // HasOwnNetwork() becomes true and `iptables` Execs run there.
  void AttachNet(FakeNet* net, std::string netns) {
    std::lock_guard lock(mu_);
    net_ = net;
    netns_ = std::move(netns);
    own_network_ = true;
  }
  const std::string& netns() const { return netns_; }  // set before use by other threads
  // The next `times` calls of `op` fail with `error` (times < 0: every call).
  void Fail(Op op, std::string error, int times = -1) {
    std::lock_guard lock(mu_);
    failures_[op] = {std::move(error), times};
  }
  void ClearFailures() {
    std::lock_guard lock(mu_);
    failures_.clear();
  }
  // ServicePort(preferred) answers `port` (default: `preferred` itself).
  void SetPort(int preferred, int port) {
    std::lock_guard lock(mu_);
    ports_[preferred] = port;
  }
  // Called with each new pid after Spawn recorded it, outside the host's lock.
  void OnSpawn(std::function<void(int pid)> hook) {
    std::lock_guard lock(mu_);
    on_spawn_ = std::move(hook);
  }
  // What every Exec returns.
  void SetExecResult(ExecResult result) {
    std::lock_guard lock(mu_);
    exec_result_ = std::move(result);
  }
  // The process exits by itself (a crash, a bad config).
  void Exit(int pid) {
    std::lock_guard lock(mu_);
    Exited(pid);
  }
  // A file as if a server had written it (a log).
  void PutFile(const std::string& path, std::string content) {
    std::lock_guard lock(mu_);
    files_[path] = std::move(content);
  }
  // Kills every live process and refuses later spawns (FakeCluster::Teardown).
  void TearDown() {
    std::lock_guard lock(mu_);
    torn_down_ = true;
    for (int pid : std::set<int>(live_)) Exited(pid);
  }

  // --- What happened.
  std::vector<Spawned> spawns() const {
    std::lock_guard lock(mu_);
    return spawns_;
  }
  std::vector<Signalled> signals() const {
    std::lock_guard lock(mu_);
    return signals_;
  }
  std::vector<int> kills() const {
    std::lock_guard lock(mu_);
    return kills_;
  }
  std::vector<std::vector<std::string>> execs() const {
    std::lock_guard lock(mu_);
    return execs_;
  }
  // Every WriteFile, in order, as (path, content).
  std::vector<std::pair<std::string, std::string>> writes() const {
    std::lock_guard lock(mu_);
    return writes_;
  }
  std::optional<std::string> file(const std::string& path) const {
    std::lock_guard lock(mu_);
    auto it = files_.find(path);
    if (it == files_.end()) return std::nullopt;
    return it->second;
  }
  std::set<std::string> directories() const {
    std::lock_guard lock(mu_);
    return directories_;
  }
  std::set<int> live() const {
    std::lock_guard lock(mu_);
    return live_;
  }
  bool stopped(int pid) const {
    std::lock_guard lock(mu_);
    return stopped_.contains(pid);
  }

 private:
  struct Failure {
    std::string error;
    int times = -1;
  };

  // Requires mu_. The error of an injected failure of `op`, if one is due.
  std::optional<std::string> TakeFailure(Op op) {
    auto it = failures_.find(op);
    if (it == failures_.end()) return std::nullopt;
    std::string error = it->second.error;
    if (it->second.times > 0 && --it->second.times == 0) failures_.erase(it);
    return error;
  }
  // Requires mu_.
  Status CheckOwn(int pid) const {
    for (const auto& s : spawns_) {
      if (s.pid == pid) return OkStatus();
    }
    return Error{"pid " + std::to_string(pid) + " was not started on host " + name_ +
                 "; refusing to signal it"};
  }
  // Requires mu_.
  void Exited(int pid) {
    live_.erase(pid);
    stopped_.erase(pid);
  }

  const std::string name_;
  const std::string address_;
  const std::string dir_;

  mutable std::mutex mu_;
  bool own_network_;
  FakeNet* net_ = nullptr;
  std::string netns_;
  std::map<int, int> ports_;
  std::map<Op, Failure> failures_;
  std::vector<std::string> spawn_env_;
  std::function<void(int)> on_spawn_;
  ExecResult exec_result_;
  int next_pid_ = 1000;
  bool torn_down_ = false;
  std::set<int> live_;
  std::set<int> stopped_;
  std::map<std::string, std::string> files_;
  std::set<std::string> directories_;
  std::vector<Spawned> spawns_;
  std::vector<Signalled> signals_;
  std::vector<int> kills_;
  std::vector<std::vector<std::string>> execs_;
  std::vector<std::pair<std::string, std::string>> writes_;
};

}  // namespace locksmith::testing

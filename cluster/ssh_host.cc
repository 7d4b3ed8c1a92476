#include "cluster/ssh_host.h"

#include <fstream>
#include <sstream>

#include "base/text.h"
#include "cluster/ssh_scripts.h"

namespace locksmith {
namespace {

constexpr std::chrono::milliseconds kFileTimeout{30000};
constexpr std::chrono::milliseconds kProcessTimeout{15000};

}  // namespace

SshHost::SshHost(std::string name, std::string node, std::string address, std::string run_dir,
                 std::string tag, SshOptions options, std::string control_path)
    : name_(std::move(name)),
      node_(std::move(node)),
      address_(std::move(address)),
      run_dir_(std::move(run_dir)),
      dir_(run_dir_ + "/" + name_),
      tag_(std::move(tag)),
      options_(std::move(options)),
      control_path_(std::move(control_path)) {}

std::vector<std::string> SshHost::SshArgv(const std::vector<std::string>& remote) const {
  std::vector<std::string> argv;
  if (options_.user != "root") argv = {"sudo", "-n"};
  argv.insert(argv.end(), remote.begin(), remote.end());
  return RemoteArgv(options_, control_path_, node_, argv);
}

Result<ProcessOutput> SshHost::RunScript(const std::string& script,
                                         const std::vector<std::string>& args,
                                         std::string_view input,
                                         std::chrono::milliseconds timeout) {
  std::vector<std::string> remote = {"sh", "-c", script, "sh"};
  remote.insert(remote.end(), args.begin(), args.end());
  auto r = RunSshProcess(SshArgv(remote), input, timeout);
  if (!r) return Error{"host " + name_ + " (" + node_ + "): " + r.error()};
  if (r->exit_code == 255) {
    return Error{"host " + name_ + " (" + node_ + "): ssh failed: " +
                 FirstLine(r->err.empty() ? r->out : r->err)};
  }
  return r;
}

Status SshHost::Check(const Result<ProcessOutput>& r, const std::string& what) const {
  if (!r) return Error{r.error()};
  if (r->exit_code != 0) {
    return Error{"host " + name_ + " (" + node_ + "): cannot " + what + ": " +
                 FirstLine(r->err.empty() ? r->out : r->err)};
  }
  return OkStatus();
}

Status SshHost::WriteFile(const std::string& path, std::string_view content) {
  if (auto s = ValidateHostPath(path); !s.ok()) return Error{"host " + name_ + ": " + s.error()};
  return Check(RunScript(SshWriteScript(), {PathOf(path)}, content, kFileTimeout),
               "write " + PathOf(path));
}

Status SshHost::RemoveFile(const std::string& path) {
  if (auto s = ValidateHostPath(path); !s.ok()) return Error{"host " + name_ + ": " + s.error()};
  return Check(RunScript("rm -f -- \"$1\"", {PathOf(path)}, "", kFileTimeout),
               "remove " + PathOf(path));
}

Result<std::string> SshHost::ReadFile(const std::string& path, size_t max_bytes) {
  if (auto s = ValidateHostPath(path); !s.ok()) return Error{"host " + name_ + ": " + s.error()};
  auto r = RunScript(SshReadScript(), {PathOf(path), std::to_string(max_bytes)}, "", kFileTimeout);
  if (Status s = Check(r, "read " + PathOf(path)); !s) return Error{s.error()};
  return std::move(r->out);
}

Status SshHost::MakeDirectory(const std::string& path) {
  if (auto s = ValidateHostPath(path); !s.ok()) return Error{"host " + name_ + ": " + s.error()};
  return Check(RunScript("mkdir -p -- \"$1\"", {PathOf(path)}, "", kFileTimeout),
               "create " + PathOf(path));
}

Result<std::string> SshHost::InstallFile(const std::string& local_path, const std::string& name) {
  std::ifstream in(local_path, std::ios::binary);
  if (!in) return Error{"host " + name_ + ": cannot read " + local_path + " to install it"};
  std::ostringstream content;
  content << in.rdbuf();
  const std::string relative = ".lib/" + name;
  if (Status s = MakeDirectory(".lib"); !s) return Error{s.error()};
  if (Status s = WriteFile(relative, content.str()); !s) return Error{s.error()};
  return PathOf(relative);
}

Status SshHost::SetSpawnEnv(const std::string& entry) {
  if (auto s = ValidateEnvEntry(entry); !s.ok()) return Error{"host " + name_ + ": " + s.error()};
  const std::string key = entry.substr(0, entry.find('=') + 1);
  std::lock_guard<std::mutex> lock(mu_);
  std::erase_if(spawn_env_, [&](const std::string& e) { return e.rfind(key, 0) == 0; });
  spawn_env_.push_back(entry);
  return OkStatus();
}

std::vector<std::string> SshHost::SpawnEnv() const {
  std::lock_guard<std::mutex> lock(mu_);
  return spawn_env_;
}

Result<std::vector<std::string>> SshHost::SpawnArgv(const ProcessSpec& spec) const {
  if (spec.argv.empty() || spec.argv[0].empty()) return Error{"Spawn needs a command"};
  // env(1) would take a first word with '=' for a variable.
  if (spec.argv[0].find('=') != std::string::npos) {
    return Error{"command " + spec.argv[0] + " has '=' in its name"};
  }
  for (const auto& e : spec.env) {
    if (Status s = ValidateEnvEntry(e); !s) return Error{s.error()};
  }
  const std::string log = spec.log_path.empty() ? "/dev/null" : spec.log_path;
  std::string cwd = spec.cwd;
  if (cwd.empty()) {
    cwd = spec.log_path.empty() ? dir_ : spec.log_path.substr(0, spec.log_path.rfind('/'));
    if (cwd.empty()) cwd = "/";
  }
  // A clean base, then the host's entries, then the spec's (later wins in
  // env(1), as in the local provider).
  std::vector<std::string> argv = {
      "setsid", "-f", "sh", "-c", SshSpawnScript(), "sh", cwd, log, run_dir_ + "/.pids-" + name_,
      "--",
      "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "LANG=C",
      "HOME=" + dir_};
  for (const auto& e : SpawnEnv()) argv.push_back(e);
  for (const auto& e : spec.env) argv.push_back(e);
  argv.insert(argv.end(), spec.argv.begin(), spec.argv.end());
  return argv;
}

Result<int> SshHost::Spawn(const ProcessSpec& spec) {
  auto remote = SpawnArgv(spec);
  if (!remote) return Error{"host " + name_ + ": " + remote.error()};
  auto r = RunSshProcess(SshArgv(*remote), "", kProcessTimeout);
  if (!r) return Error{"host " + name_ + " (" + node_ + "): " + r.error()};
  // The wrapper prints "pid start-time".
  std::istringstream printed(r->out);
  int pid = 0;
  uint64_t start_time = 0;
  if (r->exit_code != 0 || !(printed >> pid >> start_time) || pid <= 0) {
    return Error{"host " + name_ + " (" + node_ + "): cannot start " + spec.argv[0] + " (exit " +
                 std::to_string(r->exit_code) + "): " + FirstLine(r->err + r->out)};
  }
  std::lock_guard<std::mutex> lock(mu_);
  started_[pid] = start_time;
  return pid;
}

Result<std::string> SshHost::StartTimeOf(int pid) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = started_.find(pid);
  if (it == started_.end()) {
    return Error{"host " + name_ + ": pid " + std::to_string(pid) + " was not started by it"};
  }
  return std::to_string(it->second);
}

Status SshHost::Signal(int pid, int signal) {
  auto start = StartTimeOf(pid);
  if (!start) return Error{start.error()};
  return Check(RunScript(SshSignalScript(), {std::to_string(signal), std::to_string(pid), *start},
                         "", kProcessTimeout),
               "signal pid " + std::to_string(pid));
}

Status SshHost::Kill(int pid) {
  auto start = StartTimeOf(pid);
  if (!start) return Error{start.error()};
  return Check(RunScript(SshKillScript(), {std::to_string(pid), *start}, "", kProcessTimeout),
               "kill pid " + std::to_string(pid));
}

bool SshHost::Alive(int pid) {
  auto start = StartTimeOf(pid);
  if (!start) return false;
  auto r = RunScript(SshAliveScript(), {std::to_string(pid), *start}, "", kProcessTimeout);
  return r.ok() && r->exit_code == 0;
}

Result<ExecResult> SshHost::Exec(const std::vector<std::string>& argv,
                                 std::chrono::milliseconds timeout) {
  if (argv.empty()) return Error{"host " + name_ + ": Exec needs a command"};
  auto r = RunSshProcess(SshArgv(argv), "", timeout);
  if (!r) return Error{"host " + name_ + " (" + node_ + "): " + r.error()};
  if (r->exit_code == 255) {
    return Error{"host " + name_ + " (" + node_ + "): ssh failed: " + FirstLine(r->err)};
  }
  return ExecResult{r->exit_code, r->out + r->err};
}

Status SshHost::AbortConnections(const std::set<std::string>& peers,
                                 std::chrono::milliseconds timeout) {
  if (peers.empty()) return OkStatus();
  std::vector<std::string> argv = {"ss", "-K", "-t", "("};
  bool first = true;
  for (const auto& peer : peers) {
    if (!first) argv.push_back("or");
    first = false;
    argv.insert(argv.end(), {"dst", peer});
  }
  const std::string port = ":" + std::to_string(options_.port);
  argv.insert(argv.end(), {")", "and", "not", "(", "sport", "=", port, "or", "dport", "=", port,
                           ")"});
  auto r = Exec(argv, timeout);
  if (!r) return Error{r.error()};
  if (r->exit_code != 0) {
    return Error{"host " + name_ + ": ss -K exited " + std::to_string(r->exit_code) + ": " +
                 r->output};
  }
  return OkStatus();
}

}  // namespace locksmith

#include "cluster/process_supervisor.h"

#include <fcntl.h>
#include <linux/close_range.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <future>

#include "base/unique_fd.h"
#include "cluster/process_cgroup.h"

namespace locksmith {
namespace {

constexpr char kBasePath[] = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

// Pids for the async-signal-safe crash path; 0 is a free slot.
constexpr size_t kCrashSlots = 4096;
std::array<std::atomic<int>, kCrashSlots> g_crash_pids{};

void RememberForCrash(int pid) {
  for (auto& slot : g_crash_pids) {
    int expected = 0;
    if (slot.compare_exchange_strong(expected, pid)) return;
  }
}
void ForgetForCrash(int pid) {
  for (auto& slot : g_crash_pids) {
    int expected = pid;
    if (slot.compare_exchange_strong(expected, 0)) return;
  }
}

// cgroup.kill descriptors of contained processes' cgroups, for the same
// path, each stored plus one: 0 is a free slot.
constexpr size_t kCrashCgroupSlots = 512;
std::array<std::atomic<int>, kCrashCgroupSlots> g_crash_cgroup_kills{};

void RememberCgroupForCrash(int fd) {
  for (auto& slot : g_crash_cgroup_kills) {
    int expected = 0;
    if (fd >= 0 && slot.compare_exchange_strong(expected, fd + 1)) return;
  }
}
void ForgetCgroupForCrash(int fd) {
  for (auto& slot : g_crash_cgroup_kills) {
    int expected = fd + 1;
    if (fd >= 0 && slot.compare_exchange_strong(expected, 0)) return;
  }
}

std::string Join(const std::vector<std::string>& argv) {
  std::string s;
  for (const auto& a : argv) {
    if (!s.empty()) s += ' ';
    s += a;
  }
  return s;
}

// Everything the child needs, built before fork: after fork the child may
// only make async-signal-safe calls (another thread may hold malloc's lock).
struct Prepared {
  std::string path;
  std::vector<std::string> argv_store;
  std::vector<std::string> env_store;
  std::vector<char*> argv;
  std::vector<char*> envp;
  std::string cwd;
};

Result<std::string> FindInPath(const std::string& name, const std::string& path_var) {
  if (name.find('/') != std::string::npos) return name;
  size_t start = 0;
  while (start <= path_var.size()) {
    size_t end = path_var.find(':', start);
    if (end == std::string::npos) end = path_var.size();
    std::string dir = path_var.substr(start, end - start);
    if (!dir.empty()) {
      std::string candidate = dir + "/" + name;
      if (access(candidate.c_str(), X_OK) == 0) return candidate;
    }
    start = end + 1;
  }
  return Error{"cannot find program '" + name + "' in PATH " + path_var};
}

Result<Prepared> Prepare(const std::vector<std::string>& argv,
                         const std::vector<std::string>& extra_env, const std::string& cwd) {
  if (argv.empty() || argv[0].empty()) return Error{"cannot start a process with an empty argv"};
  Prepared p;
  const char* home = getenv("HOME");
  std::vector<std::string> env = {std::string("PATH=") + kBasePath,
                                  std::string("HOME=") + (home ? home : "/"), "LANG=C.UTF-8"};
  for (const auto& e : extra_env) {
    size_t eq = e.find('=');
    if (eq == std::string::npos || eq == 0) {
      return Error{"environment entry '" + e + "' is not NAME=value"};
    }
    std::string key = e.substr(0, eq + 1);
    std::erase_if(env, [&](const std::string& b) { return b.compare(0, key.size(), key) == 0; });
    env.push_back(e);
  }
  std::string path_var = kBasePath;
  for (const auto& e : env) {
    if (e.rfind("PATH=", 0) == 0) path_var = e.substr(5);
  }
  auto path = FindInPath(argv[0], path_var);
  if (!path.ok()) return Error{path.error()};
  p.path = *path;
  p.argv_store = argv;
  p.env_store = std::move(env);
  for (auto& a : p.argv_store) p.argv.push_back(a.data());
  p.argv.push_back(nullptr);
  for (auto& e : p.env_store) p.envp.push_back(e.data());
  p.envp.push_back(nullptr);
  p.cwd = cwd.empty() ? "/" : cwd;
  return p;
}

enum ChildStage : int {
  kStagePdeath = 1,
  kStageSetns,
  kStageDup,
  kStageChdir,
  kStageExec,
  kStageCgroup
};

const char* StageName(int stage) {
  switch (stage) {
    case kStagePdeath: return "set the parent-death signal";
    case kStageSetns: return "enter the network namespace";
    case kStageDup: return "redirect output";
    case kStageChdir: return "change to the working directory";
    case kStageExec: return "execute the program";
    case kStageCgroup: return "join its cgroup";
  }
  return "start";
}

struct ChildFds {
  int netns = -1;
  int in = -1;
  int out = -1;
  int err = -1;
  int cgroup_procs = -1;     // the cgroup.procs to join, or -1
  bool new_session = false;  // a session of its own, not only a process group
};

[[noreturn]] void ChildFail(int err_fd, int stage) {
  int msg[2] = {stage, errno};
  ssize_t ignored = write(err_fd, msg, sizeof(msg));
  (void)ignored;
  _exit(127);
}

// Runs in the forked child: async-signal-safe calls only.
[[noreturn]] void ChildMain(const Prepared& p, const ChildFds& fds, int err_fd, bool pdeathsig,
                            pid_t parent) {
  if (pdeathsig) {
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) ChildFail(err_fd, kStagePdeath);
    if (getppid() != parent) _exit(127);  // the parent already died
  }
  // Into its cgroup before anything else, so all it starts is in there too.
  if (fds.cgroup_procs >= 0 && write(fds.cgroup_procs, "0", 1) != 1) {
    ChildFail(err_fd, kStageCgroup);
  }
  if (fds.new_session) {
    setsid();
  } else {
    setpgid(0, 0);
  }
  struct sigaction dfl;
  std::memset(&dfl, 0, sizeof(dfl));
  dfl.sa_handler = SIG_DFL;
  for (int sig = 1; sig < NSIG; ++sig) sigaction(sig, &dfl, nullptr);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  if (fds.netns >= 0 && setns(fds.netns, CLONE_NEWNET) != 0) ChildFail(err_fd, kStageSetns);
  if (dup2(fds.in, 0) < 0 || dup2(fds.out, 1) < 0 || dup2(fds.err, 2) < 0) {
    ChildFail(err_fd, kStageDup);
  }
  if (chdir(p.cwd.c_str()) != 0) ChildFail(err_fd, kStageChdir);
  // What a server writes stays its own: a config it rewrites (Sentinel,
  // CONFIG REWRITE) holds its password.
  umask(077);
  // The controller's sockets and files must not leak into servers; err_fd is
  // O_CLOEXEC already and so closes on a successful exec.
  if (syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC) != 0) {
    for (int fd = 3; fd < 65536; ++fd) {
      if (fd != err_fd) fcntl(fd, F_SETFD, FD_CLOEXEC);
    }
  }
  execve(p.path.c_str(), p.argv.data(), p.envp.data());
  ChildFail(err_fd, kStageExec);
}

// Forks and execs; returns the child's pid once the exec succeeded. On a
// failed exec the child is reaped and the error names the program and stage.
Result<pid_t> ForkExec(const Prepared& p, const ChildFds& fds, bool pdeathsig) {
  int err_pipe[2];
  if (pipe2(err_pipe, O_CLOEXEC) != 0) {
    return Error{std::string("cannot create a pipe: ") + std::strerror(errno)};
  }
  UniqueFd err_read(err_pipe[0]), err_write(err_pipe[1]);
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) return Error{"cannot fork to start " + p.path + ": " + std::strerror(errno)};
  if (pid == 0) ChildMain(p, fds, err_write.get(), pdeathsig, parent);
  err_write.Reset();
  int msg[2] = {0, 0};
  ssize_t n;
  do {
    n = read(err_read.get(), msg, sizeof(msg));
  } while (n < 0 && errno == EINTR);
  if (n == 0) return pid;  // exec closed the pipe: the program runs
  int status;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return Error{"cannot start '" + Join(p.argv_store) + "': failed to " + StageName(msg[0]) +
               ": " + std::strerror(msg[1])};
}

Result<int> OpenNetns(const std::string& netns_path) {
  if (netns_path.empty()) return -1;
  int fd = open(netns_path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return Error{"cannot open network namespace " + netns_path + ": " + std::strerror(errno)};
  }
  return fd;
}

}  // namespace

Result<ExecResult> RunCommand(const std::vector<std::string>& argv, const std::string& netns_path,
                              std::chrono::milliseconds timeout) {
  auto prepared = Prepare(argv, {}, "/");
  if (!prepared.ok()) return Error{prepared.error()};
  auto ns = OpenNetns(netns_path);
  if (!ns.ok()) return Error{ns.error()};
  UniqueFd netns(*ns);
  UniqueFd devnull(open("/dev/null", O_RDONLY | O_CLOEXEC));
  int out_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0) {
    return Error{std::string("cannot create a pipe: ") + std::strerror(errno)};
  }
  UniqueFd out_read(out_pipe[0]), out_write(out_pipe[1]);
  auto pid =
      ForkExec(*prepared, {netns.get(), devnull.get(), out_write.get(), out_write.get()}, false);
  if (!pid.ok()) return Error{pid.error()};
  out_write.Reset();

  ExecResult result;
  auto deadline = std::chrono::steady_clock::now() + timeout;
  bool timed_out = false;
  while (true) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      break;
    }
    pollfd pfd{out_read.get(), POLLIN, 0};
    int r = poll(&pfd, 1, static_cast<int>(left.count()));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) continue;
    char buf[4096];
    ssize_t n = read(out_read.get(), buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // EOF: the command (and anything it forked) closed its output
    result.output.append(buf, static_cast<size_t>(n));
  }
  int status = 0;
  if (timed_out) kill(-*pid, SIGKILL);
  while (true) {
    pid_t w = waitpid(*pid, &status, timed_out ? 0 : WNOHANG);
    if (w == *pid) break;
    if (w < 0 && errno != EINTR) break;
    if (w == 0) {
      // Output closed but the command lingers: give it until the deadline.
      if (std::chrono::steady_clock::now() >= deadline) {
        timed_out = true;
        kill(-*pid, SIGKILL);
      } else {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
    }
  }
  if (timed_out) {
    return Error{"'" + Join(argv) + "' did not finish within " + std::to_string(timeout.count()) +
                 " ms and was killed; output so far: " + result.output};
  }
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

void KillAllSpawnedAsyncSignalSafe() {
  for (auto& slot : g_crash_pids) {
    int pid = slot.load();
    if (pid > 0) kill(-pid, SIGKILL);
  }
  for (auto& slot : g_crash_cgroup_kills) {
    int fd = slot.load() - 1;
    if (fd >= 0) {
      ssize_t ignored = write(fd, "1", 1);
      (void)ignored;
    }
  }
}

ProcessSupervisor::ProcessSupervisor(bool die_with_controller)
    : ProcessSupervisor(SupervisorOptions{.die_with_controller = die_with_controller}) {}

ProcessSupervisor::ProcessSupervisor(SupervisorOptions options)
    : options_(std::move(options)), spawner_([this] { SpawnerLoop(); }) {}

ProcessSupervisor::~ProcessSupervisor() {
  (void)KillAll();
  {
    std::lock_guard<std::mutex> lock(queue_mu_);
    stop_spawner_ = true;
  }
  queue_cv_.notify_all();
  spawner_.join();
}

void ProcessSupervisor::SpawnerLoop() {
  while (true) {
    std::function<void()> task;
    {
      std::unique_lock<std::mutex> lock(queue_mu_);
      queue_cv_.wait(lock, [&] { return stop_spawner_ || !queue_.empty(); });
      if (queue_.empty()) return;
      task = std::move(queue_.front());
      queue_.pop_front();
    }
    task();
  }
}

Result<int> ProcessSupervisor::RunOnSpawner(std::function<Result<int>()> fn) {
  auto task = std::make_shared<std::packaged_task<Result<int>()>>(std::move(fn));
  auto future = task->get_future();
  {
    std::lock_guard<std::mutex> lock(queue_mu_);
    if (stop_spawner_) return Error{"the process supervisor is shutting down"};
    queue_.push_back([task] { (*task)(); });
  }
  queue_cv_.notify_one();
  return future.get();
}

Result<int> ProcessSupervisor::OpenLog(const ProcessSpec& spec, bool contained) {
  if (spec.log_path.empty()) return open("/dev/null", O_WRONLY | O_CLOEXEC);
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(spec.log_path).parent_path(), ec);
  if (contained) {
    LogPump* pump;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!log_pump_) log_pump_ = std::make_unique<LogPump>(options_.log);
      pump = log_pump_.get();
    }
    auto pipe = pump->Add(spec.log_path);
    if (!pipe) return Error{pipe.error() + " for '" + Join(spec.argv) + "'"};
    return *pipe;
  }
  const int fd = open(spec.log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (fd < 0) {
    return Error{"cannot open log file " + spec.log_path + " for '" + Join(spec.argv) +
                 "': " + std::strerror(errno)};
  }
  return fd;
}

Result<int> ProcessSupervisor::Spawn(const std::string& owner, const ProcessSpec& spec,
                                     const std::string& netns_path,
                                     const std::string& default_cwd,
                                     const std::optional<ContainSpec>& contain_arg) {
  const std::optional<ContainSpec> contain = contain_arg ? contain_arg : options_.contain_all;
  std::string cwd = spec.cwd;
  if (cwd.empty() && !spec.log_path.empty()) {
    cwd = std::filesystem::path(spec.log_path).parent_path().string();
  }
  if (cwd.empty()) cwd = default_cwd;
  auto prepared = Prepare(spec.argv, spec.env, cwd);
  if (!prepared.ok()) return Error{prepared.error()};
  auto ns = OpenNetns(netns_path);
  if (!ns.ok()) return Error{ns.error()};
  UniqueFd netns(*ns);
  UniqueFd devnull(open("/dev/null", O_RDWR | O_CLOEXEC));
  auto log_fd = OpenLog(spec, contain.has_value());
  if (!log_fd) return Error{log_fd.error()};
  UniqueFd log(*log_fd);
  // Where there is no cgroup to be had, the session fallback stands
  // (DescribeContainment says so in the run log).
  LeafCgroup leaf;
  if (contain && !contain->cgroup_tag.empty()) {
    if (auto run_cgroup = RunCgroupPath(contain->cgroup_tag)) {
      if (auto made = NewLeafCgroup(*run_cgroup)) {
        leaf = *made;
        std::lock_guard<std::mutex> lock(mu_);
        run_cgroups_.insert(*run_cgroup);
      }
    }
  }
  ChildFds fds{netns.get(),
               spec.stdin_fd >= 0 ? spec.stdin_fd : devnull.get(),
               spec.stdout_fd >= 0 ? spec.stdout_fd : log.get(),
               log.get(),
               leaf.procs_fd,
               contain.has_value()};
  // Registration happens on the spawner thread right after fork, under mu_,
  // so KillAll cannot miss a process that was just started.
  auto pid = RunOnSpawner([&]() -> Result<int> {
    std::lock_guard<std::mutex> lock(mu_);
    if (closed_) return Error{"cannot start '" + Join(spec.argv) + "': the cluster is torn down"};
    auto pid = ForkExec(*prepared, fds, options_.die_with_controller);
    if (!pid.ok()) return Error{pid.error()};
    children_[*pid] = Child{owner, false, 0, contain.has_value(), leaf.path, leaf.kill_fd};
    RememberForCrash(*pid);
    RememberCgroupForCrash(leaf.kill_fd);
    leaf.kill_fd = -1;  // the child's record holds it now
    return static_cast<int>(*pid);
  });
  CloseLeafFds(leaf);
  if (!pid.ok() && !leaf.path.empty()) RemoveCgroupIfEmpty(leaf.path);
  return pid;
}

Status ProcessSupervisor::KillContained(int pid, Child& child, std::chrono::milliseconds wait) {
  if (!child.contained) return OkStatus();
  if (child.cgroup.empty()) {
    // Only while the leader is unreaped: then no new session has its id.
    if (!child.reaped) KillSessionMembers(pid);
    return OkStatus();
  }
  if (auto s = KillCgroupTree(child.cgroup, wait); !s.ok()) return s;
  ForgetCgroupForCrash(child.cgroup_kill_fd);
  if (child.cgroup_kill_fd >= 0) close(child.cgroup_kill_fd);
  child.cgroup_kill_fd = -1;
  child.cgroup.clear();
  return OkStatus();
}

Status ProcessSupervisor::CheckOwner(const std::string& owner, int pid) {
  auto it = children_.find(pid);
  if (it == children_.end() || it->second.owner != owner) {
    return Error{"pid " + std::to_string(pid) + " was not started on host " + owner +
                 "; refusing to signal it"};
  }
  return OkStatus();
}

bool ProcessSupervisor::ReapIfExited(int pid, std::chrono::milliseconds wait) {
  auto deadline = std::chrono::steady_clock::now() + wait;
  auto pause = std::chrono::microseconds(200);
  while (true) {
    siginfo_t info;
    std::memset(&info, 0, sizeof(info));
    // WNOWAIT: look without reaping, so only the locked section below reaps
    // and records the pid (a concurrent Alive/Kill sees a consistent state).
    int r = waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT);
    bool exited = (r == 0 && info.si_pid == pid) || (r < 0 && errno == ECHILD);
    if (exited) {
      std::lock_guard<std::mutex> lock(mu_);
      auto& child = children_[pid];
      if (!child.reaped) {
        // What it started goes with it; a cgroup that will not empty stays
        // for KillAll (and its error).
        (void)KillContained(pid, child, std::chrono::seconds(10));
        ForgetForCrash(pid);
        int status = 0;
        if (waitpid(pid, &status, WNOHANG) == pid) child.wait_status = status;
        child.reaped = true;
      }
      return true;
    }
    if (r < 0 && errno != EINTR) return false;
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(pause);
    pause = std::min<std::chrono::microseconds>(pause * 2, std::chrono::milliseconds(20));
  }
}

Status ProcessSupervisor::Signal(const std::string& owner, int pid, int signal) {
  std::lock_guard<std::mutex> lock(mu_);
  if (auto s = CheckOwner(owner, pid); !s.ok()) return s;
  // Holding mu_ keeps the pid unreaped (so not reusable) while we signal.
  if (children_[pid].reaped) {
    return Error{"process " + std::to_string(pid) + " on host " + owner + " has already exited"};
  }
  if (kill(-pid, signal) != 0 && kill(pid, signal) != 0) {
    return Error{"cannot send signal " + std::to_string(signal) + " to process " +
                 std::to_string(pid) + " on host " + owner + ": " + std::strerror(errno)};
  }
  return OkStatus();
}

Status ProcessSupervisor::Kill(const std::string& owner, int pid) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto s = CheckOwner(owner, pid); !s.ok()) return s;
    Child& child = children_[pid];
    if (child.reaped) return OkStatus();
    if (kill(-pid, SIGKILL) != 0) kill(pid, SIGKILL);
    if (auto s = KillContained(pid, child, std::chrono::seconds(10)); !s.ok()) return s;
  }
  if (!ReapIfExited(pid, std::chrono::seconds(10))) {
    return Error{"process " + std::to_string(pid) + " on host " + owner +
                 " did not exit within 10 s of SIGKILL (stuck in the kernel?)"};
  }
  return OkStatus();
}

bool ProcessSupervisor::Alive(const std::string& owner, int pid) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!CheckOwner(owner, pid).ok() || children_[pid].reaped) return false;
  }
  return !ReapIfExited(pid, std::chrono::milliseconds(0));
}

std::vector<int> ProcessSupervisor::Unreaped(const std::string& owner) {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<int> pids;
  for (const auto& [pid, child] : children_) {
    if (!child.reaped && (owner.empty() || child.owner == owner)) pids.push_back(pid);
  }
  return pids;
}

Status ProcessSupervisor::KillAll() {
  std::vector<int> pids;
  std::string errors;
  {
    std::lock_guard<std::mutex> lock(mu_);
    closed_ = true;
    for (auto& [pid, child] : children_) {
      if (!child.reaped && kill(-pid, SIGKILL) != 0) kill(pid, SIGKILL);
      if (auto s = KillContained(pid, child, std::chrono::seconds(10)); !s.ok()) {
        errors += "; " + s.error();
      }
      if (!child.reaped) pids.push_back(pid);
    }
  }
  std::string stuck;
  for (int pid : pids) {
    if (!ReapIfExited(pid, std::chrono::seconds(10))) stuck += " " + std::to_string(pid);
  }
  LogPump* pump;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const std::string& run_cgroup : run_cgroups_) RemoveCgroupIfEmpty(run_cgroup);
    pump = log_pump_.get();
  }
  // Every writer is gone (but a session leaver where there is no cgroup):
  // the logs' tails are written once their pipes have drained.
  if (pump != nullptr) pump->Finish(std::chrono::seconds(2));
  if (!stuck.empty()) errors += "; processes did not exit within 10 s of SIGKILL:" + stuck;
  if (!errors.empty()) return Error{errors.substr(2)};
  return OkStatus();
}

}  // namespace locksmith

// Host and Cluster: where servers run. A Host is one test host (local
// provider: a network namespace on the run's bridge, or plain loopback
// without root; a remote provider: a machine or container reached over SSH).
// Backends and nemeses see only these interfaces, so a new provider, or a
// hook such as the clock shim, needs no change in them.
//
// The host's directory. Every host has a directory of its own, on its own
// filesystem, for the files of the servers it runs (configs, data, logs):
// Directory(). The local provider uses the run's <run dir>/nodes/<host>/
// (made with the cluster and kept with the run's results, so a node's config
// and log sit next to the history); a remote provider uses a directory of the
// run on that machine. Several servers on one host share it and keep apart
// by file name (redis.conf, sentinel.conf). The file operations take paths
// relative to it (never absolute, never "..") so a backend cannot touch a
// file the run did not make; a server gets absolute paths from PathOf().
// Backends never open a node's file on the controller themselves. Paths in a
// ProcessSpec are on the host's filesystem too.
//
// The spawn environment. SetSpawnEnv adds an entry given to every later
// Spawn on the host (the clock shim's LD_PRELOAD, ...); a spec's own entry of
// the same name wins over it.
//
// Implementations are thread-safe: the nemesis thread and the run thread may
// call them concurrently.
#pragma once

#include <chrono>
#include <cstddef>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace locksmith {

struct ProcessSpec {
  std::vector<std::string> argv;  // argv[0] is an absolute path or found in PATH
  std::vector<std::string> env;   // extra "NAME=value" entries, added to a clean base
  std::string log_path;           // stdout and stderr appended here; empty: /dev/null
  std::string cwd;                // empty: the log file's directory
  // A program that talks over pipes (an external lock client): its stdin
  // and stdout instead of /dev/null and the log (stderr still goes to the
  // log). Descriptors of the caller's, which keeps them; -1: not used. Only
  // the local provider's hosts and ProcessSupervisor honour them.
  int stdin_fd = -1;
  int stdout_fd = -1;
};

struct ExecResult {
  int exit_code = 0;
  std::string output;  // stdout and stderr together
};

// OK when `path` names something inside a host's directory: relative,
// non-empty, no "." or ".." component, no empty component.
inline Status ValidateHostPath(const std::string& path) {
  if (path.empty() || path.front() == '/') {
    return Error{"host path '" + path + "' must be relative to the host's directory"};
  }
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string::npos) end = path.size();
    const std::string_view part(path.data() + start, end - start);
    if (part.empty() || part == "." || part == "..") {
      return Error{"host path '" + path + "' must stay inside the host's directory"};
    }
    start = end + 1;
  }
  return OkStatus();
}

// OK when `entry` is "NAME=value" with a non-empty NAME.
inline Status ValidateEnvEntry(const std::string& entry) {
  const size_t eq = entry.find('=');
  if (eq == std::string::npos || eq == 0) {
    return Error{"environment entry '" + entry + "' is not NAME=value"};
  }
  return OkStatus();
}

class Host;

// The last `n` lines of the log `file` in `host`'s directory, " | "-joined,
// for an error message saying why a server did not come up.
std::string LastLogLines(Host& host, const std::string& file, size_t n);

class Host {
 public:
  virtual ~Host() = default;
  virtual const std::string& Name() const = 0;
  // Address the controller's clients use to reach servers on this host.
  virtual const std::string& Address() const = 0;
  // The port a server should listen on: `preferred` on a host with its own
  // network namespace, a free distinct port on shared loopback.
  virtual int ServicePort(int preferred) = 0;
  // True when the host has its own network stack (iptables faults possible).
  virtual bool HasOwnNetwork() const = 0;
  // The TCP port of the provider's own control connection to the host (a
  // remote provider's ssh), which firewall faults must never cut; 0: none.
  virtual int ControlPort() const { return 0; }

  // The host's directory (absolute, on the host's filesystem; see above).
  virtual const std::string& Directory() const = 0;
  // The absolute path of `relative` inside Directory(), for a server's argv
  // or config.
  std::string PathOf(const std::string& relative) const { return Directory() + "/" + relative; }
  // Writes `content` to the file at `path` in the host's directory, replacing
  // it atomically: a reader sees the old file or the new one, never a part
  // (the clock shim reads its control file while the nemesis replaces it).
  // The file is new (a link at `path` is replaced, never followed) and
  // readable by its owner only: a server's config holds its password. Its
  // parent directory must exist.
  virtual Status WriteFile(const std::string& path, std::string_view content) = 0;
  // Removes the file at `path`; OK when there is none.
  virtual Status RemoveFile(const std::string& path) = 0;
  // The last `max_bytes` bytes of the file at `path` (all of it if shorter).
  virtual Result<std::string> ReadFile(const std::string& path, size_t max_bytes) = 0;
  // Makes the directory `path` (and its parents) in the host's directory.
  virtual Status MakeDirectory(const std::string& path) = 0;
  // Makes the controller's file `local_path` available on the host under
  // `name` and returns its absolute path there (the clock shim library). A
  // host sharing the controller's filesystem returns `local_path` itself.
  virtual Result<std::string> InstallFile(const std::string& local_path,
                                          const std::string& name) {
    (void)name;
    return local_path;
  }

  // Adds "NAME=value" to every later Spawn's environment, replacing an
  // earlier entry of the same NAME.
  virtual Status SetSpawnEnv(const std::string& entry) = 0;
  // The entries SetSpawnEnv added, in order.
  virtual std::vector<std::string> SpawnEnv() const = 0;

  // Starts a long-running process inside the host; returns its pid. The
  // cluster remembers it and kills it at teardown if still alive.
  virtual Result<int> Spawn(const ProcessSpec& spec) = 0;
  // Sends a signal to a process this host started (refuses any other pid).
  virtual Status Signal(int pid, int signal) = 0;
  // SIGKILLs a process this host started and reaps it.
  virtual Status Kill(int pid) = 0;
  // True while the process this host started has not exited.
  virtual bool Alive(int pid) = 0;
  // Runs a short command inside the host to completion (iptables, ...).
  virtual Result<ExecResult> Exec(const std::vector<std::string>& argv,
                                  std::chrono::milliseconds timeout) = 0;
  // Aborts the host's own TCP connections (in a connected state) to any of
  // `peers`, so that they do not outlive a partition. This default runs
  // `ss -K` through Exec; a provider may do it without a command.
  virtual Status AbortConnections(const std::set<std::string>& peers,
                                  std::chrono::milliseconds timeout);
  // A new IPv4 TCP socket inside the host's own network, owned by the
  // caller (a relay on the host's links listens and connects through it);
  // an error where the provider cannot make one there (no network of its
  // own, or a remote host).
  virtual Result<int> OpenTcpSocket() {
    return Error{"host " + Name() + ": cannot open a socket inside its network"};
  }
  // Whether OpenTcpSocket can succeed here (the controller reaches into the
  // host's network), so a family that needs it can say so before the run.
  virtual bool OpensSocketsInside() const { return false; }
};

class Cluster {
 public:
  virtual ~Cluster() = default;
  // The run's tag: every namespace, bridge, veth and chain name carries it.
  virtual const std::string& Tag() const = 0;
  virtual std::vector<Host*> Hosts() = 0;
  virtual Host* FindHost(const std::string& name) = 0;
  // The address lock client `index` (0-based) binds to, so partitions can
  // cut one client off while the others still reach the service; empty when
  // the provider gives clients no address of their own (loopback).
  virtual std::string ClientAddress(int /*index*/) { return ""; }
  // A host of its own for lock client `index`'s program (an external
  // client, docs/exec-clients.md): a network namespace holding
  // ClientAddress(index), so a partition that drops that address cuts the
  // program off whatever library it uses. Made on the first call, removed
  // by Teardown. Null when the provider has none to give (loopback, or a
  // remote provider): the program then runs beside the controller.
  virtual Result<Host*> ClientHost(int /*index*/) { return static_cast<Host*>(nullptr); }
  // Client `index`'s host if ClientHost made one; null otherwise (a
  // built-in client binds its address beside the controller).
  virtual Host* MadeClientHost(int /*index*/) { return nullptr; }
  // Kills every process the run started, then removes every namespace,
  // bridge, veth and rule it created. Idempotent; safe from any thread.
  virtual Status Teardown() = 0;
};

inline Status Host::AbortConnections(const std::set<std::string>& peers,
                                     std::chrono::milliseconds timeout) {
  if (peers.empty()) return OkStatus();
  std::vector<std::string> argv = {"ss", "-K", "-t"};
  for (const auto& peer : peers) {
    if (argv.size() > 3) argv.push_back("or");
    argv.insert(argv.end(), {"dst", peer});
  }
  auto r = Exec(argv, timeout);
  if (!r) return Error{r.error()};
  if (r->exit_code != 0) {
    return Error{"host " + Name() + ": ss -K exited " + std::to_string(r->exit_code) + ": " +
                 r->output};
  }
  return OkStatus();
}

inline std::string LastLogLines(Host& host, const std::string& file, size_t n) {
  auto text = host.ReadFile(file, 4096);
  if (!text.ok()) return "(no log: " + text.error() + ")";
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text->size()) {
    size_t end = text->find('\n', start);
    if (end == std::string::npos) end = text->size();
    lines.push_back(text->substr(start, end - start));
    start = end + 1;
  }
  std::string out;
  for (size_t i = lines.size() > n ? lines.size() - n : 0; i < lines.size(); ++i) {
    out += (out.empty() ? "" : " | ") + lines[i];
  }
  return out;
}

}  // namespace locksmith

#include "cluster/process_cgroup.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include "base/unique_fd.h"

namespace locksmith {
namespace {

namespace fs = std::filesystem;

constexpr char kRunCgroupPrefix[] = "locksmith-";

std::string Reason() { return std::strerror(errno); }

// "/sys/fs/cgroup" + "/" + "a/b" without doubled or trailing slashes.
std::string JoinPath(const std::string& base, const std::string& rest) {
  std::string joined = base;
  while (joined.size() > 1 && joined.back() == '/') joined.pop_back();
  std::string tail = rest;
  while (!tail.empty() && tail.front() == '/') tail.erase(0, 1);
  if (tail.empty()) return joined;
  return joined + "/" + tail;
}

// This process's cgroup v2 path ("0::/PATH" in /proc/self/cgroup), or "".
std::string OwnCgroup() {
  std::ifstream in("/proc/self/cgroup");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("0::", 0) == 0) return line.substr(3);
  }
  return "";
}

std::string ReadSmallFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

bool Populated(const std::string& path) {
  const std::string events = ReadSmallFile(path + "/cgroup.events");
  // No events file: the cgroup is gone, so nothing runs in it.
  return events.find("populated 1") != std::string::npos;
}

// The cgroups below `path`, deepest first.
std::vector<std::string> DescendantsDeepestFirst(const std::string& path) {
  std::vector<std::string> found;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_directory(ec) && !it->is_symlink(ec)) found.push_back(it->path().string());
  }
  std::sort(found.begin(), found.end(),
            [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  return found;
}

// Where the kernel has no cgroup.kill (before 5.14): every pid of the tree.
void KillEachProcess(const std::string& path) {
  std::vector<std::string> groups = DescendantsDeepestFirst(path);
  groups.push_back(path);
  for (const std::string& group : groups) {
    std::istringstream procs(ReadSmallFile(group + "/cgroup.procs"));
    for (int pid; procs >> pid;) {
      if (pid > 0) ::kill(pid, SIGKILL);
    }
  }
}

bool WriteKill(const std::string& path) {
  UniqueFd fd(::open((path + "/cgroup.kill").c_str(), O_WRONLY | O_CLOEXEC));
  return fd.get() >= 0 && ::write(fd.get(), "1", 1) == 1;
}

std::atomic<uint64_t> g_next_leaf{0};

}  // namespace

std::string Cgroup2Mount() {
  // mountinfo: ID PARENT MAJ:MIN ROOT MOUNT-POINT OPTIONS [TAGS...] - FSTYPE SOURCE SUPER
  std::ifstream in("/proc/self/mountinfo");
  std::string line;
  while (std::getline(in, line)) {
    const size_t dash = line.find(" - ");
    if (dash == std::string::npos || line.compare(dash + 3, 8, "cgroup2 ") != 0) continue;
    std::istringstream fields(line.substr(0, dash));
    std::string id, parent, dev, root, mount_point;
    if (fields >> id >> parent >> dev >> root >> mount_point && root == "/") return mount_point;
  }
  return "";
}

Result<std::string> RunCgroupPath(const std::string& tag) {
  const std::string mount = Cgroup2Mount();
  if (mount.empty()) return Error{"cgroup v2 is not mounted"};
  const std::string own = OwnCgroup();
  if (own.empty()) return Error{"this process has no cgroup v2 path (/proc/self/cgroup)"};
  return JoinPath(JoinPath(mount, own), kRunCgroupPrefix + tag);
}

Status CheckRunCgroupPath(const std::string& path, const std::string& tag,
                          bool on_this_machine) {
  const fs::path p(path);
  if (!p.is_absolute() || p.lexically_normal().string() != path ||
      p.filename().string() != kRunCgroupPrefix + tag) {
    return Error{"cgroup '" + path + "' is not run " + tag + "'s (want an absolute path ending in " +
                 kRunCgroupPrefix + tag + ")"};
  }
  if (on_this_machine) {
    const std::string mount = Cgroup2Mount();
    if (mount.empty() || path.rfind(JoinPath(mount, "") + "/", 0) != 0) {
      return Error{"cgroup '" + path + "' is not below this machine's cgroup v2 mount"};
    }
  }
  return OkStatus();
}

std::string DescribeContainment(const std::string& tag) {
  const char* escape =
      ": each program is killed with its process group and its session, and a child that starts "
      "a session of its own can outlive the run";
  auto path = RunCgroupPath(tag);
  if (!path) return "no cgroup for the programs (" + path.error() + ")" + escape;
  const std::string parent = fs::path(*path).parent_path().string();
  if (::access(parent.c_str(), W_OK) != 0) {
    return "no cgroup for the programs (cannot create one in " + parent + ": " + Reason() + ")" +
           escape;
  }
  return "each program in a cgroup of its own under " + *path + ", killed whole";
}

Result<LeafCgroup> NewLeafCgroup(const std::string& run_cgroup) {
  if (::mkdir(run_cgroup.c_str(), 0755) != 0 && errno != EEXIST) {
    return Error{"cannot create cgroup " + run_cgroup + ": " + Reason()};
  }
  LeafCgroup leaf;
  leaf.path = run_cgroup + "/p" + std::to_string(g_next_leaf.fetch_add(1));
  if (::mkdir(leaf.path.c_str(), 0755) != 0) {
    return Error{"cannot create cgroup " + leaf.path + ": " + Reason()};
  }
  leaf.procs_fd = ::open((leaf.path + "/cgroup.procs").c_str(), O_WRONLY | O_CLOEXEC);
  if (leaf.procs_fd < 0) {
    const std::string message = "cannot open " + leaf.path + "/cgroup.procs: " + Reason();
    ::rmdir(leaf.path.c_str());
    return Error{message};
  }
  leaf.kill_fd = ::open((leaf.path + "/cgroup.kill").c_str(), O_WRONLY | O_CLOEXEC);
  return leaf;
}

void CloseLeafFds(LeafCgroup& leaf) {
  if (leaf.procs_fd >= 0) ::close(leaf.procs_fd);
  if (leaf.kill_fd >= 0) ::close(leaf.kill_fd);
  leaf.procs_fd = leaf.kill_fd = -1;
}

Status KillCgroupTree(const std::string& path, std::chrono::milliseconds timeout) {
  std::error_code ec;
  if (!fs::is_directory(fs::symlink_status(path, ec))) return OkStatus();
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  auto pause = std::chrono::microseconds(200);
  while (true) {
    if (!WriteKill(path)) KillEachProcess(path);
    if (!Populated(path)) break;
    if (std::chrono::steady_clock::now() >= deadline) {
      return Error{"cgroup " + path + " still has processes " + std::to_string(timeout.count()) +
                   " ms after SIGKILL"};
    }
    std::this_thread::sleep_for(pause);
    pause = std::min<std::chrono::microseconds>(pause * 2, std::chrono::milliseconds(20));
  }
  std::vector<std::string> groups = DescendantsDeepestFirst(path);
  groups.push_back(path);
  for (const std::string& group : groups) {
    if (::rmdir(group.c_str()) != 0 && errno != ENOENT) {
      return Error{"cannot remove cgroup " + group + ": " + Reason()};
    }
  }
  return OkStatus();
}

void RemoveCgroupIfEmpty(const std::string& path) { ::rmdir(path.c_str()); }

void KillSessionMembers(int sid) {
  DIR* proc = ::opendir("/proc");
  if (proc == nullptr) return;
  while (dirent* entry = ::readdir(proc)) {
    char* end = nullptr;
    const long pid = std::strtol(entry->d_name, &end, 10);
    if (*end != '\0' || pid <= 0 || pid == sid) continue;
    const std::string stat = ReadSmallFile("/proc/" + std::string(entry->d_name) + "/stat");
    // Fields after the command's closing parenthesis: state ppid pgrp session.
    const size_t paren = stat.rfind(')');
    if (paren == std::string::npos) continue;
    std::istringstream fields(stat.substr(paren + 1));
    std::string state;
    long ppid = 0, pgrp = 0, session = 0;
    if (fields >> state >> ppid >> pgrp >> session && session == sid) {
      ::kill(static_cast<pid_t>(pid), SIGKILL);
    }
  }
  ::closedir(proc);
}

}  // namespace locksmith

#include "cluster/ssh_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

#include "base/unique_fd.h"

extern char** environ;

namespace locksmith {
namespace {

Result<int> MemFile(const char* name) {
  const int fd = memfd_create(name, MFD_CLOEXEC);
  if (fd < 0) return Error{std::string("memfd_create: ") + std::strerror(errno)};
  return fd;
}

std::string ReadAll(int fd) {
  std::string text;
  if (lseek(fd, 0, SEEK_SET) < 0) return text;
  char buf[8192];
  while (true) {
    const ssize_t n = read(fd, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    text.append(buf, static_cast<size_t>(n));
  }
  return text;
}

std::string Joined(const std::vector<std::string>& argv) {
  std::string s;
  for (const auto& a : argv) s += (s.empty() ? "" : " ") + a;
  return s;
}

}  // namespace

Result<ProcessOutput> RunSshProcess(const std::vector<std::string>& argv, std::string_view input,
                                    std::chrono::milliseconds timeout) {
  if (argv.empty()) return Error{"RunSshProcess needs a command"};
  auto in = MemFile("ssh-in");
  if (!in) return Error{in.error()};
  UniqueFd in_fd(*in);
  auto out = MemFile("ssh-out");
  if (!out) return Error{out.error()};
  UniqueFd out_fd(*out);
  auto err = MemFile("ssh-err");
  if (!err) return Error{err.error()};
  UniqueFd err_fd(*err);
  for (size_t done = 0; done < input.size();) {
    const ssize_t n = write(in_fd.get(), input.data() + done, input.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return Error{std::string("cannot buffer a command's input: ") + strerror(errno)};
    done += static_cast<size_t>(n);
  }
  lseek(in_fd.get(), 0, SEEK_SET);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in_fd.get(), 0);
  posix_spawn_file_actions_adddup2(&actions, out_fd.get(), 1);
  posix_spawn_file_actions_adddup2(&actions, err_fd.get(), 2);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t none;
  sigemptyset(&none);
  posix_spawnattr_setsigmask(&attr, &none);
  sigset_t all;
  sigfillset(&all);
  posix_spawnattr_setsigdefault(&attr, &all);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
                                      POSIX_SPAWN_SETSIGDEF);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, args[0], &actions, &attr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) return Error{"cannot run " + argv[0] + ": " + std::strerror(rc)};

  const auto deadline = std::chrono::steady_clock::now() + timeout;
  const int pidfd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
  int status = 0;
  bool timed_out = false;
  while (true) {
    const pid_t w = waitpid(pid, &status, WNOHANG);
    if (w == pid) break;
    if (w < 0 && errno != EINTR) return Error{std::string("waitpid: ") + std::strerror(errno)};
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      kill(-pid, SIGKILL);
      kill(pid, SIGKILL);
      while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      break;
    }
    if (pidfd >= 0) {
      pollfd p{pidfd, POLLIN, 0};
      (void)poll(&p, 1, static_cast<int>(std::min<int64_t>(left.count(), 1000)));
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
  if (pidfd >= 0) close(pidfd);
  ProcessOutput result;
  result.out = ReadAll(out_fd.get());
  result.err = ReadAll(err_fd.get());
  if (timed_out) {
    return Error{"'" + Joined(argv) + "' did not finish within " +
                 std::to_string(timeout.count()) + " ms and was killed; output so far: " +
                 result.out + result.err};
  }
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

}  // namespace locksmith

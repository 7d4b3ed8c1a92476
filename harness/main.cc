// locksmith's entry point: the CLI, with crashes turned into exit code 255.
// A fatal signal cannot run teardown safely, so its handler only kills the
// servers this process started (async-signal-safe) and exits 255; the run's
// namespaces stay registered for `locksmith cleanup`, and its history is on
// disk line by line.
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <exception>
#include <iostream>

#include "base/exit_codes.h"
#include "base/terminal_text.h"
#include "cluster/process_supervisor.h"
#include "harness/cli.h"

namespace {

void OnFatalSignal(int) {
  locksmith::KillAllSpawnedAsyncSignalSafe();
  static const char kMessage[] =
      "locksmith: crashed (fatal signal); servers killed, run `locksmith cleanup`\n";
  (void)!write(STDERR_FILENO, kMessage, sizeof(kMessage) - 1);
  _exit(locksmith::kExitRunFailed);
}

// Every client holds a connection: let --concurrency reach the hard limit
// on open files, not the (often 1024) soft one.
void RaiseOpenFileLimit() {
  struct rlimit limit {};
  if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max) {
    limit.rlim_cur = limit.rlim_max;
    setrlimit(RLIMIT_NOFILE, &limit);
  }
}

void InstallCrashHandlers() {
  struct sigaction sa {};
  sa.sa_handler = OnFatalSignal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESETHAND;
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) sigaction(sig, &sa, nullptr);
}

}  // namespace

int main(int argc, char** argv) {
  InstallCrashHandlers();
  // A closed pipe on stdout/stderr (`| head`, a dead `tee`) must be a write
  // error, not a signal that kills the controller before teardown.
  signal(SIGPIPE, SIG_IGN);
  RaiseOpenFileLimit();
  try {
    return locksmith::CliMain(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "locksmith: crashed: " << locksmith::TerminalSafe(e.what()) << "\n";
  } catch (...) {
    std::cerr << "locksmith: crashed\n";
  }
  return locksmith::kExitRunFailed;
}

#include "backends/server_signals.h"

#include <signal.h>

namespace locksmith {

Status KillServer(const std::string& name, Host& host, int& pid, bool& paused) {
  if (pid <= 0) return Error{name + " is already down"};
  Status s = host.Kill(pid);
  pid = -1;
  paused = false;
  return s;
}

Status PauseServer(const std::string& name, Host& host, int pid, bool& paused) {
  if (pid <= 0) return Error{name + " is down"};
  if (paused) return Error{name + " is already paused"};
  if (Status s = host.Signal(pid, SIGSTOP); !s) return s;
  paused = true;
  return OkStatus();
}

Status ResumeServer(const std::string& name, Host& host, int pid, bool& paused) {
  if (pid <= 0) return Error{name + " is down"};
  if (!paused) return Error{name + " is not paused"};
  if (Status s = host.Signal(pid, SIGCONT); !s) return s;
  paused = false;
  return OkStatus();
}

}  // namespace locksmith

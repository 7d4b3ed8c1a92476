// RunSshProcess: runs one local command (the ssh client) to completion with
// `input` on its standard input and its standard output and error captured
// apart, in memory files rather than pipes: ssh's control master forks into
// the background holding the descriptors it was given, so waiting for the
// end of a pipe would wait for the master; this waits for the process
// itself. Overrunning `timeout` SIGKILLs the command's process group.
// Stateless; thread-safe (posix_spawn, no fork of a threaded process).
#pragma once

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace locksmith {

struct ProcessOutput {
  int exit_code = 0;  // 128 + signal when killed by one
  std::string out;
  std::string err;
};

Result<ProcessOutput> RunSshProcess(const std::vector<std::string>& argv, std::string_view input,
                                    std::chrono::milliseconds timeout);

}  // namespace locksmith

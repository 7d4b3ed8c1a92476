#include "nemesis/process_checks.h"

#include <string>
#include <thread>

#include "cluster/proc_info.h"

namespace locksmith {

Result<char> ProcessStateOn(Host& host, int pid) {
  if (pid <= 0) return Error{"no process (pid " + std::to_string(pid) + ")"};
  const std::string file = "/proc/" + std::to_string(pid) + "/stat";
  auto read = host.Exec({"cat", file}, std::chrono::seconds(5));
  if (!read) return Error{read.error()};
  if (read->exit_code != 0) {
    return Error{"host " + host.Name() + ": cannot read " + file + ": " + read->output};
  }
  auto stat = ParseProcStat(read->output);
  if (!stat) return Error{"host " + host.Name() + ": " + file + " does not parse"};
  return stat->state;
}

Result<char> AwaitProcessState(Host& host, int pid, char want, std::chrono::milliseconds within,
                               std::chrono::milliseconds poll) {
  const auto give_up = std::chrono::steady_clock::now() + within;
  while (true) {
    auto state = ProcessStateOn(host, pid);
    if (!state || *state == want || std::chrono::steady_clock::now() + poll > give_up) {
      return state;
    }
    std::this_thread::sleep_for(poll);
  }
}

}  // namespace locksmith

#include "backends/non_root_server.h"

namespace locksmith {

std::vector<std::string> NonRootPrefix(bool root, bool own_ipc) {
  if (!root) return {};
  // unshare execs the command in place: the pid it was spawned as stays the
  // server's.
  std::vector<std::string> prefix = {"unshare", "--user", "--map-user=1", "--map-group=1"};
  if (own_ipc) prefix.push_back("--ipc");
  prefix.push_back("--");
  return prefix;
}

Result<bool> RunsAsRoot(Host& host) {
  auto id = host.Exec({"id", "-u"}, std::chrono::seconds(5));
  if (!id) return Error{id.error()};
  if (id->exit_code != 0) return Error{"host " + host.Name() + ": id -u exited " +
                                       std::to_string(id->exit_code)};
  std::string uid = id->output;
  while (!uid.empty() && (uid.back() == '\n' || uid.back() == ' ')) uid.pop_back();
  return uid == "0";
}

}  // namespace locksmith

// SshCommand: how the ssh provider talks to a node, as pure functions that
// build argv vectors for the OpenSSH client (never a local shell), plus the
// one quoting function for the remote shell (ssh hands the remote side one
// command line, which the login shell splits: every word is quoted by
// ShellQuote, so input can never become shell syntax there). Also the
// parsing of the node list (--nodes, --nodes-file). Every command shares one
// control connection per node (ControlMaster / ControlPath): the master is
// started once (MasterArgv) and every later ssh rides on it.
// Stateless; thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace locksmith {

// How to reach the nodes (the --ssh-* flags).
struct SshOptions {
  std::string user = "root";
  std::string key;          // identity file; empty: ssh's own defaults
  int port = 22;
  std::string known_hosts;  // UserKnownHostsFile; empty: ssh's own defaults
  int connect_timeout_s = 10;
};

// `text` as one word of a POSIX shell: unchanged when it has only
// [A-Za-z0-9_./:=@%+,-] (and is not empty), otherwise in single quotes with
// each ' written as '\''.
std::string ShellQuote(std::string_view text);
// The remote command line for `argv`: each word ShellQuote'd, space-joined.
std::string RemoteCommandLine(const std::vector<std::string>& argv);

// ssh -o options every command to `address` shares (batch mode, port, user,
// key, known hosts, the control path).
std::vector<std::string> SshCommonArgs(const SshOptions& options,
                                       const std::string& control_path);
// Starts the node's control master and returns once it is authenticated
// (ssh -f -N); it persists until ControlArgv(.., "exit").
std::vector<std::string> MasterArgv(const SshOptions& options, const std::string& control_path,
                                    const std::string& address);
// Runs `remote_argv` on the node over the control master (none: fails).
std::vector<std::string> RemoteArgv(const SshOptions& options, const std::string& control_path,
                                    const std::string& address,
                                    const std::vector<std::string>& remote_argv);
// Asks the master: "check" or "exit".
std::vector<std::string> ControlArgv(const std::string& control_path, const std::string& address,
                                     const std::string& operation);

// OK when `address` is a host name or IPv4 address ssh may be given: 1-253
// characters of [A-Za-z0-9.-], not starting with '-' or '.'.
Status ValidateNodeAddress(const std::string& address);
// "n1,n2, n3" -> {"n1","n2","n3"}: spaces around entries trimmed; empty,
// invalid or repeated entries are errors naming the entry.
Result<std::vector<std::string>> ParseNodeList(std::string_view text);
// A nodes file: one node per line; blank lines and '#' comments ignored.
Result<std::vector<std::string>> ParseNodesFile(std::string_view content);
// Reads and parses a nodes file (a regular file of at most 1 MiB).
Result<std::vector<std::string>> ReadNodesFile(const std::string& path);

}  // namespace locksmith

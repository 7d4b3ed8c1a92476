#include "cluster/ssh_command.h"

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "base/option_set.h"

namespace locksmith {
namespace {

bool IsPlainShellChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         std::string_view("_./:=@%+,-").find(c) != std::string_view::npos;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) {
    s.remove_prefix(1);
  }
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

Result<std::vector<std::string>> CheckNodes(std::vector<std::string> nodes, const char* what) {
  if (nodes.empty()) return Error{std::string(what) + " names no node"};
  std::set<std::string> seen;
  for (const auto& n : nodes) {
    if (Status s = ValidateNodeAddress(n); !s) return Error{std::string(what) + ": " + s.error()};
    if (!seen.insert(n).second) {
      return Error{std::string(what) + ": node " + QuoteInput(n) + " appears twice"};
    }
  }
  return nodes;
}

}  // namespace

std::string ShellQuote(std::string_view text) {
  bool plain = !text.empty();
  for (char c : text) plain = plain && IsPlainShellChar(c);
  if (plain) return std::string(text);
  std::string out = "'";
  for (char c : text) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

std::string RemoteCommandLine(const std::vector<std::string>& argv) {
  std::string line;
  for (const auto& word : argv) {
    if (!line.empty()) line += ' ';
    line += ShellQuote(word);
  }
  return line;
}

std::vector<std::string> SshCommonArgs(const SshOptions& options,
                                       const std::string& control_path) {
  std::vector<std::string> args = {
      "-o", "BatchMode=yes",
      "-o", "ConnectTimeout=" + std::to_string(options.connect_timeout_s),
      "-o", "ServerAliveInterval=5",
      "-o", "ServerAliveCountMax=3",
      "-o", "ControlPath=" + control_path,
      "-o", "LogLevel=ERROR",
      "-p", std::to_string(options.port),
      "-l", options.user};
  if (!options.key.empty()) {
    args.insert(args.end(), {"-i", options.key, "-o", "IdentitiesOnly=yes"});
  }
  if (!options.known_hosts.empty()) {
    args.insert(args.end(), {"-o", "UserKnownHostsFile=" + options.known_hosts, "-o",
                             "StrictHostKeyChecking=accept-new"});
  }
  return args;
}

std::vector<std::string> MasterArgv(const SshOptions& options, const std::string& control_path,
                                    const std::string& address) {
  std::vector<std::string> argv = {"ssh"};
  for (auto& a : SshCommonArgs(options, control_path)) argv.push_back(std::move(a));
  argv.insert(argv.end(), {"-o", "ControlMaster=yes", "-o", "ControlPersist=yes", "-f", "-N",
                           "--", address});
  return argv;
}

std::vector<std::string> RemoteArgv(const SshOptions& options, const std::string& control_path,
                                    const std::string& address,
                                    const std::vector<std::string>& remote_argv) {
  std::vector<std::string> argv = {"ssh"};
  for (auto& a : SshCommonArgs(options, control_path)) argv.push_back(std::move(a));
  // ControlMaster=no: never a second master; without the first, fail.
  argv.insert(argv.end(), {"-o", "ControlMaster=no", "-T", "--", address,
                           RemoteCommandLine(remote_argv)});
  return argv;
}

std::vector<std::string> ControlArgv(const std::string& control_path, const std::string& address,
                                     const std::string& operation) {
  return {"ssh", "-o", "ControlPath=" + control_path, "-O", operation, "--", address};
}

Status ValidateNodeAddress(const std::string& address) {
  bool good = !address.empty() && address.size() <= 253 && address.front() != '-' &&
              address.front() != '.';
  for (char c : address) {
    good = good && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '-');
  }
  if (!good) {
    return Error{"node " + QuoteInput(address) +
                 " is not a host name or IPv4 address (letters, digits, '.' and '-')"};
  }
  return OkStatus();
}

Result<std::vector<std::string>> ParseNodeList(std::string_view text) {
  std::vector<std::string> nodes;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(',', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view entry = Trim(text.substr(start, end - start));
    if (entry.empty()) return Error{"--nodes " + QuoteInput(text) + " has an empty entry"};
    nodes.emplace_back(entry);
    start = end + 1;
  }
  return CheckNodes(std::move(nodes), "--nodes");
}

Result<std::vector<std::string>> ParseNodesFile(std::string_view content) {
  std::vector<std::string> nodes;
  size_t start = 0;
  while (start < content.size()) {
    size_t end = content.find('\n', start);
    if (end == std::string_view::npos) end = content.size();
    std::string_view line = content.substr(start, end - start);
    if (size_t hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
    line = Trim(line);
    if (!line.empty()) nodes.emplace_back(line);
    start = end + 1;
  }
  return CheckNodes(std::move(nodes), "--nodes-file");
}

Result<std::vector<std::string>> ReadNodesFile(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    return Error{"--nodes-file " + QuoteInput(path) + " is not a regular file"};
  }
  if (std::filesystem::file_size(path, ec) > (1u << 20)) {
    return Error{"--nodes-file " + QuoteInput(path) + " is larger than 1 MiB"};
  }
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in) return Error{"cannot read --nodes-file " + QuoteInput(path)};
  return ParseNodesFile(text.str());
}

}  // namespace locksmith

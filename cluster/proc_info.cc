#include "cluster/proc_info.h"

#include <dirent.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

namespace locksmith {

std::optional<ProcStat> ParseProcStat(std::string_view line) {
  size_t close = line.rfind(')');
  if (close == std::string_view::npos) return std::nullopt;
  std::istringstream in{std::string(line.substr(close + 1))};
  // After ")": field 3 is the state; starttime is field 22, i.e. the 20th
  // token after the state's position counting the state as the first.
  std::string token;
  ProcStat st;
  for (int field = 3; field <= 22; ++field) {
    if (!(in >> token)) return std::nullopt;
    if (field == 3) {
      if (token.size() != 1) return std::nullopt;
      st.state = token[0];
    } else if (field == 5) {
      if (token.find_first_not_of("-0123456789") != std::string::npos) return std::nullopt;
      st.pgrp = std::stoi(token);
    }
  }
  if (token.empty() || token.find_first_not_of("0123456789") != std::string::npos) {
    return std::nullopt;
  }
  st.start_time = std::stoull(token);
  return st;
}

std::optional<ProcStat> ReadProcStat(int pid) {
  if (pid <= 0) return std::nullopt;
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!in || !std::getline(in, line)) return std::nullopt;
  return ParseProcStat(line);
}

bool IsSameProcessAlive(int pid, uint64_t start_time) {
  auto st = ReadProcStat(pid);
  return st && st->state != 'Z' && st->state != 'X' && st->start_time == start_time;
}

Result<NetnsId> NetnsIdOf(const std::string& path) {
  struct stat sb;
  if (stat(path.c_str(), &sb) != 0) {
    return Error{"cannot stat network namespace " + path + ": " + std::strerror(errno)};
  }
  return NetnsId{sb.st_dev, sb.st_ino};
}

std::vector<int> PidsInNetns(const NetnsId& id) {
  std::vector<int> pids;
  DIR* dir = opendir("/proc");
  if (dir == nullptr) return pids;
  while (dirent* e = readdir(dir)) {
    char* end = nullptr;
    long pid = std::strtol(e->d_name, &end, 10);
    if (pid <= 0 || *end != '\0') continue;
    struct stat sb;
    std::string ns = std::string("/proc/") + e->d_name + "/ns/net";
    // Zombies have left their namespaces: stat fails for them, as it should.
    if (stat(ns.c_str(), &sb) == 0 && sb.st_dev == id.dev && sb.st_ino == id.ino) {
      pids.push_back(static_cast<int>(pid));
    }
  }
  closedir(dir);
  return pids;
}

std::vector<int> WaitUntilGone(const std::vector<std::pair<int, uint64_t>>& procs,
                               std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  std::vector<int> alive;
  while (true) {
    alive.clear();
    for (const auto& [pid, start] : procs) {
      if (IsSameProcessAlive(pid, start)) alive.push_back(pid);
    }
    if (alive.empty() || std::chrono::steady_clock::now() >= deadline) return alive;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

}  // namespace locksmith

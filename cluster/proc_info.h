// ProcInfo: small readers of /proc used to identify processes safely: the
// start time that tells a live process from a later one that reused its pid,
// and the network namespace a process is in (the `ip netns pids`
// equivalent). Free functions without state; thread-safe.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace locksmith {

struct ProcStat {
  char state = '?';         // R, S, D, Z, T, ...
  int pgrp = 0;             // process group (field 5)
  uint64_t start_time = 0;  // clock ticks after boot (field 22)
};

// Parses one /proc/<pid>/stat line. The command name may hold spaces and
// parentheses, so fields are counted after the last ')'.
std::optional<ProcStat> ParseProcStat(std::string_view line);
// Reads /proc/<pid>/stat; nullopt when the process does not exist.
std::optional<ProcStat> ReadProcStat(int pid);
// True while `pid` is a running (not zombie) process that started at
// `start_time`, i.e. it is still the process we recorded, not a pid reuse.
bool IsSameProcessAlive(int pid, uint64_t start_time);

// Identity of a network namespace (its nsfs inode).
struct NetnsId {
  dev_t dev = 0;
  ino_t ino = 0;
  bool operator==(const NetnsId&) const = default;
};
// The namespace a path refers to (/var/run/netns/<name> or /proc/<pid>/ns/net).
Result<NetnsId> NetnsIdOf(const std::string& path);
// Every live process whose network namespace is `id`.
std::vector<int> PidsInNetns(const NetnsId& id);

// Polls until each (pid, start_time) is gone or a zombie, up to `timeout`;
// returns those still alive.
std::vector<int> WaitUntilGone(const std::vector<std::pair<int, uint64_t>>& procs,
                               std::chrono::milliseconds timeout);

}  // namespace locksmith

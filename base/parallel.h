// ForEachInParallel: per-host work (commands on every test host, each in its
// own namespace or over its own ssh connection) run at once instead of one
// host after another, so a step on N hosts costs about one host's time.
// Thread-safe as long as `work` is for distinct i.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "base/result.h"

namespace locksmith {

// Runs `work(i)` for every i in [0, n) on its own thread and waits for all;
// the errors, in order of i, joined with "; ".
inline Status ForEachInParallel(size_t n, const std::function<Status(size_t)>& work) {
  std::vector<Status> results(n, OkStatus());
  std::vector<std::thread> threads;
  threads.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    threads.emplace_back([&, i] { results[i] = work(i); });
  }
  for (auto& t : threads) t.join();
  std::string errors;
  for (const auto& r : results) {
    if (!r) errors += (errors.empty() ? "" : "; ") + r.error();
  }
  if (!errors.empty()) return Error{errors};
  return OkStatus();
}

}  // namespace locksmith

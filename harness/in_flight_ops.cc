#include "harness/in_flight_ops.h"

#include <algorithm>
#include <cstdio>
#include <vector>

namespace locksmith {
namespace {

// The resource's own process (its set-up and final reads): past every worker's.
constexpr int64_t kFirstNonWorkerProcess = 1'000'000'000;

std::string Seconds(int64_t ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f s", static_cast<double>(ns) / 1e9);
  return buf;
}

}  // namespace

OpStamp InFlightOps::Record(Op op) {
  const int64_t process = op.process;
  const bool invoke = op.type == OpType::kInvoke;
  std::pair<int64_t, std::string> at{process, invoke ? std::string() : op.f};
  std::string key;
  if (invoke) {
    at.second = op.f;
    key = op.key;
  }
  const OpStamp stamp = inner_.Record(std::move(op));
  if (process == kServiceProcess) return stamp;  // the service's event reports are lone infos
  std::lock_guard lock(mu_);
  if (invoke) {
    open_[std::move(at)] = Opened{std::move(key), stamp.time};
  } else {
    open_.erase(at);
  }
  return stamp;
}

size_t InFlightOps::open() const {
  std::lock_guard lock(mu_);
  return open_.size();
}

std::string InFlightOps::Describe(std::chrono::nanoseconds now, size_t named) const {
  const int64_t now_ns = now.count();
  struct Entry {
    int64_t since;
    std::string text;
  };
  std::vector<Entry> entries;
  {
    std::lock_guard lock(mu_);
    for (const auto& [at, opened] : open_) {
      const auto& [process, f] = at;
      std::string who;
      if (process == kNemesisProcess) {
        who = "the nemesis";
      } else if (process >= 0 && process < kFirstNonWorkerProcess && concurrency_ > 0) {
        who = "worker " + std::to_string(process % concurrency_) + " (process " +
              std::to_string(process) + ")";
      } else {
        who = "process " + std::to_string(process);
      }
      std::string text = who + " in " + f;
      if (!opened.key.empty()) text += " " + opened.key;
      text += " for " + Seconds(now_ns - opened.since);
      entries.push_back({opened.since, std::move(text)});
    }
  }
  std::stable_sort(entries.begin(), entries.end(),
                   [](const Entry& a, const Entry& b) { return a.since < b.since; });
  std::string out;
  for (size_t i = 0; i < entries.size() && i < named; ++i) {
    if (!out.empty()) out += ", ";
    out += entries[i].text;
  }
  if (entries.size() > named) {
    out += " (and " + std::to_string(entries.size() - named) + " more)";
  }
  return out;
}

}  // namespace locksmith

#include "checker/key_spool.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>

namespace locksmith {
namespace {

// What an op holds in memory, roughly: enough to keep the budget honest.
size_t ApproximateBytes(const Op& op) {
  return sizeof(Op) + op.f.size() + op.key.size() + op.error.size() +
         (op.value.is_null() ? 0 : 64) + (op.fault.is_null() ? 0 : 64);
}

}  // namespace

KeySpool::~KeySpool() {
  if (dir_.empty()) return;
  for (const auto& [key, filed] : filed_) {
    if (!filed.file.empty()) ::unlink(filed.file.c_str());
  }
  ::rmdir(dir_.c_str());
}

Status KeySpool::Add(const std::string& key, const Op& op) {
  auto [it, fresh] = filed_.try_emplace(key);
  if (fresh) keys_.push_back(key);
  it->second.ops.push_back(op);
  held_bytes_ += ApproximateBytes(op);
  if (held_bytes_ > budget_) return Spill();
  return OkStatus();
}

Status KeySpool::Spill() {
  if (dir_.empty()) {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") +
                          "/locksmith-spool-XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) {
      return Error{"cannot create a spool directory " + pattern + ": " + std::strerror(errno)};
    }
    dir_ = pattern;
  }
  size_t n = 0;
  for (const std::string& key : keys_) {
    Filed& filed = filed_[key];
    ++n;
    if (filed.ops.empty()) continue;
    if (filed.file.empty()) filed.file = dir_ + "/" + std::to_string(n) + ".jsonl";
    std::ofstream out(filed.file, std::ios::app);
    for (const Op& op : filed.ops) out << OpToJsonLine(op) << '\n';
    if (!out.flush()) return Error{"cannot write " + filed.file + ": " + std::strerror(errno)};
    History().swap(filed.ops);
  }
  held_bytes_ = 0;
  return OkStatus();
}

Result<History> KeySpool::Take(const std::string& key) {
  auto it = filed_.find(key);
  if (it == filed_.end()) return History();
  History ops;
  if (!it->second.file.empty()) {
    std::ifstream in(it->second.file);
    std::string line;
    while (std::getline(in, line)) {
      auto op = ParseOpLine(line);
      if (!op) return Error{it->second.file + ": " + op.error()};
      ops.push_back(std::move(*op));
    }
    ::unlink(it->second.file.c_str());
    it->second.file.clear();
  }
  for (Op& op : it->second.ops) ops.push_back(std::move(op));
  History().swap(it->second.ops);
  return ops;
}

}  // namespace locksmith

#include "checker/key_spool.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <utility>

namespace locksmith {

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
  Filed& filed = it->second;
  const size_t before = filed.records.size();
  filed.encoder.Encode(op, &filed.records);
  ++filed.ops;
  held_bytes_ += filed.records.size() - before;
  if (held_bytes_ > budget_) return Spill();
  return OkStatus();
}

namespace {

// Appends `records` to `file` (a new file starts with the log's magic).
Status AppendRecords(const std::string& file, bool fresh, const std::string& records) {
  std::ofstream out(file, std::ios::app | std::ios::binary);
  if (fresh) out.write(kHistoryLogMagic.data(), static_cast<std::streamsize>(kHistoryLogMagic.size()));
  out.write(records.data(), static_cast<std::streamsize>(records.size()));
  if (!out.flush()) return Error{"cannot write " + file + ": " + std::strerror(errno)};
  return OkStatus();
}

}  // namespace

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
    if (filed.records.empty()) continue;
    const bool fresh = filed.file.empty();
    if (fresh) filed.file = dir_ + "/" + std::to_string(n) + ".bin";
    if (Status s = AppendRecords(filed.file, fresh, filed.records); !s) return s;
    filed.file_bytes += filed.records.size();
    std::string().swap(filed.records);
  }
  held_bytes_ = 0;
  return OkStatus();
}

size_t KeySpool::EncodedBytes(const std::string& key) const {
  auto it = filed_.find(key);
  return it == filed_.end() ? 0 : it->second.file_bytes + it->second.records.size();
}

Result<std::unique_ptr<HistoryLogStream>> KeySpool::TakeStream(const std::string& key,
                                                               size_t* ops) {
  if (ops != nullptr) *ops = 0;
  auto it = filed_.find(key);
  Filed* filed = it == filed_.end() ? nullptr : &it->second;
  Result<std::unique_ptr<HistoryLogStream>> stream = Error{""};
  if (filed == nullptr || filed->file.empty()) {
    stream = HistoryLogStream::FromBytes(
        std::string(kHistoryLogMagic) + (filed != nullptr ? filed->records : ""),
        "spooled ops of key " + key, false);
  } else {
    if (Status s = AppendRecords(filed->file, false, filed->records); !s) return Error{s.error()};
    stream = HistoryLogStream::Open(filed->file, false);
    // The stream holds the file open: its name can go at once.
    ::unlink(filed->file.c_str());
    filed->file.clear();
    filed->file_bytes = 0;
  }
  if (filed != nullptr) {
    std::string().swap(filed->records);
    filed->encoder = HistoryLogEncoder();
    const size_t filed_ops = std::exchange(filed->ops, 0);
    if (ops != nullptr) *ops = filed_ops;
  }
  return stream;
}

Result<History> KeySpool::Take(const std::string& key) {
  size_t expected_ops = 0;
  auto stream = TakeStream(key, &expected_ops);
  if (!stream) return Error{stream.error()};
  return ReadAll(**stream, expected_ops);
}

}  // namespace locksmith

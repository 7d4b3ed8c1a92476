#include "history/history_log.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "base/crc32c.h"
#include "base/input_file.h"
#include "base/json_input.h"
#include "base/json_output.h"

namespace locksmith {
namespace {

constexpr char kStringRecord = 'S';
constexpr char kOpRecord = 'O';
constexpr char kClosingRecord = 'E';
constexpr uint8_t kHasValue = 1;
constexpr uint8_t kHasFault = 2;
// String references: 0 the empty string, 1 a string written inline (long,
// or past the table's size), 2 + n the n-th defined string.
constexpr uint64_t kInlineString = 1;
constexpr uint64_t kFirstStringId = 2;
// Strings are numbered only while they are few and short: keys, f names and
// errors repeat; an error that embeds a changing detail must not grow the
// table without bound.
constexpr size_t kMaxInternedBytes = 256;
constexpr size_t kMaxInternedStrings = 65536;
constexpr size_t kReadChunk = 64 * 1024;
constexpr uint64_t kCrcBytes = 4;

void PutVarint(uint64_t v, std::string* out) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>((v & 0x7F) | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

uint64_t ZigZag(int64_t v) {
  return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}
int64_t UnZigZag(uint64_t v) { return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1); }

// a + b modulo 2^64: deltas of any two int64 values round-trip, and a
// corrupt one cannot overflow.
int64_t Wrapping(int64_t a, uint64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) + b);
}

}  // namespace

bool HasHistoryLogMagic(std::string_view prefix) {
  const std::string_view name = kHistoryLogMagic.substr(0, kHistoryLogMagic.size() - 1);
  return prefix.size() >= kHistoryLogMagic.size() && prefix.substr(0, name.size()) == name;
}

void HistoryLogEncoder::AppendString(const std::string& s, std::string* payload,
                                     std::string* out) {
  if (s.empty()) return PutVarint(0, payload);
  if (auto it = ids_.find(s); it != ids_.end()) return PutVarint(it->second, payload);
  if (s.size() > kMaxInternedBytes || ids_.size() >= kMaxInternedStrings) {
    PutVarint(kInlineString, payload);
    PutVarint(s.size(), payload);
    payload->append(s);
    return;
  }
  const uint64_t id = kFirstStringId + ids_.size();
  ids_.emplace(s, id);
  PutVarint(s.size() + 1, out);
  const size_t start = out->size();
  out->push_back(kStringRecord);
  out->append(s);
  const uint32_t crc = Crc32c(std::string_view(*out).substr(start));
  for (int i = 0; i < 4; ++i) out->push_back(static_cast<char>(crc >> (8 * i)));
  PutVarint(id, payload);
}

void HistoryLogEncoder::AppendRecord(std::string_view payload, std::string* out) {
  PutVarint(payload.size(), out);
  out->append(payload);
  const uint32_t crc = Crc32c(payload);
  for (int i = 0; i < 4; ++i) out->push_back(static_cast<char>(crc >> (8 * i)));
}

void HistoryLogEncoder::EncodeClosing(HistoryClosing closing, std::string* out) {
  closing.ops = ops_;
  closing.faults = faults_;
  std::string payload(1, kClosingRecord);
  payload += closing.ToJson().dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  AppendRecord(payload, out);
}

void HistoryLogEncoder::Encode(const Op& op, std::string* out) {
  payload_.clear();
  payload_.push_back(kOpRecord);
  PutVarint(ZigZag(Wrapping(op.index, 0 - static_cast<uint64_t>(last_index_))), &payload_);
  PutVarint(ZigZag(Wrapping(op.time, 0 - static_cast<uint64_t>(last_time_))), &payload_);
  last_index_ = op.index;
  last_time_ = op.time;
  PutVarint(ZigZag(op.process), &payload_);
  payload_.push_back(static_cast<char>(op.type));
  AppendString(op.f, &payload_, out);
  AppendString(op.key, &payload_, out);
  AppendString(op.error, &payload_, out);
  const uint8_t flags =
      (op.value.is_null() ? 0 : kHasValue) | (op.fault.is_null() ? 0 : kHasFault);
  payload_.push_back(static_cast<char>(flags));
  // Values are string references too: an invoke's arguments often repeat
  // (every acquire asks for the same lease), so a value the last invoke of
  // the same f had too is numbered; others (a release's token, a
  // completion's results) are written inline, so unique ones never fill
  // the table.
  for (const nlohmann::json* j : {&op.value, &op.fault}) {
    if (j->is_null()) continue;
    std::string& text = text_;  // its capacity reused from op to op
    text.clear();
    AppendCompactJson(*j, &text);  // dump()'s text, faster for flat values
    std::string* last = nullptr;
    if (op.type == OpType::kInvoke && j == &op.value) {
      if (auto it = last_values_.find(op.f); it != last_values_.end()) {
        last = &it->second;
      } else if (last_values_.size() < kMaxInternedStrings) {
        last = &last_values_[op.f];
      }
    }
    if (ids_.contains(text) || (last != nullptr && *last == text)) {
      AppendString(text, &payload_, out);
    } else {
      PutVarint(kInlineString, &payload_);
      PutVarint(text.size(), &payload_);
      payload_.append(text);
    }
    if (last != nullptr) *last = text;
  }
  AppendRecord(payload_, out);
  ++ops_;
  if (BeginsFaultWindow(op)) ++faults_;
}

// Reads a payload field by field; every read says whether the bytes held it.
class PayloadReader {
 public:
  explicit PayloadReader(std::string_view bytes) : bytes_(bytes) {}
  bool Varint(uint64_t* v) {
    *v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos_ >= bytes_.size()) return false;
      const auto b = static_cast<unsigned char>(bytes_[pos_++]);
      *v |= static_cast<uint64_t>(b & 0x7F) << shift;
      if ((b & 0x80) == 0) return true;
    }
    return false;
  }
  bool Byte(uint8_t* b) {
    if (pos_ >= bytes_.size()) return false;
    *b = static_cast<uint8_t>(bytes_[pos_++]);
    return true;
  }
  bool Bytes(uint64_t n, std::string_view* out) {
    if (n > bytes_.size() - pos_) return false;
    *out = bytes_.substr(pos_, n);
    pos_ += n;
    return true;
  }
  bool at_end() const { return pos_ == bytes_.size(); }

 private:
  std::string_view bytes_;
  size_t pos_ = 0;
};

HistoryLogStream::HistoryLogStream(std::FILE* file, std::string bytes, std::string source,
                                   bool allow_tail, std::shared_ptr<const LogExtent> extent)
    : file_(file),
      extent_(std::move(extent)),
      buffer_(std::move(bytes)),
      source_(std::move(source)),
      allow_truncated_tail_(allow_tail) {}

HistoryLogStream::~HistoryLogStream() {
  if (file_ != nullptr) std::fclose(file_);
}

Result<std::unique_ptr<HistoryLogStream>> HistoryLogStream::Open(
    const std::string& path, bool allow_truncated_tail, std::shared_ptr<const LogExtent> extent) {
  auto opened = OpenRegularFileStream(path);
  if (!opened) return Error{opened.error()};
  std::FILE* file = *opened;
  std::unique_ptr<HistoryLogStream> stream(
      new HistoryLogStream(file, "", path, allow_truncated_tail, std::move(extent)));
  if (Status s = stream->Rewind(); !s) return Error{s.error()};
  return stream;
}

Result<std::unique_ptr<HistoryLogStream>> HistoryLogStream::FromBytes(std::string bytes,
                                                                      std::string source,
                                                                      bool allow_truncated_tail) {
  std::unique_ptr<HistoryLogStream> stream(new HistoryLogStream(
      nullptr, std::move(bytes), std::move(source), allow_truncated_tail, nullptr));
  if (Status s = stream->Rewind(); !s) return Error{s.error()};
  return stream;
}

Status HistoryLogStream::Rewind() {
  if (file_ != nullptr) {
    if (std::fseek(file_, 0, SEEK_SET) != 0) {
      return Error{"cannot rewind " + source_ + ": " + std::strerror(errno)};
    }
    std::clearerr(file_);
    buffer_.clear();
  }
  pos_ = 0;
  offset_ = 0;
  record_no_ = 0;
  last_index_ = 0;
  last_time_ = 0;
  strings_.clear();
  values_.clear();
  skipped_.clear();
  end_ = HistoryEnd{};
  auto have = Have(kHistoryLogMagic.size());
  if (!have) return Error{have.error()};
  const std::string_view head = std::string_view(buffer_).substr(pos_);
  if (!*have || !HasHistoryLogMagic(head)) {
    return Error{source_ + ": not a history log (its first bytes are not the magic " +
                 "\"LKSMHST\\x01\")"};
  }
  const std::string_view magic = head.substr(0, kHistoryLogMagic.size());
  if (magic != kHistoryLogMagic && magic != kHistoryLogMagicV1) {
    return Error{source_ + ": a history log of version " +
                 std::to_string(static_cast<unsigned char>(magic.back())) +
                 ", which this locksmith does not read (it reads versions " +
                 std::to_string(static_cast<unsigned char>(kHistoryLogMagicV1.back())) + " and " +
                 std::to_string(static_cast<unsigned char>(kHistoryLogMagic.back())) + ")"};
  }
  version_ = static_cast<unsigned char>(magic.back());
  pos_ += kHistoryLogMagic.size();
  offset_ += kHistoryLogMagic.size();
  end_.whole_bytes = offset_;
  return OkStatus();
}

Result<bool> HistoryLogStream::Have(size_t n) {
  while (buffer_.size() - pos_ < n) {
    if (file_ == nullptr) return false;
    buffer_.erase(0, pos_);
    pos_ = 0;
    const size_t old = buffer_.size();
    const size_t want = Readable(std::max(kReadChunk, n - old));
    if (want == 0) return false;
    buffer_.resize(old + want);
    const size_t got = std::fread(buffer_.data() + old, 1, want, file_);
    buffer_.resize(old + got);
    if (got == 0) {
      if (std::ferror(file_)) return Error{"cannot read " + source_ + ": " + std::strerror(errno)};
      return false;
    }
  }
  return true;
}

size_t HistoryLogStream::Readable(size_t want) const {
  if (extent_ == nullptr) return want;
  // buffer_ holds the file's bytes from offset_ on, and nothing unread is
  // left of what it held before: the next byte to read is at offset_ + size.
  const uint64_t read = offset_ + (buffer_.size() - pos_);
  const LogExtent::State state = extent_->WaitBeyond(read);
  if (state.bytes <= read) return 0;  // sealed
  // A read that once met the end of the file must not stop at it again.
  std::clearerr(file_);
  return static_cast<size_t>(std::min<uint64_t>(want, state.bytes - read));
}

Error HistoryLogStream::Corrupt(const std::string& reason) const {
  return Error{source_ + ": record " + std::to_string(record_no_) + " (byte " +
               std::to_string(record_offset_) + "): " + reason};
}

Result<bool> HistoryLogStream::NextRecord() {
  record_offset_ = offset_;
  auto any = Have(1);
  if (!any) return Error{any.error()};
  if (!*any) return false;
  ++record_no_;
  // The length, a varint of at most 10 bytes; the payload; its CRC.
  uint64_t length = 0;
  size_t used = 0;
  bool torn = false;
  for (int shift = 0;; shift += 7) {
    auto more = Have(used + 1);
    if (!more) return Error{more.error()};
    if (!*more) {
      torn = true;
      break;
    }
    const auto b = static_cast<unsigned char>(buffer_[pos_ + used++]);
    if (shift > 56) return Corrupt("its length is not a number");
    length |= static_cast<uint64_t>(b & 0x7F) << shift;
    if ((b & 0x80) == 0) break;
  }
  if (!torn && (length == 0 || length > kMaxRecordBytes)) {
    return Corrupt("a length of " + std::to_string(length) + " bytes");
  }
  if (!torn) {
    auto whole = Have(used + length + kCrcBytes);
    if (!whole) return Error{whole.error()};
    torn = !*whole;
  }
  std::string_view frame;
  if (!torn) {
    frame = std::string_view(buffer_).substr(pos_ + used, length + kCrcBytes);
    uint32_t crc = 0;
    for (int i = 0; i < 4; ++i) {
      crc |= static_cast<uint32_t>(static_cast<unsigned char>(frame[length + i])) << (8 * i);
    }
    if (crc != Crc32c(frame.substr(0, length))) {
      // A bad last record is a write a crash cut short; one with records
      // after it is damage.
      auto after = Have(used + length + kCrcBytes + 1);
      if (!after) return Error{after.error()};
      if (*after) return Corrupt("its checksum does not match");
      frame = {};
      torn = true;
    }
  }
  if (torn) {
    if (!allow_truncated_tail_) return Corrupt("the last record is cut short");
    skipped_.push_back(SkippedLine{record_no_, "record cut short", /*record=*/true});
    pos_ = buffer_.size();
    if (file_ != nullptr) std::fseek(file_, 0, SEEK_END);
    return false;
  }
  payload_.assign(frame.substr(0, length));
  pos_ += used + length + kCrcBytes;
  offset_ += used + length + kCrcBytes;
  end_.records = record_no_;
  end_.whole_bytes = offset_;
  return true;
}

Status HistoryLogStream::ReadString(PayloadReader& in, std::string_view* text,
                                    size_t* table_index) const {
  uint64_t ref = 0;
  if (!in.Varint(&ref)) return Corrupt("an op cut short");
  if (table_index != nullptr) *table_index = kNotInTable;
  if (ref == 0) {
    *text = {};
  } else if (ref == kInlineString) {
    uint64_t n = 0;
    if (!in.Varint(&n) || !in.Bytes(n, text)) return Corrupt("a string cut short");
  } else if (ref - kFirstStringId < strings_.size()) {
    *text = strings_[ref - kFirstStringId];
    if (table_index != nullptr) *table_index = ref - kFirstStringId;
  } else {
    return Corrupt("a string number never defined");
  }
  return OkStatus();
}

Result<bool> HistoryLogStream::Decode(Op* op) {
  PayloadReader in(payload_);
  uint8_t kind = 0;
  in.Byte(&kind);  // a record has at least one byte
  if (end_.closing) return Corrupt("a record after the closing record");
  if (kind == kClosingRecord && version_ >= 2) {
    if (Status s = DecodeClosing(std::string_view(payload_).substr(1)); !s) return Error{s.error()};
    return false;
  }
  if (kind == kStringRecord) {
    strings_.push_back(payload_.substr(1));
    return false;
  }
  if (kind != kOpRecord) return Corrupt("an unknown record kind");
  uint64_t index = 0, time = 0, process = 0;
  uint8_t type = 0, flags = 0;
  if (!in.Varint(&index) || !in.Varint(&time) || !in.Varint(&process) || !in.Byte(&type)) {
    return Corrupt("an op cut short");
  }
  if (type > static_cast<uint8_t>(OpType::kInfo)) return Corrupt("an unknown op type");
  // Every other field of the op is set below: its strings keep their
  // buffers from the op decoded into it before.
  op->value = nullptr;
  op->fault = nullptr;
  last_index_ = Wrapping(last_index_, static_cast<uint64_t>(UnZigZag(index)));
  last_time_ = Wrapping(last_time_, static_cast<uint64_t>(UnZigZag(time)));
  op->index = last_index_;
  op->time = last_time_;
  op->process = UnZigZag(process);
  if (op->process < kServiceProcess) return Corrupt("a process number below -2");
  op->type = static_cast<OpType>(type);
  for (std::string* s : {&op->f, &op->key, &op->error}) {
    std::string_view text;
    if (Status read = ReadString(in, &text); !read) return Error{read.error()};
    s->assign(text);
  }
  if (op->f.empty()) return Corrupt("an op without f");
  if (!in.Byte(&flags) || (flags & ~(kHasValue | kHasFault)) != 0) return Corrupt("bad flags");
  for (auto [bit, j] : {std::pair{kHasValue, &op->value}, std::pair{kHasFault, &op->fault}}) {
    if ((flags & bit) == 0) continue;
    std::string_view text;
    size_t at = kNotInTable;
    if (Status read = ReadString(in, &text, &at); !read) return Error{read.error()};
    // A numbered value is parsed once: its copies are cheaper than parses.
    if (at != kNotInTable && at < values_.size() && !values_[at].is_discarded()) {
      *j = values_[at];
      continue;
    }
    auto parsed = ParseJsonInput(text);
    if (!parsed) return Corrupt(parsed.error());
    *j = std::move(parsed).value();
    if (at != kNotInTable) {
      if (values_.size() <= at) values_.resize(at + 1, nlohmann::json::value_t::discarded);
      values_[at] = *j;
    }
  }
  if (!op->fault.is_null()) {
    auto mark = FaultMarkFromJson(op->fault);
    if (!mark) return Corrupt(mark.error());
    if (mark->begins) ++end_.faults;
  }
  if (!in.at_end()) return Corrupt("bytes after the op");
  ++end_.ops;
  return true;
}

Status HistoryLogStream::DecodeClosing(std::string_view json) {
  auto parsed = ParseJsonInput(json);
  if (!parsed) return Corrupt(parsed.error());
  auto closing = HistoryClosingFromJson(*parsed);
  if (!closing) return Corrupt(closing.error());
  end_.closing = std::move(*closing);
  return OkStatus();
}

Result<bool> HistoryLogStream::Next(Op* op) {
  for (;;) {
    auto more = NextRecord();
    if (!more || !*more) return more;
    auto decoded = Decode(op);
    if (!decoded || *decoded) return decoded;
  }
}

Result<History> ParseHistoryLog(std::string bytes, const std::string& source,
                                std::vector<SkippedLine>* skipped) {
  auto stream = HistoryLogStream::FromBytes(std::move(bytes), source);
  if (!stream) return Error{stream.error()};
  auto history = ReadAll(**stream);
  if (history && skipped != nullptr) {
    for (const SkippedLine& s : (*stream)->skipped()) skipped->push_back(s);
  }
  return history;
}

Result<std::unique_ptr<OpStream>> OpenHistoryStream(const std::string& path) {
  auto fd = OpenRegularFile(path);
  if (!fd) return Error{fd.error()};
  char head[kHistoryLogMagic.size()];
  const ssize_t n = ::pread(*fd, head, sizeof head, 0);
  ::close(*fd);
  if (n == static_cast<ssize_t>(sizeof head) &&
      HasHistoryLogMagic(std::string_view(head, sizeof head))) {
    auto log = HistoryLogStream::Open(path);
    if (!log) return Error{log.error()};
    return std::unique_ptr<OpStream>(std::move(*log));
  }
  auto jsonl = JsonlOpStream::Open(path);
  if (!jsonl) return Error{jsonl.error()};
  return std::unique_ptr<OpStream>(std::move(*jsonl));
}

std::string RunHistoryFile(const std::string& run_dir) {
  const std::string log = run_dir + "/" + kRunHistoryLog;
  struct stat st;
  if (::stat(log.c_str(), &st) == 0) return log;
  return run_dir + "/history.jsonl";
}

Result<History> ReadRunHistory(const std::string& run_dir, std::vector<SkippedLine>* skipped,
                               uint64_t max_bytes) {
  const std::string path = RunHistoryFile(run_dir);
  auto bytes = ReadInputFile(path, max_bytes, kRaiseHistoryLimit);
  if (!bytes) return Error{bytes.error()};
  if (HasHistoryLogMagic(*bytes)) return ParseHistoryLog(std::move(*bytes), path, skipped);
  auto history = ParseHistoryJsonl(*bytes, /*allow_truncated_tail=*/true, skipped);
  if (!history) return Error{path + ": " + history.error()};
  return history;
}

}  // namespace locksmith

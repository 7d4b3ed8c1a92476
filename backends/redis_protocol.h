// RESP2 framing for RedisConnection: RedisReply (a parsed reply as a plain
// value), AppendRedisCommand (encodes one command as a RESP array of bulk
// strings, appending to a reusable buffer so the hot path does not allocate),
// and RedisReplyParser (hiredis's redisReader with reply-object hooks that
// build RedisReply in place instead of malloc'ing a redisReply per reply).
// Thread-safety: none; each connection owns its own parser and buffers.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

struct redisReader;

namespace locksmith {

struct RedisReply {
  enum class Type { kNil, kStatus, kError, kInteger, kString, kArray };
  Type type = Type::kNil;
  int64_t integer = 0;               // kInteger
  std::string str;                   // kStatus, kError, kString
  std::vector<RedisReply> elements;  // kArray

  bool IsStatus(std::string_view s) const { return type == Type::kStatus && str == s; }
  // True for an error reply whose code (first word) is `code`, e.g. "NOSCRIPT".
  bool IsError(std::string_view code) const;
  // "nil", "status OK", "error ERR ...", "integer 1", "string ...", "array[3]".
  std::string Describe() const;
};

// Appends `*N\r\n$len\r\narg\r\n...` to `out`: byte-for-byte what hiredis's
// redisFormatCommandArgv produces, without its per-command malloc.
void AppendRedisCommand(std::string& out, std::span<const std::string_view> args);

class RedisReplyParser {
 public:
  enum class State { kReply, kNeedMore, kError };

  RedisReplyParser();
  ~RedisReplyParser();
  RedisReplyParser(const RedisReplyParser&) = delete;
  RedisReplyParser& operator=(const RedisReplyParser&) = delete;

  // Forgets any partial reply (a new connection starts a new stream).
  void Reset();
  // Appends bytes read from the socket; false once the stream is corrupt.
  bool Feed(const char* data, size_t size);
  // kReply: `out` holds the next complete reply. kNeedMore: feed more bytes.
  // kError: protocol error (see error()); the stream cannot be resynchronised.
  State Next(RedisReply& out);
  std::string error() const;

 private:
  redisReader* reader_ = nullptr;
  RedisReply root_;  // the reply being built; hiredis writes into it via hooks
};

}  // namespace locksmith

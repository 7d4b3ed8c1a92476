#include "backends/redis_protocol.h"

#include <charconv>
#include <cstring>
#include <new>
#include <utility>

#include <hiredis/read.h>

namespace locksmith {
namespace {

// hiredis hands every reply object to these hooks with the task that describes
// where it goes: a root (parent == nullptr) lands in the parser's root_
// (reached through privdata), a child in its parent array's preallocated slot.
// Nothing is heap-allocated for scalar replies, and freeObject has nothing to do.
RedisReply* Slot(const redisReadTask* task) {
  if (task->parent == nullptr) {
    auto* root = static_cast<RedisReply*>(task->privdata);
    root->str.clear();
    root->elements.clear();
    root->integer = 0;
    return root;
  }
  auto* parent = static_cast<RedisReply*>(task->parent->obj);
  return &parent->elements[static_cast<size_t>(task->idx)];
}

void* CreateString(const redisReadTask* task, char* str, size_t len) {
  RedisReply* r = Slot(task);
  switch (task->type) {
    case REDIS_REPLY_STATUS:
      r->type = RedisReply::Type::kStatus;
      break;
    case REDIS_REPLY_ERROR:
      r->type = RedisReply::Type::kError;
      break;
    default:
      r->type = RedisReply::Type::kString;
      break;
  }
  r->str.assign(str, len);
  return r;
}

void* CreateArray(const redisReadTask* task, int elements) {
  RedisReply* r = Slot(task);
  r->type = RedisReply::Type::kArray;
  r->elements.resize(elements > 0 ? static_cast<size_t>(elements) : 0);
  return r;
}

void* CreateInteger(const redisReadTask* task, long long value) {
  RedisReply* r = Slot(task);
  r->type = RedisReply::Type::kInteger;
  r->integer = value;
  return r;
}

void* CreateNil(const redisReadTask* task) {
  RedisReply* r = Slot(task);
  r->type = RedisReply::Type::kNil;
  return r;
}

void FreeObject(void*) {}

redisReplyObjectFunctions kReplyFunctions = {CreateString, CreateArray, CreateInteger, CreateNil,
                                             FreeObject};

void AppendNumber(std::string& out, char prefix, size_t n) {
  char buf[24];
  buf[0] = prefix;
  auto [end, ec] = std::to_chars(buf + 1, buf + sizeof(buf) - 2, n);
  (void)ec;  // 22 digits always fit a size_t
  end[0] = '\r';
  end[1] = '\n';
  out.append(buf, static_cast<size_t>(end + 2 - buf));
}

}  // namespace

bool RedisReply::IsError(std::string_view code) const {
  if (type != Type::kError || str.size() < code.size()) return false;
  if (std::string_view(str).substr(0, code.size()) != code) return false;
  return str.size() == code.size() || str[code.size()] == ' ';
}

std::string RedisReply::Describe() const {
  switch (type) {
    case Type::kNil:
      return "nil";
    case Type::kStatus:
      return "status " + str;
    case Type::kError:
      return "error " + str;
    case Type::kInteger:
      return "integer " + std::to_string(integer);
    case Type::kString:
      return "string " + str;
    case Type::kArray:
      return "array[" + std::to_string(elements.size()) + "]";
  }
  return "?";
}

void AppendRedisCommand(std::string& out, std::span<const std::string_view> args) {
  AppendNumber(out, '*', args.size());
  for (std::string_view arg : args) {
    AppendNumber(out, '$', arg.size());
    out.append(arg);
    out.append("\r\n", 2);
  }
}

RedisReplyParser::RedisReplyParser() { Reset(); }

RedisReplyParser::~RedisReplyParser() {
  if (reader_ != nullptr) redisReaderFree(reader_);
}

void RedisReplyParser::Reset() {
  if (reader_ != nullptr) redisReaderFree(reader_);
  reader_ = redisReaderCreateWithFunctions(&kReplyFunctions);
  if (reader_ == nullptr) throw std::bad_alloc();
  reader_->privdata = &root_;
}

bool RedisReplyParser::Feed(const char* data, size_t size) {
  return redisReaderFeed(reader_, data, size) == REDIS_OK;
}

RedisReplyParser::State RedisReplyParser::Next(RedisReply& out) {
  void* reply = nullptr;
  if (redisReaderGetReply(reader_, &reply) != REDIS_OK) return State::kError;
  if (reply == nullptr) return State::kNeedMore;
  // Swapping (not copying) keeps string/vector capacity cycling between the
  // caller's value and root_, so steady-state parsing does not allocate.
  std::swap(out, root_);
  return State::kReply;
}

std::string RedisReplyParser::error() const {
  return reader_->err != 0 ? std::string(reader_->errstr) : std::string("no error");
}

}  // namespace locksmith

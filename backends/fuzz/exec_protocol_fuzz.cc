// libFuzzer target: arbitrary bytes as the lines a lock-client program writes
// on its stdout (docs/exec-clients.md), split on newlines as the exec
// client's reader splits them. Each line is parsed as the reader parses it,
// then handed to every decoder of a reply and of an event, whatever the
// line's op: a misbehaving program may write anything in reply to anything.
// Each line is either decoded, keeping the protocol's rules, or refused with
// an error of one line.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "backends/exec_protocol.h"
#include "history/fuzz/fuzz_common.h"

namespace locksmith {
namespace {

// What any decoded reply or event must keep, or fails the run.
void Require(bool holds) {
  if (!holds) std::abort();
}

// Text a program gave ends up in the history and the report: it must be
// valid UTF-8, which the strict dump (it throws otherwise) checks.
void CheckRecordable(const std::string& text) { nlohmann::json(text).dump(); }

void DecodeReplies(const nlohmann::json& body) {
  if (auto hello = DecodeHelloReply(body)) {
    Require(!hello->name.empty());
    CheckRecordable(hello->name);
    CheckRecordable(hello->version);
  } else {
    CheckErrorLine(hello.error());
  }
  if (auto acquired = DecodeAcquireReply(body, "exec-0-1")) {
    Require(acquired->outcome != Outcome::kOk || !acquired->token.empty());
    Require(!acquired->busy || acquired->outcome == Outcome::kFail);
    Require(!acquired->busy || !acquired->error.empty());
    CheckRecordable(acquired->token);
    CheckRecordable(acquired->error);
  } else {
    CheckErrorLine(acquired.error());
  }
  if (auto released = DecodeReleaseReply(body)) {
    CheckRecordable(released->error);
  } else {
    CheckErrorLine(released.error());
  }
  if (auto renewed = DecodeRenewReply(body)) {
    Require(!renewed->not_held || renewed->outcome == Outcome::kFail);
    CheckRecordable(renewed->error);
  } else {
    CheckErrorLine(renewed.error());
  }
  if (auto event = DecodeExecEvent(body)) {
    Require(event->kind == LockEvent::Kind::kLost && !event->key.empty());
    Require(!event->error.empty() && event->cut_off_ms >= -1);
    CheckRecordable(event->key);
    CheckRecordable(event->token);
    CheckRecordable(event->error);
  } else {
    CheckErrorLine(event.error());
  }
}

void FuzzLine(std::string_view line) {
  // The reader refuses a longer line before parsing it.
  if (line.size() > kMaxExecLineBytes) return;
  auto parsed = ParseExecLine(line);
  if (!parsed) {
    CheckErrorLine(parsed.error());
    return;
  }
  Require(parsed->body.is_object());
  if (parsed->is_event) {
    Require(parsed->body.contains("event") && !parsed->body.contains("id"));
  } else {
    Require(parsed->body.at("id").is_number_integer());
  }
  DecodeReplies(parsed->body);
}

}  // namespace
}  // namespace locksmith

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view rest(reinterpret_cast<const char*>(data), size);
  while (!rest.empty()) {
    const size_t end = std::min(rest.find('\n'), rest.size());
    locksmith::FuzzLine(rest.substr(0, end));
    rest.remove_prefix(std::min(end + 1, rest.size()));
  }
  return 0;
}

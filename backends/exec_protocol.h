// The exec client's protocol (docs/exec-clients.md) as pure functions: the
// `exec:PROGRAM ARGS...` client spec, the messages the harness writes to a
// lock-client program and the decoding of what the program writes back. A
// reply or event that does not follow the protocol is an error here, which
// the client turns into an info op naming the program. Pure; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "backends/lock_client.h"
#include "base/result.h"

namespace locksmith {

inline constexpr char kExecClientPrefix[] = "exec:";
// The longest line a program may write (its newline not counted).
inline constexpr size_t kMaxExecLineBytes = size_t{1} << 20;
inline constexpr int kExecProtocolVersion = 1;

// Whether `client` names an external program ("exec:...").
bool IsExecClient(std::string_view client);
// "exec:PROGRAM ARG..." (words split on spaces) -> {PROGRAM, ARG, ...}; an
// error of one line for an empty program.
Result<std::vector<std::string>> ParseExecClient(const std::string& client);
// A short name of an exec client for store directories and tables:
// "exec-" and the program's file name ("exec-lock_adapter.py"), or its
// script's when the program is an interpreter (`python3 adapter.py`): the
// first argument that is no option.
std::string ExecClientLabel(const std::string& client);
// A config file's {"exec": ["PROGRAM", "ARG", ...]} as the flag's text
// "exec:PROGRAM ARG ..."; an error naming the key when it is not an array of
// non-empty strings without spaces.
Result<std::string> ExecClientFromJson(const nlohmann::json& value);

// What the program says it can do (its handshake reply).
struct ExecCapabilities {
  bool fence = false;      // acquires carry a fencing token that only grows
  bool shared = false;     // acquire_shared / release_shared
  bool reentrant = false;  // a holder may acquire again
  bool renew = false;      // renew (an owner-checked lease extension)
  bool lock_lost = false;  // sends lock-lost events
};

struct ExecHello {
  std::string name;     // the library ("redis-py")
  std::string version;  // its version ("4.3.4")
  ExecCapabilities capabilities;
};

enum class ExecOp { kAcquire, kRelease, kAcquireShared, kReleaseShared, kRenew };
const char* ExecOpName(ExecOp op);

// The handshake request: id 0, op "hello", the run's facts (`facts`: an
// object) and the client's own (index, source address).
nlohmann::json ExecHelloRequest(const nlohmann::json& facts, int client,
                                const std::string& source_address);
Result<ExecHello> DecodeHelloReply(const nlohmann::json& reply);

// One request. lease_ms for acquires and renew, wait_ms for acquires, token
// for releases and renew (empty: left out).
struct ExecRequest {
  int64_t id = 0;
  ExecOp op = ExecOp::kAcquire;
  std::string key;
  std::string token;
  int64_t lease_ms = 0;
  int64_t wait_ms = 0;
};
nlohmann::json ExecRequestJson(const ExecRequest& request);

// A line the program wrote: a reply (it has an "id") or an event (it has an
// "event"). Errors say how the line breaks the protocol.
struct ExecLine {
  bool is_event = false;
  int64_t id = -1;  // a reply's
  nlohmann::json body;
};
Result<ExecLine> ParseExecLine(std::string_view line);

// A reply decoded for its op. An acquire that is ok without a token gets
// `fallback_token`. Errors: no valid "result", fields of the wrong type.
Result<AcquireResult> DecodeAcquireReply(const nlohmann::json& reply,
                                         const std::string& fallback_token);
Result<ReleaseResult> DecodeReleaseReply(const nlohmann::json& reply);
Result<ExtendResult> DecodeRenewReply(const nlohmann::json& reply);

// When the program reckoned an ok acquire's or renew's validity_ms: its
// CLOCK_MONOTONIC reading in ns ("validity_at_ns"), the clock the harness's
// steady_clock reads; nothing when the reply leaves it out. Errors: not a
// whole number >= 0.
Result<std::optional<int64_t>> DecodeValidityAt(const nlohmann::json& reply);
// The validity as of `now_ns`, the moment the harness stamps the op: the
// program reckoned `validity_ms` at `at_ns`, and the time since then is
// gone from it (rounded up); without `at_ns`, `validity_ms` counts from the
// harness's read of the reply, as it is. An instant outside the request's
// life, [sent_ns, read_ns], is an error: the program read another clock.
Result<int64_t> ValidityAsOf(int64_t validity_ms, std::optional<int64_t> at_ns, int64_t sent_ns,
                             int64_t read_ns, int64_t now_ns);

// A "lock-lost" event (the only kind); an error for any other.
Result<LockEvent> DecodeExecEvent(const nlohmann::json& event);

}  // namespace locksmith

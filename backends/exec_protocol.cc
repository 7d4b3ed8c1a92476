#include "backends/exec_protocol.h"

#include <algorithm>
#include <cctype>
#include <limits>

#include "base/ceil_millis.h"
#include "base/json_fields.h"
#include "base/json_input.h"
#include "base/option_set.h"

namespace locksmith {
namespace {

constexpr int64_t kMaxInt = std::numeric_limits<int64_t>::max();

// A line quoted in an error: its start, control characters escaped.
std::string Excerpt(std::string_view line) {
  constexpr size_t kShown = 80;
  if (line.size() <= kShown) return QuoteInput(line);
  return QuoteInput(line.substr(0, kShown)) + "...";
}

// The member `key` when it is a bool; `fallback` when absent or null.
Result<bool> BoolMember(const nlohmann::json& object, const char* key, bool fallback) {
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return fallback;
  if (!it->is_boolean()) return Error{std::string("\"") + key + "\" must be true or false"};
  return it->get<bool>();
}

// The reply's "result" as an Outcome.
Result<Outcome> ResultOf(const nlohmann::json& reply) {
  auto it = reply.find("result");
  if (it != reply.end() && it->is_string()) {
    const auto& text = it->get_ref<const std::string&>();
    if (text == "ok") return Outcome::kOk;
    if (text == "fail") return Outcome::kFail;
    if (text == "info") return Outcome::kUnknown;
  }
  return Error{"the reply's \"result\" must be \"ok\", \"fail\" or \"info\""};
}

}  // namespace

bool IsExecClient(std::string_view client) { return client.starts_with(kExecClientPrefix); }

Result<std::vector<std::string>> ParseExecClient(const std::string& client) {
  std::vector<std::string> argv;
  std::string_view rest(client);
  rest.remove_prefix(std::string_view(kExecClientPrefix).size());
  while (!rest.empty()) {
    const size_t start = rest.find_first_not_of(' ');
    if (start == std::string_view::npos) break;
    rest.remove_prefix(start);
    const size_t end = std::min(rest.find(' '), rest.size());
    argv.emplace_back(rest.substr(0, end));
    rest.remove_prefix(end);
  }
  if (argv.empty()) return Error{"--client exec: names no program (exec:PROGRAM [ARGS...])"};
  return argv;
}

std::string ExecClientLabel(const std::string& client) {
  auto argv = ParseExecClient(client);
  if (!argv) return "exec";
  auto base = [](const std::string& path) { return path.substr(path.find_last_of('/') + 1); };
  std::string name = base(argv->front());
  for (size_t i = 1; i < argv->size(); ++i) {
    if ((*argv)[i].starts_with("-")) continue;
    if (name.starts_with("python") || name == "node" || name == "java" || name == "sh" ||
        name == "bash") {
      name = base((*argv)[i]);
    }
    break;
  }
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-') c = '-';
  }
  return "exec-" + name;
}

Result<std::string> ExecClientFromJson(const nlohmann::json& value) {
  const char* must =
      "\"client\": {\"exec\": [...]} must be a non-empty array of strings without spaces";
  if (!value.is_object() || value.size() != 1 || !value.contains("exec")) return Error{must};
  const nlohmann::json& argv = value.at("exec");
  if (!argv.is_array() || argv.empty()) return Error{must};
  std::string text = kExecClientPrefix;
  for (const auto& word : argv) {
    if (!word.is_string()) return Error{must};
    const auto& s = word.get_ref<const std::string&>();
    if (s.empty() || s.find_first_of(" \t\n") != std::string::npos) return Error{must};
    text += (&word == &argv.front() ? "" : " ") + s;
  }
  return text;
}

const char* ExecOpName(ExecOp op) {
  switch (op) {
    case ExecOp::kAcquire: return "acquire";
    case ExecOp::kRelease: return "release";
    case ExecOp::kAcquireShared: return "acquire_shared";
    case ExecOp::kReleaseShared: return "release_shared";
    case ExecOp::kRenew: return "renew";
  }
  return "acquire";
}

nlohmann::json ExecHelloRequest(const nlohmann::json& facts, int client,
                                const std::string& source_address) {
  nlohmann::json hello = facts;
  hello["id"] = 0;
  hello["op"] = "hello";
  hello["protocol"] = kExecProtocolVersion;
  hello["client"] = client;
  hello["source_address"] = source_address;
  return hello;
}

Result<ExecHello> DecodeHelloReply(const nlohmann::json& reply) {
  JsonFields fields(reply, "the handshake reply");
  ExecHello hello;
  hello.name = fields.Text("name");
  hello.version = fields.Text("version");
  const nlohmann::json* caps = fields.Object("capabilities");
  if (Status s = fields.status(); !s) return Error{s.error()};
  if (hello.name.empty()) return Error{"the handshake reply has no \"name\""};
  if (caps == nullptr) return hello;
  ExecCapabilities& c = hello.capabilities;
  for (auto [key, field] : {std::pair{"fence", &c.fence}, std::pair{"shared", &c.shared},
                            std::pair{"reentrant", &c.reentrant}, std::pair{"renew", &c.renew},
                            std::pair{"lock_lost", &c.lock_lost}}) {
    auto value = BoolMember(*caps, key, false);
    if (!value) return Error{"the handshake reply's capabilities: " + value.error()};
    *field = *value;
  }
  return hello;
}

nlohmann::json ExecRequestJson(const ExecRequest& r) {
  nlohmann::json j = {{"id", r.id}, {"op", ExecOpName(r.op)}, {"key", r.key}};
  const bool acquire = r.op == ExecOp::kAcquire || r.op == ExecOp::kAcquireShared;
  if (acquire || r.op == ExecOp::kRenew) j["lease_ms"] = r.lease_ms;
  if (acquire) j["wait_ms"] = r.wait_ms;
  if (!acquire) j["token"] = r.token;
  return j;
}

Result<ExecLine> ParseExecLine(std::string_view line) {
  auto parsed = ParseJsonInput(line);
  if (!parsed) return Error{"printed a line that is not JSON: " + Excerpt(line)};
  ExecLine out;
  out.body = std::move(*parsed);
  if (!out.body.is_object()) return Error{"printed a line that is not a JSON object: " + Excerpt(line)};
  if (auto id = out.body.find("id"); id != out.body.end()) {
    if (!id->is_number_integer()) return Error{"printed a reply whose \"id\" is not a whole number: " + Excerpt(line)};
    out.id = id->get<int64_t>();
    return out;
  }
  if (out.body.contains("event")) {
    out.is_event = true;
    return out;
  }
  return Error{"printed a line with neither \"id\" nor \"event\": " + Excerpt(line)};
}

Result<AcquireResult> DecodeAcquireReply(const nlohmann::json& reply,
                                         const std::string& fallback_token) {
  auto outcome = ResultOf(reply);
  if (!outcome) return Error{outcome.error()};
  JsonFields fields(reply, "the reply");
  AcquireResult r;
  r.outcome = *outcome;
  r.token = fields.Text("token");
  const auto has_fence = reply.contains("fence") && !reply.at("fence").is_null();
  const int64_t fence = fields.Integer("fence", std::numeric_limits<int64_t>::min(), kMaxInt);
  r.validity_ms = fields.Integer("validity_ms", std::numeric_limits<int64_t>::min(), kMaxInt);
  r.error = fields.Text("error");
  if (Status s = fields.status(); !s) return Error{s.error()};
  auto busy = BoolMember(reply, "busy", true);
  if (!busy) return Error{"the reply's " + busy.error()};
  auto session = BoolMember(reply, "session_lease", false);
  if (!session) return Error{"the reply's " + session.error()};
  if (has_fence) r.fence = fence;
  r.session_lease = *session;
  r.busy = r.outcome == Outcome::kFail && *busy;
  if (r.outcome == Outcome::kFail && r.busy && r.error.empty()) r.error = kHeldByAnother;
  if (r.outcome == Outcome::kOk && r.token.empty()) r.token = fallback_token;
  return r;
}

Result<ReleaseResult> DecodeReleaseReply(const nlohmann::json& reply) {
  auto outcome = ResultOf(reply);
  if (!outcome) return Error{outcome.error()};
  JsonFields fields(reply, "the reply");
  ReleaseResult r{*outcome, fields.Text("error")};
  if (Status s = fields.status(); !s) return Error{s.error()};
  return r;
}

Result<ExtendResult> DecodeRenewReply(const nlohmann::json& reply) {
  auto outcome = ResultOf(reply);
  if (!outcome) return Error{outcome.error()};
  JsonFields fields(reply, "the reply");
  ExtendResult r;
  r.outcome = *outcome;
  r.validity_ms = fields.Integer("validity_ms", std::numeric_limits<int64_t>::min(), kMaxInt);
  r.error = fields.Text("error");
  if (Status s = fields.status(); !s) return Error{s.error()};
  auto not_held = BoolMember(reply, "not_held", false);
  if (!not_held) return Error{"the reply's " + not_held.error()};
  r.not_held = r.outcome == Outcome::kFail && *not_held;
  return r;
}

Result<std::optional<int64_t>> DecodeValidityAt(const nlohmann::json& reply) {
  const auto at = reply.find("validity_at_ns");
  if (at == reply.end() || at->is_null()) return std::optional<int64_t>();
  if (!at->is_number_integer() || (at->is_number_integer() && at->get<int64_t>() < 0)) {
    return Error{"the reply's \"validity_at_ns\" is not a CLOCK_MONOTONIC reading in whole ns"};
  }
  return std::optional<int64_t>(at->get<int64_t>());
}

Result<int64_t> ValidityAsOf(int64_t validity_ms, std::optional<int64_t> at_ns, int64_t sent_ns,
                             int64_t read_ns, int64_t now_ns) {
  if (!at_ns) return validity_ms;
  const int64_t at = *at_ns;
  if (at < sent_ns || at > read_ns) {
    return Error{"its \"validity_at_ns\" " + std::to_string(at) + " is not between the request (" +
                 std::to_string(sent_ns) + ") and the reply (" + std::to_string(read_ns) +
                 "): not CLOCK_MONOTONIC"};
  }
  return validity_ms - CeilMillis(std::chrono::nanoseconds(std::max<int64_t>(0, now_ns - at)));
}

Result<LockEvent> DecodeExecEvent(const nlohmann::json& event) {
  JsonFields fields(event, "the event");
  const std::string kind = fields.Text("event");
  LockEvent e;
  e.kind = LockEvent::Kind::kLost;
  e.key = fields.Text("key");
  e.token = fields.Text("token");
  e.error = fields.Text("error");
  e.cut_off_ms = fields.Integer("cut_off_ms", -1, kMaxInt);
  if (!event.contains("cut_off_ms")) e.cut_off_ms = -1;
  if (Status s = fields.status(); !s) return Error{s.error()};
  if (kind != "lock-lost") return Error{"sent an unknown event " + QuoteInput(kind)};
  if (e.key.empty()) return Error{"sent a lock-lost event without a \"key\""};
  if (e.error.empty()) e.error = "the library reported the lock lost";
  return e;
}

}  // namespace locksmith

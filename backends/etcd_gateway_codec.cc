#include "backends/etcd_gateway_codec.h"

#include <array>
#include <charconv>

namespace locksmith {
namespace {

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

// gRPC status codes the gateway reports.
constexpr int kInvalidArgument = 3;
constexpr int kNotFound = 5;
constexpr int kFailedPrecondition = 9;

int Sextet(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

bool Contains(const std::string& text, std::string_view part) {
  return text.find(part) != std::string::npos;
}

// A decimal in a string or a number, as the gateway writes 64-bit fields.
template <typename T>
Result<T> IntegerField(const nlohmann::json& object, const std::string& name, T fallback) {
  if (!object.is_object() || !object.contains(name)) return fallback;
  const nlohmann::json& v = object.at(name);
  if (v.is_number_integer()) return v.get<T>();
  if (!v.is_string()) return Error{"etcd reply: \"" + name + "\" is neither string nor integer"};
  const std::string& s = v.get_ref<const std::string&>();
  T out{};
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty()) {
    return Error{"etcd reply: \"" + name + "\" is not an integer: " + s.substr(0, 40)};
  }
  return out;
}

}  // namespace

std::string Base64Encode(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    const uint32_t v = static_cast<uint32_t>(static_cast<unsigned char>(bytes[i])) << 16 |
                       static_cast<uint32_t>(static_cast<unsigned char>(bytes[i + 1])) << 8 |
                       static_cast<unsigned char>(bytes[i + 2]);
    for (int shift = 18; shift >= 0; shift -= 6) out += kAlphabet[(v >> shift) & 63];
  }
  const size_t rest = bytes.size() - i;
  if (rest > 0) {
    uint32_t v = static_cast<uint32_t>(static_cast<unsigned char>(bytes[i])) << 16;
    if (rest == 2) v |= static_cast<uint32_t>(static_cast<unsigned char>(bytes[i + 1])) << 8;
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += rest == 2 ? kAlphabet[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

Result<std::string> Base64Decode(std::string_view text) {
  if (text.size() % 4 != 0) return Error{"base64: length is not a multiple of 4"};
  std::string out;
  out.reserve(text.size() / 4 * 3);
  for (size_t i = 0; i < text.size(); i += 4) {
    const bool last = i + 4 == text.size();
    const int pad = last ? (text[i + 3] == '=') + (text[i + 2] == '=') : 0;
    std::array<int, 4> s{};
    for (size_t k = 0; k < 4; ++k) {
      s[k] = k >= 4 - static_cast<size_t>(pad) ? 0 : Sextet(text[i + k]);
      if (s[k] < 0) return Error{"base64: not a base64 character"};
    }
    const uint32_t v = static_cast<uint32_t>(s[0]) << 18 | static_cast<uint32_t>(s[1]) << 12 |
                       static_cast<uint32_t>(s[2]) << 6 | static_cast<uint32_t>(s[3]);
    out += static_cast<char>((v >> 16) & 0xff);
    if (pad < 2) out += static_cast<char>((v >> 8) & 0xff);
    if (pad < 1) out += static_cast<char>(v & 0xff);
  }
  return out;
}

std::string EtcdLeaseGrantBody(int64_t ttl_s) { return nlohmann::json{{"TTL", ttl_s}}.dump(); }

std::string EtcdLeaseIdBody(int64_t lease_id) {
  return nlohmann::json{{"ID", std::to_string(lease_id)}}.dump();
}

std::string EtcdLockBody(std::string_view name, int64_t lease_id) {
  return nlohmann::json{{"name", Base64Encode(name)}, {"lease", std::to_string(lease_id)}}.dump();
}

std::string EtcdUnlockBody(std::string_view lock_key) {
  return nlohmann::json{{"key", Base64Encode(lock_key)}}.dump();
}

std::string EtcdRangeKeyBody(std::string_view key) {
  return nlohmann::json{{"key", Base64Encode(key)}, {"keys_only", true}}.dump();
}

Result<EtcdReply> ParseEtcdReply(int status, std::string_view body) {
  nlohmann::json parsed = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded() || !parsed.is_object()) {
    if (status != 200) {
      return EtcdReply{nullptr, EtcdError{0, "HTTP " + std::to_string(status) + ": " +
                                                 std::string(body.substr(0, 120))}};
    }
    return Error{"etcd reply is not a JSON object: " + std::string(body.substr(0, 120))};
  }
  // A streaming call's reply: {"result": ...} or {"error": ...}.
  if (parsed.contains("result") && parsed["result"].is_object()) parsed = parsed["result"];
  if (parsed.contains("error") && parsed["error"].is_object()) parsed = parsed["error"];
  const bool has_error =
      parsed.contains("error") || parsed.contains("code") || parsed.contains("grpc_code");
  if (status == 200 && !has_error) return EtcdReply{std::move(parsed), std::nullopt};
  EtcdError error;
  // A unary call's error says "code", a streaming call's "grpc_code".
  for (const char* field : {"code", "grpc_code"}) {
    auto code = IntegerField<int>(parsed, field, 0);
    if (code && *code != 0) error.code = *code;
  }
  for (const char* field : {"message", "error"}) {
    if (parsed.contains(field) && parsed[field].is_string()) {
      error.message = parsed[field].get<std::string>();
      break;
    }
  }
  if (error.message.empty()) error.message = "HTTP " + std::to_string(status);
  return EtcdReply{nullptr, std::move(error)};
}

bool EtcdLeaseNotFound(const EtcdError& error) {
  return Contains(error.message, "requested lease not found");
}

bool EtcdCertainlyNotApplied(const EtcdError& error) {
  if (EtcdLeaseNotFound(error)) return true;
  if (error.code == kInvalidArgument || error.code == kNotFound ||
      error.code == kFailedPrecondition) {
    return true;
  }
  // Refused before the request was proposed to the cluster.
  return Contains(error.message, "etcdserver: no leader") ||
         Contains(error.message, "etcdserver: not capable") ||
         Contains(error.message, "etcdserver: too many requests");
}

Result<int64_t> EtcdInt64Field(const nlohmann::json& object, const std::string& name,
                               int64_t fallback) {
  return IntegerField<int64_t>(object, name, fallback);
}

Result<EtcdLease> ParseLeaseGrant(const nlohmann::json& body) {
  auto id = EtcdInt64Field(body, "ID", 0);
  if (!id) return Error{id.error()};
  auto ttl = EtcdInt64Field(body, "TTL", 0);
  if (!ttl) return Error{ttl.error()};
  if (*id == 0 || *ttl <= 0) return Error{"etcd lease grant without a lease: " + body.dump()};
  return EtcdLease{*id, *ttl};
}

Result<int64_t> ParseKeepAliveTtl(const nlohmann::json& body) {
  auto ttl = EtcdInt64Field(body, "TTL", 0);
  if (!ttl) return Error{ttl.error()};
  return *ttl > 0 ? *ttl : 0;
}

Result<std::string> ParseLockKey(const nlohmann::json& body) {
  if (!body.contains("key") || !body["key"].is_string()) {
    return Error{"etcd lock reply without a key: " + body.dump().substr(0, 200)};
  }
  auto key = Base64Decode(body["key"].get<std::string>());
  if (!key) return Error{"etcd lock reply: key: " + key.error()};
  return *key;
}

Result<int64_t> ParseCreateRevision(const nlohmann::json& body) {
  if (!body.contains("kvs")) return int64_t{0};
  const nlohmann::json& kvs = body["kvs"];
  if (!kvs.is_array()) return Error{"etcd range reply: kvs is not an array"};
  if (kvs.empty()) return int64_t{0};
  auto revision = EtcdInt64Field(kvs[0], "create_revision", 0);
  if (!revision) return Error{revision.error()};
  if (*revision <= 0) return Error{"etcd range reply: a key without a create revision"};
  return *revision;
}

Result<EtcdMemberStatus> ParseMemberStatus(const nlohmann::json& body) {
  const nlohmann::json header =
      body.contains("header") ? body["header"] : nlohmann::json::object();
  auto member = IntegerField<uint64_t>(header, "member_id", 0);
  if (!member) return Error{member.error()};
  auto leader = IntegerField<uint64_t>(body, "leader", 0);
  if (!leader) return Error{leader.error()};
  if (*member == 0) return Error{"etcd status reply without a member id"};
  return EtcdMemberStatus{*member, *leader};
}

}  // namespace locksmith

// The JSON of etcd's v3 API as its HTTP/JSON gateway speaks it (etcd 3.4
// serves it at /v3/...): request bodies and what the lock client and the
// service read from the replies. The gateway writes protobuf bytes fields
// as base64 and 64-bit integers as decimal strings; an error reply is
// {"error", "message", "code" (a gRPC status code)}; a streaming call
// (/v3/lease/keepalive) wraps each reply as {"result": ...}.
// Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "base/result.h"

namespace locksmith {

// Standard base64 with padding (RFC 4648), as the gateway codes bytes.
std::string Base64Encode(std::string_view bytes);
// The bytes of `text`, or an error for anything that is not padded base64.
Result<std::string> Base64Decode(std::string_view text);

// Request bodies.
std::string EtcdLeaseGrantBody(int64_t ttl_s);
std::string EtcdLeaseIdBody(int64_t lease_id);  // keepalive and revoke: {"ID": id}
std::string EtcdLockBody(std::string_view name, int64_t lease_id);
std::string EtcdUnlockBody(std::string_view lock_key);
std::string EtcdRangeKeyBody(std::string_view key);  // one key, without its value

// An error the server answered (a reply whose body carries "error", or an
// HTTP status other than 200).
struct EtcdError {
  int code = 0;  // gRPC status code; 0 when the body had none
  std::string message;
};

// A reply as the gateway sent it: the JSON object of a success (a streaming
// call's first "result" unwrapped), or the error the server answered.
struct EtcdReply {
  nlohmann::json body;  // an object when ok
  std::optional<EtcdError> error;
  bool ok() const { return !error.has_value(); }
};
// Reads an HTTP reply: `status` and `body`; an Error only when the bytes are
// no gateway reply at all (not JSON, not an object).
Result<EtcdReply> ParseEtcdReply(int status, std::string_view body);

// Whether the server certainly did not apply the request it answered with
// `error`: a lease it does not know (expired or revoked), no leader, a
// request it refused as invalid. Anything else (a timeout inside the
// cluster, an unknown error) may have been applied.
bool EtcdCertainlyNotApplied(const EtcdError& error);
// The lease is gone (expired or revoked): "requested lease not found".
bool EtcdLeaseNotFound(const EtcdError& error);

// An int64 field the gateway writes as a string (or a number); `fallback`
// when absent (proto3 omits zeros). An error for any other type or text.
Result<int64_t> EtcdInt64Field(const nlohmann::json& object, const std::string& name,
                               int64_t fallback);

struct EtcdLease {
  int64_t id = 0;
  int64_t ttl_s = 0;  // what the server granted (it raises a TTL below its minimum)
};
Result<EtcdLease> ParseLeaseGrant(const nlohmann::json& body);
// The TTL a keep-alive reply gives the lease, in seconds; 0 when the server
// no longer knows the lease (the reply then has no TTL).
Result<int64_t> ParseKeepAliveTtl(const nlohmann::json& body);
// The key /v3/lock/lock made for this holder ("<name>/<lease id in hex>").
Result<std::string> ParseLockKey(const nlohmann::json& body);
// The create revision of the one key a range asked for; 0 when it is gone.
Result<int64_t> ParseCreateRevision(const nlohmann::json& body);

// What /v3/maintenance/status tells of a member: its own id and the leader
// it knows (0: none).
struct EtcdMemberStatus {
  uint64_t member_id = 0;
  uint64_t leader_id = 0;
};
Result<EtcdMemberStatus> ParseMemberStatus(const nlohmann::json& body);

}  // namespace locksmith

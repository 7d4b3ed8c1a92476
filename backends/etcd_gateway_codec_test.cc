// The gateway's JSON coding without a server: base64 both ways, the request
// bodies, replies of success, of errors unary and streamed, and which
// errors say for certain that nothing was applied.
#include "backends/etcd_gateway_codec.h"

#include <gtest/gtest.h>

namespace locksmith {
namespace {

TEST(EtcdGatewayCodecTest, Base64RoundTripsEveryPaddingAndBinaryBytes) {
  EXPECT_EQ(Base64Encode(""), "");
  EXPECT_EQ(Base64Encode("f"), "Zg==");
  EXPECT_EQ(Base64Encode("fo"), "Zm8=");
  EXPECT_EQ(Base64Encode("foo"), "Zm9v");
  EXPECT_EQ(Base64Encode("lock-0"), "bG9jay0w");
  const std::string binary("\x00\xff\xfe/+\x80", 6);
  EXPECT_EQ(*Base64Decode(Base64Encode(binary)), binary);
  for (const std::string s : {"", "a", "ab", "abc", "abcd", "lock-0/2040a219e861d308"}) {
    auto back = Base64Decode(Base64Encode(s));
    ASSERT_TRUE(back.ok()) << s;
    EXPECT_EQ(*back, s);
  }
}

TEST(EtcdGatewayCodecTest, Base64RefusesWhatIsNotPaddedBase64) {
  EXPECT_FALSE(Base64Decode("Zg=").ok());    // length
  EXPECT_FALSE(Base64Decode("Z*==").ok());   // alphabet
  EXPECT_FALSE(Base64Decode("Zg==Zg==").ok());  // padding inside
  EXPECT_FALSE(Base64Decode("Zg=v").ok());
}

TEST(EtcdGatewayCodecTest, BodiesCodeBytesAsBase64AndIdsAsDecimalStrings) {
  EXPECT_EQ(nlohmann::json::parse(EtcdLockBody("lock-0", 7587876534000000001)),
            (nlohmann::json{{"name", "bG9jay0w"}, {"lease", "7587876534000000001"}}));
  EXPECT_EQ(nlohmann::json::parse(EtcdLeaseGrantBody(2)), (nlohmann::json{{"TTL", 2}}));
  EXPECT_EQ(nlohmann::json::parse(EtcdLeaseIdBody(42)), (nlohmann::json{{"ID", "42"}}));
  EXPECT_EQ(nlohmann::json::parse(EtcdUnlockBody("lock-0/1")),
            (nlohmann::json{{"key", Base64Encode("lock-0/1")}}));
  EXPECT_EQ(nlohmann::json::parse(EtcdRangeKeyBody("k")),
            (nlohmann::json{{"key", "aw=="}, {"keys_only", true}}));
}

TEST(EtcdGatewayCodecTest, ReadsAGrantALockKeyAndACreateRevision) {
  auto grant = ParseEtcdReply(200, R"({"header":{"revision":"1"},"ID":"2324035639879783173","TTL":"2"})");
  ASSERT_TRUE(grant.ok() && grant->ok());
  auto lease = ParseLeaseGrant(grant->body);
  ASSERT_TRUE(lease.ok()) << lease.error();
  EXPECT_EQ(lease->id, 2324035639879783173);
  EXPECT_EQ(lease->ttl_s, 2);

  auto lock = ParseEtcdReply(200, R"({"header":{},"key":"bXlsb2NrLzIwNDBhMjE5ZTg2MWQzMDg="})");
  EXPECT_EQ(*ParseLockKey(lock->body), "mylock/2040a219e861d308");

  auto range = ParseEtcdReply(
      200, R"({"kvs":[{"key":"eA==","create_revision":"3","mod_revision":"3"}],"count":"1"})");
  EXPECT_EQ(*ParseCreateRevision(range->body), 3);
  auto none = ParseEtcdReply(200, R"({"header":{"revision":"9"}})");
  EXPECT_EQ(*ParseCreateRevision(none->body), 0);
  EXPECT_FALSE(ParseCreateRevision(nlohmann::json{{"kvs", "x"}}).ok());
  EXPECT_FALSE(ParseLockKey(nlohmann::json{{"key", "%%%"}}).ok());
}

TEST(EtcdGatewayCodecTest, AStreamedKeepAliveIsUnwrappedAndAnUnknownLeaseHasNoTtl) {
  auto alive = ParseEtcdReply(200, R"({"result":{"header":{},"ID":"5","TTL":"4"}})");
  ASSERT_TRUE(alive.ok() && alive->ok());
  EXPECT_EQ(*ParseKeepAliveTtl(alive->body), 4);
  auto gone = ParseEtcdReply(200, R"({"result":{"header":{},"ID":"12345"}})");
  EXPECT_EQ(*ParseKeepAliveTtl(gone->body), 0);
  auto streamed_error = ParseEtcdReply(
      200, R"({"error":{"grpc_code":14,"http_code":503,"message":"etcdserver: no leader"}})");
  ASSERT_TRUE(streamed_error.ok());
  ASSERT_FALSE(streamed_error->ok());
  EXPECT_EQ(streamed_error->error->code, 14);
  EXPECT_EQ(streamed_error->error->message, "etcdserver: no leader");
}

TEST(EtcdGatewayCodecTest, ErrorsSayWhetherTheRequestWasCertainlyNotApplied) {
  auto lease_gone = ParseEtcdReply(
      500, R"({"error":"etcdserver: requested lease not found","message":"etcdserver: requested lease not found","code":2})");
  ASSERT_TRUE(lease_gone.ok());
  ASSERT_TRUE(lease_gone->error.has_value());
  EXPECT_EQ(lease_gone->error->code, 2);
  EXPECT_TRUE(EtcdLeaseNotFound(*lease_gone->error));
  EXPECT_TRUE(EtcdCertainlyNotApplied(*lease_gone->error));
  EXPECT_TRUE(EtcdCertainlyNotApplied({14, "etcdserver: no leader"}));
  EXPECT_FALSE(EtcdCertainlyNotApplied({14, "etcdserver: request timed out"}));
  EXPECT_FALSE(EtcdCertainlyNotApplied({2, "context canceled"}));
  auto not_json = ParseEtcdReply(404, "Not Found\n");
  ASSERT_TRUE(not_json.ok());
  ASSERT_TRUE(not_json->error.has_value());
  EXPECT_FALSE(ParseEtcdReply(200, "[1]").ok());
  EXPECT_FALSE(ParseEtcdReply(200, "{").ok());
}

TEST(EtcdGatewayCodecTest, AStatusNamesTheMemberAndTheLeaderItKnows) {
  auto status = ParseMemberStatus(nlohmann::json::parse(
      R"({"header":{"member_id":"17237436991929493444"},"leader":"3319814642761637952"})"));
  ASSERT_TRUE(status.ok()) << status.error();
  EXPECT_EQ(status->member_id, 17237436991929493444u);
  EXPECT_EQ(status->leader_id, 3319814642761637952u);
  auto no_leader = ParseMemberStatus(nlohmann::json::parse(R"({"header":{"member_id":"1"}})"));
  EXPECT_EQ(no_leader->leader_id, 0u);
  EXPECT_FALSE(ParseMemberStatus(nlohmann::json::parse(R"({"leader":"1"})")).ok());
  EXPECT_FALSE(EtcdInt64Field(nlohmann::json{{"TTL", "12x"}}, "TTL", 0).ok());
  EXPECT_FALSE(EtcdInt64Field(nlohmann::json{{"TTL", true}}, "TTL", 0).ok());
}

}  // namespace
}  // namespace locksmith

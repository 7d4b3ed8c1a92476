#include "backends/exec_protocol.h"

#include <gtest/gtest.h>

namespace locksmith {
namespace {

TEST(ExecProtocolTest, ClientSpecSplitsWordsAndRoundTripsTheJsonForm) {
  EXPECT_TRUE(IsExecClient("exec:x"));
  EXPECT_FALSE(IsExecClient("redis-set"));
  auto argv = ParseExecClient("exec:/usr/bin/python3  adapter.py --sentinel");
  ASSERT_TRUE(argv) << argv.error();
  EXPECT_EQ(*argv, (std::vector<std::string>{"/usr/bin/python3", "adapter.py", "--sentinel"}));
  EXPECT_FALSE(ParseExecClient("exec:"));
  EXPECT_FALSE(ParseExecClient("exec:   "));
  auto text = ExecClientFromJson({{"exec", {"/usr/bin/python3", "adapter.py"}}});
  ASSERT_TRUE(text) << text.error();
  EXPECT_EQ(*text, "exec:/usr/bin/python3 adapter.py");
  EXPECT_FALSE(ExecClientFromJson({{"exec", {"has space"}}}));
  EXPECT_FALSE(ExecClientFromJson({{"exec", nlohmann::json::array()}}));
  EXPECT_FALSE(ExecClientFromJson({{"exec", {1}}}));
  EXPECT_FALSE(ExecClientFromJson({{"run", {"x"}}}));
  EXPECT_EQ(ExecClientLabel("exec:adapters/redis-py/adapter.py --sentinel"),
            "exec-adapter.py");
  EXPECT_EQ(ExecClientLabel("exec:/usr/bin/python3 -u adapters/kazoo/lock adapter.py"),
            "exec-lock");
  EXPECT_EQ(ExecClientLabel("exec:./my prog"), "exec-my");
}

TEST(ExecProtocolTest, RequestsCarryOnlyTheirOpsFields) {
  EXPECT_EQ(ExecRequestJson({7, ExecOp::kAcquire, "lock-1", "", 500, 20}),
            (nlohmann::json{{"id", 7}, {"op", "acquire"}, {"key", "lock-1"}, {"lease_ms", 500},
                            {"wait_ms", 20}}));
  EXPECT_EQ(ExecRequestJson({8, ExecOp::kRelease, "lock-1", "t", 0, 0}),
            (nlohmann::json{{"id", 8}, {"op", "release"}, {"key", "lock-1"}, {"token", "t"}}));
  const auto hello = ExecHelloRequest({{"backend", "redis"}}, 2, "198.18.0.9");
  EXPECT_EQ(hello["op"], "hello");
  EXPECT_EQ(hello["id"], 0);
  EXPECT_EQ(hello["backend"], "redis");
  EXPECT_EQ(hello["client"], 2);
}

TEST(ExecProtocolTest, LinesAreRepliesOrEventsOrErrors) {
  auto reply = ParseExecLine(R"({"id": 3, "result": "ok"})");
  ASSERT_TRUE(reply) << reply.error();
  EXPECT_FALSE(reply->is_event);
  EXPECT_EQ(reply->id, 3);
  auto event = ParseExecLine(R"({"event": "lock-lost", "key": "k"})");
  ASSERT_TRUE(event) << event.error();
  EXPECT_TRUE(event->is_event);
  EXPECT_NE(ParseExecLine("nope").error().find("not JSON"), std::string::npos);
  EXPECT_NE(ParseExecLine("[1]").error().find("not a JSON object"), std::string::npos);
  EXPECT_NE(ParseExecLine(R"({"id": "3"})").error().find("whole number"), std::string::npos);
  EXPECT_NE(ParseExecLine("{}").error().find("neither"), std::string::npos);
}

// A validity counts from when the program reckoned it, not from when the
// harness got round to reading the reply: on a loaded machine the reply
// waits in the pipe, and a lease counted from the read outlives the
// server's key (a grant just after it expired reads as an unsafe grant).
TEST(ExecProtocolTest, AValidityCountsFromWhenTheProgramReckonedIt) {
  constexpr int64_t kMs = 1'000'000;
  auto at = DecodeValidityAt({{"result", "ok"}, {"validity_at_ns", 5 * kMs}});
  ASSERT_TRUE(at) << at.error();
  EXPECT_EQ(*at, 5 * kMs);
  // Reckoned at 5 ms, read at 40 ms, stamped at 41 ms: 36 ms are gone.
  EXPECT_EQ(*ValidityAsOf(1000, *at, 2 * kMs, 40 * kMs, 41 * kMs), 964);
  // Rounded up: a lease is never overstated.
  EXPECT_EQ(*ValidityAsOf(1000, *at, 2 * kMs, 40 * kMs, 5 * kMs + 1), 999);
  // Without it, from the read, as the program's reply says.
  auto none = DecodeValidityAt({{"result", "ok"}});
  ASSERT_TRUE(none);
  EXPECT_FALSE(none->has_value());
  EXPECT_EQ(*ValidityAsOf(1000, *none, 2 * kMs, 40 * kMs, 45 * kMs), 1000);
  // Another clock than CLOCK_MONOTONIC lands outside the request's life.
  const auto wall = ValidityAsOf(1000, int64_t{1'700'000'000} * 1000 * kMs, 2 * kMs, 40 * kMs, 41 * kMs);
  ASSERT_FALSE(wall);
  EXPECT_NE(wall.error().find("not CLOCK_MONOTONIC"), std::string::npos) << wall.error();
  EXPECT_FALSE(ValidityAsOf(1000, 1 * kMs, 2 * kMs, 40 * kMs, 41 * kMs));
  EXPECT_FALSE(DecodeValidityAt({{"validity_at_ns", "5"}}));
  EXPECT_FALSE(DecodeValidityAt({{"validity_at_ns", -1}}));
  EXPECT_FALSE(DecodeValidityAt({{"validity_at_ns", 1.5}}));
}

TEST(ExecProtocolTest, AcquireRepliesDecodeWithJepsensMeaning) {
  auto ok = DecodeAcquireReply({{"id", 1}, {"result", "ok"}, {"fence", 9}, {"validity_ms", 80}},
                               "fallback");
  ASSERT_TRUE(ok) << ok.error();
  EXPECT_EQ(ok->outcome, Outcome::kOk);
  EXPECT_EQ(ok->token, "fallback");
  EXPECT_EQ(ok->fence, 9);
  EXPECT_EQ(ok->validity_ms, 80);
  auto busy = DecodeAcquireReply({{"result", "fail"}}, "f");
  ASSERT_TRUE(busy);
  EXPECT_TRUE(busy->busy);
  EXPECT_EQ(busy->error, kHeldByAnother);
  auto down = DecodeAcquireReply({{"result", "fail"}, {"busy", false}, {"error", "down"}}, "f");
  ASSERT_TRUE(down);
  EXPECT_FALSE(down->busy);
  auto info = DecodeAcquireReply({{"result", "info"}, {"token", "t"}}, "f");
  ASSERT_TRUE(info);
  EXPECT_EQ(info->outcome, Outcome::kUnknown);
  EXPECT_EQ(info->token, "t");
  EXPECT_FALSE(ok->fence == std::nullopt);
  EXPECT_FALSE(DecodeAcquireReply({{"result", "maybe"}}, "f"));
  EXPECT_FALSE(DecodeAcquireReply({{"result", "ok"}, {"fence", "9"}}, "f"));
  EXPECT_FALSE(DecodeAcquireReply({{"result", "ok"}, {"busy", 1}}, "f"));
}

TEST(ExecProtocolTest, HelloEventsReleasesAndRenewals) {
  auto hello = DecodeHelloReply(
      {{"id", 0}, {"name", "kazoo"}, {"version", "2.9"},
       {"capabilities", {{"fence", true}, {"lock_lost", true}}}});
  ASSERT_TRUE(hello) << hello.error();
  EXPECT_EQ(hello->name, "kazoo");
  EXPECT_TRUE(hello->capabilities.fence);
  EXPECT_TRUE(hello->capabilities.lock_lost);
  EXPECT_FALSE(hello->capabilities.shared);
  EXPECT_FALSE(DecodeHelloReply({{"id", 0}}));
  EXPECT_FALSE(DecodeHelloReply({{"name", "x"}, {"capabilities", {{"fence", "yes"}}}}));

  auto lost = DecodeExecEvent({{"event", "lock-lost"}, {"key", "k"}, {"token", "t"}});
  ASSERT_TRUE(lost) << lost.error();
  EXPECT_EQ(lost->kind, LockEvent::Kind::kLost);
  EXPECT_EQ(lost->cut_off_ms, -1);
  EXPECT_FALSE(DecodeExecEvent({{"event", "renewed"}, {"key", "k"}}));
  EXPECT_FALSE(DecodeExecEvent({{"event", "lock-lost"}}));

  auto released = DecodeReleaseReply({{"result", "fail"}, {"error", "not held"}});
  ASSERT_TRUE(released);
  EXPECT_EQ(released->outcome, Outcome::kFail);
  auto renewed = DecodeRenewReply({{"result", "fail"}, {"not_held", true}});
  ASSERT_TRUE(renewed);
  EXPECT_TRUE(renewed->not_held);
}

}  // namespace
}  // namespace locksmith

#include "nemesis/op_events.h"

#include <gtest/gtest.h>

#include <thread>

namespace locksmith {
namespace {

Op Completion(int64_t process, const std::string& f, const std::string& key, OpType type) {
  Op op;
  op.process = process;
  op.type = type;
  op.f = f;
  op.key = key;
  return op;
}

TEST(OpEventsTest, CountsOnlyOkCompletionsOfWatchedTriggers) {
  const StepTrigger on_lock0{"acquire", "lock-0"};
  const StepTrigger any_release{"release", ""};
  OpEvents events({on_lock0, any_release});
  events.Notify(Completion(1, "acquire", "lock-0", OpType::kInvoke));
  events.Notify(Completion(1, "acquire", "lock-0", OpType::kFail));
  events.Notify(Completion(1, "acquire", "lock-1", OpType::kOk));
  EXPECT_EQ(events.Count(on_lock0), 0);
  events.Notify(Completion(4, "acquire", "lock-0", OpType::kOk));
  events.Notify(Completion(2, "release", "lock-1", OpType::kOk));
  EXPECT_EQ(events.Count(on_lock0), 1);
  EXPECT_EQ(events.Count(any_release), 1);
  auto latest = events.Wait(on_lock0, 0, std::chrono::steady_clock::now());
  ASSERT_TRUE(latest.has_value());
  EXPECT_EQ(latest->process, 4);
}

TEST(OpEventsTest, WaitSeesAnEventFromAnotherThreadAndStopWakesIt) {
  const StepTrigger trigger{"acquire", ""};
  OpEvents events({trigger});
  std::thread worker([&] { events.Notify(Completion(3, "acquire", "k", OpType::kOk)); });
  auto seen = events.Wait(trigger, 0, std::chrono::steady_clock::now() + std::chrono::minutes(1));
  worker.join();
  ASSERT_TRUE(seen.has_value());
  EXPECT_EQ(seen->process, 3);
  std::thread stopper([&] { events.Stop(); });
  EXPECT_FALSE(
      events.Wait(trigger, 1, std::chrono::steady_clock::now() + std::chrono::minutes(1)));
  stopper.join();
}

TEST(OpEventsTest, GrantedPlaceholdersNameTheNodesThatGrantedTheAcquire) {
  EXPECT_TRUE(IsGrantedPlaceholder("$event.granted"));
  EXPECT_TRUE(IsGrantedPlaceholder("$event.granted.2"));
  EXPECT_FALSE(IsGrantedPlaceholder("$event.granted."));
  EXPECT_FALSE(IsGrantedPlaceholder("$event.granted.x"));
  EXPECT_FALSE(IsGrantedPlaceholder("$event.grantedx"));
  EXPECT_FALSE(IsGrantedPlaceholder("$event.process"));
  Op acquire = Completion(2, "acquire", "lock-0", OpType::kOk);
  acquire.value = {{"token", "t"}, {"granted", {"n1", "n3", "n4"}}};
  EXPECT_EQ(ResolveGranted("$event.granted", acquire).value(), "n1,n3,n4");
  EXPECT_EQ(ResolveGranted("$event.granted.0", acquire).value(), "n1");
  EXPECT_EQ(ResolveGranted("$event.granted.2", acquire).value(), "n4");
  auto beyond = ResolveGranted("$event.granted.3", acquire);
  ASSERT_FALSE(beyond.ok());
  EXPECT_NE(beyond.error().find("granted by only 3 nodes"), std::string::npos);
  acquire.value = {{"token", "t"}};  // a backend that does not say
  EXPECT_FALSE(ResolveGranted("$event.granted", acquire).ok());
}

}  // namespace
}  // namespace locksmith

#include "nemesis/client_clock_nemesis.h"

#include <gtest/gtest.h>

#include <map>

#include "backends/client_faults.h"
#include "backends/testing/fake_lock_service.h"
#include "cluster/testing/fake_host.h"
#include "nemesis/clock_controller.h"
#include "nemesis/shim_time.h"

namespace locksmith {
namespace {

using testing::FakeHost;
namespace st = shim_time;

constexpr int64_t kT0 = int64_t{1'700'000'000} * 1'000'000'000;

// Clients on fake hosts whose clocks obey the control file, as the shim's.
class FakeClientClocks : public HasClocks {
 public:
  explicit FakeClientClocks(std::map<std::string, FakeHost*> hosts) : hosts_(std::move(hosts)) {}
  Host* NodeHost(const std::string& client) override {
    auto it = hosts_.find(client);
    return it == hosts_.end() ? nullptr : it->second;
  }
  Result<int64_t> WallClockNs(const std::string& client) override {
    auto file = hosts_.at(client)->file(ClockController::kControlFile);
    st::ClockParams params;
    uint64_t generation = 0;
    if (!file || !st::DecodeControl(reinterpret_cast<const unsigned char*>(file->data()),
                                    file->size(), &params, &generation)) {
      return kT0;
    }
    return st::FakeNs(params, kT0);
  }

 private:
  std::map<std::string, FakeHost*> hosts_;
};

TEST(ClientClockNemesisTest, AWindowMovesTheTargetClientsClockThenResetsIt) {
  ClientClockOptions options;
  options.clock.mode = "strobe";
  options.clock.delta_ms = 3000;
  options.clock.period_ms = 4;
  options.clock.hold_ms = 2000;
  options.target = 2;
  const auto faults = ClientClockWindow(options, 1000, 10'000);
  ASSERT_EQ(faults.size(), 2u);
  EXPECT_EQ(faults[0].op.f, "client-clock-strobe");
  EXPECT_EQ(faults[0].op.value["client"], 2);
  EXPECT_EQ(faults[0].op.value["delta_ms"], 3000);
  EXPECT_EQ(faults[1].op.f, "client-clock-reset");
  EXPECT_EQ(faults[1].op.value["client"], 2);
  EXPECT_EQ(faults[1].at_ms, 3000);
}

TEST(ClientClockNemesisTest, MovesOneClientsClockAndReadsItBack) {
  FakeHost c0("client.0"), c1("client.1");
  ClientClockNemesis nemesis(
      std::make_unique<FakeClientClocks>(std::map<std::string, FakeHost*>{{"c0", &c0},
                                                                          {"c1", &c1}}),
      2, 0, std::chrono::milliseconds(0), [] { return kT0; });
  FaultResult r = nemesis.Invoke({"client-clock-bump", {{"client", 1}, {"delta_ms", -5000}}});
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.observed, true);
  EXPECT_EQ(r.value["client"], 1);
  EXPECT_EQ(r.value["clocks"]["c1"]["observed_offset_ms"], -5000.0);
  EXPECT_FALSE(c0.file(ClockController::kControlFile).has_value());
  EXPECT_TRUE(c1.file(ClockController::kControlFile).has_value());

  FaultResult bad = nemesis.Invoke({"client-clock-bump", {{"client", 2}, {"delta_ms", 1}}});
  EXPECT_FALSE(bad.ok);
  EXPECT_NE(bad.error.find("worker index below 2"), std::string::npos) << bad.error;

  ASSERT_TRUE(nemesis.Invoke({"client-clock-reset", {{"client", 1}}}).ok);
  EXPECT_FALSE(c1.file(ClockController::kControlFile).has_value());
  EXPECT_TRUE(nemesis.Teardown().empty());
}

TEST(ClientClockNemesisTest, RefusesTheBuiltInClientsInOneLine) {
  testing::FakeLockService service;
  ClientFaults client_faults;
  NemesisContext context{service, client_faults};
  context.concurrency = 3;
  auto options = MakeOptions<ClientClockOptions>();
  const std::string why = ClientClockUnfit(*options, context);
  EXPECT_NE(why.find("built-in clients"), std::string::npos) << why;
  EXPECT_EQ(why.find('\n'), std::string::npos);
  context.external_clients = true;
  EXPECT_NE(ClientClockUnfit(*options, context).find("hosts"), std::string::npos);
}

}  // namespace
}  // namespace locksmith

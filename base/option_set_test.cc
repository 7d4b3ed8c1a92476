#include "base/option_set.h"

#include <gtest/gtest.h>

namespace locksmith {
namespace {

// A module's options as a module would declare them.
struct SampleOptions {
  int clients = 10;
  int64_t lease_ms = 1000;
  double rate = 0;
  double time_limit_s = 30;
  std::string mode = "none";
  std::string note;
  bool loopback = false;
  MsRange hold{10, 100};
  std::vector<std::string> faults;

  void Declare(OptionSet& set) {
    set.Integer("clients", "--clients", &clients, 1, 5000, "concurrent clients")
        .Integer("lease_ms", "--lease", &lease_ms, int64_t{1}, int64_t{86'400'000}, "lease, ms")
        .Number("rate", "--rate", &rate, 0, 1e7, "attempts per second, 0 = unlimited")
        .Number("time_limit_s", "--time-limit", &time_limit_s, 0, 86400, "seconds", true)
        .Choice("mode", "--mode", &mode, {"none", "everysec", "always"}, "persistence")
        .Text("note", "--note", &note, 16, "free text")
        .Flag("loopback", "--loopback", &loopback, "loopback hosts")
        .Range("hold", "--hold", &hold, 0, 3'600'000, "hold time, ms")
        .Names("faults", "--faults", &faults, {"kill", "pause"}, "fault families")
        .Require([this]() -> Status {
          if (loopback && !faults.empty()) return Error{"--faults needs hosts of their own"};
          return OkStatus();
        });
  }
};

Status MergeAndValidate(const nlohmann::json& j, SampleOptions* out = nullptr) {
  OptionsOf<SampleOptions> options;
  if (Status s = options.set().Merge(j); !s) return s;
  if (out != nullptr) *out = options.value();
  return options.set().Validate();
}

std::string ErrorOf(const nlohmann::json& j) {
  Status s = MergeAndValidate(j);
  return s ? "" : s.error();
}

TEST(OptionSetTest, DefaultsAreValidAndRoundTripThroughJson) {
  OptionsOf<SampleOptions> options;
  ASSERT_TRUE(options.set().Validate().ok());
  const nlohmann::json j = options.set().ToJson();
  EXPECT_EQ(j["clients"], 10);
  EXPECT_EQ(j["hold"], "10-100");
  EXPECT_EQ(j["faults"], nlohmann::json::array());
  OptionsOf<SampleOptions> replay;
  replay.value().clients = 3;
  ASSERT_TRUE(replay.set().Merge(j).ok());
  EXPECT_EQ(replay.value().clients, 10);
  EXPECT_EQ(replay.set().ToJson(), j);
}

TEST(OptionSetTest, MergeReadsOnlyGivenKeysAndChecksTypes) {
  SampleOptions merged;
  ASSERT_TRUE(MergeAndValidate({{"clients", 7}, {"hold", 50}, {"faults", "kill, pause"}}, &merged)
                  .ok());
  EXPECT_EQ(merged.clients, 7);
  EXPECT_EQ(merged.lease_ms, 1000);
  EXPECT_EQ(merged.hold, (MsRange{50, 50}));
  EXPECT_EQ(merged.faults, (std::vector<std::string>{"kill", "pause"}));
  EXPECT_EQ(ErrorOf({{"clients", "7"}}), "\"clients\" must be an integer");
  EXPECT_EQ(ErrorOf({{"rate", "fast"}}), "\"rate\" must be a number");
  EXPECT_EQ(ErrorOf({{"loopback", 1}}), "\"loopback\" must be true or false");
  EXPECT_EQ(ErrorOf({{"faults", 3}}), "\"faults\" must be a list of names or \"a,b\"");
  EXPECT_EQ(ErrorOf({{"hold", "5-x"}}), "\"hold\": \"x\" is not a whole number of milliseconds");
}

TEST(OptionSetTest, ValuesTheFieldCannotHoldAreOutOfRange) {
  // 2^40 fits the JSON integer but not an int field; 2^64-1 fits neither.
  EXPECT_EQ(ErrorOf({{"clients", int64_t{1} << 40}}), "\"clients\" is out of range");
  EXPECT_EQ(ErrorOf({{"lease_ms", UINT64_MAX}}), "\"lease_ms\" is out of range");
}

TEST(OptionSetTest, BoundsAreCheckedByValidateAndNameTheFlag) {
  EXPECT_EQ(ErrorOf({{"clients", 0}}), "--clients must be 1 to 5000");
  EXPECT_EQ(ErrorOf({{"lease_ms", -5}}), "--lease must be 1 to 86400000");
  EXPECT_EQ(ErrorOf({{"rate", -1}}), "--rate must be 0 to 10000000");
  EXPECT_EQ(ErrorOf({{"time_limit_s", 0}}), "--time-limit must be more than 0 and at most 86400");
  EXPECT_EQ(ErrorOf({{"time_limit_s", 0.5}}), "");
  EXPECT_EQ(ErrorOf({{"mode", "sometimes"}}),
            "--mode must be one of none, everysec, always, not \"sometimes\"");
  EXPECT_EQ(ErrorOf({{"note", std::string(17, 'x')}}), "--note is 17 bytes; at most 16 are allowed");
  EXPECT_EQ(ErrorOf({{"note", "\xff"}}), "--note must be UTF-8 text");
  EXPECT_EQ(ErrorOf({{"hold", "9-3"}}),
            "--hold must be MIN-MAX milliseconds with 0 <= MIN <= MAX <= 3600000");
  EXPECT_EQ(ErrorOf({{"faults", "kill,meteor"}}),
            "--faults: unknown name \"meteor\" (known: kill, pause)");
  EXPECT_EQ(ErrorOf({{"faults", "kill,kill"}}), "--faults: \"kill\" is listed twice");
  EXPECT_EQ(ErrorOf({{"loopback", true}, {"faults", "kill"}}), "--faults needs hosts of their own");
}

TEST(OptionSetTest, NanIsNeverInRange) {
  OptionsOf<SampleOptions> options;
  options.value().rate = std::nan("");
  EXPECT_FALSE(options.set().Validate().ok());
}

TEST(OptionSetTest, FlagTextBecomesTheConfigValue) {
  OptionsOf<SampleOptions> options;
  const OptionSet& set = options.set();
  EXPECT_EQ(*FlagValue(*set.Find("clients"), "12"), 12);
  EXPECT_EQ(FlagValue(*set.Find("clients"), "12x").error(),
            "--clients must be a whole number, not \"12x\"");
  EXPECT_EQ(FlagValue(*set.Find("clients"), "99999999999999999999").error(),
            "--clients must be a whole number, not \"99999999999999999999\" (out of range)");
  EXPECT_EQ(*FlagValue(*set.Find("rate"), "2.5"), 2.5);
  EXPECT_FALSE(FlagValue(*set.Find("rate"), "inf").ok());
  EXPECT_FALSE(FlagValue(*set.Find("rate"), "").ok());
  EXPECT_EQ(*FlagValue(*set.Find("loopback"), ""), true);
  EXPECT_EQ(*FlagValue(*set.Find("hold"), "5-9"), "5-9");
  // A flag's value then goes through the same reader as a file's.
  EXPECT_EQ(ErrorOf({{"clients", *FlagValue(*set.Find("clients"), "0")}}),
            "--clients must be 1 to 5000");
}

TEST(OptionSetTest, HelpShowsChoicesAndDefaults) {
  OptionsOf<SampleOptions> options;
  const OptionSet& set = options.set();
  EXPECT_EQ(set.Help(*set.Find("clients")), "concurrent clients [default: 10]");
  EXPECT_EQ(set.Help(*set.Find("mode")),
            "persistence (none, everysec, always) [default: none]");
  EXPECT_EQ(set.Help(*set.Find("time_limit_s")), "seconds [default: 30]");
  EXPECT_EQ(set.Help(*set.Find("loopback")), "loopback hosts");
  EXPECT_EQ(set.Help(*set.Find("note")), "free text");
}

TEST(OptionSetTest, CloneKeepsValuesAndOwnBindings) {
  OptionsOf<SampleOptions> options;
  options.value().clients = 42;
  std::unique_ptr<ModuleOptions> copy = options.Clone();
  options.value().clients = 1;
  EXPECT_EQ(OptionsAs<SampleOptions>(*copy).clients, 42);
  ASSERT_TRUE(copy->set().Merge({{"clients", 5}}).ok());
  EXPECT_EQ(OptionsAs<SampleOptions>(*copy).clients, 5);
  EXPECT_EQ(options.value().clients, 1);
}

TEST(OptionSetTest, DeclaringAKeyTwiceIsAProgrammingError) {
  int a = 0, b = 0;
  OptionSet set;
  set.Integer("a", "--a", &a, 0, 1, "a");
  EXPECT_THROW(set.Integer("a", "--b", &b, 0, 1, "b"), std::logic_error);
}

// A scenario's "description": a config-file key with no flag.
struct KeyOnlyOptions {
  std::string description;
  std::string prediction;
  void Declare(OptionSet& set) {
    set.Text("description", "", &description, 8, "free text")
        .Choice("prediction", "", &prediction, {"", "Y", "N"}, "Y or N");
  }
};

TEST(OptionSetTest, AnOptionWithoutAFlagIsNamedByItsKey) {
  OptionsOf<KeyOnlyOptions> options;
  ASSERT_TRUE(options.set().Merge({{"description", "123456789"}}).ok());
  EXPECT_EQ(options.set().Validate().error(),
            "\"description\" is 9 bytes; at most 8 are allowed");
  ASSERT_TRUE(options.set().Merge({{"description", "ok"}, {"prediction", "yes"}}).ok());
  EXPECT_EQ(options.set().Validate().error(), "\"prediction\" must be one of Y, N, not \"yes\"");
  EXPECT_EQ(options.set().Merge({{"prediction", 1}}).error(), "\"prediction\" must be a string");
  EXPECT_FALSE(FlagValue(*options.set().Find("description"), "x").ok());
}

TEST(MsRangeTest, ParsesAndFormats) {
  EXPECT_EQ(*ParseMsRange("100-300"), (MsRange{100, 300}));
  EXPECT_EQ(*ParseMsRange("200"), (MsRange{200, 200}));
  EXPECT_FALSE(ParseMsRange("").ok());
  EXPECT_FALSE(ParseMsRange("1-").ok());
  EXPECT_EQ(FormatMsRange({5, 5}), "5");
  EXPECT_EQ(FormatMsRange({5, 9}), "5-9");
}

}  // namespace
}  // namespace locksmith

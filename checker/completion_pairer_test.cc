#include "checker/completion_pairer.h"

#include <gtest/gtest.h>

#include <random>
#include <set>

namespace locksmith {
namespace {

Op MakeOp(int64_t index, int64_t process, OpType type, const std::string& f,
          nlohmann::json fault = nullptr) {
  Op op;
  op.index = index;
  op.time = index;
  op.process = process;
  op.type = type;
  op.f = f;
  op.fault = std::move(fault);
  return op;
}

// The pairs and the never-completed invokes the pairer finds, as
// PairCompletions would give them: completion_of by position.
std::vector<int64_t> PairByStream(const History& history, std::set<int64_t>* unpaired) {
  std::vector<int64_t> completion_of(history.size(), -1);
  CompletionPairer pairer;
  for (size_t i = 0; i < history.size(); ++i) {
    auto pairing = pairer.Observe(history[i]);
    for (const auto& gone : pairing.abandoned) unpaired->insert(gone->index);
    if (pairing.invoke) completion_of[static_cast<size_t>(pairing.invoke->index)] =
        static_cast<int64_t>(i);
  }
  for (const auto& open : pairer.StillOpen()) unpaired->insert(open->index);
  return completion_of;
}

TEST(CompletionPairerTest, PairsAsPairCompletionsDoes) {
  const nlohmann::json begin0{{"window", 0}, {"family", "kill"}, {"phase", "begin"}};
  const nlohmann::json begin1{{"window", 1}, {"family", "pause"}, {"phase", "begin"}};
  History h{MakeOp(0, 0, OpType::kInvoke, "acquire"),
            MakeOp(1, kNemesisProcess, OpType::kInvoke, "kill", begin0),
            MakeOp(2, kNemesisProcess, OpType::kInvoke, "pause", begin1),
            MakeOp(3, 0, OpType::kInfo, "renew"),  // a lone lock event
            MakeOp(4, kNemesisProcess, OpType::kInfo, "kill", begin0),
            MakeOp(5, 0, OpType::kOk, "acquire"),
            MakeOp(6, 1, OpType::kInvoke, "acquire"),
            MakeOp(7, 1, OpType::kInvoke, "release"),  // abandons 6
            MakeOp(8, 2, OpType::kInvoke, "acquire")};  // never completes
  std::set<int64_t> unpaired;
  EXPECT_EQ(PairByStream(h, &unpaired), PairCompletions(h));
  EXPECT_EQ(unpaired, (std::set<int64_t>{2, 6, 7, 8}));
}

TEST(CompletionPairerTest, RandomHistoriesPairAsPairCompletions) {
  std::mt19937 rng(7);
  const std::vector<std::string> fs{"acquire", "release", "renew"};
  for (int round = 0; round < 200; ++round) {
    History h;
    for (int64_t i = 0; i < 60; ++i) {
      const auto process = static_cast<int64_t>(rng() % 4) - 1;
      const auto type = static_cast<OpType>(rng() % 4);
      nlohmann::json fault;
      if (process == kNemesisProcess && rng() % 2) {
        fault = {{"window", rng() % 3}, {"family", "kill"}, {"phase", "begin"}};
      }
      h.push_back(MakeOp(i, process, type, fs[rng() % fs.size()], fault));
    }
    std::set<int64_t> unpaired;
    const auto pairs = PairCompletions(h);
    ASSERT_EQ(PairByStream(h, &unpaired), pairs) << "round " << round;
    std::set<int64_t> expected;
    for (size_t i = 0; i < h.size(); ++i) {
      if (h[i].type == OpType::kInvoke && pairs[i] < 0) expected.insert(h[i].index);
    }
    ASSERT_EQ(unpaired, expected) << "round " << round;
  }
}

}  // namespace
}  // namespace locksmith

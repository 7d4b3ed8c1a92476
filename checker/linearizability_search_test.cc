// The search against a brute-force oracle (every order that respects real
// time, every subset of pending ops) on thousands of small random
// histories, plus budget, determinism and explanation checks.
#include "checker/linearizability_search.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <random>

#include "checker/check_file.h"
#include "checker/model.h"
#include "checker/test_history_builder.h"
#include "checker/window_refuter.h"

namespace locksmith {
namespace {

using nlohmann::json;
using testing::HistoryBuilder;

// Brute force straight from the definition: some order of all completed ops
// and any subset of pending ops, respecting real time, is legal.
class Oracle {
 public:
  Oracle(const std::string& model_name, const History& history) {
    model_ = std::move(MakeModel(model_name, std::nullopt, &values_)).value();
    const auto completion_of = PairCompletions(history);
    for (size_t i = 0; i < history.size(); ++i) {
      const Op& op = history[i];
      if (op.type != OpType::kInvoke || !op.is_client()) continue;
      const int64_t c = completion_of[i];
      if (c >= 0 && history[c].type == OpType::kFail) continue;
      const bool ok = c >= 0 && history[c].type == OpType::kOk;
      auto compiled = model_->Compile(op.f, op.value, ok ? &history[c].value : nullptr,
                                      op.process);
      if (!compiled->modelled) continue;
      ops_.push_back({compiled->op, static_cast<int64_t>(i), ok ? c : INT64_MAX, ok});
      search_ops_.push_back(SearchOp{compiled->op, static_cast<int64_t>(i), ok ? c : -1,
                                     compiled->read_only,
                                     compiled->only_own_process_observes});
    }
  }

  // Whether the window refuter (alone, without the full search) proves the
  // history non-linearizable.
  bool WindowRefutes() {
    WindowRefuter refuter(*model_, search_ops_, SearchBudget{});
    return refuter.Find().has_value();
  }

  bool Linearizable() {
    done_.assign(ops_.size(), false);
    return Search(model_->Initial());
  }

 private:
  struct Entry {
    ModelOp op;
    int64_t call, ret;
    bool must;
  };

  bool Search(const ModelState& state) {
    bool all_done = true;
    for (size_t i = 0; i < ops_.size(); ++i) all_done &= !ops_[i].must || done_[i];
    if (all_done) return true;
    for (size_t i = 0; i < ops_.size(); ++i) {
      if (done_[i]) continue;
      bool ready = true;  // everything that returned before i was invoked is done
      for (size_t j = 0; j < ops_.size() && ready; ++j) {
        if (!done_[j] && ops_[j].must && ops_[j].ret < ops_[i].call) ready = false;
      }
      ModelState next;
      if (!ready || !model_->Step(state, ops_[i].op, &next)) continue;
      done_[i] = true;
      const bool found = Search(next);
      done_[i] = false;
      if (found) return true;
    }
    return false;
  }

  ValueTable values_;
  std::unique_ptr<Model> model_;
  std::vector<Entry> ops_;
  std::vector<SearchOp> search_ops_;
  std::vector<bool> done_;
};

// Random ops for one model: f and input.
using OpMaker = std::function<std::pair<std::string, json>(std::mt19937&)>;
// The result a correct system would return for (f, input) given the
// register-like truth `state`, and the new truth.
struct Simulation {
  OpMaker make;
  std::function<json(const std::string&, const json&, int process, json*)> apply;
};

Simulation CasRegisterSimulation() {
  return {[](std::mt19937& rng) -> std::pair<std::string, json> {
            switch (rng() % 3) {
              case 0: return {"read", nullptr};
              case 1: return {"write", static_cast<int>(rng() % 3)};
              default:
                return {"cas", json::array({static_cast<int>(rng() % 3),
                                            static_cast<int>(rng() % 3)})};
            }
          },
          [](const std::string& f, const json& in, int, json* state) -> json {
            if (f == "read") return *state;
            if (f == "write") {
              *state = in;
              return in;
            }
            if (*state == in[0]) {
              *state = in[1];
              return in;
            }
            return "fail";
          }};
}

Simulation MutexSimulation() {
  return {[](std::mt19937& rng) -> std::pair<std::string, json> {
            return {rng() % 2 ? "acquire" : "release", nullptr};
          },
          [](const std::string& f, const json&, int, json* state) -> json {
            const bool held = state->is_boolean() && state->get<bool>();
            if ((f == "acquire") == held) return "fail";
            *state = f == "acquire";
            return nullptr;
          }};
}

Simulation OwnerMutexSimulation() {
  return {MutexSimulation().make,
          [](const std::string& f, const json&, int process, json* state) -> json {
            if (f == "acquire") {
              if (!state->is_null()) return "fail";
              *state = process;
            } else {
              if (*state != process) return "fail";
              *state = nullptr;
            }
            return nullptr;
          }};
}

Simulation CounterSimulation() {
  return {[](std::mt19937& rng) -> std::pair<std::string, json> {
            if (rng() % 2) return {"read", nullptr};
            return {"add", static_cast<int>(rng() % 3)};
          },
          [](const std::string& f, const json& in, int, json* state) -> json {
            const int64_t v = state->is_number() ? state->get<int64_t>() : 0;
            if (f == "read") return v;
            *state = v + in.get<int64_t>();
            return in;
          }};
}

Simulation RwLockSimulation() {
  static const char* kOps[] = {"acquire", "release", "acquire-shared", "release-shared"};
  return {[](std::mt19937& rng) -> std::pair<std::string, json> {
            return {kOps[rng() % 4], nullptr};
          },
          [](const std::string& f, const json&, int process, json* state) -> json {
            if (state->is_null()) *state = {{"writer", nullptr}, {"readers", json::array()}};
            json& writer = (*state)["writer"];
            json& readers = (*state)["readers"];
            const bool reading =
                std::find(readers.begin(), readers.end(), json(process)) != readers.end();
            if (f == "acquire" && writer.is_null() && readers.empty()) {
              writer = process;
            } else if (f == "release" && writer == process) {
              writer = nullptr;
            } else if (f == "acquire-shared" && writer.is_null() && !reading) {
              readers.push_back(process);
            } else if (f == "release-shared" && reading) {
              readers.erase(std::find(readers.begin(), readers.end(), json(process)));
            } else {
              return "fail";
            }
            return nullptr;
          }};
}

Simulation SetSimulation() {
  return {[](std::mt19937& rng) -> std::pair<std::string, json> {
            switch (rng() % 4) {
              case 0: return {"add", static_cast<int>(rng() % 3)};
              case 1: return {"remove", static_cast<int>(rng() % 3)};
              case 2: return {"contains", static_cast<int>(rng() % 3)};
              default: return {"read", nullptr};
            }
          },
          [](const std::string& f, const json& in, int, json* state) -> json {
            if (state->is_null()) *state = json::array();
            auto it = std::find(state->begin(), state->end(), in);
            if (f == "add" && it == state->end()) state->push_back(in);
            if (f == "remove" && it != state->end()) state->erase(it);
            if (f == "contains") return it != state->end();
            if (f == "read") {
              json sorted = *state;
              std::sort(sorted.begin(), sorted.end());
              return sorted;
            }
            return in;
          }};
}

// A random concurrent history from a simulated correct object, with random
// corruption of some results so both verdicts occur.
// `extra_timeouts` (in tenths) times out more ops, on top of one in ten.
History RandomHistory(std::mt19937& rng, const Simulation& sim, int processes, int ops,
                      int extra_timeouts = 0) {
  struct Open {
    std::string f;
    json in, out;
    bool applied = false;
  };
  HistoryBuilder b;
  std::map<int, Open> open;
  std::vector<int> process_ids(processes);
  for (int p = 0; p < processes; ++p) process_ids[p] = p;
  int next_process = processes;
  json truth;
  int started = 0;
  while (started < ops || !open.empty()) {
    const int slot = static_cast<int>(rng() % processes);
    const int p = process_ids[slot];
    auto it = open.find(p);
    if (it == open.end()) {
      if (started >= ops) continue;
      auto [f, in] = sim.make(rng);
      b.Invoke(p, f, in);
      open[p] = Open{f, in, nullptr};
      ++started;
      continue;
    }
    Open& o = it->second;
    if (!o.applied && rng() % 3 != 0) {  // the linearization point
      o.out = sim.apply(o.f, o.in, p, &truth);
      o.applied = true;
      continue;
    }
    const unsigned roll = rng() % 10;
    if (roll == 0 || (extra_timeouts > 0 && static_cast<int>(rng() % 10) < extra_timeouts)) {
      // timed out, applied or not
      if (rng() % 2 && !o.applied) sim.apply(o.f, o.in, p, &truth);
      b.Info(p);
      process_ids[slot] = next_process++;
    } else if (!o.applied) {
      continue;
    } else if (roll == 2 && o.f != "read") {
      // Corruption: a failed op reported ok, or a flipped answer.
      b.Ok(p, o.out.is_boolean() ? json(!o.out.get<bool>()) : o.in);
    } else if (o.out == "fail") {
      b.Fail(p);
    } else {
      json out = o.out;
      if (roll == 1 && o.f == "read") {  // corruption, keeping the value's shape
        const json wrong = static_cast<int>(rng() % 3);
        out = out.is_array() ? json::array({wrong}) : wrong;
      }
      b.Ok(p, out);
    }
    open.erase(it);
  }
  return b.Build();
}

void CompareWithOracle(const std::string& model, const Simulation& sim, uint32_t seed,
                       int extra_timeouts = 0, int min_each = 40) {
  std::mt19937 rng(seed);
  int valid = 0, invalid = 0;
  for (int round = 0; round < 400; ++round) {
    const History history =
        RandomHistory(rng, sim, 2 + round % 3, 3 + round % 6 + extra_timeouts, extra_timeouts);
    Oracle oracle(model, history);
    const bool expected = oracle.Linearizable();
    LinearizabilityOptions options;
    options.model = model;
    auto result = CheckLinearizable(history, options);
    ASSERT_TRUE(result.ok()) << result.error();
    // Vacuously linearizable, but nothing completed ok: unknown by policy
    // (NothingToJudge), not the search's answer.
    const bool nothing = !NothingToJudge(history).empty();
    ASSERT_EQ(result->valid, nothing    ? Validity::kUnknown
                             : expected ? Validity::kTrue
                                        : Validity::kFalse)
        << "round " << round << "\n"
        << [&] {
             std::string s;
             for (const Op& op : history) s += OpToJsonLine(op) + "\n";
             return s;
           }();
    (expected ? valid : invalid)++;
  }
  // Both verdicts must be exercised for the comparison to mean anything.
  EXPECT_GT(valid, min_each);
  EXPECT_GT(invalid, min_each);
}

// A window refutation must never contradict the brute force: it may only
// claim "not linearizable" for histories that are not.
void CheckWindowRefutationsAreSound(const std::string& model, const Simulation& sim,
                                    uint32_t seed) {
  std::mt19937 rng(seed);
  int refuted = 0;
  for (int round = 0; round < 1500; ++round) {
    const History history = RandomHistory(rng, sim, 2 + round % 4, 4 + round % 7);
    Oracle oracle(model, history);
    if (!oracle.WindowRefutes()) continue;
    ++refuted;
    ASSERT_FALSE(oracle.Linearizable()) << "round " << round;
  }
  EXPECT_GT(refuted, 50);
}

TEST(WindowRefuterTest, SoundOnCasRegister) {
  CheckWindowRefutationsAreSound("cas-register", CasRegisterSimulation(), 11);
}

TEST(WindowRefuterTest, SoundOnOwnerMutex) {
  CheckWindowRefutationsAreSound("owner-mutex", OwnerMutexSimulation(), 12);
}

TEST(WindowRefuterTest, SoundOnMutex) {
  CheckWindowRefutationsAreSound("mutex", MutexSimulation(), 13);
}

TEST(LinearizabilitySearchTest, AgreesWithBruteForceOnCasRegister) {
  CompareWithOracle("cas-register", CasRegisterSimulation(), 1);
}

// Many pending writes and cas ops, where the memo lets a stored node that
// kept a write of v cover one that kept a cas to v (MemoTableTest checks the
// rule itself; this checks the verdicts stay those of the brute force).
TEST(LinearizabilitySearchTest, AgreesWithBruteForceOnCasRegisterFullOfTimeouts) {
  CompareWithOracle("cas-register", CasRegisterSimulation(), 11, 6, 30);
}

TEST(LinearizabilitySearchTest, AgreesWithBruteForceOnMutex) {
  CompareWithOracle("mutex", MutexSimulation(), 2);
}

TEST(LinearizabilitySearchTest, AgreesWithBruteForceOnOwnerMutex) {
  // Ops of a process that die with info reuse no process number, as in
  // Jepsen, so the owner model sees releases of other processes fail.
  CompareWithOracle("owner-mutex", OwnerMutexSimulation(), 3);
}

TEST(LinearizabilitySearchTest, AgreesWithBruteForceOnCounter) {
  CompareWithOracle("counter", CounterSimulation(), 4);
}

TEST(LinearizabilitySearchTest, AgreesWithBruteForceOnRwLock) {
  CompareWithOracle("rw-lock", RwLockSimulation(), 5);
}

TEST(LinearizabilitySearchTest, AgreesWithBruteForceOnSet) {
  CompareWithOracle("set", SetSimulation(), 6);
}

// Many concurrent writes and a read of a value nobody wrote: the search
// must explore every subset before saying no.
History HardInvalidHistory(int writers) {
  HistoryBuilder b;
  for (int p = 0; p < writers; ++p) b.Invoke(p, "write", p);
  for (int p = 0; p < writers; ++p) b.Info(p);
  b.Call(100, "read", nullptr, 99);
  return b.Build();
}

TEST(LinearizabilitySearchTest, MemoryBudgetGivesUnknownWithReason) {
  LinearizabilityOptions options;
  options.model = "counter";  // no window refutation for counters
  options.memory_limit_bytes = 1;
  // Concurrent adds of distinct powers of two, then a read no subset sums
  // to: every subset is a distinct state to rule out.
  HistoryBuilder b;
  for (int p = 0; p < 14; ++p) b.Invoke(p, "add", 1 << p);
  for (int p = 0; p < 14; ++p) b.Ok(p);
  b.Call(100, "read", nullptr, -1);
  auto result = CheckLinearizable(b.Build(), options);
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->valid, Validity::kUnknown);
  EXPECT_NE(result->reason.find("memory budget"), std::string::npos) << result->reason;
}

TEST(LinearizabilitySearchTest, WindowRefutesWhatTheFullSearchCannotFinish) {
  // Many concurrent completed writes make the full search explore every
  // subset; a stale read much later is refuted by a short window alone.
  LinearizabilityOptions options;
  options.model = "cas-register";
  options.memory_limit_bytes = 4 << 20;
  HistoryBuilder b;
  for (int p = 0; p < 18; ++p) b.Invoke(p, "write", p);
  for (int p = 0; p < 18; ++p) b.Ok(p);
  for (int i = 0; i < 12; ++i) b.Call(20, "cas", json::array({i % 2 ? 7 : 8, i % 2 ? 8 : 7}));
  b.Call(20, "write", 7).Call(21, "read", nullptr, 7).Call(21, "read", nullptr, 3);
  auto result = CheckLinearizable(b.Build(), options);
  ASSERT_TRUE(result.ok());
  ASSERT_EQ(result->valid, Validity::kFalse) << result->reason;
  const json& anomaly = result->anomalies.at(0);
  EXPECT_EQ(anomaly["proof"], "window");
  EXPECT_EQ(anomaly["op"]["f"], "read");
  EXPECT_EQ(anomaly["op"]["value"], 3);
  const std::string text = FormatLinearizabilityVerdict(*result);
  EXPECT_NE(text.find("shown on a window alone"), std::string::npos) << text;
}

TEST(LinearizabilitySearchTest, PendingWritesAreCheapToRefute) {
  LinearizabilityOptions options;
  options.model = "cas-register";
  auto result = CheckLinearizable(HardInvalidHistory(40), options);
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->valid, Validity::kFalse);
}

TEST(LinearizabilitySearchTest, ExplanationNamesTheOpAndThePrefix) {
  HistoryBuilder b;
  b.Call(0, "write", 1).Call(1, "read", nullptr, 1).Call(0, "write", 2);
  b.Call(1, "read", nullptr, 1);
  LinearizabilityOptions options;
  options.model = "register";
  auto result = CheckLinearizable(b.Build(), options);
  ASSERT_TRUE(result.ok());
  ASSERT_EQ(result->valid, Validity::kFalse);
  const json& anomaly = result->anomalies.at(0);
  EXPECT_EQ(anomaly["op"]["invoke_index"], 6);
  EXPECT_EQ(anomaly["op"]["index"], 7);
  EXPECT_EQ(anomaly["op"]["process"], 1);
  EXPECT_EQ(anomaly["prefix_length"], 3);
  EXPECT_EQ(anomaly["prefix"][2]["f"], "write");
  EXPECT_EQ(anomaly["prefix"][2]["value"], 2);
  EXPECT_EQ(anomaly["state"], "value 2");
  const std::string text = FormatLinearizabilityVerdict(*result);
  EXPECT_NE(text.find("valid: false"), std::string::npos) << text;
  EXPECT_NE(text.find("process 1 ok read 1"), std::string::npos) << text;
  EXPECT_NE(text.find("state value 2"), std::string::npos) << text;
}

TEST(LinearizabilitySearchTest, DeterministicAnswerAndExplanation) {
  std::mt19937 rng(7);
  for (int round = 0; round < 50; ++round) {
    const History history = RandomHistory(rng, CasRegisterSimulation(), 4, 12);
    LinearizabilityOptions options;
    options.model = "cas-register";
    auto first = CheckLinearizable(history, options);
    auto second = CheckLinearizable(history, options);
    ASSERT_TRUE(first.ok() && second.ok());
    EXPECT_EQ(first->valid, second->valid);
    EXPECT_EQ(first->anomalies, second->anomalies);
    EXPECT_EQ(first->stats["states_explored"], second->stats["states_explored"]);
  }
}

TEST(LinearizabilitySearchTest, LongSequentialHistoryDoesNotRecurse) {
  HistoryBuilder b;
  for (int i = 0; i < 100000; ++i) b.Call(i % 7, "write", i % 5).Call(i % 3, "read", nullptr, i % 5);
  LinearizabilityOptions options;
  options.model = "register";
  auto result = CheckLinearizable(b.Build(), options);
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->valid, Validity::kTrue);
}

}  // namespace
}  // namespace locksmith

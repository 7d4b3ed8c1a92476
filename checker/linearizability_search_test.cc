// The search against a brute-force oracle (every order that respects real
// time, every subset of pending ops, each model's semantics written again by
// hand over JSON) on thousands of small random histories of every data and
// lock model, plus budget, determinism and explanation checks.
#include "checker/linearizability_search.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <random>

#include "checker/check_file.h"
#include "checker/model.h"
#include "checker/window_refuter.h"
#include "history/testing/history_builder.h"

namespace locksmith {
namespace {

using nlohmann::json;
using testing::HistoryBuilder;

// Each model's semantics written again by hand over plain JSON values, for
// the brute force: whether `op` is legal in `state` and the state after it.
// Deliberately shares nothing with the Model classes (no ValueTable, no
// compiled ops), so a mistake there (nil handling, a value taken for a
// tuple, a list where a string belongs) shows up as a disagreement.
struct OracleOp {
  std::string f, key;
  json in;
  std::optional<json> out;  // the ok completion's value; none if it never completed ok
  int64_t process = 0;
};
using StepFn = std::function<bool(const OracleOp& op, json* state)>;

struct OracleSpec {
  std::string model;
  std::optional<json> initial;  // passed to the checker as --initial
  json start;                   // every partition's first state, for the oracle
  // The step function for one history's ops: some rules look at the whole
  // history (Knossos's unknown nil read).
  std::function<StepFn(const std::vector<OracleOp>&)> step_for;
};

// Register and cas-register. A read of nil is Knossos's unknown read only
// where nil cannot be a value: a non-nil start and no write (or cas) of nil
// among the ops that did not fail.
OracleSpec RegisterSpec(const std::string& model, json start = nullptr) {
  OracleSpec spec{model, start.is_null() ? std::nullopt : std::optional<json>(start), start, {}};
  spec.step_for = [start](const std::vector<OracleOp>& ops) -> StepFn {
    bool nil_value = start.is_null();
    for (const OracleOp& op : ops) {
      nil_value = nil_value || (op.f == "write" && op.in.is_null()) ||
                  (op.f == "cas" && op.in.is_array() && op.in.size() == 2 && op.in[1].is_null());
    }
    return [nil_value](const OracleOp& op, json* state) {
      if (op.f == "read") return !op.out || *op.out == *state || (op.out->is_null() && !nil_value);
      if (op.f == "write") {
        *state = op.in;
        return true;
      }
      if (op.f == "cas") {
        if (*state != op.in[0]) return !op.out;  // a pending cas may have failed
        *state = op.in[1];
        return true;
      }
      return false;
    };
  };
  return spec;
}

OracleSpec FixedSpec(const std::string& model, json start, StepFn step) {
  return {model, std::nullopt, std::move(start),
          [step](const std::vector<OracleOp>&) { return step; }};
}

OracleSpec MutexSpec(const std::string& model) {
  const bool owner = model == "owner-mutex";
  return FixedSpec(model, nullptr, [owner](const OracleOp& op, json* holder) {
    if (op.f == "acquire") {
      if (!holder->is_null()) return false;
      *holder = owner ? op.process : 0;
      return true;
    }
    if (holder->is_null() || (owner && *holder != op.process)) return false;
    *holder = nullptr;
    return true;
  });
}

OracleSpec RwLockSpec() {
  return FixedSpec("rw-lock", {{"writer", nullptr}, {"readers", json::array()}},
                   [](const OracleOp& op, json* state) {
                     json& writer = (*state)["writer"];
                     json& readers = (*state)["readers"];
                     auto me = std::find(readers.begin(), readers.end(), json(op.process));
                     if (op.f == "acquire" && writer.is_null() && readers.empty()) {
                       writer = op.process;
                     } else if (op.f == "release" && writer == op.process) {
                       writer = nullptr;
                     } else if (op.f == "acquire-shared" && writer.is_null() &&
                                me == readers.end()) {
                       readers.push_back(op.process);
                     } else if (op.f == "release-shared" && me != readers.end()) {
                       readers.erase(me);
                     } else {
                       return false;
                     }
                     return true;
                   });
}

OracleSpec CounterSpec() {
  return FixedSpec("counter", 0, [](const OracleOp& op, json* total) {
    if (op.f == "read") return !op.out || *op.out == *total;
    *total = total->get<int64_t>() + (op.in.is_null() ? 1 : op.in.get<int64_t>());
    return true;
  });
}

OracleSpec SetSpec() {
  return FixedSpec("set", json::array(), [](const OracleOp& op, json* elements) {
    auto it = std::find(elements->begin(), elements->end(), op.in);
    const bool present = it != elements->end();
    if (op.f == "add" && !present) elements->push_back(op.in);
    if (op.f == "remove" && present) elements->erase(it);
    if (op.f == "contains") return !op.out || *op.out == json(present);
    if (op.f == "read" && op.out) {
      json want = *op.out, have = *elements;
      std::sort(want.begin(), want.end());
      want.erase(std::unique(want.begin(), want.end()), want.end());
      std::sort(have.begin(), have.end());
      return want == have;
    }
    return true;
  });
}

// Porcupine's kv: each key (partitioned by the oracle) is one string.
OracleSpec KvSpec() {
  return FixedSpec("kv", "", [](const OracleOp& op, json* value) {
    if (op.f == "get") return !op.out || *op.out == *value;
    if (op.f == "put") *value = op.in;
    if (op.f == "append") *value = value->get<std::string>() + op.in.get<std::string>();
    return true;
  });
}

// Knossos's multi-register: micro-ops in order, all or nothing; an ok read
// of nil matches anything, the reads of a txn that never completed ok
// constrain nothing.
OracleSpec MultiRegisterSpec() {
  return FixedSpec("multi-register", json::object(), [](const OracleOp& op, json* registers) {
    json after = *registers;
    for (const json& micro : op.out ? *op.out : op.in) {
      const json& k = micro[1];
      const std::string name = k.is_string() ? k.get<std::string>() : k.dump();
      if (micro[0] == "write") {
        after[name] = micro[2];
      } else if (op.out && !micro[2].is_null() && micro[2] != after.value(name, json())) {
        return false;
      }
    }
    *registers = std::move(after);
    return true;
  });
}

// Brute force straight from the definition, per key: some order of all
// completed ops and any subset of pending ops, respecting real time, is
// legal under the spec. A history where no op both invoked and completed ok
// has nothing to judge: unknown (unless some partition is refuted).
class Oracle {
 public:
  Oracle(const OracleSpec& spec, const History& history) : spec_(spec) {
    const auto completion_of = PairCompletions(history);
    std::vector<OracleOp> all;
    for (size_t i = 0; i < history.size(); ++i) {
      const Op& op = history[i];
      if (op.type != OpType::kInvoke || !op.is_client()) continue;
      const int64_t c = completion_of[i];
      if (c >= 0 && history[c].type == OpType::kFail) continue;
      const bool ok = c >= 0 && history[c].type == OpType::kOk;
      OracleOp oracle_op{op.f, op.key, op.value,
                         ok ? std::optional<json>(history[c].value) : std::nullopt, op.process};
      Entry entry{oracle_op, static_cast<int64_t>(i), ok ? c : INT64_MAX, ok};
      partitions_[op.key].push_back(entry);
      all.push_back(std::move(oracle_op));
      judged_ = judged_ || ok;
    }
    step_ = spec.step_for(all);
  }

  // Whether the window refuter (alone, without the full search) proves the
  // history non-linearizable. Uses the real model: this is what is tested.
  bool WindowRefutes(const History& history) {
    ValueTable values;
    auto model = std::move(MakeModel(spec_.model, spec_.initial, &values)).value();
    const auto completion_of = PairCompletions(history);
    std::vector<SearchOp> ops;
    for (size_t i = 0; i < history.size(); ++i) {
      const Op& op = history[i];
      if (op.type != OpType::kInvoke || !op.is_client()) continue;
      const int64_t c = completion_of[i];
      if (c >= 0 && history[c].type == OpType::kFail) continue;
      const bool ok = c >= 0 && history[c].type == OpType::kOk;
      auto compiled = model->Compile(op.f, op.value, ok ? &history[c].value : nullptr,
                                     op.process);
      if (!compiled->modelled) continue;
      ops.push_back(SearchOp{compiled->op, static_cast<int64_t>(i), ok ? c : -1,
                             compiled->read_only, compiled->only_own_process_observes});
    }
    WindowRefuter refuter(*model, ops, SearchBudget{});
    return refuter.Find().has_value();
  }

  Validity Verdict() {
    for (auto& [key, ops] : partitions_) {
      ops_ = &ops;
      done_.assign(ops.size(), false);
      if (!Search(spec_.start)) return Validity::kFalse;
    }
    return judged_ ? Validity::kTrue : Validity::kUnknown;
  }

  bool Linearizable() { return Verdict() != Validity::kFalse; }

 private:
  struct Entry {
    OracleOp op;
    int64_t call, ret;
    bool must;
  };

  bool Search(const json& state) {
    const std::vector<Entry>& ops = *ops_;
    bool all_done = true;
    for (size_t i = 0; i < ops.size(); ++i) all_done &= !ops[i].must || done_[i];
    if (all_done) return true;
    for (size_t i = 0; i < ops.size(); ++i) {
      if (done_[i]) continue;
      bool ready = true;  // everything that returned before i was invoked is done
      for (size_t j = 0; j < ops.size() && ready; ++j) {
        if (!done_[j] && ops[j].must && ops[j].ret < ops[i].call) ready = false;
      }
      json next = state;
      if (!ready || !step_(ops[i].op, &next)) continue;
      done_[i] = true;
      const bool found = Search(next);
      done_[i] = false;
      if (found) return true;
    }
    return false;
  }

  const OracleSpec& spec_;
  StepFn step_;
  std::map<std::string, std::vector<Entry>> partitions_;
  bool judged_ = false;
  const std::vector<Entry>* ops_ = nullptr;
  std::vector<bool> done_;
};

// Random ops for one model: f, input and key.
struct SimOp {
  std::string f;
  json in;
  std::string key;
};
using OpMaker = std::function<SimOp(std::mt19937&)>;
// The result a correct system would return for (f, input) given the truth
// `state` of the op's key, and the new truth.
struct Simulation {
  OpMaker make;
  std::function<json(const std::string&, const json&, int process, json*)> apply;
  // Read-like ops, whose results the generator corrupts with `wrong_read`
  // (a wrong result of the same shape); unset: f "read", a small integer.
  std::function<bool(const std::string& f)> is_read;
  std::function<json(std::mt19937&, const json& out)> wrong_read;
  json start;  // the truth of every key before any op
};

Simulation CasRegisterSimulation() {
  return {[](std::mt19937& rng) -> SimOp {
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
  return {[](std::mt19937& rng) -> SimOp {
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
  return {[](std::mt19937& rng) -> SimOp {
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
  return {[](std::mt19937& rng) -> SimOp {
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
  return {[](std::mt19937& rng) -> SimOp {
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
    SimOp op;
    json out;
    bool applied = false;
  };
  const auto is_read = [&sim](const std::string& f) {
    return sim.is_read ? sim.is_read(f) : f == "read";
  };
  HistoryBuilder b;
  std::map<int, Open> open;
  std::vector<int> process_ids(processes);
  for (int p = 0; p < processes; ++p) process_ids[p] = p;
  int next_process = processes;
  std::map<std::string, json> truth;  // per key
  int started = 0;
  while (started < ops || !open.empty()) {
    const int slot = static_cast<int>(rng() % processes);
    const int p = process_ids[slot];
    auto it = open.find(p);
    if (it == open.end()) {
      if (started >= ops) continue;
      SimOp op = sim.make(rng);
      b.Invoke(p, op.f, op.in, op.key);
      open[p] = Open{std::move(op), nullptr};
      ++started;
      continue;
    }
    Open& o = it->second;
    json& state = truth.try_emplace(o.op.key, sim.start).first->second;
    if (!o.applied && rng() % 3 != 0) {  // the linearization point
      o.out = sim.apply(o.op.f, o.op.in, p, &state);
      o.applied = true;
      continue;
    }
    const unsigned roll = rng() % 10;
    if (roll == 0 || (extra_timeouts > 0 && static_cast<int>(rng() % 10) < extra_timeouts)) {
      // timed out, applied or not
      if (rng() % 2 && !o.applied) sim.apply(o.op.f, o.op.in, p, &state);
      b.Info(p);
      process_ids[slot] = next_process++;
    } else if (!o.applied) {
      continue;
    } else if (roll == 2 && !is_read(o.op.f)) {
      // Corruption: a failed op reported ok, or a flipped answer.
      b.Ok(p, o.out.is_boolean() ? json(!o.out.get<bool>()) : o.op.in);
    } else if (o.out == "fail") {
      b.Fail(p);
    } else {
      json out = o.out;
      if (roll == 1 && is_read(o.op.f)) {  // corruption, keeping the value's shape
        if (sim.wrong_read) {
          out = sim.wrong_read(rng, out);
        } else {
          const json wrong = static_cast<int>(rng() % 3);
          out = out.is_array() ? json::array({wrong}) : wrong;
        }
      }
      b.Ok(p, out);
    }
    open.erase(it);
  }
  return b.Build();
}

// Plain register with nil among the values: nil written, nil read.
Simulation RegisterSimulation() {
  return {[](std::mt19937& rng) -> SimOp {
            if (rng() % 2) return {"read", nullptr};
            const unsigned v = rng() % 3;
            return {"write", v == 2 ? json(nullptr) : json(v)};
          },
          [](const std::string& f, const json& in, int, json* state) -> json {
            if (f == "read") return *state;
            *state = in;
            return in;
          },
          {},
          [](std::mt19937& rng, const json&) -> json {
            const unsigned v = rng() % 3;
            return v == 2 ? json(nullptr) : json(v);
          }};
}

// cas-register over {nil, 0, 1}: cas from and to nil.
Simulation CasRegisterWithNilSimulation() {
  Simulation sim = CasRegisterSimulation();
  const auto value = [](std::mt19937& rng) {
    const unsigned v = rng() % 3;
    return v == 2 ? json(nullptr) : json(v);
  };
  sim.make = [value](std::mt19937& rng) -> SimOp {
    switch (rng() % 3) {
      case 0: return {"read", nullptr};
      case 1: return {"write", value(rng)};
      default: {
        json from = value(rng);
        return {"cas", json::array({from, value(rng)})};
      }
    }
  };
  sim.wrong_read = [value](std::mt19937& rng, const json&) { return value(rng); };
  return sim;
}

// Porcupine's kv over two keys: strings, appends concatenating.
Simulation KvSimulation() {
  static const char* kBits[] = {"a", "b", "ab"};
  return {[](std::mt19937& rng) -> SimOp {
            std::string key = rng() % 2 ? "k1" : "k2";
            switch (rng() % 3) {
              case 0: return {"get", nullptr, key};
              case 1: return {"append", kBits[rng() % 3], key};
              default: return {"put", kBits[rng() % 3], key};
            }
          },
          [](const std::string& f, const json& in, int, json* state) -> json {
            if (f == "get") return *state;
            *state = f == "put" ? in.get<std::string>()
                                : state->get<std::string>() + in.get<std::string>();
            return in;
          },
          [](const std::string& f) { return f == "get"; },
          [](std::mt19937& rng, const json& out) -> json {
            // Drop or add a letter: a near miss, which may still be legal.
            std::string s = out.get<std::string>();
            if (!s.empty() && rng() % 2) return s.substr(0, s.size() - 1);
            return s + kBits[rng() % 2];
          },
          ""};
}

// Knossos's multi-register: txns of one or two micro-ops over x and y
// (two micro-ops make the value a 2-element array, like a [key value] tuple).
Simulation MultiRegisterSimulation() {
  return {[](std::mt19937& rng) -> SimOp {
            json txn = json::array();
            const int n = 1 + static_cast<int>(rng() % 2);
            for (int i = 0; i < n; ++i) {
              const char* k = rng() % 2 ? "x" : "y";
              if (rng() % 2) {
                txn.push_back({"read", k, nullptr});
              } else {
                txn.push_back({"write", k, static_cast<int>(rng() % 3)});
              }
            }
            return {"txn", txn};
          },
          [](const std::string&, const json& in, int, json* state) -> json {
            if (state->is_null()) *state = json::object();
            json out = in;
            for (json& micro : out) {
              const std::string k = micro[1].get<std::string>();
              if (micro[0] == "write") {
                (*state)[k] = micro[2];
              } else {
                micro[2] = state->value(k, json());
              }
            }
            return out;
          },
          [](const std::string&) { return true; },
          [](std::mt19937& rng, const json& out) -> json {
            json wrong = out;
            json& micro = wrong[rng() % wrong.size()];
            if (micro[0] == "read") micro[2] = static_cast<int>(rng() % 3);
            return wrong;
          }};
}

std::string Dump(const History& history) {
  std::string s;
  for (const Op& op : history) s += OpToJsonLine(op) + "\n";
  return s;
}

// The checker against the oracle on 400 random histories; both verdicts
// must occur at least `min_each` times for the comparison to mean anything.
void CompareWithOracle(const OracleSpec& spec, const Simulation& sim, uint32_t seed,
                       int extra_timeouts = 0, int min_each = 40) {
  std::mt19937 rng(seed);
  int valid = 0, invalid = 0;
  for (int round = 0; round < 400; ++round) {
    const History history =
        RandomHistory(rng, sim, 2 + round % 3, 3 + round % 6 + extra_timeouts, extra_timeouts);
    const Validity expected = Oracle(spec, history).Verdict();
    LinearizabilityOptions options;
    options.model = spec.model;
    options.initial = spec.initial;
    auto result = CheckLinearizable(history, options);
    ASSERT_TRUE(result.ok()) << result.error() << "\n" << Dump(history);
    ASSERT_EQ(result->valid, expected) << "round " << round << "\n" << Dump(history);
    if (expected == Validity::kTrue) ++valid;
    if (expected == Validity::kFalse) ++invalid;
  }
  EXPECT_GT(valid, min_each);
  EXPECT_GT(invalid, min_each);
}

// A window refutation must never contradict the brute force: it may only
// claim "not linearizable" for histories that are not.
void CheckWindowRefutationsAreSound(const OracleSpec& spec, const Simulation& sim,
                                    uint32_t seed) {
  std::mt19937 rng(seed);
  int refuted = 0;
  for (int round = 0; round < 1500; ++round) {
    const History history = RandomHistory(rng, sim, 2 + round % 4, 4 + round % 7);
    Oracle oracle(spec, history);
    if (!oracle.WindowRefutes(history)) continue;
    ++refuted;
    ASSERT_FALSE(oracle.Linearizable()) << "round " << round << "\n" << Dump(history);
  }
  EXPECT_GT(refuted, 50);
}

TEST(WindowRefuterTest, SoundOnCasRegister) {
  CheckWindowRefutationsAreSound(RegisterSpec("cas-register"), CasRegisterSimulation(), 11);
}

TEST(WindowRefuterTest, SoundOnOwnerMutex) {
  CheckWindowRefutationsAreSound(MutexSpec("owner-mutex"), OwnerMutexSimulation(), 12);
}

TEST(WindowRefuterTest, SoundOnMutex) {
  CheckWindowRefutationsAreSound(MutexSpec("mutex"), MutexSimulation(), 13);
}

TEST(LinearizabilitySearchTest, AgreesWithBruteForceOnCasRegister) {
  CompareWithOracle(RegisterSpec("cas-register"), CasRegisterSimulation(), 1);
}

// Many pending writes and cas ops, where the memo lets a stored node that
// kept a write of v cover one that kept a cas to v (MemoTableTest checks the
// rule itself; this checks the verdicts stay those of the brute force).
TEST(LinearizabilitySearchTest, AgreesWithBruteForceOnCasRegisterFullOfTimeouts) {
  CompareWithOracle(RegisterSpec("cas-register"), CasRegisterSimulation(), 11, 6, 30);
}

TEST(LinearizabilitySearchTest, AgreesWithBruteForceOnCasRegisterWithNil) {
  CompareWithOracle(RegisterSpec("cas-register"), CasRegisterWithNilSimulation(), 21);
}

// --initial 0: a read of nil is Knossos's unknown read unless nil is written.
TEST(LinearizabilitySearchTest, AgreesWithBruteForceOnCasRegisterWithInitialAndNil) {
  Simulation sim = CasRegisterWithNilSimulation();
  sim.start = 0;
  CompareWithOracle(RegisterSpec("cas-register", 0), sim, 22);
}

TEST(LinearizabilitySearchTest, AgreesWithBruteForceOnRegister) {
  CompareWithOracle(RegisterSpec("register"), RegisterSimulation(), 23);
}

TEST(LinearizabilitySearchTest, AgreesWithBruteForceOnRegisterWithInitial) {
  Simulation sim = RegisterSimulation();
  sim.start = 0;
  CompareWithOracle(RegisterSpec("register", 0), sim, 24, 0, 20);
  // No nil ever written: every read of nil is an unknown read.
  Simulation no_nil = CasRegisterSimulation();
  no_nil.start = 1;
  no_nil.wrong_read = [](std::mt19937& rng, const json&) -> json {
    return rng() % 2 ? json(nullptr) : json(static_cast<int>(rng() % 3));
  };
  CompareWithOracle(RegisterSpec("cas-register", 1), no_nil, 25, 0, 20);
}

TEST(LinearizabilitySearchTest, AgreesWithBruteForceOnMutex) {
  CompareWithOracle(MutexSpec("mutex"), MutexSimulation(), 2);
}

TEST(LinearizabilitySearchTest, AgreesWithBruteForceOnOwnerMutex) {
  // Ops of a process that die with info reuse no process number, as in
  // Jepsen, so the owner model sees releases of other processes fail.
  CompareWithOracle(MutexSpec("owner-mutex"), OwnerMutexSimulation(), 3);
}

TEST(LinearizabilitySearchTest, AgreesWithBruteForceOnCounter) {
  CompareWithOracle(CounterSpec(), CounterSimulation(), 4);
}

TEST(LinearizabilitySearchTest, AgreesWithBruteForceOnRwLock) {
  CompareWithOracle(RwLockSpec(), RwLockSimulation(), 5);
}

TEST(LinearizabilitySearchTest, AgreesWithBruteForceOnSet) {
  CompareWithOracle(SetSpec(), SetSimulation(), 6);
}

TEST(LinearizabilitySearchTest, AgreesWithBruteForceOnKv) {
  CompareWithOracle(KvSpec(), KvSimulation(), 7);
}

TEST(LinearizabilitySearchTest, AgreesWithBruteForceOnMultiRegister) {
  CompareWithOracle(MultiRegisterSpec(), MultiRegisterSimulation(), 8);
}

TEST(LinearizabilitySearchTest, AgreesWithBruteForceOnMultiRegisterFullOfTimeouts) {
  CompareWithOracle(MultiRegisterSpec(), MultiRegisterSimulation(), 9, 4, 30);
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

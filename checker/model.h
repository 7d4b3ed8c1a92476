// Model: the sequential specification a history is checked against (a
// mutex, a register, ...), in the compact form the linearizability search
// runs on. A model first compiles each op's JSON into a ModelOp of integers
// (values interned in a ValueTable), then steps states. States are two
// 64-bit words; models whose state is a collection intern it, so equal
// states always have equal words.
//
// Models and their op names (see docs/history-format.md, "Models"):
//   mutex         acquire (legal iff free), release (legal iff held): Knossos
//   owner-mutex   acquire, release (legal only for the holder's process)
//   fenced-mutex  owner-mutex where each ok acquire's fence (value.fence, or
//                 an integer value) is strictly greater than every earlier one
//                 (in all three, an acquire / release whose invoke value has
//                 "reentry": true is a re-entry nested in the holder's hold:
//                 legal only while held (by its process, owner-aware), it
//                 changes nothing)
//   rw-lock       acquire / release (exclusive), acquire-shared /
//                 release-shared; aliases acquire-write, release-write,
//                 acquire-read, release-read, acquire-exclusive,
//                 release-exclusive; an acquire / release whose invoke
//                 value has "mode": "read" is shared (locksmith's readers)
//   register      read, write
//   cas-register  read, write, cas [old new]
//                 (an ok read of nil: the register holds nil where nil can be
//                 a value, as with the default initial nil of etcd histories;
//                 where it cannot — a non-nil --initial and no op writing nil
//                 — it is Knossos's read of an unknown value)
//   kv            Porcupine's kv: per key (the op's :key), one string;
//                 get (or read) completes with the whole string, put (or
//                 write) replaces it, append concatenates to it. Values
//                 must be strings. A key never written reads as "", or as
//                 --initial (a string) when given: every key starts there.
//   set           add, remove, contains (completion value true/false), read
//                 (completion value: the whole set, each element once, in any
//                 order; a read listing an element twice matches no set)
//   counter       add (value: the increment), inc / increment (no value: 1),
//                 read
//   multi-register  Knossos's: txn, a list of [:read k v] / [:write k v]
//                 micro-ops applied atomically in order; an ok read of nil
//                 matches any value; registers start nil, or as --initial, a
//                 JSON object of register -> value (multi_register_model.h)
// Ops whose f a model does not know are ignored (our histories mix lock ops
// with resource ops). Nemesis ops never reach a model.
// Not thread-safe: a model instance belongs to one check, or to one thread
// of its search (CloneForSearch).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "checker/value_table.h"

namespace locksmith {

struct ModelOp {
  uint32_t code = 0;  // model-specific operation
  int64_t process = 0;
  int64_t arg0 = 0;  // inputs (interned values, ints, fences)
  int64_t arg1 = 0;
  int64_t out = 0;  // output, when known
  bool known = true;  // false for a pending op: it may take effect, output unknown
};

struct ModelState {
  uint64_t a = 0;
  uint64_t b = 0;
  bool operator==(const ModelState&) const = default;
};

struct CompiledOp {
  // False: this model has no such f; the op is left out of the check.
  bool modelled = true;
  // Never changes the state (a read): a pending one can be dropped.
  bool read_only = false;
  // If it takes effect, only later ops of its own process can observe it
  // (acquires in owner-aware locks): a pending one whose process issues no
  // later op in the partition can be dropped, since taking effect would
  // only block everybody else forever.
  bool only_own_process_observes = false;
  ModelOp op;
};

class Model {
 public:
  virtual ~Model() = default;
  virtual std::string_view Name() const = 0;
  // `input` is the invoke's value, `output` the ok completion's value or
  // nullptr for a pending op; both already unwrapped from [key value] tuples.
  virtual Result<CompiledOp> Compile(const std::string& f, const nlohmann::json& input,
                                     const nlohmann::json* output, int64_t process) = 0;
  virtual ModelState Initial() const = 0;
  // False when `op` is illegal in `state`; otherwise sets *next.
  virtual bool Step(const ModelState& state, const ModelOp& op, ModelState* next) = 0;
  virtual std::string DescribeState(const ModelState& state) const = 0;
  // True when ops of different processes with the same inputs differ.
  virtual bool UsesProcess() const { return false; }
  // True when `value` cannot be f's own input: f takes a structured input
  // (cas [old new], a txn's list of micro-ops) and value has another shape.
  // Tells [key value] tuples (jepsen.independent) apart from inputs that are
  // 2-element arrays themselves: in a tuple, value[1] must be an input.
  virtual bool CannotBeInput(const std::string& /*f*/, const nlohmann::json& /*value*/) const {
    return false;
  }
  // True when pending op `x` can stand in for pending op `y`: wherever `y`
  // is legal and changes the state, `x` is legal and gives the same state
  // (a write of b for a cas to b). Lets the search spend the less useful op.
  virtual bool Covers(const ModelOp& /*x*/, const ModelOp& /*y*/) const { return false; }
  // Every state the model could reach with these ops, so a search can start
  // from "any state"; empty when the model cannot list them.
  virtual std::vector<ModelState> CandidateStates(const std::vector<ModelOp>& /*ops*/) const {
    return {};
  }
  // Bytes held by interned states, for the memory budget.
  virtual size_t MemoryBytes() const { return 0; }
  // A copy whose Step may run on another thread beside this model's (each
  // copy on one thread at a time), after every op is compiled: states stay
  // comparable and describable across copies. Null when the model keeps
  // states in tables of its own (sets, reader lists, register maps), whose
  // ids a copy would not share: its partitions are searched on one thread.
  virtual std::unique_ptr<Model> CloneForSearch() const { return nullptr; }
};

// Names accepted by MakeModel, in documentation order.
const std::vector<std::string>& ModelNames();

// `values` outlives the model. Errors: unknown name, initial value given to
// a model without one, or an initial value of the wrong type.
Result<std::unique_ptr<Model>> MakeModel(const std::string& name,
                                         const std::optional<nlohmann::json>& initial,
                                         ValueTable* values);

}  // namespace locksmith

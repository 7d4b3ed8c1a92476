// FaultLook: how the reports show one fault family, handed to them as data
// (results.json's "fault_descriptions", written by the harness) so that no
// report knows a family by name: the family's lane on the timeline (its
// label, its place top-down, its colour), how a client it hits shows on
// that client's own lane, the op such a client records, and a function
// that tells one of its faults for people ("kill n1", "partition: c5 cut
// from n1"). Each family defines its look next to its nemesis; the registry
// lists them (NemesisEntry::look). Thread-safe (constants, pure functions).
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "nemesis/nemesis.h"

namespace locksmith {

// How a client the fault hits (the "process" of its op's value) shows on
// that client's lane, besides the fault's own lane.
enum class ClientMark {
  kNone,  // the family hits nodes, not clients
  kSpan,  // shaded for the fault's whole window (a stalled holder)
  kTick,  // a mark where the fault began (a client that vanished there)
};

struct FaultLook {
  const char* lane;   // the lane's label
  int order;          // lanes go top-down by order
  const char* color;  // "#rrggbb"
  // The fault in words, its op's name first ("clock-bump n3 +10 s").
  // `op.value` is the begin op's completion value when it has one, else its
  // invoke's. DescribeFaultOp adds the error and bounds the length.
  std::string (*describe)(const FaultOp& op);
  ClientMark client_mark = ClientMark::kNone;
  // The op a client it hits records in the history (drawn in the nemesis's
  // colour on that client's lane); null when none.
  const char* client_op = nullptr;
};

// One fault as the reports tell it.
struct FaultSummary {
  std::string text;       // for people: the look's words, then " — error"
  bool effective = true;  // false: the op failed and hit no node and no client
  int64_t process = -1;   // the client it hit (families with a client mark)
};

// `error` is the begin op's completion error (empty when none).
FaultSummary DescribeFaultOp(const FaultLook& look, const FaultOp& op, const std::string& error);

// {"lane", "order", "color", "client_mark" ("", "span" or "tick"),
// "client_ops" (the look's client op, if any)}: results.json's view of a look.
nlohmann::json FaultLookJson(const FaultLook& look);

}  // namespace locksmith

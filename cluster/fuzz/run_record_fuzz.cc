// libFuzzer target: arbitrary bytes as a run-registry record
// (<registry>/runs/<tag>.json), which `locksmith cleanup` acts on: a record
// parses only when every name in it is its own run's (namespaces, links, the
// cgroup) and its slice is in range, and then serializes back to a record
// that parses to the same value; anything else is an error of one line.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "cluster/fuzz/fuzz_checks.h"
#include "cluster/net_plan.h"
#include "cluster/run_registry.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace locksmith;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto record = ParseRunRecord(text);
  if (!record) {
    RequireErrorLine(record.error());
    return 0;
  }
  Require(ValidateTag(record->tag).ok());
  for (const auto& ns : record->netns) Require(TagFromNetnsName(ns) == record->tag);
  for (const auto& link : record->links) Require(TagFromLinkName(link) == record->tag);
  Require(record->slice >= -1 && record->slice < kSliceCount);
  auto again = ParseRunRecord(SerializeRunRecord(*record));
  Require(again.ok() && *again == *record);
  return 0;
}

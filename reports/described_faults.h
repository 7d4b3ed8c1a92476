// DescribedFaults: results.json's "fault_descriptions" (written by the
// harness, see nemesis/fault_descriptions.h), read leniently: how each
// fault family looks (its lane's label, place and colour, how a client it
// hits shows) and each fault window's summary text, so the report draws any
// family from the data alone. Anything missing or malformed (results.json
// of an older run, or from anywhere) is left out: such a family gets a
// neutral lane, such a window its op's name. Built once, then read-only.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <unordered_map>

#include <nlohmann/json.hpp>

namespace locksmith {

// How a lane of fault bars looks.
struct LaneLook {
  std::string label;
  int64_t order = 0;            // lanes go top-down by order
  std::string color = "#555";   // "#rgb" or "#rrggbb" (checked)
  std::string client_mark;      // "", "span" or "tick" (checked)
};

// One fault window told for people.
struct WindowSummary {
  std::string text;
  bool effective = true;
  int64_t process = -1;  // the client it hit
};

class DescribedFaults {
 public:
  static DescribedFaults FromResults(const nlohmann::json& results);

  // The family's look; nullptr for a family results.json does not describe.
  const LaneLook* Family(const std::string& family) const;
  // The window whose begin op has history index `begin_index`; nullptr
  // when results.json does not tell it.
  const WindowSummary* Window(int64_t begin_index) const;
  // The ops clients record when a fault hits them (a stalled holder's
  // "pause"), by name.
  const std::set<std::string>& client_ops() const { return client_ops_; }
  const std::map<std::string, LaneLook>& families() const { return families_; }

 private:
  void ReadFamily(const std::string& name, const nlohmann::json& j);
  void ReadWindow(const nlohmann::json& j);

  std::map<std::string, LaneLook> families_;
  std::unordered_map<int64_t, WindowSummary> windows_;
  std::set<std::string> client_ops_;
};

// True for "#rgb", "#rrggbb" (hex digits): a colour safe in CSS and script.
bool IsHexColor(const std::string& color);

}  // namespace locksmith

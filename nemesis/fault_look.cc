#include "nemesis/fault_look.h"

#include "base/utf8.h"
#include "nemesis/fault_text.h"

namespace locksmith {
namespace {

// A fault that did nothing: its op failed and hit no node, or (a family
// that hits clients) no client.
bool HitNothing(const FaultOp& op, const std::string& error, bool hits_clients) {
  if (error.empty()) return false;
  if (op.value.is_object()) {
    auto nodes = op.value.find("nodes");
    if (nodes != op.value.end() && nodes->is_array() && nodes->empty()) return true;
  }
  return hits_clients && NumberField(op.value, "process") == nullptr;
}

const char* ClientMarkName(ClientMark mark) {
  switch (mark) {
    case ClientMark::kSpan: return "span";
    case ClientMark::kTick: return "tick";
    case ClientMark::kNone: break;
  }
  return "";
}

}  // namespace

FaultSummary DescribeFaultOp(const FaultLook& look, const FaultOp& op, const std::string& error) {
  std::string text = look.describe != nullptr ? look.describe(op) : op.f;
  if (!error.empty()) text += " \xE2\x80\x94 " + error;
  FaultSummary summary;
  summary.text = ShortText(SanitizeUtf8(text), 300);
  const bool hits_clients = look.client_mark != ClientMark::kNone;
  summary.effective = !HitNothing(op, error, hits_clients);
  if (const nlohmann::json* process = NumberField(op.value, "process"); process && hits_clients) {
    summary.process = process->get<int64_t>();
  }
  return summary;
}

nlohmann::json FaultLookJson(const FaultLook& look) {
  nlohmann::json client_ops = nlohmann::json::array();
  if (look.client_op != nullptr) client_ops.push_back(look.client_op);
  return {{"lane", look.lane},
          {"order", look.order},
          {"color", look.color},
          {"client_mark", ClientMarkName(look.client_mark)},
          {"client_ops", client_ops}};
}

}  // namespace locksmith

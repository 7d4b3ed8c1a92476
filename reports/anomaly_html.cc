#include "reports/anomaly_html.h"

#include <algorithm>
#include <set>
#include <vector>

#include "reports/escape.h"
#include "reports/html_text.h"
#include "reports/op_refs.h"
#include "reports/run_summary.h"
#include "reports/story_svg.h"

namespace locksmith {
namespace {

constexpr size_t kMaxListItems = 50;
constexpr int kMaxDepth = 3;

std::string Seconds(int64_t ns) { return FormatSeconds(ns); }
std::string Proc(int64_t p) { return HtmlEscape(ProcessName(p)); }
std::string Duration(int64_t ns) { return HtmlEscape(FormatDurationNs(static_cast<double>(ns))); }

// A clickable chip for an op ref; the page's script highlights the op.
std::string OpChip(const nlohmann::json& ref) {
  const int64_t index = ref["index"].get<int64_t>();
  const std::string type = FieldText(ref, "type");
  std::string label = "#" + std::to_string(index);
  std::string process = FieldText(ref, "process");
  if (!process.empty()) label += " \xC2\xB7 " + (process == "nemesis" ? process : "p" + process);
  label += " " + type + " " + FieldText(ref, "f");
  if (std::string key = FieldText(ref, "key"); !key.empty()) label += " " + key;
  if (auto t = ref.find("time"); t != ref.end() && t->is_number()) {
    label += " @ " + FormatDurationNs(t->get<double>());
  }
  return "<a href=\"#timeline\" class=\"opref t-" + HtmlEscape(type) + "\" data-idx=\"" +
         std::to_string(index) + "\">" + HtmlEscape(Truncated(label, 200)) + "</a>";
}

std::string RenderValue(const nlohmann::json& v, int depth);

std::string RenderList(const nlohmann::json& v, int depth) {
  if (v.empty()) return "<span class=\"muted\">[]</span>";
  const bool all_refs = std::all_of(v.begin(), v.end(), [](const auto& e) { return IsOpRef(e); });
  const bool all_scalars =
      std::all_of(v.begin(), v.end(), [](const auto& e) { return e.is_primitive(); });
  std::string out;
  size_t shown = 0;
  for (const auto& e : v) {
    if (shown++ == kMaxListItems) break;
    if (all_refs) {
      out += OpChip(e) + " ";
    } else if (all_scalars) {
      out += (shown > 1 ? ", " : "") + RenderValue(e, depth + 1);
    } else {
      out += "<div class=\"item\">" + RenderValue(e, depth + 1) + "</div>";
    }
  }
  if (v.size() > kMaxListItems) {
    out += " <span class=\"muted\">… " + std::to_string(v.size() - kMaxListItems) +
           " more</span>";
  }
  return out;
}

std::string RenderValue(const nlohmann::json& v, int depth) {
  if (IsOpRef(v)) return OpChip(v);
  if (v.is_null()) return "<span class=\"muted\">null</span>";
  if (v.is_string()) return HtmlEscape(Truncated(v.get<std::string>(), 2000));
  if (v.is_primitive()) return HtmlEscape(DumpJson(v));
  if (depth >= kMaxDepth) return "<code>" + HtmlEscape(Truncated(DumpJson(v), 2000)) + "</code>";
  if (v.is_array()) return RenderList(v, depth);
  std::string out = "<table class=\"kv\">";
  for (const auto& [name, child] : v.items()) {
    out += "<tr><th>" + HtmlEscape(name) + "</th><td>" + RenderValue(child, depth + 1) +
           "</td></tr>";
  }
  return out + "</table>";
}

// Fields like "overlap_ns": [start, end] give the interval to zoom to.
std::string SpanAttr(const nlohmann::json& a) {
  for (const auto& [name, v] : a.items()) {
    // A null end means "still overlapping when the run ended".
    if (name.size() > 3 && name.compare(name.size() - 3, 3, "_ns") == 0 && v.is_array() &&
        v.size() == 2 && v[0].is_number() && (v[1].is_number() || v[1].is_null())) {
      return " data-span=\"" + std::to_string(NanosecondsOf(v[0])) + "," +
             (v[1].is_null() ? std::string("end") : std::to_string(NanosecondsOf(v[1]))) + "\"";
    }
  }
  return "";
}

// [a, b] as "a" when equal, else "a..b"; anything else as JSON.
std::string Range(const nlohmann::json& a, const char* name) {
  auto it = a.find(name);
  if (it == a.end()) return "";
  if (it->is_array() && it->size() == 2 && (*it)[0].is_number() && (*it)[1].is_number()) {
    return (*it)[0] == (*it)[1] ? DumpJson((*it)[0])
                                : DumpJson((*it)[0]) + ".." + DumpJson((*it)[1]);
  }
  return FieldText(a, name);
}

std::string KeyCode(const std::string& key) {
  return "<code>" + HtmlEscape(Truncated(key, 100)) + "</code>";
}

// "At 2.600 s p1 acquired lock-0 while p0 held it (since 1.000 s, ...)."
std::string DoubleHolderText(const AnomalyStory& st, const std::string& key) {
  const StoryHold& first = st.holds[0];
  const StoryHold& second = st.holds[1];
  std::string text = "At <b>" + Seconds(second.start) + "</b> " + Proc(second.process) +
                     " acquired " + KeyCode(key) + " while " + Proc(first.process) +
                     " held it (since " + Seconds(first.start);
  if (first.lease_end >= 0) {
    text += first.lease_end < second.start
                ? ", its lease ended at " + Seconds(first.lease_end) + ", " +
                      Duration(second.start - first.lease_end) +
                      " earlier, but it went on acting as holder"
                : ", lease until " + Seconds(first.lease_end);
  }
  return text + ").";
}

// The buyers of an inventory or counter anomaly and what they read and wrote.
std::string LostUpdateText(const AnomalyStory& st, const nlohmann::json& a) {
  std::vector<std::string> parts;
  for (const auto& h : st.holds) {
    std::string part = Proc(h.process);
    for (const auto& m : h.marks) {
      part += std::string(&m == &h.marks.front() ? " " : ", ") +
              HtmlEscape(Truncated(m.label, 60)) + " at " + Seconds(m.time);
    }
    parts.push_back(part);
  }
  std::string text = "On " + KeyCode(FieldText(a, "key")) + ": " + parts[0];
  for (size_t i = 1; i < parts.size(); ++i) {
    text += (i + 1 == parts.size() ? " and " : ", ") + parts[i];
  }
  text += "; both wrote from the same read, so one update was lost.";
  const std::string type = FieldText(a, "type");
  if (type == "oversold") {
    return HtmlEscape(FieldText(a, "orders")) + " orders of " +
           HtmlEscape(FieldText(a, "initial")) + " units. " + text;
  }
  if (type == "lost-update") {
    return "The final stock was " + HtmlEscape(FieldText(a, "final_stock")) + " where " +
           HtmlEscape(Range(a, "expected_stock")) + " was expected. " + text;
  }
  if (a.contains("final")) {
    return "The final value was " + HtmlEscape(FieldText(a, "final")) + " where " +
           HtmlEscape(Range(a, "expected")) + " was expected. " + text;
  }
  return text;
}

// "At 3.000 s on lock-0: every acquire refused for 2.000 s."
std::string MomentText(const AnomalyStory& st, const nlohmann::json& a) {
  const std::string key = FieldText(a, "key");
  std::string text = "At <b>" + Seconds(st.at) + "</b>";
  if (!key.empty()) text += " on " + KeyCode(key);
  if (auto stuck = a.find("stuck_ms"); stuck != a.end() && stuck->is_number()) {
    text += ": every acquire refused for " +
            HtmlEscape(FormatDurationNs(stuck->get<double>() * 1e6));
  }
  return text + ".";
}

std::string FaultSentence(const ReportModel& model, const FaultExplanation& cause) {
  if (cause.fault < 0) return "No fault was in force at that moment or before it.";
  const auto i = static_cast<size_t>(cause.fault);
  const FaultView& f = model.faults()[i];
  std::string out = FamilyBadge(f.family, model.LaneOfFault(i).look.label) + " <b>" +
                    HtmlEscape(f.label) + "</b>";
  if (cause.active) {
    out = "In force: " + out + ", since " + Seconds(f.start) + " (" + Duration(cause.gap_ns) +
          " before)";
    if (!f.open) out += ", until " + Seconds(f.end);
    return out + ".";
  }
  return "No fault was in force; the closest before it: " + out +
         (f.point ? " at " : ", over at ") + Seconds(f.point ? f.start : f.end) + " (" +
         Duration(cause.gap_ns) + " before).";
}

// "p3's acquire [#12 ...] (invoked at 2.240 s, ok at 2.307 s)": the op as a chip.
std::string OpWords(const nlohmann::json& ref, const InvokeTimes& invokes) {
  const int64_t done = RefTime(ref);
  std::string out = Proc(FieldCount(ref, "process")) + "'s " + HtmlEscape(FieldText(ref, "f")) +
                    " " + OpChip(ref) + " (invoked at ";
  auto invoke = invokes.end();
  if (const nlohmann::json& i = ref.value("invoke_index", nlohmann::json()); i.is_number_integer()) {
    invoke = invokes.find(i.get<int64_t>());
  }
  out += invoke != invokes.end() ? Seconds(invoke->second) : std::string("?");
  return out + ", " + HtmlEscape(FieldText(ref, "type")) + " at " + Seconds(done) + ")";
}

// A nonlinearizable anomaly: the op no legal order can place, the state the
// order before it leaves, the ops it conflicts with and the span they cover.
std::string ConflictText(const ReportModel& model, const StoryConflict& c,
                         const nlohmann::json& a) {
  std::string text = OpWords(c.refuted, model.invoke_times()) + " cannot be linearized";
  const std::string state = FieldText(a, "state");
  if (!state.empty()) {
    const std::string ops = FieldText(a, "prefix_length");
    text += ": after the longest legal order found of the ops before it (" + HtmlEscape(ops) +
            (ops == "1" ? " op), " : " ops), ") + KeyCode(FieldText(a, "key")) +
            " is <b>" + HtmlEscape(Truncated(state, 200)) + "</b>";
  }
  text += ".";
  if (!c.with.empty()) {
    text += " It conflicts with ";
    for (size_t i = 0; i < c.with.size(); ++i) {
      text += (i == 0 ? "" : i + 1 == c.with.size() ? " and " : ", ") +
              OpWords(c.with[i], model.invoke_times());
    }
    text += ".";
  }
  return text + " The conflict spans <b>" + Seconds(c.from) + " \xE2\x80\x93 " +
         Seconds(c.to) + "</b>, from the earliest invoke of these ops to the latest completion.";
}

std::string FaultWords(const ReportModel& model, int64_t index) {
  const auto i = static_cast<size_t>(index);
  const FaultView& f = model.faults()[i];
  std::string out = FamilyBadge(f.family, model.LaneOfFault(i).look.label) + " <b>" +
                    HtmlEscape(f.label) + "</b> ";
  if (f.point) return out + "at " + Seconds(f.start);
  return out + "from " + Seconds(f.start) + (f.open ? ", never healed" : " to " + Seconds(f.end));
}

// The faults in effect during the conflict; else the nearest before it,
// and the first after it (which cannot have caused it).
std::string ConflictCauseHtml(const ReportModel& model, const StoryConflict& c) {
  std::string out = "<p class=\"story-cause\">";
  if (!c.during.empty()) {
    out += "In effect during the conflict: ";
    for (size_t i = 0; i < c.during.size() && i < 6; ++i) {
      out += (i ? "; " : "") + FaultWords(model, c.during[i]);
    }
    if (c.during.size() > 6) out += "; \xE2\x80\xA6";
    return out + ".</p>";
  }
  if (c.before.fault < 0) {
    out += "No fault was in effect during the conflict or before it.";
  } else {
    out += "No fault was in effect during the conflict; the nearest before it: " +
           FaultWords(model, c.before.fault) + " (" + Duration(c.before.gap_ns) +
           " before the conflict began).";
  }
  if (c.next_fault >= 0) {
    out += " The first fault after it, " + FaultWords(model, c.next_fault) + ", began " +
           Duration(c.next_gap_ns) + " after the last of these ops completed.";
  }
  return out + "</p>";
}

// The cause, then the other faults in force then (a few).
std::string CauseHtml(const ReportModel& model, const AnomalyStory& st) {
  std::string out = "<p class=\"story-cause\">" + FaultSentence(model, st.cause);
  std::vector<std::string> others;
  for (int64_t i : st.active) {
    if (i == st.cause.fault) continue;
    others.push_back(HtmlEscape(model.faults()[static_cast<size_t>(i)].label));
  }
  if (!others.empty()) {
    out += " Also in force: ";
    for (size_t i = 0; i < others.size() && i < 6; ++i) out += (i ? "; " : "") + others[i];
    if (others.size() > 6) out += "; \xE2\x80\xA6";
    out += ".";
  }
  return out + "</p>";
}

// The anomaly in words: who held what when, for how long together, and
// which fault explains it.
std::string StoryHtml(const ReportModel& model, const nlohmann::json& a) {
  const AnomalyStory st = model.StoryOf(a);
  if (st.at < 0) return "";
  if (st.conflict.to >= 0) {
    return "<div class=\"story\"><p class=\"story-text\">" + ConflictText(model, st.conflict, a) +
           "</p>" + ConflictCauseHtml(model, st.conflict) + StorySvg(model, st) + "</div>";
  }
  std::string text;
  if (st.holds.size() >= 2 && FieldText(a, "type") == "double-holder") {
    text = DoubleHolderText(st, FieldText(a, "key"));
  } else if (st.holds.size() >= 2) {
    text = LostUpdateText(st, a);
  } else {
    text = MomentText(st, a);
  }
  if (st.overlap_start >= 0) {
    text += " Two holders for <b>" + Duration(st.overlap_end - st.overlap_start) + "</b> (" +
            Seconds(st.overlap_start) + " \xE2\x80\x93 " + Seconds(st.overlap_end) + ").";
  }
  return "<div class=\"story\"><p class=\"story-text\">" + text + "</p>" + CauseHtml(model, st) +
         StorySvg(model, st) + "</div>";
}

std::string AnomalyHead(const nlohmann::json& a, size_t number, const std::set<int64_t>& ops) {
  std::string ops_attr;
  for (int64_t i : ops) ops_attr += (ops_attr.empty() ? "" : ",") + std::to_string(i);
  const std::string type = a.is_object() ? FieldText(a, "type") : "";
  std::string out = "<div class=\"anomaly\" id=\"anomaly-" + std::to_string(number) +
                    "\" data-ops=\"" + ops_attr + "\"" + (a.is_object() ? SpanAttr(a) : "") + ">";
  out += "<div class=\"ahead\"><span class=\"num\">" + std::to_string(number) +
         "</span><span class=\"atype\">" + HtmlEscape(type.empty() ? "anomaly" : type) + "</span>";
  if (std::string cls = FieldText(a, "class"); !cls.empty()) {
    out += " <span class=\"aclass\">" + HtmlEscape(Truncated(cls, 100)) + "</span>";
  }
  if (std::string key = FieldText(a, "key"); !key.empty()) {
    out += " key <code>" + HtmlEscape(Truncated(key, 200)) + "</code>";
  }
  if (std::string checker = FieldText(a, "checker"); !checker.empty()) {
    out += " <span class=\"checker\">" + HtmlEscape(checker) + "</span>";
  }
  if (!ops.empty()) out += " <button class=\"show\">show on timeline</button>";
  return out + "</div>";
}

// What the checker recorded: its ops, then every other field.
std::string CheckerRecord(const nlohmann::json& a) {
  std::string record;
  if (auto ops = a.find("ops"); ops != a.end()) {
    record += "<div class=\"aops\"><span class=\"label\">ops</span> " + RenderValue(*ops, 0) +
              "</div>";
  }
  std::string rows;
  for (const auto& [name, v] : a.items()) {
    if (name == "type" || name == "ops" || name == "key" || name == "checker") continue;
    rows += "<tr><th>" + HtmlEscape(name) + "</th><td>" + RenderValue(v, 1) + "</td></tr>";
  }
  if (!rows.empty()) record += "<table class=\"kv fields\">" + rows + "</table>";
  return record;
}

}  // namespace

std::string RenderAnomaly(const nlohmann::json& a, size_t number, const ReportModel& model) {
  std::set<int64_t> indices;
  CollectOpIndices(a, &indices);
  std::string out = AnomalyHead(a, number, indices);
  if (!a.is_object()) return out + RenderValue(a, 0) + "</div>";
  const std::string story = StoryHtml(model, a);
  const std::string record = CheckerRecord(a);
  if (story.empty()) return out + record + "</div>";
  return out + story + "<details class=\"record\"><summary>the checker's record</summary>" +
         record + "</details></div>";
}

}  // namespace locksmith

#include "reports/story_svg.h"

#include <algorithm>
#include <cstdio>

#include "reports/escape.h"
#include "reports/html_text.h"

namespace locksmith {
namespace {

constexpr double kLeft = 46, kRight = 560, kRow = 26, kTop = 18;

// Times [t0, t1] across [kLeft, kRight]; the rows' bottom edge.
struct Frame {
  double t0 = 0, t1 = 1, rows_bottom = kTop;
  double X(double t) const {
    return kLeft + (std::clamp(t, t0, t1) - t0) / (t1 - t0) * (kRight - kLeft);
  }
};

// The holds' span, with the fault's start when it is not far out of it.
Frame FrameOf(const ReportModel& model, const AnomalyStory& st) {
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  for (const auto& h : st.holds) {
    lo = std::min(lo, h.start);
    hi = std::max({hi, h.end, h.lease_end});
  }
  if (st.cause.fault >= 0) {
    const FaultView& f = model.faults()[static_cast<size_t>(st.cause.fault)];
    if (lo - f.start < 2 * std::max<int64_t>(1, hi - lo)) lo = std::min(lo, f.start);
  }
  const double pad = std::max(1.0, static_cast<double>(hi - lo) * 0.06);
  return {static_cast<double>(lo) - pad, static_cast<double>(hi) + pad,
          kTop + kRow * static_cast<double>(st.holds.size())};
}

std::string FaultShade(const ReportModel& model, const AnomalyStory& st, const Frame& fr) {
  if (st.cause.fault < 0) return "";
  const auto fault = static_cast<size_t>(st.cause.fault);
  const FaultView& f = model.faults()[fault];
  const double a = fr.X(static_cast<double>(f.start));
  const double b = f.point ? a + 2 : fr.X(static_cast<double>(f.end));
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "<rect class=\"sv-fault\" x=\"%.1f\" y=\"4\" width=\"%.1f\" height=\"%.1f\"/>"
                "<text class=\"sv-flabel\" x=\"%.1f\" y=\"13\">",
                a, std::max(2.0, b - a), fr.rows_bottom - 4, a + 3);
  return buf + HtmlEscape(Truncated(model.LaneOfFault(fault).look.label, 40)) + "</text>";
}

std::string OverlapShade(const AnomalyStory& st, const Frame& fr) {
  if (st.overlap_start < 0) return "";
  const double a = fr.X(static_cast<double>(st.overlap_start));
  const double b = fr.X(static_cast<double>(st.overlap_end));
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "<rect class=\"sv-overlap\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                "height=\"%.1f\"/>",
                a, kTop - 2, std::max(2.0, b - a), fr.rows_bottom - kTop + 4);
  return buf;
}

// Hold `row`: its process, its bar, the part past its lease, the lease's
// end and its marks.
std::string HoldRow(const StoryHold& h, size_t row, const Frame& fr) {
  const double y = kTop + kRow * static_cast<double>(row);
  char buf[256];
  std::snprintf(buf, sizeof buf, "<text class=\"sv-label\" x=\"2\" y=\"%.1f\">", y + 14);
  std::string svg = buf + HtmlEscape(ProcessName(h.process)) + "</text>";
  const double a = fr.X(static_cast<double>(h.start)), b = fr.X(static_cast<double>(h.end));
  const bool expired = h.lease_end >= 0 && h.lease_end < h.end;
  const double e = expired ? fr.X(static_cast<double>(h.lease_end)) : b;
  std::snprintf(buf, sizeof buf,
                "<rect class=\"sv-hold\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"12\"/>", a,
                y + 4, std::max(1.5, e - a));
  svg += buf;
  if (expired) {
    std::snprintf(buf, sizeof buf,
                  "<rect class=\"sv-expired\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                  "height=\"12\"/>",
                  e, y + 4, std::max(1.0, b - e));
    svg += buf;
  }
  if (h.lease_end >= 0) {
    const double l = fr.X(static_cast<double>(h.lease_end));
    std::snprintf(buf, sizeof buf,
                  "<line class=\"sv-lease\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>"
                  "<text class=\"sv-small\" x=\"%.1f\" y=\"%.1f\">lease end</text>",
                  l, l, y + 1, y + 19, l + 2, y + 25);
    svg += buf;
  }
  for (const auto& mark : h.marks) {
    const double m = fr.X(static_cast<double>(mark.time));
    std::snprintf(buf, sizeof buf,
                  "<line class=\"sv-mark\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>"
                  "<text class=\"sv-small\" x=\"%.1f\" y=\"%.1f\">",
                  m, m, y + 2, y + 18, m + 2, y + 25);
    svg += buf + HtmlEscape(Truncated(mark.label, 40)) + "</text>";
  }
  return svg;
}

// The axis: seconds from the run's start.
std::string Axis(const Frame& fr) {
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "<line class=\"sv-axis\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>", kLeft,
                kRight, fr.rows_bottom + 6, fr.rows_bottom + 6);
  std::string svg = buf;
  for (int k = 0; k <= 4; ++k) {
    const double t = fr.t0 + (fr.t1 - fr.t0) * k / 4;
    std::snprintf(buf, sizeof buf, "<text class=\"sv-small\" x=\"%.1f\" y=\"%.1f\"%s>%.3f s</text>",
                  fr.X(t), fr.rows_bottom + 18, k == 4 ? " text-anchor=\"end\"" : "", t / 1e9);
    svg += buf;
  }
  return svg;
}

}  // namespace

std::string StorySvg(const ReportModel& model, const AnomalyStory& story) {
  if (story.holds.empty()) return "";
  const Frame fr = FrameOf(model, story);
  const double height = fr.rows_bottom + 24;
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "<svg class=\"story-svg\" viewBox=\"0 0 %.0f %.0f\" width=\"%.0f\" height=\"%.0f\" "
                "role=\"img\">",
                kRight + 40, height, kRight + 40, height);
  std::string svg = buf + FaultShade(model, story, fr) + OverlapShade(story, fr);
  for (size_t i = 0; i < story.holds.size(); ++i) svg += HoldRow(story.holds[i], i, fr);
  return svg + Axis(fr) + "</svg>";
}

}  // namespace locksmith

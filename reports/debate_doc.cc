#include "reports/debate_doc.h"

#include <cstdio>
#include <sstream>

#include "base/text.h"

namespace locksmith {
namespace {

// A number as people write it: "0.5", "10", "1.25".
std::string PlainNumber(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", v);
  return text;
}

// ✓ agrees, ✗ disagrees, ? undecided, – no prediction.
std::string AgreementMark(const std::string& agreement) {
  if (agreement == "agrees") return "✓";
  if (agreement == "disagrees") return "✗";
  if (agreement == "undecided") return "?";
  return "–";
}

// A Markdown cell's text: no '|' and no line break can end it early.
std::string DocCell(std::string text) {
  std::string out;
  for (char c : text) {
    if (c == '|') {
      out += "\\|";
    } else {
      out += c == '\n' ? ' ' : c;
    }
  }
  return out;
}

void WriteHow(std::ostream& md, const DebateMatrix& m) {
  md << "Measured with `" << DocCell(m.command) << "` (suite seed " << m.seed << "): K = "
     << m.repeats << " runs of each scenario";
  if (m.time_scale) {
    md << ", time scale " << PlainNumber(*m.time_scale)
       << (*m.time_scale == 1 ? " (every run at its scenario's own length)"
                              : " (the run lengths below; scripted scenarios keep theirs)");
  }
  md << ". Y: two clients can hold the lock at once (or the resource loses updates); N: they "
        "cannot. In the grid each scenario of a box is its prediction, its invalid runs of "
        "those judged, and ✓ when the runs agree with the prediction (a Y once a run shows the "
        "predicted anomaly, an N while every run is judged valid), ✗ when they refute it, ? when "
        "no run decided it.\n\n";
}

void WriteGridTable(std::ostream& md, const DebateMatrix& m) {
  md << "| row |";
  for (const auto& c : m.columns) md << " " << DocCell(c) << " |";
  md << "\n|---|";
  for (size_t i = 0; i < m.columns.size(); ++i) md << "---|";
  md << "\n";
  for (const auto& row : m.rows) {
    md << "| " << (row.empty() ? "—" : DocCell(row)) << " |";
    for (const auto& column : m.columns) {
      std::string cell;
      for (const auto& e : m.entries) {
        if (e.row != row || e.column != column) continue;
        cell += (cell.empty() ? "" : ", ") + DebateLetter(e.predicted_verdict) + " " +
                std::to_string(e.invalid) + "/" + std::to_string(e.judged) + " " +
                AgreementMark(e.agreement);
      }
      for (const auto& c : m.shape.cannot_run) {
        if (cell.empty() && c.row == row && c.column == column) {
          cell = DebateLetter(c.predicted) + " (cannot run)";
        }
      }
      md << " " << DocCell(cell) << " |";
    }
    md << "\n";
  }
  md << "\n";
}

void WriteEntryTable(std::ostream& md, const DebateMatrix& m) {
  md << "| row | lock | scenario | predicted | observed (invalid of judged, Wilson 95%) | agrees "
        "| median time to the first violation | run length |\n"
        "|---|---|---|---|---|---|---|---|\n";
  for (const auto& e : m.entries) {
    std::string predicted = DebateLetter(e.predicted_verdict);
    if (!e.predicted_anomaly.empty()) predicted += " (" + e.predicted_anomaly + ")";
    std::string observed = DebateObservedText(e);
    if (e.invalid_predicted_kind < e.invalid) {
      observed += ", " + std::to_string(e.invalid_predicted_kind) + " of the predicted kind";
    }
    md << "| " << (e.row.empty() ? "—" : DocCell(e.row)) << " | " << DocCell(e.column) << " | `"
       << DocCell(e.scenario) << "` | " << DocCell(predicted) << " | " << DocCell(observed)
       << " | " << DocCell(e.agreement) << " | "
       << (e.median_first_violation_s ? FormatDurationNs(*e.median_first_violation_s * 1e9)
                                      : "–")
       << " | " << PlainNumber(e.run_length_s) << " s |\n";
  }
  md << "\n";
}

void WriteCannotRun(std::ostream& md, const DebateMatrix& m) {
  if (m.shape.cannot_run.empty()) return;
  md << "Cells the harness cannot run (`scenarios/debate/matrix.json`), with what the debate "
        "predicts there:\n\n";
  for (const auto& c : m.shape.cannot_run) {
    md << "- row " << c.row << " on " << c.column << ": predicted " << DebateLetter(c.predicted)
       << "; " << c.reason << "\n";
  }
  md << "\n";
}

struct MarkerPlace {
  size_t begin = 0;  // just after the begin marker's line
  size_t end = 0;    // at the end marker
};

Result<MarkerPlace> FindMarkers(const std::string& doc) {
  const size_t begin = doc.find(kDebateDocBegin);
  const size_t end = doc.find(kDebateDocEnd);
  if (begin == std::string::npos || end == std::string::npos || end < begin) {
    return Error{std::string("no debate-matrix markers (") + kDebateDocBegin + " ... " +
                 kDebateDocEnd + ") in order"};
  }
  if (doc.find(kDebateDocBegin, begin + 1) != std::string::npos ||
      doc.find(kDebateDocEnd, end + 1) != std::string::npos) {
    return Error{"the debate-matrix markers are given twice"};
  }
  const size_t line_end = doc.find('\n', begin);
  if (line_end == std::string::npos || line_end >= end) {
    return Error{"the debate-matrix begin marker must end its line"};
  }
  return MarkerPlace{line_end + 1, end};
}

}  // namespace

std::string DebateDocTables(const DebateMatrix& m) {
  std::ostringstream md;
  WriteHow(md, m);
  WriteGridTable(md, m);
  WriteEntryTable(md, m);
  WriteCannotRun(md, m);
  return md.str();
}

Result<std::string> DebateDocBlock(const std::string& doc) {
  auto place = FindMarkers(doc);
  if (!place) return Error{place.error()};
  return doc.substr(place->begin, place->end - place->begin);
}

Result<std::string> PatchDebateDoc(const std::string& doc, const DebateMatrix& m) {
  auto place = FindMarkers(doc);
  if (!place) return Error{place.error()};
  return doc.substr(0, place->begin) + DebateDocTables(m) + doc.substr(place->end);
}

}  // namespace locksmith

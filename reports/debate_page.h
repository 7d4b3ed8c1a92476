// The debate matrix as a page (debate.html, beside the suite's index.html):
// the debate's rows down, the locks across, in each box every scenario
// there with its prediction, k of K runs invalid with the Wilson 95%
// interval, whether the runs agree, the median time to the first violation;
// a box the harness cannot run says so with the reason. Below the grid, per
// scenario, each invalid run linked to its report with its seed and the
// command that replays it. Self-contained (no script, no external file);
// links are relative to the suite's directory. Pure rendering; thread-safe.
#pragma once

#include <string>

#include "reports/debate_matrix.h"

namespace locksmith {

std::string RenderDebatePage(const DebateMatrix& matrix);

}  // namespace locksmith

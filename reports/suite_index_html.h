// A suite's index.html, the page a browser opens: the comparison of every
// lock setting under each fault schedule (grants per second, time to
// acquire, acquires in doubt and failed for want of an answer, violations
// with their Wilson 95% interval), each cell's figures, and every run linking
// to its report. The index pages' shared style is reports/assets/index.css.
// Pure; thread-safe.
#pragma once

#include <string>

#include "reports/suite_run.h"

namespace locksmith {

std::string RenderSuiteIndex(const SuiteRecord& suite);
// The <style> element the index pages share (a suite's, the store's), with
// the verdict classes valid, invalid, unknown, failed and no-verdict.
std::string IndexPageStyle();

}  // namespace locksmith

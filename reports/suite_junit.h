// A suite's junit.xml, the file a CI reads: one test case per run, an
// invalid run a <failure> naming its anomalies, a run that was not judged
// valid or invalid an <error> saying why. Pure; thread-safe.
#pragma once

#include <string>

#include "reports/suite_run.h"

namespace locksmith {

std::string RenderSuiteJunit(const SuiteRecord& suite);

}  // namespace locksmith

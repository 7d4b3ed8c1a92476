// Importers for histories written by Jepsen, so researchers can check data
// they already have: EDN op maps (a vector or list of maps, one map per line,
// or #jepsen.history.Op{...} records) and `jepsen.util` log lines
// ("INFO  jepsen.util - 2\t:invoke\t:cas\t[3 0]"). Both map onto Op:
// keywords become strings without the colon, nil becomes null, vectors
// become arrays; :process :nemesis becomes kNemesisProcess; a missing :index
// is the op's position in the file. Errors read "SOURCE:LINE: reason".
// Stateless free functions; safe to call from any thread.
#pragma once

#include <string>
#include <string_view>

#include "base/result.h"
#include "history/history.h"

namespace locksmith {

Result<History> ParseJepsenEdnHistory(std::string_view text, const std::string& source);

// Lines that are not op lines (other loggers, free text) are skipped; an op
// line whose value is not readable EDN is an error.
Result<History> ParseJepsenLogHistory(std::string_view text, const std::string& source);

}  // namespace locksmith

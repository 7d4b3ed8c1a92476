#include "backends/lock_client.h"

namespace locksmith {

std::string_view OutcomeName(Outcome outcome) {
  switch (outcome) {
    case Outcome::kOk: return "ok";
    case Outcome::kFail: return "fail";
    case Outcome::kUnknown: return "unknown";
  }
  return "unknown";
}

}  // namespace locksmith

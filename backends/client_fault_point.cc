#include "backends/client_fault_point.h"

namespace locksmith {

const char* ClientFaultPointName(ClientFaultPoint point) {
  switch (point) {
    case ClientFaultPoint::kBeforeAcquire:
      return "before-acquire";
    case ClientFaultPoint::kAcquireInFlight:
      return "acquire-in-flight";
    case ClientFaultPoint::kAcquireAnswered:
      return "acquire-answered";
    case ClientFaultPoint::kCriticalSection:
      return "critical-section";
    case ClientFaultPoint::kBeforeRelease:
      return "before-release";
    case ClientFaultPoint::kReleaseInFlight:
      break;
  }
  return "release-in-flight";
}

bool InsideAnOp(ClientFaultPoint point) {
  return point != ClientFaultPoint::kCriticalSection && point != ClientFaultPoint::kBeforeRelease;
}

}  // namespace locksmith

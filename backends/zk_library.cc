#include "backends/zk_library.h"

#include <zookeeper/zookeeper.h>

#include <cstdio>
#include <mutex>

namespace locksmith {

void QuietZkLibrary() {
  static std::once_flag once;
  std::call_once(once, [] {
    // Kept open for the life of the process: the library may log from its
    // threads at any time.
    FILE* sink = std::fopen("/dev/null", "w");
    if (sink != nullptr) zoo_set_log_stream(sink);
    zoo_set_debug_level(ZOO_LOG_LEVEL_ERROR);
  });
}

}  // namespace locksmith

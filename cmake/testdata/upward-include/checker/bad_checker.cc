// The checker may use only base and history: a backend header here is refused.
#include "backends/lock_client.h"
#include "base/result.h"

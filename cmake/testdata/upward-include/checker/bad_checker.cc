// The checker may use only base: a backend header here is refused.
#include "backends/lock_client.h"
#include "base/result.h"

// libpq, opened on its first call rather than linked (base/shared_library.h):
// a `locksmith check` never loads it. libpq_library.cc defines every libpq
// function the backends call, each forwarding to the library's own, so the
// callers include <libpq-fe.h> and call libpq as if it were linked.
// Thread-safe.
#pragma once

#include "base/result.h"

namespace locksmith {

// Opens libpq and finds every function the backends call, once; later calls
// return the first one's answer. The PostgreSQL service calls it before it
// starts anything, so that a missing library is one line naming its package.
// A libpq call made without it loads the library itself, and throws
// std::runtime_error with that line if it cannot.
Status LoadLibpq();

}  // namespace locksmith

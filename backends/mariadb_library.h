// libmariadb, opened on its first call rather than linked
// (base/shared_library.h): a `locksmith check` never loads it.
// mariadb_library.cc defines every libmariadb function the backends call,
// each forwarding to the library's own, so the callers include <mysql.h> and
// call libmariadb as if it were linked.
// Thread-safe.
#pragma once

#include "base/result.h"

namespace locksmith {

// Opens libmariadb and finds every function the backends call, once; later
// calls return the first one's answer. The MariaDB service calls it before it
// starts anything, so that a missing library is one line naming its package.
// A libmariadb call made without it loads the library itself, and throws
// std::runtime_error with that line if it cannot.
Status LoadLibmariadb();

}  // namespace locksmith

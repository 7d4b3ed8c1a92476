// PgRunOnce: one statement in a session of its own, run to completion on the
// calling thread (a private io_context drives a PgConnection), for the
// postgres service's readiness probe, its schema and tests. Bounded by
// `timeout` (connect and statement together). Thread-safe (shares nothing).
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "backends/pg_connection.h"
#include "base/result.h"

namespace locksmith {

// The statement's rows; an error when the session could not be opened in
// time, the server refused the statement, or no answer came in time.
Result<std::vector<PgRow>> PgRunOnce(const PgEndpoint& endpoint, const std::string& sql,
                                     std::chrono::milliseconds timeout);

}  // namespace locksmith

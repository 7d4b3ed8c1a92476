#include "backends/libpq_library.h"

#include <libpq-fe.h>

#include <stdexcept>

#include "base/shared_library.h"

// Every libpq function the backends call: X(return type, name, (parameters),
// (arguments)). A function called but not listed is a link error.
#define LOCKSMITH_LIBPQ_FUNCTIONS(X)                                                        \
  X(void, PQclear, (PGresult * res), (res))                                                 \
  X(PostgresPollingStatusType, PQconnectPoll, (PGconn * conn), (conn))                      \
  X(PGconn*, PQconnectStartParams,                                                          \
    (const char* const* keywords, const char* const* values, int expand_dbname),            \
    (keywords, values, expand_dbname))                                                      \
  X(int, PQconsumeInput, (PGconn * conn), (conn))                                           \
  X(char*, PQerrorMessage, (const PGconn* conn), (conn))                                    \
  X(void, PQfinish, (PGconn * conn), (conn))                                                \
  X(int, PQflush, (PGconn * conn), (conn))                                                  \
  X(PGresult*, PQgetResult, (PGconn * conn), (conn))                                        \
  X(int, PQgetisnull, (const PGresult* res, int tup_num, int field_num),                    \
    (res, tup_num, field_num))                                                              \
  X(char*, PQgetvalue, (const PGresult* res, int tup_num, int field_num),                   \
    (res, tup_num, field_num))                                                              \
  X(int, PQisBusy, (PGconn * conn), (conn))                                                 \
  X(int, PQnfields, (const PGresult* res), (res))                                           \
  X(int, PQntuples, (const PGresult* res), (res))                                           \
  X(char*, PQresultErrorField, (const PGresult* res, int fieldcode), (res, fieldcode))      \
  X(char*, PQresultErrorMessage, (const PGresult* res), (res))                              \
  X(ExecStatusType, PQresultStatus, (const PGresult* res), (res))                           \
  X(int, PQsendQueryParams,                                                                 \
    (PGconn * conn, const char* command, int nParams, const Oid* paramTypes,                \
     const char* const* paramValues, const int* paramLengths, const int* paramFormats,      \
     int resultFormat),                                                                     \
    (conn, command, nParams, paramTypes, paramValues, paramLengths, paramFormats,           \
     resultFormat))                                                                         \
  X(PQnoticeProcessor, PQsetNoticeProcessor,                                                \
    (PGconn * conn, PQnoticeProcessor proc, void* arg), (conn, proc, arg))                  \
  X(int, PQsetnonblocking, (PGconn * conn, int arg), (conn, arg))                           \
  X(int, PQsocket, (const PGconn* conn), (conn))                                            \
  X(ConnStatusType, PQstatus, (const PGconn* conn), (conn))

namespace locksmith {
namespace {

struct LibpqFunctions {
  Status loaded = OkStatus();
  LOCKSMITH_LIBPQ_FUNCTIONS(LOCKSMITH_FUNCTION_POINTER)
};

Status FindLibpqFunctions(LibpqFunctions& table) {
  auto opened = SharedLibrary::Open("libpq.so.5", "libpq5");
  if (!opened) return Error{opened.error()};
  const SharedLibrary& library = *opened;
  LOCKSMITH_LIBPQ_FUNCTIONS(LOCKSMITH_FIND_FUNCTION)
  return OkStatus();
}

const LibpqFunctions& Libpq() {
  static const LibpqFunctions table = [] {
    LibpqFunctions t;
    t.loaded = FindLibpqFunctions(t);
    return t;
  }();
  return table;
}

// The table for a forwarder, which cannot return an error: a call made
// without LoadLibpq's check first.
const LibpqFunctions& LoadedLibpq() {
  const LibpqFunctions& table = Libpq();
  if (!table.loaded) throw std::runtime_error(table.loaded.error());
  return table;
}

}  // namespace

Status LoadLibpq() { return Libpq().loaded; }

}  // namespace locksmith

#define LOCKSMITH_LIBPQ_FORWARDER(ret, name, params, args) \
  extern "C" ret name params { return locksmith::LoadedLibpq().name args; }
LOCKSMITH_LIBPQ_FUNCTIONS(LOCKSMITH_LIBPQ_FORWARDER)
#undef LOCKSMITH_LIBPQ_FORWARDER
#undef LOCKSMITH_LIBPQ_FUNCTIONS

#include "backends/mariadb_library.h"

#include <mysql.h>

#include <stdexcept>

#include "base/shared_library.h"

// Every libmariadb function the backends call: X(return type, name,
// (parameters), (arguments)). A function called but not listed is a link
// error.
#define LOCKSMITH_MARIADB_FUNCTIONS(X)                                                     \
  X(my_ulonglong, mysql_affected_rows, (MYSQL * mysql), (mysql))                           \
  X(void, mysql_close, (MYSQL * sock), (sock))                                             \
  X(unsigned int, mysql_errno, (MYSQL * mysql), (mysql))                                   \
  X(const char*, mysql_error, (MYSQL * mysql), (mysql))                                    \
  X(MYSQL_ROW, mysql_fetch_row, (MYSQL_RES * result), (result))                            \
  X(unsigned int, mysql_field_count, (MYSQL * mysql), (mysql))                             \
  X(void, mysql_free_result, (MYSQL_RES * result), (result))                               \
  X(my_socket, mysql_get_socket, (MYSQL * mysql), (mysql))                                 \
  X(unsigned int, mysql_get_timeout_value_ms, (const MYSQL* mysql), (mysql))               \
  X(MYSQL*, mysql_init, (MYSQL * mysql), (mysql))                                          \
  X(my_ulonglong, mysql_insert_id, (MYSQL * mysql), (mysql))                               \
  X(unsigned int, mysql_num_fields, (MYSQL_RES * res), (res))                              \
  X(int, mysql_options, (MYSQL * mysql, enum mysql_option option, const void* arg),        \
    (mysql, option, arg))                                                                  \
  X(int, mysql_query, (MYSQL * mysql, const char* q), (mysql, q))                          \
  X(MYSQL*, mysql_real_connect,                                                            \
    (MYSQL * mysql, const char* host, const char* user, const char* passwd,                \
     const char* db, unsigned int port, const char* unix_socket, unsigned long clientflag), \
    (mysql, host, user, passwd, db, port, unix_socket, clientflag))                        \
  X(int, mysql_real_connect_cont, (MYSQL * *ret, MYSQL * mysql, int status),               \
    (ret, mysql, status))                                                                  \
  X(int, mysql_real_connect_start,                                                         \
    (MYSQL * *ret, MYSQL * mysql, const char* host, const char* user, const char* passwd,  \
     const char* db, unsigned int port, const char* unix_socket, unsigned long clientflag), \
    (ret, mysql, host, user, passwd, db, port, unix_socket, clientflag))                   \
  X(int, mysql_real_query_cont, (int* ret, MYSQL* mysql, int status), (ret, mysql, status)) \
  X(int, mysql_real_query_start,                                                           \
    (int* ret, MYSQL* mysql, const char* q, unsigned long length),                         \
    (ret, mysql, q, length))                                                               \
  X(MYSQL_RES*, mysql_store_result, (MYSQL * mysql), (mysql))                              \
  X(int, mysql_store_result_cont, (MYSQL_RES * *ret, MYSQL * mysql, int status),           \
    (ret, mysql, status))                                                                  \
  X(int, mysql_store_result_start, (MYSQL_RES * *ret, MYSQL * mysql), (ret, mysql))

namespace locksmith {
namespace {

struct MariadbFunctions {
  Status loaded = OkStatus();
  LOCKSMITH_MARIADB_FUNCTIONS(LOCKSMITH_FUNCTION_POINTER)
};

Status FindMariadbFunctions(MariadbFunctions& table) {
  auto opened = SharedLibrary::Open("libmariadb.so.3", "libmariadb3");
  if (!opened) return Error{opened.error()};
  const SharedLibrary& library = *opened;
  LOCKSMITH_MARIADB_FUNCTIONS(LOCKSMITH_FIND_FUNCTION)
  return OkStatus();
}

const MariadbFunctions& Libmariadb() {
  static const MariadbFunctions table = [] {
    MariadbFunctions t;
    t.loaded = FindMariadbFunctions(t);
    return t;
  }();
  return table;
}

// The table for a forwarder, which cannot return an error: a call made
// without LoadLibmariadb's check first.
const MariadbFunctions& LoadedLibmariadb() {
  const MariadbFunctions& table = Libmariadb();
  if (!table.loaded) throw std::runtime_error(table.loaded.error());
  return table;
}

}  // namespace

Status LoadLibmariadb() { return Libmariadb().loaded; }

}  // namespace locksmith

#define LOCKSMITH_MARIADB_FORWARDER(ret, name, params, args) \
  extern "C" ret name params { return locksmith::LoadedLibmariadb().name args; }
LOCKSMITH_MARIADB_FUNCTIONS(LOCKSMITH_MARIADB_FORWARDER)
#undef LOCKSMITH_MARIADB_FORWARDER
#undef LOCKSMITH_MARIADB_FUNCTIONS

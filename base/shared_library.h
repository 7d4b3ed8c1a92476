// SharedLibrary: a C library opened at run time (dlopen) rather than linked,
// so that a process which never calls it does not pay for loading it. The
// database client libraries are opened this way (backends/libpq_library.h,
// backends/mariadb_library.h): linked, they and the 26 libraries they pull
// in (GnuTLS, Kerberos, LDAP, SASL, every symbol bound at start) were two
// thirds of the instructions of a `locksmith check` of a one-op history.
// Thread-safe once made (dlsym is); the handle is never closed.
#pragma once

#include <string>

#include "base/result.h"

namespace locksmith {

class SharedLibrary {
 public:
  // Opens `soname` (as dlopen takes it), every symbol bound now; the error
  // is one line naming the library, the Debian `package` that installs it
  // and the loader's reason.
  static Result<SharedLibrary> Open(const std::string& soname, const std::string& package);

  // Sets `function` to the library's function `name`, or an error naming
  // both (a library older than the one built against).
  template <typename Function>
  Status Find(const char* name, Function*& function) const {
    auto symbol = FindSymbol(name);
    if (!symbol) return Error{symbol.error()};
    function = reinterpret_cast<Function*>(*symbol);
    return OkStatus();
  }

 private:
  SharedLibrary(void* handle, std::string soname, std::string package)
      : handle_(handle), soname_(std::move(soname)), package_(std::move(package)) {}
  Result<void*> FindSymbol(const char* name) const;

  void* handle_;
  std::string soname_;
  std::string package_;
};

}  // namespace locksmith

// For a table of a library's functions made with an X-macro list of
// X(return type, name, (parameters), (arguments)) entries
// (backends/libpq_library.cc): a member pointer of the function's own type,
// so a list entry that does not match the library's header does not compile,
// and the lookup of one, given a SharedLibrary `library` and the `table`.
#define LOCKSMITH_FUNCTION_POINTER(ret, name, params, args) decltype(&::name) name = nullptr;
#define LOCKSMITH_FIND_FUNCTION(ret, name, params, args)                      \
  if (::locksmith::Status found = library.Find(#name, table.name); !found) { \
    return found;                                                             \
  }

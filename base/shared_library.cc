#include "base/shared_library.h"

#include <dlfcn.h>

namespace locksmith {

Result<SharedLibrary> SharedLibrary::Open(const std::string& soname, const std::string& package) {
  // RTLD_LOCAL: its symbols stay out of the process's global scope, so they
  // never interpose on the forwarding functions of the same names.
  void* handle = ::dlopen(soname.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = ::dlerror();
    return Error{"cannot load " + soname + " (Debian package " + package + "; scripts/setup.sh " +
                 "installs it)" + (why != nullptr ? std::string(": ") + why : std::string())};
  }
  return SharedLibrary(handle, soname, package);
}

Result<void*> SharedLibrary::FindSymbol(const char* name) const {
  ::dlerror();  // clears an earlier error: dlsym's null may be a symbol's value
  void* symbol = ::dlsym(handle_, name);
  if (symbol == nullptr) {
    return Error{soname_ + " has no function " + name + " (package " + package_ +
                 " older than the one locksmith was built against?)"};
  }
  return symbol;
}

}  // namespace locksmith

// exec_echo_adapter: the smallest lock-client program there is, for the exec
// client's bench: it answers every request at once (acquires ok with a
// token, everything else ok) without a lock service, so what the bench
// measures is the harness's side of the protocol: pipes, JSON, deadlines.
// Reads only "id" and "op" from each line (it trusts its harness).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

// The whole number after `"id":` in `line`, or -1.
long long IdOf(const char* line) {
  const char* at = std::strstr(line, "\"id\":");
  return at == nullptr ? -1 : std::strtoll(at + 5, nullptr, 10);
}

}  // namespace

int main() {
  char* line = nullptr;
  size_t capacity = 0;
  while (getline(&line, &capacity, stdin) > 0) {
    const long long id = IdOf(line);
    if (std::strstr(line, "\"op\":\"hello\"") != nullptr) {
      std::printf("{\"id\":%lld,\"name\":\"echo\",\"version\":\"1\"}\n", id);
    } else if (std::strstr(line, "\"op\":\"acquire\"") != nullptr) {
      std::printf("{\"id\":%lld,\"result\":\"ok\",\"token\":\"t%lld\"}\n", id, id);
    } else {
      std::printf("{\"id\":%lld,\"result\":\"ok\"}\n", id);
    }
    std::fflush(stdout);
  }
  std::free(line);
  return 0;
}

# Sourced by the bench scripts: bench_build TARGET configures a Release
# build in $LOCKSMITH_BENCH_BUILD_DIR (default build-bench/), builds TARGET
# there, sets $build to that directory and prints a line naming the machine.
bench_build() {
  local root
  root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
  build="${LOCKSMITH_BENCH_BUILD_DIR:-$root/build-bench}"
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DLOCKSMITH_WERROR=ON >/dev/null
  cmake --build "$build" --target "$1" -j "$(nproc)" >/dev/null
  echo "$1 on $(nproc) cores, $(uname -m), $(date -u +%Y-%m-%dT%H:%MZ)"
}

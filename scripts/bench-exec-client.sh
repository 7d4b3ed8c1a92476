#!/usr/bin/env bash
# The exec protocol's overhead (docs/exec-clients.md): lock ops/s of exec
# clients driven as a run drives them (backends/exec_client_bench: all on one
# io_context thread), beside the built-in redis client on the same private
# redis-server (backends/redis_lock_bench), at the same client counts:
#   builtin   the built-in `redis` client, SET NX PX + EVALSHA, on Redis
#   echo      exec clients of backends/exec_echo_adapter, which answers at
#             once with no lock service: the harness's side of the protocol
#             alone (pipes, JSON, deadlines); harness_us_per_op is the CPU the
#             harness spent per op (the target is <= 20 us, and >= 40,000
#             ops/s at 10 clients)
#   minimal   exec clients of adapters/minimal/lock_adapter.py (Python) on Redis
# Each cell is the median of ROUNDS runs, interleaved. redis-server listens on
# 127.0.0.1 on a free port with a password and no persistence, in a temp dir,
# and is killed by pid on exit. Nothing else is touched.
#
# usage: scripts/bench-exec-client.sh [build-dir]
#   env: SECONDS_PER_RUN (default 5), CLIENT_COUNTS (default "1 10"), ROUNDS (default 3)
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
build=${1:-"$root/build"}
secs=${SECONDS_PER_RUN:-5}
counts=${CLIENT_COUNTS:-"1 10"}
rounds=${ROUNDS:-3}
for tool in "$build/backends/exec_client_bench" "$build/backends/exec_echo_adapter" \
            "$build/backends/redis_lock_bench"; do
  [[ -x "$tool" ]] || { echo "missing $tool: cmake --build $build --target $(basename "$tool")" >&2; exit 254; }
done
for tool in redis-server redis-cli ss; do
  command -v "$tool" >/dev/null || { echo "missing $tool (scripts/setup.sh installs it)" >&2; exit 254; }
done

# shellcheck source=scripts/bench/private_redis.sh
source "$(dirname "${BASH_SOURCE[0]}")/bench/private_redis.sh"
start_private_redis exec

# One run: prints "ops/s harness_us_per_op" (builtin: its client CPU per op).
run() {
  local kind=$1 n=$2
  case $kind in
    builtin)
      "$build/backends/redis_lock_bench" --port "$port" --password "$pass" --clients "$n" \
        --seconds "$secs" |
        sed -E 's/.*ops_per_sec=([0-9.]+).*client_cpu_us_per_op=([0-9.]+).*/\1 \2/' ;;
    echo|minimal)
      local program=("$build/backends/exec_echo_adapter")
      [[ $kind == minimal ]] && program=("$root/adapters/minimal/lock_adapter.py")
      "$build/backends/exec_client_bench" --port "$port" --password "$pass" --clients "$n" \
        --seconds "$secs" -- "${program[@]}" |
        sed -E 's/.*ops_per_sec=([0-9.]+) harness_us_per_op=([0-9.]+).*/\1 \2/' ;;
  esac
}
median() { awk '{r[NR]=$1; c[NR]=$2}
  function med(a, n,   i, j, t) {
    for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] > a[j]; j--) {t=a[j]; a[j]=a[j-1]; a[j-1]=t}
    return n % 2 ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2 }
  END {printf "%.0f %.2f\n", med(r, NR), med(c, NR)}'; }

echo "median of $rounds rounds, $secs s each; ops/s (acquire and release each one op) and the"
echo "harness's CPU per op in microseconds (builtin: the client's); target: echo <= 20 us/op,"
echo ">= 40,000 ops/s at 10 clients"
printf '%-8s %-8s %10s %12s\n' clients client ops/s cpu_us/op
for n in $counts; do
  for kind in builtin echo minimal; do : > "$dir/$kind"; done
  for r in $(seq "$rounds"); do
    echo "  clients $n round $r: load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
    for kind in builtin echo minimal; do
      "${cli[@]}" flushall >/dev/null
      run "$kind" "$n" >> "$dir/$kind"
    done
  done
  for kind in builtin echo minimal; do
    read -r o c < <(median < "$dir/$kind")
    printf '%-8s %-8s %10s %12s\n' "$n" "$kind" "$o" "$c"
  done
done

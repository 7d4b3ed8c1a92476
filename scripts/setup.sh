#!/usr/bin/env bash
# Installs what locksmith needs on Debian 12 (only what is missing; apt-get
# update first when something is), then configures and builds it in build/.
# Idempotent: a second run installs nothing and rebuilds only what changed.
# Run as root (apt-get, and the local cluster's namespaces need it).
#
#   scripts/setup.sh           what the main job needs: the servers of the
#                              quick comparison (every backend's: Redis, Sentinel,
#                              ZooKeeper, etcd, MariaDB, PostgreSQL), and the
#                              locksmith binary with its clock shim
#   scripts/setup.sh --tests   also what the tests need (ssh, Chromium, xmllint,
#                              Docker, Node.js, Python and the libraries of
#                              adapters/ (Debian packages, a JDK, npm modules
#                              for node-redlock), clang), and every test target
#   scripts/setup.sh --bench   also the peers the benchmark scripts run beside
#                              locksmith (Curator, a JDK, Node.js and npm)
#   scripts/setup.sh --go-adapters
#                              the main job's, and the Go adapters (go-zookeeper,
#                              etcd-concurrency: Go and the two libraries from
#                              Debian, built offline into build/adapters/);
#                              --tests and --bench include them
set -euo pipefail
cd "$(dirname "$0")/.."

bench=0 tests=0 go_adapters=0
case "${1:-}" in
  "") ;;
  --tests) tests=1 go_adapters=1 ;;
  --bench) bench=1 tests=1 go_adapters=1 ;;
  --go-adapters) go_adapters=1 ;;
  *)
    echo "setup: unknown argument '$1' (expected nothing, --tests, --bench or --go-adapters)" >&2
    exit 254
    ;;
esac

packages=(
  # build
  g++ cmake make ninja-build pkg-config
  libboost1.81-dev libhiredis-dev libzookeeper-mt-dev libmariadb-dev libpq-dev nlohmann-json3-dev
  libcli11-dev libgtest-dev libjemalloc-dev
  # the servers of the main job (suites/quick-compare.json): every backend's
  redis-server redis-sentinel redis-tools zookeeper etcd-server mariadb-server postgresql-15
  # the local cluster: namespaces, veths, bridge, firewall rules, process tools
  iproute2 iptables nftables procps tar
  # the ssh provider (client)
  openssh-client
)
if ((tests)); then
  packages+=(
    git
    # the ssh provider's tests' nodes (sshd in namespaces)
    openssh-server
    # the reports' browser test (headless); xmllint validates junit.xml against the JUnit schema
    chromium libxml2-utils
    # the docker/ compose cluster and its test (docker/cluster.sh starts its own engine)
    docker.io docker-compose debootstrap
    # the source-size lint; the exec clients' test programs and adapters
    # (adapters/: redis-py's Lock, kazoo's Lock, run with Debian's /usr/bin/python3)
    python3 python3-redis python3-kazoo
    # the nightly CI definitions' test reads ci/*.yml
    python3-yaml
    # scripts/fuzz.sh: the fuzz targets under AddressSanitizer and UBSan
    clang libclang-rt-14-dev
  )
  # The report scripts' syntax test runs node --check: Node.js as a command,
  # from wherever the machine has it (see below).
  command -v node >/dev/null || packages+=(nodejs)
  # adapters/node-redlock's modules come from npm (below)
  command -v npm >/dev/null || packages+=(npm)
  # adapters/curator: Curator's recipes and a JDK to compile the adapter
  packages+=(libcurator-recipes-java)
  command -v javac >/dev/null || packages+=(default-jdk-headless)
fi
if ((go_adapters)); then
  # adapters/go-zookeeper and adapters/etcd-concurrency: Go 1.19 and the libraries' sources,
  # which scripts/build-go-adapters.sh builds in GOPATH mode (no module download).
  packages+=(golang-go golang-github-samuel-go-zookeeper-dev golang-etcd-server-dev)
fi
if ((bench)); then
  # Curator next to zk-fair (bench-zookeeper.sh); etcdctl, which bench-etcd.sh asks whether its
  # peer cluster is up; time and taskset for every bench script.
  packages+=(time util-linux libcurator-recipes-java etcd-client)
  # A JDK, Node.js and npm are wanted as commands, not as Debian's packages: a machine
  # that has them from elsewhere (NodeSource's nodejs bundles npm, and conflicts with
  # Debian's npm package) keeps its own.
  command -v javac >/dev/null || packages+=(default-jdk-headless)
  command -v node >/dev/null || packages+=(nodejs)
  command -v npm >/dev/null || packages+=(npm)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  # No service starts on install (policy-rc.d, which invoke-rc.d and
  # deb-systemd-invoke obey): the harness runs its own servers, and
  # docker.io's would be a system dockerd that rewrites the firewall (DOCKER
  # chains, FORWARD policy DROP) under the local cluster's bridges.
  # docker/cluster.sh starts an engine of its own, without iptables, only for
  # the tests that need it.
  policy=/usr/sbin/policy-rc.d made_policy=0
  if [[ ! -e $policy ]]; then
    printf '#!/bin/sh\n# setup.sh: no service starts while it installs\nexit 101\n' >"$policy"
    chmod 755 "$policy"
    made_policy=1
    trap 'rm -f "$policy"' EXIT
  fi
  # postgresql-15 would make a cluster of the machine's own at install;
  # locksmith makes one per run.
  if [[ " ${missing[*]} " == *" postgresql-15 "* ]]; then
    mkdir -p /etc/postgresql-common/createcluster.d
    echo 'create_main_cluster = false' >/etc/postgresql-common/createcluster.d/locksmith.conf
  fi
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  if ((made_policy)); then rm -f "$policy"; trap - EXIT; fi
  # Under systemd, nor at boot: the engine this script installed stays off.
  if [[ " ${missing[*]} " == *" docker.io "* && -d /run/systemd/system ]]; then
    systemctl disable --now docker.service docker.socket >/dev/null 2>&1 || true
  fi
  # etcd-server enables the machine's own etcd for the next boot; locksmith
  # starts members of its own.
  if [[ " ${missing[*]} " == *" etcd-server "* && -d /run/systemd/system ]]; then
    systemctl disable --now etcd.service >/dev/null 2>&1 || true
  fi
fi
# The exec adapters' npm modules (adapters/node-redlock), pinned by its
# package-lock.json, into that folder only; already there: nothing to do.
if ((tests)) && [[ ! -d adapters/node-redlock/node_modules/redlock ]]; then
  npm ci --prefix adapters/node-redlock --no-audit --no-fund >/dev/null
fi
if iptables -S 2>/dev/null | grep -q -- '-N DOCKER'; then
  echo "setup: warning: a Docker engine manages this machine's firewall (DOCKER chains);" \
       "its FORWARD policy can drop the local cluster's bridged traffic" >&2
fi

# Line tables only (-g1): backtraces and gdb still name functions, files and
# lines, and the build takes about a third less time than with full -g. The
# libraries build in unity batches (LOCKSMITH_UNITY_BUILD in CMakeLists.txt),
# with Ninja, which starts a library's sources before the libraries it links
# are archived: together some two fifths off a cold build on two cores. A
# build/ configured before with another generator keeps it.
generator=()
[[ -f build/CMakeCache.txt ]] || generator=(-G Ninja)
cmake -S . -B build "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLOCKSMITH_WERROR=ON \
  -DLOCKSMITH_UNITY_BUILD=ON -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" >/dev/null
if ((tests || bench)); then
  cmake --build build -j"$(nproc)"
elif ((go_adapters)); then
  cmake --build build -j"$(nproc)" --target locksmith locksmith_clock_shim go_adapters
else
  # The main job needs only the binary and the clock shim it preloads into servers.
  cmake --build build -j"$(nproc)" --target locksmith locksmith_clock_shim
fi

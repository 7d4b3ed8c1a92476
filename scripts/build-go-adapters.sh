#!/usr/bin/env bash
# Builds the Go lock-client programs of adapters/ offline, from Debian's
# packages in GOPATH mode (no module is downloaded): go-zookeeper's zk.Lock
# (golang-github-samuel-go-zookeeper-dev) and etcd's concurrency.Mutex
# (golang-etcd-server-dev), with golang-go. scripts/setup.sh --tests installs
# them; CMake runs this script when it finds go (target go_adapters).
#
#   scripts/build-go-adapters.sh [BUILD_DIR]          (default: build)
#   scripts/build-go-adapters.sh BUILD_DIR --test     runs the unit tests of
#                                                     adapters/goexec instead
#
# writes BUILD_DIR/adapters/go-zookeeper/go-zookeeper-lock and
# BUILD_DIR/adapters/etcd-concurrency/etcd-concurrency-lock, for
# --client exec:BUILD_DIR/adapters/.../...-lock. Go's build cache and the
# GOPATH entry for the adapters' shared package (adapters/goexec) are under
# BUILD_DIR/adapters/go/.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
out=$(realpath -m "${1:-$src/build}")/adapters
gocode=/usr/share/gocode/src

need() {  # a file or directory and the Debian package that has it
  [[ -e $1 ]] || { echo "build-go-adapters: $1 is missing: install Debian's $2 (scripts/setup.sh --tests)" >&2; exit 127; }
}
command -v go >/dev/null || need /usr/bin/go golang-go
need "$gocode/github.com/samuel/go-zookeeper/zk/lock.go" golang-github-samuel-go-zookeeper-dev
need "$gocode/go.etcd.io/etcd/clientv3/concurrency/mutex.go" golang-etcd-server-dev

mkdir -p "$out/go/gopath/src/locksmith"
ln -sfn "$src/adapters/goexec" "$out/go/gopath/src/locksmith/goexec"
export GO111MODULE=off GOPATH="$out/go/gopath:/usr/share/gocode" GOCACHE="$out/go/cache"
export GOFLAGS= GOPROXY=off GOTOOLCHAIN=local CGO_ENABLED=0 GOENV=off
version_of() { dpkg-query -W -f='${Version}' "$1" 2>/dev/null || echo unknown; }

cd "$src"
if [[ ${2:-} == --test ]]; then
  exec go test -count=1 locksmith/goexec
fi
go build -p 2 -ldflags "-X main.version=$(version_of golang-github-samuel-go-zookeeper-dev)" \
  -o "$out/go-zookeeper/go-zookeeper-lock" ./adapters/go-zookeeper
go build -p 2 -o "$out/etcd-concurrency/etcd-concurrency-lock" ./adapters/etcd-concurrency

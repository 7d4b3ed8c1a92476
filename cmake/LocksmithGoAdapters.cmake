# The Go lock-client programs of adapters/ (docs/exec-clients.md): go-zookeeper's
# zk.Lock and etcd's concurrency.Mutex, built offline from Debian's packages
# (golang-go, golang-github-samuel-go-zookeeper-dev, golang-etcd-server-dev:
# scripts/setup.sh --tests or --go-adapters installs them) by
# scripts/build-go-adapters.sh into ${CMAKE_BINARY_DIR}/adapters/. Target
# go_adapters, part of ALL when go and both libraries are there; otherwise
# left out with a status line, so a machine without Go builds the rest (the
# adapters' integration test then fails naming the package to install).
set(LOCKSMITH_GO_ADAPTERS_DIR ${CMAKE_BINARY_DIR}/adapters)
set(LOCKSMITH_GOCODE /usr/share/gocode/src)
find_program(LOCKSMITH_GO go)
if(LOCKSMITH_GO AND EXISTS ${LOCKSMITH_GOCODE}/github.com/samuel/go-zookeeper/zk/lock.go
   AND EXISTS ${LOCKSMITH_GOCODE}/go.etcd.io/etcd/clientv3/concurrency/mutex.go)
  set(go_sources
    adapters/goexec/goexec.go
    adapters/goexec/goexec_test.go
    adapters/go-zookeeper/go_zookeeper_lock.go
    adapters/etcd-concurrency/etcd_concurrency_lock.go
    scripts/build-go-adapters.sh)
  list(TRANSFORM go_sources PREPEND ${PROJECT_SOURCE_DIR}/)
  add_custom_command(
    OUTPUT ${LOCKSMITH_GO_ADAPTERS_DIR}/go-zookeeper/go-zookeeper-lock
           ${LOCKSMITH_GO_ADAPTERS_DIR}/etcd-concurrency/etcd-concurrency-lock
    COMMAND ${PROJECT_SOURCE_DIR}/scripts/build-go-adapters.sh ${CMAKE_BINARY_DIR}
    DEPENDS ${go_sources}
    COMMENT "Building the Go adapters (go-zookeeper, etcd-concurrency) in GOPATH mode"
    VERBATIM)
  add_custom_target(go_adapters ALL
    DEPENDS ${LOCKSMITH_GO_ADAPTERS_DIR}/go-zookeeper/go-zookeeper-lock
            ${LOCKSMITH_GO_ADAPTERS_DIR}/etcd-concurrency/etcd-concurrency-lock)
  # The protocol package's own tests (go test: deadlines, late replies, leases left).
  add_test(NAME goexec_go_test
           COMMAND ${PROJECT_SOURCE_DIR}/scripts/build-go-adapters.sh ${CMAKE_BINARY_DIR} --test)
  set_tests_properties(goexec_go_test PROPERTIES LABELS unit)
else()
  message(STATUS "The Go adapters are left out: go, golang-github-samuel-go-zookeeper-dev or "
                 "golang-etcd-server-dev is missing (scripts/setup.sh --go-adapters)")
endif()

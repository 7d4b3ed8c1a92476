// go-zookeeper's zk.Lock (github.com/samuel/go-zookeeper/zk, Debian
// golang-github-samuel-go-zookeeper-dev) as a locksmith lock client
// (docs/exec-clients.md) on the `zookeeper` backend: one session per program
// on every server of the ensemble, its sockets bound to the client's source
// address (zk.WithDialer); each acquire is zk.NewLock(conn, path,
// zk.WorldACL(zk.PermAll)).Lock(), as the Go article among the sources
// takes it. The lock node's czxid is the fence; a session the servers
// expired is reported as lock-lost for every lock it held.
//
// The library's Lock takes no timeout and gives no try: an acquire that is
// not granted within its wait (half of timeout_ms when wait_ms is 0) is
// answered fail and its Lock left in the queue, released the moment it is
// granted. On an error Lock keeps its node (it forgets the path, so no
// Unlock can remove it) and the key would stay locked for as long as the
// session lives: the adapter then closes the session, which removes every
// node it made, and opens another, as an application that can make nothing
// else of the error would.
package main

import (
	"fmt"
	"net"
	"os"
	"reflect"
	"sync"
	"time"

	"github.com/samuel/go-zookeeper/zk"

	"locksmith/goexec"
)

// version is the Debian package's, set at build time (-X main.version).
var version = "unknown"

const root = "/locksmith-go-zookeeper/"

type hold struct {
	key  string
	lock *zk.Lock
}

type adapter struct {
	hello     *goexec.Hello
	out       *goexec.Writer
	sessionMs int64 // the session timeout the servers grant

	mu   sync.Mutex
	conn *zk.Conn
	held map[string]hold // by token: the lock node's path
}

func (a *adapter) Start(hello *goexec.Hello, out *goexec.Writer) (string, string,
	goexec.Capabilities, error) {
	a.hello, a.out, a.held = hello, out, map[string]hold{}
	// go-zookeeper does not tell the timeout the servers negotiated: it is
	// the asked one within the servers' bounds.
	a.sessionMs = hello.SettingMs("session_timeout_ms", 2000)
	if min := hello.SettingMs("min_session_ms", 0); a.sessionMs < min {
		a.sessionMs = min
	}
	if max := hello.SettingMs("max_session_ms", a.sessionMs); a.sessionMs > max {
		a.sessionMs = max
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := a.connectLocked(); err != nil {
		return "", "", goexec.Capabilities{}, err
	}
	return "go-zookeeper", version, goexec.Capabilities{Fence: true, LockLost: true}, nil
}

// connectLocked opens a session; zk.Connect returns at once and connects in
// the background, so a program started while the servers are down answers
// its hello. Holds a.mu.
func (a *adapter) connectLocked() error {
	dial := func(network, address string, timeout time.Duration) (net.Conn, error) {
		return a.hello.Dialer(timeout).Dial(network, address)
	}
	conn, events, err := zk.Connect(a.hello.Endpoints(),
		time.Duration(a.sessionMs)*time.Millisecond, zk.WithDialer(dial),
		zk.WithLogger(stderrLogger{}))
	if err != nil {
		return fmt.Errorf("zk.Connect: %v", err)
	}
	a.conn = conn
	go a.watch(conn, events)
	return nil
}

// watch reports every lock of conn's session lost when the servers expire
// it (go-zookeeper then opens a new session on the same Conn).
func (a *adapter) watch(conn *zk.Conn, events <-chan zk.Event) {
	for event := range events {
		if event.State == zk.StateExpired {
			a.mu.Lock()
			if a.conn == conn {
				a.loseAllLocked("the ZooKeeper session expired")
			}
			a.mu.Unlock()
		}
	}
}

func (a *adapter) loseAllLocked(why string) {
	for token, h := range a.held {
		a.out.Send(goexec.LockLost{Event: "lock-lost", Key: h.key, Token: token, Error: why})
		delete(a.held, token)
	}
}

// replaceSession closes the session (removing every node it made, among
// them one a failed call may have left) and opens another.
func (a *adapter) replaceSession(conn *zk.Conn, why string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.conn != conn {
		return // already replaced
	}
	fmt.Fprintf(os.Stderr, "go-zookeeper adapter: new session after %s\n", why)
	a.loseAllLocked("the adapter closed its session after " + why)
	go conn.Close()
	if err := a.connectLocked(); err != nil {
		fmt.Fprintf(os.Stderr, "go-zookeeper adapter: %v\n", err)
	}
}

func (a *adapter) current() *zk.Conn {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.conn
}

func (a *adapter) Acquire(request *goexec.Request) goexec.Reply {
	conn := a.current()
	if state := conn.State(); state != zk.StateHasSession {
		return goexec.NotBusy("no ZooKeeper session (" + state.String() + "): nothing sent")
	}
	lock := zk.NewLock(conn, root+request.Key, zk.WorldACL(zk.PermAll))
	granted := make(chan error, 1)
	go func() { granted <- lock.Lock() }()
	wait := time.Duration(request.WaitMs) * time.Millisecond
	if wait == 0 {
		wait = time.Duration(a.hello.TimeoutMs) * time.Millisecond / 2
	}
	select {
	case err := <-granted:
		if err != nil {
			a.replaceSession(conn, "Lock: "+err.Error())
			return goexec.Info("Lock: " + err.Error())
		}
		return a.granted(conn, request.Key, lock)
	case <-time.After(wait):
		go a.letGoWhenGranted(conn, lock, granted)
		if conn.State() != zk.StateHasSession {
			return goexec.Info(fmt.Sprintf("not granted within %v, and the session was lost", wait))
		}
		return goexec.Fail(fmt.Sprintf("not granted within %v (left in the queue)", wait))
	}
}

// letGoWhenGranted unlocks an abandoned Lock once it is granted.
func (a *adapter) letGoWhenGranted(conn *zk.Conn, lock *zk.Lock, granted <-chan error) {
	if err := <-granted; err != nil {
		a.replaceSession(conn, "an abandoned Lock: "+err.Error())
	} else if err := lock.Unlock(); err != nil && err != zk.ErrNoNode {
		a.replaceSession(conn, "Unlock of an abandoned Lock: "+err.Error())
	}
}

// granted asks ZooKeeper for the lock node after the grant: its czxid is the
// fence, and the session is sure to last the session timeout from when the
// request was sent.
func (a *adapter) granted(conn *zk.Conn, key string, lock *zk.Lock) goexec.Reply {
	path := lockPath(lock)
	sent := time.Now()
	exists, stat, err := conn.Exists(path)
	if err != nil || !exists {
		if unlock := lock.Unlock(); unlock != nil && unlock != zk.ErrNoNode {
			a.replaceSession(conn, "Unlock: "+unlock.Error())
		}
		if err != nil {
			return goexec.Info("exists " + path + " after the grant: " + err.Error())
		}
		return goexec.Fail("the lock node " + path + " was gone right after the grant")
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.conn != conn { // the session was replaced meanwhile
		return goexec.Fail("the session was closed right after the grant")
	}
	a.held[path] = hold{key, lock}
	reply := goexec.Ok()
	reply.Token, reply.Fence = path, &stat.Czxid
	reply.SetValidity(a.sessionMs, sent)
	return reply
}

// lockPath is the lock node's path, which zk.Lock keeps to itself (its
// unexported lockPath): read by reflection, for the fence and the token.
func lockPath(lock *zk.Lock) string {
	return reflect.ValueOf(lock).Elem().FieldByName("lockPath").String()
}

func (a *adapter) Release(request *goexec.Request) goexec.Reply {
	a.mu.Lock()
	h, ok := a.held[request.Token]
	delete(a.held, request.Token)
	conn := a.conn
	a.mu.Unlock()
	if !ok {
		return goexec.Fail("no lock with this token")
	}
	switch err := h.lock.Unlock(); err {
	case nil:
		return goexec.Ok()
	case zk.ErrNoNode: // the session that held it expired
		return goexec.Fail("the lock node was gone (session expired)")
	case zk.ErrNoServer: // never sent: the node stays until the session goes
		a.replaceSession(conn, "Unlock: "+err.Error())
		return goexec.Fail("Unlock: " + err.Error() + ": nothing sent")
	default: // maybe deleted: a new session makes sure it is
		a.replaceSession(conn, "Unlock: "+err.Error())
		return goexec.Info("Unlock: " + err.Error())
	}
}

// Late: an acquire answered info at its deadline that got the lock lets it
// go (a release that outlived its deadline replaced its session itself
// unless it deleted the node).
func (a *adapter) Late(request *goexec.Request, reply goexec.Reply) {
	if request.Op == "acquire" && reply.Result == "ok" {
		a.Release(&goexec.Request{Op: "release", Token: reply.Token})
	}
}

type stderrLogger struct{}

func (stderrLogger) Printf(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "go-zookeeper: "+format+"\n", args...)
}

func main() {
	goexec.Serve(&adapter{})
}

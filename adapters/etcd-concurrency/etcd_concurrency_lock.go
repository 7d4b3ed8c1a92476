// etcd's own lock client, clientv3/concurrency's Mutex on a Session
// (go.etcd.io/etcd/clientv3, Debian golang-etcd-server-dev), as a locksmith
// lock client (docs/exec-clients.md) on the `etcd` backend: one client per
// program on every member, its connections bound to the client's source
// address (a gRPC dialer of the adapter's); one session at a time whose
// lease has the run's --lease as its TTL (whole seconds, at least 1: the
// members may grant more), kept alive by the library; each acquire is
// concurrency.NewMutex(session, key).Lock(ctx).
//
//	acquire  Lock within the wait (half of timeout_ms when wait_ms is 0),
//	         then a keep-alive of the session's lease (KeepAliveOnce): its
//	         TTL, less the time since it was sent, is the validity; with
//	         --fencing on, the lock key's create revision is the fence.
//	release  the key deleted only while the mutex owns it (m.IsOwner() in
//	         a Txn): ok; no longer its owner (the lease expired): fail.
//	         m.Unlock deletes whatever is there and tells neither.
//	lock-lost  the session's Done(): its lease expired or its keep-alives
//	         went unanswered for a TTL; every lock of the session is lost,
//	         and the next acquire opens a new session.
//
// Lock removes its key when its wait ends, but ignores whether that worked:
// a key that may be left would be granted to a session that lives on and
// block the lock for good, so after any error whose key the adapter cannot
// see gone it closes the session (revoking its lease), as an application
// that can make nothing else of the error would.
package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"sync"
	"time"

	"go.etcd.io/etcd/clientv3"
	"go.etcd.io/etcd/clientv3/balancer/resolver/endpoint"
	"go.etcd.io/etcd/clientv3/concurrency"
	"go.etcd.io/etcd/etcdserver/api/v3rpc/rpctypes"
	"go.etcd.io/etcd/version"
	"google.golang.org/grpc"
	"locksmith/goexec"
)

const root = "/locksmith-etcd-concurrency/"

type hold struct {
	key     string
	mutex   *concurrency.Mutex
	session *concurrency.Session
}

type adapter struct {
	hello   *goexec.Hello
	out     *goexec.Writer
	client  *clientv3.Client
	ttl     int64         // the TTL asked for the session's lease, s
	timeout time.Duration // timeout_ms

	mu      sync.Mutex
	session *concurrency.Session // nil until an acquire needs one
	held    map[string]hold      // by token: the lock key
}

func (a *adapter) Start(hello *goexec.Hello, out *goexec.Writer) (string, string,
	goexec.Capabilities, error) {
	a.hello, a.out, a.held = hello, out, map[string]hold{}
	a.timeout = time.Duration(hello.TimeoutMs) * time.Millisecond
	a.ttl = (hello.LeaseMs + 999) / 1000
	if a.ttl < 1 {
		a.ttl = 1
	}
	// clientv3 dials with a dialer of its own; the last dialer among the
	// dial options wins, and the config's come after the library's
	// (except for an auth token's connection, which the harness's etcd
	// does not ask for).
	dial := func(ctx context.Context, target string) (net.Conn, error) {
		proto, host, _ := endpoint.ParseEndpoint(target)
		return hello.Dialer(a.timeout).DialContext(ctx, proto, host)
	}
	// New returns at once and connects in the background: a program
	// started while the members are down answers its hello.
	client, err := clientv3.New(clientv3.Config{
		Endpoints:   hello.Endpoints(),
		DialTimeout: a.timeout / 2,
		DialOptions: []grpc.DialOption{grpc.WithContextDialer(dial)},
	})
	if err != nil {
		return "", "", goexec.Capabilities{}, fmt.Errorf("clientv3.New: %v", err)
	}
	a.client = client
	return "etcd-concurrency", version.Version,
		goexec.Capabilities{Fence: true, LockLost: true}, nil
}

// sessionWithin is the current session, or a new one on a lease granted
// within `within` (the session keeps it alive from then on).
func (a *adapter) sessionWithin(within time.Duration) (*concurrency.Session, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.session != nil {
		return a.session, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), within)
	defer cancel()
	lease, err := a.client.Grant(ctx, a.ttl)
	if err != nil {
		return nil, fmt.Errorf("lease grant: %v", err)
	}
	session, err := concurrency.NewSession(a.client, concurrency.WithLease(lease.ID),
		concurrency.WithTTL(int(lease.TTL)))
	if err != nil {
		return nil, fmt.Errorf("NewSession: %v", err)
	}
	a.session = session
	go func() {
		<-session.Done()
		a.dropSession(session, "the session's lease expired or its keep-alives went unanswered")
	}()
	return session, nil
}

// dropSession reports every lock of the session lost, and closes it
// (revoking its lease, which removes every key it put).
func (a *adapter) dropSession(session *concurrency.Session, why string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for token, h := range a.held {
		if h.session == session {
			a.out.Send(goexec.LockLost{Event: "lock-lost", Key: h.key, Token: token, Error: why})
			delete(a.held, token)
		}
	}
	if a.session == session {
		fmt.Fprintf(os.Stderr, "etcd-concurrency adapter: session %x dropped: %s\n",
			session.Lease(), why)
		a.session = nil
		go session.Close()
	}
}

func (a *adapter) Acquire(request *goexec.Request) goexec.Reply {
	session, err := a.sessionWithin(a.timeout * 2 / 5)
	if err != nil { // a lease alone locks nothing
		return goexec.NotBusy(err.Error())
	}
	wait := time.Duration(request.WaitMs) * time.Millisecond
	if wait == 0 {
		wait = a.timeout / 2
	}
	lockCtx, lockCancel := context.WithTimeout(context.Background(), wait)
	defer lockCancel()
	mutex := concurrency.NewMutex(session, root+request.Key)
	lockErr := mutex.Lock(lockCtx)
	// What follows the lock (a keep-alive, a read, or a look for a key
	// left behind) has a share of timeout_ms of its own.
	ctx, cancel := context.WithTimeout(context.Background(), a.timeout*2/5)
	defer cancel()
	if lockErr != nil {
		return a.notGranted(ctx, session, mutex, lockErr, lockCtx.Err() != nil)
	}
	return a.granted(ctx, request.Key, session, mutex)
}

// notGranted: Lock failed. Its key seen gone: fail (busy when the wait ran
// out); otherwise the key may be queued or even granted: info, and the
// session closed so that nothing of it stays.
func (a *adapter) notGranted(ctx context.Context, session *concurrency.Session,
	mutex *concurrency.Mutex, err error, waitEnded bool) goexec.Reply {
	left, getErr := a.client.Get(ctx, mutex.Key())
	if getErr == nil && len(left.Kvs) == 0 {
		if waitEnded {
			return goexec.Fail("not granted within the wait: " + err.Error())
		}
		return goexec.NotBusy("Lock: " + err.Error())
	}
	a.dropSession(session, "Lock failed and its key may be left: "+err.Error())
	return goexec.Info("Lock: " + err.Error())
}

// granted: a keep-alive sent after the grant bounds the lease (the members
// renewed it when it reached them, after it was sent); with fencing, the
// key's create revision is the fence. Lock does not check that its key
// outlived the wait: when the lease expired while it waited (its holder
// stalled past the TTL in the queue), Lock still returns the lock, and the
// keep-alive finds the lease gone. That grant is the library's word: ok,
// with the lease it has left, none (the lock key went with the lease, so
// it has no fence: with --fencing on it is info).
func (a *adapter) granted(ctx context.Context, key string, session *concurrency.Session,
	mutex *concurrency.Mutex) goexec.Reply {
	sent := time.Now()
	alive, err := a.client.KeepAliveOnce(ctx, session.Lease())
	reply := goexec.Ok()
	reply.Token = mutex.Key()
	if err == nil {
		reply.SetValidity(alive.TTL*1000, sent)
	} else if err == rpctypes.ErrLeaseNotFound && !a.hello.Fencing {
		reply.SetValidity(0, sent)
		err = nil
		fmt.Fprintf(os.Stderr, "etcd-concurrency adapter: Lock granted %s on an expired lease\n",
			mutex.Key())
	}
	if err == nil && a.hello.Fencing {
		var kv *clientv3.GetResponse
		if kv, err = a.client.Get(ctx, mutex.Key()); err == nil && len(kv.Kvs) == 0 {
			err = fmt.Errorf("the lock key is gone")
		} else if err == nil {
			reply.Fence = &kv.Kvs[0].CreateRevision
		}
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if err == nil && a.session == session {
		a.held[reply.Token] = hold{key, mutex, session}
		return reply
	}
	if err == nil {
		err = fmt.Errorf("the session was dropped")
	}
	go a.dropSession(session, "after a grant: "+err.Error())
	return goexec.Info("after the grant: " + err.Error())
}

func (a *adapter) Release(request *goexec.Request) goexec.Reply {
	a.mu.Lock()
	h, ok := a.held[request.Token]
	delete(a.held, request.Token)
	a.mu.Unlock()
	if !ok {
		return goexec.Fail("no lock with this token")
	}
	ctx, cancel := context.WithTimeout(context.Background(), a.timeout*4/5)
	defer cancel()
	resp, err := a.client.Txn(ctx).If(h.mutex.IsOwner()).
		Then(clientv3.OpDelete(h.mutex.Key())).Commit()
	switch {
	case err != nil: // maybe deleted: a dropped session makes sure it goes
		a.dropSession(h.session, "a release unanswered: "+err.Error())
		return goexec.Info("release: " + err.Error())
	case !resp.Succeeded:
		return goexec.Fail("not the owner any more (the session's lease expired)")
	}
	return goexec.Ok()
}

// Late: an acquire answered info at its deadline that got the lock lets it
// go (a release that outlived its deadline dropped its session itself).
func (a *adapter) Late(request *goexec.Request, reply goexec.Reply) {
	if request.Op == "acquire" && reply.Result == "ok" {
		a.Release(&goexec.Request{Op: "release", Token: reply.Token})
	}
}

func main() {
	goexec.Serve(&adapter{})
}

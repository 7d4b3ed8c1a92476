// Package goexec speaks locksmith's exec protocol (docs/exec-clients.md) for
// the Go lock-client programs of adapters/: it reads the requests, one JSON
// object a line on stdin, hands them to an Adapter and writes its replies
// and events, one a line on stdout, each line whole however many goroutines
// write. Every reply comes within its deadline (timeout_ms, plus an
// acquire's wait_ms): a library call still running then is answered info,
// and what it returns later is handed to a clean-up of the adapter's.
//
// Thread-safety: Serve runs the requests one at a time on its goroutine;
// Writer.Send may be called from any goroutine.
package goexec

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net"
	"os"
	"sync"
	"syscall"
	"time"
	"unsafe"
)

// Node is one row of the service's node table.
type Node struct {
	Name    string `json:"name"`
	Role    string `json:"role"`
	Address string `json:"address"`
	Port    int    `json:"port"`
}

// Hello is the handshake's facts of the run.
type Hello struct {
	Client        int                        `json:"client"`
	SourceAddress string                     `json:"source_address"`
	Backend       string                     `json:"backend"`
	Password      string                     `json:"password"`
	Nodes         []Node                     `json:"nodes"`
	Settings      map[string]json.RawMessage `json:"settings"`
	LeaseMs       int64                      `json:"lease_ms"`
	Fencing       bool                       `json:"fencing"`
	TimeoutMs     int64                      `json:"timeout_ms"`
}

// SettingMs is the whole number settings[name] (a time in ms), or def.
func (h *Hello) SettingMs(name string, def int64) int64 {
	var value int64
	if raw, ok := h.Settings[name]; !ok || json.Unmarshal(raw, &value) != nil {
		return def
	}
	return value
}

// Endpoints lists every node as "address:port".
func (h *Hello) Endpoints() []string {
	endpoints := make([]string, 0, len(h.Nodes))
	for _, node := range h.Nodes {
		endpoints = append(endpoints, net.JoinHostPort(node.Address, fmt.Sprint(node.Port)))
	}
	return endpoints
}

// Dialer binds its connections to the client's source address (none when
// the hello gives none) and gives up after timeout.
func (h *Hello) Dialer(timeout time.Duration) *net.Dialer {
	dialer := &net.Dialer{Timeout: timeout}
	if h.SourceAddress != "" {
		dialer.LocalAddr = &net.TCPAddr{IP: net.ParseIP(h.SourceAddress)}
	}
	return dialer
}

// Request is one request after the hello.
type Request struct {
	ID      int64  `json:"id"`
	Op      string `json:"op"`
	Key     string `json:"key"`
	Token   string `json:"token"`
	LeaseMs int64  `json:"lease_ms"`
	WaitMs  int64  `json:"wait_ms"`
}

// Reply is a request's answer: Result is "ok", "fail" or "info"; the other
// fields are left out when unset.
type Reply struct {
	ID         int64  `json:"id"`
	Result     string `json:"result"`
	Token      string `json:"token,omitempty"`
	Fence      *int64 `json:"fence,omitempty"`
	ValidityMs *int64 `json:"validity_ms,omitempty"`
	// When ValidityMs was reckoned, by CLOCK_MONOTONIC in ns (SetValidity).
	ValidityAtNs *int64 `json:"validity_at_ns,omitempty"`
	Busy       *bool  `json:"busy,omitempty"`
	Error      string `json:"error,omitempty"`
}

// Ok, Fail, NotBusy and Info make the common replies.
func Ok() Reply                { return Reply{Result: "ok"} }
func Fail(err string) Reply    { return Reply{Result: "fail", Error: err} }
func Info(err string) Reply    { return Reply{Result: "info", Error: err} }
func NotBusy(err string) Reply { no := false; return Reply{Result: "fail", Busy: &no, Error: err} }

// Capabilities is what the program can do (the hello's reply).
type Capabilities struct {
	Fence    bool `json:"fence"`
	LockLost bool `json:"lock_lost"`
}

// LockLost is the event of a held lock the library says is gone.
type LockLost struct {
	Event string `json:"event"`
	Key   string `json:"key"`
	Token string `json:"token"`
	Error string `json:"error"`
}

// SetValidity sets what is left of a lease or session of total ms whose
// clock started no later than sent (total less the time since, rounded up
// to a whole ms, never below 0) and when that was reckoned, by
// CLOCK_MONOTONIC (which Go's own monotonic reading does not expose): the
// harness takes off what the reply then spends on its way.
func (r *Reply) SetValidity(total int64, sent time.Time) {
	var ts syscall.Timespec
	const clockMonotonic = 1
	syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockMonotonic, uintptr(unsafe.Pointer(&ts)), 0)
	left := total - int64(math.Ceil(float64(time.Since(sent))/float64(time.Millisecond)))
	if left < 0 {
		left = 0
	}
	at := ts.Nano()
	r.ValidityMs, r.ValidityAtNs = &left, &at
}

// Writer writes whole lines to stdout from any goroutine.
type Writer struct {
	mu  sync.Mutex
	out *bufio.Writer
}

// Send writes message as one JSON line and flushes it.
func (w *Writer) Send(message interface{}) {
	line, err := json.Marshal(message)
	if err != nil {
		fmt.Fprintf(os.Stderr, "goexec: cannot encode %#v: %v\n", message, err)
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.out.Write(append(line, '\n'))
	w.out.Flush()
}

// Adapter is one library behind the protocol.
type Adapter interface {
	// Start takes the run's facts; an error fails the handshake. The
	// adapter connects lazily or in the background: a program started
	// again while the servers are down still answers its hello.
	Start(hello *Hello, out *Writer) (name, version string, capabilities Capabilities, err error)
	// Acquire and Release run one request (their deadline is the caller's
	// to keep: Serve answers info when they outlast it).
	Acquire(request *Request) Reply
	Release(request *Request) Reply
	// Late is handed the reply of a request Serve already answered info at
	// its deadline: an acquire that got the lock after all must let it go.
	Late(request *Request, reply Reply)
}

// Serve runs the protocol on stdin and stdout until stdin ends.
func Serve(adapter Adapter) {
	out := &Writer{out: bufio.NewWriter(os.Stdout)}
	in := bufio.NewReaderSize(os.Stdin, 1<<16)
	var hello *Hello
	for {
		line, err := in.ReadBytes('\n')
		if len(line) > 0 {
			hello = serveLine(adapter, out, hello, line)
		}
		if err == io.EOF {
			return
		} else if err != nil {
			fmt.Fprintf(os.Stderr, "goexec: reading stdin: %v\n", err)
			return
		}
	}
}

// serveLine answers one request and returns the hello in force after it.
func serveLine(adapter Adapter, out *Writer, hello *Hello, line []byte) *Hello {
	var request Request
	if err := json.Unmarshal(line, &request); err != nil {
		fmt.Fprintf(os.Stderr, "goexec: not a request (%v): %s", err, line)
		return hello
	}
	if request.Op == "hello" {
		return serveHello(adapter, out, request.ID, line)
	}
	var reply Reply
	switch {
	case hello == nil:
		reply = NotBusy("no hello before " + request.Op)
	case request.Op == "acquire" || request.Op == "release":
		reply = callWithin(adapter, &request, deadlineOf(hello, &request))
	default:
		reply = NotBusy("unsupported op " + request.Op)
	}
	reply.ID = request.ID
	out.Send(reply)
	return hello
}

func serveHello(adapter Adapter, out *Writer, id int64, line []byte) *Hello {
	var hello Hello
	if err := json.Unmarshal(line, &hello); err != nil {
		out.Send(map[string]interface{}{"id": id, "result": "fail", "error": "hello: " + err.Error()})
		return nil
	}
	name, version, capabilities, err := adapter.Start(&hello, out)
	if err != nil {
		out.Send(map[string]interface{}{"id": id, "result": "fail", "error": err.Error()})
		return nil
	}
	out.Send(map[string]interface{}{"id": id, "name": name, "version": version,
		"capabilities": capabilities})
	return &hello
}

// deadlineOf is how long the adapter has for a request: 9/10 of the
// harness's deadline (timeout_ms, plus wait_ms for an acquire), the rest
// for the reply to reach it.
func deadlineOf(hello *Hello, request *Request) time.Duration {
	ms := hello.TimeoutMs
	if request.Op == "acquire" {
		ms += request.WaitMs
	}
	return time.Duration(ms) * time.Millisecond * 9 / 10
}

// callWithin runs the request on a goroutine of its own and waits for it up
// to within; past that the reply is info, and the call's own reply, when it
// comes, goes to adapter.Late. Exactly one of the two gets the call's reply.
func callWithin(adapter Adapter, request *Request, within time.Duration) Reply {
	var mu sync.Mutex
	finished, gaveUp := false, false
	done := make(chan Reply, 1)
	go func() {
		var reply Reply
		if request.Op == "acquire" {
			reply = adapter.Acquire(request)
		} else {
			reply = adapter.Release(request)
		}
		mu.Lock()
		finished = true
		late := gaveUp
		mu.Unlock()
		if late {
			adapter.Late(request, reply)
			return
		}
		done <- reply
	}()
	timer := time.NewTimer(within)
	defer timer.Stop()
	select {
	case reply := <-done:
		return reply
	case <-timer.C:
	}
	mu.Lock()
	if finished {
		mu.Unlock()
		return <-done
	}
	gaveUp = true
	mu.Unlock()
	return Info(fmt.Sprintf("the library's %s was still running after %d ms", request.Op,
		within.Milliseconds()))
}

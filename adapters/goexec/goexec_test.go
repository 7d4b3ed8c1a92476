package goexec

import (
	"encoding/json"
	"fmt"
	"os"
	"testing"
	"time"
)

// fakeAdapter answers acquires after a delay and records what Late gets.
type fakeAdapter struct {
	delay time.Duration
	late  chan Reply
}

func (f *fakeAdapter) Start(*Hello, *Writer) (string, string, Capabilities, error) {
	return "fake", "1", Capabilities{}, nil
}

func (f *fakeAdapter) Acquire(*Request) Reply {
	time.Sleep(f.delay)
	reply := Ok()
	reply.Token = "t"
	return reply
}

func (f *fakeAdapter) Release(*Request) Reply { return Ok() }

func (f *fakeAdapter) Late(_ *Request, reply Reply) { f.late <- reply }

func TestACallWithinItsDeadlineAnswersItsOwnReply(t *testing.T) {
	f := &fakeAdapter{delay: 0, late: make(chan Reply, 1)}
	reply := callWithin(f, &Request{Op: "acquire"}, time.Second)
	if reply.Result != "ok" || reply.Token != "t" {
		t.Fatalf("reply %+v, want the acquire's ok", reply)
	}
	select {
	case got := <-f.late:
		t.Fatalf("Late was handed %+v of an answered call", got)
	case <-time.After(50 * time.Millisecond):
	}
}

func TestACallPastItsDeadlineIsInfoAndItsReplyGoesToLate(t *testing.T) {
	f := &fakeAdapter{delay: 200 * time.Millisecond, late: make(chan Reply, 1)}
	start := time.Now()
	reply := callWithin(f, &Request{Op: "acquire"}, 20*time.Millisecond)
	if reply.Result != "info" {
		t.Fatalf("reply %+v, want info at the deadline", reply)
	}
	if waited := time.Since(start); waited >= 200*time.Millisecond {
		t.Fatalf("waited %v for a call past its 20 ms deadline", waited)
	}
	select {
	case got := <-f.late:
		if got.Result != "ok" || got.Token != "t" {
			t.Fatalf("Late was handed %+v, want the acquire's ok", got)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the late acquire's ok never reached Late")
	}
}

func TestTheDeadlineIsNineTenthsOfTimeoutAndAnAcquiresWait(t *testing.T) {
	hello := &Hello{TimeoutMs: 500}
	if got := deadlineOf(hello, &Request{Op: "acquire", WaitMs: 2000}); got != 2250*time.Millisecond {
		t.Fatalf("acquire deadline %v, want 2.25s", got)
	}
	if got := deadlineOf(hello, &Request{Op: "release", WaitMs: 2000}); got != 450*time.Millisecond {
		t.Fatalf("release deadline %v, want 450ms", got)
	}
}

func TestWhatIsLeftCountsFromWhenTheRequestWasSentRoundedUp(t *testing.T) {
	var r Reply
	r.SetValidity(1000, time.Now().Add(-300*time.Millisecond-time.Microsecond))
	if left := *r.ValidityMs; left != 699 && left != 698 {
		t.Fatalf("left %d ms of 1000 after 300.001 ms, want 699 (698 on a slow clock read)", left)
	}
	r.SetValidity(1000, time.Now().Add(-2*time.Second))
	if left := *r.ValidityMs; left != 0 {
		t.Fatalf("left %d ms of a lease that ran out, want 0", left)
	}
}

// The instant it was reckoned is CLOCK_MONOTONIC's (the harness's
// steady_clock), which /proc/uptime follows: seconds since boot.
func TestValidityIsReckonedByTheMonotonicClock(t *testing.T) {
	var r Reply
	r.SetValidity(1000, time.Now())
	up, err := os.ReadFile("/proc/uptime")
	if err != nil {
		t.Skip("no /proc/uptime")
	}
	var seconds float64
	fmt.Sscanf(string(up), "%f", &seconds)
	if at := float64(*r.ValidityAtNs) / 1e9; at < seconds-5 || at > seconds+5 {
		t.Fatalf("validity_at_ns %v s, uptime %v s: not CLOCK_MONOTONIC", at, seconds)
	}
}

func TestSettingsAreReadAsWholeMsOrTheDefault(t *testing.T) {
	hello := &Hello{}
	if err := jsonUnmarshal(`{"settings": {"session_timeout_ms": 1000, "client": "x"}}`, hello); err != nil {
		t.Fatal(err)
	}
	if got := hello.SettingMs("session_timeout_ms", 7); got != 1000 {
		t.Fatalf("session_timeout_ms %d, want 1000", got)
	}
	if got := hello.SettingMs("client", 7); got != 7 {
		t.Fatalf("a text setting read as %d, want the default 7", got)
	}
	if got := hello.SettingMs("missing", 7); got != 7 {
		t.Fatalf("a missing setting read as %d, want the default 7", got)
	}
}

func jsonUnmarshal(text string, v interface{}) error { return json.Unmarshal([]byte(text), v) }

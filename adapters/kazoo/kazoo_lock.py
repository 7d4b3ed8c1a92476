#!/usr/bin/python3
"""kazoo's Lock recipe (Debian python3-kazoo) as a locksmith lock client
(docs/exec-clients.md), on the `zookeeper` backend: one KazooClient session
per program on every server of the ensemble, with the run's session timeout;
the lock node's czxid is the fence; when the session is lost every held lock
is reported lost.

What the protocol asks beyond the library: every request is answered within
its deadline, though kazoo's own calls wait for a reconnection without one
(each call runs on a thread of its own and the reply does not wait past the
deadline: an acquire left running is released when it ends); a request made
while no server is connected, nothing sent, is `fail` with busy false; the
validity is what the session is sure to last: the negotiated session timeout
less the time since the last request of the acquire was sent."""
import json
import math
import sys
import threading
import time

import kazoo
from kazoo.client import KazooClient, KazooState
from kazoo.exceptions import CancelledError, KazooException, LockTimeout

ROOT = "/locksmith-kazoo/"
out = threading.Lock()  # replies (main thread) and lost-lock events (kazoo's)


def send(message):
    with out:
        sys.stdout.write(json.dumps(message) + "\n")
        sys.stdout.flush()


class Call(threading.Thread):
    """One call into kazoo on a thread of its own, so that its reply keeps
    the request's deadline. A call still running at the deadline goes on;
    `late` is then given its value when it ends."""

    def __init__(self, function, late=None):
        super().__init__(daemon=True)
        self.function, self.late = function, late
        self.mu = threading.Lock()
        self.done = self.abandoned = False
        self.value = self.error = None
        self.start()

    def run(self):
        try:
            value = self.function()
        except Exception as error:  # handed to the waiter, or dropped when late
            value, self.error = None, error
        with self.mu:
            self.value, self.done = value, True
            late = self.abandoned
        if late and self.late and self.error is None:
            self.late(value)

    def result(self, seconds):
        """The call's value (its exception raised), or TimeoutError at the
        deadline, after which the call is abandoned."""
        self.join(max(0.0, seconds))
        with self.mu:
            if not self.done:
                self.abandoned = True
                raise TimeoutError("kazoo did not finish within the deadline: may have happened")
        if self.error is not None:
            raise self.error
        return self.value


class Adapter:
    def __init__(self, hello):
        # Every server, whatever its role: the one leading at the hello is
        # `primary`, the others `zk-peer`.
        hosts = ",".join("%s:%d" % (n["address"], n["port"]) for n in hello["nodes"])
        settings = hello["settings"]
        asked = settings["session_timeout_ms"]
        # What ZooKeeper grants: the ask, within the server's bounds.
        self.session_ms = min(max(asked, settings["min_session_ms"]), settings["max_session_ms"])
        timeout_ms = hello["timeout_ms"]
        # The reply leaves this much before the harness's deadline: room for
        # it to reach the harness on a loaded machine.
        self.margin_s = min(0.25, 0.5 * timeout_ms / 1000.0)
        self.timeout_s = timeout_ms / 1000.0
        self.held = {}  # token -> (key, Lock)
        self.connected = threading.Event()
        self.zk = KazooClient(hosts=hosts, timeout=asked / 1000.0,
                              connection_retry=dict(max_tries=-1, delay=0.05, backoff=1.5,
                                                    max_delay=0.5))
        self.zk.add_listener(self.on_state)
        # A program restarted while the ensemble is down still answers its
        # hello; its requests fail (nothing sent) until kazoo connects.
        self.zk.start_async().wait(max(timeout_ms, 5000) / 1000.0)

    def on_state(self, state):
        if state == KazooState.CONNECTED:
            self.connected.set()
            return
        self.connected.clear()
        if state != KazooState.LOST:
            return
        for token, (key, _) in list(self.held.items()):
            send({"event": "lock-lost", "key": key, "token": token, "error": "session lost"})

    def deadline(self, request):
        return time.monotonic() + request.get("wait_ms", 0) / 1000.0 + self.timeout_s - self.margin_s

    def acquire(self, request):
        end = self.deadline(request)
        if not self.connected.wait(max(0.0, end - time.monotonic())):
            return {"result": "fail", "busy": False, "error": "no ZooKeeper server connected"}
        lock = self.zk.Lock(ROOT + request["key"])
        wait = request["wait_ms"] / 1000.0
        wait_end = min(time.monotonic() + wait, end)
        # kazoo's retries end by the deadline (wait 0: one try).
        bound = max(0.001, end - time.monotonic())
        attempt = Call(lambda: self.try_acquire(lock, wait_end if wait > 0 else None, bound),
                       late=self.give_back(lock))
        try:
            got, proof_sent, stat = attempt.result(end - time.monotonic())
        except TimeoutError:
            lock.cancel()
            raise
        if not got:
            return {"result": "fail"}
        token = lock.path + "/" + lock.node
        self.held[token] = (request["key"], lock)
        # Reckoned now, by CLOCK_MONOTONIC: the harness counts the rest from it.
        now = time.monotonic_ns()
        left = self.session_ms - math.ceil((now - proof_sent) / 1e6)
        return {"result": "ok", "token": token, "fence": stat.czxid if stat else None,
                "validity_ms": max(0, left), "validity_at_ns": now}

    def try_acquire(self, lock, wait_end, bound):
        """(got, when the last request was sent, the lock node's stat): one
        try, or (`wait_end`) a wait in the queue until then. A refusal leaves
        no node of ours behind, or is in doubt (raises)."""
        # kazoo's timeout starts again each time a predecessor goes: the
        # wait is ended by a cancel at wait_end instead.
        timer = None
        if wait_end is not None:
            timer = threading.Timer(max(0.0, wait_end - time.monotonic()), lock.cancel)
            timer.daemon = True
            timer.start()
        try:
            got = lock.acquire(blocking=wait_end is not None, timeout=bound)
        except (LockTimeout, CancelledError):
            got = False
        finally:
            if timer is not None:
                timer.cancel()
        if not got:
            # kazoo's clean-up is best effort: a node left would take the
            # lock for this session when its turn came.
            if lock.create_tried and lock._find_node() is not None:
                raise KazooException("our lock node outlived a refused acquire")
            return False, 0.0, None
        proof_sent = time.monotonic_ns()
        return True, proof_sent, self.zk.exists(lock.path + "/" + lock.node)

    @staticmethod
    def give_back(lock):
        """An acquire answered `info` that got the lock after all: no one
        will release it, so it is released here."""
        def release_late(value):
            if value and value[0]:
                try:
                    lock.release()
                except KazooException:
                    pass  # the session's end removes it
        return release_late

    def release(self, request):
        entry = self.held.pop(request["token"], None)
        if entry is None:
            return {"result": "fail", "error": "no lock with this token"}
        # A release left running at the deadline completes after the reply.
        gone = Call(lambda: self.release_node(request["token"], entry[1])).result(
            self.deadline(request) - time.monotonic())
        if gone:
            return {"result": "fail", "error": "the lock node was gone (session expired)"}
        return {"result": "ok"}

    def release_node(self, token, lock):
        """kazoo's release succeeds on a node already gone (its session
        expired): that release did nothing, and says so (True)."""
        gone = self.zk.exists(token) is None
        lock.release()
        return gone


def main():
    adapter = None
    for line in sys.stdin:
        request = json.loads(line)
        reply = {"id": request["id"]}
        op = request["op"]
        try:
            if op == "hello":
                adapter = Adapter(request)
                reply.update(name="kazoo", version=kazoo.version.__version__,
                             capabilities={"fence": True, "lock_lost": True})
            elif op in ("acquire", "release"):
                reply.update(getattr(adapter, op)(request))
            else:
                reply.update(result="fail", busy=False, error="unsupported op " + op)
        except (KazooException, OSError, TimeoutError) as error:  # may have happened
            reply.update(result="info", error="%s: %s" % (type(error).__name__, error))
        send(reply)


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""kazoo's Lock recipe (Debian python3-kazoo) as a locksmith lock client
(docs/exec-clients.md), on the `zookeeper` backend: one KazooClient session
per program with the run's session timeout; the lock node's czxid is the
fence; when the session is lost every held lock is reported lost."""
import json
import sys
import threading

import kazoo
from kazoo.client import KazooClient, KazooState
from kazoo.exceptions import KazooException, LockTimeout

ROOT = "/locksmith-kazoo/"
out = threading.Lock()  # replies (main thread) and lost-lock events (kazoo's)


def send(message):
    with out:
        sys.stdout.write(json.dumps(message) + "\n")
        sys.stdout.flush()


class Adapter:
    def __init__(self, hello):
        hosts = ",".join("%s:%d" % (n["address"], n["port"]) for n in hello["nodes"])
        self.session_ms = hello["settings"].get("session_timeout_ms", 2000)
        self.zk = KazooClient(hosts=hosts, timeout=self.session_ms / 1000.0)
        self.held = {}  # token -> (key, Lock)
        self.zk.add_listener(self.on_state)
        self.zk.start(timeout=max(hello["timeout_ms"], 5000) / 1000.0)

    def on_state(self, state):
        if state != KazooState.LOST:
            return
        for token, (key, _) in list(self.held.items()):
            send({"event": "lock-lost", "key": key, "token": token, "error": "session lost"})

    def acquire(self, request):
        lock = self.zk.Lock(ROOT + request["key"])
        wait = request["wait_ms"] / 1000.0
        try:
            if not lock.acquire(blocking=wait > 0, timeout=wait or None):
                return {"result": "fail"}
        except LockTimeout:
            return {"result": "fail"}
        node = lock.path + "/" + lock.node
        stat = self.zk.exists(node)
        token = node
        self.held[token] = (request["key"], lock)
        return {"result": "ok", "token": token, "fence": stat.czxid if stat else None,
                "validity_ms": self.session_ms}

    def release(self, request):
        entry = self.held.pop(request["token"], None)
        if entry is None:
            return {"result": "fail", "error": "no lock with this token"}
        # kazoo's release ignores a node already gone (its session expired):
        # that release did nothing, so it is a fail.
        gone = self.zk.exists(request["token"]) is None
        entry[1].release()
        if gone:
            return {"result": "fail", "error": "the lock node was gone (session expired)"}
        return {"result": "ok"}


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
        except (KazooException, OSError) as error:  # may have happened
            reply.update(result="info", error="%s: %s" % (type(error).__name__, error))
        send(reply)


if __name__ == "__main__":
    main()

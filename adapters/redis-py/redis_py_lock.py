#!/usr/bin/python3
"""redis-py's Lock (Debian python3-redis) as a locksmith lock client
(docs/exec-clients.md): on `redis` it talks to the primary, on `redis-sentinel`
it finds the master through the sentinels (Sentinel.master_for) as an
application would; its sockets bind the client's source address. Ops: acquire,
release, renew (Lock.extend with replace_ttl)."""
import json
import socket
import sys

import redis
from redis.exceptions import LockError, LockNotOwnedError, RedisError
from redis.sentinel import MasterNotFoundError, Sentinel


def bind_source(address):
    """Every IPv4 socket redis-py opens binds the client's own address first
    (redis-py takes none), so a partition can cut this one client off."""
    if not address:
        return
    plain_connect = socket.socket.connect

    def connect_from(sock, target):
        if sock.family == socket.AF_INET:
            sock.bind((address, 0))
        return plain_connect(sock, target)

    socket.socket.connect = connect_from


def connect(hello):
    bind_source(hello["source_address"])
    seconds = max(hello["timeout_ms"], 100) / 1000.0
    options = dict(password=hello["password"] or None, socket_timeout=seconds,
                   socket_connect_timeout=seconds)
    sentinels = [(n["address"], n["port"]) for n in hello["nodes"] if n["role"] == "sentinel"]
    if sentinels:
        sentinel = Sentinel(sentinels, sentinel_kwargs=dict(options), **options)
        return sentinel.master_for(hello["settings"]["master_name"], **options)
    primary = next(n for n in hello["nodes"] if n["role"] == "primary")
    return redis.Redis(host=primary["address"], port=primary["port"], **options)


class Adapter:
    def __init__(self, hello):
        self.client = connect(hello)
        self.held = {}  # token -> the Lock that holds it

    def acquire(self, request):
        lock = self.client.lock(request["key"], timeout=request["lease_ms"] / 1000.0,
                                sleep=0.01, thread_local=False)
        wait = request["wait_ms"] / 1000.0
        if not lock.acquire(blocking=wait > 0, blocking_timeout=wait or None):
            return {"result": "fail"}
        token = lock.local.token.decode()
        self.held[token] = lock
        return {"result": "ok", "token": token, "validity_ms": request["lease_ms"]}

    def release(self, request):
        lock = self.held.pop(request["token"], None)
        if lock is None:
            return {"result": "fail", "error": "no lock with this token"}
        try:
            lock.release()
        except LockNotOwnedError as error:
            return {"result": "fail", "error": str(error)}
        return {"result": "ok"}

    def renew(self, request):
        lock = self.held.get(request["token"])
        if lock is None:
            return {"result": "fail", "not_held": True, "error": "no lock with this token"}
        try:
            lock.extend(request["lease_ms"] / 1000.0, replace_ttl=True)
        except LockNotOwnedError as error:
            return {"result": "fail", "not_held": True, "error": str(error)}
        return {"result": "ok", "validity_ms": request["lease_ms"]}


def main():
    adapter = None
    for line in sys.stdin:
        request = json.loads(line)
        reply = {"id": request["id"]}
        op = request["op"]
        try:
            if op == "hello":
                adapter = Adapter(request)
                reply.update(name="redis-py", version=redis.__version__,
                             capabilities={"renew": True})
            elif op in ("acquire", "release", "renew"):
                reply.update(getattr(adapter, op)(request))
            else:
                reply.update(result="fail", busy=False, error="unsupported op " + op)
        except MasterNotFoundError as error:  # nothing was sent
            reply.update(result="fail", busy=False, error="MasterNotFoundError: %s" % error)
        except (RedisError, LockError, OSError) as error:  # may have happened
            reply.update(result="info", error="%s: %s" % (type(error).__name__, error))
        print(json.dumps(reply), flush=True)


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""redis-py's Lock (Debian python3-redis) as a locksmith lock client
(docs/exec-clients.md): on `redis` it talks to the primary, on `redis-sentinel`
it finds the master through the sentinels (Sentinel.master_for) as an
application would; its sockets bind the client's source address. Ops: acquire,
release, renew (Lock.extend with replace_ttl).

What the protocol asks beyond the library: a connect refused (or a master not
found, a server still LOADING) before the lock's command was sent is `fail`
with busy false, not `info`; the validity is the lease less the time since the
SET that set it was sent; and every request is answered within its deadline
(the socket timeouts are shares of the client timeout)."""
import json
import math
import socket
import sys
import time

import redis
from redis.connection import Connection
from redis.exceptions import (BusyLoadingError, LockError, LockNotOwnedError, ReadOnlyError,
                              RedisError)
from redis.lock import Lock
from redis.sentinel import MasterNotFoundError, Sentinel, SentinelManagedConnection


class NothingSent(Exception):
    """The request never reached the lock's server: it certainly did not happen."""


class ConnectsOrSaysNothingSent:
    """A connection whose failure to connect (refused, unreachable, timed
    out, AUTH refused, no master known) says that nothing was sent: redis-py
    connects before it sends, so the command is not on the wire yet."""

    def connect(self):
        try:
            return super().connect()
        except (RedisError, OSError) as error:
            raise NothingSent("%s: %s" % (type(error).__name__, error)) from error


class PlainConnection(ConnectsOrSaysNothingSent, Connection):
    pass


class SentinelConnection(ConnectsOrSaysNothingSent, SentinelManagedConnection):
    pass


class TimedLock(Lock):
    """redis-py's Lock, remembering when it last sent the SET or the extend
    that set the key's TTL (the key expires that long after Redis ran it, at
    the latest: the lease counts from there, not from the reply)."""

    sent_at = 0

    def do_acquire(self, token):
        self.sent_at = time.monotonic_ns()
        return super().do_acquire(token)

    def do_extend(self, additional_time, replace_ttl):
        self.sent_at = time.monotonic_ns()
        return super().do_extend(additional_time, replace_ttl)

    def validity(self, lease_ms):
        """The reply's lease fields by this side's reckoning: the lease less
        the time since the command that set it was sent (rounded up), never
        below 0, and when it was reckoned (CLOCK_MONOTONIC, which the harness
        counts the rest from)."""
        now = time.monotonic_ns()
        elapsed_ms = math.ceil((now - self.sent_at) / 1e6)
        return {"validity_ms": max(0, lease_ms - elapsed_ms), "validity_at_ns": now}


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
    """The client the hello's nodes describe. The request's deadline is the
    client timeout (plus the acquire's wait): finding the master, connecting
    and one command each get a share of it, so their sum stays inside."""
    bind_source(hello["source_address"])
    timeout = max(hello["timeout_ms"], 20) / 1000.0
    options = dict(password=hello["password"] or None, socket_timeout=0.45 * timeout,
                   socket_connect_timeout=0.3 * timeout)
    sentinels = [(n["address"], n["port"]) for n in hello["nodes"] if n["role"] == "sentinel"]
    if sentinels:
        # Sentinels are asked one after another until one names the master.
        each = 0.2 * timeout / len(sentinels)
        sentinel_options = dict(password=options["password"], socket_timeout=each,
                                socket_connect_timeout=each)
        sentinel = Sentinel(sentinels, sentinel_kwargs=sentinel_options, **options)
        return sentinel.master_for(hello["settings"]["master_name"],
                                   connection_class=SentinelConnection, **options)
    primary = next(n for n in hello["nodes"] if n["role"] == "primary")
    pool = redis.ConnectionPool(connection_class=PlainConnection, host=primary["address"],
                                port=primary["port"], **options)
    return redis.Redis(connection_pool=pool)


class Adapter:
    def __init__(self, hello):
        self.client = connect(hello)
        self.held = {}  # token -> the Lock that holds it

    def acquire(self, request):
        lease_ms = request["lease_ms"]
        lock = self.client.lock(request["key"], timeout=lease_ms / 1000.0, sleep=0.01,
                                thread_local=False, lock_class=TimedLock)
        # redis-py retries within the wait: to the harness, one attempt.
        wait = request["wait_ms"] / 1000.0
        if not lock.acquire(blocking=wait > 0, blocking_timeout=wait or None):
            return {"result": "fail"}
        token = lock.local.token.decode()
        self.held[token] = lock
        return {"result": "ok", "token": token, **lock.validity(lease_ms)}

    def release(self, request):
        lock = self.held.pop(request["token"], None)
        if lock is None:
            return {"result": "fail", "error": "no lock with this token"}
        try:
            lock.release()
        except LockNotOwnedError as error:  # its lease ran out: the release did nothing
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
        return {"result": "ok", **lock.validity(request["lease_ms"])}


def answer(adapter, request):
    """The reply's fields for one request (hello makes the adapter)."""
    op = request["op"]
    try:
        if op in ("acquire", "release", "renew"):
            return getattr(adapter, op)(request)
        return {"result": "fail", "busy": False, "error": "unsupported op " + op}
    except (NothingSent, MasterNotFoundError) as error:  # certainly did not happen
        return {"result": "fail", "busy": False, "error": "nothing sent: %s" % error}
    except (BusyLoadingError, ReadOnlyError) as error:  # Redis refused to run it
        return {"result": "fail", "busy": False,
                "error": "%s: %s" % (type(error).__name__, error)}
    except (RedisError, LockError, OSError) as error:  # may have happened
        return {"result": "info", "error": "%s: %s" % (type(error).__name__, error)}


def main():
    adapter = None
    for line in sys.stdin:
        request = json.loads(line)
        reply = {"id": request["id"]}
        if request["op"] == "hello":
            adapter = Adapter(request)
            reply.update(name="redis-py", version=redis.__version__,
                         capabilities={"renew": True})
        else:
            reply.update(answer(adapter, request))
        print(json.dumps(reply), flush=True)


if __name__ == "__main__":
    main()

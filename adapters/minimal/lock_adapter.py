#!/usr/bin/python3
"""A complete locksmith lock-client program (docs/exec-clients.md): a Redis lock
(SET NX PX, released by a compare-and-delete script) on the standard library."""
import json, math, os, select, socket, sys, time

UNLOCK = "if redis.call('get',KEYS[1])==ARGV[1] then return redis.call('del',KEYS[1]) end return 0"

class NothingSent(Exception):
    """The command never reached Redis (or Redis refused to run it): a fail."""

class Redis:
    def __init__(self, hello):
        node = next(n for n in hello["nodes"] if n["role"] == "primary")
        source = (hello["source_address"], 0) if hello["source_address"] else None
        try:  # a connect refused or timed out sent nothing
            self.sock = socket.create_connection(
                (node["address"], node["port"]), hello["timeout_ms"] / 2000, source)
        except OSError as error:
            raise NothingSent("connect: %s" % error)
        self.file = self.sock.makefile("rb")
        if hello["password"]:
            self.call("AUTH", hello["password"])

    def closed(self):  # readable while no reply is due: Redis closed it (a restart)
        return bool(select.select([self.sock], [], [], 0)[0])

    def call(self, *args):
        out = b"*%d\r\n" % len(args)
        for arg in (str(a).encode() for a in args):
            out += b"$%d\r\n%s\r\n" % (len(arg), arg)
        self.sock.sendall(out)
        line = self.file.readline()
        kind, rest = line[:1], line[1:-2].decode()
        if kind == b"-":
            raise (NothingSent if rest.startswith("LOADING") else RuntimeError)(rest)
        if kind == b"$":
            return None if int(rest) < 0 else self.file.read(int(rest) + 2)[:-2].decode()
        return int(rest) if kind == b":" else rest

def main():
    hello, redis = None, None
    for line in sys.stdin:
        request = json.loads(line)
        op, reply = request["op"], {"id": request["id"]}
        try:
            if op == "hello":
                hello = request
                reply.update(name="minimal-redis", version="1", capabilities={})
            else:
                redis = redis if redis and not redis.closed() else Redis(hello)
            if op == "acquire":
                token, sent = "%d-%d" % (os.getpid(), request["id"]), time.monotonic_ns()
                if redis.call("SET", request["key"], token, "NX", "PX", request["lease_ms"]):
                    # The lease counts from when the SET was sent, not from its reply,
                    # and the harness counts what is left from now (validity_at_ns).
                    now = time.monotonic_ns()
                    left = request["lease_ms"] - math.ceil((now - sent) / 1e6)
                    reply.update(result="ok", token=token, validity_ms=max(0, left),
                                 validity_at_ns=now)
                else:
                    reply.update(result="fail")
            elif op == "release":
                deleted = redis.call("EVAL", UNLOCK, 1, request["key"], request["token"])
                reply.update(result="ok" if deleted else "fail", error="" if deleted else "not held")
            elif op != "hello":
                reply.update(result="fail", busy=False, error="unsupported op " + op)
        except NothingSent as error:  # certainly did not happen: fail, not busy
            redis = None
            reply.update(result="fail", busy=False, error=str(error))
        except Exception as error:  # the request's fate is unknown: info, then reconnect
            redis = None
            reply.update(result="info", error=str(error))
        print(json.dumps(reply), flush=True)

if __name__ == "__main__":
    main()

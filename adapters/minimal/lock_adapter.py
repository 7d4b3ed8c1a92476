#!/usr/bin/python3
"""A complete locksmith lock-client program (docs/exec-clients.md): a Redis lock
(SET NX PX, released by a compare-and-delete script) on the standard library."""
import json, os, socket, sys

UNLOCK = "if redis.call('get',KEYS[1])==ARGV[1] then return redis.call('del',KEYS[1]) end return 0"

class Redis:
    def __init__(self, hello):
        node = next(n for n in hello["nodes"] if n["role"] == "primary")
        source = (hello["source_address"], 0) if hello["source_address"] else None
        self.sock = socket.create_connection((node["address"], node["port"]), 5, source)
        self.file = self.sock.makefile("rb")
        if hello["password"]:
            self.call("AUTH", hello["password"])

    def call(self, *args):
        out = b"*%d\r\n" % len(args)
        for arg in (str(a).encode() for a in args):
            out += b"$%d\r\n%s\r\n" % (len(arg), arg)
        self.sock.sendall(out)
        line = self.file.readline()
        kind, rest = line[:1], line[1:-2].decode()
        if kind == b"-":
            raise RuntimeError(rest)
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
                redis = redis or Redis(hello)
            if op == "acquire":
                token = "%d-%d" % (os.getpid(), request["id"])
                if redis.call("SET", request["key"], token, "NX", "PX", request["lease_ms"]):
                    reply.update(result="ok", token=token, validity_ms=request["lease_ms"])
                else:
                    reply.update(result="fail")
            elif op == "release":
                deleted = redis.call("EVAL", UNLOCK, 1, request["key"], request["token"])
                reply.update(result="ok" if deleted else "fail", error="" if deleted else "not held")
            elif op != "hello":
                reply.update(result="fail", busy=False, error="unsupported op " + op)
        except Exception as error:  # the request's fate is unknown: info, then reconnect
            redis = None
            reply.update(result="info", error=str(error))
        print(json.dumps(reply), flush=True)

if __name__ == "__main__":
    main()

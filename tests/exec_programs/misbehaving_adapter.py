#!/usr/bin/python3
"""The minimal Redis adapter (adapters/minimal/lock_adapter.py), except that
client c's program breaks the protocol on its 4th request, each client its
own way: 0 prints a line that is not JSON, 1 exits mid-op, 2 hangs, 3 writes a
2 MiB line; the others behave. For the exec client's integration test."""
import json, os, sys, time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "adapters", "minimal"))
from lock_adapter import UNLOCK, Redis  # noqa: E402

def misbehave(client):
    if client == 0:
        print("garbage, not JSON", flush=True)
    elif client == 1:
        sys.exit(1)
    elif client == 2:
        time.sleep(3600)
    elif client == 3:
        print("x" * (2 << 20), flush=True)

hello, redis, served = None, None, 0
for line in sys.stdin:
    request = json.loads(line)
    op, reply = request["op"], {"id": request["id"]}
    if op == "hello":
        hello = request
        print(json.dumps(dict(reply, name="misbehaving", version="1")), flush=True)
        continue
    served += 1
    if served == 4 and hello["client"] < 4:
        misbehave(hello["client"])
        continue
    redis = redis or Redis(hello)
    if op == "acquire":
        token = "%d-%d" % (os.getpid(), request["id"])
        if redis.call("SET", request["key"], token, "NX", "PX", request["lease_ms"]):
            reply.update(result="ok", token=token)
        else:
            reply.update(result="fail")
    else:
        deleted = redis.call("EVAL", UNLOCK, 1, request["key"], request["token"])
        reply.update(result="ok" if deleted else "fail")
    print(json.dumps(reply), flush=True)

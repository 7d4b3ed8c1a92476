#!/usr/bin/python3
"""A lock-client program for the exec client's tests: an in-memory lock table
answered at once, which misbehaves as asked on request number AFTER + 1.
Usage: fake_adapter.py [MODE [AFTER]]; MODE: ok, garbage, exit, hang, long,
unknown-id, bad-result, lost (a lock-lost event after each acquire), no-hello,
stderr (writes the hello it got to stderr), no-fence (its hello says "fence":
false), bad-hello (client AFTER answers its hello with a line that is not
JSON), false-lost (a lock-lost event for a lock never granted before each
reply), flood (100,000 lock-lost events after each acquire), info (answers
every request info), escape (at the hello, a child that starts a session and a
network namespace of its own, says its pid on stderr and sleeps), stderr-flood
(at the hello, AFTER MiB on stderr, then "flood end"), leak (writes the
password it was handed to the file PATH, its stderr, a line that is not JSON
and an error), slow-reply (says when it reckoned an acquire's validity,
"validity_at_ns" by CLOCK_MONOTONIC, then waits 300 ms before it replies),
wall-at (says it by the wall clock instead). Usage for leak: fake_adapter.py
leak AFTER PATH."""
import ctypes, json, os, sys, time

mode = sys.argv[1] if len(sys.argv) > 1 else "ok"
after = int(sys.argv[2]) if len(sys.argv) > 2 else 0
held, fence, served = {}, 0, 0

def send(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()

for line in sys.stdin:
    request = json.loads(line)
    op, reply = request["op"], {"id": request["id"]}
    if op == "hello":
        if mode == "no-hello":
            sys.exit(3)
        if mode == "bad-hello" and request["client"] == after:
            sys.stdout.write("not a hello\n"); sys.stdout.flush(); continue
        if mode == "leak":
            password = request.get("password") or ""
            with open(sys.argv[3], "w") as f:
                f.write(password)
            sys.stderr.write("connecting with password %s\n" % password)
            sys.stderr.flush()
        if mode == "stderr":
            sys.stderr.write("hello from the harness: client %d\n" % request["client"])
            sys.stderr.flush()
        if mode == "escape" and os.fork() == 0:
            os.setsid()
            ctypes.CDLL(None, use_errno=True).unshare(0x40000000)  # CLONE_NEWNET; root only
            null = os.open(os.devnull, os.O_RDWR)
            os.dup2(null, 0); os.dup2(null, 1)
            sys.stderr.write("escaped child %d\n" % os.getpid()); sys.stderr.flush()
            time.sleep(3600); os._exit(0)
        if mode == "stderr-flood":
            for _ in range(after):
                sys.stderr.write("x" * 1048575 + "\n")
            sys.stderr.write("flood end\n"); sys.stderr.flush()
        send(dict(reply, name="fake", version="0.1", capabilities={"fence": mode != "no-fence", "lock_lost": True}))
        continue
    served += 1
    if served > after:
        if mode == "garbage":
            sys.stdout.write("this is not json\n"); sys.stdout.flush(); continue
        if mode == "exit":
            sys.exit(1)
        if mode == "hang":
            time.sleep(3600)
        if mode == "long":
            sys.stdout.write("x" * (2 << 20) + "\n"); sys.stdout.flush(); continue
        if mode == "unknown-id":
            reply["id"] = request["id"] + 1000
        if mode == "leak":
            if served % 2:
                sys.stdout.write("AUTH %s\n" % password); sys.stdout.flush(); continue
            send(dict(reply, result="fail", error="denied with password %s" % password)); continue
        if mode == "bad-result":
            send(dict(reply, result="maybe")); continue
        if mode == "info":
            send(dict(reply, result="info", error="in doubt")); continue
        if mode == "false-lost":
            send({"event": "lock-lost", "key": "lock-999", "token": "never-granted"})
    key = request["key"]
    if op == "acquire":
        if key in held:
            reply.update(result="fail")
        else:
            fence += 1
            held[key] = "t%d-%d" % (os.getpid(), request["id"])
            reply.update(result="ok", token=held[key], fence=fence, validity_ms=request["lease_ms"])
            if mode == "slow-reply":
                reply.update(validity_at_ns=time.monotonic_ns()); time.sleep(0.3)
            if mode == "wall-at":
                reply.update(validity_at_ns=time.time_ns())
    elif op == "release":
        ok = held.get(key) == request["token"]
        held.pop(key, None) if ok else None
        reply.update(result="ok" if ok else "fail")
    else:
        reply.update(result="fail", busy=False, error="unsupported")
    send(reply)
    if mode == "lost" and op == "acquire" and reply["result"] == "ok":
        send({"event": "lock-lost", "key": key, "token": held.pop(key), "error": "session expired"})
    if mode == "flood" and op == "acquire" and reply["result"] == "ok":
        for _ in range(100000):
            send({"event": "lock-lost", "key": key, "token": held[key], "error": "flood"})

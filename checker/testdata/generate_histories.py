#!/usr/bin/env python3
"""Generates the Jepsen-format test histories in this folder, with known verdicts.

Valid histories come from simulated linearizable objects: every op takes effect at
a random instant between its invoke and its completion; timed-out ops (:info)
took effect or not at random, and their process is replaced, as in Jepsen.
Invalid histories are valid ones with one mutation that no linearization can
explain: an ok read (or an ok cas) observes a value that no op could have
written before the read completed, or a lock acquire succeeds while another
process provably holds the lock.

Deterministic (seeded); rerun to regenerate:  python3 generate_histories.py
Writes *.edn, *.log and MANIFEST.tsv (file, model, expected verdict).
"""
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
VALUES = [0, 1, 2, 3, 4]


def edn(v):
    if v is None:
        return "nil"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (list, tuple)):
        return "[" + " ".join(edn(x) for x in v) + "]"
    if isinstance(v, str):
        return ":" + v
    return str(v)


class Sim:
    """Event-driven simulation of processes doing ops against one object."""

    def __init__(self, rng, processes, ops, info_rate, apply, make):
        self.rng, self.processes, self.ops = rng, processes, ops
        self.info_rate, self.apply, self.make = info_rate, apply, make

    def run(self):
        rng = self.rng
        events = []  # (time, seq, op dict)
        seq = 0
        procs = list(range(self.processes))
        next_proc = self.processes
        free_at = {p: rng.uniform(0, 5) for p in procs}
        lin = []  # (time, invoke op, effect closure)
        started = 0
        pending = []
        while started < self.ops:
            slot = min(range(len(procs)), key=lambda i: free_at[procs[i]])
            p = procs[slot]
            t0 = free_at[p]
            f, value = self.make(rng)
            t1 = t0 + rng.uniform(0.1, 3.0)  # linearization point
            t2 = t1 + rng.uniform(0.1, 3.0)  # completion
            op = {"process": p, "f": f, "value": value}
            events.append((t0, seq, dict(op, type="invoke")))
            seq += 1
            started += 1
            roll = rng.random()
            if started > self.ops - 2:
                # A couple of ops still in flight when the history ends.
                if rng.random() < 0.5:
                    lin.append((t1, seq, op, None))
                procs[slot] = next_proc
                next_proc += 1
                free_at[next_proc - 1] = t0 + 0.05
                continue
            if roll < self.info_rate:
                took_effect = rng.random() < 0.5
                completion = {"time": t2, "seq": seq, "op": op, "type": "info"}
                pending.append(completion)
                if took_effect:
                    lin.append((t1, seq, op, completion))
                else:
                    completion["result"] = None
                procs[slot] = next_proc
                free_at[next_proc] = t2 + 0.01
                next_proc += 1
            else:
                completion = {"time": t2, "seq": seq, "op": op, "type": None}
                pending.append(completion)
                lin.append((t1, seq, op, completion))
                free_at[p] = t2 + rng.uniform(0.01, 1.0)
            seq += 1
        # Apply effects in linearization order.
        state = {"value": None}
        for t1, _, op, completion in sorted(lin, key=lambda x: (x[0], x[1])):
            ok, result = self.apply(state, op)
            if completion is not None:
                completion["result"] = result
                if completion["type"] is None:
                    completion["type"] = "ok" if ok else "fail"
        for c in pending:
            op = c["op"]
            value = op["value"]
            if c["type"] == "ok" and op["f"] == "read":
                value = c["result"]
            if c["type"] == "info":
                value = "timed-out" if op["f"] != "read" else None
            events.append((c["time"], c["seq"], {"process": op["process"], "f": op["f"],
                                                 "value": value, "type": c["type"]}))
        events.sort(key=lambda e: (e[0], e[1]))
        return [dict(e[2], time=int(e[0] * 1e6)) for e in events]


def register_apply(state, op):
    f, v = op["f"], op["value"]
    if f == "read":
        return True, state["value"]
    if f == "write":
        state["value"] = v
        return True, v
    if state["value"] == v[0]:
        state["value"] = v[1]
        return True, v
    return False, v


def register_make(rng):
    r = rng.random()
    if r < 0.4:
        return "read", None
    if r < 0.7:
        return "write", rng.choice(VALUES)
    return "cas", [rng.choice(VALUES), rng.choice(VALUES)]


def mutex_apply(state, op):
    if op["f"] == "acquire":
        if state["value"] is not None:
            return False, None
        state["value"] = op["process"]
        return True, None
    if state["value"] != op["process"]:
        return False, None
    state["value"] = None
    return True, None


def mutex_make_for(held):
    def make(rng):
        return ("acquire" if rng.random() < 0.5 else "release"), None
    return make


def writers_before(history, position, value):
    """True if some write or cas to `value` was invoked before `position`."""
    for op in history[:position]:
        if op["type"] != "invoke":
            continue
        if op["f"] == "write" and op["value"] == value:
            return True
        if op["f"] == "cas" and op["value"][1] == value:
            return True
    return False


def mutate_register(rng, history):
    """Makes one ok read or ok cas observe a value nobody could have written yet."""
    candidates = []
    for i, op in enumerate(history):
        if op["type"] != "ok" or op["f"] not in ("read", "cas"):
            continue
        for v in VALUES:
            if not writers_before(history, i, v):
                candidates.append((i, v))
    if not candidates:
        i = next(i for i, op in enumerate(history) if op["type"] == "ok" and op["f"] == "read")
        candidates = [(i, 9)]
    i, v = rng.choice(candidates)
    op = history[i]
    if op["f"] == "read":
        op["value"] = v
    else:
        # The matching invoke carries the same [old new]: change both.
        for j in range(i - 1, -1, -1):
            if history[j]["process"] == op["process"] and history[j]["type"] == "invoke":
                history[j]["value"] = [v, history[j]["value"][1]]
                break
        op["value"] = [v, op["value"][1]]
    return history


def mutate_mutex(rng, history):
    """Turns a failed acquire into an ok one while another process holds the lock."""
    holder = None
    candidates = []
    open_since = {}
    for i, op in enumerate(history):
        p = op["process"]
        if op["type"] == "invoke":
            open_since[p] = i
            if op["f"] == "release" and holder is not None and holder[0] == p:
                # From its invoke on, the release may have taken effect.
                holder = None
            continue
        if op["f"] == "acquire" and op["type"] == "ok":
            holder = (p, i)
        elif op["f"] == "release" and op["type"] in ("ok", "info") and holder and holder[0] == p:
            holder = None
        elif (op["f"] == "acquire" and op["type"] == "fail" and holder is not None
              and holder[1] < open_since[p]):
            # The holder's ok acquire precedes this acquire's invoke, and the
            # holder's release (if any) comes later: no order can grant both.
            candidates.append(i)
    i = rng.choice(candidates)
    history[i]["type"] = "ok"
    return history


def wrap_independent(rng, histories):
    """Interleaves per-key histories as jepsen.independent [k v] tuples."""
    merged = []
    for k, h in enumerate(histories):
        for op in h:
            op = dict(op)
            # Process numbers are shared across keys in Jepsen; keep them apart.
            op["process"] = op["process"] + 100 * k
            if op["f"] == "read" and op["type"] == "invoke":
                op["value"] = [k, None]
            elif op["type"] == "info" and op["f"] != "read":
                op["value"] = [k, op["value"]]
            else:
                op["value"] = [k, op["value"]]
            merged.append(op)
    merged.sort(key=lambda op: op["time"])
    return merged


def write_edn(path, history, style, nemesis=False):
    lines = []
    for i, op in enumerate(history):
        fields = [":type :" + op["type"], ":f :" + op["f"], ":value " + edn(op["value"]),
                  ":process " + str(op["process"])]
        if style != "bare":
            fields += [":time " + str(op["time"]), ":index " + str(i)]
        if op["type"] == "info" and op["f"] != "read":
            fields.append(":error :timed-out")
        body = "{" + ", ".join(fields) + "}"
        if style == "record":
            body = "#jepsen.history.Op" + body
        lines.append(body)
        if nemesis and i % 40 == 20:
            lines.append("{:type :info, :f :start, :value nil, :process :nemesis}")
    with open(path, "w") as out:
        out.write(";; generated by generate_histories.py\n")
        if style == "vector":
            out.write("[" + "\n ".join(lines) + "]\n")
        else:
            out.write("\n".join(lines) + "\n")


def write_log(path, history):
    with open(path, "w") as out:
        out.write("INFO  jepsen.core - Running test (generated by generate_histories.py)\n")
        for op in history:
            value = op["value"]
            kind = op["type"]
            if op["type"] == "info" and op["f"] == "read":
                # How etcd-era Jepsen logged a read that timed out.
                out.write("INFO  jepsen.util - %d\t:fail\t:read\t:timed-out\n" % op["process"])
                continue
            out.write("INFO  jepsen.util - %d\t:%s\t:%s\t%s\n" % (op["process"], kind, op["f"],
                                                                 edn(value)))
        out.write("INFO  jepsen.core - Run complete, writing\n")


def register_history(rng, ops, processes=5, info_rate=0.15):
    return Sim(rng, processes, ops, info_rate, register_apply, register_make).run()


def mutex_history(rng, ops, processes=5):
    return Sim(rng, processes, ops, 0.05, mutex_apply, mutex_make_for(None)).run()


def main():
    rng = random.Random(20240601)
    manifest = []

    def add(name, model, verdict):
        manifest.append((name, model, verdict))

    styles = ["vector", "lines", "record", "bare"]
    for n in range(12):
        h = register_history(rng, rng.randint(70, 110))
        name = "cas-register-valid-%02d.edn" % n
        write_edn(os.path.join(HERE, name), h, styles[n % 4], nemesis=n % 3 == 0)
        add(name, "cas-register", "valid")
        bad = mutate_register(rng, register_history(rng, rng.randint(70, 110)))
        name = "cas-register-invalid-%02d.edn" % n
        write_edn(os.path.join(HERE, name), bad, styles[(n + 1) % 4], nemesis=n % 3 == 1)
        add(name, "cas-register", "invalid")
    for n in range(8):
        h = register_history(rng, rng.randint(75, 100), info_rate=0.25)
        name = "etcd-valid-%02d.log" % n
        write_log(os.path.join(HERE, name), h)
        add(name, "cas-register", "valid")
        bad = mutate_register(rng, register_history(rng, rng.randint(75, 100), info_rate=0.25))
        name = "etcd-invalid-%02d.log" % n
        write_log(os.path.join(HERE, name), bad)
        add(name, "cas-register", "invalid")
    for n in range(3):
        keys = [register_history(rng, rng.randint(40, 60)) for _ in range(3)]
        name = "independent-valid-%02d.edn" % n
        write_edn(os.path.join(HERE, name), wrap_independent(rng, keys), "vector")
        add(name, "cas-register", "valid")
        keys = [register_history(rng, rng.randint(40, 60)) for _ in range(3)]
        keys[1] = mutate_register(rng, keys[1])
        name = "independent-invalid-%02d.edn" % n
        write_edn(os.path.join(HERE, name), wrap_independent(rng, keys), "lines")
        add(name, "cas-register", "invalid")
    for n in range(3):
        h = mutex_history(rng, rng.randint(80, 120))
        name = "mutex-valid-%02d.edn" % n
        write_edn(os.path.join(HERE, name), h, "vector")
        add(name, "owner-mutex", "valid")
        add(name, "mutex", "valid")
        bad = mutate_mutex(rng, mutex_history(rng, rng.randint(80, 120)))
        name = "mutex-invalid-%02d.edn" % n
        write_edn(os.path.join(HERE, name), bad, "lines")
        add(name, "owner-mutex", "invalid")

    with open(os.path.join(HERE, "MANIFEST.tsv"), "w") as out:
        out.write("# file\tmodel\texpected verdict (generated by generate_histories.py)\n")
        for row in manifest:
            out.write("\t".join(row) + "\n")


if __name__ == "__main__":
    main()

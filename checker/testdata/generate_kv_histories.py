#!/usr/bin/env python3
"""Generates Porcupine-style key-value histories (kv-c10-*, kv-c50-*) with known verdicts.

Porcupine's own test_data/kv files are too big to carry over by hand here, so the
10- and 50-client ones are generated in the same EDN line format:
  {:process 0, :type :invoke, :f :append, :key "4", :value "x 0 1 y"}
  {:process 0, :type :invoke, :f :get, :key "4", :value nil}
  {:process 0, :type :ok, :f :get, :key "4", :value "x 0 1 yx 0 3 y"}
Semantics (Porcupine's kv): every key holds one string, initially ""; get returns
it whole, put replaces it, append concatenates to it.

Valid histories come from a simulated linearizable store: each op takes effect at
a random instant between its invoke and its completion, and clients overlap for
real. A few ops time out (:info), took effect or not at random, and their client
comes back under a new process number, as in Jepsen.

Invalid histories are valid ones where one ok get loses one append token: an
append A on the key that completed before the get was invoked, and no put on the
key could be linearized after A and before the get (none completes after A's
invoke and is invoked before the get completes; a timed-out put never completes).
Every linearization then puts A before the get with no put between, so A's token
(unique in the history) must be in what the get returns: no linearization allows
the corrupted value.

Every verdict is then checked again by an independent brute force (per key, every
order respecting real time, memoized on (ops done, value)), which must agree; it
takes under a second even for 50 clients, since few ops overlap per key.

Deterministic (seeded); rerun to regenerate:  python3 generate_kv_histories.py
"""
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
INF = float("inf")


def simulate(rng, clients, ops, keys, info_rate):
    """Returns a list of op records: dicts with process, f, key, value (input),
    out (ok get's result), t_inv, t_lin, t_done (INF for :info), applied."""
    store = {}
    records = []
    free_at = {c: rng.uniform(0, 2) for c in range(clients)}
    process_of = {c: c for c in range(clients)}
    next_process = clients
    counter = {c: 0 for c in range(clients)}
    for _ in range(ops):
        c = min(free_at, key=free_at.get)
        t_inv = free_at[c]
        t_lin = t_inv + rng.uniform(0.05, 2.0)
        t_done = t_lin + rng.uniform(0.05, 2.0)
        roll = rng.random()
        key = str(rng.randrange(keys))
        if roll < 0.5:
            f, value = "get", None
        else:
            f = "append" if roll < 0.9 else "put"
            value = "x %d %d y" % (c, counter[c])
            counter[c] += 1
        records.append({"process": process_of[c], "f": f, "key": key, "value": value,
                        "out": None, "t_inv": t_inv, "t_lin": t_lin, "t_done": t_done,
                        "info": rng.random() < info_rate})
        free_at[c] = t_done + rng.uniform(0, 0.5)
        if records[-1]["info"]:
            process_of[c] = next_process
            next_process += 1
    # Apply in linearization order; a timed-out op took effect or not.
    for r in sorted(records, key=lambda r: r["t_lin"]):
        if r["info"]:
            r["t_done"] = INF
            if rng.random() < 0.5 or r["f"] == "get":
                continue
        if r["f"] == "get":
            r["out"] = store.get(r["key"], "")
        elif r["f"] == "put":
            store[r["key"]] = r["value"]
        else:
            store[r["key"]] = store.get(r["key"], "") + r["value"]
    return records


def corrupt(rng, records):
    """Drops one provably visible append token from one ok get (see module doc)."""
    candidates = []
    for g in records:
        if g["f"] != "get" or g["info"]:
            continue
        for a in records:
            if (a["f"] != "append" or a["info"] or a["key"] != g["key"]
                    or a["t_done"] >= g["t_inv"] or a["value"] not in g["out"]):
                continue
            blocked = any(p["f"] == "put" and p["key"] == g["key"] and
                          p["t_done"] > a["t_inv"] and p["t_inv"] < g["t_done"]
                          for p in records)
            if not blocked:
                candidates.append((g, a))
    g, a = rng.choice(candidates)
    g["out"] = g["out"].replace(a["value"], "", 1)


def edn_line(process, kind, f, key, value):
    v = "nil" if value is None else '"%s"' % value
    return '{:process %d, :type :%s, :f :%s, :key "%s", :value %s}' % (process, kind, f, key, v)


def write(path, records):
    events = []
    for r in records:
        events.append((r["t_inv"], edn_line(r["process"], "invoke", r["f"], r["key"], r["value"])))
        if r["info"]:
            events.append((r["t_lin"] + 5.0, edn_line(r["process"], "info", r["f"], r["key"],
                                                      r["value"])))
        else:
            out = r["out"] if r["f"] == "get" else r["value"]
            events.append((r["t_done"], edn_line(r["process"], "ok", r["f"], r["key"], out)))
    events.sort(key=lambda e: e[0])
    with open(path, "w") as f:
        f.write("".join(line + "\n" for _, line in events))


def brute_force_linearizable(records):
    """Independent check, per key: DFS over orders that respect real time
    (an op may go next only if no undone completed op returned before it was
    invoked), timed-out ops optional, memoized on (done set, value)."""
    by_key = {}
    for r in records:
        by_key.setdefault(r["key"], []).append(r)
    sys.setrecursionlimit(100000)
    for ops in by_key.values():
        ops.sort(key=lambda r: r["t_inv"])
        n = len(ops)
        required = sum(1 << i for i, r in enumerate(ops) if not r["info"])
        seen = set()

        def search(done, value):
            if done & required == required:
                return True
            if (done, value) in seen:
                return False
            seen.add((done, value))
            horizon = min(r["t_done"] for i, r in enumerate(ops) if not done >> i & 1)
            for i, r in enumerate(ops):
                if done >> i & 1 or r["t_inv"] > horizon:
                    continue
                if r["f"] == "get":
                    if not r["info"] and r["out"] != value:
                        continue
                    nxt = value
                elif r["f"] == "put":
                    nxt = r["value"]
                else:
                    nxt = value + r["value"]
                if search(done | 1 << i, nxt):
                    return True
            return False

        if not search(0, ""):
            return False
    return True


def main():
    rng = random.Random(6)
    made = []
    # (clients, ops, keys, info rate)
    for clients, ops, keys, info in [(10, 600, 5, 0.01), (50, 2600, 10, 0.005)]:
        for verdict in ("ok", "bad"):
            records = simulate(rng, clients, ops, keys, info)
            if verdict == "bad":
                corrupt(rng, records)
            name = "kv-c%02d-%s.txt" % (clients, verdict)
            assert brute_force_linearizable(records) == (verdict == "ok"), name
            write(os.path.join(HERE, name), records)
            made.append(name)
    print("wrote " + ", ".join(made))


if __name__ == "__main__":
    main()

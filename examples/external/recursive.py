#!/usr/bin/env python3
"""A runtime of your own, measured by corobench through docs/external.md's protocol: a template.

Python generators run corobench's `recursive` workload (a generator walks a complete binary tree
of `height` levels in order, yielding each node's value; the driver folds the values into a
checksum). Every other workload is answered `unsupported`. Check it, then run it:

    corobench check-external 'python3 examples/external/recursive.py'
    corobench run --external pygen='python3 examples/external/recursive.py' \\
        --impl sm,pygen --workload recursive --quick

The request is the last argument; the reply is one JSON object on stdout."""
import json
import math
import resource
import sys
import time

PROTOCOL = "corobench-external/1"
MASK = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15


def mix(h, v):
    """The checksum step of workloads/workload.h, on 64-bit unsigned integers."""
    return ((((h << 23) | (h >> 41)) & MASK) ^ v) * GOLDEN & MASK


def walk(node, level, height):
    """The nodes of the subtree under `node`, in order: one suspension (yield) each."""
    if level + 1 < height:
        yield from walk(2 * node, level + 1, height)
    yield ((node * GOLDEN) & MASK) ^ (node >> 3)
    if level + 1 < height:
        yield from walk(2 * node + 1, level + 1, height)


class Instance:
    """One instance: set up before the clock, run timed, finished after it."""

    def __init__(self, params):
        self.height = params["height"]
        self.gen = walk(1, 0, self.height)
        self.sum = 0
        self.suspensions = 0

    def run(self):
        s, n = 0, 0
        for v in self.gen:
            s = mix(s, v)
            n += 1
        self.sum, self.suspensions = s, n

    def finish(self):
        return (1 << self.height) - 1, self.sum


def repetition(params, batch):
    """Times `batch` instances run back to back; returns (ns, ops, checksum, suspensions)."""
    insts = [Instance(params) for _ in range(batch)]
    t0 = time.monotonic_ns()
    for inst in insts:
        inst.run()
    t1 = time.monotonic_ns()
    results = [inst.finish() for inst in insts]
    if len(set(results)) != 1:
        raise RuntimeError("nondeterministic result")
    ops, checksum = results[0]
    return t1 - t0, ops, checksum, insts[0].suspensions


def answer(req):
    if req.get("workload") != "recursive":
        return {"protocol": PROTOCOL, "unsupported": True,
                "error": "this example has a body for recursive only"}
    params = req["params"]
    batch = req["batch"]
    auto = batch == "auto"
    batch = 1 if auto else batch
    deadline = time.monotonic() + req["warmup_ms"] / 1000.0
    done = 0
    while done < req["warmup"] or time.monotonic() < deadline:
        ns, ops, checksum, susp = repetition(params, batch)
        if auto:  # as the C cells choose it: min_rep_ms worth of runs, at most max_batch
            per_run = max(ns / batch, 1)
            batch = min(req["max_batch"], max(1, math.ceil(req["min_rep_ms"] * 1e6 / per_run)))
        done += 1
    samples = []
    first = None
    for _ in range(req["reps"]):
        ns, ops, checksum, susp = repetition(params, batch)
        if first is None:
            first = (ops, checksum, susp)
        elif first != (ops, checksum, susp):
            return {"protocol": PROTOCOL, "error": "nondeterministic result"}
        samples.append(ns / (ops * batch))
    ops, checksum, susp = first
    return {"protocol": PROTOCOL, "runtime": "python " + sys.version.split()[0], "error": None,
            "ops": ops, "checksum": "0x%016x" % checksum, "suspensions": susp, "batch": batch,
            "samples_ns_per_op": samples,
            "peak_rss_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
            "coroutine_bytes": None}


def main():
    req = json.loads(sys.argv[-1] if len(sys.argv) > 1 else sys.stdin.read())
    try:
        reply = answer(req)
    except Exception as e:  # one line, and the cell fails with it
        reply = {"protocol": PROTOCOL, "error": "%s: %s" % (type(e).__name__, e)}
    print(json.dumps(reply))


if __name__ == "__main__":
    main()

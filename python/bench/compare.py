"""The package's time against the same run in Rust and against plain Python.

    python bench/compare.py [--rounds 15]

Workloads: jobs_1000 (corpus/streams/jobs_1000.bin with its saved params) and
alu (corpus/bench/alu.kms, built here with the package's builder). Each round
times, interleaved:

- `kmst.simulate(...)` from Python (the result's `status` only), and the same
  call followed by reading every command as Python objects;
- the same run inside Rust (`kmst._kmst._rust_time`: the engine on the same
  bytes and parameters, no Python in between);
- a plain pure-Python loop of the same work: for alu the arithmetic loop
  itself; for jobs_1000 the micro-op loop with the kernel model it needs (the
  job queue, the 16 slots, the allocator, the turns), checked to give the
  same commands as kmst.

It prints the medians over the rounds and the ratios. Build the package in
release mode first (`maturin develop --release` or `pip install ./python`).
"""

import argparse
import json
import statistics
import time
from pathlib import Path

import kmst
from kmst._kmst import _rust_time

ROOT = Path(__file__).resolve().parents[2]
M = 0xFFFFFFFF


# --- alu: corpus/bench/alu.kms, micro-op for micro-op -------------------------

def alu_stream():
    s = kmst.Stream(deadline_microseconds=0, max_steps=2_000_000, seed=7, req=1)
    r = s.registers(12)  # r0..r11, the registers alu.kms names
    s.set(r[3], 3)
    s.set(r[9], 1107)
    s.set(r[0], 0)
    outer = s.label()
    s.set(r[1], 100)
    inner = s.label()
    s.add(r[4], r[4], r[1])
    s.mul(r[5], r[1], r[3])
    s.addi(r[6], r[6], 5)
    s.and_(r[7], r[1], r[9])
    s.shr(r[8], r[5], 2)
    s.add(r[10], r[10], r[7])
    s.mul(r[11], r[6], r[3])
    s.addi(r[1], r[1], -1)
    s.jnz(r[1], inner)
    s.addi(r[0], r[0], 1)
    s.jlt(r[0], r[9], outer)
    s.halt(r[4])
    return s.encode()


def alu_python():
    """The arithmetic of alu.kms as a plain Python loop (wrapping u32)."""
    r0, r3, r9 = 0, 3, 1107
    r4 = r5 = r6 = r7 = r8 = r10 = r11 = 0
    while True:
        r1 = 100
        while True:
            r4 = (r4 + r1) & M
            r5 = (r1 * r3) & M
            r6 = (r6 + 5) & M
            r7 = r1 & r9
            r8 = r5 >> 2
            r10 = (r10 + r7) & M
            r11 = (r6 * r3) & M
            r1 = (r1 - 1) & M
            if r1 == 0:
                break
        r0 = (r0 + 1) & M
        if not r0 < r9:
            break
    return r4


# --- jobs_1000 in plain Python ------------------------------------------------

def jobs_python(core_count=119, delay=0):
    """The 1,000-job stream and the kernel it needs, in plain Python (S12, S17..S20).

    Returns (commands, end pass): commands as (sequence, slot, first, count,
    pass_index, job) tuples.
    """
    x = 1  # r15, the seed
    job = count = 0
    prologue = 4  # jobs_1000.kms starts with four SETs (119, 1, 1000, 0)
    pc = "set"  # then the loop: rand, mod, addi, enqueue, addi, jlt; then wait 0, halt
    queue = []  # [count, job, overtaken]
    busy = {}  # slot -> (first, count, ack pass)
    pending = 0
    commands = []
    p = 0
    while True:
        for slot in sorted(busy):  # sweep, lowest slot first
            if busy[slot][2] == p:
                del busy[slot]
                pending -= 1
        order = ("stream", "queue") if p % 2 == 0 else ("queue", "stream")
        for turn in order:
            if turn == "stream":
                budget = 64
                while budget:
                    if pc == "set":
                        prologue -= 1
                        if prologue == 0:
                            pc = "rand"
                    elif pc == "rand":
                        x ^= (x << 13) & M
                        x ^= x >> 17
                        x ^= (x << 5) & M
                        count = x
                        pc = "mod"
                    elif pc == "mod":
                        count = count % 119
                        pc = "addi"
                    elif pc == "addi":
                        count += 1
                        pc = "enqueue"
                    elif pc == "enqueue":
                        if len(queue) == 64:
                            break
                        queue.append([count, job, 0])
                        pending += 1
                        pc = "next"
                    elif pc == "next":
                        job += 1
                        pc = "jlt"
                    elif pc == "jlt":
                        pc = "rand" if job < 1000 else "wait"
                    elif pc == "wait":
                        if pending:
                            break
                        pc = "halt"
                    elif pc == "halt":
                        if pending:
                            break
                        return commands, p
                    budget -= 1
            else:
                window = queue[:16]
                for entry in window:
                    if len(busy) == 16:
                        break
                    n = entry[0]
                    # the lowest first whose range overlaps no busy group
                    first = 0
                    for g, c, _ in sorted(busy.values()):
                        if first + n <= g:
                            break
                        first = max(first, g + c)
                    if first + n > core_count:
                        if entry[2] >= 1024:
                            break
                        continue
                    slot = min(set(range(16)) - set(busy))
                    busy[slot] = (first, n, p + 1 + delay)
                    commands.append((len(commands), slot, first, n, p, entry[1]))
                    at = queue.index(entry)
                    for ahead in queue[:at]:
                        ahead[2] += 1
                    del queue[at]
        p += 1


def median_ns(samples):
    return statistics.median(samples)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=15)
    args = ap.parse_args()

    jobs_bin = (ROOT / "corpus/streams/jobs_1000.bin").read_bytes()
    jobs_params = json.loads((ROOT / "corpus/streams/jobs_1000.json").read_text())["params"]
    alu_bin = alu_stream()
    alu_params = {}

    # The plain-Python versions do the same work.
    r = kmst.simulate(alu_bin)
    assert r.status == "ended" and r.halt == alu_python() == 1107 * 5050
    r = kmst.simulate(jobs_bin, **jobs_params)
    mine, end = jobs_python()
    theirs = [(c.sequence, c.slot, c.first, c.count, c.pass_index, c.args[0]) for c in r.commands]
    assert mine == theirs and end == r.events[-1].pass_index, "plain Python differs from kmst"

    work = {
        "jobs_1000": (jobs_bin, jobs_params, jobs_python, 20),
        "alu": (alu_bin, alu_params, alu_python, 5),
    }
    kinds = ["package", "package+commands", "rust", "python"]
    times = {(w, k): [] for w in work for k in kinds}
    for _ in range(args.rounds):
        for name, (data, params, plain, n) in work.items():
            t = time.perf_counter_ns()
            for _ in range(n):
                kmst.simulate(data, **params).status
            times[name, "package"].append((time.perf_counter_ns() - t) / n)
            t = time.perf_counter_ns()
            for _ in range(n):
                len(kmst.simulate(data, **params).commands)
            times[name, "package+commands"].append((time.perf_counter_ns() - t) / n)
            times[name, "rust"].append(_rust_time(data, json.dumps(params), n) / n)
            t = time.perf_counter_ns()
            plain()
            times[name, "python"].append(time.perf_counter_ns() - t)

    print(f"medians of {args.rounds} interleaved rounds, microseconds per run;")
    print("ratios are medians of the ratios within each round")
    print(f"{'workload':<10} {'rust':>9} {'package':>9} {'+commands':>10} {'python':>10}"
          f" {'pkg/rust':>9} {'+cmd/rust':>10} {'python/pkg':>11}")
    for name in work:
        m = {k: median_ns(times[name, k]) / 1000 for k in kinds}

        def ratio(a, b):
            return statistics.median(x / y for x, y in zip(times[name, a], times[name, b]))

        print(f"{name:<10} {m['rust']:>9.1f} {m['package']:>9.1f} {m['package+commands']:>10.1f}"
              f" {m['python']:>10.1f} {ratio('package', 'rust'):>9.3f}"
              f" {ratio('package+commands', 'rust'):>10.3f} {ratio('python', 'package'):>11.1f}")


if __name__ == "__main__":
    main()

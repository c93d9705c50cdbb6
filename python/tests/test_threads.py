"""The GIL is released while the engine runs (docs/python.md, "Threads"):
another Python thread goes on during a `simulate` call."""

import threading
import time

import kmst


def counting_loop(n):
    """`set; (addi; jlt) x n; halt`: 2n + 2 micro-ops, no command."""
    s = kmst.Stream(deadline_microseconds=0, max_steps=2 * n + 10, seed=1, req=1)
    i, top_n = s.registers(2)
    s.set(top_n, n)
    top = s.label()
    s.addi(i, i, 1)
    s.jlt(i, top_n, top)
    s.halt(i)
    return s.encode()


def test_another_thread_runs_during_simulate():
    upload = counting_loop(40_000_000)  # 80,000,002 micro-ops: 100 ms or more
    span = {}

    def work():
        span["start"] = time.perf_counter()
        result = kmst.simulate(upload, max_passes=10_000_000)
        span["end"] = time.perf_counter()
        span["status"] = result.status

    stamps = []
    worker = threading.Thread(target=work)
    worker.start()
    while worker.is_alive():
        stamps.append(time.perf_counter())
    worker.join()
    assert span["status"] == "ended"
    # Inside the call, away from its ends (where the GIL changes hands
    # within a switch interval of 5 ms), this thread kept running: with the
    # GIL held for the whole call it could not have run at all.
    lo, hi = span["start"] + 0.02, span["end"] - 0.02
    assert hi - lo > 0.04, "the run was too short to tell"
    inside = [t for t in stamps if lo < t < hi]
    assert len(inside) > 100, (len(inside), hi - lo)

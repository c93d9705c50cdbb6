"""Shared paths and streams of the test suite."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
STREAMS = ROOT / "corpus" / "streams"


def one_command():
    """pc 0 SUBMIT (handler 5 on cores [0, 1), args [7], result=True), pc 1
    WAIT 0, pc 2 RESULT r0, pc 3 HALT r0. No constants, so no prologue;
    64 + pad64(4 * 16) + pad64(80) = 256 bytes (S2)."""
    from kmst import Stream

    s = Stream(deadline_microseconds=0, max_steps=1000, seed=1, req=5)
    [r] = s.registers(1)
    s.submit(5, group=(0, 1), args=[7], result=True)
    s.wait(0)
    s.result(r)
    s.halt(r)
    return s.encode()

"""`Machine`: a run paused between two passes, looked at, saved and
resumed (docs/python.md, "Pausing, looking and resuming"). A run cut
anywhere, its pieces on different variants, through a snapshot or a
pickle, gives `simulate`'s answer; the state after a pass is worked out by
hand; a bad snapshot is a ValueError; the GIL is released while it runs."""

import contextlib
import copy
import io
import pickle
import re
import threading
import time

import pytest

from conftest import ROOT, one_command
import kmst
from kmst import Event, Machine, Scenario, Stream, simulate, simulate_scenario

FAST = ["tail", "switch", "threaded", "subroutine", "indirect", "loop_match", "jit", "tiered"]
SCENARIOS = ROOT / "corpus" / "scenario-examples"


def pairs():
    """Each fast variant with the next one: (first piece, second piece)."""
    return [(a, FAST[(i + 1) % len(FAST)]) for i, a in enumerate(FAST)]


def five_commands():
    # for i in 0..5: SUBMIT args [i]; WAIT 0; EVENT i. Then HALT i.
    s = Stream(deadline_microseconds=0, max_steps=1000, seed=1, req=3)
    [i] = s.registers(1)
    top = s.label()
    s.submit(5, group=(0, 1), args=[i])
    s.wait(0)
    s.event(i)
    s.addi(i, i, 1)
    s.jlt(i, s.const(5), top)
    s.halt(i)
    return s.encode()


# Delays 1, 2, 3, 1, 2 by sequence: 15 passes, an event in five of them.
PARAMS = {"delay": ("cycle", 1, 3), "result": "sequence"}


def two_streams():
    # Stream A (req 1): SET r0, 7 (pc 0, the prologue); SUBMIT (pc 1); WAIT 0
    # (pc 2); HALT r0 (pc 3). Stream B (req 2): SET r0, 9; SET r1, 0; EVENT
    # r0; HALT r1. The same scenario as test_scenario.py's, as a dict.
    a = Stream(deadline_microseconds=100, max_steps=1000, seed=1, req=1)
    a.submit(2, group=(0, 4), args=[5])
    a.wait(0)
    a.halt(a.const(7))
    b = Stream(deadline_microseconds=100, max_steps=1000, seed=1, req=2)
    b.event(b.const(9))
    b.halt(b.const(0))
    return {
        "params": {"delay": 1},
        "uploads": [{"offset": 0, "data": a}, {"offset": 1024, "data": b}],
        "host": [{"pass": 0, "run": {"offset": 0}},
                 {"pass": 0, "run": {"offset": 1024}},
                 {"pass": 1, "cancel": 3},
                 {"pass": 2, "submit": {"handler": 4, "first": 0, "count": 2}}],
    }


def same(got, want):
    """The same answer, parameters included (`==` leaves them out)."""
    assert got == want
    assert got.to_json() == want.to_json()


# --- a run cut anywhere gives the whole run's answer --------------------------------


@pytest.mark.parametrize("first, second", pairs())
def test_cut_at_every_pass_on_two_variants(first, second):
    upload = five_commands()
    whole = simulate(upload, **PARAMS)
    assert whole.status == "ended" and whole.passes == 15
    # The run is over after pass 14, its last event's: a stop at 15 or later
    # finds it over.
    for cut in range(0, 17):
        m = Machine(upload, dispatch=first, **PARAMS)
        at = m.run(cut)
        assert at == (cut if cut < 15 else None), cut
        assert (m.next_pass, m.over) == (at, at is None)
        assert m.run(dispatch=second) is None and m.over
        same(m.result(), whole)


@pytest.mark.parametrize("first, second", pairs())
def test_cut_at_every_pass_through_a_snapshot_and_a_pickle(first, second):
    upload = five_commands()
    whole = simulate(upload, **PARAMS)
    for cut in range(0, 16):
        m = Machine(upload, dispatch=first, **PARAMS)
        m.run(cut)
        data = m.snapshot()
        assert isinstance(data, bytes)
        restored = Machine.restore(data, dispatch=second)
        assert restored.state == m.state and restored.next_pass == m.next_pass
        assert restored.snapshot() == data
        pickled = pickle.loads(pickle.dumps(m))
        assert pickled.dispatch == first and pickled.state == m.state
        for resumed in [restored, pickled, copy.deepcopy(m), m]:
            assert resumed.run() is None
            same(resumed.result(), whole)


def test_many_small_pieces():
    upload = five_commands()
    whole = simulate(upload, **PARAMS)
    m = Machine(upload, **PARAMS)
    seen = [m.next_pass]
    while not m.over:
        m.run(passes=1, dispatch=FAST[len(seen) % len(FAST)])
        m = Machine.restore(m.snapshot())
        seen.append(m.next_pass)
    assert seen == list(range(15)) + [None]
    same(m.result(), whole)


def test_a_piece_of_no_passes_runs_nothing():
    m = Machine(five_commands(), **PARAMS)
    assert m.run(passes=0) == 0 and m.run(0) == 0
    assert m.run(5) == 5 and m.run(3) == 5 and m.run(passes=0) == 5
    assert m.run() is None and m.run() is None and m.run(passes=3) is None


def test_the_answer_so_far():
    # Before the end the stream is still active: "stuck", with the commands
    # and events so far (S16).
    upload = five_commands()
    whole = simulate(upload, **PARAMS)
    m = Machine(upload, **PARAMS)
    m.run(6)
    r = m.result()
    assert r.status == "stuck" and r.halt is None
    assert r.commands == [c for c in whole.commands if c.pass_index < 6]
    assert r.events == [e for e in whole.events if e.pass_index < 6]
    assert r.params == whole.params


# --- scenarios ----------------------------------------------------------------------


@pytest.mark.parametrize("first, second", pairs())
def test_a_scenario_cut_at_every_pass(first, second):
    whole = simulate_scenario(two_streams())
    assert whole.passes == 3
    for cut in range(0, 6):
        m = Machine.from_scenario(two_streams(), dispatch=first)
        at = m.run(cut)
        # The run ends in the sweep of pass 4, where the host's command is acked.
        assert at == (cut if cut < 5 else None), cut
        restored = Machine.restore(m.snapshot(), second)
        pickled = pickle.loads(pickle.dumps(m))
        for resumed in [m, restored, pickled]:
            resumed.run(dispatch=second)
            same(resumed.result(), whole)


def test_a_scenario_object_runs_in_pieces():
    scenario = Scenario.from_dict(two_streams())
    whole = simulate_scenario(scenario)
    m = Machine.from_scenario(scenario)
    assert m.run(2) == 2
    m.run()
    same(m.result(), whole)


@pytest.mark.parametrize("name", ["two_streams", "cancel_and_reject", "late_host"])
def test_scenario_files_in_pieces(name):
    path = SCENARIOS / f"{name}.json"
    whole = simulate_scenario(path)
    m = Machine.from_scenario(path, dispatch="jit")
    for i in range(0, whole.passes + 2, 3):
        m.run(i, dispatch=FAST[i % len(FAST)])
        m = pickle.loads(pickle.dumps(m))
    m.run()
    same(m.result(), whole)


def test_a_scenario_dict_reads_as_scenario_from_dict():
    # `file` relative to `base`, `.kms` assembled, as Scenario.from_dict.
    d = {"params": {"delay": 2, "result": "sequence", "core_count": 32},
         "uploads": [{"offset": 0, "file": "jobs.kms"}, {"offset": 1024, "file": "results.kms"}],
         "host": [{"pass": 0, "run": {"offset": 0}}, {"pass": 0, "run": {"offset": 1024}},
                  {"pass": 1, "enqueue": {"handler": 9, "count": 32, "args": (42,)}},
                  {"pass": 2, "deadline": 50}]}
    m = Machine.from_scenario(d, base=SCENARIOS)
    m.run(4)
    m.run(dispatch="switch")
    same(m.result(), simulate_scenario(SCENARIOS / "two_streams.json"))
    # A scenario error is Scenario.from_dict's, and nothing is made.
    bad = two_streams()
    bad["host"].append({"pass": 5, "run": {"offset": 64}})
    with pytest.raises(kmst.ScenarioError) as e:
        Machine.from_scenario(bad)
    assert (e.value.entry, e.value.field) == ("host[4]", "run.length")


# --- until_event --------------------------------------------------------------------


@pytest.mark.parametrize("dispatch", FAST)
def test_until_event_stops_after_the_pass_of_each_event(dispatch):
    upload = five_commands()
    whole = simulate(upload, **PARAMS)
    passes = sorted({e.pass_index for e in whole.events})
    # EVENT i after each acknowledgement (S22): passes 2, 5, 9, 11, 14; the
    # END event of HALT goes with the last.
    assert passes == [2, 5, 9, 11, 14]
    m = Machine(upload, dispatch=dispatch, **PARAMS)
    for p in passes[:-1]:
        assert m.run(until_event=True) == p + 1
        assert m.result().events == [e for e in whole.events if e.pass_index <= p]
        assert m.state["events"] == len(m.result().events)
    assert m.run(until_event=True) is None
    same(m.result(), whole)


def test_until_event_in_a_scenario():
    # Stream B posts its EVENT and END in pass 0; stream A its END in pass 2.
    m = Machine.from_scenario(two_streams())
    assert m.run(until_event=True) == 1
    assert m.result().events == [Event(4, 2, 9, 0), Event(5, 2, 0, 0)]
    assert m.run(until_event=True) == 3
    assert m.result().events[2:] == [Event(5, 1, 7, 2)]
    assert m.run(until_event=True) is None


# --- the state, by hand -------------------------------------------------------------


def test_the_state_of_one_command_by_hand():
    # delay 3, result ("arg", 0). Before pass 0: the stream has started with
    # its registers 0 but r15 = the seed (S11), at pc 0.
    m = Machine(one_command(), delay=3, result=("arg", 0))
    s = m.state
    stream = {"req": 5, "standing": "active", "pc": 0, "regs": [0] * 15 + [1],
              "steps": 0, "max_steps": 1000, "pending": 0, "latest_result": 0,
              "offset": 0, "length": 256, "started": 0, "error": None, "halt": None}
    assert s == {"kind": "stream", "pass": 0, "over": False, "streams": [stream],
                 "slots": [], "queue": [], "host_waiting": [],
                 "default_deadline": 1_000_000, "commands": 0, "events": 0,
                 "stopped": False}
    # Pass 0: SUBMIT takes slot 0, sequence 0 (one step), acked by the sweep
    # of pass 0 + 1 + 3 = 4 (S12), late after pass 0 + 1,000,000 (the header's
    # deadline 0 stands for default_deadline_passes, S13); WAIT 0 waits at pc
    # 1 with one command pending, and is not a step while it waits.
    assert m.run(1) == 1
    s = m.state
    assert s["pass"] == 1 and not s["over"]
    assert s["streams"] == [dict(stream, pc=1, steps=1, pending=1)]
    assert s["slots"] == [{"slot": 0, "sequence": 0, "owner": 0, "first": 0, "count": 1,
                           "ack": 4, "deadline": 1_000_000}]
    assert (s["commands"], s["events"], s["queue"]) == (1, 0, [])
    # Passes 1..3 change nothing the state shows.
    assert m.run(4) == 4 and m.state == dict(s, **{"pass": 4})
    # Pass 4: the sweep frees slot 0 with result 7 (the command's args[0]);
    # WAIT goes on, RESULT r0 = 7, HALT r0: ended with halt 7 at pc 3 after
    # four steps, END posted, and the run is over where it ended.
    assert m.run() is None
    s = m.state
    assert s["pass"] == 4 and s["over"]
    assert s["streams"] == [dict(stream, standing="ended", pc=3, regs=[7] + [0] * 14 + [1],
                                 steps=4, latest_result=7, halt=7)]
    assert (s["slots"], s["commands"], s["events"]) == ([], 1, 1)


def test_the_state_of_a_scenario_by_hand():
    # After pass 0 (test_scenario.py works the scenario out): A waits at its
    # WAIT (pc 2) with r0 = 7 and its command in slot 0, acked in pass 2,
    # late after pass 0 + its header's 100; B has ended with halt 0. The
    # cancel of pass 1 and the submit of pass 2 are still to come.
    m = Machine.from_scenario(two_streams())
    assert m.state["host_waiting"] == [(0, 0, "run"), (1, 0, "run"), (2, 1, "cancel"),
                                       (3, 2, "submit")]
    assert m.state["streams"] == []
    m.run(1)
    s = m.state
    assert s["kind"] == "scenario" and s["pass"] == 1
    a, b = s["streams"]
    assert (a["req"], a["standing"], a["pc"], a["regs"][0], a["pending"], a["steps"]) == \
        (1, "active", 2, 7, 1, 2)
    assert (a["offset"], a["length"], a["started"]) == (0, 256, 0)
    assert (b["req"], b["standing"], b["halt"], b["offset"], b["length"]) == \
        (2, "ended", 0, 1024, 128)
    assert s["slots"] == [{"slot": 0, "sequence": 0, "owner": 0, "first": 0, "count": 4,
                           "ack": 2, "deadline": 100}]
    assert s["host_waiting"] == [(2, 1, "cancel"), (3, 2, "submit")]
    assert (s["commands"], s["events"], s["stopped"]) == (1, 2, False)
    # After pass 2 the host's submit holds slot 0 (owner "host"), acked in 4.
    m.run(3)
    s = m.state
    assert s["host_waiting"] == []
    assert s["slots"] == [{"slot": 0, "sequence": 1, "owner": "host", "first": 0, "count": 2,
                           "ack": 4, "deadline": 1_000_002}]
    assert [t["standing"] for t in s["streams"]] == ["ended", "ended"]


def test_the_queue_in_the_state():
    # ENQUEUE of 119 cores twice on a grid of 119: the second job waits in the
    # queue behind the first, which never completes (delay never).
    s = Stream(deadline_microseconds=0, max_steps=100, seed=1, req=1)
    s.enqueue(3, count=119, args=[1])
    s.enqueue(3, count=119, args=[2])
    s.wait(0)
    s.halt(s.const(0))
    m = Machine(s, delay=None, max_passes=10)
    m.run(1)
    st = m.state
    assert [j["args"][0] for j in st["queue"]] == [2]
    [job] = st["queue"]
    assert (job["id"], job["owner"], job["handler"], job["count"], job["overtaken"]) == \
        (1, 0, 3, 119, 0)
    assert st["slots"][0]["ack"] is None and st["streams"][0]["pending"] == 2


# --- callables ----------------------------------------------------------------------


def test_callables_in_pieces_and_not_saved():
    upload = five_commands()
    delay = lambda c: 1 + c.sequence % 3  # noqa: E731
    whole = simulate(upload, delay=delay, result="sequence")
    m = Machine(upload, delay=delay, result="sequence")
    m.run(7)
    m.run(dispatch="jit")
    assert m.result() == whole and m.result().params["delay"] is delay
    with pytest.raises(ValueError, match="delay model is a closure"):
        m.snapshot()
    with pytest.raises(ValueError, match="delay model is a closure"):
        pickle.dumps(m)


def test_a_scenario_with_a_callable():
    d = two_streams()
    d["params"] = {"delay": lambda c: 1, "result": lambda c: c.sequence + 40}
    whole = simulate_scenario(d)
    m = Machine.from_scenario(d)
    m.run(2)
    m.run(dispatch="threaded")
    assert m.result() == whole and m.result().params["delay"] is d["params"]["delay"]
    assert whole == simulate_scenario(two_streams())
    with pytest.raises(ValueError, match="closure"):
        m.snapshot()


def test_a_failing_callable_leaves_the_machine_where_it_stood():
    upload = five_commands()
    fail = {"at": 2}

    def delay(c):
        if c.sequence == fail["at"]:
            raise KeyError("no delay for this one")
        return 1 + c.sequence % 3

    m = Machine(upload, delay=delay, result="sequence")
    assert m.run(4) == 4
    before = m.state
    with pytest.raises(KeyError):
        m.run()
    assert m.next_pass == 4 and m.state == before
    fail["at"] = None
    assert m.run() is None
    assert m.result() == simulate(upload, **PARAMS)


# --- errors -------------------------------------------------------------------------


def test_bad_snapshots_are_value_errors():
    m = Machine(five_commands(), **PARAMS)
    m.run(6)
    data = m.snapshot()
    for cut in range(len(data)):
        with pytest.raises(ValueError):
            Machine.restore(data[:cut])
    for i in range(len(data)):
        flipped = bytearray(data)
        flipped[i] ^= 0x40
        with pytest.raises(ValueError):
            Machine.restore(bytes(flipped))
    for garbage in [b"garbage", b"", b"KMSTSNAP", bytes(1000)]:
        with pytest.raises(ValueError):
            Machine.restore(garbage)
    with pytest.raises(ValueError, match="not a kmst snapshot"):
        Machine.restore(b"garbage")
    with pytest.raises(ValueError, match="checksum"):
        Machine.restore(data[:-1] + bytes([data[-1] ^ 1]))
    with pytest.raises(TypeError):
        Machine.restore("a str")
    # bytearray and memoryview are bytes too.
    assert Machine.restore(bytearray(data)).state == m.state
    assert Machine.restore(memoryview(data)).state == m.state


def test_bad_arguments():
    upload = five_commands()
    m = Machine(upload)
    with pytest.raises(ValueError, match="at most one"):
        m.run(3, passes=2)
    with pytest.raises(ValueError, match="at most one"):
        m.run(passes=2, until_event=True)
    with pytest.raises(ValueError, match="until_pass"):
        m.run(-1)
    with pytest.raises(ValueError, match="passes"):
        m.run(passes=True)
    with pytest.raises(ValueError, match="reference"):
        m.run(dispatch="reference")
    with pytest.raises(ValueError, match="dispatch"):
        m.run(dispatch="nope")
    assert m.next_pass == 0
    with pytest.raises(ValueError, match="reference"):
        Machine(upload, dispatch="reference")
    with pytest.raises(ValueError, match="reference"):
        Machine.restore(m.snapshot(), dispatch="reference")
    with pytest.raises(ValueError, match="core_count"):
        Machine(upload, core_count=0)
    with pytest.raises(TypeError):
        Machine(upload, cancel=3)
    with pytest.raises(TypeError):
        Machine(42)
    with pytest.raises(TypeError, match="dict"):
        Machine.from_scenario(42)
    with pytest.raises(ValueError, match="base"):
        Machine.from_scenario(SCENARIOS / "two_streams.json", base=SCENARIOS)


def test_a_rejected_upload():
    # The check's error is posted in pass 0 (P1): the run is that alone, and
    # the machine is over as soon as it is made.
    bad = bytearray(one_command())
    bad[0] ^= 1
    m = Machine(bytes(bad))
    assert m.over and m.next_pass is None and m.run() is None
    assert m.state["streams"] == [] and m.state["events"] == 1
    same(m.result(), simulate(bytes(bad)))
    assert Machine.restore(m.snapshot()).result() == m.result()


def test_repr():
    m = Machine(five_commands(), dispatch="switch", **PARAMS)
    assert repr(m) == "Machine(one stream, next_pass=0, dispatch='switch')"
    m.run()
    assert repr(m) == "Machine(one stream, over, dispatch='switch')"
    assert repr(Machine.from_scenario(two_streams())) == \
        "Machine(a scenario, next_pass=0, dispatch='tail')"


# --- the GIL ------------------------------------------------------------------------


def counting_loop(n):
    """`set; (addi; jlt) x n; halt`: 2n + 2 micro-ops, no command."""
    s = Stream(deadline_microseconds=0, max_steps=2 * n + 10, seed=1, req=1)
    i, top_n = s.registers(2)
    s.set(top_n, n)
    top = s.label()
    s.addi(i, i, 1)
    s.jlt(i, top_n, top)
    s.halt(i)
    return s.encode()


def test_another_thread_runs_during_run():
    # As test_threads.py: 80,000,002 micro-ops, 64 a pass, in one piece.
    m = Machine(counting_loop(40_000_000), max_passes=10_000_000)
    m.run(2)
    span = {}

    def work():
        span["start"] = time.perf_counter()
        span["at"] = m.run()
        span["end"] = time.perf_counter()

    stamps, borrowed = [], 0
    worker = threading.Thread(target=work)
    worker.start()
    while worker.is_alive():
        stamps.append(time.perf_counter())
        # While it runs the machine is borrowed: a call raises, never waits.
        try:
            m.next_pass
        except RuntimeError:
            borrowed += 1
    worker.join()
    assert span["at"] is None and m.result().status == "ended"
    assert borrowed > 0
    lo, hi = span["start"] + 0.02, span["end"] - 0.02
    assert hi - lo > 0.04, "the run was too short to tell"
    inside = [t for t in stamps if lo < t < hi]
    assert len(inside) > 100, (len(inside), hi - lo)


# --- docs/python.md ------------------------------------------------------------------


def test_the_docs_example_prints_what_it_says():
    text = (ROOT / "docs" / "python.md").read_text(encoding="utf-8")
    section = text.split("## Pausing, looking and resuming", 1)[1].split("\n## ", 1)[0]
    [code] = re.findall(r"^```python\n(.*?)^```$", section, flags=re.MULTILINE | re.DOTALL)
    # Each `print(...)  # OUTPUT` line: OUTPUT is the line it prints.
    expected = [line.split("  # ", 1)[1] for line in code.splitlines()
                if line.startswith("print(") and "  # " in line]
    assert expected, "the example shows no output"
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "docs/python.md", "exec"), {"__name__": "docs"})
    assert out.getvalue().splitlines() == expected

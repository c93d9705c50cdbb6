"""Kernel scenarios (S26..S36): hand-worked answers, every dispatch against
the reference model, the three ways in (builder, dict, file), S35 against the
one-stream simulator, callables, and every kind of scenario error.
"""

import json
import os
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import ROOT, STREAMS
import kmst
from kmst import (
    Event,
    HostOutcome,
    Scenario,
    ScenarioCommand,
    ScenarioError,
    Stream,
    StreamError,
    StreamOutcome,
    SubmittedCommand,
    simulate,
    simulate_scenario,
)

DISPATCHES = ["tail", "switch", "threaded", "subroutine", "indirect", "loop_match", "jit", "tiered", "reference"]
ZEROS = [0] * 10


def stream_a():
    # req 1. Prologue SET r0, 7 (pc 0, S8); SUBMIT (pc 1); WAIT 0 (pc 2);
    # HALT r0 (pc 3). 4 micro-ops, 1 template: 64 + pad64(64) + pad64(80) = 256 bytes (S2).
    a = Stream(deadline_microseconds=100, max_steps=1000, seed=1, req=1)
    a.submit(2, group=(0, 4), args=[5])
    a.wait(0)
    a.halt(a.const(7))
    return a


def stream_b():
    # req 2. Prologue SET r0, 9 (pc 0); SET r1, 0 (pc 1); EVENT r0 (pc 2);
    # HALT r1 (pc 3). 4 micro-ops, no template: 64 + 64 = 128 bytes.
    b = Stream(deadline_microseconds=100, max_steps=1000, seed=1, req=2)
    b.event(b.const(9))
    b.halt(b.const(0))
    return b


def two_streams():
    return (Scenario(delay=1)
            .place(0, stream_a()).place(1024, stream_b())
            .run(0, 0).run(0, 1024)       # lengths from the placements (S36)
            .cancel(1, 3)
            .submit(2, 4, 0, 2))


def two_streams_dict():
    return {
        "params": {"delay": 1},
        "uploads": [{"offset": 0, "data": stream_a()},
                    {"offset": 1024, "data": stream_b().encode()}],
        "host": [{"pass": 0, "run": {"offset": 0}},
                 {"pass": 0, "run": {"offset": 1024}},
                 {"pass": 1, "cancel": 3},
                 {"pass": 2, "submit": {"handler": 4, "first": 0, "count": 2}}],
    }


# The two-stream scenario worked out from the rulings (delay 1, other parameters default):
# Pass 0. Host phase (S29): RUN A (no stream active, check_run accepts) -> stream 0;
#   RUN B (active range [0, 256), req 1; B is req 2 at 1024) -> stream 1. The cancel and
#   the submit are not due. Turns: submitters A, B, queue (n = 2); the first turn is
#   0 % 3 = A. A: SET, SUBMIT takes slot 0, sequence 0 (handler 2, group 0+4, args [5],
#   flags 0, pc 1, stream 0; delay 1 -> acked in the sweep of pass 0 + 1 + 1 = 2, S12);
#   WAIT 0 waits (pending 1). B: SET, SET, EVENT r0 -> KM_EVENT_STREAM(4) req 2 aux 9;
#   HALT r1 with nothing pending -> KM_EVENT_STREAM_END(5) req 2 aux 0, halt 0, ended.
# Pass 1. Sweep: nothing due. Host: cancel(3): no active stream has req 3 -> rejected,
#   reason 10 (S34). Turns (n = 1, first 1 % 2 = the queue): A still waits.
# Pass 2. Sweep frees slot 0 (A's pending 0). Host: submit(4, 0, 2): handler in 1..239,
#   group inside the grid, slot 0 free -> taken; sequence 1, slot 0, pc 0, stream None
#   (S32), acked in pass 4. Turns (first 2 % 2 = A): WAIT 0 goes on; HALT r0 ->
#   KM_EVENT_STREAM_END req 1 aux 7, halt 7, ended.
# Pass 3: the host's command is in flight. Pass 4: swept; nothing active, in flight,
#   queued or due -> the run ends (S35). passes = last event's pass 2 + 1 = 3 (S16).
TWO_STREAMS_JSON = {
    "params": {"delay": 1, "result": "zero", "deadline_passes": None,
               "default_deadline_passes": 1_000_000, "core_count": 119,
               "ticks_per_pass": 1000, "max_passes": 1_000_000, "region_size": 1 << 20,
               "turn_budget": 64},
    "streams": [
        {"req": 1, "offset": 0, "length": 256, "pass": 0, "status": "ended",
         "error": None, "halt": 7},
        {"req": 2, "offset": 1024, "length": 128, "pass": 0, "status": "ended",
         "error": None, "halt": 0},
    ],
    "host": [
        {"pass": 0, "outcome": "taken", "reason": None, "stream": 0},
        {"pass": 0, "outcome": "taken", "reason": None, "stream": 1},
        {"pass": 1, "outcome": "rejected", "reason": 10, "stream": None},
        {"pass": 2, "outcome": "taken", "reason": None, "stream": None},
    ],
    "commands": [
        {"sequence": 0, "slot": 0, "pass_index": 0, "pc": 1, "queued": False, "handler": 2,
         "first": 0, "count": 4, "flags": 0, "args": [5] + [0] * 9, "stream": 0},
        {"sequence": 1, "slot": 0, "pass_index": 2, "pc": 0, "queued": False, "handler": 4,
         "first": 0, "count": 2, "flags": 0, "args": ZEROS, "stream": None},
    ],
    "events": [
        {"kind": 4, "req": 2, "auxiliary": 9, "pass_index": 0},
        {"kind": 5, "req": 2, "auxiliary": 0, "pass_index": 0},
        {"kind": 5, "req": 1, "auxiliary": 7, "pass_index": 2},
    ],
    "stopped": False,
    "passes": 3,
}


@pytest.mark.parametrize("dispatch", DISPATCHES)
def test_two_streams_by_hand(dispatch):
    r = two_streams().simulate(dispatch=dispatch)
    assert r.streams == [
        StreamOutcome(req=1, offset=0, length=256, pass_=0, status="ended", halt=7),
        StreamOutcome(req=2, offset=1024, length=128, pass_=0, status="ended", halt=0),
    ]
    assert r.host == [
        HostOutcome(0, "taken", stream=0),
        HostOutcome(0, "taken", stream=1),
        HostOutcome(1, "rejected", reason=10),
        HostOutcome(2, "taken"),
    ]
    assert r.commands == [
        ScenarioCommand(SubmittedCommand(0, 0, 2, 0, 4, 0, [5], 0, 1, False), stream=0),
        ScenarioCommand(SubmittedCommand(1, 0, 4, 0, 2, 0, [], 2, 0, False), stream=None),
    ]
    assert [c.stream for c in r.commands] == [0, None]
    assert r.commands[0].args == [5] + [0] * 9 and r.commands[0].pc == 1
    assert r.commands[1].command == SubmittedCommand(1, 0, 4, 0, 2, 0, ZEROS, 2, 0, False)
    assert r.events == [Event(4, 2, 9, 0), Event(5, 2, 0, 0), Event(5, 1, 7, 2)]
    assert (r.stopped, r.passes) == (False, 3)
    assert r.streams[0].pass_ == 0 and r.streams[0].error is None
    assert r.host[2].reason == 10 and r.host[2].outcome == "rejected"
    assert json.loads(r.to_json()) == TWO_STREAMS_JSON
    assert r.params["delay"] == 1 and "cancel_pass" not in r.params


def test_the_dict_and_the_builder_give_the_same_scenario():
    a = two_streams().simulate()
    b = simulate_scenario(two_streams_dict())
    assert a == b and a.to_json() == b.to_json()
    assert Scenario.from_dict(two_streams_dict()).uploads == two_streams().uploads


# Host commands alone (delay never, deadline_passes 2):
# Pass 0. run(32, 64): the offset is not a multiple of 64 -> rejected with reason 1 at
#   pc 0 (S6, S28); the region there is zeros, so the event's req is the header's 0 (S3):
#   KM_EVENT_STREAM_ERROR(6) req 0 aux 1 | 0 << 8 = 1. enqueue(7, 3, [1, 2]) joins the
#   queue. Turns: no stream, the queue takes the only turn (S29): free slot 0, the
#   allocator's lowest first is 0 -> sequence 0, slot 0, group 0+3, flags 0 (never the
#   queue bit, S19), queued, pc 0, stream None. Never acked.
# Pass 1. enqueue with handler 240 -> rejected 5; deadline(0) -> rejected 1 (S31, S32).
# Pass 2. Deadline phase: slot 0 submitted in pass 0 with D = 2 is late (S13); it is the
#   host's -> KM_EVENT_TIMEOUT(1) aux slot 0, req 0 (S33); stopped; the run ends after
#   this phase. The cancel due in pass 3 is "waiting" with pass null (S36).
#   passes = 2 + 1 = 3.
def host_only():
    return (Scenario(delay=None, deadline_passes=2)
            .run(0, 32, 64)
            .enqueue(0, 7, 3, args=[1, 2])
            .enqueue(1, 240, 1)
            .deadline(1, 0)
            .cancel(3, 1))


@pytest.mark.parametrize("dispatch", DISPATCHES)
def test_host_commands_and_a_stopped_grid_by_hand(dispatch):
    r = host_only().simulate(dispatch=dispatch)
    assert r.streams == []
    assert r.host == [
        HostOutcome(0, "rejected", reason=1),
        HostOutcome(0, "taken"),
        HostOutcome(1, "rejected", reason=5),
        HostOutcome(1, "rejected", reason=1),
        HostOutcome(None, "waiting"),
    ]
    assert r.commands == [
        ScenarioCommand(SubmittedCommand(0, 0, 7, 0, 3, 0, [1, 2], 0, 0, True), None)]
    assert r.events == [Event(6, 0, 1, 0), Event(1, 0, 0, 2)]
    assert (r.stopped, r.passes) == (True, 3)
    assert json.loads(r.to_json())["host"][4] == {
        "pass": None, "outcome": "waiting", "reason": None, "stream": None}


# A stream that never ends: JMP to itself (1 micro-op, 64 + 64 = 128 bytes) with
# max_passes 3: active after pass 2 -> "stuck" (S35), no event (passes 0), no error, no
# halt; the deadline command due in pass 5 was never due: waiting.
@pytest.mark.parametrize("dispatch", DISPATCHES)
def test_a_stuck_stream_by_hand(dispatch):
    s = Stream(deadline_microseconds=0, max_steps=10_000, seed=1, req=5)
    top = s.label()
    s.jmp(top)
    r = Scenario(max_passes=3).place(0, s).run(0, 0).deadline(5, 10).simulate(dispatch=dispatch)
    assert r.streams == [StreamOutcome(5, 0, 128, 0, "stuck", None, None)]
    assert r.host == [HostOutcome(0, "taken", stream=0), HostOutcome(None, "waiting")]
    assert (r.commands, r.events, r.stopped, r.passes) == ([], [], False, 0)


# --- every dispatch gives the reference model's answer ------------------------------

BINS = sorted(STREAMS.glob("*.bin"))


def mixed_scenario(rng):
    """Up to four corpus uploads at spaced offsets, RUN in early passes, and host
    commands of every kind, with the first upload's saved parameters."""
    picks = rng.sample(BINS, rng.randint(1, 5))
    params = json.loads(picks[0].with_suffix(".json").read_text())["params"]
    params.pop("cancel_pass", None)
    params["max_passes"] = min(params["max_passes"], 5000)
    region = max(params["region_size"], 64 << 10)
    params["region_size"] = region
    uploads, host, offset, pass_ = [], [], 0, 0
    for p in picks:
        data = p.read_bytes()
        if offset + len(data) > region:
            break
        uploads.append({"offset": offset, "data": data})
        offset += (len(data) + 63) // 64 * 64 + 64 * rng.randint(0, 2)
    for u in uploads:
        pass_ += rng.randint(0, 2)
        host.append({"pass": pass_, "run": {"offset": u["offset"]}})
        if rng.random() < 0.4:
            host.append({"pass": pass_, rng.choice(["cancel", "deadline"]): rng.randint(0, 3)})
        if rng.random() < 0.4:
            host.append({"pass": pass_, "enqueue": {"handler": rng.randint(1, 3),
                                                    "count": rng.randint(1, 4),
                                                    "args": [rng.randint(0, 9)]}})
        if rng.random() < 0.4:
            host.append({"pass": pass_, "submit": {"handler": 9, "first": rng.randint(0, 8),
                                                   "count": rng.randint(1, 4),
                                                   "exclusive": rng.random() < 0.5,
                                                   "result": True}})
    return {"params": params, "uploads": uploads, "host": host}


@pytest.mark.parametrize("seed", range(24))
def test_every_dispatch_gives_the_reference_answer(seed):
    scenario = Scenario.from_dict(mixed_scenario(random.Random(seed)))
    reference = scenario.simulate(dispatch="reference")
    for dispatch in ["tail", "switch", "threaded", "subroutine", "indirect", "loop_match", "jit", "tiered"]:
        r = scenario.simulate(dispatch=dispatch)
        assert r == reference, dispatch
        assert r.to_json() == reference.to_json(), dispatch


# --- S35: one RUN in pass 0 is the one-stream simulator -----------------------------

@pytest.mark.parametrize("path", BINS[::9], ids=lambda p: p.stem)
def test_one_run_is_the_one_stream_answer(path):
    data = path.read_bytes()
    params = json.loads(path.with_suffix(".json").read_text())["params"]
    cancel = params.pop("cancel_pass")
    req = int.from_bytes(data[24:28], "little") if len(data) >= 64 else 0
    host = [{"pass": 0, "run": {"offset": 0, "length": len(data)}}]
    if cancel is not None:
        host.append({"pass": cancel, "cancel": req})
    r = simulate_scenario({"params": params, "uploads": [{"offset": 0, "data": data}],
                           "host": host})
    one = simulate(data, cancel_pass=cancel, **params)
    assert [c.command for c in r.commands] == one.commands
    assert r.events == one.events
    assert (r.stopped, r.passes) == (one.stopped, one.passes)
    if one.check is None:
        [s] = r.streams
        assert (s.status, s.error, s.halt) == (one.status, one.error, one.halt)
        assert all(c.stream == 0 for c in r.commands)
    else:
        assert r.streams == [] and r.host[0].reason == one.check.reason


# --- files: a dict with paths, a scenario file, .kms assembled ----------------------

def test_files_relative_to_base_and_kms_assembled():
    kms = sorted(STREAMS.glob("*.kms"))[0]
    by_kms = {"uploads": [{"offset": 0, "file": kms.name}],
              "host": [{"pass": 0, "run": {"offset": 0}}]}
    by_bin = {"uploads": [{"offset": 0, "file": Path(kms.stem + ".bin")}],
              "host": [{"pass": 0, "run": {"offset": 0}}]}
    a = simulate_scenario(by_kms, base=STREAMS)
    b = simulate_scenario(by_bin, base=str(STREAMS))
    assert a == b and a.streams[0].length == len(kms.with_suffix(".bin").read_bytes())
    with pytest.raises(ScenarioError) as e:
        simulate_scenario(by_kms)  # relative to the current directory: not there
    assert (e.value.entry, e.value.field) == ("uploads[0]", "file")


def test_a_scenario_file(tmp_path):
    (tmp_path / "a.bin").write_bytes(stream_a().encode())
    (tmp_path / "b.bin").write_bytes(stream_b().encode())
    d = two_streams_dict()
    d["uploads"] = [{"offset": 0, "file": "a.bin"}, {"offset": 1024, "file": "b.bin"}]
    path = tmp_path / "two.json"
    path.write_text(json.dumps(d))
    for r in [simulate_scenario(path), simulate_scenario(str(path)), Scenario.load(path).simulate(),
              simulate_scenario(d, base=tmp_path)]:
        assert json.loads(r.to_json()) == TWO_STREAMS_JSON
    with pytest.raises(ValueError, match="base"):
        simulate_scenario(path, base=tmp_path)
    with pytest.raises(ScenarioError) as e:
        simulate_scenario(tmp_path / "missing.json")
    assert e.value.entry == "scenario"
    path.write_text("{")
    with pytest.raises(ScenarioError, match="not JSON"):
        simulate_scenario(path)


def kmst_cli():
    for candidate in [os.environ.get("KMST_CLI"), ROOT / "target" / "release" / "kmst",
                      ROOT / "target" / "debug" / "kmst", shutil.which("kmst")]:
        if candidate and Path(candidate).is_file():
            ok = subprocess.run([str(candidate), "scenario", "--help"], capture_output=True)
            if ok.returncode == 0:
                return str(candidate)
    return None


@pytest.mark.skipif(kmst_cli() is None, reason="no built kmst CLI with `scenario` (KMST_CLI)")
@pytest.mark.parametrize("seed", range(6))
def test_the_cli_gives_the_same_json(tmp_path, seed):
    d = mixed_scenario(random.Random(seed))
    for i, u in enumerate(d["uploads"]):
        (tmp_path / f"{i}.bin").write_bytes(u.pop("data"))
        u["file"] = f"{i}.bin"
    path = tmp_path / "s.json"
    path.write_text(json.dumps(d))
    out = subprocess.run([kmst_cli(), "scenario", str(path), "--json"],
                         capture_output=True, text=True, check=True).stdout
    assert json.loads(simulate_scenario(path).to_json()) == json.loads(out)


# --- callables ----------------------------------------------------------------------

def test_callables_run_in_the_scenario():
    seen = []

    def delay(c):
        seen.append((c.sequence, c.pc))
        return 1

    r = simulate_scenario({**two_streams_dict(), "params": {"delay": delay,
                                                             "result": lambda c: 3}})
    assert r == two_streams().simulate()       # the same model as delay=1
    assert seen == [(0, 1), (1, 0)]             # A's SUBMIT (pc 1), then the host's (pc 0)
    assert r.params["delay"] is delay
    with pytest.raises(ValueError, match="custom closure"):
        r.to_json()
    # A Scenario built with a callable runs it afresh each time.
    s = Scenario(delay=delay).place(0, stream_a()).run(0, 0)
    seen.clear()
    assert s.simulate() == s.simulate() and seen == [(0, 1), (0, 1)]


def test_a_failing_callable_raises_after_the_run():
    def boom(c):
        raise KeyError("boom")

    with pytest.raises(KeyError) as e:
        simulate_scenario({**two_streams_dict(), "params": {"delay": boom}})
    assert any("sequence 0" in n for n in e.value.__notes__)
    with pytest.raises(TypeError, match="returned 'x'"):
        Scenario(delay=lambda c: "x").place(0, stream_a()).run(0, 0).simulate()


# --- errors -------------------------------------------------------------------------

A = stream_a().encode()

DICT_ERRORS = [
    ({"hosts": []}, "scenario", "hosts", "unknown key"),
    ({"params": {"cancel_pass": 1}}, "params", "cancel_pass", "(S26)"),
    ({"params": {"turbo": 1}}, "params", "turbo", "unknown key"),
    ({"params": {"core_count": 0}}, "params", "core_count", "0 is not in 1..=65535"),
    ({"params": {"core_count": None}}, "params", "core_count", "None"),
    ({"params": {"delay": ("cycle", 1, 0)}}, "params", "delay", "modulo"),
    ({"params": []}, "params", "", "expected a JSON object"),
    ({"uploads": {}}, "scenario", "uploads", "an array"),
    ({"uploads": [{"offset": 32, "data": A}]}, "uploads[0]", "offset", "multiple of 64"),
    ({"uploads": [{"offset": 0, "data": A}, {"offset": 64, "data": A}]},
     "uploads[1]", "offset", "overlaps uploads[0]"),
    ({"params": {"region_size": 128}, "uploads": [{"offset": 0, "data": A}]},
     "uploads[0]", "offset", "not inside the region"),
    ({"uploads": [{"offset": 0, "data": "text"}]}, "uploads[0]", "data", "expected bytes"),
    ({"uploads": [{"offset": 0, "data": A, "file": "a.bin"}]}, "uploads[0]", "data", "not both"),
    ({"uploads": [{"offset": 0}]}, "uploads[0]", "file", "missing"),
    ({"uploads": [{"offset": 0, "data": A, "name": "a"}]}, "uploads[0]", "name", "unknown key"),
    ({"host": [{"pass": 0, "run": {"offset": 64}}]}, "host[0]", "run.length",
     "no upload is placed at offset 64"),
    ({"host": [{"pass": 1, "cancel": 1}, {"pass": 0, "cancel": 1}]}, "host[1]", "pass",
     "earlier"),
    ({"host": [{"pass": 0, "cancel": 1, "deadline": 2}]}, "host[0]", "deadline",
     "two commands"),
    ({"host": [{"pass": 0}]}, "host[0]", "", "no command"),
    ({"host": [{"cancel": 1}]}, "host[0]", "pass", "missing"),
    ({"host": [{"pass": -1, "cancel": 1}]}, "host[0]", "pass", "-1 is not an integer"),
    ({"host": [{"pass": 2 ** 70, "cancel": 1}]}, "host[0]", "pass", str(2 ** 70)),
    ({"host": [{"pass": True, "cancel": 1}]}, "host[0]", "pass", "true is not an integer"),
    ({"host": [{"pass": 0, "submit": {"handler": 1, "first": 0, "count": 1,
                                      "args": [1, "x"]}}]},
     "host[0]", "submit.args[1]", '"x" is not an integer'),
    ({"host": [{"pass": 0, "enqueue": {"handler": 1, "count": 1, "args": list(range(11))}}]},
     "host[0]", "enqueue.args", "11 words"),
    ({"host": [{"pass": 0, "enqueue": {"handler": 1, "count": 1, "exclusive": 1}}]},
     "host[0]", "enqueue.exclusive", "true or false"),
    ({"host": [{"pass": 0, "submit": {"handler": 1, "count": 1}}]},
     "host[0]", "submit.first", "missing"),
    ({"host": [{"pass": 0, "cancel": b"x"}]}, "host[0]", "cancel", "not a JSON value"),
]


@pytest.mark.parametrize("scenario,entry,field,problem", DICT_ERRORS)
def test_dict_errors_name_the_entry_and_the_field(scenario, entry, field, problem):
    with pytest.raises(ScenarioError) as e:
        simulate_scenario(scenario)
    assert isinstance(e.value, ValueError)
    assert (e.value.entry, e.value.field) == (entry, field)
    assert problem in e.value.problem
    assert str(e.value).startswith(entry)


BUILDER_ERRORS = [
    (lambda: Scenario(cancel_pass=1), "params", "cancel_pass", "(S26)"),
    (lambda: Scenario(turn_budget=0), "params", "turn_budget", "at least 1"),
    (lambda: Scenario().place(0, A).place(192, A), "uploads[1]", "offset", "overlaps"),
    (lambda: Scenario().place(-64, A), "uploads[0]", "offset", "-64 is not"),
    (lambda: Scenario().place(0, 12), "uploads[0]", "data", "expected bytes"),
    (lambda: Scenario().run(0, 0), "host[0]", "run.length", "no upload is placed"),
    (lambda: Scenario().cancel(2, 1).deadline(1, 5), "host[1]", "pass", "earlier"),
    (lambda: Scenario().deadline(0, 1.5), "host[0]", "deadline", "1.5 is not"),
    (lambda: Scenario().submit(0, 1, 0, 1, args=[0] * 11), "host[0]", "submit.args", "11 words"),
    (lambda: Scenario().submit(0, 1, 0, 1, args=[2 ** 32]), "host[0]", "submit.args[0]",
     "4294967296 is not"),
    (lambda: Scenario().enqueue(0, 1, 1, exclusive=1), "host[0]", "enqueue.exclusive",
     "True or False"),
]


@pytest.mark.parametrize("call,entry,field,problem", BUILDER_ERRORS)
def test_builder_errors_name_the_entry_and_the_field(call, entry, field, problem):
    with pytest.raises(ScenarioError) as e:
        call()
    assert (e.value.entry, e.value.field) == (entry, field)
    assert problem in e.value.problem


def test_other_misuse():
    with pytest.raises(TypeError, match="expected a Scenario, a dict or a path"):
        simulate_scenario(42)
    with pytest.raises(TypeError):
        simulate_scenario([])
    with pytest.raises(ScenarioError, match="expected a dict"):
        Scenario.from_dict([])
    with pytest.raises(ValueError, match="dispatch"):
        simulate_scenario({}, dispatch="fast")
    with pytest.raises(ValueError, match="base"):
        simulate_scenario(two_streams(), base=".")


# --- the objects --------------------------------------------------------------------

def test_values_repr_and_empty_scenario():
    r = simulate_scenario({})
    assert (r.streams, r.host, r.commands, r.events, r.stopped, r.passes) == (
        [], [], [], [], False, 0)
    assert repr(two_streams()) == "Scenario(2 uploads, 4 host commands)"
    assert len(two_streams()) == 4
    t = two_streams().simulate()
    assert repr(t) == ("ScenarioResult(streams=[2 streams], host=[4 host commands], "
                       "commands=[2 commands], events=[3 events], stopped=False, passes=3)")
    for value in [t.streams[0], t.host[2], t.commands[0]]:
        assert eval(repr(value), vars(kmst)) == value
        assert hash(eval(repr(value), vars(kmst))) == hash(value)
    assert t != host_only().simulate()
    assert StreamOutcome(1, 0, 64, 0, "error", StreamError(8, 3)).error == StreamError(8, 3)
    with pytest.raises(ValueError):
        HostOutcome(0, "taken", reason=3)
    with pytest.raises(ValueError):
        StreamOutcome(1, 0, 64, 0, "done")

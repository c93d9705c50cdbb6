"""Completion models, callables and parameters (docs/spec.md "The simulator",
S12..S16, S23..S25). Every expected value is worked out from the rulings."""

import pytest

from conftest import one_command
import kmst
from kmst import Event, Stream, StreamError, SubmittedCommand, simulate

DISPATCHES = ["tail", "switch", "threaded", "subroutine", "indirect", "loop_match", "jit", "tiered", "reference"]


def five_commands():
    # for i in 0..5: SUBMIT args [i]; WAIT 0. Then HALT i.
    s = Stream(deadline_microseconds=0, max_steps=1000, seed=1, req=0)
    [i] = s.registers(1)
    top = s.label()
    s.submit(5, group=(0, 1), args=[i])
    s.wait(0)
    s.addi(i, i, 1)
    s.jlt(i, s.const(5), top)
    s.halt(i)
    return s.encode()


FIRST = SubmittedCommand(
    sequence=0, slot=0, handler=5, first=0, count=1, flags=4,
    args=[7, 0, 0, 0, 0, 0, 0, 0, 0, 0], pass_index=0, pc=0, queued=False,
)


@pytest.mark.parametrize("dispatch", DISPATCHES)
def test_fixed_delay_and_result_models(dispatch):
    # Submitted in pass 0 with delay 3: acknowledged by the sweep of pass
    # 0 + 1 + 3 = 4 (S12), which sets the latest result; WAIT goes on in pass
    # 4's turn, RESULT reads it and HALT posts END (aux = result) in pass 4.
    data = one_command()
    for result, value in [(lambda c: c.args[0] * 2, 14), (("arg", 0), 7), ({"arg": 0}, 7),
                          ("sequence", 0), ([9, 8], 9), ({"table": [9]}, 9), (123, 123),
                          (0, 0), ("zero", 0)]:
        r = simulate(data, delay=3, result=result, dispatch=dispatch)
        assert r.status == "ended" and r.halt == value, result
        assert r.events == [Event(kind=5, req=5, auxiliary=value, pass_index=4)]
        assert r.passes == 5
        assert r.commands == [FIRST]


def test_delay_callable_gets_the_submitted_command():
    seen = []

    def delay(command):
        seen.append(command)
        return 3

    r = simulate(one_command(), delay=delay, result=("arg", 0))
    assert seen == [FIRST]
    assert r == simulate(one_command(), delay=3, result=("arg", 0))
    assert r.params["delay"] is delay
    with pytest.raises(ValueError, match="delay"):
        r.to_json()


def test_delay_models():
    data = five_commands()
    # Each command waits alone: submitted in pass p, acked in p + 1 + d and the
    # next one submitted in that same pass's turn. With delays 1, 2, 3, 1, 2
    # (cycle(1, 3) by sequence) the submits are in passes 0, 2, 5, 9, 11 and
    # the last ack, with HALT, in pass 11 + 1 + 2 = 14.
    for delay in [("cycle", 1, 3), {"cycle": [1, 3]}, [1, 2, 3], {"table": [1, 2, 3]},
                  lambda c: 1 + c.sequence % 3]:
        r = simulate(data, delay=delay)
        assert [c.pass_index for c in r.commands] == [0, 2, 5, 9, 11], delay
        assert r.halt == 5 and r.passes == 15
    # A table entry None is never acknowledged: the third command (sequence
    # 2) never completes, so the stream waits until max_passes (S16).
    r = simulate(data, delay=[0, 0, None], max_passes=100)
    assert r.status == "stuck" and len(r.commands) == 3 and r.events == [] and r.passes == 0
    r = simulate(data, delay=lambda c: None if c.sequence == 2 else 0, max_passes=100)
    assert r.status == "stuck" and len(r.commands) == 3
    for never in [None, "never"]:
        r = simulate(data, delay=never, max_passes=10)
        assert r.status == "stuck" and len(r.commands) == 1 and r.halt is None


def test_deadline_cancel_and_ticks():
    data = one_command()
    # S13: deadline 2 passes, delay 3 >= 2: late in pass 2, reason 8 at the
    # SUBMIT (pc 0), the grid stopped, aux = 8 | 0 << 8.
    r = simulate(data, delay=3, deadline_passes=2)
    assert (r.status, r.error, r.stopped) == ("error", StreamError(8, 0), True)
    assert r.events == [Event(kind=6, req=5, auxiliary=8, pass_index=2)] and r.passes == 3
    # The header's deadline 0 stands for default_deadline_passes (S13).
    r = simulate(data, delay=3, default_deadline_passes=3)
    assert r.error == StreamError(8, 0)
    assert simulate(data, delay=3, default_deadline_passes=4).status == "ended"
    # S15: cancel in pass 2 ends the stream at its WAIT (pc 1), aux 10 | 1 << 8.
    r = simulate(data, delay=10, cancel_pass=2)
    assert (r.status, r.error, r.stopped) == ("error", StreamError(10, 1), False)
    assert r.events == [Event(kind=6, req=5, auxiliary=266, pass_index=2)] and r.passes == 3
    # TIME after the ack of pass 0 + 1 + 2 = 3: 3 * ticks_per_pass.
    s = Stream(0, 100, 1, 0)
    [t] = s.registers(1)
    s.submit(1, group=(0, 1))
    s.wait(0)
    s.time(t)
    s.halt(t)
    assert s.simulate(delay=2, ticks_per_pass=7).halt == 21


def test_a_rejected_upload():
    # P1: one error event at pass 0 with the header's req (0 for a short upload).
    r = simulate(b"")
    assert r.check == r.error == StreamError(1, 0)
    assert (r.status, r.passes, r.halt, r.stopped, r.commands) == ("error", 1, None, False, [])
    assert r.events == [Event(kind=6, req=0, auxiliary=1, pass_index=0)]
    assert simulate(one_command(), region_size=64).check == StreamError(1, 0)


def test_an_exception_in_a_callable_abandons_the_run():
    calls = []

    def delay(command):
        calls.append(command.sequence)
        if command.sequence == 2:
            raise RuntimeError("no delay for you")
        return 0

    with pytest.raises(RuntimeError, match="no delay for you") as info:
        simulate(five_commands(), delay=delay)
    # The callable is not called again after its first exception.
    assert calls == [0, 1, 2]
    assert any("delay" in note and "sequence 2" in note for note in info.value.__notes__)

    def result(command):
        raise KeyError(command.sequence)

    with pytest.raises(KeyError):
        simulate(one_command(), result=result)
    # The package goes on as before.
    assert simulate(five_commands()).halt == 5


@pytest.mark.parametrize("bad, error", [("3", TypeError), (1.0, TypeError), (True, TypeError),
                                        (-1, ValueError), (1 << 32, ValueError)])
def test_a_callable_that_returns_a_bad_value(bad, error):
    with pytest.raises(error, match="delay.*sequence 0"):
        simulate(five_commands(), delay=lambda c: bad)
    with pytest.raises(error, match="result.*sequence 0"):
        simulate(one_command(), result=lambda c: bad)
    with pytest.raises(TypeError, match="result"):
        simulate(one_command(), result=lambda c: None)


@pytest.mark.parametrize("keywords, param", [
    ({"core_count": 0}, "core_count"), ({"core_count": 65536}, "core_count"),
    ({"core_count": True}, "core_count"), ({"core_count": "119"}, "core_count"),
    ({"delay": ("cycle", 1, 0)}, "delay"), ({"delay": []}, "delay"), ({"delay": -1}, "delay"),
    ({"delay": 1 << 32}, "delay"), ({"delay": "sometimes"}, "delay"), ({"delay": [1, "2"]}, "delay"),
    ({"delay": 1.5}, "delay"), ({"delay": ("cycle", 1)}, "delay"),
    ({"result": ("arg", 10)}, "result"), ({"result": []}, "result"), ({"result": "one"}, "result"),
    ({"result": -1}, "result"), ({"result": [None]}, "result"), ({"result": {"arg": -1}}, "result"),
    ({"deadline_passes": 0}, "deadline_passes"), ({"default_deadline_passes": 0}, "default_deadline_passes"),
    ({"max_passes": 0}, "max_passes"), ({"turn_budget": 0}, "turn_budget"),
    ({"ticks_per_pass": 1 << 32}, "ticks_per_pass"), ({"region_size": -1}, "region_size"),
    ({"cancel_pass": -1}, "cancel_pass"), ({"dispatch": "fast"}, "dispatch"),
])
def test_bad_parameters_are_value_errors_naming_the_parameter(keywords, param):
    calls = []
    spy = "result" if param == "delay" else "delay"
    with pytest.raises(ValueError, match=param):
        simulate(one_command(), **{spy: lambda c: calls.append(c) or 0, **keywords})
    assert calls == []  # nothing ran
    # The spy does run when the parameters are good.
    simulate(one_command(), **{spy: lambda c: calls.append(c) or 0})
    assert len(calls) == 1


def test_unknown_keywords_are_type_errors():
    with pytest.raises(TypeError):
        simulate(one_command(), cores=3)
    with pytest.raises(TypeError):
        simulate(one_command(), 3)


# The ten parameters of docs/python.md ("Parameters"), keyword-only, in
# the same order wherever they are taken.
PARAMETERS = [
    "delay", "result", "deadline_passes", "default_deadline_passes",
    "cancel_pass", "core_count", "ticks_per_pass", "max_passes",
    "region_size", "turn_budget",
]


def test_the_signatures_name_every_keyword_and_the_default_dispatch():
    import inspect

    def keywords(f):
        params = inspect.signature(f).parameters.values()
        return {p.name: p for p in params if p.kind is p.KEYWORD_ONLY}

    for f, rest in [
        (kmst.simulate, ["dispatch"]),
        (kmst.Stream.simulate, ["dispatch"]),
        (kmst.Scenario, []),
    ]:
        kw = keywords(f)
        assert list(kw) == PARAMETERS + rest, f
        if rest:
            # The default variant, shown as the value it is (docs/python.md).
            assert kw["dispatch"].default == "tail", f


def test_values_equality_and_repr():
    r = simulate(one_command(), delay=3, result=("arg", 0))
    assert r == simulate(one_command(), delay=3, result=("arg", 0), dispatch="reference")
    assert r != simulate(one_command(), delay=2, result=("arg", 0))
    assert repr(r) == ("SimResult(commands=[1 command], events=[1 event], status='ended', "
                       "passes=5, error=None, halt=7, stopped=False)")
    assert repr(FIRST) == ("SubmittedCommand(sequence=0, slot=0, handler=5, first=0, count=1, "
                           "flags=4, args=[7, 0, 0, 0, 0, 0, 0, 0, 0, 0], pass_index=0, pc=0, "
                           "queued=False)")
    assert hash(FIRST) == hash(r.commands[0]) and len({FIRST, r.commands[0]}) == 1
    assert repr(r.events[0]) == "Event(kind=5, req=5, auxiliary=7, pass_index=4)"
    assert r.events[0].kind == kmst.KM_EVENT_STREAM_END
    assert r.commands is r.commands
    with pytest.raises(TypeError):
        hash(r)

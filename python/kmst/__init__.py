"""Micro-op streams on kmst's engine.

The API of the specification (docs/spec.md "The builder" and "The
simulator"): build a stream with `Stream`, encode it, check it with `check` /
`check_run`, and run it with `simulate` (or `Stream.simulate`) on the fast
interpreter (`dispatch="tail"`, the default; `"switch"`, `"threaded"`,
`"subroutine"`, `"indirect"`, `"loop_match"`, `"jit"`, `"tiered"`) or the reference model (`dispatch="reference"`). Kernel scenarios (several streams
and the host, S26..S36) run with `simulate_scenario` or `Scenario`. A
`Machine` runs either in pieces: it stops between two passes, shows its
state, and saves and restores itself (`snapshot`, `restore`, pickle). See
docs/python.md.
"""

from kmst._kmst import (
    KM_EVENT_STREAM,
    KM_EVENT_STREAM_END,
    KM_EVENT_STREAM_ERROR,
    KM_EVENT_TIMEOUT,
    BuildError,
    Event,
    HostOutcome,
    Label,
    Machine,
    Register,
    Scenario,
    ScenarioCommand,
    ScenarioError,
    ScenarioResult,
    SimResult,
    Stream,
    StreamError,
    StreamFormatError,
    StreamOutcome,
    SubmittedCommand,
    check,
    check_run,
    simulate,
    simulate_scenario,
)

__all__ = [
    "KM_EVENT_STREAM",
    "KM_EVENT_STREAM_END",
    "KM_EVENT_STREAM_ERROR",
    "KM_EVENT_TIMEOUT",
    "BuildError",
    "Event",
    "HostOutcome",
    "Label",
    "Machine",
    "Register",
    "Scenario",
    "ScenarioCommand",
    "ScenarioError",
    "ScenarioResult",
    "SimResult",
    "Stream",
    "StreamError",
    "StreamFormatError",
    "StreamOutcome",
    "SubmittedCommand",
    "check",
    "check_run",
    "simulate",
    "simulate_scenario",
]

//! The answer of a kernel scenario as Python objects (S36).
//!
//! `ScenarioResult` keeps the engine's answer, as `SimResult` does, and makes
//! its Python lists the first time they are read; `to_json()` is the
//! engine's S36 writer. `StreamOutcome` (one per accepted RUN),
//! `HostOutcome` (one per host command) and `ScenarioCommand` (a
//! `SubmittedCommand` and the stream that made it) are frozen values with
//! equality, hashing and a `repr` in constructor form. S36's key `pass` is a
//! Python keyword: the attribute is `pass_`.

use std::hash::{Hash, Hasher};

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyList;

use crate::classes::{answer_class, command_getters, field_getters, list_getters, value_class};
use crate::engine::{
    self, HostOutcome, Outcome, Reason, ScenarioCommand, ScenarioResult, Status, StreamOutcome,
    scenario_params_json,
};
use crate::results::{PyCommand, PyEvent, command_repr, count, none_or, py_bool};
use crate::stream_error::{PyStreamError, error_object, error_repr};

fn status_of(name: &str) -> PyResult<Status> {
    match name {
        "ended" => Ok(Status::Ended),
        "error" => Ok(Status::Error),
        "stuck" => Ok(Status::Stuck),
        _ => Err(PyValueError::new_err(format!(
            "status {name:?} is not one of ended, error, stuck"
        ))),
    }
}

value_class! {
    /// One accepted RUN (S36 `streams`).
    "StreamOutcome", PyStreamOutcome(StreamOutcome)
}

impl Hash for PyStreamOutcome {
    fn hash<H: Hasher>(&self, h: &mut H) {
        let s = &self.0;
        (s.req, s.offset, s.length, s.pass, s.status, s.error, s.halt).hash(h);
    }
}

#[pymethods]
impl PyStreamOutcome {
    #[new]
    #[pyo3(signature = (req, offset, length, pass_, status, error=None, halt=None))]
    fn new(
        req: u32,
        offset: u32,
        length: u32,
        pass_: u64,
        status: &str,
        error: Option<PyRef<'_, PyStreamError>>,
        halt: Option<u32>,
    ) -> PyResult<Self> {
        Ok(PyStreamOutcome(StreamOutcome {
            req,
            offset,
            length,
            pass: pass_,
            status: status_of(status)?,
            error: error.map(|e| e.0),
            halt,
        }))
    }

    /// `"ended"`, `"error"` or `"stuck"` (still active when the run ended, S35).
    #[getter]
    fn status(&self) -> &'static str {
        self.0.status.as_str()
    }
    #[getter]
    fn error(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        error_object(py, self.0.error)
    }
    fn __repr__(&self) -> String {
        let s = &self.0;
        format!(
            "StreamOutcome(req={}, offset={}, length={}, pass_={}, status='{}', error={}, halt={})",
            s.req,
            s.offset,
            s.length,
            s.pass,
            s.status.as_str(),
            error_repr(&s.error),
            none_or(s.halt)
        )
    }
}

field_getters! {
    impl PyStreamOutcome;
    at [0];
    /// The header's req.
    req: u32,
    offset: u32,
    length: u32,
    /// The pass it started in (S36's `pass`).
    pass_ = pass: u64,
    /// The full 32-bit halt register when HALT ended the stream, else `None`.
    halt: Option<u32>,
}

value_class! {
    /// What became of one host command (S36 `host`).
    "HostOutcome", PyHostOutcome(HostOutcome)
}

impl Hash for PyHostOutcome {
    fn hash<H: Hasher>(&self, h: &mut H) {
        let o = &self.0;
        let outcome = match o.outcome {
            Outcome::Taken => (0, None),
            Outcome::Rejected(r) => (1, Some(r)),
            Outcome::Waiting => (2, None),
        };
        (o.pass, outcome, o.stream).hash(h);
    }
}

#[pymethods]
impl PyHostOutcome {
    #[new]
    #[pyo3(signature = (pass_, outcome, reason=None, stream=None))]
    fn new(
        pass_: Option<u64>,
        outcome: &str,
        reason: Option<u8>,
        stream: Option<usize>,
    ) -> PyResult<Self> {
        let outcome = match (outcome, reason) {
            ("taken", None) => Outcome::Taken,
            ("waiting", None) => Outcome::Waiting,
            ("rejected", Some(r)) => Outcome::Rejected(
                Reason::from_u8(r)
                    .ok_or_else(|| PyValueError::new_err(format!("reason {r} is not in 1..=11")))?,
            ),
            _ => {
                return Err(PyValueError::new_err(format!(
                    "outcome {outcome:?} with reason {}: a reason goes with \"rejected\" only \
                     (outcomes: taken, rejected, waiting)",
                    none_or(reason)
                )));
            }
        };
        Ok(PyHostOutcome(HostOutcome {
            pass: pass_,
            outcome,
            stream,
        }))
    }

    /// `"taken"`, `"rejected"` or `"waiting"`.
    #[getter]
    fn outcome(&self) -> &'static str {
        match self.0.outcome {
            Outcome::Taken => "taken",
            Outcome::Rejected(_) => "rejected",
            Outcome::Waiting => "waiting",
        }
    }
    /// The reason number when rejected, else `None`.
    #[getter]
    fn reason(&self) -> Option<u8> {
        match self.0.outcome {
            Outcome::Rejected(r) => Some(r.number()),
            _ => None,
        }
    }

    fn __repr__(&self) -> String {
        format!(
            "HostOutcome(pass_={}, outcome='{}', reason={}, stream={})",
            none_or(self.0.pass),
            self.outcome(),
            none_or(self.reason()),
            none_or(self.0.stream)
        )
    }
}

field_getters! {
    impl PyHostOutcome;
    at [0];
    /// The pass it was taken or rejected in; `None` if neither.
    pass_ = pass: Option<u64>,
    /// For a taken RUN, its index in `streams`.
    stream: Option<usize>,
}

value_class! {
    /// A command that took a slot (S19) and the stream that made it (S36).
    "ScenarioCommand", PyScenarioCommand(ScenarioCommand)
}

impl Hash for PyScenarioCommand {
    fn hash<H: Hasher>(&self, h: &mut H) {
        (self.0.command, self.0.stream).hash(h);
    }
}

#[pymethods]
impl PyScenarioCommand {
    #[new]
    #[pyo3(signature = (command, stream=None))]
    fn new(command: PyRef<'_, PyCommand>, stream: Option<usize>) -> Self {
        PyScenarioCommand(ScenarioCommand {
            command: command.0,
            stream,
        })
    }

    /// The `SubmittedCommand` record.
    #[getter]
    fn command(&self) -> PyCommand {
        PyCommand(self.0.command)
    }

    fn __repr__(&self) -> String {
        format!(
            "ScenarioCommand({}, stream={})",
            command_repr(&self.0.command),
            none_or(self.0.stream)
        )
    }
}

field_getters! {
    impl PyScenarioCommand;
    at [0];
    /// The index in `streams` of the stream that made it; `None` for the host.
    stream: Option<usize>,
}

command_getters! {
    impl PyScenarioCommand;
    at [0.command];
    args [];
    pc [
        /// The SUBMIT or ENQUEUE that made it; 0 for the host.
    ];
}

answer_class! {
    /// The answer of `simulate_scenario` (S36).
    "ScenarioResult", PyScenarioResult(ScenarioResult);
    lists [streams, host, commands, events];
    compared [streams, host, commands, events, stopped, passes];
    /// The parameters as a dict with S36's keys (a callable appears as itself).
    params scenario_params_json;
    /// The S36 answer JSON, as the engine writes it. A run with a callable
    /// `delay` or `result` has no JSON form: ValueError.
    to_json engine::scenario_result_json;
}

list_getters! {
    impl PyScenarioResult;
    /// One `StreamOutcome` per accepted RUN, in start order.
    streams: PyStreamOutcome,
    /// One `HostOutcome` per host command, in list order.
    host: PyHostOutcome,
    /// Every command that took a slot, in order, as `ScenarioCommand`.
    commands: PyScenarioCommand,
    /// Every event, in the order posted.
    events: PyEvent,
}

field_getters! {
    impl PyScenarioResult;
    at [inner];
    /// True when a late command stopped the grid (S33).
    stopped: bool,
    /// The pass index of the last event plus one (0 if none).
    passes: u64,
}

#[pymethods]
impl PyScenarioResult {
    fn __repr__(&self) -> String {
        let r = &self.inner;
        format!(
            "ScenarioResult(streams=[{}], host=[{}], commands=[{}], events=[{}], stopped={}, passes={})",
            count(r.streams.len(), "stream"),
            count(r.host.len(), "host command"),
            count(r.commands.len(), "command"),
            count(r.events.len(), "event"),
            py_bool(r.stopped),
            r.passes
        )
    }
}

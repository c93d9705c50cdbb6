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
use std::sync::OnceLock;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use crate::engine::{
    self, HostOutcome, Outcome, Reason, ScenarioCommand, ScenarioResult, Status, StreamOutcome,
    scenario_params_json,
};
use crate::errors::params_error;
use crate::results::{
    PyCommand, PyEvent, command_getters, command_repr, count, error_object, error_repr, list_once,
    none_or, params_dict, py_bool,
};
use crate::simulate::Callables;

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

/// One accepted RUN (S36 `streams`).
#[pyclass(
    name = "StreamOutcome",
    module = "kmst",
    frozen,
    eq,
    hash,
    skip_from_py_object
)]
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct PyStreamOutcome(pub StreamOutcome);

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
        error: Option<PyRef<'_, crate::results::PyStreamError>>,
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

    /// The header's req.
    #[getter]
    fn req(&self) -> u32 {
        self.0.req
    }
    #[getter]
    fn offset(&self) -> u32 {
        self.0.offset
    }
    #[getter]
    fn length(&self) -> u32 {
        self.0.length
    }
    /// The pass it started in (S36's `pass`).
    #[getter]
    fn pass_(&self) -> u64 {
        self.0.pass
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
    /// The full 32-bit halt register when HALT ended the stream, else `None`.
    #[getter]
    fn halt(&self) -> Option<u32> {
        self.0.halt
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

/// What became of one host command (S36 `host`).
#[pyclass(
    name = "HostOutcome",
    module = "kmst",
    frozen,
    eq,
    hash,
    skip_from_py_object
)]
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct PyHostOutcome(pub HostOutcome);

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

    /// The pass it was taken or rejected in; `None` if neither.
    #[getter]
    fn pass_(&self) -> Option<u64> {
        self.0.pass
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
    /// For a taken RUN, its index in `streams`.
    #[getter]
    fn stream(&self) -> Option<usize> {
        self.0.stream
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

/// A command that took a slot (S19) and the stream that made it (S36).
#[pyclass(
    name = "ScenarioCommand",
    module = "kmst",
    frozen,
    eq,
    hash,
    skip_from_py_object
)]
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct PyScenarioCommand(pub ScenarioCommand);

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
    /// The index in `streams` of the stream that made it; `None` for the host.
    #[getter]
    fn stream(&self) -> Option<usize> {
        self.0.stream
    }

    fn __repr__(&self) -> String {
        format!(
            "ScenarioCommand({}, stream={})",
            command_repr(&self.0.command),
            none_or(self.0.stream)
        )
    }
}

command_getters! {
    impl PyScenarioCommand;
    command 0.command;
    args [];
    pc [
        /// The SUBMIT or ENQUEUE that made it; 0 for the host.
    ];
}

/// The answer of `simulate_scenario` (S36).
#[pyclass(name = "ScenarioResult", module = "kmst", frozen)]
pub struct PyScenarioResult {
    inner: ScenarioResult,
    callables: Callables,
    streams: OnceLock<Py<PyList>>,
    host: OnceLock<Py<PyList>>,
    commands: OnceLock<Py<PyList>>,
    events: OnceLock<Py<PyList>>,
}

impl PyScenarioResult {
    pub fn new(inner: ScenarioResult, callables: Callables) -> Self {
        PyScenarioResult {
            inner,
            callables,
            streams: OnceLock::new(),
            host: OnceLock::new(),
            commands: OnceLock::new(),
            events: OnceLock::new(),
        }
    }

    /// The answer without its parameters: what two runs are compared by.
    fn answer(&self) -> impl PartialEq + '_ {
        let r = &self.inner;
        (
            &r.streams,
            &r.host,
            &r.commands,
            &r.events,
            r.stopped,
            r.passes,
        )
    }
}

#[pymethods]
impl PyScenarioResult {
    /// One `StreamOutcome` per accepted RUN, in start order.
    #[getter]
    fn streams(&self, py: Python<'_>) -> PyResult<Py<PyList>> {
        list_once(py, &self.streams, &self.inner.streams, |s| {
            PyStreamOutcome(*s)
        })
    }

    /// One `HostOutcome` per host command, in list order.
    #[getter]
    fn host(&self, py: Python<'_>) -> PyResult<Py<PyList>> {
        list_once(py, &self.host, &self.inner.host, |h| PyHostOutcome(*h))
    }

    /// Every command that took a slot, in order, as `ScenarioCommand`.
    #[getter]
    fn commands(&self, py: Python<'_>) -> PyResult<Py<PyList>> {
        list_once(py, &self.commands, &self.inner.commands, |c| {
            PyScenarioCommand(*c)
        })
    }

    /// Every event, in the order posted.
    #[getter]
    fn events(&self, py: Python<'_>) -> PyResult<Py<PyList>> {
        list_once(py, &self.events, &self.inner.events, |e| PyEvent(*e))
    }

    /// True when a late command stopped the grid (S33).
    #[getter]
    fn stopped(&self) -> bool {
        self.inner.stopped
    }

    /// The pass index of the last event plus one (0 if none).
    #[getter]
    fn passes(&self) -> u64 {
        self.inner.passes
    }

    /// The parameters as a dict with S36's keys (a callable appears as itself).
    #[getter]
    fn params<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        params_dict(
            py,
            &self.inner.params,
            &self.callables,
            scenario_params_json,
        )
    }

    /// The S36 answer JSON, as the engine writes it. A run with a callable
    /// `delay` or `result` has no JSON form: ValueError.
    fn to_json(&self) -> PyResult<String> {
        engine::scenario_result_json(&self.inner).map_err(params_error)
    }

    fn __eq__(&self, other: PyRef<'_, PyScenarioResult>) -> bool {
        self.answer() == other.answer()
    }

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

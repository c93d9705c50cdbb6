//! The answer of a run as Python objects (docs/spec.md "The simulator", S19, S22, S24).
//!
//! `SubmittedCommand` and `Event` are small frozen values with equality,
//! hashing and a `repr` in constructor form (`StreamError`, which a run's
//! answer holds too, is stream_error.rs's). `SimResult` keeps the
//! engine's answer and makes the Python lists of commands and events the first
//! time they are asked for, so a run that only looks at `status` or calls
//! `to_json()` pays for no Python objects.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyList;

use crate::classes::{answer_class, command_getters, field_getters, list_getters, value_class};
use crate::engine::{self, Event, Params, SimResult, SubmittedCommand};
use crate::stream_error::{error_object, error_repr};

/// "1 command", "2 commands".
pub fn count(n: usize, what: &str) -> String {
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
}

pub fn py_bool(b: bool) -> &'static str {
    if b { "True" } else { "False" }
}

/// `None` or the value, as Python writes them.
pub fn none_or<T: ToString>(v: Option<T>) -> String {
    v.map_or_else(|| "None".to_owned(), |v| v.to_string())
}

/// The `repr` of a `SubmittedCommand`, in constructor form.
pub fn command_repr(c: &SubmittedCommand) -> String {
    format!(
        "SubmittedCommand(sequence={}, slot={}, handler={}, first={}, count={}, flags={}, args={:?}, pass_index={}, pc={}, queued={})",
        c.sequence,
        c.slot,
        c.handler,
        c.first,
        c.count,
        c.flags,
        c.args,
        c.pass_index,
        c.pc,
        py_bool(c.queued)
    )
}

value_class! {
    /// One command that took a completion slot (S19).
    "SubmittedCommand", PyCommand(SubmittedCommand), Hash
}

#[pymethods]
impl PyCommand {
    #[new]
    #[pyo3(signature = (sequence, slot, handler, first, count, flags, args, pass_index, pc, queued))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        sequence: u64,
        slot: u8,
        handler: u8,
        first: u32,
        count: u32,
        flags: u8,
        args: Vec<u32>,
        pass_index: u64,
        pc: u32,
        queued: bool,
    ) -> PyResult<Self> {
        if args.len() > 10 {
            return Err(PyValueError::new_err(format!(
                "args: {} words, a command has ten",
                args.len()
            )));
        }
        let mut words = [0u32; 10];
        words[..args.len()].copy_from_slice(&args);
        Ok(PyCommand(SubmittedCommand {
            sequence,
            slot,
            handler,
            first,
            count,
            flags,
            args: words,
            pass_index,
            pc,
            queued,
        }))
    }

    fn __repr__(&self) -> String {
        command_repr(&self.0)
    }
}

command_getters! {
    impl PyCommand;
    at [0];
    args [
        /// The ten patched argument words.
    ];
    pc [];
}

value_class! {
    /// One posted event (S22).
    "Event", PyEvent(Event), Hash
}

#[pymethods]
impl PyEvent {
    #[new]
    #[pyo3(signature = (kind, req, auxiliary, pass_index))]
    fn new(kind: u8, req: u32, auxiliary: u32, pass_index: u64) -> PyResult<Self> {
        if auxiliary > 0xFF_FFFF {
            return Err(PyValueError::new_err(format!(
                "auxiliary {auxiliary} does not fit 24 bits"
            )));
        }
        Ok(PyEvent(Event {
            kind,
            req,
            auxiliary,
            pass_index,
        }))
    }

    fn __repr__(&self) -> String {
        let e = &self.0;
        format!(
            "Event(kind={}, req={}, auxiliary={}, pass_index={})",
            e.kind, e.req, e.auxiliary, e.pass_index
        )
    }
}

field_getters! {
    impl PyEvent;
    at [0];
    kind: u8,
    req: u32,
    /// The 24-bit auxiliary.
    auxiliary: u32,
    pass_index: u64,
}

answer_class! {
    /// The answer of `simulate`: `SimResult(commands, events, status, passes, error, halt, stopped)`.
    "SimResult", PySimResult(SimResult);
    lists [commands, events];
    compared [check, commands, events, status, passes, error, halt, stopped];
    /// The parameters of the run as a dict with the keys of S24 (a callable
    /// `delay` or `result` appears as itself).
    params Params::to_json_value;
    /// The S24 JSON of the run, exactly as `kmst run --json` prints it. A run
    /// with a callable `delay` or `result` has no JSON form: ValueError.
    to_json engine::result_json;
}

list_getters! {
    impl PySimResult;
    /// Every command submitted, in order.
    commands: PyCommand,
    /// Every event, in the order posted.
    events: PyEvent,
}

field_getters! {
    impl PySimResult;
    at [inner];
    /// The pass index of the last event plus one (0 if none).
    passes: u64,
    /// The full 32-bit halt register when HALT ended the stream, else `None`.
    halt: Option<u32>,
    /// True when a late command stopped the grid.
    stopped: bool,
}

#[pymethods]
impl PySimResult {
    /// `"ended"`, `"error"` or `"stuck"`.
    #[getter]
    fn status(&self) -> &'static str {
        self.inner.status.as_str()
    }

    /// The stream's error, or `None`.
    #[getter]
    fn error(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        error_object(py, self.inner.error)
    }

    /// The check's error, or `None` when the check accepted the upload.
    #[getter]
    fn check(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        error_object(py, self.inner.check)
    }

    fn __repr__(&self) -> String {
        let r = &self.inner;
        format!(
            "SimResult(commands=[{}], events=[{}], status='{}', passes={}, error={}, halt={}, stopped={})",
            count(r.commands.len(), "command"),
            count(r.events.len(), "event"),
            r.status.as_str(),
            r.passes,
            error_repr(&r.error),
            none_or(r.halt),
            py_bool(r.stopped)
        )
    }
}

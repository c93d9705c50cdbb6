//! `StreamError`: the reason and program counter of an error event
//! (docs/spec.md "Events and errors"), and everything that makes one: the
//! class's constructor, [`error_object`] (the answer of `check`, the `error`
//! and `check` of a `SimResult`, the `error` of a `StreamOutcome`) and
//! [`format_error`] (the `StreamFormatError` that `Stream.decode` raises for
//! an upload the check rejects, with the `StreamError` as its `error`).
//!
//! A module of its own because an exception and the answers' classes both
//! carry the value: it stands above the exceptions (errors.rs) and below the
//! answers (results.rs, scenario_result.rs).

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::classes::value_class;
use crate::engine::{Reason, StreamError, StreamFormatError};
use crate::errors::exceptions;

value_class! {
    /// The reason and program counter of an error event (docs/spec.md "Events and errors").
    "StreamError", PyStreamError(StreamError), Hash
}

#[pymethods]
impl PyStreamError {
    #[new]
    fn new(reason: u8, pc: u32) -> PyResult<Self> {
        let reason = Reason::from_u8(reason)
            .ok_or_else(|| PyValueError::new_err(format!("reason {reason} is not in 1..=11")))?;
        Ok(PyStreamError(StreamError { reason, pc }))
    }

    /// The reason number, 1..=11.
    #[getter]
    fn reason(&self) -> u8 {
        self.0.reason.number()
    }
    #[getter]
    fn pc(&self) -> u32 {
        self.0.pc
    }
    /// The reason's meaning, as in the specification's table.
    #[getter]
    fn description(&self) -> &'static str {
        self.0.reason.describe()
    }

    fn __repr__(&self) -> String {
        error_repr(&Some(self.0))
    }

    fn __str__(&self) -> String {
        self.0.to_string()
    }
}

/// `None` or the `StreamError` of `e`.
pub fn error_object(py: Python<'_>, e: Option<StreamError>) -> PyResult<Py<PyAny>> {
    match e {
        None => Ok(py.None()),
        Some(e) => Ok(Py::new(py, PyStreamError(e))?.into_any()),
    }
}

/// `None` or the `repr` of a `StreamError`.
pub fn error_repr(e: &Option<StreamError>) -> String {
    match e {
        None => "None".to_owned(),
        Some(e) => format!("StreamError(reason={}, pc={})", e.reason.number(), e.pc),
    }
}

/// A rejected upload as `StreamFormatError` with `reason`, `pc` and `error`.
pub fn format_error(py: Python<'_>, e: StreamFormatError) -> PyErr {
    let err = exceptions::StreamFormatError::new_err(e.to_string());
    let instance = err.value(py);
    let _ = instance.setattr("reason", e.0.reason.number());
    let _ = instance.setattr("pc", e.0.pc);
    if let Ok(obj) = Py::new(py, PyStreamError(e.0)) {
        let _ = instance.setattr("error", obj);
    }
    err
}

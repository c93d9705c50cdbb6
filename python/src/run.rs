//! One run of an upload on the engine, for `simulate` and `Stream.simulate`
//! ([`run`]): the `dispatch` variant ([`variant`]), the parameters as
//! params.rs reads them, and the callables installed ([`Callables::install`],
//! which `Scenario` uses for its runs too).
//!
//! A callable given for `delay` or `result` runs inside the engine as a Rust
//! closure: the first exception it raises (or the first bad value it
//! returns) is kept, every later command gets a harmless value without
//! calling Python again, and the exception is raised when the run returns, so
//! no error crosses the engine and the run is abandoned cleanly. Without a
//! callable the run releases the GIL.

use std::sync::{Arc, Mutex};

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyInt};

use crate::engine::{self, Delay, Params, ResultModel, SubmittedCommand, Variant};
use crate::errors::repr;
use crate::params::{Callables, Keywords, params_of};
use crate::results::{PyCommand, PySimResult};

/// The first error a callable raised during a run.
#[derive(Default)]
pub struct Failure(Mutex<Option<PyErr>>);

impl Failure {
    fn happened(&self) -> bool {
        self.0.lock().map_or(true, |f| f.is_some())
    }

    fn keep(&self, e: PyErr) {
        if let Ok(mut f) = self.0.lock() {
            f.get_or_insert(e);
        }
    }

    /// The first failure of the run, if any (raised once the run has returned).
    pub fn take(&self) -> Option<PyErr> {
        self.0.lock().ok().and_then(|mut f| f.take())
    }
}

/// Calls `f(command)`; an exception gets a note naming the model and the command.
fn call(py: Python<'_>, f: &Py<PyAny>, param: &str, c: &SubmittedCommand) -> PyResult<Py<PyAny>> {
    let command = Py::new(py, PyCommand(*c))?;
    f.call1(py, (command,)).inspect_err(|e| {
        // BaseException.add_note (Python 3.11+), called by name: the
        // limited API (abi3) has no add_note before 3.11; older Pythons go
        // without the note.
        let _ = e.value(py).call_method1(
            "add_note",
            (format!(
                "raised by the `{param}` callable for the command of sequence {}",
                c.sequence
            ),),
        );
    })
}

/// What a callable returned, as an int in 0..=2^32-1 (or None when `none_ok`).
fn returned(
    py: Python<'_>,
    v: &Py<PyAny>,
    param: &str,
    none_ok: bool,
    c: &SubmittedCommand,
) -> PyResult<Option<u32>> {
    let v = v.bind(py);
    if v.is_none() && none_ok {
        return Ok(None);
    }
    let what = || {
        format!(
            "the `{param}` callable returned {} for the command of sequence {}",
            repr(v),
            c.sequence
        )
    };
    let expected = if none_ok {
        "an int in 0..=4294967295 or None"
    } else {
        "an int in 0..=4294967295"
    };
    if !v.is_instance_of::<PyInt>() || v.is_instance_of::<PyBool>() {
        return Err(PyTypeError::new_err(format!(
            "{}; expected {expected}",
            what()
        )));
    }
    match v.extract::<u32>() {
        Ok(n) => Ok(Some(n)),
        Err(_) => Err(PyValueError::new_err(format!(
            "{}; expected {expected}",
            what()
        ))),
    }
}

impl Callables {
    /// Installs the callables in `p` as closures (`Delay::Custom`,
    /// `ResultModel::Custom`) that keep their first failure in the returned
    /// `Failure` and give harmless values after it (see the module doc). Each
    /// run installs its own, so a failure belongs to one run.
    pub fn install(&self, py: Python<'_>, p: &mut Params) -> Arc<Failure> {
        let failure = Arc::new(Failure::default());
        if let Some(f) = &self.delay {
            let f = f.clone_ref(py);
            let failure = Arc::clone(&failure);
            p.delay = Delay::Custom(Arc::new(move |c: &SubmittedCommand| {
                if failure.happened() {
                    return Some(0);
                }
                Python::attach(|py| {
                    let v = call(py, &f, "delay", c)?;
                    returned(py, &v, "delay", true, c)
                })
                .unwrap_or_else(|e| {
                    failure.keep(e);
                    Some(0)
                })
            }));
        }
        if let Some(f) = &self.result {
            let f = f.clone_ref(py);
            let failure = Arc::clone(&failure);
            p.result = ResultModel::Custom(Arc::new(move |c: &SubmittedCommand| {
                if failure.happened() {
                    return 0;
                }
                Python::attach(|py| {
                    let v = call(py, &f, "result", c)?;
                    returned(py, &v, "result", false, c)
                })
                .map_or_else(
                    |e| {
                        failure.keep(e);
                        0
                    },
                    |v| v.unwrap_or(0),
                )
            }));
        }
        failure
    }
}

/// The variant called `name`, else a ValueError listing them.
pub fn variant(name: &str) -> PyResult<Variant> {
    Variant::from_name(name).ok_or_else(|| {
        let names = Variant::names();
        PyValueError::new_err(format!(
            "dispatch {:?} is not one of {}",
            name,
            names.join(", ")
        ))
    })
}

/// Runs `upload` with the parameters of `kw` (see the module doc).
pub fn run(
    py: Python<'_>,
    upload: &[u8],
    kw: Keywords<'_>,
    dispatch: &str,
) -> PyResult<PySimResult> {
    let variant = variant(dispatch)?;
    let (mut p, callables) = params_of(&kw)?;
    let answer = if callables.any() {
        let failure = callables.install(py, &mut p);
        let answer = engine::simulate(upload, &p, variant);
        if let Some(e) = failure.take() {
            return Err(e);
        }
        answer
    } else {
        py.detach(|| engine::simulate(upload, &p, variant))
    };
    Ok(PySimResult::new(answer, callables))
}

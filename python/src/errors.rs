//! The package's exceptions and the reading of Python integers.
//!
//! Builder errors become `BuildError` (a `ValueError`) with `field` and `value`
//! attributes and the engine's message; a rejected upload becomes
//! `StreamFormatError` (a `ValueError`) with `reason` and `pc` (made in
//! stream_error.rs, beside the `StreamError` it carries). Python integers
//! are unbounded while the engine takes `i64`/`u64`: a value beyond them is
//! passed on clamped (still out of every range) and the error names the value
//! the caller wrote, not the clamped one.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyInt};

use crate::engine::{BuildError, ParamsError};

/// The Python exception classes (named as in the specification).
pub mod exceptions {
    use pyo3::exceptions::PyValueError;

    pyo3::create_exception!(
        kmst,
        BuildError,
        PyValueError,
        "A builder call the check would reject; `field` names the field and `value` its value."
    );
    pyo3::create_exception!(
        kmst,
        ScenarioError,
        PyValueError,
        "A kernel scenario that cannot run (S26, S36): `entry` (\"params\", \"uploads[1]\", \"host[3]\", \"scenario\"), `field` (\"run.length\", \"offset\", ...; \"\" for the entry as a whole) and `problem`."
    );
    pyo3::create_exception!(
        kmst,
        StreamFormatError,
        PyValueError,
        "An upload the check rejects; `reason` and `pc` are those of the check's error event."
    );
}

/// An integer argument as the engine takes it, with what the caller wrote when
/// it had to be clamped.
pub struct Wide<T> {
    pub value: T,
    /// The caller's value, when `value` is a clamped stand-in for it.
    pub written: Option<Written>,
}

/// A Python integer beyond the engine's type and the stand-in passed for it.
pub struct Written {
    clamped: i128,
    obj: Py<PyAny>,
}

/// The Python integer `obj` (not a bool) as a big-enough Rust integer, or a TypeError naming `what`.
fn int_of<'py>(obj: &Bound<'py, PyAny>, what: &str) -> PyResult<Bound<'py, PyInt>> {
    if obj.is_instance_of::<PyBool>() {
        return Err(PyTypeError::new_err(format!(
            "{what}: expected an integer, found a bool ({obj})"
        )));
    }
    obj.cast::<PyInt>().cloned().map_err(|_| {
        PyTypeError::new_err(format!(
            "{what}: expected an integer, found {}",
            type_name(obj)
        ))
    })
}

/// The type name of `obj`, for messages.
pub fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map_or_else(|_| "?".to_owned(), |n| n.to_string())
}

/// The `repr` of `obj`, for messages.
pub fn repr(obj: &Bound<'_, PyAny>) -> String {
    obj.repr().map_or_else(|_| "?".into(), |r| r.to_string())
}

/// A Python int as `T` when it fits, else `clamp` of it with the int kept as written.
fn wide<'py, T>(
    obj: &Bound<'py, PyAny>,
    what: &str,
    clamp: impl FnOnce(&Bound<'py, PyInt>) -> PyResult<T>,
) -> PyResult<Wide<T>>
where
    T: Copy + Into<i128> + for<'a> FromPyObject<'a, 'py>,
{
    let int = int_of(obj, what)?;
    if let Ok(value) = int.extract::<T>() {
        return Ok(Wide {
            value,
            written: None,
        });
    }
    let value = clamp(&int)?;
    Ok(Wide {
        value,
        written: Some(Written {
            clamped: value.into(),
            obj: int.into_any().unbind(),
        }),
    })
}

/// A Python int as i64, clamped to i64::MIN / i64::MAX beyond them.
pub fn wide_i64(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Wide<i64>> {
    wide(obj, what, |int| {
        Ok(if int.lt(0)? { i64::MIN } else { i64::MAX })
    })
}

/// A Python int as u64, clamped to u64::MAX when negative or too large.
pub fn wide_u64(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Wide<u64>> {
    wide(obj, what, |_| Ok(u64::MAX))
}

/// A Python int in `0..=max` for a parameter, else a ValueError naming it (S25).
pub fn param_int(obj: &Bound<'_, PyAny>, param: &'static str, max: u64) -> PyResult<u64> {
    let bad = |message: String| params_error(ParamsError { param, message });
    if obj.is_instance_of::<PyBool>() || !obj.is_instance_of::<PyInt>() {
        return Err(bad(format!(
            "expected an integer, found {} {}",
            type_name(obj),
            repr(obj)
        )));
    }
    match obj.extract::<u64>() {
        Ok(v) if v <= max => Ok(v),
        _ => Err(bad(format!("{obj} is not in 0..={max}"))),
    }
}

/// The largest 32-bit value, as [`param_int`]'s `max`.
pub const U32: u64 = u32::MAX as u64;

/// The ValueError of a parameter `param` that is wrong for `message` (S25),
/// as [`params_error`] makes it.
pub fn bad_param(param: &'static str, message: impl Into<String>) -> PyErr {
    params_error(ParamsError {
        param,
        message: message.into(),
    })
}

/// A parameter outside its range (S25) as a ValueError, with `param` (its
/// S24 name) and `problem` (what is wrong) as attributes.
pub fn params_error(e: ParamsError) -> PyErr {
    let err = PyValueError::new_err(e.to_string());
    Python::attach(|py| {
        let instance = err.value(py);
        let _ = instance.setattr("param", e.param);
        let _ = instance.setattr("problem", &e.message);
    });
    err
}

/// The field a builder error names and its value (`None` where there is no one number).
fn field_and_value(e: &BuildError) -> (String, i128) {
    use BuildError::*;
    let (field, value): (String, i128) = match e {
        MaxSteps(v) => ("max_steps".into(), (*v).into()),
        Seed(v) => ("seed".into(), (*v).into()),
        Req(v) => ("req".into(), (*v).into()),
        Deadline(v) => ("deadline_microseconds".into(), (*v).into()),
        WaitCount(v) => ("wait count".into(), (*v).into()),
        Immediate { op, value } => (format!("{op} immediate"), (*value).into()),
        Constant(v) => ("constant".into(), (*v).into()),
        TooManyOps(n) => ("micro-ops".into(), *n as i128),
        Empty => ("micro-ops".into(), 0),
        TooManyRegisters { asked, .. } => ("registers".into(), *asked as i128),
        Handler(v) => ("handler".into(), (*v).into()),
        TooManyArgs(n) => ("args".into(), *n as i128),
        TooManyRegisterArgs(n) => ("register args".into(), *n as i128),
        Argument { index, value } => (format!("args[{index}]"), (*value).into()),
        GroupField { field, value } => (format!("group {field}"), (*value).into()),
        EnqueueCount(v) => ("count".into(), (*v).into()),
        UnboundLabel(l) | LabelRebound(l) | UnknownLabel(l) | JumpPastEnd { label: l, .. } => {
            ("label".into(), *l as i128)
        }
    };
    (field, value)
}

/// A builder error as `BuildError`. `written` pairs the field names of the
/// call's clamped arguments with them, so that the message and `value` give
/// the caller's own number rather than the stand-in.
pub fn build_error(py: Python<'_>, e: BuildError, written: &[(&str, &Option<Written>)]) -> PyErr {
    let (field, value) = field_and_value(&e);
    let mut message = e.to_string();
    let mut value_obj: Py<PyAny> = match value.into_pyobject(py) {
        Ok(v) => v.into_any().unbind(),
        Err(_) => py.None(),
    };
    let clamped = written.iter().find_map(|(name, w)| match w {
        Some(w) if *name == field && w.clamped == value => Some(w),
        _ => None,
    });
    if let Some(w) = clamped {
        message = message.replace(&value.to_string(), &w.obj.bind(py).to_string());
        value_obj = w.obj.clone_ref(py);
    }
    let err = exceptions::BuildError::new_err(message);
    let instance = err.value(py);
    let _ = instance.setattr("field", field);
    let _ = instance.setattr("value", value_obj);
    if let BuildError::TooManyRegisters { free, .. } = e {
        let _ = instance.setattr("free", free);
    }
    err
}

/// A scenario error as `ScenarioError` with `entry`, `field` and `problem`;
/// the message is the engine's (`host[3]: `run.length`: ...`).
pub fn scenario_error(entry: &str, field: &str, problem: &str) -> PyErr {
    let message = if field.is_empty() {
        format!("{entry}: {problem}")
    } else {
        format!("{entry}: `{field}`: {problem}")
    };
    let err = exceptions::ScenarioError::new_err(message);
    Python::attach(|py| {
        let instance = err.value(py);
        let _ = instance.setattr("entry", entry);
        let _ = instance.setattr("field", field);
        let _ = instance.setattr("problem", problem);
    });
    err
}

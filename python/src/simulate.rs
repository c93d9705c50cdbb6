//! `simulate`, `check` and `check_run` (docs/spec.md "The check", "The simulator").
//!
//! The module's three functions: the keywords of `simulate` are params.rs's
//! (S23..S25) and its run is run.rs's, shared with `Stream.simulate`.

use pyo3::prelude::*;

use crate::engine::{self, Params};
use crate::errors::{U32, bad_param, param_int, repr};
use crate::params::with_keywords;
use crate::results::PySimResult;
use crate::run::run;
use crate::stream::upload_bytes;
use crate::stream_error::error_object;

with_keywords! {
    /// `simulate(upload, *, delay=0, result="zero", ...)`: the check, then the run.
    #[pyfunction]
    pub fn simulate<'py>[py: Python<'py>, upload: &Bound<'py, PyAny>,]
        signature [upload]
        keywords kw, dispatch: &'py str = "tail"
        -> PyResult<PySimResult> {
        let data = upload_bytes(upload)?;
        run(py, &data, kw, dispatch)
    }
}

/// `check(data, region_size)`: None, or the `StreamError` of the check's error event.
#[pyfunction]
#[pyo3(signature = (data, region_size=None))]
pub fn check(
    py: Python<'_>,
    data: &Bound<'_, PyAny>,
    region_size: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let data = upload_bytes(data)?;
    let region_size = match region_size {
        Some(r) if !r.is_none() => param_int(r, "region_size", u64::MAX)?,
        _ => Params::default().region_size,
    };
    error_object(py, engine::check(&data, region_size).err())
}

/// `check_run(upload, offset, region_size, active=(), active_reqs=())`: `(error, req)`,
/// what the kernel answers a `KM_HANDLER_RUN` (S3, S6).
#[pyfunction]
#[pyo3(signature = (upload, offset, region_size, active=None, active_reqs=None))]
pub fn check_run(
    py: Python<'_>,
    upload: &Bound<'_, PyAny>,
    offset: &Bound<'_, PyAny>,
    region_size: &Bound<'_, PyAny>,
    active: Option<&Bound<'_, PyAny>>,
    active_reqs: Option<&Bound<'_, PyAny>>,
) -> PyResult<(Py<PyAny>, u32)> {
    let data = upload_bytes(upload)?;
    let offset = param_int(offset, "offset", u64::MAX)?;
    let region_size = param_int(region_size, "region_size", u64::MAX)?;
    let mut ranges = Vec::new();
    if let Some(active) = active {
        for range in active.try_iter()? {
            let range = range?;
            let pair: Vec<Bound<'_, PyAny>> = range.try_iter()?.collect::<PyResult<_>>()?;
            let [at, len] = pair.as_slice() else {
                return Err(bad_param(
                    "active",
                    format!("{} is not an (offset, length) pair", repr(&range)),
                ));
            };
            ranges.push((
                param_int(at, "active", u64::MAX)?,
                param_int(len, "active", u64::MAX)?,
            ));
        }
    }
    let mut reqs = Vec::new();
    if let Some(active_reqs) = active_reqs {
        for req in active_reqs.try_iter()? {
            reqs.push(param_int(&req?, "active_reqs", U32)? as u32);
        }
    }
    let (error, req) = engine::check_run(&data, offset, region_size, &ranges, &reqs);
    Ok((error_object(py, error)?, req))
}

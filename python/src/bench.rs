//! `_kmst._rust_time`: the same run as `simulate`, timed inside Rust.
//!
//! docs/python.md compares the package's time with the engine's own; this
//! times `repeat` runs of the engine on the same bytes and parameters with no
//! Python in between (the GIL released), so the difference is the binding's
//! cost. It is not part of the package's API.

use std::time::Instant;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::engine::{self, Params, Variant};
use crate::errors::params_error;
use crate::stream::upload_bytes;

/// Nanoseconds for `repeat` runs of `upload` with the S24 params object `params_json`.
#[pyfunction]
#[pyo3(signature = (upload, params_json="{}", repeat=1, dispatch="tail"))]
pub fn _rust_time(
    py: Python<'_>,
    upload: &Bound<'_, PyAny>,
    params_json: &str,
    repeat: u32,
    dispatch: &str,
) -> PyResult<u128> {
    let data = upload_bytes(upload)?;
    let value: serde_json::Value =
        serde_json::from_str(params_json).map_err(|e| PyValueError::new_err(e.to_string()))?;
    let params = Params::from_json_value(&value).map_err(params_error)?;
    let variant = Variant::from_name(dispatch)
        .ok_or_else(|| PyValueError::new_err(format!("dispatch {dispatch:?}")))?;
    Ok(py.detach(|| {
        let start = Instant::now();
        for _ in 0..repeat {
            std::hint::black_box(engine::simulate(
                std::hint::black_box(&data),
                &params,
                variant,
            ));
        }
        start.elapsed().as_nanos()
    }))
}

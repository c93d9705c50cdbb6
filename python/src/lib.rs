//! The Python package `kmst`: the specification's builder and simulator API
//! (docs/spec.md "The builder", "The simulator") on kmst's engine.
//!
//! - [`engine`]: everything taken from the engine, in one place.
//! - [`stream`]: `Stream`, `Register`, `Label` (the builder, S7..S10).
//! - [`simulate`]: `simulate`, `check`, `check_run`.
//! - [`run`]: one run on the engine, its callables installed, for `simulate` and `Stream.simulate`.
//! - [`params`]: the ten simulation keywords, a run's Python callables, an answer's `params` (S24, S25).
//! - [`models`]: the completion models `delay` and `result` in their Python forms (S23).
//! - [`results`]: `SimResult`, `SubmittedCommand`, `Event`.
//! - [`stream_error`]: `StreamError`, and the `StreamFormatError` that carries one.
//! - [`scenario`]: kernel scenarios (S26..S36): `Scenario`, `simulate_scenario`.
//! - [`scenario_result`]: `ScenarioResult`, `StreamOutcome`, `HostOutcome`, `ScenarioCommand`.
//! - [`machine`]: `Machine`, a run paused between two passes, looked at, saved and resumed.
//! - [`classes`]: what the answer's classes write alike (value classes, getters).
//! - [`bench`]: the engine's own time of a run, for docs/python.md.
//! - [`errors`]: `BuildError`, `StreamFormatError`, `ScenarioError` and the reading of Python integers.
//!
//! The extension module is `kmst._kmst`; `kmst/__init__.py` re-exports it.
#![forbid(unsafe_code)]

mod bench;
mod classes;
mod engine;
mod errors;
mod machine;
mod models;
mod params;
mod results;
mod run;
mod scenario;
mod scenario_result;
mod simulate;
mod stream;
mod stream_error;

use pyo3::prelude::*;

#[pymodule]
fn _kmst(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add_class::<stream::PyStream>()?;
    m.add_class::<stream::PyRegister>()?;
    m.add_class::<stream::PyLabel>()?;
    m.add_class::<results::PySimResult>()?;
    m.add_class::<results::PyCommand>()?;
    m.add_class::<results::PyEvent>()?;
    m.add_class::<stream_error::PyStreamError>()?;
    m.add_class::<scenario::PyScenario>()?;
    m.add_class::<scenario_result::PyScenarioResult>()?;
    m.add_class::<scenario_result::PyStreamOutcome>()?;
    m.add_class::<scenario_result::PyHostOutcome>()?;
    m.add_class::<scenario_result::PyScenarioCommand>()?;
    m.add_class::<machine::PyMachine>()?;
    m.add_function(wrap_pyfunction!(simulate::simulate, m)?)?;
    m.add_function(wrap_pyfunction!(scenario::simulate_scenario, m)?)?;
    m.add_function(wrap_pyfunction!(simulate::check, m)?)?;
    m.add_function(wrap_pyfunction!(simulate::check_run, m)?)?;
    m.add_function(wrap_pyfunction!(bench::_rust_time, m)?)?;
    m.add(
        "BuildError",
        py.get_type::<errors::exceptions::BuildError>(),
    )?;
    m.add(
        "ScenarioError",
        py.get_type::<errors::exceptions::ScenarioError>(),
    )?;
    m.add(
        "StreamFormatError",
        py.get_type::<errors::exceptions::StreamFormatError>(),
    )?;
    // Event kinds (docs/spec.md "Events and errors").
    m.add("KM_EVENT_TIMEOUT", 1)?;
    m.add("KM_EVENT_STREAM", 4)?;
    m.add("KM_EVENT_STREAM_END", 5)?;
    m.add("KM_EVENT_STREAM_ERROR", 6)?;
    Ok(())
}

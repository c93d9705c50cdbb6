//! A run's parameters between Python and the engine (S23..S25).
//!
//! `simulate`, `Stream.simulate` and `Scenario(...)` take the same ten
//! keyword-only parameters under their S24 names ([`with_keywords!`] writes
//! them, [`Keywords`] holds them), so `simulate(data, **answer["params"])`
//! replays a saved answer. [`params_of`] checks them into the engine's
//! `Params` and the Python [`Callables`] given for `delay` and `result`;
//! [`params_dict`] writes them back as an answer's `params`. The answers'
//! classes (classes.rs) keep a run's `Callables` and give its `params`, so
//! this module stands below them.

use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::engine::{Delay, Params, ParamsError, ResultModel};
use crate::errors::{U32, param_int, params_error};
use crate::models::{Model, delay_model, result_model};

/// Every parameter keyword of `simulate`, as given (None: not given).
#[derive(Default)]
pub struct Keywords<'py> {
    pub delay: Option<Bound<'py, PyAny>>,
    pub result: Option<Bound<'py, PyAny>>,
    pub deadline_passes: Option<Bound<'py, PyAny>>,
    pub default_deadline_passes: Option<Bound<'py, PyAny>>,
    pub cancel_pass: Option<Bound<'py, PyAny>>,
    pub core_count: Option<Bound<'py, PyAny>>,
    pub ticks_per_pass: Option<Bound<'py, PyAny>>,
    pub max_passes: Option<Bound<'py, PyAny>>,
    pub region_size: Option<Bound<'py, PyAny>>,
    pub turn_budget: Option<Bound<'py, PyAny>>,
}

/// Writes a function that Python calls with the ten keyword-only
/// simulation parameters: the one list of them, for `simulate`,
/// `Stream.simulate` and `Scenario(...)`. The function's own leading
/// arguments (`[...]`, with their Python names in `signature [...]`) come
/// first, then the ten, then an optional trailing keyword with its default;
/// the body gets the ten as one [`Keywords`] under the name given. The
/// `impl` form writes a method, in a `#[pymethods]` block of its own (pyo3
/// sees no method a macro writes inside one).
macro_rules! with_keywords {
    (impl $ty:ty; $($rest:tt)*) => {
        $crate::params::with_keywords! { @parts [$ty] $($rest)* }
    };
    (
        @parts [$($ty:ty)?]
        $(#[$meta:meta])*
        $vis:vis fn $name:ident<$py:lifetime>[$($lead:tt)*]
            signature [$($sig:ident),*]
            keywords $kw:ident
            $(, $tail:ident: $tail_ty:ty = $tail_default:tt)?
            -> $ret:ty $body:block
    ) => {
        $crate::params::with_keywords! { @in [$($ty)?]
            $(#[$meta])*
            #[pyo3(signature = ($($sig,)* *, delay=crate::params::DelayArg::NotGiven, result=None,
                deadline_passes=None, default_deadline_passes=None, cancel_pass=None,
                core_count=None, ticks_per_pass=None, max_passes=None, region_size=None,
                turn_budget=None $(, $tail=$tail_default)?))]
            #[allow(clippy::too_many_arguments)]
            $vis fn $name<$py>(
                $($lead)*
                delay: crate::params::DelayArg<$py>,
                result: Option<Bound<$py, PyAny>>,
                deadline_passes: Option<Bound<$py, PyAny>>,
                default_deadline_passes: Option<Bound<$py, PyAny>>,
                cancel_pass: Option<Bound<$py, PyAny>>,
                core_count: Option<Bound<$py, PyAny>>,
                ticks_per_pass: Option<Bound<$py, PyAny>>,
                max_passes: Option<Bound<$py, PyAny>>,
                region_size: Option<Bound<$py, PyAny>>,
                turn_budget: Option<Bound<$py, PyAny>>,
                $($tail: $tail_ty)?
            ) -> $ret {
                let $kw = crate::params::Keywords {
                    delay: delay.into_option(),
                    result,
                    deadline_passes,
                    default_deadline_passes,
                    cancel_pass,
                    core_count,
                    ticks_per_pass,
                    max_passes,
                    region_size,
                    turn_budget,
                };
                $body
            }
        }
    };
    // Where the function goes: alone, or as a method of its own
    // `#[pymethods]` block.
    (@in [] $($item:tt)*) => {
        $($item)*
    };
    (@in [$ty:ty] $($item:tt)*) => {
        #[pymethods]
        impl $ty {
            $($item)*
        }
    };
    ($($rest:tt)*) => {
        $crate::params::with_keywords! { @parts [] $($rest)* }
    };
}
pub(crate) use with_keywords;

/// The `delay` keyword: not given, or given (`None`, never, included; an
/// `Option` argument would read a Python None as "not given").
pub enum DelayArg<'py> {
    NotGiven,
    Given(Bound<'py, PyAny>),
}

impl<'py> DelayArg<'py> {
    pub fn into_option(self) -> Option<Bound<'py, PyAny>> {
        match self {
            DelayArg::NotGiven => None,
            DelayArg::Given(obj) => Some(obj),
        }
    }
}

impl<'a, 'py> FromPyObject<'a, 'py> for DelayArg<'py> {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        Ok(DelayArg::Given(obj.to_owned()))
    }
}

/// The parameters of `kw`, checked (S25), and its callables. A callable's
/// model stays the default in the parameters: [`Callables::install`] puts it
/// in for a run.
pub fn params_of(kw: &Keywords<'_>) -> PyResult<(Params, Callables)> {
    let mut p = Params::default();
    let int =
        |v: &Option<Bound<'_, PyAny>>, param: &'static str, max: u64| -> PyResult<Option<u64>> {
            match v {
                Some(v) if !v.is_none() => param_int(v, param, max).map(Some),
                _ => Ok(None),
            }
        };
    p.deadline_passes = int(&kw.deadline_passes, "deadline_passes", u64::MAX)?;
    p.cancel_pass = int(&kw.cancel_pass, "cancel_pass", u64::MAX)?;
    if let Some(v) = int(
        &kw.default_deadline_passes,
        "default_deadline_passes",
        u64::MAX,
    )? {
        p.default_deadline_passes = v;
    }
    if let Some(v) = int(&kw.core_count, "core_count", U32)? {
        p.core_count = v as u32;
    }
    if let Some(v) = int(&kw.ticks_per_pass, "ticks_per_pass", U32)? {
        p.ticks_per_pass = v as u32;
    }
    if let Some(v) = int(&kw.max_passes, "max_passes", u64::MAX)? {
        p.max_passes = v;
    }
    if let Some(v) = int(&kw.region_size, "region_size", u64::MAX)? {
        p.region_size = v;
    }
    if let Some(v) = int(&kw.turn_budget, "turn_budget", U32)? {
        p.turn_budget = v as u32;
    }

    let mut callables = Callables::default();
    if let Some(obj) = &kw.delay {
        match delay_model(obj)? {
            Model::Fixed(d) => p.delay = d,
            Model::Callable(f) => callables.delay = Some(f),
        }
    }
    if let Some(obj) = &kw.result {
        match result_model(obj)? {
            Model::Fixed(r) => p.result = r,
            Model::Callable(f) => callables.result = Some(f),
        }
    }
    p.validate().map_err(params_error)?;
    Ok((p, callables))
}

/// The Python callables given for `delay` and `result` (run.rs's
/// `Callables::install` puts them in a run).
#[derive(Default)]
pub struct Callables {
    pub delay: Option<Py<PyAny>>,
    pub result: Option<Py<PyAny>>,
}

impl Callables {
    /// True when a run has a Python function to call (and so keeps the GIL).
    pub fn any(&self) -> bool {
        self.delay.is_some() || self.result.is_some()
    }

    pub fn clone_ref(&self, py: Python<'_>) -> Callables {
        Callables {
            delay: self.delay.as_ref().map(|f| f.clone_ref(py)),
            result: self.result.as_ref().map(|f| f.clone_ref(py)),
        }
    }
}

/// The parameters as a dict with the keys `json` writes (S24's for a run,
/// S36's for a scenario); a callable `delay` or `result` appears as itself.
pub fn params_dict<'py>(
    py: Python<'py>,
    params: &Params,
    callables: &Callables,
    json: impl FnOnce(&Params) -> Result<serde_json::Value, ParamsError>,
) -> PyResult<Bound<'py, PyDict>> {
    let mut p = params.clone();
    if matches!(p.delay, Delay::Custom(_)) {
        p.delay = Delay::Fixed(0);
    }
    if matches!(p.result, ResultModel::Custom(_)) {
        p.result = ResultModel::Zero;
    }
    let text = json(&p).map_err(params_error)?.to_string();
    let dict = py
        .import("json")?
        .call_method1("loads", (text,))?
        .cast_into::<PyDict>()?;
    if let Some(f) = &callables.delay {
        dict.set_item("delay", f.clone_ref(py))?;
    }
    if let Some(f) = &callables.result {
        dict.set_item("result", f.clone_ref(py))?;
    }
    Ok(dict)
}

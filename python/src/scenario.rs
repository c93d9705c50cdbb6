//! Kernel scenarios (S26..S36): `Scenario` (a builder and the three ways in:
//! keywords and calls, a dict in the S36 file shape, a scenario file) and
//! `simulate_scenario`.
//!
//! A dict is read by the engine's own S36 reader, so a dict and the file it
//! was loaded from give the same scenario and the same errors: the dict is
//! turned into the file's JSON (an upload's `data` bytes stand in for its
//! `file`), and only `params` is read here, so that `delay` and `result` take
//! every form `simulate` takes, callables included. A callable is installed
//! afresh for each run (its first failure belongs to that run, as in
//! `simulate`); a run without one releases the GIL. Every error of a scenario
//! is a `ScenarioError` naming the entry and the field.

use std::path::{Path, PathBuf};

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use serde_json::{Map, Value};

use crate::engine::{self, HostCommand, Params, Scenario, ScenarioError, scenario_params_json};
use crate::errors::{params_error, repr, scenario_error, type_name};
use crate::params::{Callables, Keywords, params_dict, params_of, with_keywords};
use crate::results::count;
use crate::run::variant;
use crate::scenario_result::PyScenarioResult;
use crate::stream::upload_bytes;
use kmst_reference::{Entry, Problem};

/// The S36 parameter keys a scenario takes (S24's without `cancel_pass`).
const PARAM_KEYS: [&str; 9] = [
    "delay",
    "result",
    "deadline_passes",
    "default_deadline_passes",
    "core_count",
    "ticks_per_pass",
    "max_passes",
    "region_size",
    "turn_budget",
];

/// An engine error as a Python `ScenarioError`.
fn raise(e: ScenarioError) -> PyErr {
    scenario_error(&e.entry.to_string(), &e.field, &e.problem.to_string())
}

/// A parameter error of `params_of` (a ValueError with `param` and `problem`)
/// as a `ScenarioError` of the `params` entry; other errors as they are.
fn params_problem(py: Python<'_>, e: PyErr) -> PyErr {
    let value = e.value(py);
    match (value.getattr("param"), value.getattr("problem")) {
        (Ok(param), Ok(problem)) => {
            scenario_error("params", &param.to_string(), &problem.to_string())
        }
        _ => e,
    }
}

/// The checked parameters of `kw` and its callables; `cancel_pass` is refused (S26).
fn scenario_params(py: Python<'_>, kw: &Keywords<'_>) -> PyResult<(Params, Callables)> {
    if kw.cancel_pass.as_ref().is_some_and(|v| !v.is_none()) {
        return Err(scenario_error(
            "params",
            "cancel_pass",
            &Problem::CancelPass.to_string(),
        ));
    }
    params_of(kw).map_err(|e| params_problem(py, e))
}

/// A dict's `params` as keywords: S36's keys only; `null` only where JSON allows it.
fn keywords_of<'py>(params: &Bound<'py, PyAny>) -> PyResult<Keywords<'py>> {
    let d = params
        .cast::<PyDict>()
        .map_err(|_| scenario_error("params", "", "expected a JSON object (a dict)"))?;
    let mut kw = Keywords::default();
    for (key, value) in d.iter() {
        let key: String = key
            .extract()
            .map_err(|_| scenario_error("params", &repr(&key), "a key is a string"))?;
        if key == "cancel_pass" {
            return Err(scenario_error(
                "params",
                "cancel_pass",
                &Problem::CancelPass.to_string(),
            ));
        }
        if !PARAM_KEYS.contains(&key.as_str()) {
            return Err(scenario_error(
                "params",
                &key,
                &Problem::UnknownKey.to_string(),
            ));
        }
        // JSON's null means "never" for delay and "not given" for
        // deadline_passes; for the others it is not a value (S24).
        if value.is_none() && key != "delay" && key != "deadline_passes" {
            return Err(scenario_error(
                "params",
                &key,
                "None is not a value here (leave the key out for the default)",
            ));
        }
        let slot = match key.as_str() {
            "delay" => &mut kw.delay,
            "result" => &mut kw.result,
            "deadline_passes" => &mut kw.deadline_passes,
            "default_deadline_passes" => &mut kw.default_deadline_passes,
            "core_count" => &mut kw.core_count,
            "ticks_per_pass" => &mut kw.ticks_per_pass,
            "max_passes" => &mut kw.max_passes,
            "region_size" => &mut kw.region_size,
            _ => &mut kw.turn_budget,
        };
        *slot = Some(value);
    }
    Ok(kw)
}

/// Where a value sits in a scenario dict, for the entry and field of an error.
enum Part {
    Key(String),
    Index(usize),
}

/// The entry and field of `path`, named as the S36 reader names them.
fn entry_and_field(path: &[Part]) -> (String, String) {
    let (entry, rest) = match path {
        [Part::Key(k), rest @ ..] if k == "params" => ("params".to_owned(), rest),
        [Part::Key(k), Part::Index(i), rest @ ..] if k == "uploads" || k == "host" => {
            (format!("{k}[{i}]"), rest)
        }
        _ => ("scenario".to_owned(), path),
    };
    let mut field = String::new();
    for part in rest {
        match part {
            Part::Key(k) if field.is_empty() => field.push_str(k),
            Part::Key(k) => {
                field.push('.');
                field.push_str(k);
            }
            Part::Index(i) => field.push_str(&format!("[{i}]")),
        }
    }
    (entry, field)
}

fn fail_at(path: &[Part], problem: &str) -> PyErr {
    let (entry, field) = entry_and_field(path);
    scenario_error(&entry, &field, problem)
}

/// A Python value of a scenario dict as JSON: None, bool, int, float, str,
/// list, tuple, dict with string keys. An int beyond 64 bits is not a u32
/// (S36) and is refused here, where its digits are still known.
fn json_of(obj: &Bound<'_, PyAny>, path: &mut Vec<Part>) -> PyResult<Value> {
    if obj.is_none() {
        return Ok(Value::Null);
    }
    if let Ok(b) = obj.cast::<PyBool>() {
        return Ok(Value::Bool(b.is_true()));
    }
    if obj.is_instance_of::<PyInt>() {
        if let Ok(v) = obj.extract::<u64>() {
            return Ok(Value::from(v));
        }
        if let Ok(v) = obj.extract::<i64>() {
            return Ok(Value::from(v));
        }
        return Err(fail_at(path, &Problem::NotU32(obj.to_string()).to_string()));
    }
    if let Ok(f) = obj.cast::<PyFloat>() {
        return match serde_json::Number::from_f64(f.value()) {
            Some(n) => Ok(Value::Number(n)),
            None => Err(fail_at(path, &Problem::NotU32(repr(obj)).to_string())),
        };
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(Value::String(s.to_cow()?.into_owned()));
    }
    if obj.is_instance_of::<PyList>() || obj.is_instance_of::<PyTuple>() {
        let mut out = Vec::new();
        for (i, item) in obj.try_iter()?.enumerate() {
            path.push(Part::Index(i));
            out.push(json_of(&item?, path)?);
            path.pop();
        }
        return Ok(Value::Array(out));
    }
    if let Ok(d) = obj.cast::<PyDict>() {
        let mut out = Map::new();
        for (key, value) in d.iter() {
            let Ok(key) = key.extract::<String>() else {
                return Err(fail_at(
                    path,
                    &format!("the key {} is not a string", repr(&key)),
                ));
            };
            path.push(Part::Key(key.clone()));
            out.insert(key, json_of(&value, path)?);
            path.pop();
        }
        return Ok(Value::Object(out));
    }
    Err(fail_at(
        path,
        &format!(
            "{} is not a JSON value (None, bool, int, str, list or dict)",
            type_name(obj)
        ),
    ))
}

/// The name `file` stands for in the JSON given to the reader when an upload
/// gives its bytes as `data`.
const DATA_FILE: &str = "<data>";

/// One upload of a dict: JSON for the reader, and its bytes when given as `data`.
fn upload_of(
    obj: &Bound<'_, PyAny>,
    i: usize,
    path: &mut Vec<Part>,
) -> PyResult<(Value, Option<Vec<u8>>)> {
    let Ok(d) = obj.cast::<PyDict>() else {
        // Not a dict: the reader names the entry and says so.
        return Ok((json_of(obj, path)?, None));
    };
    let entry = format!("uploads[{i}]");
    let mut out = Map::new();
    let mut data = None;
    let has_file = d.contains("file")?;
    for (key, value) in d.iter() {
        let Ok(key) = key.extract::<String>() else {
            return Err(scenario_error(&entry, &repr(&key), "a key is a string"));
        };
        match key.as_str() {
            "data" if has_file => {
                return Err(scenario_error(
                    &entry,
                    "data",
                    "give `data` (the bytes) or `file` (a path), not both",
                ));
            }
            "data" => {
                let bytes = upload_bytes(&value).map_err(|_| {
                    scenario_error(
                        &entry,
                        "data",
                        &format!(
                            "expected bytes, bytearray, memoryview or a Stream, found {}",
                            type_name(&value)
                        ),
                    )
                })?;
                data = Some(bytes);
                out.insert("file".into(), Value::String(DATA_FILE.into()));
            }
            // A path-like `file` (pathlib.Path) is taken as its string.
            "file" if !value.is_instance_of::<PyString>() => {
                let fspath = value.py().import("os")?.call_method1("fspath", (&value,));
                let text = fspath.ok().and_then(|p| p.extract::<String>().ok());
                let Some(text) = text else {
                    return Err(scenario_error(
                        &entry,
                        "file",
                        &format!("expected a path, found {}", type_name(&value)),
                    ));
                };
                out.insert(key, Value::String(text));
            }
            _ => {
                path.push(Part::Key(key.clone()));
                let v = json_of(&value, path)?;
                path.pop();
                out.insert(key, v);
            }
        }
    }
    Ok((Value::Object(out), data))
}

/// A path argument (str or os.PathLike).
fn path_of(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<PathBuf> {
    obj.extract::<PathBuf>().map_err(|_| {
        PyTypeError::new_err(format!(
            "{what}: expected a str or os.PathLike path, found {}",
            type_name(obj)
        ))
    })
}

/// A kernel scenario: the parameters, the uploads placed in the region and
/// the host commands (S26, S27).
#[pyclass(name = "Scenario", module = "kmst")]
pub struct PyScenario {
    /// The scenario with a callable's model left at its default.
    inner: Scenario,
    callables: Callables,
}

impl PyScenario {
    /// The scenario and its callables, for a `Machine` of it.
    pub(crate) fn parts(&self, py: Python<'_>) -> (Scenario, Callables) {
        let callables = Callables {
            delay: self.callables.delay.as_ref().map(|f| f.clone_ref(py)),
            result: self.callables.result.as_ref().map(|f| f.clone_ref(py)),
        };
        (self.inner.clone(), callables)
    }

    /// Runs the scenario; with callables, on a copy that has them installed
    /// for this run (and holding the GIL), else with the GIL released.
    fn run_with(&self, py: Python<'_>, dispatch: &str) -> PyResult<PyScenarioResult> {
        let variant = variant(dispatch)?;
        let answer = if self.callables.any() {
            let mut params = self.inner.params().clone();
            let failure = self.callables.install(py, &mut params);
            let mut s = Scenario::new(params).map_err(raise)?;
            for u in self.inner.uploads() {
                s.place(u.offset, u.bytes.clone()).map_err(raise)?;
            }
            for h in self.inner.host() {
                s.push(h.pass, h.command).map_err(raise)?;
            }
            let answer = engine::simulate_scenario(&s, variant);
            if let Some(e) = failure.take() {
                return Err(e);
            }
            answer
        } else {
            let s = &self.inner;
            py.detach(|| engine::simulate_scenario(s, variant))
        };
        Ok(PyScenarioResult::new(answer, self.callables.clone_ref(py)))
    }

    /// A scenario dict in the S36 file shape; `file` paths are relative to `base`.
    fn from_dict_in(py: Python<'_>, d: &Bound<'_, PyAny>, base: Option<PathBuf>) -> PyResult<Self> {
        let top = d.cast::<PyDict>().map_err(|_| {
            scenario_error(
                "scenario",
                "",
                &format!(
                    "expected a dict (the S36 file shape), found {}",
                    type_name(d)
                ),
            )
        })?;
        for key in top.keys() {
            let name = key.extract::<String>().unwrap_or_else(|_| repr(&key));
            if !["params", "uploads", "host"].contains(&name.as_str()) {
                return Err(scenario_error(
                    "scenario",
                    &name,
                    &Problem::UnknownKey.to_string(),
                ));
            }
        }
        let kw = match top.get_item("params")? {
            Some(params) => keywords_of(&params)?,
            None => Keywords::default(),
        };
        let (params, callables) = scenario_params(py, &kw)?;
        let mut json = Map::new();
        // The parameters as checked here; the reader reads them back for the
        // region's size (a callable's model is the default there).
        json.insert(
            "params".into(),
            scenario_params_json(&params).map_err(params_error)?,
        );
        let mut given = Vec::new();
        let mut path = Vec::new();
        if let Some(uploads) = top.get_item("uploads")? {
            path.push(Part::Key("uploads".into()));
            let value = if uploads.is_instance_of::<PyList>() || uploads.is_instance_of::<PyTuple>()
            {
                let mut list = Vec::new();
                for (i, u) in uploads.try_iter()?.enumerate() {
                    path.push(Part::Index(i));
                    let (v, data) = upload_of(&u?, i, &mut path)?;
                    path.pop();
                    list.push(v);
                    given.push(data);
                }
                Value::Array(list)
            } else {
                json_of(&uploads, &mut path)?
            };
            path.pop();
            json.insert("uploads".into(), value);
        }
        if let Some(host) = top.get_item("host")? {
            path.push(Part::Key("host".into()));
            json.insert("host".into(), json_of(&host, &mut path)?);
            path.pop();
        }
        let text = Value::Object(json).to_string();
        let file = base.unwrap_or_default().join("scenario.json");
        let inner = engine::scenario_from_json(&text, &file, &mut given).map_err(raise)?;
        Ok(PyScenario { inner, callables })
    }

    /// The scenario file at `path` (S36).
    fn load_file(path: &Path) -> PyResult<Self> {
        let inner = engine::read_scenario_file(path).map_err(raise)?;
        Ok(PyScenario {
            inner,
            callables: Callables::default(),
        })
    }

    /// The next host entry's name (`host[3]`).
    fn next_host(&self) -> String {
        Entry::Host(self.inner.host().len()).to_string()
    }

    fn push(&mut self, pass: &Bound<'_, PyAny>, command: HostCommand) -> PyResult<()> {
        let pass = u32_arg(pass, &self.next_host(), "pass")?;
        self.inner
            .push(u64::from(pass), command)
            .map(|_| ())
            .map_err(raise)
    }
}

/// A number of a scenario: a u32 (S36), else a `ScenarioError` naming it.
fn u32_arg(obj: &Bound<'_, PyAny>, entry: &str, field: &str) -> PyResult<u32> {
    if obj.is_instance_of::<PyInt>()
        && !obj.is_instance_of::<PyBool>()
        && let Ok(v) = obj.extract::<u32>()
    {
        return Ok(v);
    }
    Err(scenario_error(
        entry,
        field,
        &Problem::NotU32(repr(obj)).to_string(),
    ))
}

fn flag_arg(obj: &Bound<'_, PyAny>, entry: &str, field: &str) -> PyResult<bool> {
    obj.cast::<PyBool>().map(|b| b.is_true()).map_err(|_| {
        scenario_error(
            entry,
            field,
            &Problem::WrongType("True or False").to_string(),
        )
    })
}

/// Up to ten u32 words padded with 0 (S27).
fn args_arg(obj: Option<&Bound<'_, PyAny>>, entry: &str, kind: &str) -> PyResult<[u32; 10]> {
    let mut args = [0u32; 10];
    let Some(obj) = obj else {
        return Ok(args);
    };
    let field = format!("{kind}.args");
    if !(obj.is_instance_of::<PyList>() || obj.is_instance_of::<PyTuple>()) {
        return Err(scenario_error(entry, &field, "expected a list"));
    }
    let words: Vec<Bound<'_, PyAny>> = obj.try_iter()?.collect::<PyResult<_>>()?;
    if words.len() > 10 {
        return Err(scenario_error(
            entry,
            &field,
            &Problem::TooManyArgs(words.len()).to_string(),
        ));
    }
    for (k, w) in words.iter().enumerate() {
        args[k] = u32_arg(w, entry, &format!("{field}[{k}]"))?;
    }
    Ok(args)
}

with_keywords! {
    impl PyScenario;
    /// `Scenario(*, delay=0, result="zero", deadline_passes=None, ...)`: an
    /// empty scenario with these parameters (the keywords of `simulate`
    /// without `cancel_pass`, S26).
    #[new]
    fn new<'py>[py: Python<'py>,]
        signature []
        keywords kw
        -> PyResult<Self> {
        let (params, callables) = scenario_params(py, &kw)?;
        Ok(PyScenario {
            inner: Scenario::new(params).map_err(raise)?,
            callables,
        })
    }
}

#[pymethods]
impl PyScenario {
    /// A scenario dict in the S36 file shape. An upload is `{"offset": O,
    /// "data": bytes}` (bytes, bytearray, memoryview or a `Stream`) or
    /// `{"offset": O, "file": PATH}` relative to `base` (default: the current
    /// directory; `.kms` assembled, anything else raw bytes).
    #[staticmethod]
    #[pyo3(signature = (scenario, base=None))]
    fn from_dict(
        py: Python<'_>,
        scenario: &Bound<'_, PyAny>,
        base: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let base = base.map(|b| path_of(b, "base")).transpose()?;
        PyScenario::from_dict_in(py, scenario, base)
    }

    /// The scenario file at `path` (S36; uploads relative to its folder).
    #[staticmethod]
    fn load(path: &Bound<'_, PyAny>) -> PyResult<Self> {
        PyScenario::load_file(&path_of(path, "path")?)
    }

    /// Places `data` (bytes, bytearray, memoryview or a `Stream`) at `offset`
    /// before pass 0: a multiple of 64, inside the region, overlapping no
    /// other upload (S26).
    fn place<'py>(
        mut slf: PyRefMut<'py, Self>,
        offset: &Bound<'py, PyAny>,
        data: &Bound<'py, PyAny>,
    ) -> PyResult<PyRefMut<'py, Self>> {
        let entry = Entry::Upload(slf.inner.uploads().len()).to_string();
        let offset = u32_arg(offset, &entry, "offset")?;
        let bytes = upload_bytes(data).map_err(|_| {
            scenario_error(
                &entry,
                "data",
                &format!(
                    "expected bytes, bytearray, memoryview or a Stream, found {}",
                    type_name(data)
                ),
            )
        })?;
        slf.inner.place(u64::from(offset), bytes).map_err(raise)?;
        Ok(slf)
    }

    /// `KM_HANDLER_RUN` sent in pass `pass_` (S28); without `length`, the
    /// length of the upload placed at `offset`.
    #[pyo3(signature = (pass_, offset, length=None))]
    fn run<'py>(
        mut slf: PyRefMut<'py, Self>,
        pass_: &Bound<'py, PyAny>,
        offset: &Bound<'py, PyAny>,
        length: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<PyRefMut<'py, Self>> {
        let entry = slf.next_host();
        let offset = u32_arg(offset, &entry, "run.offset")?;
        let length = match length {
            Some(l) => u32_arg(l, &entry, "run.length")?,
            None => match slf.inner.placed_length(u64::from(offset)) {
                Some(n) => u32::try_from(n).map_err(|_| {
                    scenario_error(
                        &entry,
                        "run.length",
                        &Problem::NotU32(n.to_string()).to_string(),
                    )
                })?,
                None => {
                    return Err(scenario_error(
                        &entry,
                        "run.length",
                        &Problem::RunWithoutLength(offset).to_string(),
                    ));
                }
            },
        };
        slf.push(pass_, HostCommand::Run { offset, length })?;
        Ok(slf)
    }

    /// `KM_HANDLER_CANCEL` of the active stream whose header req is `req` (S34).
    fn cancel<'py>(
        mut slf: PyRefMut<'py, Self>,
        pass_: &Bound<'py, PyAny>,
        req: &Bound<'py, PyAny>,
    ) -> PyResult<PyRefMut<'py, Self>> {
        let req = u32_arg(req, &slf.next_host(), "cancel")?;
        slf.push(pass_, HostCommand::Cancel { req })?;
        Ok(slf)
    }

    /// `KM_HANDLER_DEADLINE`: the default deadline becomes `us` passes (S31).
    fn deadline<'py>(
        mut slf: PyRefMut<'py, Self>,
        pass_: &Bound<'py, PyAny>,
        us: &Bound<'py, PyAny>,
    ) -> PyResult<PyRefMut<'py, Self>> {
        let us = u32_arg(us, &slf.next_host(), "deadline")?;
        slf.push(pass_, HostCommand::Deadline { us })?;
        Ok(slf)
    }

    /// A plain command from the host on the group `first`, `count` (S32).
    #[pyo3(signature = (pass_, handler, first, count, args=None, exclusive=None, result=None))]
    #[allow(clippy::too_many_arguments)]
    fn submit<'py>(
        mut slf: PyRefMut<'py, Self>,
        pass_: &Bound<'py, PyAny>,
        handler: &Bound<'py, PyAny>,
        first: &Bound<'py, PyAny>,
        count: &Bound<'py, PyAny>,
        args: Option<&Bound<'py, PyAny>>,
        exclusive: Option<&Bound<'py, PyAny>>,
        result: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<PyRefMut<'py, Self>> {
        let e = slf.next_host();
        let command = HostCommand::Submit {
            handler: u32_arg(handler, &e, "submit.handler")?,
            first: u32_arg(first, &e, "submit.first")?,
            count: u32_arg(count, &e, "submit.count")?,
            args: args_arg(args, &e, "submit")?,
            exclusive: exclusive.map_or(Ok(false), |x| flag_arg(x, &e, "submit.exclusive"))?,
            result: result.map_or(Ok(false), |x| flag_arg(x, &e, "submit.result"))?,
        };
        slf.push(pass_, command)?;
        Ok(slf)
    }

    /// A queued command from the host; the allocator chooses first (S32).
    #[pyo3(signature = (pass_, handler, count, args=None, exclusive=None, result=None))]
    fn enqueue<'py>(
        mut slf: PyRefMut<'py, Self>,
        pass_: &Bound<'py, PyAny>,
        handler: &Bound<'py, PyAny>,
        count: &Bound<'py, PyAny>,
        args: Option<&Bound<'py, PyAny>>,
        exclusive: Option<&Bound<'py, PyAny>>,
        result: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<PyRefMut<'py, Self>> {
        let e = slf.next_host();
        let command = HostCommand::Enqueue {
            handler: u32_arg(handler, &e, "enqueue.handler")?,
            count: u32_arg(count, &e, "enqueue.count")?,
            args: args_arg(args, &e, "enqueue")?,
            exclusive: exclusive.map_or(Ok(false), |x| flag_arg(x, &e, "enqueue.exclusive"))?,
            result: result.map_or(Ok(false), |x| flag_arg(x, &e, "enqueue.result"))?,
        };
        slf.push(pass_, command)?;
        Ok(slf)
    }

    /// Runs the scenario (`dispatch` as in `simulate`).
    #[pyo3(signature = (*, dispatch="tail"))]
    fn simulate(&self, py: Python<'_>, dispatch: &str) -> PyResult<PyScenarioResult> {
        self.run_with(py, dispatch)
    }

    /// The parameters as a dict with S36's keys (a callable appears as itself).
    #[getter]
    fn params<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        params_dict(
            py,
            self.inner.params(),
            &self.callables,
            scenario_params_json,
        )
    }

    /// The placements, in order, as `(offset, bytes)`.
    #[getter]
    fn uploads(&self) -> Vec<(u64, Vec<u8>)> {
        self.inner
            .uploads()
            .iter()
            .map(|u| (u.offset, u.bytes.clone()))
            .collect()
    }

    fn __len__(&self) -> usize {
        self.inner.host().len()
    }

    fn __repr__(&self) -> String {
        format!(
            "Scenario({}, {})",
            count(self.inner.uploads().len(), "upload"),
            count(self.inner.host().len(), "host command")
        )
    }
}

/// `simulate_scenario(scenario, *, dispatch="tail", base=None)`: a
/// `Scenario`, a dict in the S36 file shape (`file` paths relative to
/// `base`), or the path of a scenario file.
#[pyfunction]
#[pyo3(signature = (scenario, *, dispatch="tail", base=None))]
pub fn simulate_scenario(
    py: Python<'_>,
    scenario: &Bound<'_, PyAny>,
    dispatch: &str,
    base: Option<&Bound<'_, PyAny>>,
) -> PyResult<PyScenarioResult> {
    variant(dispatch)?;
    if let Ok(s) = scenario.cast::<PyScenario>() {
        if base.is_some() {
            return Err(PyValueError::new_err(
                "base: only a dict scenario reads files relative to `base`",
            ));
        }
        return s.borrow().run_with(py, dispatch);
    }
    if scenario.is_instance_of::<PyDict>() {
        let base = base.map(|b| path_of(b, "base")).transpose()?;
        return PyScenario::from_dict_in(py, scenario, base)?.run_with(py, dispatch);
    }
    let Ok(path) = scenario.extract::<PathBuf>() else {
        return Err(PyTypeError::new_err(format!(
            "scenario: expected a Scenario, a dict or a path, found {}",
            type_name(scenario)
        )));
    };
    if base.is_some() {
        return Err(PyValueError::new_err(
            "base: a scenario file's uploads are relative to its own folder",
        ));
    }
    PyScenario::load_file(&path)?.run_with(py, dispatch)
}

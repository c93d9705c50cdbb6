//! `Machine`: a run paused at a pass boundary, looked at, saved and
//! resumed (docs/python.md "Pausing, looking and resuming"; the engine's
//! `exec::resume`).
//!
//! The engine's `Resumable` holds compiled code bound to its thread, and a
//! Python object may be used from any thread. So a `Machine` keeps the run
//! as plain data (`Detached`) and makes it a `Resumable` again for each
//! call. `.run` does that with the GIL released, as `simulate` runs. A
//! piece works on a copy: the machine takes the copy only when the piece
//! has run whole.
//!
//! A callable `delay` or `result` calls back into Python: a machine with
//! one keeps the GIL while it runs. It cannot be saved (a snapshot holds
//! data, not code): `snapshot()` and pickling raise ValueError. When the
//! callable raises, the piece is dropped, the machine stands where it
//! stood, and the exception is raised (run.rs's `Callables::install`).
//!
//! The reference model runs a whole run only, so a `Machine` takes the
//! fast variants. Every `SnapshotError` is a ValueError with its text.
//! A scenario comes as a dict or a file, not as a `Scenario`: a `Scenario`
//! keeps its engine scenario to itself (scenario.rs).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyType};
use serde_json::{Value, json};

use crate::engine::{
    self, Answer, Detached, Dispatch, Params, Resumable, Scenario, ScenarioError, SnapshotError,
    Standing, State, Until, Variant, scenario_params_json,
};
use crate::errors::{param_int, params_error, scenario_error, type_name};
use crate::params::{Callables, Keywords, params_of, with_keywords};
use crate::results::PySimResult;
use crate::run::{Failure, variant};
use crate::scenario::PyScenario;
use crate::scenario_result::PyScenarioResult;
use crate::stream::upload_bytes;

/// A fast variant by name: the reference model cannot pause.
fn fast(name: &str) -> PyResult<Dispatch> {
    match variant(name)? {
        Variant::Fast(d) => Ok(d),
        Variant::Reference => Err(PyValueError::new_err(
            "dispatch \"reference\": the reference model runs a whole run only; \
             a Machine takes a fast variant",
        )),
    }
}

/// A snapshot's error as a ValueError with its text.
fn snapshot_error(e: SnapshotError) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// A scenario error of the engine as a `ScenarioError`.
fn raise(e: ScenarioError) -> PyErr {
    scenario_error(&e.entry.to_string(), &e.field, &e.problem.to_string())
}

/// The bytes of a snapshot: bytes, bytearray or memoryview.
fn snapshot_bytes(obj: &Bound<'_, PyAny>) -> PyResult<Vec<u8>> {
    if let Some(bytes) = crate::stream::bytes_like(obj)? {
        return Ok(bytes);
    }
    Err(PyTypeError::new_err(format!(
        "data: expected bytes, bytearray or memoryview, found {}",
        type_name(obj)
    )))
}

/// Where `.run` stops: at most one of the three kinds; none is the end.
fn until_of(
    until_pass: Option<&Bound<'_, PyAny>>,
    passes: Option<&Bound<'_, PyAny>>,
    until_event: bool,
) -> PyResult<Until> {
    let until_pass = until_pass.filter(|v| !v.is_none());
    let passes = passes.filter(|v| !v.is_none());
    let given = usize::from(until_pass.is_some()) + usize::from(passes.is_some());
    if given + usize::from(until_event) > 1 {
        return Err(PyValueError::new_err(
            "give at most one of until_pass, passes and until_event",
        ));
    }
    if let Some(p) = until_pass {
        return Ok(Until::Pass(param_int(p, "until_pass", u64::MAX)?));
    }
    if let Some(n) = passes {
        return Ok(Until::Passes(param_int(n, "passes", u64::MAX)?));
    }
    Ok(if until_event {
        Until::Event
    } else {
        Until::End
    })
}

/// A scenario's `params` dict (S36's keys, as `Scenario.params` gives
/// them) as keywords.
fn keywords_of<'py>(params: &Bound<'py, PyDict>) -> PyResult<Keywords<'py>> {
    let get = |key: &str| params.get_item(key);
    Ok(Keywords {
        delay: get("delay")?,
        result: get("result")?,
        deadline_passes: get("deadline_passes")?,
        default_deadline_passes: get("default_deadline_passes")?,
        cancel_pass: None,
        core_count: get("core_count")?,
        ticks_per_pass: get("ticks_per_pass")?,
        max_passes: get("max_passes")?,
        region_size: get("region_size")?,
        turn_budget: get("turn_budget")?,
    })
}

/// A scenario dict in the S36 file shape, read as `Scenario.from_dict`
/// reads it (its checks and errors), as the engine's scenario and the
/// callables of its `params`.
///
/// A `Scenario` keeps its engine scenario to itself, so the dict is read
/// twice: `Scenario.from_dict` checks it and gives the parameters and the
/// placed bytes (files read, `.kms` assembled); the host commands, already
/// checked, go to the engine's S36 reader as JSON beside them.
fn scenario_of_dict(
    py: Python<'_>,
    d: &Bound<'_, PyDict>,
    base: Option<&Bound<'_, PyAny>>,
) -> PyResult<(Scenario, Callables)> {
    let checked = py
        .get_type::<PyScenario>()
        .call_method1("from_dict", (d, base))?;
    let params = checked.getattr("params")?.cast_into::<PyDict>()?;
    let (params, callables) = params_of(&keywords_of(&params)?)?;
    let mut uploads = Vec::new();
    let mut given = Vec::new();
    for placed in checked.getattr("uploads")?.try_iter()? {
        let (offset, bytes): (u64, Vec<u8>) = placed?.extract()?;
        uploads.push(json!({"offset": offset, "file": "<data>"}));
        given.push(Some(bytes));
    }
    let host = match d.get_item("host")? {
        Some(host) => {
            let text: String = py
                .import("json")?
                .call_method1("dumps", (host,))?
                .extract()?;
            serde_json::from_str(&text).map_err(|e| PyValueError::new_err(e.to_string()))?
        }
        None => Value::Array(Vec::new()),
    };
    let text = json!({
        "params": scenario_params_json(&params).map_err(params_error)?,
        "uploads": uploads,
        "host": host,
    })
    .to_string();
    let scenario =
        engine::scenario_from_json(&text, Path::new("scenario.json"), &mut given).map_err(raise)?;
    Ok((scenario, callables))
}

/// A scenario given to `Machine.from_scenario`: a dict or a file's path.
fn scenario_of(
    py: Python<'_>,
    scenario: &Bound<'_, PyAny>,
    base: Option<&Bound<'_, PyAny>>,
) -> PyResult<(Scenario, Callables)> {
    if let Ok(s) = scenario.cast::<PyScenario>() {
        return Ok(s.borrow().parts(py));
    }
    if let Ok(d) = scenario.cast::<PyDict>() {
        return scenario_of_dict(py, d, base);
    }
    let Ok(path) = scenario.extract::<PathBuf>() else {
        return Err(PyTypeError::new_err(format!(
            "scenario: expected a dict or a path, found {}",
            type_name(scenario)
        )));
    };
    if base.is_some() {
        return Err(PyValueError::new_err(
            "base: a scenario file's uploads are relative to its own folder",
        ));
    }
    let s = engine::read_scenario_file(&path).map_err(raise)?;
    Ok((s, Callables::default()))
}

fn standing(s: Standing) -> &'static str {
    match s {
        Standing::Active => "active",
        Standing::Ended => "ended",
        Standing::Failed => "failed",
    }
}

/// A stream index, or "host".
fn owner(py: Python<'_>, o: Option<usize>) -> PyResult<Py<PyAny>> {
    Ok(match o {
        Some(i) => i.into_pyobject(py)?.into_any().unbind(),
        None => "host".into_pyobject(py)?.into_any().unbind(),
    })
}

/// The state as a dict (docs/python.md lists the keys).
fn state_dict<'py>(py: Python<'py>, s: &State, scenario: bool) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("kind", if scenario { "scenario" } else { "stream" })?;
    d.set_item("pass", s.pass)?;
    d.set_item("over", s.over)?;
    let streams = PyList::empty(py);
    for t in &s.streams {
        let x = PyDict::new(py);
        x.set_item("req", t.req)?;
        x.set_item("standing", standing(t.standing))?;
        x.set_item("pc", t.pc)?;
        x.set_item("regs", t.regs.to_vec())?;
        x.set_item("steps", t.steps)?;
        x.set_item("max_steps", t.max_steps)?;
        x.set_item("pending", t.pending)?;
        x.set_item("latest_result", t.latest_result)?;
        x.set_item("offset", t.offset)?;
        x.set_item("length", t.length)?;
        x.set_item("started", t.started)?;
        x.set_item("error", t.error.map(|e| (e.reason.number(), e.pc)))?;
        x.set_item("halt", t.halt)?;
        streams.append(x)?;
    }
    d.set_item("streams", streams)?;
    let slots = PyList::empty(py);
    for t in &s.slots {
        let x = PyDict::new(py);
        x.set_item("slot", t.slot)?;
        x.set_item("sequence", t.sequence)?;
        x.set_item("owner", owner(py, t.owner)?)?;
        x.set_item("first", t.first)?;
        x.set_item("count", t.count)?;
        x.set_item("ack", t.ack)?;
        x.set_item("deadline", t.deadline)?;
        slots.append(x)?;
    }
    d.set_item("slots", slots)?;
    let queue = PyList::empty(py);
    for j in &s.queue {
        let x = PyDict::new(py);
        x.set_item("id", j.id)?;
        x.set_item("owner", owner(py, j.owner)?)?;
        x.set_item("handler", j.command.handler)?;
        x.set_item("count", j.command.count)?;
        x.set_item("flags", j.command.flags)?;
        x.set_item("args", j.command.args.to_vec())?;
        x.set_item("pc", j.command.pc)?;
        x.set_item("overtaken", j.overtaken)?;
        queue.append(x)?;
    }
    d.set_item("queue", queue)?;
    let waiting = s
        .host_waiting
        .iter()
        .map(|(i, h)| (*i, h.pass, h.command.kind()))
        .collect::<Vec<_>>();
    d.set_item("host_waiting", waiting)?;
    d.set_item("default_deadline", s.default_deadline)?;
    d.set_item("commands", s.commands.len())?;
    d.set_item("events", s.events.len())?;
    d.set_item("stopped", s.stopped)?;
    Ok(d)
}

/// What pickling calls to make a machine again: `Machine.restore` and its
/// arguments.
type Reduced<'py> = (Bound<'py, PyAny>, (Bound<'py, PyBytes>, &'static str));

/// A run of one upload or of a scenario that stops between two passes
/// when asked, can be looked at, saved and resumed.
#[pyclass(name = "Machine", module = "kmst")]
pub struct PyMachine {
    /// The run as plain data (module doc).
    run: Detached,
    /// The pass it stands before, `None` once over.
    at: Option<u64>,
    scenario: bool,
    /// The default variant of `.run`.
    dispatch: Dispatch,
    /// The Python callables of `delay` and `result`, installed in the run.
    callables: Callables,
    /// Where the installed callables keep their first failure.
    failure: Option<Arc<Failure>>,
}

impl PyMachine {
    /// A machine of a run made by `make` from parameters with `callables`
    /// installed in them (with the GIL released when there is none).
    fn start(
        py: Python<'_>,
        mut params: Params,
        callables: Callables,
        dispatch: Dispatch,
        scenario: bool,
        make: impl FnOnce(&Params) -> PyResult<Resumable> + Send,
    ) -> PyResult<Self> {
        let failure = callables.any().then(|| callables.install(py, &mut params));
        // Making the machine calls no model: it checks and decodes.
        let (run, at) = py.detach(|| -> PyResult<_> {
            let mut r = make(&params)?;
            // An upload the check rejects is its pass 0 alone (the check's
            // error event, P1), and the engine cannot take the run back
            // before that pass (exec::resume refuses a run that goes on
            // without its stream): it runs at once, and is over.
            if let Answer::Stream(a) = r.answer()
                && a.check.is_some()
            {
                r.run(dispatch, Until::End);
            }
            let at = r.resume_at();
            Ok((r.detach(), at))
        })?;
        Ok(PyMachine {
            run,
            at,
            scenario,
            dispatch,
            callables,
            failure,
        })
    }

    /// The run as a `Resumable`, on this thread (a copy: the machine keeps its own).
    fn attached(&self) -> Resumable {
        self.run.clone().attach()
    }
}

with_keywords! {
    impl PyMachine;
    /// `Machine(upload, *, delay=0, ..., dispatch="tail")`: a run of
    /// `upload` before pass 0, with `simulate`'s keywords; `dispatch` is
    /// the variant `.run` takes unless told (a fast one).
    #[new]
    fn new<'py>[py: Python<'py>, upload: &Bound<'py, PyAny>,]
        signature [upload]
        keywords kw, dispatch: &'py str = "tail"
        -> PyResult<Self> {
        let dispatch = fast(dispatch)?;
        let data = upload_bytes(upload)?;
        let (params, callables) = params_of(&kw)?;
        PyMachine::start(py, params, callables, dispatch, false, |p| {
            Ok(Resumable::new(&data, p))
        })
    }
}

#[pymethods]
impl PyMachine {
    /// `Machine.from_scenario(scenario, *, dispatch="tail", base=None)`: a
    /// run of a scenario before pass 0. The scenario is a dict in the S36
    /// file shape (read as `Scenario.from_dict` reads it, `file` paths
    /// relative to `base`) or the path of a scenario file.
    #[classmethod]
    #[pyo3(signature = (scenario, *, dispatch="tail", base=None))]
    fn from_scenario(
        _cls: &Bound<'_, PyType>,
        py: Python<'_>,
        scenario: &Bound<'_, PyAny>,
        dispatch: &str,
        base: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let dispatch = fast(dispatch)?;
        let (s, callables) = scenario_of(py, scenario, base)?;
        let params = s.params().clone();
        let installed = callables.any();
        PyMachine::start(py, params, callables, dispatch, true, |p| {
            // The installed callables go in the scenario's parameters.
            let s = if installed {
                s.with_params(p.clone()).map_err(raise)?
            } else {
                s
            };
            Ok(Resumable::scenario(&s))
        })
    }

    /// `Machine.restore(data, dispatch="tail")`: the run a snapshot holds
    /// (bytes from `snapshot()`), ready to go on. A snapshot records no
    /// variant: `dispatch` is the new machine's.
    #[classmethod]
    #[pyo3(signature = (data, dispatch="tail"))]
    fn restore(
        _cls: &Bound<'_, PyType>,
        py: Python<'_>,
        data: &Bound<'_, PyAny>,
        dispatch: &str,
    ) -> PyResult<Self> {
        let dispatch = fast(dispatch)?;
        let bytes = snapshot_bytes(data)?;
        let (run, at, scenario) = py
            .detach(|| {
                Resumable::restore(&bytes).map(|r| {
                    let (at, scenario) = (r.resume_at(), r.is_scenario());
                    (r.detach(), at, scenario)
                })
            })
            .map_err(snapshot_error)?;
        Ok(PyMachine {
            run,
            at,
            scenario,
            dispatch,
            callables: Callables::default(),
            failure: None,
        })
    }

    /// `run(until_pass=None, *, passes=None, until_event=False,
    /// dispatch=None)`: runs on until before pass `until_pass`, for
    /// `passes` more passes, or after the next pass that posts an event;
    /// with none of them, to the end. Gives the pass it stands before, or
    /// None once the run is over.
    #[pyo3(signature = (until_pass=None, *, passes=None, until_event=false, dispatch=None))]
    fn run(
        &mut self,
        py: Python<'_>,
        until_pass: Option<&Bound<'_, PyAny>>,
        passes: Option<&Bound<'_, PyAny>>,
        until_event: bool,
        dispatch: Option<&str>,
    ) -> PyResult<Option<u64>> {
        let until = until_of(until_pass, passes, until_event)?;
        let dispatch = dispatch.map_or(Ok(self.dispatch), fast)?;
        let piece = self.run.clone();
        let (run, at) = match &self.failure {
            // A callable needs the GIL for each call.
            Some(failure) => {
                let mut r = piece.attach();
                let at = r.run(dispatch, until);
                if let Some(e) = failure.take() {
                    return Err(e);
                }
                (r.detach(), at)
            }
            None => py.detach(move || {
                let mut r = piece.attach();
                let at = r.run(dispatch, until);
                (r.detach(), at)
            }),
        };
        self.run = run;
        self.at = at;
        Ok(at)
    }

    /// The pass the run stands before (every pass before it has run);
    /// None once it is over.
    #[getter]
    fn next_pass(&self) -> Option<u64> {
        self.at
    }

    /// True once the run is over: `run` runs nothing more.
    #[getter]
    fn over(&self) -> bool {
        self.at.is_none()
    }

    /// The variant `run` takes unless told.
    #[getter]
    fn dispatch(&self) -> &'static str {
        self.dispatch.name()
    }

    /// What the run holds now, as a dict (a copy).
    #[getter]
    fn state<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        state_dict(py, &self.run.state(), self.scenario)
    }

    /// The answer so far (`SimResult` or `ScenarioResult`): the whole
    /// run's once it is over; before, a stream still active is stuck and a
    /// host command not yet taken is waiting (S16, S35).
    fn result(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let callables = self.callables.clone_ref(py);
        Ok(match self.attached().into_answer() {
            Answer::Stream(a) => Py::new(py, PySimResult::new(a, callables))?.into_any(),
            Answer::Scenario(a) => Py::new(py, PyScenarioResult::new(a, callables))?.into_any(),
        })
    }

    /// The run as bytes: versioned and checksummed, with its upload or
    /// scenario and parameters. A callable model cannot be saved: ValueError.
    fn snapshot<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let bytes = self.run.snapshot().map_err(snapshot_error)?;
        Ok(PyBytes::new(py, &bytes))
    }

    /// Pickling: `(Machine.restore, (snapshot, dispatch))`.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Reduced<'py>> {
        let restore = py.get_type::<PyMachine>().getattr("restore")?;
        Ok((restore, (self.snapshot(py)?, self.dispatch())))
    }

    fn __repr__(&self) -> String {
        let what = if self.scenario {
            "a scenario"
        } else {
            "one stream"
        };
        match self.at {
            Some(p) => format!(
                "Machine({what}, next_pass={p}, dispatch='{}')",
                self.dispatch()
            ),
            None => format!("Machine({what}, over, dispatch='{}')", self.dispatch()),
        }
    }
}

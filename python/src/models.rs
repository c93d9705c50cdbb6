//! The `delay` and `result` keywords (S23): a model in its Python form (an
//! int, a name, a list, a tagged tuple) or in its JSON form (as an answer's
//! `params` holds it), or any callable of the `SubmittedCommand`, which
//! stays a Python object here ([`Model::Callable`]) for the run to call.

use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyInt, PyList, PyString, PyTuple};

use crate::engine::{Delay, ResultModel};
use crate::errors::{U32, bad_param, param_int, params_error, repr};

/// A delay or result model as the caller gave it: a model, or a Python callable.
pub enum Model<M> {
    Fixed(M),
    Callable(Py<PyAny>),
}

/// The two-element `[base, modulo]` or `(base, modulo)` of a cycle.
fn cycle(items: &[Bound<'_, PyAny>]) -> PyResult<Delay> {
    match items {
        [base, modulo] => Delay::cycle(
            param_int(base, "delay", U32)? as u32,
            param_int(modulo, "delay", U32)? as u32,
        )
        .map_err(params_error),
        _ => Err(bad_param("delay", "cycle takes (base, modulo)")),
    }
}

fn items<'py>(obj: &Bound<'py, PyAny>, param: &'static str) -> PyResult<Vec<Bound<'py, PyAny>>> {
    if obj.is_instance_of::<PyList>() || obj.is_instance_of::<PyTuple>() {
        obj.try_iter()?.collect()
    } else {
        Err(bad_param(
            param,
            format!("expected a list, found {}", repr(obj)),
        ))
    }
}

fn delay_table(obj: &Bound<'_, PyAny>) -> PyResult<Delay> {
    let entries = items(obj, "delay")?
        .iter()
        .map(|e| {
            if e.is_none() {
                Ok(None)
            } else {
                param_int(e, "delay", U32).map(|v| Some(v as u32))
            }
        })
        .collect::<PyResult<Vec<_>>>()?;
    Delay::table(entries).map_err(params_error)
}

fn result_table(obj: &Bound<'_, PyAny>) -> PyResult<ResultModel> {
    let entries = items(obj, "result")?
        .iter()
        .map(|e| param_int(e, "result", U32).map(|v| v as u32))
        .collect::<PyResult<Vec<_>>>()?;
    ResultModel::table(entries).map_err(params_error)
}

fn result_arg(k: &Bound<'_, PyAny>) -> PyResult<ResultModel> {
    let k = param_int(k, "result", u64::from(u8::MAX))
        .map_err(|_| bad_param("result", format!("arg({}) is not in 0..=9", repr(k))))?;
    ResultModel::arg(k as u8).map_err(params_error)
}

/// A tagged model: `(name, ...)` or `{name: value}`.
fn tagged<'py>(
    obj: &Bound<'py, PyAny>,
    param: &'static str,
) -> PyResult<Option<(String, Vec<Bound<'py, PyAny>>)>> {
    if let Ok(t) = obj.cast::<PyTuple>() {
        let mut it = t.iter();
        let Some(name) = it.next() else {
            return Err(bad_param(param, "an empty tuple is not a model"));
        };
        let name: String = name
            .extract()
            .map_err(|_| bad_param(param, format!("unknown model {}", repr(obj))))?;
        return Ok(Some((name, it.collect())));
    }
    if let Ok(d) = obj.cast::<PyDict>() {
        if d.len() != 1 {
            return Err(bad_param(param, format!("unexpected value {}", repr(obj))));
        }
        let (name, value) = d.iter().next().expect("one key");
        let name: String = name
            .extract()
            .map_err(|_| bad_param(param, format!("unknown model {}", repr(obj))))?;
        // JSON's {"cycle": [base, modulo]} spreads like the tuple form.
        let rest = if name == "cycle" {
            items(&value, param)?
        } else {
            vec![value]
        };
        return Ok(Some((name, rest)));
    }
    Ok(None)
}

/// A model of `param` in the forms `delay` and `result` share (S23): an int
/// (the model `int` makes of it), a name (`word`), a list (`table`), a
/// tagged model (`("table", list)`, or what `tag` makes of the others), or a
/// callable; anything else is refused as not `expected`.
fn model<M>(
    obj: &Bound<'_, PyAny>,
    param: &'static str,
    int: impl Fn(u32) -> M,
    word: impl Fn(&str) -> Option<M>,
    table: impl Fn(&Bound<'_, PyAny>) -> PyResult<M>,
    tag: impl Fn(&str, &[Bound<'_, PyAny>]) -> Option<PyResult<M>>,
    expected: &str,
) -> PyResult<Model<M>> {
    let unknown = || bad_param(param, format!("unknown model {}", repr(obj)));
    if obj.is_instance_of::<PyInt>() && !obj.is_instance_of::<PyBool>() {
        return Ok(Model::Fixed(int(param_int(obj, param, U32)? as u32)));
    }
    if let Ok(s) = obj.cast::<PyString>() {
        // to_cow: in the limited API (abi3) before Python 3.10 too.
        let s = s.to_cow()?;
        return word(&s)
            .map(Model::Fixed)
            .ok_or_else(|| bad_param(param, format!("unknown model `{s}`")));
    }
    if obj.is_instance_of::<PyList>() {
        return table(obj).map(Model::Fixed);
    }
    if let Some((name, rest)) = tagged(obj, param)? {
        return match (name.as_str(), rest.as_slice()) {
            ("table", [t]) => table(t).map(Model::Fixed),
            (name, rest) => tag(name, rest)
                .unwrap_or_else(|| Err(unknown()))
                .map(Model::Fixed),
        };
    }
    if obj.is_callable() {
        return Ok(Model::Callable(obj.clone().unbind()));
    }
    Err(bad_param(
        param,
        format!("expected {expected}, found {}", repr(obj)),
    ))
}

/// `delay`: an int, None (never), ("cycle", base, modulo), a list (table),
/// the JSON forms, or a callable returning an int or None (S23).
pub fn delay_model(obj: &Bound<'_, PyAny>) -> PyResult<Model<Delay>> {
    if obj.is_none() {
        return Ok(Model::Fixed(Delay::Never));
    }
    model(
        obj,
        "delay",
        Delay::Fixed,
        |word| (word == "never").then_some(Delay::Never),
        delay_table,
        |name, rest| (name == "cycle").then(|| cycle(rest)),
        "an int, None, a model or a callable",
    )
}

/// `result`: an int (every result that value), "zero", "sequence", ("arg", k),
/// a list (table), the JSON forms, or a callable returning an int (S23).
pub fn result_model(obj: &Bound<'_, PyAny>) -> PyResult<Model<ResultModel>> {
    model(
        obj,
        "result",
        // A constant result is the one-entry table; 0 is the default model.
        |v| match v {
            0 => ResultModel::Zero,
            v => ResultModel::Table(vec![v]),
        },
        |word| match word {
            "zero" => Some(ResultModel::Zero),
            "sequence" => Some(ResultModel::Sequence),
            _ => None,
        },
        result_table,
        |name, rest| match (name, rest) {
            ("arg", [k]) => Some(result_arg(k)),
            _ => None,
        },
        "an int, a model or a callable",
    )
}

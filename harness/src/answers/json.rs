//! An answer as JSON (S24): the form in which answers are saved, printed and
//! compared field by field.

use serde_json::{Map, Value};

use kmst_reference::{SimResult, StreamError};

use super::implementation::{RunAnswer, RunArgs};
use super::source::CheckRunCase;

/// JSON of a `(reason, pc)` pair, as in S24.
pub fn error_json(e: Option<StreamError>) -> Value {
    match e {
        None => Value::Null,
        Some(e) => serde_json::json!({"reason": e.reason.number(), "pc": e.pc}),
    }
}

/// The answer fields (S24) of a run, without `params`.
pub fn run_json(result: &SimResult) -> Map<String, Value> {
    let mut m = match result.to_json_value() {
        Ok(Value::Object(m)) => m,
        Ok(other) => Map::from_iter([("answer".to_owned(), other)]),
        Err(e) => Map::from_iter([("answer".to_owned(), Value::String(e.to_string()))]),
    };
    m.remove("params");
    m
}

/// The `check_run` answers of a stream's cases, each with its arguments.
pub fn check_run_json(
    upload: &[u8],
    cases: &[CheckRunCase],
    check_run: impl Fn(&[u8], &RunArgs) -> RunAnswer,
) -> Value {
    let answers = cases
        .iter()
        .map(|c| {
            let (error, req) = check_run(upload, &c.args);
            let mut m = run_args_json(&c.args);
            m.insert("error".into(), error_json(error));
            m.insert("req".into(), req.into());
            Value::Object(m)
        })
        .collect();
    Value::Array(answers)
}

/// The arguments of a `check_run` call as they are saved beside its answer.
pub fn run_args_json(args: &RunArgs) -> Map<String, Value> {
    let active = args
        .active
        .iter()
        .map(|&(o, l)| serde_json::json!([o, l]))
        .collect();
    Map::from_iter([
        ("offset".to_owned(), args.offset.into()),
        ("region_size".to_owned(), args.region_size.into()),
        ("active".to_owned(), Value::Array(active)),
        ("active_reqs".to_owned(), args.active_reqs.clone().into()),
    ])
}

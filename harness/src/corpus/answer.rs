//! A stream's saved answer: `params`, `notes`, then the reference model's
//! answer (S24) and its `check_run` cases.

use serde_json::{Map, Value};

use super::{ANSWER_FIELDS, CorpusError};
use crate::answers::{DifferentialOracle, Implementation, Source, check_run_json, run_json};

/// The full saved answer of a stream: `params`, `notes`, then the reference
/// model's answer and, if the source has cases, `check_run`.
pub fn reference_answer(stream: &Source, upload: &[u8]) -> Result<Value, CorpusError> {
    let params = stream.params()?;
    let result = kmst_reference::simulate(upload, &params);
    let mut m = Map::new();
    let params_json = params.to_json_value().map_err(|e| CorpusError::Answer {
        stream: stream.name.clone(),
        message: format!("params: {e}"),
    })?;
    m.insert("params".into(), params_json);
    m.insert(
        "notes".into(),
        Value::String(stream.directives.notes.clone()),
    );
    m.extend(run_json(&result));
    if !stream.directives.check_run.is_empty() {
        m.insert(
            "check_run".into(),
            check_run_json(upload, &stream.directives.check_run, |d, a| {
                Implementation::Reference.check_run(d, a)
            }),
        );
    }
    Ok(Value::Object(m))
}

/// The answer fields of a saved answer that an implementation must reproduce.
pub fn answer_part(answer: &Value) -> Value {
    let mut m = Map::new();
    if let Value::Object(a) = answer {
        for k in ANSWER_FIELDS.iter().chain(["check_run"].iter()) {
            if let Some(v) = a.get(*k) {
                m.insert((*k).to_owned(), v.clone());
            }
        }
    }
    Value::Object(m)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::answers::first_difference;
    use serde_json::json;

    #[test]
    fn saved_key_order_decides_which_difference_is_first() {
        // An answer's part is in the saved order: `check` before `status`,
        // whatever order the object was built in.
        let a = answer_part(&json!({"status": "ended", "check": null, "notes": "x"}));
        let b = answer_part(&json!({"status": "error", "check": {"reason": 1, "pc": 0}}));
        assert_eq!(first_difference(&a, &b).unwrap().field, "check");
        assert_eq!(
            a.as_object().unwrap().len(),
            2,
            "notes is not part of the answer"
        );
    }
}

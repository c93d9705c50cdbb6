//! Replaying the corpus: every saved answer against every implementation
//! (`kmst corpus check`), and writing the answers (`kmst corpus write`).

use std::fmt;
use std::path::Path;

use serde_json::Value;

use kmst_reference::Params;

use super::answer::{answer_part, reference_answer};
use super::expect::{expect_at, expect_mismatch};
use super::render::render;
use super::{CorpusError, io_err, load};
use crate::answers::diff::diff_at;
use crate::answers::{
    CheckRunCase, Difference, DifferentialOracle, Source, check_run_json, first_difference,
    run_args_json, run_json,
};

/// One saved answer that some implementation does not reproduce.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    pub stream: String,
    /// `reference`, a dispatch variant's name, `asm` (a stale `.bin`),
    /// `source` (a stale `.json`) or `expect` (a hand-worked expectation).
    pub implementation: String,
    pub difference: Difference,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Mismatch {
            stream,
            implementation,
            difference,
        } = self;
        write!(f, "{stream}: {implementation}: {difference}")
    }
}

/// A saved stream: its source, its upload and its answer.
pub struct Saved {
    pub stream: Source,
    pub upload: Vec<u8>,
    pub answer: Value,
}

/// Reads a stream's source, `.bin` and `.json`.
pub fn load_saved(dir: &Path, name: &str) -> Result<Saved, CorpusError> {
    let stream = load(dir, name)?;
    let bin = dir.join(format!("{name}.bin"));
    let upload = std::fs::read(&bin).map_err(io_err(&bin))?;
    let json = dir.join(format!("{name}.json"));
    let text = std::fs::read_to_string(&json).map_err(io_err(&json))?;
    let answer = serde_json::from_str(&text).map_err(|e| CorpusError::Answer {
        stream: name.to_owned(),
        message: e.to_string(),
    })?;
    Ok(Saved {
        stream,
        upload,
        answer,
    })
}

/// Compares one saved stream with every implementation, and with its own
/// source (a stale `.bin` or `.json`) and its hand-worked expectations.
pub fn check_saved(
    saved: &Saved,
    impls: &[Box<dyn DifferentialOracle>],
) -> Result<Vec<Mismatch>, CorpusError> {
    let name = &saved.stream.name;
    let mut out = Vec::new();
    let mut push = |implementation: &str, difference: Difference| {
        out.push(Mismatch {
            stream: name.clone(),
            implementation: implementation.to_owned(),
            difference,
        })
    };
    let assembled = saved.stream.assemble()?;
    if assembled != saved.upload {
        let at = assembled
            .iter()
            .zip(&saved.upload)
            .position(|(a, b)| a != b)
            .unwrap_or(assembled.len().min(saved.upload.len()));
        push(
            "asm",
            Difference {
                field: format!("{name}.bin"),
                expected: format!("{} bytes as the source assembles", assembled.len()),
                got: format!(
                    "{} bytes, first difference at byte {at}",
                    saved.upload.len()
                ),
            },
        );
    }
    let saved_params = saved.answer.get("params").cloned().unwrap_or(Value::Null);
    let params = Params::from_json_value(&saved_params).map_err(|e| CorpusError::Answer {
        stream: name.clone(),
        message: format!("params: {e}"),
    })?;
    let source_params = saved
        .stream
        .params()?
        .to_json_value()
        .unwrap_or(Value::Null);
    if let Some(d) = diff_at("params", &source_params, &saved_params) {
        push("source", d);
    }
    let notes = Value::String(saved.stream.directives.notes.clone());
    if let Some(d) = diff_at(
        "notes",
        &notes,
        saved.answer.get("notes").unwrap_or(&Value::Null),
    ) {
        push("source", d);
    }
    if let Some(d) = check_run_inputs(&saved.stream.directives.check_run, &saved.answer) {
        push("source", d);
    }
    if let Some(expect) = &saved.stream.directives.expect
        && let Some(d) = expect_mismatch(expect, &saved.answer)
    {
        push("expect", d);
    }
    for (i, case) in saved.stream.directives.check_run.iter().enumerate() {
        if let Some(e) = &case.expect {
            let got = saved
                .answer
                .get("check_run")
                .and_then(|c| c.get(i))
                .cloned()
                .unwrap_or(Value::Null);
            if let Some(d) = expect_at(&format!("check_run[{i}]"), e, &got) {
                push("expect", d);
            }
        }
    }
    let want = answer_part(&saved.answer);
    let cases = &saved.stream.directives.check_run;
    for imp in impls {
        let mut got = run_json(&imp.simulate(&saved.upload, &params));
        if !cases.is_empty() {
            got.insert(
                "check_run".into(),
                check_run_json(&saved.upload, cases, |d, a| imp.check_run(d, a)),
            );
        }
        if let Some(d) = first_difference(&want, &answer_part(&Value::Object(got))) {
            push(&imp.name(), d);
        }
    }
    Ok(out)
}

fn check_run_inputs(cases: &[CheckRunCase], answer: &Value) -> Option<Difference> {
    let saved = answer.get("check_run");
    let mut want = Vec::new();
    for c in cases {
        want.push(Value::Object(run_args_json(&c.args)));
    }
    let got: Vec<Value> = match saved {
        None => Vec::new(),
        Some(Value::Array(a)) => a
            .iter()
            .map(|c| {
                let mut c = c.clone();
                if let Value::Object(m) = &mut c {
                    m.remove("error");
                    m.remove("req");
                }
                c
            })
            .collect(),
        Some(other) => vec![other.clone()],
    };
    diff_at("check_run", &Value::Array(want), &Value::Array(got))
}

/// Assembles a stream's source, runs the reference model and writes its
/// `.bin` and `.json`. Returns the hand-worked expectations the new answer
/// contradicts; when there are any, nothing is written unless `force`.
pub fn write_stream(dir: &Path, name: &str, force: bool) -> Result<Vec<Mismatch>, CorpusError> {
    let stream = load(dir, name)?;
    let upload = stream.assemble()?;
    let answer = reference_answer(&stream, &upload)?;
    let mut contradictions = Vec::new();
    if let Some(expect) = &stream.directives.expect
        && let Some(d) = expect_mismatch(expect, &answer)
    {
        contradictions.push(d);
    }
    for (i, case) in stream.directives.check_run.iter().enumerate() {
        if let Some(e) = &case.expect {
            let got = answer
                .get("check_run")
                .and_then(|c| c.get(i))
                .cloned()
                .unwrap_or(Value::Null);
            if let Some(d) = expect_at(&format!("check_run[{i}]"), e, &got) {
                contradictions.push(d);
            }
        }
    }
    if contradictions.is_empty() || force {
        let bin = dir.join(format!("{name}.bin"));
        super::replace::replace_file(&bin, &upload).map_err(io_err(&bin))?;
        let json = dir.join(format!("{name}.json"));
        super::replace::replace_file(&json, render(&answer).as_bytes()).map_err(io_err(&json))?;
    }
    Ok(contradictions
        .into_iter()
        .map(|difference| Mismatch {
            stream: name.to_owned(),
            implementation: "expect".into(),
            difference,
        })
        .collect())
}

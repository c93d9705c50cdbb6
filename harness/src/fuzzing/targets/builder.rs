//! Target `builder`: does every builder call do what the rules say, and does
//! every implementation run what the builder encodes alike?
//!
//! Input: `arbitrary::Unstructured` bytes for a [`Script`]. Judged against
//! [`builder_rules::expect`], the rules' own account of the script:
//! - no call panics;
//! - `Stream::new`, every call and the final `upload()` are accepted exactly
//!   when the rules accept them, and a refusal is one of the errors the
//!   rules give (P4: ranges; S7: the pool; a label of another stream, a
//!   label bound twice or never, a jump to the end);
//! - the encoded bytes, decoded with `kmst::format` (S10), hold the header,
//!   micro-ops (the prologue of S8, the resolved jumps) and templates (S9)
//!   the calls asked for; `encode()` is `upload().encode()`, of S2's length,
//!   and `Stream::decode` gives the upload back;
//! - the `check` target's comparison on the bytes: both checkers agree on
//!   `check` and `check_run` and accept, and the upload round-trips;
//! - every implementation, and one variant observed, runs the upload with
//!   [`builder_params`] to the same answer.

use std::fmt::Write as _;

use arbitrary::Unstructured;

use crate::answers::{RunArgs, with_checkers};
use crate::fuzzing::builder_rules::{self, Outcome, same_template};
use crate::fuzzing::divergence::{Divergence, caught};
use crate::fuzzing::script::Script;
use kmst::builder::BuildError;
use kmst::format::{Upload, upload_len};
use kmst_reference::Params;

use super::agreement::{Agreement, Target, divergence};
use super::check::check_with;
use super::sim::sim_all;

/// The most passes a built stream runs: scripts loop freely, and a few
/// passes already take every turn, submit and queue path the calls reach.
pub const BUILDER_PASSES: u64 = 32;

/// The parameters a built upload runs with: the defaults of S23, at most
/// [`BUILDER_PASSES`] passes.
pub fn builder_params() -> Params {
    Params {
        max_passes: BUILDER_PASSES,
        ..Params::default()
    }
}

pub(super) fn builder(input: &[u8]) -> Result<Agreement, Divergence> {
    let mut u = Unstructured::new(input);
    let Ok(script) = Script::arbitrary(&mut u) else {
        return Ok(Agreement::Skipped);
    };
    builder_with(&script)
}

fn fail(title: impl Into<String>, body: String, script: &Script) -> Divergence {
    let mut body = body;
    let _ = writeln!(body, "script: {script:#?}");
    divergence(Target::Builder, title.into(), body)
}

fn expected_text(o: &Outcome) -> String {
    match o {
        Ok(()) => "done".into(),
        Err(errors) => {
            let list: Vec<String> = errors.iter().map(|e| format!("{e:?}")).collect();
            format!("refused with one of [{}]", list.join(", "))
        }
    }
}

/// Whether the builder's answer is one the rules allow.
fn allowed<T>(want: &Result<T, Vec<BuildError>>, got: &Result<(), BuildError>) -> bool {
    match (want, got) {
        (Ok(_), Ok(())) => true,
        (Err(errors), Err(e)) => errors.contains(e),
        _ => false,
    }
}

/// The builder target's properties for one script.
pub fn builder_with(script: &Script) -> Result<Agreement, Divergence> {
    let played = match caught(|| script.run()) {
        Err(p) => return Err(fail("a builder call panicked", format!("{p}\n"), script)),
        Ok(p) => p,
    };
    let want = builder_rules::expect(script);
    let played = match played {
        Err(e) => {
            if !allowed(&want.new, &Err(e.clone())) {
                return Err(fail(
                    "Stream::new refused a header the rules do not (P4)",
                    format!("got {e:?}, expected {}\n", expected_text(&want.new)),
                    script,
                ));
            }
            return Ok(Agreement::Builder { built: None });
        }
        Ok(p) => p,
    };
    if want.new.is_err() {
        return Err(fail(
            "Stream::new accepted a header the rules refuse (P4)",
            format!("expected {}\n", expected_text(&want.new)),
            script,
        ));
    }
    for (k, (got, want)) in played.outcomes.iter().zip(&want.calls).enumerate() {
        if !allowed(want, got) {
            return Err(fail(
                format!("call {k} was not answered as the rules say"),
                format!(
                    "call {k}: {:?}\n  builder: {got:?}\n  rules: {}\n",
                    script.calls[k],
                    expected_text(want)
                ),
                script,
            ));
        }
    }
    let upload = match (&want.upload, played.upload) {
        (want_upload, Err(e)) => {
            if !allowed(want_upload, &Err(e.clone())) {
                let rules = match want_upload {
                    Ok(_) => "an upload".to_owned(),
                    Err(errors) => format!("refused with one of {errors:?}"),
                };
                return Err(fail(
                    "upload() was not answered as the rules say",
                    format!("builder: {e:?}\nrules: {rules}\n"),
                    script,
                ));
            }
            return Ok(Agreement::Builder { built: None });
        }
        (Err(errors), Ok(u)) => {
            return Err(fail(
                "upload() gave an upload the rules refuse",
                format!("rules: refused with one of {errors:?}\nbuilt: {u:?}\n"),
                script,
            ));
        }
        (Ok(_), Ok(u)) => u,
    };
    let expected = want.upload.as_ref().expect("matched Ok above");
    let bytes = match played.stream.encode() {
        Ok(b) => b,
        Err(e) => {
            return Err(fail(
                "upload() succeeded but encode() failed",
                format!("{e}\n"),
                script,
            ));
        }
    };
    if bytes != upload.encode() {
        return Err(fail(
            "encode() is not upload().encode()",
            String::new(),
            script,
        ));
    }
    if bytes.len() != upload_len(upload.ops.len(), upload.templates.len()) {
        return Err(fail(
            "the encoded length is not S2's",
            format!("{} bytes\n", bytes.len()),
            script,
        ));
    }
    match kmst::builder::Stream::decode(&bytes) {
        Ok(back) if back == upload => {}
        other => {
            return Err(fail(
                "decode(encode(s)) != s (S10)",
                format!("decode: {other:?}\nbuilt: {upload:?}\n"),
                script,
            ));
        }
    }
    match Upload::decode(&bytes) {
        Ok(decoded) => asked_for(expected, &decoded, script)?,
        Err(e) => {
            return Err(fail(
                "kmst::format cannot decode what the builder encoded",
                format!("{e:?}\n"),
                script,
            ));
        }
    }
    let len = bytes.len() as u64;
    let args = RunArgs {
        offset: 0,
        region_size: len,
        active: Vec::new(),
        active_reqs: Vec::new(),
    };
    match with_checkers(|c| check_with(Target::Builder, &bytes, len, &args, c))? {
        Agreement::Check {
            check: None,
            run: (None, _),
        } => {}
        other => {
            return Err(fail(
                "the checkers reject what the builder encoded",
                format!("{other}\n"),
                script,
            ));
        }
    }
    sim_all(Target::Builder, &bytes, &builder_params())?;
    Ok(Agreement::Builder {
        built: Some((upload.ops.len(), upload.templates.len())),
    })
}

/// The decoded upload holds what the calls asked for: the header, every
/// micro-op and every template.
fn asked_for(want: &Upload, got: &Upload, script: &Script) -> Result<(), Divergence> {
    if want.header != got.header {
        return Err(fail(
            "the header is not the one Stream::new was given",
            format!("rules: {:?}\ndecoded: {:?}\n", want.header, got.header),
            script,
        ));
    }
    if want.ops.len() != got.ops.len() {
        return Err(fail(
            "the upload has another number of micro-ops than the calls ask for",
            format!("rules: {}\ndecoded: {}\n", want.ops.len(), got.ops.len()),
            script,
        ));
    }
    if let Some(pc) = (0..want.ops.len()).find(|&pc| want.ops[pc] != got.ops[pc]) {
        return Err(fail(
            format!("micro-op {pc} is not the one the calls ask for (S8)"),
            format!(
                "rules: {:?}\ndecoded: {:?}\n({} constants in the prologue)\n",
                want.ops[pc],
                got.ops[pc],
                want.ops
                    .iter()
                    .take_while(|o| o.op == kmst::ops::Opcode::Set as u8)
                    .count()
            ),
            script,
        ));
    }
    if want.templates.len() != got.templates.len() {
        return Err(fail(
            "the upload has another number of templates than the calls ask for (S9)",
            format!(
                "rules: {}\ndecoded: {}\n",
                want.templates.len(),
                got.templates.len()
            ),
            script,
        ));
    }
    if let Some(j) =
        (0..want.templates.len()).find(|&j| !same_template(&want.templates[j], &got.templates[j]))
    {
        return Err(fail(
            format!("template {j} is not the one its call asks for (S9)"),
            format!(
                "rules: {:?}\ndecoded: {:?}\n",
                want.templates[j], got.templates[j]
            ),
            script,
        ));
    }
    Ok(())
}

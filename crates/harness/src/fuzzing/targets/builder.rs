//! Target `builder`: does a script of builder calls never panic, and is
//! an upload the builder encodes one both checkers accept and that decodes
//! back (S10)?
//!
//! Input: `arbitrary::Unstructured` bytes for a [`Script`].

use arbitrary::Unstructured;

use crate::answers::checkers;
use crate::fuzzing::report::{Divergence, caught, disasm_around};
use crate::fuzzing::script::Script;
use kmst::format::upload_len;

use super::{Agreement, Target, divergence};

pub(super) fn builder(input: &[u8]) -> Result<Agreement, Divergence> {
    let mut u = Unstructured::new(input);
    let Ok(script) = Script::arbitrary(&mut u) else {
        return Ok(Agreement::Skipped);
    };
    builder_with(&script)
}

/// The builder target's properties for one script.
pub fn builder_with(script: &Script) -> Result<Agreement, Divergence> {
    let target = Target::Builder;
    let played = match caught(|| script.run()) {
        Err(p) => {
            return Err(divergence(
                target,
                "a builder call panicked".into(),
                format!("{p}\nscript: {script:#?}\n"),
            ));
        }
        Ok(Err(_)) => return Ok(Agreement::Builder { built: None }),
        Ok(Ok(played)) => played,
    };
    let (stream, upload) = (played.stream, played.upload);
    let upload = match upload {
        Err(_) => return Ok(Agreement::Builder { built: None }),
        Ok(u) => u,
    };
    let bytes = match stream.encode() {
        Ok(b) => b,
        Err(e) => {
            return Err(divergence(
                target,
                "upload() succeeded but encode() failed".into(),
                format!("{e}\nscript: {script:#?}\n"),
            ));
        }
    };
    if bytes != upload.encode() {
        return Err(divergence(
            target,
            "encode() is not upload().encode()".into(),
            format!("script: {script:#?}\n"),
        ));
    }
    let len = bytes.len() as u64;
    for c in &checkers() {
        if let Err(e) = c.check(&bytes, len) {
            return Err(divergence(
                target,
                format!("the {} checker rejects what the builder encoded", c.name()),
                format!(
                    "reason {} at pc {}\n{}script: {script:#?}\n",
                    e.reason.number(),
                    e.pc,
                    disasm_around(&bytes, &[e.pc])
                ),
            ));
        }
    }
    match kmst::builder::Stream::decode(&bytes) {
        Ok(back) if back == upload => {}
        other => {
            return Err(divergence(
                target,
                "decode(encode(s)) != s (S10)".into(),
                format!("decode: {other:?}\nbuilt: {upload:?}\n"),
            ));
        }
    }
    if bytes.len() != upload_len(upload.ops.len(), upload.templates.len()) {
        return Err(divergence(
            target,
            "the encoded length is not S2's".into(),
            format!("{} bytes\n", bytes.len()),
        ));
    }
    Ok(Agreement::Builder {
        built: Some((upload.ops.len(), upload.templates.len())),
    })
}

//! Scenario files (S36) whose uploads may be `.kms` assembly text.
//!
//! The reference reader ([`json::from_json`]) takes a loader for the
//! uploads; this one assembles a `.kms` file and reads anything else as raw
//! bytes (S36 lets an implementation accept its own assembly text). It is
//! the one place the harness turns an upload's file into bytes, so that it
//! can give way to the engine's own scenario loader.

use std::path::Path;

use kmst::reference::scenario::{Entry, Problem, Scenario, ScenarioError, json};

/// An upload's bytes from its file's contents: `.kms` text assembled, else as they are.
pub fn upload_bytes(path: &Path, bytes: Vec<u8>) -> Result<Vec<u8>, String> {
    if path.extension().is_some_and(|e| e == "kms") {
        let text = String::from_utf8(bytes).map_err(|_| "not UTF-8 text".to_owned())?;
        kmst::asm::assemble(&text).map_err(|e| e.to_string())
    } else {
        Ok(bytes)
    }
}

/// A scenario from its JSON `text`; `read` gives a file's contents (the
/// path joined to `path`'s folder), which [`upload_bytes`] turns into an upload.
pub fn from_json(
    text: &str,
    path: &Path,
    read: &mut dyn FnMut(&Path) -> Result<Vec<u8>, String>,
) -> Result<Scenario, ScenarioError> {
    json::from_json(text, path, &mut |p: &Path| upload_bytes(p, read(p)?))
}

/// Reads the scenario file at `path` and its uploads from the disk.
pub fn read(path: &Path) -> Result<Scenario, ScenarioError> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        ScenarioError::new(
            Entry::File,
            "",
            Problem::File {
                path: path.display().to_string(),
                message: e.to_string(),
            },
        )
    })?;
    from_json(&text, path, &mut |p: &Path| {
        std::fs::read(p).map_err(|e| e.to_string())
    })
}

/// `scenario` with other parameters (a budget sweep, a run flag): the same
/// placements and host commands under `params`, refused as the file would be.
pub fn with_params(
    scenario: &Scenario,
    params: kmst::reference::Params,
) -> Result<Scenario, ScenarioError> {
    let mut s = Scenario::new(params)?;
    for u in scenario.uploads() {
        s.place(u.offset, u.bytes.clone())?;
    }
    for h in scenario.host() {
        s.push(h.pass, h.command)?;
    }
    Ok(s)
}

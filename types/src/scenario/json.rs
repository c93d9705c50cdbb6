//! The scenario file (S36): JSON in, a [`Scenario`] out, or the first error
//! naming the entry and the field (and nothing runs).
//!
//! The parts are read in file order: `params`, then `uploads` (each file is
//! loaded and placed, so that a `run` without `length` can take the length of
//! the upload at its offset), then `host`. Each of the three may be left out
//! (P7). How an upload's `file` becomes bytes is the caller's: [`from_json`]
//! takes a loader, and [`read_file`] loads raw bytes (an engine may assemble
//! its own assembly text instead).

#[allow(unused_imports)]
use crate::prelude::*;

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::{Entry, HostCommand, Problem, Scenario, ScenarioError};
use crate::params::{PARAM_KEYS, Params};

/// Turns an upload's path (already joined to the scenario file's folder)
/// into its bytes, or says why it cannot.
pub type Loader<'a> = dyn FnMut(&Path) -> Result<Vec<u8>, String> + 'a;

/// The kinds of host command, as S36 spells their keys.
const KINDS: [&str; 5] = ["run", "cancel", "deadline", "submit", "enqueue"];

fn fail<T>(entry: Entry, field: impl Into<String>, problem: Problem) -> Result<T, ScenarioError> {
    Err(ScenarioError::new(entry, field, problem))
}

/// Reads the scenario file at `path` (S36, P7); uploads are read as raw bytes,
/// relative to the file's folder.
pub fn read_file(path: &Path) -> Result<Scenario, ScenarioError> {
    read_file_with(path, &mut |p: &Path| {
        std::fs::read(p).map_err(|e| format!("cannot be read: {e}"))
    })
}

/// [`read_file`] with each upload read by `load`.
pub fn read_file_with(path: &Path, load: &mut Loader) -> Result<Scenario, ScenarioError> {
    let text = std::fs::read_to_string(path).or_else(|e| {
        fail(
            Entry::File,
            "",
            Problem::File {
                path: path.display().to_string(),
                message: format!("cannot be read: {e}"),
            },
        )
    })?;
    from_json(&text, path, load)
}

/// Reads a scenario from its JSON text (S36, P7); `path` is the scenario file's (each
/// upload's `file` is relative to its folder), `load` reads one upload.
pub fn from_json(text: &str, path: &Path, load: &mut Loader) -> Result<Scenario, ScenarioError> {
    let value: Value = serde_json::from_str(text)
        .or_else(|e| fail(Entry::File, "", Problem::NotJson(e.to_string())))?;
    let Some(top) = value.as_object() else {
        return fail(Entry::File, "", Problem::WrongType("a JSON object"));
    };
    if let Some(key) = top
        .keys()
        .find(|k| !["params", "uploads", "host"].contains(&k.as_str()))
    {
        return fail(Entry::File, key.as_str(), Problem::UnknownKey);
    }
    let params = match top.get("params") {
        Some(v) => params_from_json(v)?,
        None => Params::default(),
    };
    let mut scenario = Scenario::new(params)?;
    let folder = path.parent().map_or_else(PathBuf::new, Path::to_path_buf);
    if let Some(v) = top.get("uploads") {
        for (i, u) in list(v, "uploads")?.iter().enumerate() {
            let (offset, bytes) = upload_from_json(u, Entry::Upload(i), &folder, load)?;
            scenario.place(u64::from(offset), bytes)?;
        }
    }
    if let Some(v) = top.get("host") {
        for (i, h) in list(v, "host")?.iter().enumerate() {
            let entry = Entry::Host(i);
            let (pass, command) = host_from_json(h, entry, &scenario)?;
            scenario.push(u64::from(pass), command)?;
        }
    }
    Ok(scenario)
}

/// S24's params without `cancel_pass` (S26).
fn params_from_json(v: &Value) -> Result<Params, ScenarioError> {
    let Some(o) = v.as_object() else {
        return fail(Entry::Params, "", Problem::WrongType("a JSON object"));
    };
    for key in o.keys() {
        if key == "cancel_pass" {
            return fail(Entry::Params, "cancel_pass", Problem::CancelPass);
        }
        if !PARAM_KEYS.contains(&key.as_str()) {
            return fail(Entry::Params, key.as_str(), Problem::UnknownKey);
        }
    }
    Params::from_json_value(v).or_else(|e| fail(Entry::Params, e.param, Problem::Param(e)))
}

fn list<'a>(v: &'a Value, field: &str) -> Result<&'a Vec<Value>, ScenarioError> {
    match v.as_array() {
        Some(a) => Ok(a),
        None => fail(Entry::File, field, Problem::WrongType("an array")),
    }
}

/// Every number of a scenario is a u32 (S36; a boolean is not a number).
fn u32_of(v: &Value, entry: Entry, field: &str) -> Result<u32, ScenarioError> {
    match v.as_u64().and_then(|n| u32::try_from(n).ok()) {
        Some(n) => Ok(n),
        None => fail(entry, field, Problem::NotU32(v.to_string())),
    }
}

/// One JSON object of an entry, with the names its errors report: the key,
/// after `prefix.` for a command's own object (`run.length`).
struct Fields<'a> {
    o: &'a Map<String, Value>,
    entry: Entry,
    prefix: &'static str,
}

impl<'a> Fields<'a> {
    /// `v` as an object whose keys are all among `keys`.
    fn open(
        v: &'a Value,
        entry: Entry,
        prefix: &'static str,
        keys: &[&str],
    ) -> Result<Fields<'a>, ScenarioError> {
        let Some(o) = v.as_object() else {
            return fail(entry, prefix, Problem::WrongType("a JSON object"));
        };
        let fields = Fields { o, entry, prefix };
        if let Some(key) = o.keys().find(|k| !keys.contains(&k.as_str())) {
            return fail(entry, fields.name(key), Problem::UnknownKey);
        }
        Ok(fields)
    }

    fn name(&self, key: &str) -> String {
        if self.prefix.is_empty() {
            key.to_string()
        } else {
            format!("{}.{key}", self.prefix)
        }
    }

    fn fail<T>(&self, key: &str, problem: Problem) -> Result<T, ScenarioError> {
        fail(self.entry, self.name(key), problem)
    }

    fn u32(&self, key: &str) -> Result<u32, ScenarioError> {
        match self.o.get(key) {
            Some(v) => u32_of(v, self.entry, &self.name(key)),
            None => self.fail(key, Problem::Missing),
        }
    }

    fn str(&self, key: &str) -> Result<&'a str, ScenarioError> {
        match self.o.get(key).map(Value::as_str) {
            Some(Some(s)) => Ok(s),
            Some(None) => self.fail(key, Problem::WrongType("a string")),
            None => self.fail(key, Problem::Missing),
        }
    }

    /// `false` when left out (S36).
    fn flag(&self, key: &str) -> Result<bool, ScenarioError> {
        match self.o.get(key).map(Value::as_bool) {
            None => Ok(false),
            Some(Some(b)) => Ok(b),
            Some(None) => self.fail(key, Problem::WrongType("true or false")),
        }
    }

    /// Up to ten u32 words padded with 0; all 0 when left out (S27, S36).
    fn args(&self, key: &str) -> Result<[u32; 10], ScenarioError> {
        let mut args = [0u32; 10];
        let words = match self.o.get(key).map(Value::as_array) {
            None => return Ok(args),
            Some(Some(words)) => words,
            Some(None) => return self.fail(key, Problem::WrongType("an array")),
        };
        if words.len() > 10 {
            return self.fail(key, Problem::TooManyArgs(words.len()));
        }
        for (k, w) in words.iter().enumerate() {
            args[k] = u32_of(w, self.entry, &format!("{}[{k}]", self.name(key)))?;
        }
        Ok(args)
    }
}

/// One upload: `{"offset": O, "file": PATH}`.
fn upload_from_json(
    v: &Value,
    entry: Entry,
    folder: &Path,
    load: &mut Loader,
) -> Result<(u32, Vec<u8>), ScenarioError> {
    let f = Fields::open(v, entry, "", &["offset", "file"])?;
    let offset = f.u32("offset")?;
    let full = folder.join(f.str("file")?);
    match load(&full) {
        Ok(bytes) => Ok((offset, bytes)),
        Err(message) => f.fail(
            "file",
            Problem::File {
                path: full.display().to_string(),
                message,
            },
        ),
    }
}

/// One host entry: `{"pass": P, KIND: ...}` with exactly one kind (S36).
fn host_from_json(
    v: &Value,
    entry: Entry,
    scenario: &Scenario,
) -> Result<(u32, HostCommand), ScenarioError> {
    let mut keys = vec!["pass"];
    keys.extend(KINDS);
    let f = Fields::open(v, entry, "", &keys)?;
    let pass = f.u32("pass")?;
    // The kinds present, in the entry's own order, so an error names them as written.
    let kinds: Vec<&'static str> =
        f.o.keys()
            .filter_map(|key| KINDS.iter().copied().find(|k| k == key))
            .collect();
    let kind = match kinds.as_slice() {
        [] => return fail(entry, "", Problem::NoKind),
        [one] => *one,
        [a, b, ..] => return fail(entry, *b, Problem::TwoKinds(a, b)),
    };
    let value = &f.o[kind];
    let command = match kind {
        "cancel" => HostCommand::Cancel {
            req: f.u32("cancel")?,
        },
        "deadline" => HostCommand::Deadline {
            us: f.u32("deadline")?,
        },
        "run" => {
            let r = Fields::open(value, entry, "run", &["offset", "length"])?;
            let offset = r.u32("offset")?;
            let length = match r.o.get("length") {
                Some(_) => r.u32("length")?,
                // S36: the length of the upload placed at that offset.
                None => match scenario.placed_length(u64::from(offset)) {
                    Some(n) => match u32::try_from(n) {
                        Ok(n) => n,
                        Err(_) => return r.fail("length", Problem::NotU32(n.to_string())),
                    },
                    None => return r.fail("length", Problem::RunWithoutLength(offset)),
                },
            };
            HostCommand::Run { offset, length }
        }
        "submit" => {
            let keys = ["handler", "first", "count", "args", "exclusive", "result"];
            let s = Fields::open(value, entry, "submit", &keys)?;
            HostCommand::Submit {
                handler: s.u32("handler")?,
                first: s.u32("first")?,
                count: s.u32("count")?,
                args: s.args("args")?,
                exclusive: s.flag("exclusive")?,
                result: s.flag("result")?,
            }
        }
        _ => {
            let keys = ["handler", "count", "args", "exclusive", "result"];
            let s = Fields::open(value, entry, "enqueue", &keys)?;
            HostCommand::Enqueue {
                handler: s.u32("handler")?,
                count: s.u32("count")?,
                args: s.args("args")?,
                exclusive: s.flag("exclusive")?,
                result: s.flag("result")?,
            }
        }
    };
    Ok((pass, command))
}

//! The golden corpus: named reference streams and their saved answers.
//!
//! Each stream is a `.kms` source in `corpus/streams/` whose directive comments
//! (`;@ params`, `;@ notes`, `;@ expect`, `;@ check_run`, `;@ covers`, see
//! `docs/corpus.md`) carry its simulation parameters and what it exercises.
//! Beside it lie the assembled upload (`NAME.bin`) and the saved answer
//! (`NAME.json`: `params`, `notes`, then the reference model's full answer,
//! S24). The corpus exists so that every implementation can be replayed
//! against the same answers and so that a slip in the reference model changes
//! some saved answer. This module loads it, writes it, and compares a saved
//! answer with a new one, naming the first differing field.

use std::fmt;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use kmst::reference::{self, Params, SimResult, StreamError};

/// The default corpus directory, relative to the workspace root.
pub const DEFAULT_DIR: &str = "corpus/streams";

/// The top-level fields of a saved answer, in the order they are written.
pub const ANSWER_FIELDS: [&str; 8] = [
    "check", "commands", "events", "status", "passes", "error", "halt", "stopped",
];

/// Anything that stops the corpus from being read or written.
#[derive(Debug)]
pub enum CorpusError {
    /// A file could not be read or written.
    Io { path: PathBuf, err: std::io::Error },
    /// A directive comment of a source is malformed.
    Directive {
        stream: String,
        line: usize,
        message: String,
    },
    /// A `.kms` source does not assemble.
    Assemble { stream: String, message: String },
    /// A saved `.json` answer is not what the corpus writes.
    Answer { stream: String, message: String },
    /// A stream name was asked for that has no source.
    Unknown { stream: String },
}

impl fmt::Display for CorpusError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CorpusError::Io { path, err } => write!(f, "{}: {err}", path.display()),
            CorpusError::Directive {
                stream,
                line,
                message,
            } => write!(f, "{stream}.kms:{line}: {message}"),
            CorpusError::Assemble { stream, message } => {
                write!(f, "{stream}.kms does not assemble: {message}")
            }
            CorpusError::Answer { stream, message } => write!(f, "{stream}.json: {message}"),
            CorpusError::Unknown { stream } => write!(f, "no stream named `{stream}`"),
        }
    }
}

impl std::error::Error for CorpusError {}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> CorpusError + '_ {
    move |err| CorpusError::Io {
        path: path.to_owned(),
        err,
    }
}

/// One `;@ check_run {...}` case: the arguments of `check_run` and, optionally,
/// the hand-worked answer.
#[derive(Clone, Debug, PartialEq)]
pub struct CheckRunCase {
    pub offset: u64,
    pub region_size: u64,
    pub active: Vec<(u64, u64)>,
    pub active_reqs: Vec<u32>,
    /// `{"error": null | {reason, pc}, "req": N}` worked out by hand.
    pub expect: Option<Value>,
}

/// What a source's directive comments say.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Directives {
    /// The `;@ notes` lines joined with spaces.
    pub notes: String,
    /// The `;@ params` object (S24; missing keys take their defaults).
    pub params: Map<String, Value>,
    /// The `;@ expect` object: a hand-worked part of the answer (see [`expect_mismatch`]).
    pub expect: Option<Value>,
    /// The `;@ check_run` cases.
    pub check_run: Vec<CheckRunCase>,
    /// The `;@ covers` tags.
    pub covers: Vec<String>,
}

/// Reads the directive comments of a source (`stream` names it in errors).
pub fn parse_directives(stream: &str, text: &str) -> Result<Directives, CorpusError> {
    let mut d = Directives::default();
    let mut notes = Vec::new();
    let (mut params, mut expect) = (String::new(), String::new());
    let (mut params_line, mut expect_line) = (0, 0);
    let bad = |line: usize, message: String| CorpusError::Directive {
        stream: stream.to_owned(),
        line,
        message,
    };
    for (i, raw) in text.lines().enumerate() {
        let line_no = i + 1;
        let Some(rest) = raw.trim_start().strip_prefix(";@") else {
            continue;
        };
        let rest = rest.trim();
        let (key, value) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
        let value = value.trim();
        match key {
            "notes" => notes.push(value.to_owned()),
            "params" => {
                params_line = params_line.max(line_no);
                params.push_str(value);
            }
            "expect" => {
                expect_line = expect_line.max(line_no);
                expect.push_str(value);
            }
            "covers" => d.covers.extend(value.split_whitespace().map(str::to_owned)),
            "check_run" => {
                let v: Value = serde_json::from_str(value)
                    .map_err(|e| bad(line_no, format!("check_run: {e}")))?;
                d.check_run.push(
                    parse_check_run_case(&v)
                        .map_err(|m| bad(line_no, format!("check_run: {m}")))?,
                );
            }
            other => return Err(bad(line_no, format!("unknown directive `;@ {other}`"))),
        }
    }
    d.notes = notes.join(" ");
    if !params.is_empty() {
        match serde_json::from_str(&params) {
            Ok(Value::Object(m)) => d.params = m,
            Ok(_) => return Err(bad(params_line, "params: not a JSON object".into())),
            Err(e) => return Err(bad(params_line, format!("params: {e}"))),
        }
    }
    if !expect.is_empty() {
        match serde_json::from_str(&expect) {
            Ok(v @ Value::Object(_)) => d.expect = Some(v),
            Ok(_) => return Err(bad(expect_line, "expect: not a JSON object".into())),
            Err(e) => return Err(bad(expect_line, format!("expect: {e}"))),
        }
    }
    Ok(d)
}

fn parse_check_run_case(v: &Value) -> Result<CheckRunCase, String> {
    let obj = v.as_object().ok_or("not a JSON object")?;
    let u64_of = |key: &str| -> Result<u64, String> {
        obj.get(key)
            .ok_or(format!("`{key}` is missing"))?
            .as_u64()
            .ok_or(format!("`{key}` is not an unsigned integer"))
    };
    let mut case = CheckRunCase {
        offset: u64_of("offset")?,
        region_size: u64_of("region_size")?,
        active: Vec::new(),
        active_reqs: Vec::new(),
        expect: obj.get("expect").cloned(),
    };
    if let Some(a) = obj.get("active") {
        for r in a.as_array().ok_or("`active` is not an array")? {
            match r.as_array().map(|p| (p.first(), p.get(1), p.len())) {
                Some((Some(o), Some(l), 2)) => case.active.push((
                    o.as_u64().ok_or("`active` offset is not an integer")?,
                    l.as_u64().ok_or("`active` length is not an integer")?,
                )),
                _ => return Err("`active` entries are [offset, length]".into()),
            }
        }
    }
    if let Some(a) = obj.get("active_reqs") {
        for r in a.as_array().ok_or("`active_reqs` is not an array")? {
            let n = r.as_u64().filter(|&n| n <= u64::from(u32::MAX));
            case.active_reqs
                .push(n.ok_or("`active_reqs` entries are u32")? as u32);
        }
    }
    for key in obj.keys() {
        if !matches!(
            key.as_str(),
            "offset" | "region_size" | "active" | "active_reqs" | "expect"
        ) {
            return Err(format!("unknown key `{key}`"));
        }
    }
    Ok(case)
}

/// One stream of the corpus: its name and source.
#[derive(Clone, Debug)]
pub struct Stream {
    pub name: String,
    /// The `.kms` text.
    pub source: String,
    pub directives: Directives,
}

impl Stream {
    /// The simulation parameters its `;@ params` directive gives (defaults for the rest).
    pub fn params(&self) -> Result<Params, CorpusError> {
        Params::from_json_value(&Value::Object(self.directives.params.clone())).map_err(|e| {
            CorpusError::Directive {
                stream: self.name.clone(),
                line: 0,
                message: format!("params: {e}"),
            }
        })
    }

    /// The upload its source assembles to.
    pub fn assemble(&self) -> Result<Vec<u8>, CorpusError> {
        kmst::asm::assemble(&self.source).map_err(|e| CorpusError::Assemble {
            stream: self.name.clone(),
            message: e.to_string(),
        })
    }
}

/// The names of every `.kms` source in `dir`, sorted.
pub fn stream_names(dir: &Path) -> Result<Vec<String>, CorpusError> {
    let mut names = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(io_err(dir))? {
        let path = entry.map_err(io_err(dir))?.path();
        if path.extension().is_some_and(|e| e == "kms")
            && let Some(stem) = path.file_stem().and_then(|s| s.to_str())
        {
            names.push(stem.to_owned());
        }
    }
    names.sort();
    Ok(names)
}

/// Reads the source of stream `name` from `dir`.
pub fn load(dir: &Path, name: &str) -> Result<Stream, CorpusError> {
    let path = dir.join(format!("{name}.kms"));
    if !path.exists() {
        return Err(CorpusError::Unknown {
            stream: name.to_owned(),
        });
    }
    let source = std::fs::read_to_string(&path).map_err(io_err(&path))?;
    let directives = parse_directives(name, &source)?;
    Ok(Stream {
        name: name.to_owned(),
        source,
        directives,
    })
}

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
    check_run: impl Fn(&[u8], u64, u64, &[(u64, u64)], &[u32]) -> (Option<StreamError>, u32),
) -> Value {
    let answers = cases
        .iter()
        .map(|c| {
            let (error, req) = check_run(upload, c.offset, c.region_size, &c.active, &c.active_reqs);
            serde_json::json!({
                "offset": c.offset,
                "region_size": c.region_size,
                "active": c.active.iter().map(|&(o, l)| serde_json::json!([o, l])).collect::<Vec<_>>(),
                "active_reqs": c.active_reqs,
                "error": error_json(error),
                "req": req,
            })
        })
        .collect();
    Value::Array(answers)
}

/// The full saved answer of a stream: `params`, `notes`, then the reference
/// model's answer and, if the source has cases, `check_run`.
pub fn reference_answer(stream: &Stream, upload: &[u8]) -> Result<Value, CorpusError> {
    let params = stream.params()?;
    let result = reference::simulate(upload, &params);
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
            check_run_json(upload, &stream.directives.check_run, reference::check_run),
        );
    }
    Ok(Value::Object(m))
}

// ---------------------------------------------------------------------------
// Writing JSON in a fixed, readable layout.

/// The top-level keys of a saved answer in the order they are written; keys
/// not listed follow, sorted. Nested objects keep the order they were built
/// in (the reference model's S24 order).
const KEY_ORDER: &[&str] = &[
    "params",
    "notes",
    "check",
    "commands",
    "events",
    "status",
    "passes",
    "error",
    "halt",
    "stopped",
    "check_run",
];

fn ordered_keys(m: &Map<String, Value>) -> Vec<&String> {
    let mut keys: Vec<&String> = m.keys().collect();
    keys.sort_by_key(|k| {
        (
            KEY_ORDER
                .iter()
                .position(|o| o == k)
                .unwrap_or(KEY_ORDER.len()),
            k.as_str(),
        )
    });
    keys
}

fn render_compact(v: &Value, out: &mut String) {
    match v {
        Value::Object(m) => {
            out.push('{');
            for (i, k) in m.keys().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                out.push_str(&Value::String(k.clone()).to_string());
                out.push_str(": ");
                render_compact(&m[k], out);
            }
            out.push('}');
        }
        Value::Array(a) => {
            out.push('[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                render_compact(x, out);
            }
            out.push(']');
        }
        scalar => out.push_str(&scalar.to_string()),
    }
}

/// Writes a saved answer: one top-level key per line, arrays of objects one
/// element per line, everything else compact; keys in a fixed order.
pub fn render(answer: &Value) -> String {
    let mut out = String::new();
    let Value::Object(m) = answer else {
        render_compact(answer, &mut out);
        out.push('\n');
        return out;
    };
    out.push_str("{\n");
    let keys = ordered_keys(m);
    for (i, k) in keys.iter().enumerate() {
        out.push_str("  ");
        out.push_str(&Value::String((*k).clone()).to_string());
        out.push_str(": ");
        match &m[*k] {
            Value::Array(a) if !a.is_empty() && a.iter().all(Value::is_object) => {
                out.push_str("[\n");
                for (j, x) in a.iter().enumerate() {
                    out.push_str("    ");
                    render_compact(x, &mut out);
                    out.push_str(if j + 1 < a.len() { ",\n" } else { "\n" });
                }
                out.push_str("  ]");
            }
            v => render_compact(v, &mut out),
        }
        out.push_str(if i + 1 < keys.len() { ",\n" } else { "\n" });
    }
    out.push_str("}\n");
    out
}

// ---------------------------------------------------------------------------
// Comparing answers.

/// The first field in which two JSON values differ.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Difference {
    /// A path such as `commands[3].slot`, `events.len` or `status`.
    pub field: String,
    pub expected: String,
    pub got: String,
}

impl fmt::Display for Difference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: expected {}, got {}",
            self.field, self.expected, self.got
        )
    }
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_owned()
    } else {
        format!("{path}.{key}")
    }
}

fn short(v: &Value) -> String {
    let s = v.to_string();
    if s.len() > 80 {
        format!("{}...", &s[..s.floor_char_boundary(77)])
    } else {
        s
    }
}

fn diff_at(path: &str, expected: &Value, got: &Value) -> Option<Difference> {
    match (expected, got) {
        (Value::Object(a), Value::Object(b)) => {
            for k in a.keys() {
                match b.get(k) {
                    Some(bv) => {
                        if let Some(d) = diff_at(&join(path, k), &a[k], bv) {
                            return Some(d);
                        }
                    }
                    None => {
                        return Some(Difference {
                            field: join(path, k),
                            expected: short(&a[k]),
                            got: "nothing".into(),
                        });
                    }
                }
            }
            b.keys().find(|k| !a.contains_key(*k)).map(|k| Difference {
                field: join(path, k),
                expected: "nothing".into(),
                got: short(&b[k]),
            })
        }
        (Value::Array(a), Value::Array(b)) => {
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                if let Some(d) = diff_at(&format!("{path}[{i}]"), x, y) {
                    return Some(d);
                }
            }
            (a.len() != b.len()).then(|| Difference {
                field: format!("{path}.len"),
                expected: a.len().to_string(),
                got: b.len().to_string(),
            })
        }
        _ => (expected != got).then(|| Difference {
            field: path.to_owned(),
            expected: short(expected),
            got: short(got),
        }),
    }
}

/// The first field where `got` differs from `expected`, keys in the saved
/// order, array elements before array lengths; `None` if they are equal.
pub fn first_difference(expected: &Value, got: &Value) -> Option<Difference> {
    diff_at("", expected, got)
}

/// Where an answer contradicts a hand-worked `;@ expect` object.
///
/// The expectation is a part of the answer: an object's listed keys must
/// match (others are free), an array must have the same length and each
/// element must match, scalars must be equal. Two key forms reach into arrays:
/// `"NAME#len": N` for the length of array NAME and `"NAME#K": {...}` for its
/// element K (negative K counts from the end).
pub fn expect_mismatch(expect: &Value, answer: &Value) -> Option<Difference> {
    expect_at("", expect, answer)
}

fn expect_at(path: &str, expect: &Value, got: &Value) -> Option<Difference> {
    let miss = |field: String, e: &Value, g: String| {
        Some(Difference {
            field,
            expected: short(e),
            got: g,
        })
    };
    match (expect, got) {
        (Value::Object(e), Value::Object(g)) => {
            for k in e.keys() {
                let ev = &e[k];
                if let Some((name, sel)) = k.split_once('#') {
                    let field = join(path, name);
                    let Some(Value::Array(arr)) = g.get(name) else {
                        return miss(field, ev, "no array".into());
                    };
                    if sel == "len" {
                        if ev.as_u64() != Some(arr.len() as u64) {
                            return miss(format!("{field}.len"), ev, arr.len().to_string());
                        }
                        continue;
                    }
                    let Ok(idx) = sel.parse::<i64>() else {
                        return miss(field, ev, format!("bad selector `#{sel}`"));
                    };
                    let pos = if idx < 0 { arr.len() as i64 + idx } else { idx };
                    let sub = format!("{field}[{idx}]");
                    match usize::try_from(pos).ok().and_then(|p| arr.get(p)) {
                        Some(x) => {
                            if let Some(d) = expect_at(&sub, ev, x) {
                                return Some(d);
                            }
                        }
                        None => return miss(sub, ev, format!("{} entries", arr.len())),
                    }
                    continue;
                }
                match g.get(k) {
                    Some(gv) => {
                        if let Some(d) = expect_at(&join(path, k), ev, gv) {
                            return Some(d);
                        }
                    }
                    None => return miss(join(path, k), ev, "nothing".into()),
                }
            }
            None
        }
        (Value::Array(e), Value::Array(g)) => {
            for (i, (x, y)) in e.iter().zip(g).enumerate() {
                if let Some(d) = expect_at(&format!("{path}[{i}]"), x, y) {
                    return Some(d);
                }
            }
            (e.len() != g.len()).then(|| Difference {
                field: format!("{path}.len"),
                expected: e.len().to_string(),
                got: g.len().to_string(),
            })
        }
        _ => (expect != got).then(|| Difference {
            field: path.to_owned(),
            expected: short(expect),
            got: short(got),
        }),
    }
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

/// One saved answer that some implementation does not reproduce.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    pub stream: String,
    /// `reference`, a dispatch variant's name, `checker`, `asm` (a stale
    /// `.bin`), `source` (a stale `.json`) or `expect` (a hand-worked
    /// expectation).
    pub implementation: String,
    pub difference: Difference,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {}: {}",
            self.stream, self.implementation, self.difference
        )
    }
}

/// An implementation the corpus is replayed through: a name and a run.
pub struct Implementation {
    pub name: String,
    #[allow(clippy::type_complexity)]
    run: Box<dyn Fn(&[u8], &Params) -> SimResult>,
    /// Whether this implementation also answers `check_run`.
    check_run: Option<CheckRunFn>,
}

type CheckRunFn = fn(&[u8], u64, u64, &[(u64, u64)], &[u32]) -> (Option<StreamError>, u32);

impl Implementation {
    /// The reference model, with its own `check_run`.
    pub fn reference() -> Implementation {
        Implementation {
            name: "reference".into(),
            run: Box::new(reference::simulate),
            check_run: Some(reference::check_run),
        }
    }

    /// An implementation from a run function.
    pub fn new(name: &str, run: impl Fn(&[u8], &Params) -> SimResult + 'static) -> Implementation {
        Implementation {
            name: name.to_owned(),
            run: Box::new(run),
            check_run: None,
        }
    }

    /// The answer part (see [`answer_part`]) of this implementation's run.
    pub fn answer(&self, upload: &[u8], params: &Params, cases: &[CheckRunCase]) -> Value {
        let mut m = run_json(&(self.run)(upload, params));
        if !cases.is_empty()
            && let Some(f) = self.check_run
        {
            m.insert("check_run".into(), check_run_json(upload, cases, f));
        }
        answer_part(&Value::Object(m))
    }
}

/// Every implementation `kmst corpus check` compares: the reference model and
/// each compiled dispatch variant.
pub fn implementations() -> Vec<Implementation> {
    let mut impls = vec![Implementation::reference()];
    for &d in kmst::exec::Dispatch::fast() {
        impls.push(Implementation::new(d.name(), move |upload, params| {
            kmst::exec::simulate(upload, params, d)
        }));
    }
    impls
}

/// A saved stream: its source, its upload and its answer.
pub struct Saved {
    pub stream: Stream,
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
pub fn check_saved(saved: &Saved, impls: &[Implementation]) -> Result<Vec<Mismatch>, CorpusError> {
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
    // The optimized checker must give the saved check result.
    let checker = error_json(kmst::check::check(&saved.upload, params.region_size).err());
    if let Some(d) = diff_at(
        "check",
        saved.answer.get("check").unwrap_or(&Value::Null),
        &checker,
    ) {
        push("checker", d);
    }
    if !saved.stream.directives.check_run.is_empty() {
        let mine = check_run_json(
            &saved.upload,
            &saved.stream.directives.check_run,
            kmst::check::check_run,
        );
        if let Some(d) = diff_at(
            "check_run",
            saved.answer.get("check_run").unwrap_or(&Value::Null),
            &mine,
        ) {
            push("checker", d);
        }
    }
    let want = answer_part(&saved.answer);
    for imp in impls {
        let mut got = imp.answer(&saved.upload, &params, &saved.stream.directives.check_run);
        let mut want = want.clone();
        if imp.check_run.is_none()
            && let (Value::Object(w), Value::Object(g)) = (&mut want, &mut got)
        {
            w.remove("check_run");
            g.remove("check_run");
        }
        if let Some(d) = first_difference(&want, &got) {
            push(&imp.name, d);
        }
    }
    Ok(out)
}

fn check_run_inputs(cases: &[CheckRunCase], answer: &Value) -> Option<Difference> {
    let saved = answer.get("check_run");
    let mut want = Vec::new();
    for c in cases {
        want.push(serde_json::json!({
            "offset": c.offset,
            "region_size": c.region_size,
            "active": c.active.iter().map(|&(o, l)| serde_json::json!([o, l])).collect::<Vec<_>>(),
            "active_reqs": c.active_reqs,
        }));
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
        std::fs::write(&bin, &upload).map_err(io_err(&bin))?;
        let json = dir.join(format!("{name}.json"));
        std::fs::write(&json, render(&answer)).map_err(io_err(&json))?;
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn directives_are_read_and_joined() {
        let text = "; t\n;@ notes one\n;@ params {\"delay\": 3,\n;@ params \"max_passes\": 9}\n;@ notes two\n\
                    ;@ covers a b\n;@ covers c\n;@ check_run {\"offset\": 64, \"region_size\": 128, \"active\": [[0, 64]]}\n\
                    ;@ expect {\"status\": \"ended\"}\n.stream max_steps=1 seed=1\n  halt r0 ;@ notes not a directive line\n";
        let d = parse_directives("t", text).unwrap();
        assert_eq!(d.notes, "one two");
        assert_eq!(
            Value::Object(d.params),
            json!({"delay": 3, "max_passes": 9})
        );
        assert_eq!(d.covers, ["a", "b", "c"]);
        assert_eq!(d.expect, Some(json!({"status": "ended"})));
        assert_eq!(
            d.check_run,
            [CheckRunCase {
                offset: 64,
                region_size: 128,
                active: vec![(0, 64)],
                active_reqs: vec![],
                expect: None
            }]
        );
    }

    #[test]
    fn bad_directives_name_the_line() {
        let e = parse_directives("s", "; x\n;@ colour red\n").unwrap_err();
        assert_eq!(e.to_string(), "s.kms:2: unknown directive `;@ colour`");
        let e = parse_directives("s", ";@ params [1]\n").unwrap_err();
        assert_eq!(e.to_string(), "s.kms:1: params: not a JSON object");
        let e = parse_directives("s", ";@ check_run {\"offset\": 1}\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "s.kms:1: check_run: `region_size` is missing"
        );
        let e = parse_directives(
            "s",
            ";@ check_run {\"offset\": 1, \"region_size\": 2, \"x\": 0}\n",
        )
        .unwrap_err();
        assert_eq!(e.to_string(), "s.kms:1: check_run: unknown key `x`");
    }

    #[test]
    fn first_difference_names_the_field() {
        let a = json!({"status": "ended", "commands": [{"slot": 0}, {"slot": 2, "pc": 4}]});
        let b = json!({"status": "ended", "commands": [{"slot": 0}, {"slot": 1, "pc": 5}]});
        let d = first_difference(&a, &b).unwrap();
        assert_eq!(d.to_string(), "commands[1].slot: expected 2, got 1");
        assert_eq!(first_difference(&a, &a), None);
    }

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

    #[test]
    fn lengths_after_elements_and_missing_keys() {
        let a = json!({"events": [1, 2]});
        let b = json!({"events": [1, 2, 3]});
        assert_eq!(
            first_difference(&a, &b).unwrap().to_string(),
            "events.len: expected 2, got 3"
        );
        let d = first_difference(&json!({"halt": 3}), &json!({})).unwrap();
        assert_eq!(d.to_string(), "halt: expected 3, got nothing");
        let d = first_difference(&json!({}), &json!({"halt": 3})).unwrap();
        assert_eq!(d.to_string(), "halt: expected nothing, got 3");
    }

    #[test]
    fn expectations_are_partial() {
        let answer = json!({"status": "ended", "halt": 7,
            "commands": [{"slot": 0, "pc": 1}, {"slot": 3, "pc": 2}, {"slot": 5, "pc": 9}]});
        assert_eq!(expect_mismatch(&json!({"halt": 7}), &answer), None);
        assert_eq!(
            expect_mismatch(
                &json!({"commands#len": 3, "commands#1": {"slot": 3}, "commands#-1": {"pc": 9}}),
                &answer
            ),
            None
        );
        let d = expect_mismatch(&json!({"commands#1": {"slot": 4}}), &answer).unwrap();
        assert_eq!(d.to_string(), "commands[1].slot: expected 4, got 3");
        let d = expect_mismatch(&json!({"commands#len": 2}), &answer).unwrap();
        assert_eq!(d.to_string(), "commands.len: expected 2, got 3");
        // A whole array must match in length and element by element.
        let d = expect_mismatch(&json!({"commands": [{"slot": 0}]}), &answer).unwrap();
        assert_eq!(d.to_string(), "commands.len: expected 1, got 3");
        let d = expect_mismatch(&json!({"commands#7": {"slot": 0}}), &answer).unwrap();
        assert_eq!(d.field, "commands[7]");
        let d = expect_mismatch(&json!({"error": null}), &answer).unwrap();
        assert_eq!(d.to_string(), "error: expected null, got nothing");
    }

    #[test]
    fn render_keeps_the_saved_layout() {
        let v = json!({"stopped": false, "commands": [{"slot": 1, "sequence": 0}], "params": {"turn_budget": 64, "delay": 0},
                       "events": [], "notes": "n"});
        assert_eq!(
            render(&v),
            "{\n  \"params\": {\"turn_budget\": 64, \"delay\": 0},\n  \"notes\": \"n\",\n  \"commands\": [\n    {\"slot\": 1, \"sequence\": 0}\n  ],\n  \"events\": [],\n  \"stopped\": false\n}\n"
        );
        let back: Value = serde_json::from_str(&render(&v)).unwrap();
        assert_eq!(back, v);
    }
}

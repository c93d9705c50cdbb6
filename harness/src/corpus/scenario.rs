//! The scenario corpus: named kernel scenarios (S26..S36) and their saved
//! answers, beside the stream corpus.
//!
//! Each scenario `NAME` in `corpus/scenarios/` is three files: `NAME.json`,
//! the scenario file (S36) whose uploads are `.kms` sources (assembled here)
//! or raw files; `NAME.expect.json`, written by hand: `notes`, `covers` and a
//! partial answer `expect` worked out from the rulings (S36 allows no extra
//! key in the scenario file itself); and `NAME.answer.json`, the reference
//! model's S36 answer in the corpus's fixed layout. Every `.kms` a scenario
//! uses gets its assembled `.bin` beside it, so that the reference crate can
//! replay the corpus without the assembler. Every implementation is judged
//! (the reference model and each fast variant run scenarios); one whose
//! [`DifferentialOracle::simulate_scenario`] gives `None` would be left out.

use std::path::{Path, PathBuf};

use serde_json::Value;

use kmst_reference::scenario::json::from_json;
use kmst_reference::{Scenario, simulate_scenario};

use super::expect::expect_mismatch;
use super::render::render;
use super::replay::Mismatch;
use super::{CorpusError, io_err};
use crate::answers::{Difference, DifferentialOracle, Source, SourceError, first_difference};

/// The default scenario directory, relative to the workspace root.
pub const DEFAULT_DIR: &str = "corpus/scenarios";

/// What `NAME.expect.json` says about a scenario.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct About {
    /// What the scenario exercises and how its answer follows (joined lines).
    pub notes: String,
    /// The rulings it exercises (`S26` .. `S36`).
    pub covers: Vec<String>,
    /// The part of the answer worked out by hand (docs/corpus.md's `expect` form).
    pub expect: Option<Value>,
}

/// A scenario read from the corpus, with every `.kms` it assembled.
pub struct LoadedScenario {
    pub name: String,
    pub scenario: Scenario,
    /// Each `.kms` upload's path and the bytes it assembles to, in file order.
    pub sources: Vec<(PathBuf, Vec<u8>)>,
    pub about: About,
}

/// A loaded scenario and its saved answer.
pub struct SavedScenario {
    pub loaded: LoadedScenario,
    pub answer: Value,
}

/// The names of the scenarios in `dir`, sorted: every `NAME.json` whose
/// name has no dot (`NAME.answer.json` and `NAME.expect.json` are not).
pub fn scenario_names(dir: &Path) -> Result<Vec<String>, CorpusError> {
    super::names_in(dir, "json", |stem| !stem.contains('.'))
}

fn bad(name: &str, message: impl Into<String>) -> CorpusError {
    CorpusError::Answer {
        stream: name.to_owned(),
        message: message.into(),
    }
}

fn read_json(path: &Path, name: &str) -> Result<Value, CorpusError> {
    let text = std::fs::read_to_string(path).map_err(io_err(path))?;
    serde_json::from_str(&text).map_err(|e| bad(name, format!("{}: {e}", path.display())))
}

/// Reads `NAME.expect.json`: `notes` (a string or an array of lines),
/// `covers` (an array of strings) and `expect` (an object), nothing else.
fn read_about(dir: &Path, name: &str) -> Result<About, CorpusError> {
    let path = dir.join(format!("{name}.expect.json"));
    let value = read_json(&path, name)?;
    let file = format!("{name}.expect.json");
    let Some(o) = value.as_object() else {
        return Err(bad(name, format!("{file}: not a JSON object")));
    };
    if let Some(k) = o
        .keys()
        .find(|k| !["notes", "covers", "expect"].contains(&k.as_str()))
    {
        return Err(bad(name, format!("{file}: unknown key `{k}`")));
    }
    let notes = match o.get("notes") {
        None => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(lines)) if lines.iter().all(Value::is_string) => lines
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join(" "),
        Some(_) => return Err(bad(name, format!("{file}: `notes` is not text"))),
    };
    let covers = match o.get("covers") {
        None => Vec::new(),
        Some(Value::Array(tags)) if tags.iter().all(Value::is_string) => tags
            .iter()
            .filter_map(|t| t.as_str().map(str::to_owned))
            .collect(),
        Some(_) => {
            return Err(bad(
                name,
                format!("{file}: `covers` is not a list of names"),
            ));
        }
    };
    let expect = match o.get("expect") {
        None => None,
        Some(v @ Value::Object(_)) => Some(v.clone()),
        Some(_) => return Err(bad(name, format!("{file}: `expect` is not an object"))),
    };
    Ok(About {
        notes,
        covers,
        expect,
    })
}

/// Reads scenario `name` from `dir`: its file (S36; `.kms` uploads are
/// assembled, other files read as bytes) and its `NAME.expect.json`.
pub fn load_scenario(dir: &Path, name: &str) -> Result<LoadedScenario, CorpusError> {
    let (path, text) = super::read_named(dir, name, "json")?;
    let mut sources = Vec::new();
    let scenario = from_json(&text, &path, &mut |p: &Path| {
        if p.extension().is_some_and(|e| e == "kms") {
            let text = std::fs::read_to_string(p).map_err(|e| format!("cannot be read: {e}"))?;
            let stem = p.file_stem().and_then(|s| s.to_str()).unwrap_or("upload");
            // The error follows the file's path: what is wrong, without
            // the file named again.
            let bytes = Source::parse(stem, &text)
                .and_then(|s| s.assemble())
                .map_err(|e| match e {
                    SourceError::Directive { line, message, .. } => {
                        format!("line {line}: {message}")
                    }
                    SourceError::Params { message, .. } => format!(";@ params: {message}"),
                    SourceError::Assemble { message, .. } => {
                        format!("does not assemble: {message}")
                    }
                })?;
            sources.push((p.to_owned(), bytes.clone()));
            Ok(bytes)
        } else {
            std::fs::read(p).map_err(|e| format!("cannot be read: {e}"))
        }
    })
    .map_err(|e| bad(name, e.to_string()))?;
    Ok(LoadedScenario {
        name: name.to_owned(),
        scenario,
        sources,
        about: read_about(dir, name)?,
    })
}

/// Reads a scenario and its saved `NAME.answer.json`.
pub fn load_saved_scenario(dir: &Path, name: &str) -> Result<SavedScenario, CorpusError> {
    let loaded = load_scenario(dir, name)?;
    let answer = read_json(&dir.join(format!("{name}.answer.json")), name)?;
    Ok(SavedScenario { loaded, answer })
}

/// The reference model's S36 answer.
pub fn reference_scenario_answer(loaded: &LoadedScenario) -> Result<Value, CorpusError> {
    simulate_scenario(&loaded.scenario)
        .to_json_value()
        .map_err(|e| bad(&loaded.name, format!("params: {e}")))
}

/// The `.bin` beside a `.kms`.
fn bin_of(kms: &Path) -> PathBuf {
    kms.with_extension("bin")
}

fn mismatch(name: &str, implementation: &str, difference: Difference) -> Mismatch {
    Mismatch {
        stream: name.to_owned(),
        implementation: implementation.to_owned(),
        difference,
    }
}

/// Compares a saved scenario answer with every implementation that runs
/// scenarios, and with its `.bin` files and its hand-worked `expect`.
pub fn check_saved_scenario(
    saved: &SavedScenario,
    impls: &[Box<dyn DifferentialOracle>],
) -> Result<Vec<Mismatch>, CorpusError> {
    let loaded = &saved.loaded;
    let name = &loaded.name;
    let mut out = Vec::new();
    for (kms, bytes) in &loaded.sources {
        let bin = bin_of(kms);
        let stale = match std::fs::read(&bin) {
            Ok(b) if &b == bytes => None,
            Ok(b) => Some(format!("{} bytes", b.len())),
            Err(e) => Some(e.to_string()),
        };
        if let Some(got) = stale {
            let difference = Difference {
                field: bin.display().to_string(),
                expected: format!("{} bytes as the source assembles", bytes.len()),
                got,
            };
            out.push(mismatch(name, "asm", difference));
        }
    }
    if let Some(expect) = &loaded.about.expect
        && let Some(d) = expect_mismatch(expect, &saved.answer)
    {
        out.push(mismatch(name, "expect", d));
    }
    for imp in impls {
        let Some(result) = imp.simulate_scenario(&loaded.scenario) else {
            continue;
        };
        let got = result
            .to_json_value()
            .map_err(|e| bad(name, format!("params: {e}")))?;
        if let Some(d) = first_difference(&saved.answer, &got) {
            out.push(mismatch(name, &imp.name(), d));
        }
    }
    Ok(out)
}

/// Runs scenario `name` with the reference model and writes its answer and
/// the `.bin` of every `.kms` it uses. Returns the hand-worked expectations
/// the new answer contradicts; when there are any, nothing is written unless
/// `force`.
pub fn write_scenario(dir: &Path, name: &str, force: bool) -> Result<Vec<Mismatch>, CorpusError> {
    let loaded = load_scenario(dir, name)?;
    let answer = reference_scenario_answer(&loaded)?;
    let contradictions: Vec<Mismatch> = loaded
        .about
        .expect
        .as_ref()
        .and_then(|e| expect_mismatch(e, &answer))
        .map(|d| mismatch(name, "expect", d))
        .into_iter()
        .collect();
    if contradictions.is_empty() || force {
        for (kms, bytes) in &loaded.sources {
            let bin = bin_of(kms);
            if std::fs::read(&bin).ok().as_ref() != Some(bytes) {
                super::replace::replace_file(&bin, bytes).map_err(io_err(&bin))?;
            }
        }
        let path = dir.join(format!("{name}.answer.json"));
        super::replace::replace_file(&path, render(&answer).as_bytes()).map_err(io_err(&path))?;
    }
    Ok(contradictions)
}

/// Which implementations run scenarios (their names, for reports).
pub fn scenario_implementations(impls: &[Box<dyn DifferentialOracle>]) -> Vec<String> {
    let probe = Scenario::new(kmst_reference::Params::default()).expect("no cancel_pass");
    impls
        .iter()
        .filter(|i| i.simulate_scenario(&probe).is_some())
        .map(|i| i.name())
        .collect()
}

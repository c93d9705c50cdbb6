//! A `.kms` source with its directive comments.
//!
//! A stream's source may carry `;@` directives (docs/corpus.md): `;@ params`
//! gives the simulation parameters it runs with (S24 JSON), `;@ notes` says
//! what it exercises, and the corpus adds `;@ expect`, `;@ check_run` and
//! `;@ covers`. [`Source`] is how every part of the project reads one: the
//! corpus, `kmst compare`'s workloads and `kmst run`.

use std::fmt;

use serde_json::{Map, Value};

use kmst_reference::Params;

use super::implementation::RunArgs;
use super::strict::strict_json;

/// A source that cannot be used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SourceError {
    /// A directive comment is malformed.
    Directive {
        stream: String,
        line: usize,
        message: String,
    },
    /// The `;@ params` object is not valid (S24, S25).
    Params { stream: String, message: String },
    /// The source does not assemble.
    Assemble { stream: String, message: String },
}

impl fmt::Display for SourceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SourceError::Directive {
                stream,
                line,
                message,
            } => write!(f, "{stream}.kms:{line}: {message}"),
            SourceError::Params { stream, message } => {
                write!(f, "{stream}.kms: ;@ params: {message}")
            }
            SourceError::Assemble { stream, message } => {
                write!(f, "{stream}.kms does not assemble: {message}")
            }
        }
    }
}

impl std::error::Error for SourceError {}

/// One `;@ check_run {...}` case: the arguments of `check_run` and, optionally,
/// the hand-worked answer.
#[derive(Clone, Debug, PartialEq)]
pub struct CheckRunCase {
    pub args: RunArgs,
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
    /// The `;@ expect` object: a hand-worked part of the answer (see `corpus::expect_mismatch`).
    pub expect: Option<Value>,
    /// The `;@ check_run` cases.
    pub check_run: Vec<CheckRunCase>,
    /// The `;@ covers` tags.
    pub covers: Vec<String>,
}

/// Reads the directive comments of a source (`stream` names it in errors).
pub fn parse_directives(stream: &str, text: &str) -> Result<Directives, SourceError> {
    let mut d = Directives::default();
    let mut notes = Vec::new();
    let (mut params, mut expect) = (String::new(), String::new());
    let (mut params_line, mut expect_line) = (0, 0);
    let bad = |line: usize, message: String| SourceError::Directive {
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
                let v = strict_json(value).map_err(|e| bad(line_no, format!("check_run: {e}")))?;
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
        match strict_json(&params) {
            Ok(Value::Object(m)) => d.params = m,
            Ok(_) => return Err(bad(params_line, "params: not a JSON object".into())),
            Err(e) => return Err(bad(params_line, format!("params: {e}"))),
        }
    }
    if !expect.is_empty() {
        match strict_json(&expect) {
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
        args: RunArgs {
            offset: u64_of("offset")?,
            region_size: u64_of("region_size")?,
            active: Vec::new(),
            active_reqs: Vec::new(),
        },
        expect: obj.get("expect").cloned(),
    };
    if let Some(a) = obj.get("active") {
        for r in a.as_array().ok_or("`active` is not an array")? {
            match r.as_array().map(|p| (p.first(), p.get(1), p.len())) {
                Some((Some(o), Some(l), 2)) => case.args.active.push((
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
            case.args
                .active_reqs
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

/// A `.kms` source: its name, text and directives.
#[derive(Clone, Debug)]
pub struct Source {
    pub name: String,
    /// The `.kms` text.
    pub text: String,
    pub directives: Directives,
}

impl Source {
    /// Reads the directives of `text` (`name` names it in errors).
    pub fn parse(name: &str, text: &str) -> Result<Source, SourceError> {
        Ok(Source {
            name: name.to_owned(),
            text: text.to_owned(),
            directives: parse_directives(name, text)?,
        })
    }

    /// The simulation parameters its `;@ params` directive gives (defaults for the rest).
    pub fn params(&self) -> Result<Params, SourceError> {
        Params::from_json_value(&Value::Object(self.directives.params.clone())).map_err(|e| {
            SourceError::Params {
                stream: self.name.clone(),
                message: e.to_string(),
            }
        })
    }

    /// The upload its text assembles to.
    pub fn assemble(&self) -> Result<Vec<u8>, SourceError> {
        kmst::asm::assemble(&self.text).map_err(|e| SourceError::Assemble {
            stream: self.name.clone(),
            message: e.to_string(),
        })
    }
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
                args: RunArgs {
                    offset: 64,
                    region_size: 128,
                    active: vec![(0, 64)],
                    active_reqs: vec![],
                },
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
}

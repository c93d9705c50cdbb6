//! The first difference between two answers.
//!
//! Answers are compared as their JSON (S24), field by field in the order they
//! are written, array elements before array lengths, so that every report
//! (a corpus mismatch, a `kmst compare` disagreement, a fuzz divergence)
//! names the same first differing field, such as `commands[3].slot`.

use std::fmt;

use serde_json::Value;

use kmst_reference::SimResult;

use super::json::run_json;

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
        let Difference {
            field,
            expected,
            got,
        } = self;
        write!(f, "{field}: expected {expected}, got {got}")
    }
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_owned()
    } else {
        format!("{path}.{key}")
    }
}

/// A value for a report, cut to 80 characters.
pub(crate) fn short(v: &Value) -> String {
    let s = v.to_string();
    if s.len() > 80 {
        format!("{}...", &s[..s.floor_char_boundary(77)])
    } else {
        s
    }
}

/// Below `path`, what is not two objects: two arrays element by element
/// (each pair by `at`), then their lengths; anything else compared whole.
/// The exact comparison and the corpus's expectations walk objects each in
/// their own way and the rest alike.
pub(crate) fn beyond_objects(
    path: &str,
    expected: &Value,
    got: &Value,
    at: fn(&str, &Value, &Value) -> Option<Difference>,
) -> Option<Difference> {
    match (expected, got) {
        (Value::Array(a), Value::Array(b)) => {
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                if let Some(d) = at(&format!("{path}[{i}]"), x, y) {
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

/// [`first_difference`] below `path`.
pub(crate) fn diff_at(path: &str, expected: &Value, got: &Value) -> Option<Difference> {
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
        _ => beyond_objects(path, expected, got, diff_at),
    }
}

/// The first field where `got` differs from `expected`, keys in `expected`'s
/// order, array elements before array lengths; `None` if they are equal.
pub fn first_difference(expected: &Value, got: &Value) -> Option<Difference> {
    diff_at("", expected, got)
}

/// The first difference between two runs and the program counters it
/// involves (the pc of the commands or error events on either side, the
/// pc of a differing error or check), so a report can show the micro-ops
/// there. `None` when the runs are equal.
pub fn run_difference(want: &SimResult, got: &SimResult) -> Option<(Difference, Vec<u32>)> {
    if want == got {
        return None;
    }
    let (w, g) = (Value::Object(run_json(want)), Value::Object(run_json(got)));
    let Some(d) = first_difference(&w, &g) else {
        // Equal answers but unequal runs: only the parameters can differ.
        let (wp, gp) = (want.params.to_json_value(), got.params.to_json_value());
        let d = match (wp, gp) {
            (Ok(wp), Ok(gp)) => diff_at("params", &wp, &gp),
            _ => None,
        };
        return Some((
            d.unwrap_or_else(|| Difference {
                field: "params".into(),
                expected: format!("{:?}", want.params),
                got: format!("{:?}", got.params),
            }),
            Vec::new(),
        ));
    };
    let top = d.field.split(['.', '[']).next().unwrap_or("");
    let pcs = match top {
        "commands" | "events" => {
            let index = d.field[top.len()..]
                .strip_prefix('[')
                .and_then(|r| r.split(']').next())
                .and_then(|i| i.parse::<usize>().ok());
            let pc = |v: &Value| -> Option<u32> {
                let item = &v[top][index?];
                if top == "commands" {
                    item["pc"].as_u64().map(|p| p as u32)
                } else {
                    event_pc(item)
                }
            };
            [pc(&w), pc(&g)].into_iter().flatten().collect()
        }
        _ => [&w[top], &g[top]]
            .iter()
            .filter_map(|v| v["pc"].as_u64().map(|p| p as u32))
            .collect(),
    };
    Some((d, pcs))
}

/// The pc an event names: the error's for `KM_EVENT_STREAM_ERROR` (S21).
fn event_pc(event: &Value) -> Option<u32> {
    (event["kind"].as_u64() == Some(6))
        .then(|| {
            event["auxiliary"]
                .as_u64()
                .map(|aux| ((aux >> 8) & 0xFFFF) as u32)
        })
        .flatten()
}

/// Runs `upload` on the reference model and on every fast variant compiled
/// in, and panics with the first difference, naming `what`, unless each
/// agrees: the differential tests' one check. Gives back the answer.
pub fn assert_every_variant_agrees(
    upload: &[u8],
    params: &kmst_reference::Params,
    what: &str,
) -> SimResult {
    let want = kmst_reference::simulate(upload, params);
    for &d in kmst::exec::Dispatch::ALL {
        let got = kmst::exec::simulate(upload, params, d);
        assert!(
            got == want,
            "{what}, {d}, budget {}: {:?}",
            params.turn_budget,
            run_difference(&want, &got)
        );
    }
    want
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_first_difference_is_an_element_before_a_length() {
        let a = json!({"status": "ended", "commands": [{"slot": 0}, {"slot": 1}]});
        let b = json!({"status": "error", "commands": [{"slot": 0}, {"slot": 2}, {"slot": 3}]});
        // Keys in `a`'s order: status differs first.
        assert_eq!(first_difference(&a, &b).unwrap().field, "status");
        let b = json!({"status": "ended", "commands": [{"slot": 0}, {"slot": 2}, {"slot": 3}]});
        let d = first_difference(&a, &b).unwrap();
        assert_eq!(
            (d.field.as_str(), d.expected.as_str(), d.got.as_str()),
            ("commands[1].slot", "1", "2")
        );
        let b = json!({"status": "ended", "commands": [{"slot": 0}, {"slot": 1}, {"slot": 3}]});
        let d = first_difference(&a, &b).unwrap();
        assert_eq!(
            (d.field.as_str(), d.expected.as_str(), d.got.as_str()),
            ("commands.len", "2", "3")
        );
        assert_eq!(first_difference(&a, &a), None);
    }

    #[test]
    fn an_error_event_names_its_pc() {
        // S21: aux = reason | pc << 8; `Reason::BadJump` at pc 0x1234.
        let e = json!({"kind": 6, "auxiliary": 3 | (0x1234 << 8)});
        assert_eq!(event_pc(&e), Some(0x1234));
        assert_eq!(event_pc(&json!({"kind": 5, "auxiliary": 7})), None);
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
}

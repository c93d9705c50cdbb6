//! Hand-worked expectations: the `;@ expect` part of an answer that a source
//! states, worked out from the rulings, which the saved answer must contain.

use serde_json::Value;

use crate::answers::Difference;
use crate::answers::diff::{beyond_objects, short};

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

pub(crate) fn expect_at(path: &str, expect: &Value, got: &Value) -> Option<Difference> {
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
        _ => beyond_objects(path, expect, got, expect_at),
    }
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_owned()
    } else {
        format!("{path}.{key}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
}

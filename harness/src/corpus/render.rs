//! The fixed, readable layout of a saved answer: one top-level key per line,
//! arrays of objects one element per line, keys in a fixed order, so that a
//! changed answer shows as a small diff.

use serde_json::{Map, Value};

/// The top-level keys of a saved answer in the order they are written; keys
/// not listed follow, sorted. Nested objects keep the order they were built
/// in (the reference model's S24 order).
const KEY_ORDER: &[&str] = &[
    "params",
    "notes",
    "streams",
    "host",
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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

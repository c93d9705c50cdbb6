//! The first difference between a saved JSON answer and a new one, by path,
//! for the corpus replays (the reference crate's own, without kmst's).

use serde_json::Value;

/// The first path at which `got` differs from `want`.
pub fn first_difference(path: &str, want: &Value, got: &Value) -> Option<String> {
    match (want, got) {
        (Value::Object(a), Value::Object(b)) => {
            for (k, v) in a {
                let p = format!("{path}.{k}");
                match b.get(k) {
                    Some(w) => {
                        if let Some(d) = first_difference(&p, v, w) {
                            return Some(d);
                        }
                    }
                    None => return Some(format!("{p}: expected {v}, got nothing")),
                }
            }
            b.keys()
                .find(|k| !a.contains_key(*k))
                .map(|k| format!("{path}.{k}: expected nothing, got {}", b[k]))
        }
        (Value::Array(a), Value::Array(b)) => {
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                if let Some(d) = first_difference(&format!("{path}[{i}]"), x, y) {
                    return Some(d);
                }
            }
            (a.len() != b.len())
                .then(|| format!("{path}.len: expected {}, got {}", a.len(), b.len()))
        }
        _ => (want != got).then(|| format!("{path}: expected {want}, got {got}")),
    }
}

/// `saved` reads with `read`, and with any one of `fields` taken out it is
/// an error that names the field.
pub fn assert_each_missing_field_is_named<T, E: std::fmt::Display>(
    saved: &Value,
    fields: &[&str],
    read: impl Fn(&Value) -> Result<T, E>,
) {
    if let Err(e) = read(saved) {
        panic!("the saved answer does not read: {e}");
    }
    for field in fields {
        let mut broken = saved.clone();
        broken.as_object_mut().unwrap().remove(*field);
        match read(&broken) {
            Ok(_) => panic!("an answer without `{field}` was read"),
            Err(e) => assert!(
                e.to_string().contains(field),
                "`{e}` does not name `{field}`"
            ),
        }
    }
}

//! JSON read strictly: a key given twice in one object and an integer past
//! the 64-bit range are errors, where `serde_json` would keep the last value
//! and read the integer as a float (`1e+23`). Every hand-written JSON the
//! project reads (`;@` directives, parameter files, scenario files) goes
//! through [`strict_json`] first.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

/// Parses `text` as JSON; a duplicate key or an integer outside
/// -9223372036854775808..=18446744073709551615 is an error naming its line
/// and column.
pub fn strict_json(text: &str) -> Result<Value, String> {
    check_integers(text)?;
    let Strict(v) = serde_json::from_str(text).map_err(|e| e.to_string())?;
    Ok(v)
}

/// Every integer literal (no `.`, `e` or `E`) outside the 64-bit range.
fn check_integers(text: &str) -> Result<(), String> {
    let bytes = text.as_bytes();
    let (mut i, mut line, mut line_start) = (0, 1, 0);
    while i < bytes.len() {
        match bytes[i] {
            b'\n' => {
                line += 1;
                line_start = i + 1;
                i += 1;
            }
            b'"' => {
                // A string: skip to its closing quote, past escapes.
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            }
            b'-' | b'0'..=b'9' => {
                let start = i;
                i += 1;
                while i < bytes.len()
                    && matches!(bytes[i], b'0'..=b'9' | b'.' | b'e' | b'E' | b'+' | b'-')
                {
                    i += 1;
                }
                let token = &text[start..i];
                let digits = token.strip_prefix('-').unwrap_or(token);
                let integer = !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit());
                let fits = token.parse::<u64>().is_ok() || token.parse::<i64>().is_ok();
                if integer && !fits {
                    return Err(format!(
                        "{token} at line {line} column {}: an integer past the 64-bit range \
                         (-9223372036854775808..=18446744073709551615)",
                        start - line_start + 1
                    ));
                }
            }
            _ => i += 1,
        }
    }
    Ok(())
}

/// A JSON value whose objects have no key twice.
struct Strict(Value);

impl<'de> Deserialize<'de> for Strict {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Strict, D::Error> {
        d.deserialize_any(StrictVisitor).map(Strict)
    }
}

struct StrictVisitor;

impl<'de> Visitor<'de> for StrictVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(Strict(v)) = seq.next_element()? {
            items.push(v);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut object = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if object.contains_key(&key) {
                return Err(de::Error::custom(format!("the key `{key}` is given twice")));
            }
            let Strict(v) = map.next_value()?;
            object.insert(key, v);
        }
        Ok(Value::Object(object))
    }
}

#[cfg(test)]
mod tests {
    use super::strict_json;
    use serde_json::json;

    #[test]
    fn values_read_as_serde_json_reads_them() {
        let text = r#"{"a": [1, -2, 3.5, "x\"9", null, true], "b": {"c": 18446744073709551615}}"#;
        assert_eq!(
            strict_json(text).unwrap(),
            json!({"a": [1, -2, 3.5, "x\"9", null, true], "b": {"c": 18446744073709551615u64}})
        );
        assert_eq!(
            strict_json("-9223372036854775808").unwrap(),
            json!(i64::MIN)
        );
        assert_eq!(strict_json("1e23").unwrap(), json!(1e23));
    }

    #[test]
    fn a_key_given_twice_is_an_error() {
        let e = strict_json("{\"delay\": 1,\n \"delay\": 2}").unwrap_err();
        assert!(
            e.contains("the key `delay` is given twice at line 2"),
            "{e}"
        );
        // The same key in two objects is fine.
        assert!(strict_json(r#"[{"a": 1}, {"a": 2}]"#).is_ok());
    }

    #[test]
    fn an_integer_past_64_bits_is_an_error_that_echoes_it() {
        // 2^64 = 18446744073709551616, one past u64::MAX.
        for (text, token) in [
            (
                "{\"delay\": 99999999999999999999999}",
                "99999999999999999999999",
            ),
            ("[18446744073709551616]", "18446744073709551616"),
            ("[-9223372036854775809]", "-9223372036854775809"),
        ] {
            let e = strict_json(text).unwrap_err();
            assert!(e.starts_with(&format!("{token} at line 1 column")), "{e}");
        }
        // Digits inside a string are not a number.
        assert!(strict_json(r#"{"x": "99999999999999999999999"}"#).is_ok());
    }
}

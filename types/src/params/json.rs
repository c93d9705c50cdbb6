//! The params object of S24: written and read as JSON.

#[allow(unused_imports)]
use crate::prelude::*;

use super::{Delay, PARAM_KEYS, Params, ParamsError, ResultModel, err};

impl Params {
    /// The params object of S24. Custom closures cannot be saved: an error.
    pub fn to_json_value(&self) -> Result<serde_json::Value, ParamsError> {
        use serde_json::{Value, json};
        let opt = |v: Option<u64>| v.map_or(Value::Null, Value::from);
        let delay = match &self.delay {
            Delay::Fixed(d) => json!(d),
            Delay::Never => Value::Null,
            Delay::Cycle { base, modulo } => json!({ "cycle": [base, modulo] }),
            Delay::Table(t) => json!({ "table": t }),
            Delay::Custom(_) => return Err(err("delay", "a custom closure cannot be saved")),
        };
        let result = match &self.result {
            ResultModel::Zero => json!("zero"),
            ResultModel::Sequence => json!("sequence"),
            ResultModel::Arg(k) => json!({ "arg": k }),
            ResultModel::Table(t) => json!({ "table": t }),
            ResultModel::Custom(_) => {
                return Err(err("result", "a custom closure cannot be saved"));
            }
        };
        Ok(json!({
            "delay": delay,
            "result": result,
            "deadline_passes": opt(self.deadline_passes),
            "default_deadline_passes": self.default_deadline_passes,
            "cancel_pass": opt(self.cancel_pass),
            "core_count": self.core_count,
            "ticks_per_pass": self.ticks_per_pass,
            "max_passes": self.max_passes,
            "region_size": self.region_size,
            "turn_budget": self.turn_budget,
        }))
    }

    /// Reads a params object (S24): missing keys take their defaults; unknown
    /// keys, wrong types and values out of range (S25) are errors naming the
    /// parameter.
    pub fn from_json_value(value: &serde_json::Value) -> Result<Params, ParamsError> {
        let object = value
            .as_object()
            .ok_or_else(|| err("params", "must be a JSON object"))?;
        let mut p = Params::default();
        for (key, v) in object {
            match key.as_str() {
                "delay" => p.delay = delay_from_json(v)?,
                "result" => p.result = result_from_json(v)?,
                "deadline_passes" => p.deadline_passes = opt_u64(v, "deadline_passes")?,
                "default_deadline_passes" => {
                    p.default_deadline_passes = u64_of(v, "default_deadline_passes")?
                }
                "cancel_pass" => p.cancel_pass = opt_u64(v, "cancel_pass")?,
                "core_count" => p.core_count = u32_of(v, "core_count")?,
                "ticks_per_pass" => p.ticks_per_pass = u32_of(v, "ticks_per_pass")?,
                "max_passes" => p.max_passes = u64_of(v, "max_passes")?,
                "region_size" => p.region_size = u64_of(v, "region_size")?,
                "turn_budget" => p.turn_budget = u32_of(v, "turn_budget")?,
                _ => {
                    return Err(ParamsError {
                        param: "params",
                        message: format!("unknown key `{key}`{}", did_you_mean(key)),
                    });
                }
            }
        }
        p.validate()?;
        Ok(p)
    }
}

/// ` (did you mean `K`?)` for the key nearest to `key` by edit distance,
/// when it is at most two edits (or a third of the key's length) away;
/// else the list.
fn did_you_mean(key: &str) -> String {
    let distance = |a: &str, b: &str| {
        let b: Vec<char> = b.chars().collect();
        let mut row: Vec<usize> = (0..=b.len()).collect();
        for (i, ca) in a.chars().enumerate() {
            let mut prev = row[0];
            row[0] = i + 1;
            for (j, &cb) in b.iter().enumerate() {
                let cost = usize::from(ca != cb);
                let next = (row[j] + 1).min(row[j + 1] + 1).min(prev + cost);
                prev = row[j + 1];
                row[j + 1] = next;
            }
        }
        row[b.len()]
    };
    let best = PARAM_KEYS
        .iter()
        .min_by_key(|k| distance(key, k))
        .expect("keys");
    if distance(key, best) <= 2.max(key.chars().count() / 3) {
        format!(" (did you mean `{best}`?)")
    } else {
        format!(" (the keys: {})", PARAM_KEYS.join(", "))
    }
}

/// A non-negative JSON integer (a boolean or a float is not one).
fn u64_of(v: &serde_json::Value, param: &'static str) -> Result<u64, ParamsError> {
    match v {
        serde_json::Value::Number(n) => n
            .as_u64()
            .ok_or_else(|| err(param, format!("{n} is not a non-negative integer in range"))),
        other => Err(err(param, format!("expected an integer, found {other}"))),
    }
}

fn u32_of(v: &serde_json::Value, param: &'static str) -> Result<u32, ParamsError> {
    let n = u64_of(v, param)?;
    u32::try_from(n).map_err(|_| err(param, format!("{n} does not fit 32 bits")))
}

fn opt_u64(v: &serde_json::Value, param: &'static str) -> Result<Option<u64>, ParamsError> {
    if v.is_null() {
        Ok(None)
    } else {
        u64_of(v, param).map(Some)
    }
}

/// A one-key object `{name: inner}`.
fn single<'a>(
    v: &'a serde_json::Value,
    param: &'static str,
) -> Result<(&'a str, &'a serde_json::Value), ParamsError> {
    match v.as_object() {
        Some(o) if o.len() == 1 => {
            let (k, inner) = o.iter().next().expect("one key");
            Ok((k.as_str(), inner))
        }
        _ => Err(err(param, format!("unexpected value {v}"))),
    }
}

fn array<'a>(
    v: &'a serde_json::Value,
    param: &'static str,
) -> Result<&'a Vec<serde_json::Value>, ParamsError> {
    v.as_array()
        .ok_or_else(|| err(param, format!("expected an array, found {v}")))
}

fn delay_from_json(v: &serde_json::Value) -> Result<Delay, ParamsError> {
    if v.is_null() {
        return Ok(Delay::Never);
    }
    if v.is_number() || v.is_boolean() || v.is_string() {
        return u32_of(v, "delay").map(Delay::Fixed);
    }
    match single(v, "delay")? {
        ("cycle", inner) => match array(inner, "delay")?.as_slice() {
            [base, modulo] => Delay::cycle(u32_of(base, "delay")?, u32_of(modulo, "delay")?),
            _ => Err(err("delay", "cycle takes [base, modulo]")),
        },
        ("table", inner) => {
            let entries = array(inner, "delay")?
                .iter()
                .map(|e| {
                    if e.is_null() {
                        Ok(None)
                    } else {
                        u32_of(e, "delay").map(Some)
                    }
                })
                .collect::<Result<Vec<_>, _>>()?;
            Delay::table(entries)
        }
        (k, _) => Err(err("delay", format!("unknown model `{k}`"))),
    }
}

fn result_from_json(v: &serde_json::Value) -> Result<ResultModel, ParamsError> {
    match v.as_str() {
        Some("zero") => return Ok(ResultModel::Zero),
        Some("sequence") => return Ok(ResultModel::Sequence),
        Some(s) => return Err(err("result", format!("unknown model `{s}`"))),
        None => {}
    }
    match single(v, "result")? {
        ("arg", inner) => {
            let k = u64_of(inner, "result")?;
            match u8::try_from(k) {
                Ok(k) => ResultModel::arg(k),
                Err(_) => Err(err("result", format!("arg({k}) is not in 0..=9"))),
            }
        }
        ("table", inner) => {
            let entries = array(inner, "result")?
                .iter()
                .map(|e| u32_of(e, "result"))
                .collect::<Result<Vec<_>, _>>()?;
            ResultModel::table(entries)
        }
        (k, _) => Err(err("result", format!("unknown model `{k}`"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unknown_key_names_the_nearest() {
        let e = |text: &str| {
            let v: serde_json::Value = serde_json::from_str(text).unwrap();
            Params::from_json_value(&v).unwrap_err().message
        };
        // One letter swapped (two edits) in a five-letter key.
        assert_eq!(
            e(r#"{"delya": 3}"#),
            "unknown key `delya` (did you mean `delay`?)"
        );
        assert_eq!(
            e(r#"{"turn_budjet": 3}"#),
            "unknown key `turn_budjet` (did you mean `turn_budget`?)"
        );
        assert!(e(r#"{"colour": 3}"#).starts_with("unknown key `colour` (the keys: delay, "));
    }
}

//! Simulation parameters and completion models (docs/spec.md "The simulator", S23, S25).

use std::fmt;
use std::sync::Arc;

use crate::result::SubmittedCommand;

/// A completion delay: a command submitted in pass p is acknowledged by the sweep
/// of pass `p + 1 + delay`; `None` means never (S12, S23).
pub type DelayFn = dyn Fn(&SubmittedCommand) -> Option<u32> + Send + Sync;
/// The result value of a command with result=True (S23).
pub type ResultFn = dyn Fn(&SubmittedCommand) -> u32 + Send + Sync;

/// The completion model for delays (S23).
#[derive(Clone)]
pub enum Delay {
    /// The same delay for every command (the default, 0).
    Fixed(u32),
    /// Never acknowledged.
    Never,
    /// `base + sequence % modulo` (modulo >= 1).
    Cycle { base: u32, modulo: u32 },
    /// Entry `sequence % len` (non-empty); `None` entries are never acknowledged.
    Table(Vec<Option<u32>>),
    /// Any function of the submitted command.
    Custom(Arc<DelayFn>),
}

/// The completion model for results (S23).
#[derive(Clone)]
pub enum ResultModel {
    /// Every result is 0 (the default).
    Zero,
    /// The command's sequence number (low 32 bits).
    Sequence,
    /// The command's k-th argument, k in 0..=9.
    Arg(u8),
    /// Entry `sequence % len` (non-empty).
    Table(Vec<u32>),
    /// Any function of the submitted command.
    Custom(Arc<ResultFn>),
}

/// Every parameter of a run (docs/spec.md "The simulator", S23..S25).
#[derive(Clone, Debug, PartialEq)]
pub struct Params {
    pub delay: Delay,
    pub result: ResultModel,
    /// Replaces the header's deadline when given (>= 1).
    pub deadline_passes: Option<u64>,
    /// Stands for a header deadline of 0 (>= 1; default 1,000,000).
    pub default_deadline_passes: u64,
    /// The pass in which a cancel command is delivered.
    pub cancel_pass: Option<u64>,
    /// Grid size, 1..=65,535 (default 119).
    pub core_count: u32,
    /// TIME returns `pass * ticks_per_pass` (default 1,000).
    pub ticks_per_pass: u32,
    /// A run that does not end in passes 0..max_passes is stopped (>= 1; default 1,000,000).
    pub max_passes: u64,
    /// The largest upload the check accepts (default 1 MiB).
    pub region_size: u64,
    /// Micro-ops per stream turn (>= 1; default 64).
    pub turn_budget: u32,
}

/// A parameter value outside its range (S25), naming the parameter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamsError {
    /// The parameter's name as in S24 (`delay`, `core_count`, ...).
    pub param: &'static str,
    /// What is wrong with it.
    pub message: String,
}

impl fmt::Display for ParamsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "parameter `{}`: {}", self.param, self.message)
    }
}

impl std::error::Error for ParamsError {}

impl fmt::Debug for Delay {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Delay::Fixed(d) => write!(f, "Fixed({d})"),
            Delay::Never => write!(f, "Never"),
            Delay::Cycle { base, modulo } => {
                write!(f, "Cycle {{ base: {base}, modulo: {modulo} }}")
            }
            Delay::Table(t) => write!(f, "Table({t:?})"),
            Delay::Custom(_) => write!(f, "Custom(..)"),
        }
    }
}

/// Closures compare equal only to themselves (the same `Arc`).
impl PartialEq for Delay {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Delay::Fixed(a), Delay::Fixed(b)) => a == b,
            (Delay::Never, Delay::Never) => true,
            (Delay::Cycle { base: a, modulo: m }, Delay::Cycle { base: b, modulo: n }) => {
                a == b && m == n
            }
            (Delay::Table(a), Delay::Table(b)) => a == b,
            (Delay::Custom(a), Delay::Custom(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }
}

impl fmt::Debug for ResultModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ResultModel::Zero => write!(f, "Zero"),
            ResultModel::Sequence => write!(f, "Sequence"),
            ResultModel::Arg(k) => write!(f, "Arg({k})"),
            ResultModel::Table(t) => write!(f, "Table({t:?})"),
            ResultModel::Custom(_) => write!(f, "Custom(..)"),
        }
    }
}

/// Closures compare equal only to themselves (the same `Arc`).
impl PartialEq for ResultModel {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (ResultModel::Zero, ResultModel::Zero)
            | (ResultModel::Sequence, ResultModel::Sequence) => true,
            (ResultModel::Arg(a), ResultModel::Arg(b)) => a == b,
            (ResultModel::Table(a), ResultModel::Table(b)) => a == b,
            (ResultModel::Custom(a), ResultModel::Custom(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }
}

impl Default for Params {
    /// The defaults of docs/spec.md and S23.
    fn default() -> Self {
        Params {
            delay: Delay::Fixed(0),
            result: ResultModel::Zero,
            deadline_passes: None,
            default_deadline_passes: 1_000_000,
            cancel_pass: None,
            core_count: 119,
            ticks_per_pass: 1_000,
            max_passes: 1_000_000,
            region_size: 1 << 20,
            turn_budget: 64,
        }
    }
}

fn err(param: &'static str, message: impl Into<String>) -> ParamsError {
    ParamsError {
        param,
        message: message.into(),
    }
}

impl Delay {
    /// `base + sequence % modulo`; modulo must be at least 1 (S25).
    pub fn cycle(base: u32, modulo: u32) -> Result<Delay, ParamsError> {
        let d = Delay::Cycle { base, modulo };
        d.validate()?;
        Ok(d)
    }

    /// Entry `sequence % len`; the table must not be empty (S25).
    pub fn table(entries: Vec<Option<u32>>) -> Result<Delay, ParamsError> {
        let d = Delay::Table(entries);
        d.validate()?;
        Ok(d)
    }

    /// S25 for `delay`.
    pub fn validate(&self) -> Result<(), ParamsError> {
        match self {
            Delay::Cycle { modulo: 0, .. } => Err(err("delay", "cycle modulo must be at least 1")),
            Delay::Table(t) if t.is_empty() => Err(err("delay", "table must not be empty")),
            _ => Ok(()),
        }
    }

    /// The delay in passes of a command, `None` for never (S23).
    ///
    /// P2: computed exactly in u64, so `base + sequence % modulo` never wraps.
    /// Out-of-range models (which `Params::validate` rejects) give harmless
    /// answers instead of panicking: a cycle with modulo 0 and an empty table
    /// mean never.
    pub fn of(&self, command: &SubmittedCommand) -> Option<u64> {
        match self {
            Delay::Fixed(d) => Some(u64::from(*d)),
            Delay::Never => None,
            Delay::Cycle { base, modulo } => command
                .sequence
                .checked_rem(u64::from(*modulo))
                .map(|r| u64::from(*base) + r),
            Delay::Table(t) => {
                let i = command.sequence.checked_rem(t.len() as u64)?;
                t[i as usize].map(u64::from)
            }
            Delay::Custom(f) => f(command).map(u64::from),
        }
    }
}

impl ResultModel {
    /// The command's k-th argument, k in 0..=9 (S25).
    pub fn arg(k: u8) -> Result<ResultModel, ParamsError> {
        let r = ResultModel::Arg(k);
        r.validate()?;
        Ok(r)
    }

    /// Entry `sequence % len`; the table must not be empty (S25).
    pub fn table(entries: Vec<u32>) -> Result<ResultModel, ParamsError> {
        let r = ResultModel::Table(entries);
        r.validate()?;
        Ok(r)
    }

    /// S25 for `result`.
    pub fn validate(&self) -> Result<(), ParamsError> {
        match self {
            ResultModel::Arg(k) if *k > 9 => {
                Err(err("result", format!("arg({k}) is not in 0..=9")))
            }
            ResultModel::Table(t) if t.is_empty() => Err(err("result", "table must not be empty")),
            _ => Ok(()),
        }
    }

    /// The result of a command with result=True (S23). Out-of-range models give
    /// 0 (an argument above 9, an empty table) instead of panicking.
    pub fn of(&self, command: &SubmittedCommand) -> u32 {
        match self {
            ResultModel::Zero => 0,
            ResultModel::Sequence => command.sequence as u32,
            ResultModel::Arg(k) => command.args.get(usize::from(*k)).copied().unwrap_or(0),
            ResultModel::Table(t) => command
                .sequence
                .checked_rem(t.len() as u64)
                .map_or(0, |i| t[i as usize]),
            ResultModel::Custom(f) => f(command),
        }
    }
}

/// Every key of a params object (S24), in the order they are written.
pub const PARAM_KEYS: [&str; 10] = [
    "delay",
    "result",
    "deadline_passes",
    "default_deadline_passes",
    "cancel_pass",
    "core_count",
    "ticks_per_pass",
    "max_passes",
    "region_size",
    "turn_budget",
];

impl Params {
    /// S25: every parameter in its range, or an error naming the first that is not.
    pub fn validate(&self) -> Result<(), ParamsError> {
        self.delay.validate()?;
        self.result.validate()?;
        if self.deadline_passes == Some(0) {
            return Err(err("deadline_passes", "must be at least 1"));
        }
        if self.default_deadline_passes == 0 {
            return Err(err("default_deadline_passes", "must be at least 1"));
        }
        if !(1..=65_535).contains(&self.core_count) {
            return Err(err(
                "core_count",
                format!("{} is not in 1..=65535", self.core_count),
            ));
        }
        if self.max_passes == 0 {
            return Err(err("max_passes", "must be at least 1"));
        }
        if self.turn_budget == 0 {
            return Err(err("turn_budget", "must be at least 1"));
        }
        Ok(())
    }

    /// The delay in passes of a command when it is submitted, `None` for never
    /// (S23; P2: exact, in u64).
    pub fn delay_of(&self, command: &SubmittedCommand) -> Option<u64> {
        self.delay.of(command)
    }

    /// The result value of a command with result=True when it is submitted (S23).
    pub fn result_of(&self, command: &SubmittedCommand) -> u32 {
        self.result.of(command)
    }

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
                        message: format!("unknown key `{key}`"),
                    });
                }
            }
        }
        p.validate()?;
        Ok(p)
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
    fn a_custom_model_equals_itself_only() {
        // Closures compare by identity: the same Arc is equal, another
        // closure with the same body is not, nor is any JSON model.
        let f: Arc<DelayFn> = Arc::new(|_| Some(1));
        let same = Delay::Custom(Arc::clone(&f));
        assert_eq!(Delay::Custom(f), same);
        assert_ne!(same, Delay::Custom(Arc::new(|_| Some(1))));
        assert_ne!(same, Delay::Fixed(1));
        let g: Arc<ResultFn> = Arc::new(|_| 7);
        let same = ResultModel::Custom(Arc::clone(&g));
        assert_eq!(ResultModel::Custom(g), same);
        assert_ne!(same, ResultModel::Custom(Arc::new(|_| 7)));
        assert_ne!(same, ResultModel::Zero);
    }

    #[test]
    fn debug_names_the_model() {
        let delays = [
            (Delay::Fixed(3), "Fixed(3)"),
            (Delay::Never, "Never"),
            (
                Delay::Cycle { base: 1, modulo: 4 },
                "Cycle { base: 1, modulo: 4 }",
            ),
            (Delay::Table(vec![Some(2), None]), "Table([Some(2), None])"),
            (Delay::Custom(Arc::new(|_| None)), "Custom(..)"),
        ];
        for (d, text) in delays {
            assert_eq!(format!("{d:?}"), text);
        }
        let results = [
            (ResultModel::Zero, "Zero"),
            (ResultModel::Sequence, "Sequence"),
            (ResultModel::Arg(9), "Arg(9)"),
            (ResultModel::Table(vec![5]), "Table([5])"),
            (ResultModel::Custom(Arc::new(|_| 0)), "Custom(..)"),
        ];
        for (r, text) in results {
            assert_eq!(format!("{r:?}"), text);
        }
    }
}

//! Simulation parameters and completion models (docs/spec.md "The simulator", S23, S25).

#[allow(unused_imports)]
use crate::prelude::*;

use alloc::sync::Arc;
use core::fmt;

use crate::command::SubmittedCommand;

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
    Cycle {
        /// The delay of sequence 0, in passes.
        base: u32,
        /// The period (>= 1, S25).
        modulo: u32,
    },
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
    /// How many passes after its submit a command is acknowledged (S12, S23).
    pub delay: Delay,
    /// The result an acknowledgement carries (S23).
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

impl core::error::Error for ParamsError {}

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
}

#[cfg(feature = "json")]
mod json;

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

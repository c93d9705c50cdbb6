//! Simulation parameters and completion models (streams.md "The simulator", S23, S25).

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

/// Every parameter of a run (streams.md "The simulator", S23..S25).
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
    /// The defaults of streams.md and S23.
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

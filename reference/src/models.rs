//! The completion models evaluated (S23): a command's delay and result,
//! written here straight from the ruling, apart from the engine's own
//! evaluation, so that a slip in either shows up as a difference.

use kmst_types::{Delay, Params, ResultModel, SubmittedCommand};

/// The reference model's reading of [`Params`]' completion models.
pub trait Models {
    /// The delay in passes of a command when it is submitted, `None` for
    /// never (S23). P2: computed exactly in u64, so `base + sequence %
    /// modulo` never wraps. Out-of-range models (which `Params::validate`
    /// rejects) give harmless answers instead of panicking: a cycle with
    /// modulo 0 and an empty table mean never.
    fn delay_of(&self, command: &SubmittedCommand) -> Option<u64>;

    /// The result value of a command with result=True when it is submitted
    /// (S23). Out-of-range models give 0 (an argument above 9, an empty
    /// table) instead of panicking.
    fn result_of(&self, command: &SubmittedCommand) -> u32;
}

impl Models for Params {
    fn delay_of(&self, command: &SubmittedCommand) -> Option<u64> {
        match &self.delay {
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

    fn result_of(&self, command: &SubmittedCommand) -> u32 {
        match &self.result {
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

//! The completion models (S23) as the kernel evaluates them, with the
//! engine's own code (the reference model has its own reading): in
//! sequence order, a cycle as a counter instead of a division per command,
//! zero and sequence results as one mask; a table, an argument or a
//! closure on the command's record.

use crate::types::{Delay, Params, ResultModel, SubmittedCommand};

/// The delay model (S23) as the kernel evaluates it for each command in
/// sequence order: `base + sequence % modulo`, the remainder kept as a
/// counter instead of a division per command. A fixed delay is a cycle of
/// modulo 1, and never a fixed delay of `u64::MAX` (its ack saturates to
/// never), so the common models take one path without a jump table; a
/// table or a closure goes through [`delay_on_record`], on the record.
/// What it gives is the delay plus one, the passes from submit to ack
/// (S12), so that the ack is one saturating add.
#[derive(Clone, Copy, Debug)]
pub(super) struct Delays {
    /// The base delay plus one (`u64::MAX`: never).
    base: u64,
    modulo: u64,
    /// The next command's `sequence % modulo`.
    at: u64,
    /// A table or a closure.
    general: bool,
}

impl Delays {
    /// The model before the first command (sequence 0).
    pub(super) fn of(delay: &Delay) -> Delays {
        let cycle = |base: u64, modulo: u64| Delays {
            base,
            modulo,
            at: 0,
            general: false,
        };
        match *delay {
            Delay::Fixed(d) => cycle(u64::from(d) + 1, 1),
            // A cycle of modulo 0 is out of range (S25); the model says never.
            Delay::Never | Delay::Cycle { modulo: 0, .. } => cycle(u64::MAX, 1),
            Delay::Cycle { base, modulo } => cycle(u64::from(base) + 1, u64::from(modulo)),
            Delay::Table(_) | Delay::Custom(_) => Delays {
                general: true,
                ..cycle(0, 1)
            },
        }
    }

    /// The next command's `sequence % modulo` (0 for a table, a closure
    /// or a fixed delay): the model's position, which a snapshot keeps.
    pub(super) fn position(&self) -> u64 {
        self.at
    }

    /// The model at position `at`, as [`Delays::position`] gave it; false
    /// (and unchanged) when `at` is not a position of this model.
    pub(super) fn set_position(&mut self, at: u64) -> bool {
        let fits = if self.general {
            at == 0
        } else {
            at < self.modulo
        };
        if fits {
            self.at = at;
        }
        fits
    }

    /// The delay of the next command in sequence order plus one:
    /// `u64::MAX` for never. `record` is that command's, for a table or a
    /// closure, evaluated out of line when `COLD` (see [`Cold`]).
    #[inline(always)]
    pub(super) fn next<const COLD: bool>(
        &mut self,
        params: &Params,
        record: Option<&SubmittedCommand>,
    ) -> u64 {
        if self.general {
            return record
                .and_then(|r| {
                    if COLD {
                        Cold::delay(&params.delay, r)
                    } else {
                        delay_on_record(&params.delay, r)
                    }
                })
                .map_or(u64::MAX, |d| d.saturating_add(1));
        }
        // `base` is u64::MAX only with modulo 1, where `at` stays 0; else
        // at most 2^32 + 2^32.
        let d = self.base + self.at;
        let next = self.at + 1;
        self.at = if next == self.modulo { 0 } else { next };
        d
    }
}

/// The result model (S23) as the kernel evaluates it: zero and sequence
/// as one mask of the sequence number, without a jump table; an argument,
/// a table or a closure out of line, on the record.
#[derive(Clone, Copy, Debug)]
pub(super) struct Results {
    /// All ones for sequence (its low 32 bits), 0 for zero.
    pub(super) sequence_mask: u32,
    /// An argument's, a table's or a closure's model.
    pub(super) on_record: bool,
}

impl Results {
    pub(super) fn of(result: &ResultModel) -> Results {
        let mask = |sequence_mask| Results {
            sequence_mask,
            on_record: false,
        };
        match *result {
            // An argument above 9 is out of range (S25); the model gives 0.
            ResultModel::Zero | ResultModel::Arg(10..) => mask(0),
            ResultModel::Sequence => mask(u32::MAX),
            ResultModel::Arg(_) | ResultModel::Table(_) | ResultModel::Custom(_) => Results {
                sequence_mask: 0,
                on_record: true,
            },
        }
    }
}

/// The result of the `record` just made under an argument's, a table's or
/// a closure's model (S23).
///
/// Not marked cold: a cold call here cost the queue's turn spills around
/// it (decisions.md D21, R11); with `COLD`, what it calls for a table or
/// a closure is (see [`Cold`]).
#[inline]
pub(super) fn result_on_record<const COLD: bool>(
    params: &Params,
    record: Option<&SubmittedCommand>,
) -> u32 {
    let Some(record) = record else { return 0 };
    match params.result {
        ResultModel::Arg(k) => record.args.get(usize::from(k)).copied().unwrap_or(0),
        _ if COLD => Cold::result(&params.result, record),
        _ => result_of_model(&params.result, record),
    }
}

/// The table and closure models called out of line and cold: what SUBMIT
/// and the host's commands use, so that their rare code stays out of
/// SUBMIT's handler (its registers); a placed job's record in the queue's
/// turn calls them inline, where a call cost spills (decisions.md D21).
/// The rules themselves are written once, in [`result_of_model`] and
/// [`delay_on_record`].
struct Cold;

impl Cold {
    #[cold]
    #[inline(never)]
    fn result(model: &ResultModel, record: &SubmittedCommand) -> u32 {
        result_of_model(model, record)
    }

    #[cold]
    #[inline(never)]
    fn delay(delay: &Delay, record: &SubmittedCommand) -> Option<u64> {
        delay_on_record(delay, record)
    }
}

/// The result of `record` under any model (S23): an argument, an entry
/// `sequence % len` of a table (an empty table, out of range by S25, gives
/// 0), or the closure's answer.
#[inline]
fn result_of_model(model: &ResultModel, record: &SubmittedCommand) -> u32 {
    match model {
        ResultModel::Arg(k) => record.args.get(usize::from(*k)).copied().unwrap_or(0),
        ResultModel::Table(t) => match record.sequence.checked_rem(t.len() as u64) {
            Some(i) => t[i as usize],
            None => 0,
        },
        ResultModel::Custom(f) => f(record),
        ResultModel::Zero => 0,
        ResultModel::Sequence => record.sequence as u32,
    }
}

/// The delay of `record` under a table or a closure (S23): entry
/// `sequence % len` of a table (`None`: never; an empty table, out of range
/// by S25, says never), or the closure's answer (P2: exact in u64).
#[inline]
fn delay_on_record(delay: &Delay, record: &SubmittedCommand) -> Option<u64> {
    match delay {
        Delay::Table(t) => {
            let i = record.sequence.checked_rem(t.len() as u64)?;
            t[i as usize].map(u64::from)
        }
        Delay::Custom(f) => f(record).map(u64::from),
        Delay::Fixed(d) => Some(u64::from(*d)),
        Delay::Never => None,
        Delay::Cycle { base, modulo } => record
            .sequence
            .checked_rem(u64::from(*modulo))
            .map(|r| u64::from(*base) + r),
    }
}

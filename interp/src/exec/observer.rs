//! What the kernel reports while it runs: [`TurnEnd`] and the [`Observer`] hooks.
//!
//! The kernel and every dispatch loop are generic over an [`Observer`]; plain
//! runs use [`NoObserver`], whose empty hooks and `ENABLED = false` are
//! monomorphised away, so observing costs nothing unless someone observes.

#![forbid(unsafe_code)]

use crate::types::StreamError;

/// Why a stream's turn ended (S17, S18).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TurnEnd {
    /// The turn budget (`turn_budget` micro-ops) was used up.
    Budget,
    /// A SUBMIT waits: all 16 completion slots are busy.
    WaitSlots,
    /// An ENQUEUE waits: the job queue holds 64 jobs.
    WaitQueueFull,
    /// An exclusive SUBMIT waits for older queued jobs or an overlapping busy group.
    WaitExclusive,
    /// A WAIT waits for pending commands and jobs.
    Wait,
    /// A HALT waits for pending commands and jobs.
    HaltPending,
    /// The stream ended with this error (step limit, MOD by zero, ...).
    Error(StreamError),
    /// HALT ended the stream with this status.
    Halt(u32),
}

impl TurnEnd {
    /// True when the turn ended at a micro-op that has to wait.
    pub fn is_wait(self) -> bool {
        matches!(
            self,
            TurnEnd::WaitSlots
                | TurnEnd::WaitQueueFull
                | TurnEnd::WaitExclusive
                | TurnEnd::Wait
                | TurnEnd::HaltPending
        )
    }

    /// A short name (`budget`, `wait-slots`, ...), for profiles.
    pub fn name(self) -> &'static str {
        match self {
            TurnEnd::Budget => "budget",
            TurnEnd::WaitSlots => "wait-slots",
            TurnEnd::WaitQueueFull => "wait-queue-full",
            TurnEnd::WaitExclusive => "wait-exclusive",
            TurnEnd::Wait => "wait",
            TurnEnd::HaltPending => "halt-pending",
            TurnEnd::Error(_) => "error",
            TurnEnd::Halt(_) => "halt",
        }
    }
}

/// Hooks the kernel calls while it runs. Every hook has an empty default.
pub trait Observer {
    /// When true, every micro-op that completes (counts a step, S17; HALT
    /// that ends the stream included; a micro-op that waits or errs does
    /// not) calls [`Observer::on_op`] with its pc. Leave false unless per-pc
    /// counts are wanted: the test is a constant, so plain runs pay nothing.
    const ENABLED: bool = false;

    /// Whether the kernel must report every pass (`on_turn_end`,
    /// `on_pass_end`) even while the one active stream runs quick passes, in
    /// which nothing but the stream's turn happens. When false (and
    /// `ENABLED` is false) the kernel may run the turns of many quick passes
    /// as one chain and report none of them (machine/mod.rs, "Spans of
    /// quick passes"; machine/budget.rs, `quick_span`).
    const EVERY_PASS: bool = true;

    /// The micro-op at `pc` completed (only when `ENABLED`).
    #[inline(always)]
    fn on_op(&mut self, pc: u32) {
        let _ = pc;
    }

    /// A turn of stream `stream` in `pass` ran `ops` micro-ops and ended
    /// for `why`, with the stream at `pc` (the next or the waiting micro-op).
    #[inline(always)]
    fn on_turn_end(&mut self, pass: u64, stream: usize, ops: u32, why: TurnEnd, pc: u32) {
        let _ = (pass, stream, ops, why, pc);
    }

    /// A command took `slot` with sequence `seq` in `pass`.
    #[inline(always)]
    fn on_submit(&mut self, slot: u8, seq: u64, pass: u64, queued: bool) {
        let _ = (slot, seq, pass, queued);
    }

    /// The sweep of `pass` freed `slot` (the command with sequence `seq`).
    #[inline(always)]
    fn on_ack(&mut self, slot: u8, seq: u64, pass: u64) {
        let _ = (slot, seq, pass);
    }

    /// The end of `pass`: `busy_slots` slots in use, `queue_len` jobs waiting.
    #[inline(always)]
    fn on_pass_end(&mut self, pass: u64, busy_slots: u32, queue_len: u32) {
        let _ = (pass, busy_slots, queue_len);
    }

    /// Passes `from..to` were skipped as idle: nothing ran and the slot
    /// occupancy and queue depth stayed what [`Observer::on_pass_end`] last said.
    #[inline(always)]
    fn on_idle(&mut self, from: u64, to: u64) {
        let _ = (from, to);
    }
}

/// The observer of plain runs: does nothing, costs nothing.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoObserver;

impl Observer for NoObserver {
    const EVERY_PASS: bool = false;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::Reason;

    /// The names docs/profiling.md lists ("why turns ended"), and which
    /// ends are waits (S18: SUBMIT, ENQUEUE, WAIT and HALT wait).
    #[test]
    fn each_end_has_its_documented_name() {
        let error = StreamError {
            reason: Reason::StepLimit,
            pc: 3,
        };
        let ends = [
            (TurnEnd::Budget, "budget", false),
            (TurnEnd::WaitSlots, "wait-slots", true),
            (TurnEnd::WaitQueueFull, "wait-queue-full", true),
            (TurnEnd::WaitExclusive, "wait-exclusive", true),
            (TurnEnd::Wait, "wait", true),
            (TurnEnd::HaltPending, "halt-pending", true),
            (TurnEnd::Error(error), "error", false),
            (TurnEnd::Halt(0), "halt", false),
        ];
        for (end, name, wait) in ends {
            assert_eq!((end.name(), end.is_wait()), (name, wait), "{end:?}");
        }
    }
}

//! Streams ending (S14, S16, S17, S21, S33): a stream taken out of the
//! active list, failed with its error event and its queued jobs dropped,
//! stopped at the step limit or the end of its program, and every active
//! stream ended when a late command stops the grid.

use super::Machine;
use crate::exec::kernel::{self, Life, Waiting};
use crate::exec::observer::TurnEnd;
use crate::types::result::kind;
use crate::types::{Reason, StreamError};

impl Machine {
    /// Takes stream `i` out of the active list (it ended).
    pub(super) fn deactivate(&mut self, i: usize) {
        if let Some(k) = self.active[..self.n_active]
            .iter()
            .position(|&a| usize::from(a) == i)
        {
            self.active.copy_within(k + 1..self.n_active, k);
            self.n_active -= 1;
        }
    }

    /// Ends stream `i` with an error (S21): its own queued jobs are dropped,
    /// its commands in flight stay.
    pub(super) fn fail(&mut self, i: usize, reason: Reason, pc: u32) -> StreamError {
        let e = StreamError { reason, pc };
        let s = &mut self.streams[i].meta;
        s.life = Life::Failed;
        s.exclusive_mark = None;
        let req = s.req;
        self.kernel.drop_jobs(&mut self.streams[i].meta);
        self.kernel.post(
            kind::STREAM_ERROR,
            req,
            u32::from(reason.number()) | pc << 8,
        );
        self.streams[i].end.error = Some(e);
        self.deactivate(i);
        e
    }

    /// The tests before the next micro-op, when the folded counter says the
    /// steps ran out (S17): the end of the program first, then the step limit.
    pub(super) fn step_limit(&mut self, i: usize) -> TurnEnd {
        let program = usize::from(self.streams[i].meta.program);
        let op_count = self.programs[program].head.op_count;
        let pc = self.streams[i].meta.pc;
        let e = if pc == op_count {
            self.fail(i, Reason::BadJump, op_count)
        } else {
            self.fail(i, Reason::StepLimit, pc)
        };
        TurnEnd::Error(e)
    }

    /// The deadline phase found `slot` late (S14, S33): the grid stops.
    pub(super) fn late(&mut self, slot: usize) {
        let s = self.kernel.slots[slot];
        self.kernel.stopped = true;
        let owner = usize::from(s.owner);
        if s.owner != kernel::HOST && self.streams[owner].meta.life == Life::Active {
            // Its record holds the pc of its SUBMIT or ENQUEUE.
            let pc = self.kernel.commands[s.seq as usize].pc;
            self.fail(owner, Reason::Deadline, pc);
        } else {
            // An ended stream's, or the host's (req 0).
            let req = self.streams.get(owner).map_or(0, |st| st.meta.req);
            self.kernel.post(kind::TIMEOUT, req, slot as u32);
        }
        // S33: every other active stream ends at its current pc, in start order.
        while self.n_active > 0 {
            let i = usize::from(self.active[0]);
            let pc = self.streams[i].meta.pc;
            self.fail(i, Reason::Deadline, pc);
        }
    }
}

/// How a turn ends whose waiting micro-op still waits.
#[inline]
pub(super) fn wait_end(waiting: Waiting) -> TurnEnd {
    match waiting {
        Waiting::Slots => TurnEnd::WaitSlots,
        Waiting::QueueFull => TurnEnd::WaitQueueFull,
        Waiting::Pending(_) => TurnEnd::Wait,
        _ => TurnEnd::HaltPending,
    }
}

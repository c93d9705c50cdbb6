//! The passes 0 .. max_passes (S16, S35): the sweep and the deadlines, the
//! host phase, the turns; quick passes taken on a short path of their own
//! and idle passes skipped (module doc of [`machine`](super)).

use super::Machine;
use super::budget;
use super::turn::Turns;
use crate::exec::dispatch::Dispatch;
use crate::exec::observer::{Observer, TurnEnd};
use crate::types::Reason;

impl Machine {
    /// True when the run is over (S16, S35): the grid stopped, or no stream
    /// is active, no command is in flight, the queue is empty and no host
    /// command is waiting or due.
    ///
    /// The pass loop returns at once when the grid stops (`late`), so
    /// `stopped` is not tested here; the active streams are, first, as they
    /// settle it in nearly every pass.
    pub(super) fn finished(&self) -> bool {
        debug_assert!(
            !self.kernel.stopped,
            "the pass loop returns when the grid stops"
        );
        self.n_active == 0
            && self.kernel.busy == 0
            && self.kernel.queue.len() == 0
            && self.host.done()
    }

    /// The passes `from` .. `limit` (S16, S35); `limit` is `max_passes`
    /// but in a paused run (docs/pause.md). True when the run is over;
    /// else it stopped before `kernel.pass`. With `EVENT`, it stops after
    /// the first pass that posts an event.
    pub(super) fn passes<O: Observer, const EVENT: bool>(
        &mut self,
        from: u64,
        limit: u64,
        dispatch: Dispatch,
        obs: &mut O,
    ) -> bool {
        // The bound of the loop, the quick passes and the idle skip.
        let max_passes = limit;
        let events = self.kernel.events.len();
        let cancel = self.cancel_pass;
        // The first pass whose host-command phase has anything to do: the
        // next host command due, or the cancel pass (`u64::MAX`: none).
        // Only the host phase changes it, so it is found again only there.
        let mut host_at = self.host.next_due().min(cancel.unwrap_or(u64::MAX));
        let mut turns = Turns::<O>::new(limit);
        let mut p = from;
        // The last turn of the (one) active stream ended by its budget (a
        // resumed run takes the full path first: the quick one is a
        // shortcut of it).
        let mut budget_ended = false;
        while p < max_passes {
            if EVENT && self.kernel.events.len() > events {
                break;
            }
            self.kernel.pass = p;
            // The sweep being due fails the test most often: it comes first
            // (is_quick's first test; decisions.md D17).
            if budget_ended
                && budget::is_quick(&self.kernel, p, max_passes, host_at)
                && self.n_active == 1
            {
                // A quick pass: no slot can be acknowledged or late, no host
                // command, and the queue is empty when the stream's turn
                // starts, so a queue turn before it does nothing. The stream
                // (still active: its last turn ended by the budget) takes its
                // turn, then the queue if it comes second (even passes).
                self.kernel.queue_moved = false;
                let i = usize::from(self.active[0]);
                let (ran, why, pc) = self.turn_call::<O, true>(i, dispatch, obs, &mut turns);
                p = self.kernel.pass;
                budget_ended = why == TurnEnd::Budget;
                obs.on_turn_end(p, i, ran, why, pc);
                if p & 1 == 0 {
                    self.kernel.queue_turn(obs);
                }
                obs.on_pass_end(
                    p,
                    self.kernel.busy.count_ones(),
                    self.kernel.queue.len() as u32,
                );
                if self.finished() {
                    return true;
                }
                // Even if this pass was idle (the turn stopped at once at a
                // wait), the next one takes the full path, which finds it
                // idle again and skips from there (machine/mod.rs, "Idle
                // passes cost nothing").
                p += 1;
                continue;
            }
            // 1, 2: the sweep and the deadlines, only when a slot can change.
            if p >= self.kernel.next_change
                && self.kernel.sweep(&mut self.streams, obs)
                && let Some(slot) = self.kernel.lowest_late()
            {
                self.late(slot);
                obs.on_pass_end(
                    p,
                    self.kernel.busy.count_ones(),
                    self.kernel.queue.len() as u32,
                );
                return true;
            }
            // 3: host commands: a scenario's (S26), or the one stream's cancel (S15).
            let mut moved = false;
            if p >= host_at {
                moved = self.host_phase(p, obs);
                if cancel == Some(p) && self.n_active == 1 {
                    let i = usize::from(self.active[0]);
                    let pc = self.streams[i].meta.pc;
                    self.fail(i, Reason::Cancelled, pc);
                    moved = true;
                }
                // A host command that waits is due again in the next pass.
                host_at = budget::host_at(&self.host, cancel, p);
            }
            // 4: the turns (S29).
            let turned;
            (turned, budget_ended) = self.turns(p, dispatch, obs, &mut turns);
            moved |= turned;
            obs.on_pass_end(
                p,
                self.kernel.busy.count_ones(),
                self.kernel.queue.len() as u32,
            );
            if self.n_active != 0 {
                // The run goes on (the common case, settled by one test).
                if moved {
                    p += 1;
                    continue;
                }
            } else if self.finished() {
                return true;
            } else if moved {
                p += 1;
                continue;
            }
            if EVENT && self.kernel.events.len() > events {
                p += 1;
                break;
            }
            // Idle: jump to the next pass where the sweep, the deadlines or
            // the host can change something (machine/mod.rs, "Idle passes
            // cost nothing").
            let mut next = self.kernel.next_change.min(max_passes);
            // A host command due later; one already due waits on the slots
            // or the queue, which only the sweep or a turn can change.
            let due = self.host.next_due();
            if due > p {
                next = next.min(due);
            }
            if let Some(c) = cancel
                && c > p
                && self.n_active > 0
            {
                next = next.min(c);
            }
            let next = next.max(p + 1);
            if next > p + 1 {
                obs.on_idle(p + 1, next);
            }
            p = next;
        }
        self.kernel.pass = p;
        p >= self.params.max_passes
    }
}

//! The queue's turn (S20): which queued jobs fit the free cores, placed in
//! queue order with the lowest free slot each, and a failed stream's jobs
//! dropped (S21).

use super::queue::{EXCLUSIVE, STARVATION, WINDOW, entry_slab};
use super::records::push_record_from;
use super::slots::Taking;
use super::state::{HOST, Kernel};
use super::stream::StreamMeta;
use crate::exec::observer::Observer;

impl Kernel {
    /// The queue's turn (S20). Sets `queue_moved` when a job was placed.
    /// The test for an empty queue or no free slot is inlined into the pass
    /// loop (a run that queues nothing paid a call per pass for it).
    #[inline(always)]
    pub fn queue_turn<O: Observer>(&mut self, obs: &mut O) {
        if self.queue.len != 0 && self.busy != u16::MAX {
            self.queue_turn_window(obs);
        }
    }

    /// The queue's turn on a non-empty queue with a free slot.
    ///
    /// A job fits exactly when its count is at most the widest free stretch
    /// between the busy groups (groups.rs), so a job that cannot be placed
    /// costs a comparison, and the allocator walks the stretches only for a
    /// job that is placed. The free cores only shrink during the turn, so after
    /// a placement the candidates are the jobs behind it that still fit:
    /// one branch-free comparison of the window's 16 counts finds them
    /// (queue.rs). The placed jobs leave the order once, at the end.
    ///
    /// A job not placed ends the turn when it was overtaken 1,024 times
    /// (S20). Counts never grow along the queue (queue.rs), and a job behind
    /// the one looked at has not been overtaken in this turn yet, so unless
    /// the head is that far no job of the window is, and none gets there
    /// before it is looked at; otherwise the turn looks at every job in turn.
    #[inline(never)]
    fn queue_turn_window<O: Observer>(&mut self, obs: &mut O) {
        let window = self.queue.len.min(WINDOW);
        self.free.rebuild(self.busy, &self.slots, self.core_count);
        let mut gap = self.free.widest();
        // With no free core nothing can be placed; a turn that places
        // nothing changes nothing, however it ends.
        if gap == 0 {
            return;
        }
        if self.queue.overtaken(self.queue.entry(0), 0) >= STARVATION {
            return self.queue_turn_in_order(window, gap, obs);
        }
        // The places of the jobs that fit now: only they can be placed, and
        // after each placement only those behind it that still fit.
        let mut fits = self.queue.fitting(window, gap);
        let mut placed = 0u32;
        while fits != 0 {
            let w = fits.trailing_zeros() as usize;
            fits &= fits - 1;
            let entry = self.queue.entry(w);
            // An exclusive job only at the head: every job ahead of it placed.
            if entry & EXCLUSIVE != 0 && placed != (1 << w) - 1 {
                continue;
            }
            let count = self.queue.count(w);
            let Some(at) = self.free.lowest_fit(count) else {
                continue;
            };
            self.place(entry, at, count, obs);
            placed |= 1 << w;
            if self.busy == u16::MAX || fits == 0 {
                break;
            }
            gap = self.free.widest();
            fits &= self.queue.fitting(window, gap);
        }
        self.queue.remove_placed(placed);
    }

    /// The queue's turn when a job of the window may block (S20): every job
    /// looked at in order, until one that blocks.
    fn queue_turn_in_order<O: Observer>(&mut self, window: usize, mut gap: u64, obs: &mut O) {
        let mut placed = 0u32;
        for w in 0..window {
            if self.busy == u16::MAX {
                break;
            }
            let entry = self.queue.entry(w);
            let count = self.queue.count(w);
            let at =
                if u64::from(count) <= gap && (entry & EXCLUSIVE == 0 || placed == (1 << w) - 1) {
                    self.free.lowest_fit(count)
                } else {
                    None
                };
            match at {
                Some(at) => {
                    self.place(entry, at, count, obs);
                    placed |= 1 << w;
                    gap = self.free.widest();
                }
                None => {
                    // Its place now: the jobs ahead of it that stayed.
                    let pos = w - self.queue.placed_in_turn();
                    if self.queue.overtaken(entry, pos) >= STARVATION {
                        break;
                    }
                }
            }
        }
        self.queue.remove_placed(placed);
    }

    /// The queue submits the job of `entry` at the front of free stretch
    /// `at` (S20): it takes the lowest free slot as in S19.
    #[inline(always)]
    fn place<O: Observer>(&mut self, entry: u8, at: usize, count: u32, obs: &mut O) {
        let first = self.free.start(at);
        let Some(job) = self.queue.slab_entry(entry_slab(entry)) else {
            return;
        };
        let (owner, fixed, t_flags) = (job.owner, job.deadline, job.cmd.flags);
        // `next_command` in line, after the look-up, not called before it
        // (decisions.md R21).
        let slot = (!self.busy).trailing_zeros() as u8;
        let sequence = self.seq;
        let pass = self.pass;
        // The job's record (S19): its prototype, copied once from the slab
        // into the answer, with the fields known only now (decisions.md
        // D25: built in place; a record built as a value cost the queue's
        // turn a copy).
        let record = push_record_from(&mut self.commands, &job.cmd);
        record.sequence = sequence;
        record.slot = slot;
        record.first = first;
        record.pass_index = pass;
        self.seq = sequence + 1;
        if owner == HOST {
            // The lowest free slot, the one taken here.
            self.host_slots |= 1 << slot;
        }
        self.take_slot::<O, false>(
            Taking {
                slot,
                sequence,
                pass,
                owner,
                fixed_deadline: fixed,
                first,
                count,
                flags: t_flags,
                queued: true,
            },
            obs,
        );
        self.free.take(at, count);
        self.queue.placed(entry);
        self.queue_moved = true;
    }

    /// Drops a failed stream's queued jobs (S21).
    pub fn drop_jobs(&mut self, s: &mut StreamMeta) {
        let dropped = self.queue.drop_owner(s.index);
        s.pending -= dropped;
    }
}

//! Commands in flight and waiting, for every source: the completion slots
//! (S19, with the delay, result and deadline of S23 and S31), the group
//! allocator, the test an exclusive command waits on (S18, S30), and the
//! queue with its turn (S20).

use super::{Busy, Job, Kernel};
use crate::models::Models;
use crate::result::SubmittedCommand;
use crate::scenario::answer::ScenarioCommand;
use crate::sim::{FLAG_EXCLUSIVE, FLAG_RESULT, OVERTAKE_LIMIT, QUEUE_WINDOW};

impl Kernel<'_> {
    pub(super) fn lowest_free_slot(&self) -> Option<usize> {
        self.slots.iter().position(Option::is_none)
    }

    /// Whether `[first, first + count)` overlaps some busy slot's group.
    fn overlaps_busy(&self, first: u64, count: u64) -> bool {
        self.slots
            .iter()
            .flatten()
            .any(|b| b.first < first + count && first < b.first + b.count)
    }

    /// S18, S30: an exclusive command waits while a job queued (by anyone)
    /// before its first try is still queued, or a busy group overlaps its own.
    pub(super) fn exclusive_blocked(&self, mark: u64, first: u32, count: u32) -> bool {
        self.queue.iter().any(|j| j.id < mark)
            || self.overlaps_busy(u64::from(first), u64::from(count))
    }

    pub(super) fn push_job(
        &mut self,
        owner: Option<usize>,
        handler: u8,
        flags: u8,
        count: u32,
        args: [u32; 10],
        pc: u32,
    ) {
        self.queue.push_back(Job {
            id: self.next_job_id,
            owner,
            handler,
            flags,
            count,
            args,
            pc,
            overtaken: 0,
        });
        self.next_job_id += 1;
    }

    /// S19: the command takes `slot` and is recorded; its delay and result
    /// are evaluated on the record now (S23), its deadline is S31's.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn take_slot(
        &mut self,
        slot: usize,
        owner: Option<usize>,
        handler: u8,
        flags: u8,
        first: u32,
        count: u32,
        args: [u32; 10],
        pass: u64,
        pc: u32,
        queued: bool,
    ) {
        let record = SubmittedCommand {
            sequence: self.commands.len() as u64,
            slot: slot as u8,
            handler,
            first,
            count,
            flags,
            args,
            pass_index: pass,
            pc,
            queued,
        };
        // S31: deadline_passes; else the stream header's when not 0; else the
        // default in force now.
        let header = owner.map_or(0, |s| self.streams[s].program.deadline_microseconds);
        let deadline = match self.params.deadline_passes {
            Some(d) => d,
            None if header != 0 => u64::from(header),
            None => self.default_deadline,
        };
        // S12: acknowledged in the sweep of pass p + 1 + d (never past u64).
        let ack_pass = self
            .params
            .delay_of(&record)
            .and_then(|d| pass.checked_add(1)?.checked_add(d));
        let result = (flags & FLAG_RESULT != 0).then(|| self.params.result_of(&record));
        self.slots[slot] = Some(Busy {
            command: self.commands.len(),
            owner,
            first: u64::from(first),
            count: u64::from(count),
            ack_pass,
            late_pass: pass.saturating_add(deadline),
            result,
        });
        self.commands.push(ScenarioCommand {
            command: record,
            stream: owner,
        });
    }

    /// The group allocator: the lowest first in 0..=core_count-count whose
    /// range overlaps no busy slot's group (candidates: 0 and the end of each
    /// busy group, as in [`crate::sim`]).
    fn allocate(&self, count: u32) -> Option<u32> {
        let last = u64::from(self.params.core_count.checked_sub(count)?);
        let ends = self.slots.iter().flatten().map(|b| b.first + b.count);
        std::iter::once(0)
            .chain(ends)
            .filter(|&first| first <= last && !self.overlaps_busy(first, u64::from(count)))
            .min()
            .map(|first| first as u32)
    }

    /// S20: the queue's turn, over the jobs of every source.
    pub(super) fn queue_turn(&mut self, pass: u64) {
        let window: Vec<u64> = self.queue.iter().take(QUEUE_WINDOW).map(|j| j.id).collect();
        for id in window {
            let Some(slot) = self.lowest_free_slot() else {
                return;
            };
            let Some(at) = self.queue.iter().position(|j| j.id == id) else {
                continue;
            };
            let job = self.queue[at];
            // An exclusive job only at the head of the queue.
            let allowed = job.flags & FLAG_EXCLUSIVE == 0 || at == 0;
            let first = if allowed {
                self.allocate(job.count)
            } else {
                None
            };
            match first {
                Some(first) => {
                    // Every job ahead of it still waiting is overtaken once more.
                    for ahead in self.queue.iter_mut().take(at) {
                        ahead.overtaken = ahead.overtaken.saturating_add(1);
                    }
                    self.queue.remove(at);
                    self.take_slot(
                        slot,
                        job.owner,
                        job.handler,
                        job.flags,
                        first,
                        job.count,
                        job.args,
                        pass,
                        job.pc,
                        true,
                    );
                }
                None if job.overtaken >= OVERTAKE_LIMIT => return,
                None => {}
            }
        }
    }
}

/// A group is outside the grid when `count == 0 || first > core_count ||
/// count > core_count - first` (no sum is formed).
pub(super) fn outside_grid(first: u32, count: u32, core_count: u32) -> bool {
    count == 0 || first > core_count || count > core_count - first
}

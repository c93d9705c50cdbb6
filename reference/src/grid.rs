//! The completion slots and the job queue (S18..S20): what the one
//! stream's simulator ([`crate::sim`]) and the whole kernel
//! ([`crate::scenario::run`]) both hold, with the group allocator and the
//! queue's turn. P10 keeps the two readings of a turn and of the micro-ops
//! apart; this mechanism under them is the same for one source or many,
//! so it is written once. Each slot and job remembers its stream (`None`
//! for the host; the one stream is stream 0).

use std::collections::VecDeque;

use crate::models::Models;
use crate::ops::{Running, Step};
use crate::params::Params;
use crate::program::Template;
use crate::program::{FLAG_EXCLUSIVE, FLAG_RESULT};
use crate::result::{Reason, SubmittedCommand};

/// Completion slots (docs/spec.md "Streams, commands and the grid"; S19).
pub const SLOTS: usize = 16;
/// Most waiting jobs in the queue (S18, S20).
pub const QUEUE_CAPACITY: usize = 64;
/// Jobs the queue looks at per turn (S20).
pub const QUEUE_WINDOW: usize = 16;
/// A job overtaken this many times blocks those behind it (S20).
pub const OVERTAKE_LIMIT: u32 = 1_024;

/// A busy completion slot.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Busy {
    /// Index into the answer's commands.
    pub(crate) command: usize,
    /// The stream that made it (S32).
    pub(crate) owner: Owner,
    pub(crate) first: u64,
    pub(crate) count: u64,
    /// The pass whose sweep acknowledges it (S12); `None` for never.
    pub(crate) ack_pass: Option<u64>,
    /// Late when still busy after the sweep of this pass (S13, S31).
    pub(crate) late_pass: u64,
    /// `Some(value)` when it was submitted with result=True (S23).
    pub(crate) result: Option<u32>,
}

/// A job waiting in the queue (its arguments are those of its ENQUEUE, S18).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Job {
    /// Order of enqueue over every source, from 0 (S18, S30: "queued before").
    pub(crate) id: u64,
    /// The stream that queued it.
    pub(crate) owner: Owner,
    pub(crate) handler: u8,
    pub(crate) flags: u8,
    pub(crate) count: u32,
    pub(crate) args: [u32; 10],
    pub(crate) pc: u32,
    pub(crate) overtaken: u32,
}

/// The source of a slot's command or of a job: a stream's index, or `None`
/// for the host. Kept in a byte (there are at most four streams), so that a
/// job stays 64 bytes, which the queue's removals move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Owner(Option<u8>);

impl Owner {
    pub(crate) fn of(stream: Option<usize>) -> Owner {
        Owner(stream.map(|s| s as u8))
    }

    /// The stream's index; `None` for the host.
    pub(crate) fn stream(self) -> Option<usize> {
        self.0.map(usize::from)
    }

    /// Whether it is stream `s`.
    pub(crate) fn is(self, s: usize) -> bool {
        self == Owner::of(Some(s))
    }
}

/// The slots and the queue, with the parameters their rules read (the
/// grid's size, the delay and result models).
pub(crate) struct Grid<'p> {
    pub(crate) params: &'p Params,
    pub(crate) slots: [Option<Busy>; SLOTS],
    pub(crate) queue: VecDeque<Job>,
    pub(crate) next_job_id: u64,
}

impl<'p> Grid<'p> {
    pub(crate) fn new(params: &'p Params) -> Grid<'p> {
        Grid {
            params,
            slots: [None; SLOTS],
            queue: VecDeque::new(),
            next_job_id: 0,
        }
    }

    pub(crate) fn lowest_free_slot(&self) -> Option<usize> {
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
    pub(crate) fn exclusive_blocked(&self, mark: u64, first: u32, count: u32) -> bool {
        self.queue.iter().any(|j| j.id < mark)
            || self.overlaps_busy(u64::from(first), u64::from(count))
    }

    /// S18: a job at the back of the queue, its arguments those of now.
    pub(crate) fn push_job(
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
            owner: Owner::of(owner),
            handler,
            flags,
            count,
            args,
            pc,
            overtaken: 0,
        });
        self.next_job_id += 1;
    }

    /// The group allocator: the lowest first in 0..=core_count-count whose
    /// range overlaps no busy slot's group.
    ///
    /// Only 0 and the end of a busy group can be that lowest first: if `f > 0`
    /// fits and `f - 1` does not, the only core `f - 1`'s range adds is `f - 1`,
    /// so a busy group holds core `f - 1` but nothing from `f` on: it ends at `f`.
    /// So the candidates are those, tested exactly as the rule says.
    fn allocate(&self, count: u32, core_count: u32) -> Option<u32> {
        let last = u64::from(core_count.checked_sub(count)?);
        let ends = self.slots.iter().flatten().map(|b| b.first + b.count);
        std::iter::once(0)
            .chain(ends)
            .filter(|&first| first <= last && !self.overlaps_busy(first, u64::from(count)))
            .min()
            .map(|first| first as u32)
    }
}

/// What submits through the grid: the one stream's simulator and the
/// whole kernel, each with its answer's commands and its deadline rule.
pub(crate) trait Submitter<'p> {
    fn grid(&mut self) -> &mut Grid<'p>;
    /// The commands recorded so far: the next one's sequence (S19).
    fn recorded(&self) -> usize;
    /// The deadline in passes of a command `owner` makes now (S13, S31).
    fn deadline(&self, owner: Option<usize>) -> u64;
    /// Appends the command to the answer.
    fn record(&mut self, command: SubmittedCommand, owner: Option<usize>);
    /// The running state of stream `s`.
    fn running(&mut self, s: usize) -> &mut Running;

    /// S19: the command takes `slot` and is recorded; its delay and result
    /// are evaluated on the record now (S23).
    #[allow(clippy::too_many_arguments)]
    fn take_slot(
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
        let command = self.recorded();
        let record = SubmittedCommand {
            sequence: command as u64,
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
        let params = self.grid().params;
        // S12: acknowledged in the sweep of pass p + 1 + d (never past u64).
        let ack_pass = params
            .delay_of(&record)
            .and_then(|d| pass.checked_add(1)?.checked_add(d));
        let result = (flags & FLAG_RESULT != 0).then(|| params.result_of(&record));
        let late_pass = pass.saturating_add(self.deadline(owner));
        self.grid().slots[slot] = Some(Busy {
            command,
            owner: Owner::of(owner),
            first: u64::from(first),
            count: u64::from(count),
            ack_pass,
            late_pass,
            result,
        });
        self.record(record, owner);
    }
}

/// A group is outside the grid when `count == 0 || first > core_count ||
/// count > core_count - first` (no sum is formed).
pub(crate) fn outside_grid(first: u32, count: u32, core_count: u32) -> bool {
    count == 0 || first > core_count || count > core_count - first
}

/// SUBMIT of template `t` by stream `s`, in the order of S18: a group
/// outside the grid fails before any waiting; on its first try it marks
/// the jobs queued before it; it waits for a free slot and, exclusive,
/// while one of those jobs is still queued or a busy group overlaps its
/// own; then it takes the lowest free slot. Out of line: inlined into the
/// one-stream simulator's micro-op loop, it cost its ALU workloads 2.5 %
/// more instructions.
#[inline(never)]
pub(crate) fn submit<'p>(k: &mut impl Submitter<'p>, s: usize, t: Template, pass: u64) -> Step {
    let cores = k.grid().params.core_count;
    let next_job_id = k.grid().next_job_id;
    let run = k.running(s);
    let pc = run.pc;
    let args = t.patched_args(&run.regs);
    let (first, count) = t.group(&run.regs);
    if outside_grid(first, count, cores) {
        return Step::Fail(Reason::BadGroup);
    }
    let mark = *run.exclusive_mark.get_or_insert(next_job_id);
    let grid = k.grid();
    let Some(slot) = grid.lowest_free_slot() else {
        return Step::Wait;
    };
    if t.flags & FLAG_EXCLUSIVE != 0 && grid.exclusive_blocked(mark, first, count) {
        return Step::Wait;
    }
    k.running(s).exclusive_mark = None;
    k.take_slot(
        slot,
        Some(s),
        t.handler,
        t.flags,
        first,
        count,
        args,
        pass,
        pc,
        false,
    );
    Step::Next(pc + 1)
}

/// ENQUEUE of template `t` as a job of `count` cores by stream `s`, in the
/// order of S18: a count of 0 or above the grid fails, a full queue waits.
/// Out of line, as [`submit`].
#[inline(never)]
pub(crate) fn enqueue<'p>(k: &mut impl Submitter<'p>, s: usize, t: Template, count: u32) -> Step {
    if count == 0 || count > k.grid().params.core_count {
        return Step::Fail(Reason::BadEnqueue);
    }
    if k.grid().queue.len() >= QUEUE_CAPACITY {
        return Step::Wait;
    }
    let run = k.running(s);
    let (args, pc) = (t.patched_args(&run.regs), run.pc);
    k.grid()
        .push_job(Some(s), t.handler, t.flags, count, args, pc);
    Step::Next(pc + 1)
}

/// S20: the queue's turn over the first QUEUE_WINDOW jobs as it starts.
pub(crate) fn queue_turn<'p>(k: &mut impl Submitter<'p>, pass: u64) {
    let cores = k.grid().params.core_count;
    let grid = k.grid();
    if grid.queue.is_empty() {
        return;
    }
    // A fixed array: this runs every pass the queue is not empty.
    let mut window = [0u64; QUEUE_WINDOW];
    let n = grid.queue.len().min(QUEUE_WINDOW);
    for (w, job) in window.iter_mut().zip(&grid.queue) {
        *w = job.id;
    }
    for &id in &window[..n] {
        let grid = k.grid();
        let Some(slot) = grid.lowest_free_slot() else {
            return;
        };
        let Some(at) = grid.queue.iter().position(|j| j.id == id) else {
            continue;
        };
        let job = grid.queue[at];
        // An exclusive job only at the head of the queue.
        let allowed = job.flags & FLAG_EXCLUSIVE == 0 || at == 0;
        let first = if allowed {
            grid.allocate(job.count, cores)
        } else {
            None
        };
        match first {
            Some(first) => {
                // Every job ahead of it still waiting is overtaken once more.
                for ahead in grid.queue.iter_mut().take(at) {
                    ahead.overtaken = ahead.overtaken.saturating_add(1);
                }
                grid.queue.remove(at);
                k.take_slot(
                    slot,
                    job.owner.stream(),
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

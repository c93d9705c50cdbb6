//! The fast kernel's state: completion slots, the job queue, the group
//! allocator, the sequence counter and the answer being built.
//!
//! - Slots are a u16 bit mask; the lowest free slot is `trailing_zeros(!busy)`.
//! - Each busy slot keeps its acknowledgement pass and deadline pass;
//!   `next_change` is the minimum of both over the busy slots, so a pass
//!   before it skips the sweep and the deadline phase entirely, and the idle
//!   skip (machine.rs) knows the next pass where anything can happen.
//! - The group allocator sorts the at most 16 busy groups on the stack.
//! - The queue is a fixed slab of 64 jobs plus an order array of slab
//!   indices (insertion order), so a job leaving from the middle moves bytes,
//!   not jobs. Nothing here allocates after set-up.

use super::handler::Exit;
use super::observer::Observer;
use super::program::Tmpl;
use crate::format::{NO_REGISTER, SLOTS, flags};
use crate::reference::{Event, Params, Reason, SubmittedCommand};

/// The most jobs waiting in the queue.
pub(crate) const QUEUE_CAP: usize = 64;
/// How many queued jobs the queue's turn looks at (S20).
const WINDOW: usize = 16;
/// A job overtaken this often blocks those behind it (S20).
const STARVATION: u32 = 1024;
/// The owner of host-queued jobs and host commands.
#[allow(dead_code)]
pub(crate) const HOST: u8 = 0xFF;
/// The most streams that run at once.
pub(crate) const MAX_STREAMS: usize = 4;

/// How a stream stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Life {
    Active,
    Ended,
    Failed,
}

/// Everything of a stream except its registers (which the handlers hold).
#[derive(Clone, Copy, Debug)]
pub(crate) struct StreamMeta {
    pub pc: u32,
    pub steps: u32,
    pub max_steps: u32,
    /// Commands in flight plus jobs in the queue (S18).
    pub pending: u32,
    /// Commands in flight only.
    pub in_flight: u32,
    pub latest_result: u32,
    pub req: u32,
    /// The deadline of its commands, in passes (S13).
    pub deadline: u64,
    pub life: Life,
    /// Its index among the streams (the owner of its slots and jobs).
    pub index: u8,
    /// An exclusive SUBMIT that waited: the first job id it does not wait for (S18).
    pub exclusive_mark: Option<u64>,
    /// What the micro-op at `pc` waited for at the end of the last turn.
    pub waiting: Waiting,
}

/// What a stream's waiting micro-op waits for. Its registers, pc and steps
/// do not change while it waits, so the retry has the same outcome for as
/// long as this condition holds; the turn tests it without dispatching.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Waiting {
    /// Not waiting (or a wait that is always retried in full).
    No,
    /// SUBMIT: all 16 slots busy.
    Slots,
    /// ENQUEUE: the queue is full.
    QueueFull,
    /// WAIT imm: more than imm pending.
    Pending(u32),
    /// HALT: anything pending.
    Halt,
}

impl Waiting {
    /// Whether the wait still holds: then the retry would wait again.
    #[inline]
    pub fn holds(self, k: &Kernel, s: &StreamMeta) -> bool {
        match self {
            Waiting::No => false,
            Waiting::Slots => k.busy == u16::MAX,
            Waiting::QueueFull => k.queue.len == QUEUE_CAP,
            Waiting::Pending(imm) => s.pending > imm,
            Waiting::Halt => s.pending != 0,
        }
    }
}

/// One busy completion slot.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Slot {
    /// The sweep that frees it (`u64::MAX`: never).
    pub ack: u64,
    /// The pass after whose sweep it is late.
    pub deadline: u64,
    pub first: u32,
    pub count: u32,
    pub result: u32,
    pub has_result: bool,
    pub owner: u8,
    pub pc: u32,
    pub seq: u64,
}

/// One waiting job (its arguments patched at ENQUEUE).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Job {
    pub id: u64,
    pub handler: u8,
    pub flags: u8,
    pub count: u32,
    pub args: [u32; 10],
    pub pc: u32,
    pub owner: u8,
}

/// Why the kernel refused a SUBMIT or ENQUEUE for now.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Refusal {
    Wait(Exit),
    Error(Reason),
}

/// The job queue: a slab of jobs and the insertion order.
///
/// The order array holds one packed word per waiting job, so the queue's
/// turn reads the window from contiguous memory: the slab index (bits 0..6),
/// the exclusive flag (bit 7) and the core count (bits 8..40).
pub(crate) struct Queue {
    /// The slab, on the heap and grown on demand: entry `k` exists once `k`
    /// jobs have waited at the same time. A run that enqueues nothing
    /// allocates nothing for it, and the kernel stays cheap to move.
    jobs: Vec<Job>,
    /// How often each slab entry's job has been overtaken (S20).
    overtaken: [u32; QUEUE_CAP],
    /// A ring: waiting job k (in queue order) is at `(head + k) % 64`.
    order: [u64; QUEUE_CAP],
    head: usize,
    len: usize,
    /// Free slab entries as bits.
    free: u64,
    /// Waiting jobs overtaken STARVATION times or more.
    starving: u32,
}

const ENTRY_EXCLUSIVE: u64 = 1 << 7;

#[inline]
fn entry_slab(entry: u64) -> usize {
    (entry & 0x3F) as usize
}

#[inline]
fn entry_count(entry: u64) -> u32 {
    (entry >> 8) as u32
}

impl Queue {
    fn new() -> Queue {
        Queue {
            jobs: Vec::new(),
            overtaken: [0; QUEUE_CAP],
            order: [0; QUEUE_CAP],
            head: 0,
            len: 0,
            free: u64::MAX,
            starving: 0,
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    /// Room for every entry of the slab, so that no ENQUEUE allocates.
    pub fn reserve_all(&mut self) {
        self.jobs.reserve(QUEUE_CAP - self.jobs.len());
    }

    fn push(&mut self, job: Job) {
        debug_assert!(self.len < QUEUE_CAP);
        let at = self.free.trailing_zeros() as usize;
        self.free &= !(1 << at);
        let exclusive = if job.flags & flags::EXCLUSIVE != 0 {
            ENTRY_EXCLUSIVE
        } else {
            0
        };
        // The lowest free entry is at most one past the slab's end.
        if at == self.jobs.len() {
            self.jobs.push(job);
        } else {
            self.jobs[at] = job;
        }
        self.overtaken[at] = 0;
        self.order[(self.head + self.len) % QUEUE_CAP] =
            at as u64 | exclusive | u64::from(job.count) << 8;
        self.len += 1;
    }

    /// The packed entry of the waiting job at `pos` (in queue order).
    #[inline]
    fn entry(&self, pos: usize) -> u64 {
        self.order[(self.head + pos) % QUEUE_CAP]
    }

    fn job(&self, pos: usize) -> &Job {
        &self.jobs[entry_slab(self.entry(pos))]
    }

    fn remove(&mut self, pos: usize) {
        let at = entry_slab(self.entry(pos));
        self.free |= 1 << at;
        if self.overtaken[at] >= STARVATION {
            self.starving -= 1;
        }
        // The jobs ahead (at most 15: the queue's turn looks at 16) move
        // one place back and the head follows.
        for k in (0..pos).rev() {
            self.order[(self.head + k + 1) % QUEUE_CAP] = self.order[(self.head + k) % QUEUE_CAP];
        }
        self.head = (self.head + 1) % QUEUE_CAP;
        self.len -= 1;
    }

    /// One more overtake for each of the first `n` waiting jobs.
    fn overtake(&mut self, n: usize) {
        for k in 0..n {
            let entry = self.entry(k);
            let o = &mut self.overtaken[entry_slab(entry)];
            *o = o.saturating_add(1);
            if *o == STARVATION {
                self.starving += 1;
            }
        }
    }

    /// Drops every job of `owner`; returns how many.
    fn drop_owner(&mut self, owner: u8) -> u32 {
        let mut kept = 0;
        let mut dropped = 0;
        for pos in 0..self.len {
            let entry = self.entry(pos);
            let at = entry_slab(entry);
            if self.jobs[at].owner == owner {
                self.free |= 1 << at;
                if self.overtaken[at] >= STARVATION {
                    self.starving -= 1;
                }
                dropped += 1;
            } else {
                self.order[(self.head + kept) % QUEUE_CAP] = entry;
                kept += 1;
            }
        }
        self.len = kept;
        dropped
    }
}

/// The kernel state shared by every submitter.
pub(crate) struct Kernel {
    pub pass: u64,
    pub busy: u16,
    pub slots: [Slot; SLOTS],
    /// The minimum ack or deadline pass over the busy slots (`u64::MAX` when none).
    pub next_change: u64,
    pub queue: Queue,
    /// The next command sequence number (S19).
    pub seq: u64,
    /// The next job id (queue order across every source).
    pub job_ids: u64,
    pub core_count: u32,
    pub ticks_per_pass: u32,
    /// The run's parameters (the completion models are evaluated through them).
    pub params: Params,
    /// True once the queue's turn placed a job in this pass.
    pub queue_moved: bool,
    pub stopped: bool,
    /// The queue turn's sorted busy groups, rebuilt in place each turn (a
    /// fresh list per turn cost a memset and a memcpy; docs/dispatch.md).
    groups: Groups,
    pub commands: Vec<SubmittedCommand>,
    pub events: Vec<Event>,
}

/// Whether `[f, f + c)` and `[g, g + d)` share a core.
#[inline]
fn overlaps(f: u32, c: u32, g: u32, d: u32) -> bool {
    let (f, c, g, d) = (u64::from(f), u64::from(c), u64::from(g), u64::from(d));
    f < g + d && g < f + c
}

impl Kernel {
    pub fn new(params: &Params) -> Kernel {
        Kernel {
            pass: 0,
            busy: 0,
            slots: [Slot::default(); SLOTS],
            next_change: u64::MAX,
            queue: Queue::new(),
            seq: 0,
            job_ids: 0,
            core_count: params.core_count,
            ticks_per_pass: params.ticks_per_pass,
            params: params.clone(),
            queue_moved: false,
            stopped: false,
            groups: Groups {
                list: [(0, 0); SLOTS],
                len: 0,
            },
            commands: Vec::new(),
            events: Vec::new(),
        }
    }

    /// Posts an event in the current pass; `aux` is cut to 24 bits.
    pub fn post(&mut self, kind: u8, req: u32, aux: u32) {
        self.events.push(Event {
            kind,
            req,
            auxiliary: aux & 0xFF_FFFF,
            pass_index: self.pass,
        });
    }

    /// TIME's value (S18).
    #[inline]
    pub fn time(&self) -> u32 {
        (self.pass.wrapping_mul(u64::from(self.ticks_per_pass))) as u32
    }

    fn any_busy_overlaps(&self, first: u32, count: u32) -> bool {
        let mut busy = self.busy;
        while busy != 0 {
            let s = &self.slots[busy.trailing_zeros() as usize];
            if overlaps(first, count, s.first, s.count) {
                return true;
            }
            busy &= busy - 1;
        }
        false
    }

    /// Takes the lowest free slot for a command and records it (S19).
    #[allow(clippy::too_many_arguments)]
    fn take_slot<O: Observer>(
        &mut self,
        s: &mut StreamMeta,
        t_handler: u8,
        t_flags: u8,
        first: u32,
        count: u32,
        args: [u32; 10],
        pc: u32,
        queued: bool,
        obs: &mut O,
    ) {
        let slot = (!self.busy).trailing_zeros() as u8;
        let record = SubmittedCommand {
            sequence: self.seq,
            slot,
            handler: t_handler,
            first,
            count,
            flags: t_flags,
            args,
            pass_index: self.pass,
            pc,
            queued,
        };
        self.seq += 1;
        // S23: both models are evaluated on the record at submit; S12, P2:
        // acknowledged in the sweep of pass p + 1 + d, exactly (never past u64).
        let ack = self
            .params
            .delay_of(&record)
            .and_then(|d| self.pass.checked_add(1)?.checked_add(d))
            .unwrap_or(u64::MAX);
        let has_result = t_flags & flags::RESULT != 0;
        let result = if has_result {
            self.params.result_of(&record)
        } else {
            0
        };
        let deadline = self.pass.saturating_add(s.deadline);
        self.slots[usize::from(slot)] = Slot {
            ack,
            deadline,
            first,
            count,
            result,
            has_result,
            owner: s.index,
            pc,
            seq: record.sequence,
        };
        self.busy |= 1 << slot;
        self.next_change = self.next_change.min(ack).min(deadline);
        s.in_flight += 1;
        obs.on_submit(slot, record.sequence, self.pass, queued);
        self.commands.push(record);
    }

    /// SUBMIT (S18): error 11, then wait for a slot, then the exclusive waits.
    pub fn submit<O: Observer>(
        &mut self,
        s: &mut StreamMeta,
        regs: &[u32; 16],
        t: &Tmpl,
        pc: u32,
        obs: &mut O,
    ) -> Result<(), Refusal> {
        let exclusive = t.flags & flags::EXCLUSIVE != 0;
        if exclusive && s.exclusive_mark.is_none() {
            // The first try: jobs queued from now on are not waited for.
            s.exclusive_mark = Some(self.job_ids);
        }
        let reg = |r: u8, fixed: u16| {
            if r == NO_REGISTER {
                u32::from(fixed)
            } else {
                regs[usize::from(r & 15)]
            }
        };
        let first = reg(t.first_register, t.first);
        let count = reg(t.count_register, t.count);
        let core_count = self.core_count;
        if count == 0 || first > core_count || count > core_count - first {
            s.exclusive_mark = None;
            return Err(Refusal::Error(Reason::BadGroup));
        }
        if self.busy == u16::MAX {
            return Err(Refusal::Wait(Exit::WaitSlots));
        }
        if exclusive {
            let mark = s.exclusive_mark.unwrap_or(0);
            let older_queued = self.queue.len > 0 && self.queue.job(0).id < mark;
            if older_queued || self.any_busy_overlaps(first, count) {
                return Err(Refusal::Wait(Exit::WaitExclusive));
            }
            s.exclusive_mark = None;
        }
        let args = patched(t, regs);
        self.take_slot(s, t.handler, t.flags, first, count, args, pc, false, obs);
        s.pending += 1;
        Ok(())
    }

    /// ENQUEUE (S18): error 9, then wait while the queue is full.
    pub fn enqueue(
        &mut self,
        s: &mut StreamMeta,
        regs: &[u32; 16],
        t: &Tmpl,
        count: u32,
        pc: u32,
    ) -> Result<(), Refusal> {
        if count == 0 || count > self.core_count {
            return Err(Refusal::Error(Reason::BadEnqueue));
        }
        if self.queue.len == QUEUE_CAP {
            return Err(Refusal::Wait(Exit::WaitQueueFull));
        }
        let job = Job {
            id: self.job_ids,
            handler: t.handler,
            flags: t.flags,
            count,
            args: patched(t, regs),
            pc,
            owner: s.index,
        };
        self.job_ids += 1;
        self.queue.push(job);
        s.pending += 1;
        Ok(())
    }

    /// The queue's turn (S20). Sets `queue_moved` when a job was placed.
    pub fn queue_turn<O: Observer>(&mut self, streams: &mut [StreamMeta], obs: &mut O) {
        let window = self.queue.len.min(WINDOW);
        if window == 0 || self.busy == u16::MAX {
            return;
        }
        self.groups.rebuild(self.busy, &self.slots);
        // The busy groups only grow during the turn, so once a job of `unfit`
        // cores found no room, no job of as many cores or more can: those are
        // not submitted without asking the allocator again (exact, S20).
        let mut unfit = u32::MAX;
        // smallest[w]: the fewest cores any job from window place w on asks
        // for. When it is `unfit` or more and no job is starving, nothing more
        // can be submitted or end the turn: the rest of the window is skipped.
        let mut smallest = [u32::MAX; WINDOW + 1];
        for w in (0..window).rev() {
            smallest[w] = smallest[w + 1].min(entry_count(self.queue.entry(w)));
        }
        let mut removed = 0;
        for (w, &least) in smallest[..window].iter().enumerate() {
            if self.busy == u16::MAX || (least >= unfit && self.queue.starving == 0) {
                break;
            }
            // Jobs looked at earlier either left (all before this one) or stayed.
            let pos = w - removed;
            let entry = self.queue.entry(pos);
            let count = entry_count(entry);
            // An exclusive job only at the head; a job no smaller than one
            // that found no room finds none either.
            let placed = if (entry & ENTRY_EXCLUSIVE != 0 && pos != 0) || count >= unfit {
                None
            } else {
                let first = self.groups.lowest_fit(count, self.core_count);
                if first.is_none() {
                    unfit = count;
                }
                first
            };
            match placed {
                Some(first) => {
                    let job = self.queue.jobs[entry_slab(entry)];
                    let s = &mut streams[usize::from(job.owner)];
                    self.take_slot(
                        s,
                        job.handler,
                        job.flags,
                        first,
                        count,
                        job.args,
                        job.pc,
                        true,
                        obs,
                    );
                    self.groups.insert(first, count);
                    self.queue.remove(pos);
                    self.queue.overtake(pos);
                    removed += 1;
                    self.queue_moved = true;
                }
                None => {
                    if self.queue.starving != 0
                        && self.queue.overtaken[entry_slab(entry)] >= STARVATION
                    {
                        break;
                    }
                }
            }
        }
    }

    /// Drops a failed stream's queued jobs (S21).
    pub fn drop_jobs(&mut self, s: &mut StreamMeta) {
        let dropped = self.queue.drop_owner(s.index);
        s.pending -= dropped;
    }

    /// The sweep of this pass (S12): frees acknowledged slots, lowest first.
    pub fn sweep<O: Observer>(&mut self, streams: &mut [StreamMeta], obs: &mut O) {
        let pass = self.pass;
        let mut busy = self.busy;
        while busy != 0 {
            let slot = busy.trailing_zeros() as usize;
            busy &= busy - 1;
            let s = self.slots[slot];
            if s.ack == pass {
                self.busy &= !(1 << slot);
                let owner = &mut streams[usize::from(s.owner)];
                if s.has_result {
                    owner.latest_result = s.result;
                }
                owner.pending -= 1;
                owner.in_flight -= 1;
                obs.on_ack(slot as u8, s.seq, pass);
            }
        }
    }

    /// The lowest late slot after this pass's sweep, if any (S13, S14).
    pub fn lowest_late(&self) -> Option<usize> {
        let mut busy = self.busy;
        while busy != 0 {
            let slot = busy.trailing_zeros() as usize;
            if self.slots[slot].deadline <= self.pass {
                return Some(slot);
            }
            busy &= busy - 1;
        }
        None
    }

    /// Recomputes `next_change` after slots were freed.
    pub fn refresh_next_change(&mut self) {
        let mut next = u64::MAX;
        let mut busy = self.busy;
        while busy != 0 {
            let s = &self.slots[busy.trailing_zeros() as usize];
            next = next.min(s.ack).min(s.deadline);
            busy &= busy - 1;
        }
        self.next_change = next;
    }
}

/// The busy slots' groups sorted by first core, for the allocator.
struct Groups {
    /// `(first, end)`, ascending by first (u64: no sum wraps, whatever the grid).
    list: [(u64, u64); SLOTS],
    len: usize,
}

impl Groups {
    /// Refills the list with the groups of the `busy` slots.
    fn rebuild(&mut self, busy: u16, slots: &[Slot; SLOTS]) {
        self.len = 0;
        let mut busy = busy;
        while busy != 0 {
            let s = &slots[busy.trailing_zeros() as usize];
            self.insert(s.first, s.count);
            busy &= busy - 1;
        }
    }

    /// Adds the group `[first, first + count)`, keeping the order.
    fn insert(&mut self, first: u32, count: u32) {
        let (first, end) = (u64::from(first), u64::from(first) + u64::from(count));
        let mut at = self.len;
        while at > 0 && self.list[at - 1].0 > first {
            self.list[at] = self.list[at - 1];
            at -= 1;
        }
        self.list[at] = (first, end);
        self.len += 1;
    }

    /// The lowest `first` in `0 ..= core_count - count` whose range overlaps
    /// no busy group (docs/spec.md "The kernel", S20): walking the groups by
    /// first core, the candidate is 0 or the furthest end seen so far.
    fn lowest_fit(&self, count: u32, core_count: u32) -> Option<u32> {
        let count = u64::from(count);
        let mut candidate = 0u64;
        for &(first, end) in &self.list[..self.len] {
            if candidate + count <= first {
                break;
            }
            candidate = candidate.max(end);
        }
        // candidate + count <= core_count keeps the candidate within u32.
        (candidate + count <= u64::from(core_count)).then_some(candidate as u32)
    }
}

/// The template's arguments with its patches applied in order (a later
/// patch of the same argument wins).
#[inline]
fn patched(t: &Tmpl, regs: &[u32; 16]) -> [u32; 10] {
    let mut args = t.args;
    for &(arg, reg) in &t.patches[..usize::from(t.patch_count).min(4)] {
        // Program::decode checked arg < 10 and reg < 16 (S5); the masks keep
        // the bounds checks out without changing an in-range value.
        args[usize::from(arg) % 10] = regs[usize::from(reg & 15)];
    }
    args
}

#[allow(dead_code)]
const _: () = assert!(MAX_STREAMS <= 4 && (QUEUE_CAP as u32) < u32::MAX);

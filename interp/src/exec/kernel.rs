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

use super::observer::Observer;
use super::ops::Exit;
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
    pub overtaken: u32,
}

/// Why the kernel refused a SUBMIT or ENQUEUE for now.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Refusal {
    Wait(Exit),
    Error(Reason),
}

/// The job queue: a slab and the insertion order.
pub(crate) struct Queue {
    jobs: [Job; QUEUE_CAP],
    order: [u8; QUEUE_CAP],
    len: usize,
    /// Free slab entries as bits.
    free: u64,
}

impl Queue {
    fn new() -> Queue {
        Queue {
            jobs: [Job::default(); QUEUE_CAP],
            order: [0; QUEUE_CAP],
            len: 0,
            free: u64::MAX,
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    fn push(&mut self, job: Job) {
        debug_assert!(self.len < QUEUE_CAP);
        let at = self.free.trailing_zeros() as usize;
        self.free &= !(1 << at);
        self.jobs[at] = job;
        self.order[self.len] = at as u8;
        self.len += 1;
    }

    fn job(&self, pos: usize) -> &Job {
        &self.jobs[usize::from(self.order[pos])]
    }

    fn remove(&mut self, pos: usize) {
        let at = usize::from(self.order[pos]);
        self.free |= 1 << at;
        self.order.copy_within(pos + 1..self.len, pos);
        self.len -= 1;
    }

    /// Drops every job of `owner`; returns how many.
    fn drop_owner(&mut self, owner: u8) -> u32 {
        let mut kept = 0;
        let mut dropped = 0;
        for pos in 0..self.len {
            let at = self.order[pos];
            if self.jobs[usize::from(at)].owner == owner {
                self.free |= 1 << at;
                dropped += 1;
            } else {
                self.order[kept] = at;
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
    pub commands: Vec<SubmittedCommand>,
    pub events: Vec<Event>,
}

/// Whether `[f, f + c)` and `[g, g + d)` share a core.
#[inline]
fn overlaps(f: u32, c: u32, g: u32, d: u32) -> bool {
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

    /// The lowest `first` in `0 ..= core_count - count` whose range overlaps
    /// no busy slot's group (streams.md "The kernel pass", S20).
    fn allocate(&self, count: u32) -> Option<u32> {
        let mut groups = [(0u32, 0u32); SLOTS];
        let mut n = 0;
        let mut busy = self.busy;
        while busy != 0 {
            let s = &self.slots[busy.trailing_zeros() as usize];
            groups[n] = (s.first, s.count);
            n += 1;
            busy &= busy - 1;
        }
        let groups = &mut groups[..n];
        groups.sort_unstable();
        let mut candidate = 0u32;
        for &(f, c) in groups.iter() {
            if candidate + count <= f {
                break;
            }
            candidate = candidate.max(f + c);
        }
        (u64::from(candidate) + u64::from(count) <= u64::from(self.core_count)).then_some(candidate)
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
            overtaken: 0,
        };
        self.job_ids += 1;
        self.queue.push(job);
        s.pending += 1;
        Ok(())
    }

    /// The queue's turn (S20). Sets `queue_moved` when a job was placed.
    pub fn queue_turn<O: Observer>(&mut self, streams: &mut [StreamMeta], obs: &mut O) {
        let window = self.queue.len.min(WINDOW);
        if window == 0 {
            return;
        }
        let mut removed = 0;
        for w in 0..window {
            if self.busy == u16::MAX {
                break;
            }
            // Jobs looked at earlier either left (all before this one) or stayed.
            let pos = w - removed;
            let job = *self.queue.job(pos);
            let placed = if job.flags & flags::EXCLUSIVE != 0 && pos != 0 {
                None
            } else {
                self.allocate(job.count)
            };
            match placed {
                Some(first) => {
                    let s = &mut streams[usize::from(job.owner)];
                    self.take_slot(
                        s,
                        job.handler,
                        job.flags,
                        first,
                        job.count,
                        job.args,
                        job.pc,
                        true,
                        obs,
                    );
                    self.queue.remove(pos);
                    removed += 1;
                    for ahead in 0..pos {
                        let at = usize::from(self.queue.order[ahead]);
                        self.queue.jobs[at].overtaken =
                            self.queue.jobs[at].overtaken.saturating_add(1);
                    }
                    self.queue_moved = true;
                }
                None => {
                    if job.overtaken >= STARVATION {
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

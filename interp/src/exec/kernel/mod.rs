//! The fast kernel's state: completion slots, the job queue ([`queue`]), the
//! group allocator ([`groups`]), the streams ([`stream`]), the sequence
//! counter and the answer being built.
//!
//! - Slots are a u16 bit mask; the lowest free slot is `trailing_zeros(!busy)`.
//! - Each busy slot keeps its acknowledgement pass and deadline pass;
//!   `next_change` is the minimum of both over the busy slots, so a pass
//!   before it skips the sweep and the deadline phase entirely, and the idle
//!   skip (machine.rs) knows the next pass where anything can happen. An
//!   ack wheel of 64 passes lets a sweep find the slots it frees without
//!   walking the busy ones ([`Kernel::sweep`]).
//! - The completion models are evaluated in sequence order ([`Delays`],
//!   [`Results`]): a cycle is a counter, not a division per command.
//! - The group allocator keeps the free stretches between the busy groups
//!   in core order: a job fits exactly when its count is at most the widest,
//!   goes to the front of the first one wide enough, and a placement only
//!   shrinks that stretch.
//! - The queue is a fixed slab of 64 jobs plus the insertion order as slab
//!   indices and core-count keys, so a job leaving from the middle moves
//!   bytes, not jobs, and the queue's turn finds the jobs that fit without
//!   a branch. Nothing here allocates after set-up.

#![forbid(unsafe_code)]

mod groups;
mod models;
mod queue;
mod stream;

pub(crate) use queue::QUEUE_CAP;
pub(crate) use stream::{Life, Stream, StreamEnd, StreamMeta, Waiting};

use self::groups::{Free, overlaps};
use self::models::{Delays, Results};
use self::queue::{EXCLUSIVE, Job, Queue, STARVATION, WINDOW, entry_slab};
use super::hint;
use super::inst::Exit;
use super::observer::Observer;
use super::template::{BLANK, Tmpl};
use crate::format::{NO_REGISTER, SLOTS, flags};
use crate::types::{Event, Params, Reason, SubmittedCommand};

/// The owner of host-queued jobs and host commands.
pub(crate) const HOST: u16 = u16::MAX;
/// The most streams that run at once.
pub(crate) const MAX_STREAMS: usize = 4;
/// How many passes ahead the ack wheel reaches (a power of two, 64 bits).
const ACK_WHEEL: usize = 64;

/// One busy completion slot.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Slot {
    /// The sweep that frees it (`u64::MAX`: never).
    pub ack: u64,
    /// The pass after whose sweep it is late.
    pub deadline: u64,
    pub first: u32,
    pub count: u32,
    /// Its result when it has the result flag (`result_slots`).
    pub result: u32,
    /// The stream that made it, or [`HOST`].
    pub owner: u16,
    /// Its sequence number, the index of its record in `commands`, where
    /// the rest of what it recorded (its pc) is read when needed.
    pub seq: u64,
}

/// The command [`Kernel::take_slot`] takes a slot for: what its record
/// says, and what the slot needs beyond it.
#[derive(Clone, Copy, Debug)]
struct Taking {
    slot: u8,
    sequence: u64,
    /// The pass of submit, read by the caller before it wrote the record
    /// (read after, it was loaded again: the record's stores may alias).
    pass: u64,
    /// The stream that made it, or [`HOST`].
    owner: u16,
    /// Its deadline in passes when fixed (S13, S31): the host's
    /// `deadline_passes`, else the stream header's.
    fixed_deadline: Option<u64>,
    first: u32,
    count: u32,
    /// The template's flag byte.
    flags: u8,
    queued: bool,
}

/// Why the kernel refused a SUBMIT or ENQUEUE for now.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Refusal {
    Wait(Exit),
    Error(Reason),
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
    /// The kernel's default deadline in passes (S31; DEADLINE changes it).
    pub default_deadline: u64,
    /// The owner of each recorded command (only when `record_owners`).
    pub owners: Vec<u16>,
    pub record_owners: bool,
    /// The run's parameters (the completion models are evaluated through them).
    pub params: Params,
    /// The delay model as the kernel evaluates it.
    delays: Delays,
    /// The result model as the kernel evaluates it.
    results: Results,
    /// True once the queue's turn placed a job in this pass.
    pub queue_moved: bool,
    /// The ack wheel: bucket `a % 64` holds the busy slots acknowledged in
    /// pass `a`, for every ack less than 64 passes after its submit.
    wheel: [u16; ACK_WHEEL],
    /// The buckets of `wheel` that are not empty.
    wheel_bits: u64,
    /// The busy slots acknowledged later than that, or never.
    far: u16,
    /// The minimum ack over `far` (`u64::MAX` when none).
    far_next: u64,
    /// At or below the minimum deadline over the busy slots (`u64::MAX`
    /// when none): exact until a sweep frees the slot that had it
    /// ([`Kernel::sweep`]).
    min_deadline: u64,
    /// The busy slots holding a host command (S32), for the sweep's
    /// one-stream path.
    host_slots: u16,
    /// The busy slots whose command has the result flag (S12): the sweep
    /// finds the highest one it frees without looking at the others.
    result_slots: u16,
    pub stopped: bool,
    /// The queue turn's free stretches, rebuilt in place each turn (a
    /// fresh list per turn cost a memset and a memcpy; docs/dispatch.md).
    free: Free,
    pub commands: Vec<SubmittedCommand>,
    pub events: Vec<Event>,
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
            default_deadline: params.default_deadline_passes,
            owners: Vec::new(),
            record_owners: false,
            params: params.clone(),
            delays: Delays::of(&params.delay),
            results: Results::of(&params.result),
            queue_moved: false,
            wheel: [0; ACK_WHEEL],
            wheel_bits: 0,
            far: 0,
            far_next: u64::MAX,
            min_deadline: u64::MAX,
            host_slots: 0,
            result_slots: 0,
            stopped: false,
            free: Free::new(),
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

    /// The lowest free slot and the next sequence number (S19), for the
    /// command about to be recorded; the caller checked that a slot is free.
    #[inline(always)]
    fn next_command(&mut self) -> (u8, u64) {
        let slot = (!self.busy).trailing_zeros() as u8;
        let sequence = self.seq;
        self.seq += 1;
        (slot, sequence)
    }

    /// Takes the slot of `c`, the command just recorded, the last of
    /// `commands` (S19): its models, ack, deadline and place in the sweep.
    ///
    /// The caller has pushed the record into the answer: a placed job's as
    /// a copy of the job's (which is kept as its record) with the fields
    /// known only now filled in; SUBMIT's and the host's field by field (a
    /// copy of the template's prototype patched in place cost SUBMIT's
    /// handler 17 instructions of registers). The models read it there.
    #[inline(always)]
    fn take_slot<O: Observer>(&mut self, c: Taking, obs: &mut O) {
        let Taking {
            slot,
            sequence,
            pass,
            owner,
            fixed_deadline,
            first,
            count,
            flags: t_flags,
            queued,
        } = c;
        // S23: both models are evaluated on the record at submit.
        let delay_1 = self.delays.next(&self.params, self.commands.last());
        // S12, P2: acknowledged in the sweep of pass p + 1 + d, exactly
        // (never past u64: a never or an overflow saturates to u64::MAX).
        let ack = pass.saturating_add(delay_1);
        let has_result = t_flags & flags::RESULT != 0;
        let result = if has_result {
            self.results
                .next(&self.params, sequence, self.commands.last())
        } else {
            0
        };
        // S13, S31: deadline_passes, else the stream header's (both in
        // `fixed_deadline`), else the default in force now.
        let d = fixed_deadline.unwrap_or(self.default_deadline);
        let deadline = pass.saturating_add(d);
        self.slots[usize::from(slot)] = Slot {
            ack,
            deadline,
            first,
            count,
            result,
            owner,
            seq: sequence,
        };
        let bit = 1u16 << slot;
        self.busy |= bit;
        if has_result {
            self.result_slots |= bit;
        }
        // ack >= pass + 1 (S12), so the difference does not wrap.
        if ack - pass < ACK_WHEEL as u64 {
            let bucket = (ack % ACK_WHEEL as u64) as usize;
            self.wheel[bucket] |= bit;
            self.wheel_bits |= 1 << bucket;
        } else {
            self.far |= bit;
            self.far_next = self.far_next.min(ack);
        }
        self.min_deadline = self.min_deadline.min(deadline);
        self.next_change = self.next_change.min(ack).min(deadline);
        obs.on_submit(slot, sequence, pass, queued);
        if self.record_owners {
            self.owners.push(owner);
        }
    }

    /// SUBMIT (S18): error 11, then wait for a slot, then the exclusive waits.
    /// Inlined into the SUBMIT handler (a call cost a frame per command).
    /// `group` is the first core and count already read from registers,
    /// for a template that is not exclusive (SUBMIT's `group` variant).
    #[inline(always)]
    pub fn submit<O: Observer>(
        &mut self,
        s: &mut StreamMeta,
        regs: &[u32; 16],
        t: &Tmpl,
        group: Option<(u32, u32)>,
        pc: u32,
        obs: &mut O,
    ) -> Result<(), Refusal> {
        let exclusive = group.is_none() && t.proto.flags & flags::EXCLUSIVE != 0;
        if exclusive && s.exclusive_mark.is_none() {
            // The first try: jobs queued from now on are not waited for.
            s.exclusive_mark = Some(self.job_ids);
        }
        let reg = |r: u8, fixed: u32| {
            if r == NO_REGISTER {
                fixed
            } else {
                regs[usize::from(r & 15)]
            }
        };
        let (first, count) = group.unwrap_or_else(|| {
            (
                reg(t.first_register, t.proto.first),
                reg(t.count_register, t.proto.count),
            )
        });
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
            if self.queue.holds_older(mark) || self.any_busy_overlaps(first, count) {
                return Err(Refusal::Wait(Exit::WaitExclusive));
            }
            s.exclusive_mark = None;
        }
        let args = patched(t, regs);
        let (slot, sequence) = self.next_command();
        let pass = self.pass;
        // Field by field here: a copy of the template's prototype patched
        // in place cost the handler 17 instructions more (registers).
        push_record_value(
            &mut self.commands,
            SubmittedCommand {
                sequence,
                slot,
                handler: t.proto.handler,
                first,
                count,
                flags: t.proto.flags,
                args,
                pass_index: pass,
                pc,
                queued: false,
            },
        );
        self.take_slot(
            Taking {
                slot,
                sequence,
                pass,
                owner: s.index,
                fixed_deadline: s.deadline,
                first,
                count,
                flags: t.proto.flags,
                queued: false,
            },
            obs,
        );
        s.pending += 1;
        Ok(())
    }

    /// ENQUEUE (S18): error 9, then wait while the queue is full. Inlined
    /// into the ENQUEUE handler, as SUBMIT is.
    #[inline(always)]
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
        let id = self.job_ids;
        self.job_ids += 1;
        // Written in place: a job built on the stack cost a copy of its 64
        // bytes. Its record's prototype is the template's, with the count,
        // the pc and the patched arguments of this moment (S18).
        let job = self.queue.push_entry(t.proto.flags, count);
        job.id = id;
        job.deadline = s.deadline;
        job.owner = s.index;
        job.cmd = t.proto;
        job.cmd.count = count;
        job.cmd.pc = pc;
        job.cmd.queued = true;
        patch(&mut job.cmd.args, t, regs);
        s.pending += 1;
        Ok(())
    }

    /// A plain command from the host (S32): `Err(Some(reason))` when it is
    /// rejected, `Err(None)` while it has to wait. `mark` is the job id of
    /// its first try (jobs queued from then on are not waited for).
    #[allow(clippy::too_many_arguments)]
    pub fn host_submit<O: Observer>(
        &mut self,
        handler: u32,
        first: u32,
        count: u32,
        args: [u32; 10],
        flag_byte: u8,
        mark: u64,
        obs: &mut O,
    ) -> Result<(), Option<Reason>> {
        if !(1..=u32::from(crate::check::MAX_HANDLER)).contains(&handler) {
            return Err(Some(Reason::BadTemplate));
        }
        if count == 0 || first > self.core_count || count > self.core_count - first {
            return Err(Some(Reason::BadGroup));
        }
        if self.busy == u16::MAX {
            return Err(None);
        }
        if flag_byte & flags::EXCLUSIVE != 0
            && (self.queue.holds_older(mark) || self.any_busy_overlaps(first, count))
        {
            return Err(None);
        }
        // The lowest free slot, the one next_command takes.
        self.host_slots |= self.busy.wrapping_add(1) & !self.busy;
        let (slot, sequence) = self.next_command();
        push_record_value(
            &mut self.commands,
            SubmittedCommand {
                sequence,
                slot,
                handler: handler as u8,
                first,
                count,
                flags: flag_byte,
                args,
                pass_index: self.pass,
                pc: 0,
                queued: false,
            },
        );
        self.take_slot(
            Taking {
                slot,
                sequence,
                pass: self.pass,
                owner: HOST,
                fixed_deadline: self.params.deadline_passes,
                first,
                count,
                flags: flag_byte,
                queued: false,
            },
            obs,
        );
        Ok(())
    }

    /// A queued command from the host (S32): it never waits.
    pub fn host_enqueue(
        &mut self,
        handler: u32,
        count: u32,
        args: [u32; 10],
        flag_byte: u8,
    ) -> Result<(), Reason> {
        if !(1..=u32::from(crate::check::MAX_HANDLER)).contains(&handler) {
            return Err(Reason::BadTemplate);
        }
        if count == 0 || count > self.core_count || self.queue.len == QUEUE_CAP {
            return Err(Reason::BadEnqueue);
        }
        self.queue.push(Job {
            cmd: SubmittedCommand {
                handler: handler as u8,
                flags: flag_byte,
                count,
                args,
                queued: true,
                ..BLANK
            },
            id: self.job_ids,
            deadline: self.params.deadline_passes,
            owner: HOST,
        });
        self.job_ids += 1;
        Ok(())
    }

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
        // `next_command` in line, after the look-up: called before it, it
        // cost about 1,000 instructions a run of jobs_1000.
        let slot = (!self.busy).trailing_zeros() as u8;
        let sequence = self.seq;
        let pass = self.pass;
        // The job's record (S19): its prototype, copied once from the slab
        // into the answer, with the fields known only now.
        let record = push_record(&mut self.commands, &job.cmd);
        record.sequence = sequence;
        record.slot = slot;
        record.first = first;
        record.pass_index = pass;
        self.seq = sequence + 1;
        if owner == HOST {
            // The lowest free slot, the one taken here.
            self.host_slots |= 1 << slot;
        }
        self.take_slot(
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

    /// The sweep of this pass (S12): frees acknowledged slots, lowest
    /// first, and sets `next_change` to the next pass where a slot changes.
    /// True when a slot may be late now: then [`Kernel::lowest_late`]
    /// looks (the deadline phase, S13).
    ///
    /// The slots acknowledged now are the wheel's bucket for this pass (an
    /// ack at most 63 passes after its submit is in bucket `ack % 64`, and
    /// every earlier ack was swept in its own pass: the sweep runs whenever
    /// a busy slot's ack is due), plus, when one is due, those of the far
    /// slots whose ack is this pass. So a sweep costs the slots it frees,
    /// not the busy ones. The next change is the wheel's next bucket, the
    /// far slots' next ack or the earliest deadline. `min_deadline` is kept
    /// as a bound at or below the earliest deadline (freeing the slot that
    /// had it leaves it low), and walked for only when the bound comes
    /// before the next ack. No flag tells whether the bound is stale: every
    /// next change is a real ack or deadline, so a sweep that runs frees a
    /// slot or finds one late, and such a flag was set at nearly every
    /// sweep (keeping it cost 7 instructions a pass on submit_heavy).
    pub fn sweep<O: Observer>(&mut self, streams: &mut [Stream], obs: &mut O) -> bool {
        let pass = self.pass;
        let bucket = (pass % ACK_WHEEL as u64) as usize;
        let mut acked = self.wheel[bucket];
        self.wheel[bucket] = 0;
        let wheel_bits = self.wheel_bits & !(1 << bucket);
        self.wheel_bits = wheel_bits;
        if self.far_next <= pass {
            acked |= self.sweep_far(pass);
        }
        let busy = self.busy;
        acked &= busy;
        self.busy = busy & !acked;
        // A counted loop: without an observer it compiles to nothing.
        for slot in 0..SLOTS {
            if acked & (1 << slot) != 0 {
                obs.on_ack(slot as u8, self.slots[slot].seq, pass);
            }
        }
        if let [only] = streams
            && self.host_slots == 0
        {
            // One stream and no host command in flight (a one-stream run):
            // every slot freed is the stream's. Its pending count drops by
            // their number, and its latest result is the highest one's with
            // the result flag (S12), looked for from the top.
            let meta = &mut only.meta;
            let with_result = acked & self.result_slots;
            if with_result != 0 {
                let top = 15 - with_result.leading_zeros() as usize;
                meta.latest_result = self.slots[top].result;
            }
            self.result_slots &= !acked;
            meta.pending -= ones(acked);
        } else {
            self.host_slots &= !acked;
            let results = self.result_slots;
            self.result_slots &= !acked;
            while acked != 0 {
                let slot = acked.trailing_zeros() as usize;
                acked &= acked - 1;
                let s = &self.slots[slot];
                if s.owner != HOST {
                    let owner = &mut streams[usize::from(s.owner)].meta;
                    if results & (1 << slot) != 0 {
                        owner.latest_result = s.result;
                    }
                    owner.pending -= 1;
                }
            }
        }
        // The wheel's acks left are in pass + 1 ..= pass + 63.
        let next_wheel = if wheel_bits == 0 {
            u64::MAX
        } else {
            let from = ((pass + 1) % ACK_WHEEL as u64) as u32;
            pass + 1 + u64::from(wheel_bits.rotate_right(from).trailing_zeros())
        };
        // Every ack left is after this pass (the far ones too).
        let next_ack = next_wheel.min(self.far_next);
        // The exact earliest deadline is walked for only when the bound
        // could matter: when it comes before the next ack (so also when it
        // is due, for the deadline phase, S13). Otherwise the next change
        // is the next ack either way, and no slot is late now.
        let mut min_deadline = self.min_deadline;
        if min_deadline < next_ack {
            min_deadline = self.walk_deadlines();
        }
        // Set now: should a slot be late, the run ends after this phase
        // and nothing reads it.
        self.next_change = next_ack.min(min_deadline);
        min_deadline <= pass
    }

    /// The far slots acknowledged in this pass (their ack is due): takes
    /// them out of `far` and finds the far slots' next ack.
    #[inline(never)]
    fn sweep_far(&mut self, pass: u64) -> u16 {
        let mut far = self.far;
        let mut acked = 0;
        let mut next = u64::MAX;
        while far != 0 {
            let slot = far.trailing_zeros() as usize;
            let bit = 1u16 << slot;
            far &= !bit;
            let ack = self.slots[slot].ack;
            if ack == pass {
                acked |= bit;
            } else {
                next = next.min(ack);
            }
        }
        self.far &= !acked;
        self.far_next = next;
        acked
    }

    /// The exact earliest deadline over the busy slots (`u64::MAX` when none).
    #[inline]
    fn walk_deadlines(&mut self) -> u64 {
        let mut busy = self.busy;
        let mut min = u64::MAX;
        while busy != 0 {
            min = min.min(self.slots[busy.trailing_zeros() as usize].deadline);
            busy &= busy - 1;
        }
        self.min_deadline = min;
        min
    }

    /// The lowest late slot after this pass's sweep, if any (S13, S14).
    /// None can be unless the earliest deadline of a busy slot is due.
    #[inline]
    pub fn lowest_late(&self) -> Option<usize> {
        if self.min_deadline > self.pass {
            return None;
        }
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
}

/// The number of bits set in `bits`, by two table look-ups (the target
/// has no popcount instruction: a loop per bit or the bit-twiddled count
/// cost more for the one to four slots a sweep usually frees).
#[inline(always)]
fn ones(bits: u16) -> u32 {
    const ONES: [u8; 256] = {
        let mut t = [0u8; 256];
        let mut i = 0;
        while i < 256 {
            t[i] = (i as u32).count_ones() as u8;
            i += 1;
        }
        t
    };
    u32::from(ONES[usize::from(bits as u8)] + ONES[usize::from(bits >> 8)])
}

/// Appends `proto` to the answer's records and gives it back to be
/// completed in place. Room is made first, out of line, so that the copy
/// goes straight from the prototype into the answer (a `push` that may
/// grow the vector copies it through the stack first).
#[inline(always)]
fn push_record<'a>(
    commands: &'a mut Vec<SubmittedCommand>,
    proto: &SubmittedCommand,
) -> &'a mut SubmittedCommand {
    let at = make_room(commands);
    // Cannot fail: there is room.
    let _ = commands.push_within_capacity(*proto);
    &mut commands[at]
}

/// Appends `record` to the answer's records, as [`push_record`] does.
#[inline(always)]
fn push_record_value(commands: &mut Vec<SubmittedCommand>, record: SubmittedCommand) {
    make_room(commands);
    // Cannot fail: there is room.
    let _ = commands.push_within_capacity(record);
}

/// Makes room for one more record, out of line, and asks for the cache
/// lines of the record eight ahead; gives the new record's index.
#[inline(always)]
fn make_room(commands: &mut Vec<SubmittedCommand>) -> usize {
    #[cold]
    #[inline(never)]
    fn grow(commands: &mut Vec<SubmittedCommand>) {
        commands.reserve(1);
    }
    if commands.len() == commands.capacity() {
        grow(commands);
    }
    let at = commands.len();
    // The record eight ahead, both its first and its last byte: a record
    // is longer than a line, so its first bytes alone would miss every
    // ninth line (interp/src/exec/hint.rs).
    let ahead = commands.as_ptr().wrapping_add(at + 8);
    hint::prefetch(ahead);
    hint::prefetch(ahead.wrapping_add(1).cast::<u8>().wrapping_sub(1));
    at
}

/// The template's arguments with its patches applied.
#[inline]
fn patched(t: &Tmpl, regs: &[u32; 16]) -> [u32; 10] {
    let mut args = t.proto.args;
    patch(&mut args, t, regs);
    args
}

/// Applies the template's patches to `args` in order.
#[inline]
fn patch(args: &mut [u32; 10], t: &Tmpl, regs: &[u32; 16]) {
    for &(arg, reg) in t.patches() {
        // Program::decode checked reg < 16 (S5); the mask keeps the bounds
        // check out without changing an in-range value. `arg` is in range
        // by its type.
        args[arg as usize] = regs[usize::from(reg & 15)];
    }
}

#[allow(dead_code)]
const _: () = assert!(MAX_STREAMS <= 4 && (QUEUE_CAP as u32) < u32::MAX);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::observer::NoObserver;
    use crate::exec::template::Arg;
    use crate::types::{Delay, ResultModel};

    /// S23's cycle(2, 3): command k's delay is 2 + k % 3, so in pass 0
    /// (acknowledged in pass 1 + d, S12) commands 0..7 are acknowledged in
    /// passes 3, 4, 5, 3, 4, 5, 3; fixed(7) gives 8 for each; never, u64::MAX.
    #[test]
    fn the_delay_models_counted_in_sequence_order() {
        let cases = [
            (
                Delay::Cycle { base: 2, modulo: 3 },
                vec![3, 4, 5, 3, 4, 5, 3],
            ),
            (Delay::Fixed(7), vec![8; 7]),
            (Delay::Never, vec![u64::MAX; 7]),
            (Delay::Cycle { base: 9, modulo: 1 }, vec![10; 7]),
            (
                Delay::Table(vec![Some(0), None]),
                vec![1, u64::MAX, 1, u64::MAX, 1, u64::MAX, 1],
            ),
        ];
        for (delay, acks) in cases {
            let params = Params {
                delay: delay.clone(),
                ..Params::default()
            };
            let mut k = Kernel::new(&params);
            for _ in 0..7 {
                k.host_submit(1, 0, 1, [0; 10], 0, 0, &mut NoObserver)
                    .unwrap();
            }
            let got: Vec<u64> = k.slots[..7].iter().map(|s| s.ack).collect();
            assert_eq!(got, acks, "{delay:?}");
        }
    }

    /// S23's result models on commands 0, 1, 2 with args [10, 11, ..., 19]
    /// and the result flag: sequence gives 0, 1, 2; arg(2) gives 12 each
    /// time; table([5, 6]) gives 5, 6, 5; arg(12) is out of range (S25) and
    /// gives 0; zero gives 0. Without the result flag every result is 0.
    #[test]
    fn the_result_models_on_the_record() {
        let args: [u32; 10] = std::array::from_fn(|i| 10 + i as u32);
        let cases = [
            (ResultModel::Sequence, [0, 1, 2]),
            (ResultModel::Arg(2), [12, 12, 12]),
            (ResultModel::Table(vec![5, 6]), [5, 6, 5]),
            (ResultModel::Arg(12), [0, 0, 0]),
            (ResultModel::Zero, [0, 0, 0]),
        ];
        for (model, results) in cases {
            let params = Params {
                result: model.clone(),
                ..Params::default()
            };
            for (flag, expected) in [(flags::RESULT, results), (0, [0, 0, 0])] {
                let mut k = Kernel::new(&params);
                for _ in 0..3 {
                    k.host_submit(1, 0, 1, args, flag, 0, &mut NoObserver)
                        .unwrap();
                }
                let got: Vec<u32> = k.slots[..3].iter().map(|s| s.result).collect();
                assert_eq!(got, expected, "{model:?}, flag {flag}");
            }
        }
    }

    /// A queued job's record and deadline, made at its placement (S13,
    /// S19, S20, S31). In pass 2, stream 0 (its header's deadline: 7
    /// passes) queues A (2 cores, pc 4), stream 1 (no fixed deadline)
    /// queues B (3 cores, pc 6) with r1 = 40 patched into argument 1, and
    /// the host queues C (1 core). A DEADLINE then sets the default to 30,
    /// and the queue's turn in pass 4 places all three in order at the
    /// lowest free cores: A on 0..2 in slot 0 (sequence 0, deadline 4 + 7),
    /// B on 2..5 in slot 1 (deadline 4 + 30: the default in force now),
    /// C on 5..6 in slot 2 (deadline_passes unset: also 4 + 30).
    #[test]
    fn a_placed_job_records_itself_with_its_owners_deadline() {
        let mut k = Kernel::new(&Params::default());
        let meta = |index, deadline| StreamMeta {
            pc: 0,
            steps: 0,
            max_steps: 100,
            pending: 0,
            latest_result: 0,
            req: 0,
            deadline,
            life: super::stream::Life::Active,
            index,
            program: 0,
            exclusive_mark: None,
            waiting: Waiting::No,
        };
        let (mut s0, mut s1) = (meta(0, Some(7)), meta(1, None));
        let t = Tmpl {
            proto: SubmittedCommand {
                handler: 3,
                args: [10, 11, 12, 0, 0, 0, 0, 0, 0, 0],
                ..BLANK
            },
            patches: [(Arg::A1, 1), (Arg::A0, 0), (Arg::A0, 0), (Arg::A0, 0)],
            patch_count: 0,
            first_register: NO_REGISTER,
            count_register: NO_REGISTER,
        };
        let patched_t = Tmpl {
            patch_count: 1,
            ..t
        };
        let mut regs = [0u32; 16];
        regs[1] = 40;
        k.pass = 2;
        assert!(k.enqueue(&mut s0, &regs, &t, 2, 4).is_ok());
        assert!(k.enqueue(&mut s1, &regs, &patched_t, 3, 6).is_ok());
        assert!(k.host_enqueue(9, 1, [7; 10], 0).is_ok());
        assert_eq!((s0.pending, s1.pending), (1, 1));
        k.default_deadline = 30;
        k.pass = 4;
        k.queue_turn(&mut NoObserver);
        assert_eq!(k.busy, 0b111);
        let record = |sequence, slot, handler, first, count, args, pc| SubmittedCommand {
            sequence,
            slot,
            handler,
            first,
            count,
            flags: 0,
            args,
            pass_index: 4,
            pc,
            queued: true,
        };
        assert_eq!(
            k.commands,
            [
                record(0, 0, 3, 0, 2, [10, 11, 12, 0, 0, 0, 0, 0, 0, 0], 4),
                record(1, 1, 3, 2, 3, [10, 40, 12, 0, 0, 0, 0, 0, 0, 0], 6),
                record(2, 2, 9, 5, 1, [7; 10], 0),
            ]
        );
        let deadlines: Vec<u64> = k.slots[..3].iter().map(|s| s.deadline).collect();
        assert_eq!(deadlines, [11, 34, 34]);
        let owners: Vec<u16> = k.slots[..3].iter().map(|s| s.owner).collect();
        assert_eq!(owners, [0, 1, HOST]);
    }

    /// Delays 4, 8, 100 by table and deadline_passes 5 (S12, S13): in
    /// pass 0 commands 0 and 1 take slots 0 (ack 5, deadline 5) and 1 (ack
    /// 9, deadline 5); in pass 2 command 2 takes slot 2 (ack 103, beyond the
    /// wheel; deadline 7). Each pass below is swept as if the run went on.
    #[test]
    fn the_sweep_frees_then_finds_the_late_and_the_next_change() {
        let params = Params {
            delay: Delay::Table(vec![Some(4), Some(8), Some(100)]),
            deadline_passes: Some(5),
            ..Params::default()
        };
        let mut k = Kernel::new(&params);
        let submit = |k: &mut Kernel| {
            k.host_submit(1, 0, 1, [0; 10], 0, 0, &mut NoObserver)
                .unwrap()
        };
        submit(&mut k);
        submit(&mut k);
        k.pass = 2;
        submit(&mut k);
        assert_eq!(k.busy, 0b111);
        assert_eq!(k.next_change, 5);
        let sweep = |k: &mut Kernel, pass| {
            k.pass = pass;
            k.sweep(&mut [], &mut NoObserver);
            (k.busy, k.lowest_late(), k.next_change)
        };
        // Pass 5: slot 0 is freed before the deadline phase, so it is not
        // late; slot 1 is (deadline 5). Next: min(9, 103, 5, 7) = 5.
        assert_eq!(sweep(&mut k, 5), (0b110, Some(1), 5));
        // Pass 7: nothing acknowledged; slot 1 still the lowest late.
        assert_eq!(sweep(&mut k, 7), (0b110, Some(1), 5));
        // Pass 9: slot 1 freed; slot 2 late since 7. Next: min(103, 7).
        assert_eq!(sweep(&mut k, 9), (0b100, Some(2), 7));
        // Pass 103: slot 2 freed from beyond the wheel; nothing left.
        assert_eq!(sweep(&mut k, 103), (0, None, u64::MAX));
    }

    /// The earliest deadline's slot freed while an ack comes first: in pass
    /// 0, A (delay 1: ack 2; deadline 5), B (delay 9: ack 10; deadline 8)
    /// and C (delay 2: ack 3; deadline 40) take slots 0, 1, 2 (S12, S13).
    /// Next change: min(2, 10, 3, 5, 8, 40) = 2. Pass 2 frees A: next is
    /// min(3, 8) = 3 (the ack of C), nothing late. Pass 3 frees C: next is
    /// min(10, 8) = 8. Pass 8 frees nothing and B is late (8 <= 8).
    #[test]
    fn the_earliest_deadline_freed_before_the_next_ack() {
        let params = Params {
            delay: Delay::Table(vec![Some(1), Some(9), Some(2)]),
            ..Params::default()
        };
        let mut k = Kernel::new(&params);
        for deadline in [5, 8, 40] {
            k.default_deadline = deadline;
            k.host_submit(1, 0, 1, [0; 10], 0, 0, &mut NoObserver)
                .unwrap();
        }
        assert_eq!(k.next_change, 2);
        for (pass, busy, late, next) in [
            (2, 0b110, None, 3),
            (3, 0b010, None, 8),
            (8, 0b010, Some(1), 8),
        ] {
            k.pass = pass;
            k.sweep(&mut [], &mut NoObserver);
            assert_eq!(
                (k.busy, k.lowest_late(), k.next_change),
                (busy, late, next),
                "pass {pass}"
            );
        }
    }

    /// Acks 1..=63 passes ahead go on the wheel, 64 and more beyond it:
    /// delays 62 and 63 from pass 0 are acks 63 and 64. Swept in pass 63
    /// (slot 0) and 64 (slot 1), each in its own pass and no other.
    #[test]
    fn the_wheel_and_beyond_it() {
        let params = Params {
            delay: Delay::Table(vec![Some(62), Some(63)]),
            ..Params::default()
        };
        let mut k = Kernel::new(&params);
        for _ in 0..2 {
            k.host_submit(1, 0, 1, [0; 10], 0, 0, &mut NoObserver)
                .unwrap();
        }
        assert_eq!((k.wheel_bits, k.far), (1 << 63, 0b10));
        for (pass, busy, next) in [(62, 0b11, 63), (63, 0b10, 64), (64, 0, u64::MAX)] {
            k.pass = pass;
            k.sweep(&mut [], &mut NoObserver);
            assert_eq!((k.busy, k.next_change), (busy, next), "pass {pass}");
        }
    }
}

//! Admission (S18, S32): SUBMIT and ENQUEUE from a stream, and the
//! host's plain and queued commands. Whether a command may take a slot now
//! is decided by one function ([`Kernel::admit`]) for the stream and the
//! host alike; each then records it and takes its slot.

use super::groups::overlaps;
use super::queue::{Job, QUEUE_CAP};
use super::records::{patch, patched, push_record};
use super::slots::Taking;
use super::state::{HOST, Kernel};
use super::stream::StreamMeta;
use crate::exec::inst::Exit;
use crate::exec::kernel::template::{BLANK, Tmpl};
use crate::exec::observer::Observer;
use crate::format::{NO_REGISTER, flags};
use crate::types::{Reason, SubmittedCommand};

/// Why [`Kernel::admit`] or [`Kernel::admit_job`] turned a command away.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum NotNow {
    /// The group is not inside the grid: error 11 (S18, S32).
    BadGroup,
    /// Every slot is busy: wait.
    Slots,
    /// An exclusive command's older job or overlapping group: wait.
    Exclusive,
    /// The count is not 1 ..= core_count: error 9 (S18, S32).
    BadEnqueue,
    /// The queue holds 64 jobs: a stream waits, the host is refused (S32).
    QueueFull,
}

/// Why the kernel refused a SUBMIT or ENQUEUE for now.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Refusal {
    Wait(Exit),
    Error(Reason),
}

impl Kernel {
    /// Whether a command of the cores `first .. first + count` may take a
    /// slot now: the one rule of S18 (SUBMIT) and S32 (the host's plain
    /// command). The group must lie inside the grid (else error 11, which
    /// never passes by waiting); a slot must be free; and an exclusive
    /// command (`exclusive`: the job id of its first try) waits while a job
    /// queued before that try is still waiting or a busy group overlaps its
    /// own.
    #[inline(always)]
    pub(super) fn admit(
        &self,
        first: u32,
        count: u32,
        exclusive: Option<u64>,
    ) -> Result<(), NotNow> {
        let core_count = self.core_count;
        if count == 0 || first > core_count || count > core_count - first {
            return Err(NotNow::BadGroup);
        }
        if self.busy == u16::MAX {
            return Err(NotNow::Slots);
        }
        if let Some(mark) = exclusive
            && (self.queue.holds_older(mark) || self.any_busy_overlaps(first, count))
        {
            return Err(NotNow::Exclusive);
        }
        Ok(())
    }

    /// Whether a job of `count` cores may be queued now: the one rule of
    /// S18 (ENQUEUE) and S32 (the host's queued command). The count must be
    /// 1 ..= core_count (else error 9), and the queue must have room.
    #[inline(always)]
    pub(super) fn admit_job(&self, count: u32) -> Result<(), NotNow> {
        if count == 0 || count > self.core_count {
            return Err(NotNow::BadEnqueue);
        }
        if self.queue.len == QUEUE_CAP {
            return Err(NotNow::QueueFull);
        }
        Ok(())
    }

    /// Whether a busy slot's group overlaps the cores `first .. first + count`.
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
        match self.admit(
            first,
            count,
            if exclusive { s.exclusive_mark } else { None },
        ) {
            Ok(()) => {}
            Err(NotNow::BadGroup) => {
                s.exclusive_mark = None;
                return Err(Refusal::Error(Reason::BadGroup));
            }
            Err(NotNow::Slots) => return Err(Refusal::Wait(Exit::WaitSlots)),
            Err(_) => return Err(Refusal::Wait(Exit::WaitExclusive)),
        }
        if exclusive {
            s.exclusive_mark = None;
        }
        let args = patched(t, regs);
        let (slot, sequence) = self.next_command();
        let pass = self.pass;
        // Field by field here, not a patched copy of the template's
        // prototype, which cost the handler registers (decisions.md R7).
        push_record(
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
        self.take_slot::<O, true>(
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
        match self.admit_job(count) {
            Ok(()) => {}
            Err(NotNow::QueueFull) => return Err(Refusal::Wait(Exit::WaitQueueFull)),
            Err(_) => return Err(Refusal::Error(Reason::BadEnqueue)),
        }
        let id = self.job_ids;
        self.job_ids += 1;
        // Written in place: a job built on the stack cost a copy of its 64
        // bytes (decisions.md D25). Its record's prototype is the
        // template's, with the count, the pc and the patched arguments of
        // this moment (S18).
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
        if !host_handler(handler) {
            return Err(Some(Reason::BadTemplate));
        }
        let exclusive = (flag_byte & flags::EXCLUSIVE != 0).then_some(mark);
        match self.admit(first, count, exclusive) {
            Ok(()) => {}
            Err(NotNow::BadGroup) => return Err(Some(Reason::BadGroup)),
            Err(_) => return Err(None),
        }
        // The lowest free slot, the one next_command takes.
        self.host_slots |= self.busy.wrapping_add(1) & !self.busy;
        let (slot, sequence) = self.next_command();
        push_record(
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
        self.take_slot::<O, true>(
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
        if !host_handler(handler) {
            return Err(Reason::BadTemplate);
        }
        // S32: a full queue refuses the host's job with error 9.
        if self.admit_job(count).is_err() {
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
}

/// Whether a host command's handler is in range (S32: 1 ..= the check's
/// largest handler; else error 5, as for a template).
fn host_handler(handler: u32) -> bool {
    (1..=u32::from(crate::check::MAX_HANDLER)).contains(&handler)
}

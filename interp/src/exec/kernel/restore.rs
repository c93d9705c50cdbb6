//! A kernel's state taken apart for a snapshot and put back
//! (docs/pause.md): the busy slots, the waiting jobs and the delay
//! model's position are what it holds between two passes; the ack wheel,
//! the far slots, the next change and the masks beside `busy` are
//! rebuilt from them, so that a snapshot cannot hold them out of step.

use super::queue::{QUEUE_CAP, Queue};
use super::slot::{ACK_WHEEL, Slot};
use super::state::{HOST, Kernel};
use super::{Job, Stream};
use crate::format::{SLOTS, flags};

/// What a snapshot keeps of the kernel besides the answer so far.
#[derive(Clone, Debug)]
pub(crate) struct Restore {
    /// The busy slots, lowest first.
    pub slots: Vec<(u8, Slot)>,
    /// The waiting jobs in queue order, each with how often it was overtaken.
    pub jobs: Vec<(Job, u64)>,
    /// The delay model's position ([`Kernel::delay_position`]).
    pub delay_at: u64,
    pub job_ids: u64,
    pub default_deadline: u64,
    pub stopped: bool,
}

/// The most a job can have been overtaken in a snapshot (the queue's
/// counts start 2^41 placements from 0; `Queue::restored`).
const MOST_OVERTAKEN: u64 = 1 << 40;

impl Kernel {
    /// What [`Kernel::restore`] puts back.
    pub(crate) fn parts(&self) -> Restore {
        let slots = (0..SLOTS as u8)
            .filter(|&i| self.busy & (1 << i) != 0)
            .map(|i| (i, self.slots[usize::from(i)]))
            .collect();
        Restore {
            slots,
            jobs: self.queue.waiting().collect(),
            delay_at: self.delays.position(),
            job_ids: self.job_ids,
            default_deadline: self.default_deadline,
            stopped: self.stopped,
        }
    }

    /// Puts `parts` back into a kernel set up for the same parameters,
    /// whose answer so far (`commands`, `owners`, `events`) is already in
    /// place, before pass `pass`; `streams` are the run's. In a run that
    /// goes on (`running`) every busy slot is acknowledged and late in
    /// `pass` or after: an earlier ack was swept, an earlier deadline
    /// ended the run (S12, S13). The pending
    /// count of every stream is counted again from its slots and jobs
    /// (S18). An error names the first thing out of range: a slot or a
    /// job owned by no stream, a slot twice, a record that is not there,
    /// a full queue and more, a position the delay model has not.
    pub(crate) fn restore(
        &mut self,
        parts: &Restore,
        pass: u64,
        running: bool,
        streams: &mut [Stream],
    ) -> Result<(), String> {
        let n = streams.len();
        let owner_ok = |owner: u16| owner == HOST || usize::from(owner) < n;
        if !self.delays.set_position(parts.delay_at) {
            return Err(format!(
                "the delay model has no position {}",
                parts.delay_at
            ));
        }
        for s in streams.iter_mut() {
            s.meta.pending = 0;
        }
        self.pass = pass;
        self.seq = self.commands.len() as u64;
        self.job_ids = parts.job_ids;
        self.default_deadline = parts.default_deadline;
        self.stopped = parts.stopped;
        self.busy = 0;
        for &(i, slot) in &parts.slots {
            // 16 slots: a shift of 16 or more is `None` (`SLOTS` bits).
            const { assert!(SLOTS == u16::BITS as usize) };
            let bit = 1u16.checked_shl(u32::from(i));
            let Some(bit) = bit.filter(|b| self.busy & b == 0) else {
                return Err(format!("slot {i} is out of range or given twice"));
            };
            if !owner_ok(slot.owner) {
                return Err(format!("slot {i}'s owner {} is no stream", slot.owner));
            }
            if running && (slot.ack < pass || slot.deadline < pass) {
                return Err(format!(
                    "slot {i} is acknowledged in pass {} and late after {}, before pass {pass}",
                    slot.ack, slot.deadline
                ));
            }
            let Some(record) = self.commands.get(slot.seq as usize) else {
                return Err(format!("slot {i}'s command {} was not recorded", slot.seq));
            };
            self.busy |= bit;
            self.slots[usize::from(i)] = slot;
            if record.flags & flags::RESULT != 0 {
                self.result_slots |= bit;
            }
            if slot.owner == HOST {
                self.host_slots |= bit;
            } else {
                streams[usize::from(slot.owner)].meta.pending += 1;
            }
            // The wheel holds the acks of the next 64 passes (slots.rs); a
            // later one (or, in a run that is over, an earlier one) is far.
            if slot
                .ack
                .checked_sub(pass)
                .is_some_and(|ahead| ahead < ACK_WHEEL as u64)
            {
                let bucket = (slot.ack % ACK_WHEEL as u64) as usize;
                self.wheel[bucket] |= bit;
                self.wheel_bits |= 1 << bucket;
            } else {
                self.far |= bit;
                self.far_next = self.far_next.min(slot.ack);
            }
            self.min_deadline = self.min_deadline.min(slot.deadline);
            self.next_change = self.next_change.min(slot.ack).min(slot.deadline);
        }
        if parts.jobs.len() > QUEUE_CAP {
            return Err(format!(
                "{} jobs wait, more than {QUEUE_CAP}",
                parts.jobs.len()
            ));
        }
        for (k, (job, overtaken)) in parts.jobs.iter().enumerate() {
            if !owner_ok(job.owner) {
                return Err(format!("job {k}'s owner {} is no stream", job.owner));
            }
            if *overtaken > MOST_OVERTAKEN {
                return Err(format!("job {k} overtaken {overtaken} times"));
            }
            if job.owner != HOST {
                streams[usize::from(job.owner)].meta.pending += 1;
            }
        }
        self.queue = Queue::restored(&parts.jobs);
        Ok(())
    }
}

//! Slots, the ack wheel and the sweep (S12..S14, S19): a command takes
//! the lowest free slot with its models, ack and deadline; the sweep frees
//! the acknowledged slots and finds the next pass where a slot changes;
//! the deadline phase finds the lowest late slot.

use super::models::result_on_record;
use super::slot::{ACK_WHEEL, Slot};
use super::state::{HOST, Kernel};
use super::stream::Stream;
use crate::exec::observer::Observer;
use crate::format::{SLOTS, flags};

/// The command [`Kernel::take_slot`] takes a slot for: what its record
/// says, and what the slot needs beyond it.
#[derive(Clone, Copy, Debug)]
pub(super) struct Taking {
    pub(super) slot: u8,
    pub(super) sequence: u64,
    /// The pass of submit, read by the caller before it wrote the record
    /// (read after, it was loaded again: the record's stores may alias).
    pub(super) pass: u64,
    /// The stream that made it, or [`HOST`].
    pub(super) owner: u16,
    /// Its deadline in passes when fixed (S13, S31): the host's
    /// `deadline_passes`, else the stream header's.
    pub(super) fixed_deadline: Option<u64>,
    pub(super) first: u32,
    pub(super) count: u32,
    /// The template's flag byte.
    pub(super) flags: u8,
    pub(super) queued: bool,
}

impl Kernel {
    /// The lowest free slot and the next sequence number (S19), for the
    /// command about to be recorded; the caller checked that a slot is free.
    #[inline(always)]
    pub(super) fn next_command(&mut self) -> (u8, u64) {
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
    /// patched copy of the template's prototype cost SUBMIT's handler
    /// registers: decisions.md D26, R7). The models read it there;
    /// `COLD` (SUBMIT and the host, not a placed job) calls a table's or a
    /// closure's model out of line (models.rs, `Cold`; D21).
    #[inline(always)]
    pub(super) fn take_slot<O: Observer, const COLD: bool>(&mut self, c: Taking, obs: &mut O) {
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
        let delay_1 = self.delays.next::<COLD>(&self.params, self.commands.last());
        // S12, P2: acknowledged in the sweep of pass p + 1 + d, exactly
        // (never past u64: a never or an overflow saturates to u64::MAX).
        let ack = pass.saturating_add(delay_1);
        let has_result = t_flags & flags::RESULT != 0;
        let result = if !has_result {
            0
        } else if self.results.on_record {
            result_on_record::<COLD>(&self.params, self.commands.last())
        } else {
            sequence as u32 & self.results.sequence_mask
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
    /// sweep (decisions.md D19; the wheel and the bound: D18).
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
            // Bucket `(pass + 1) % 64` rotated to bit 0: `rotate_right`
            // counts modulo 64, the wheel's size, and so does the cast
            // (2^32 is a multiple of 64).
            const { assert!(ACK_WHEEL == u64::BITS as usize) };
            let from = (pass + 1) as u32;
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
/// cost more for the one to four slots a sweep usually frees;
/// decisions.md D19, R20).
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

//! The kernel's state, shared by every submitter ([`Kernel`]): the slots
//! and their ack wheel, the job queue, the sequence counter, the models and
//! the answer being built; set up, events posted and TIME read here. What
//! changes it is in the files beside this one, one concern each.

use super::groups::Free;
use super::models::{Delays, Results};
use super::queue::Queue;
use super::slot::{ACK_WHEEL, Slot};
use crate::format::SLOTS;
use crate::types::{Event, Params, SubmittedCommand};

/// The owner of host-queued jobs and host commands.
pub(crate) const HOST: u16 = u16::MAX;
/// The most streams that run at once.
pub(crate) const MAX_STREAMS: usize = 4;

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
    pub(super) delays: Delays,
    /// The result model as the kernel evaluates it.
    pub(super) results: Results,
    /// True once the queue's turn placed a job in this pass.
    pub queue_moved: bool,
    /// The ack wheel: bucket `a % 64` holds the busy slots acknowledged in
    /// pass `a`, for every ack less than 64 passes after its submit.
    pub(super) wheel: [u16; ACK_WHEEL],
    /// The buckets of `wheel` that are not empty.
    pub(super) wheel_bits: u64,
    /// The busy slots acknowledged later than that, or never.
    pub(super) far: u16,
    /// The minimum ack over `far` (`u64::MAX` when none).
    pub(super) far_next: u64,
    /// At or below the minimum deadline over the busy slots (`u64::MAX`
    /// when none): exact until a sweep frees the slot that had it
    /// ([`Kernel::sweep`]).
    pub(super) min_deadline: u64,
    /// The busy slots holding a host command (S32), for the sweep's
    /// one-stream path.
    pub(super) host_slots: u16,
    /// The busy slots whose command has the result flag (S12): the sweep
    /// finds the highest one it frees without looking at the others.
    pub(super) result_slots: u16,
    pub stopped: bool,
    /// The queue turn's free stretches, rebuilt in place each turn (a
    /// fresh list per turn cost a memset and a memcpy; docs/dispatch.md).
    pub(super) free: Free,
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
}

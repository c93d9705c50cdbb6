//! The fast kernel's state: completion slots, the job queue ([`queue`]), the
//! group allocator ([`groups`]), the streams ([`stream`]), the sequence
//! counter and the answer being built. The state itself is [`state`]'s
//! [`Kernel`]; what changes it is in the files beside it, one concern each:
//! the slots and the sweep [`slots`] (one slot [`slot`]), SUBMIT, ENQUEUE and
//! the host's commands [`admit`], the queue's turn [`place`], the records
//! [`records`], the completion models [`models`].
//!
//! - Slots are a u16 bit mask; the lowest free slot is `trailing_zeros(!busy)`.
//! - Each busy slot keeps its acknowledgement pass and deadline pass;
//!   `next_change` is the minimum of both over the busy slots, so a pass
//!   before it skips the sweep and the deadline phase entirely, and the idle
//!   skip (machine/passes.rs) knows the next pass where anything can
//!   happen. An ack wheel of 64 passes lets a sweep find the slots it frees
//!   without walking the busy ones ([`Kernel::sweep`]; decisions.md D18).
//! - The completion models are evaluated in sequence order
//!   ([`Delays`](models::Delays), [`Results`](models::Results)): a cycle is
//!   a counter, not a division per command (decisions.md D21).
//! - The group allocator keeps the free stretches between the busy groups
//!   in core order: a job fits exactly when its count is at most the widest,
//!   goes to the front of the first one wide enough, and a placement only
//!   shrinks that stretch (decisions.md D24).
//! - The queue is a fixed slab of 64 jobs plus the insertion order as slab
//!   indices and core-count keys, so a job leaving from the middle moves
//!   bytes, not jobs, and the queue's turn finds the jobs that fit without
//!   a branch (decisions.md D25, D22). Nothing here allocates after
//!   set-up but the slab, once, at the first job when it was not reserved,
//!   and the answer's vectors when they outgrow their room.

#![forbid(unsafe_code)]

mod admit;
mod groups;
mod models;
mod place;
mod queue;
mod records;
mod restore;
mod slot;
mod slots;
mod state;
mod stream;
pub(crate) mod template;
#[cfg(test)]
mod tests;

pub(crate) use admit::Refusal;
pub(crate) use queue::{Job, QUEUE_CAP};
pub(crate) use restore::Restore;
pub(crate) use slot::Slot;

pub(crate) use state::{HOST, Kernel, MAX_STREAMS};
pub(crate) use stream::{Life, Stream, StreamEnd, StreamMeta, Waiting};

#[allow(dead_code)]
const _: () = assert!(MAX_STREAMS <= 4 && (QUEUE_CAP as u32) < u32::MAX);

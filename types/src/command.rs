//! A command as the answer records it, apart from the answer: the
//! parameters' completion models read it ([`DelayFn`](crate::DelayFn),
//! [`ResultFn`](crate::ResultFn)) and the answer lists it, so it sits below
//! both (`params` and `result`).

/// One command that took a completion slot (S19).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SubmittedCommand {
    /// From 0, one counter for every source.
    pub sequence: u64,
    /// The completion slot, 0..16.
    pub slot: u8,
    /// The command's handler (S1).
    pub handler: u8,
    /// The group's first core, as submitted (patched from a register if the
    /// template names one).
    pub first: u32,
    /// The group's core count, as submitted.
    pub count: u32,
    /// The template's flag byte (never the queue bit).
    pub flags: u8,
    /// The ten patched arguments.
    pub args: [u32; 10],
    /// The pass of submit.
    pub pass_index: u64,
    /// The SUBMIT or ENQUEUE that made it.
    pub pc: u32,
    /// True when it came through the job queue.
    pub queued: bool,
}

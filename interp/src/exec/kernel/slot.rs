//! One busy completion slot ([`Slot`]) and how far the ack wheel reaches.

/// How many passes ahead the ack wheel reaches (a power of two, 64 bits).
pub(super) const ACK_WHEEL: usize = 64;

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
    /// The stream that made it, or [`HOST`](super::state::HOST).
    pub owner: u16,
    /// Its sequence number, the index of its record in `commands`, where
    /// the rest of what it recorded (its pc) is read when needed.
    pub seq: u64,
}

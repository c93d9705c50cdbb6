//! A stream as the kernel sees it: everything but its registers (which the
//! handlers hold), and what its waiting micro-op waits for.

use super::Kernel;
use super::queue::QUEUE_CAP;
use crate::reference::StreamError;

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
    /// The deadline of its commands in passes when it is fixed
    /// (`deadline_passes`, else the header's deadline_microseconds when not
    /// 0); `None`: the kernel's default deadline in force when a command
    /// takes its slot (S13, S31).
    pub deadline: Option<u64>,
    pub life: Life,
    /// Its index among the streams in start order (the owner of its slots
    /// and jobs).
    pub index: u16,
    /// The decoded program it runs.
    pub program: u16,
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

/// How a stream ended, and where it came from, for the answer.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct StreamEnd {
    pub offset: u32,
    pub length: u32,
    /// The pass its RUN was taken in.
    pub pass: u64,
    pub error: Option<StreamError>,
    pub halt: Option<u32>,
}

/// A stream of the run: its state, its registers and how it ended.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Stream {
    pub meta: StreamMeta,
    pub regs: [u32; 16],
    pub end: StreamEnd,
}

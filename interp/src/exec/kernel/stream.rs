//! A stream as the kernel sees it: everything but its registers (which the
//! handlers hold), and what its waiting micro-op waits for.

use super::queue::QUEUE_CAP;
use super::state::Kernel;
use crate::types::StreamError;

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

#[cfg(test)]
impl StreamMeta {
    /// The unit tests' stream: stream 0, active at pc 0 with nothing run,
    /// pending or waited for, that may run `max_steps` micro-ops.
    pub(crate) fn blank(max_steps: u32) -> StreamMeta {
        StreamMeta {
            pc: 0,
            steps: 0,
            max_steps,
            pending: 0,
            latest_result: 0,
            req: 0,
            deadline: None,
            life: Life::Active,
            index: 0,
            program: 0,
            exclusive_mark: None,
            waiting: Waiting::No,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::kernel::queue::Job;
    use crate::types::Params;

    fn stream(pending: u32) -> StreamMeta {
        StreamMeta {
            pending,
            ..StreamMeta::blank(1)
        }
    }

    /// S18's waits, each with its condition on and off: SUBMIT waits while
    /// all 16 slots are busy, ENQUEUE while 64 jobs wait, WAIT 2 while more
    /// than 2 are pending, HALT while anything is.
    #[test]
    fn each_wait_holds_on_its_own_condition() {
        let mut k = Kernel::new(&Params::default());
        let (none, three, one) = (stream(0), stream(3), stream(1));
        for w in [Waiting::No, Waiting::Slots, Waiting::QueueFull] {
            assert!(!w.holds(&k, &three), "{w:?}");
        }
        assert!(Waiting::Pending(2).holds(&k, &three));
        assert!(!Waiting::Pending(3).holds(&k, &three));
        assert!(Waiting::Halt.holds(&k, &one));
        assert!(!Waiting::Halt.holds(&k, &none));
        // 15 busy slots are not all 16.
        k.busy = 0x7FFF;
        assert!(!Waiting::Slots.holds(&k, &none));
        k.busy = u16::MAX;
        assert!(Waiting::Slots.holds(&k, &none));
        assert!(!Waiting::QueueFull.holds(&k, &none));
        for id in 0..QUEUE_CAP as u64 {
            k.queue.push(Job::of(id, 1, 0));
            // 63 waiting jobs are not a full queue.
            assert_eq!(Waiting::QueueFull.holds(&k, &none), id == 63);
        }
        // Nothing pending: neither WAIT 0 nor HALT waits, whatever is full.
        assert!(!Waiting::Pending(0).holds(&k, &none));
        assert!(!Waiting::Halt.holds(&k, &none));
        assert!(!Waiting::No.holds(&k, &three));
    }
}

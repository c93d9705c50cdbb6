//! What a paused run holds, for a person or a program to read
//! ([`State`]): a copy taken from the machine, in the specification's
//! terms (S12..S22, S26..S35), never read back into a run.

use crate::exec::kernel::{HOST, Life};
use crate::exec::machine::Parts;
use crate::types::{Event, HostEntry, StreamError, SubmittedCommand};

/// How a stream stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Standing {
    /// Still running: it takes its turn in the passes to come.
    Active,
    /// HALT ended it.
    Ended,
    /// An error ended it (S21).
    Failed,
}

/// One stream of the run, in start order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StreamState {
    /// The header's req.
    pub req: u32,
    /// How it stands.
    pub standing: Standing,
    /// The micro-op it runs next.
    pub pc: u32,
    /// Its sixteen registers.
    pub regs: [u32; 16],
    /// The micro-ops it has run (S17).
    pub steps: u32,
    /// The header's max_steps.
    pub max_steps: u32,
    /// Its commands in flight plus its jobs in the queue (S18).
    pub pending: u32,
    /// The latest result an acknowledgement of its commands carried (S12).
    pub latest_result: u32,
    /// Its upload's offset and length (0 and the upload's length for one stream).
    pub offset: u32,
    /// See `offset`.
    pub length: u32,
    /// The pass it started in.
    pub started: u64,
    /// Its error, once it failed.
    pub error: Option<StreamError>,
    /// Its halt value, once HALT ended it.
    pub halt: Option<u32>,
}

/// One busy completion slot (S12, S13).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SlotState {
    /// 0..16.
    pub slot: u8,
    /// The sequence number of its command (its index in the commands).
    pub sequence: u64,
    /// The stream that submitted it (its index), `None` for the host.
    pub owner: Option<usize>,
    /// The group's first core and count.
    pub first: u32,
    /// See `first`.
    pub count: u32,
    /// The pass whose sweep frees it, `None`: never.
    pub ack: Option<u64>,
    /// The pass after whose sweep it is late.
    pub deadline: u64,
}

/// One job waiting in the queue (S20), in queue order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct JobState {
    /// Its place in the order of every job queued so far.
    pub id: u64,
    /// The stream that queued it (its index), `None` for the host.
    pub owner: Option<usize>,
    /// The command it will submit (sequence, slot, first core and pass
    /// are filled in when it is placed).
    pub command: SubmittedCommand,
    /// How often a job behind it was placed first (S20).
    pub overtaken: u64,
}

/// A paused run, as it stands between two passes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct State {
    /// The next pass to run (every pass before it has run), or the pass
    /// where the run ended.
    pub pass: u64,
    /// True once the run is over: a resume runs nothing.
    pub over: bool,
    /// The streams in start order.
    pub streams: Vec<StreamState>,
    /// The busy completion slots, lowest first.
    pub slots: Vec<SlotState>,
    /// The waiting jobs, in queue order.
    pub queue: Vec<JobState>,
    /// The host commands not yet taken or rejected, with their index.
    pub host_waiting: Vec<(usize, HostEntry)>,
    /// The kernel's default deadline in passes (S31).
    pub default_deadline: u64,
    /// The commands recorded so far (S19).
    pub commands: Vec<SubmittedCommand>,
    /// The events posted so far (S22).
    pub events: Vec<Event>,
    /// True when a late command stopped the grid (S14).
    pub stopped: bool,
}

/// A stream index for the reader, `None` for the host.
fn owner(o: u16) -> Option<usize> {
    (o != HOST).then_some(usize::from(o))
}

impl State {
    pub(super) fn of(parts: Parts, entries: &[HostEntry]) -> State {
        let streams = parts
            .streams
            .iter()
            .map(|s| StreamState {
                req: s.meta.req,
                standing: match s.meta.life {
                    Life::Active => Standing::Active,
                    Life::Ended => Standing::Ended,
                    Life::Failed => Standing::Failed,
                },
                pc: s.meta.pc,
                regs: s.regs,
                steps: s.meta.steps,
                max_steps: s.meta.max_steps,
                pending: s.meta.pending,
                latest_result: s.meta.latest_result,
                offset: s.end.offset,
                length: s.end.length,
                started: s.end.pass,
                error: s.end.error,
                halt: s.end.halt,
            })
            .collect();
        let slots = parts
            .kernel
            .slots
            .iter()
            .map(|&(slot, s)| SlotState {
                slot,
                sequence: s.seq,
                owner: owner(s.owner),
                first: s.first,
                count: s.count,
                ack: (s.ack != u64::MAX).then_some(s.ack),
                deadline: s.deadline,
            })
            .collect();
        let queue = parts
            .kernel
            .jobs
            .iter()
            .map(|&(j, overtaken)| JobState {
                id: j.id,
                owner: owner(j.owner),
                command: j.cmd,
                overtaken,
            })
            .collect();
        let host_waiting = entries
            .iter()
            .copied()
            .enumerate()
            .skip(parts.host_next)
            .collect();
        State {
            pass: parts.pass,
            over: parts.resume_at.is_none(),
            streams,
            slots,
            queue,
            host_waiting,
            default_deadline: parts.kernel.default_deadline,
            commands: parts.commands,
            events: parts.events,
            stopped: parts.kernel.stopped,
        }
    }
}

//! The pieces of an expected scenario answer (S22, S36): events, host
//! outcomes and stream errors, written field by field. Shared by the
//! reference model's scenario tests (through `common`) and, with `#[path]`,
//! by the engine's scenario builder tests, which compare with the same
//! types of kmst-reference.

use kmst_reference::{Event, HostCommand, HostOutcome, Outcome, Reason, StreamError};

pub fn ev(kind: u8, req: u32, auxiliary: u32, pass_index: u64) -> Event {
    Event {
        kind,
        req,
        auxiliary,
        pass_index,
    }
}

/// A RUN of the `length` bytes at `offset`.
pub fn run(offset: u32, length: u32) -> HostCommand {
    HostCommand::Run { offset, length }
}

pub fn se(reason: Reason, pc: u32) -> Option<StreamError> {
    Some(StreamError { reason, pc })
}

/// Taken in `pass` (a command that is not a RUN).
pub fn taken(pass: u64) -> HostOutcome {
    HostOutcome {
        pass: Some(pass),
        outcome: Outcome::Taken,
        stream: None,
    }
}

/// A RUN taken in `pass` that started the stream of index `stream`.
pub fn started(pass: u64, stream: usize) -> HostOutcome {
    HostOutcome {
        stream: Some(stream),
        ..taken(pass)
    }
}

pub fn rejected(pass: u64, reason: Reason) -> HostOutcome {
    HostOutcome {
        pass: Some(pass),
        outcome: Outcome::Rejected(reason),
        stream: None,
    }
}

/// Five RUNs in `pass` with nothing active before (S28): the first four
/// start streams 0..4, the fifth finds four active and is rejected.
pub fn four_started_fifth_rejected(pass: u64) -> Vec<HostOutcome> {
    let mut out: Vec<HostOutcome> = (0..4).map(|k| started(pass, k)).collect();
    out.push(rejected(pass, Reason::BadHeader));
    out
}

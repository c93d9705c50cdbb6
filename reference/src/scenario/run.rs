//! The whole kernel, pass by pass (S26..S35, with S11..S22 for each stream).
//!
//! One loop over passes; each pass runs the phases of S29 in order: the sweep
//! (S12), the deadline phase (S33), the host commands in list order (S26..S28,
//! S31, S32, S34), then the turns of the active streams and the queue in the
//! rotation `p % (n + 1)`. Every pass is simulated, idle or not, as
//! [`crate::simulate`] does. The state is plain: the accepted streams in start
//! order with their own registers, pc, steps, latest result; the shared
//! slots, queue, sequence counter (the length of `commands`) and event log.
//! Each slot and job remembers its stream (`None` for the host), which is all
//! the pending counts, the sweep's results and S33 need.
//!
//! This file holds the state, the pass loop with its first two phases and
//! the end (S35); the phases after them are by concern: `run/host.rs` (the
//! host commands), `run/turns.rs` (the rotation and the streams' micro-ops)
//! and `run/slots.rs` (the slots, the group allocator and the queue).

use super::Scenario;
use super::answer::{HostOutcome, ScenarioCommand, ScenarioResult, StreamOutcome};
use crate::grid::Grid;
use crate::ops::Running;
use crate::params::Params;
use crate::program::Program;
use crate::result::{Event, Reason, Status, StreamError, kind};
use crate::sim::SLOTS;

mod host;
mod slots;
mod turns;

/// At most this many streams run at once (docs/spec.md "The upload").
pub const MAX_STREAMS: usize = 4;

/// The largest upload any header can describe (S2):
/// `64 + pad64(65,535 * 16) + pad64(65,535 * 80)` = 64 + 1,048,576 + 5,242,816.
/// A RUN longer than this is rejected with `Reason::BadHeader` pc 0 by whichever test of
/// S6 comes first (all of them give `Reason::BadHeader` pc 0 here, the last being the
/// check's size test), so its bytes need not be read.
pub const LARGEST_UPLOAD: u64 = 6_291_456;

/// A stream accepted by a RUN (S28).
struct Stream {
    offset: u32,
    length: u32,
    start_pass: u64,
    program: Program,
    life: Life,
    run: Running,
    error: Option<StreamError>,
    halt: Option<u32>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Life {
    Active,
    Halted,
    Failed,
}

/// What the host-command phase did with one command.
enum Answer {
    /// Taken; for a RUN the new stream's index.
    Taken(Option<usize>),
    Rejected(Reason),
    /// It has to wait (a host submit, S32): it and every command behind it.
    Wait,
}

struct Kernel<'s> {
    scenario: &'s Scenario,
    params: &'s Params,
    streams: Vec<Stream>,
    grid: Grid<'s>,
    /// The kernel's default deadline in passes (S31).
    default_deadline: u64,
    /// The first host command not yet taken or rejected (S26: the ones
    /// before it are all done, the ones after it wait behind it).
    next_host: usize,
    /// For the host submit waiting first in line: its first try's mark (S32).
    host_mark: Option<u64>,
    host: Vec<HostOutcome>,
    commands: Vec<ScenarioCommand>,
    events: Vec<Event>,
    stopped: bool,
}

/// Runs a scenario as the kernel would (S26..S35).
pub fn simulate_scenario(scenario: &Scenario) -> ScenarioResult {
    let params = scenario.params();
    let mut kernel = Kernel {
        scenario,
        params,
        streams: Vec::new(),
        grid: Grid::new(params),
        default_deadline: params.default_deadline_passes,
        next_host: 0,
        host_mark: None,
        host: vec![HostOutcome::WAITING; scenario.host().len()],
        commands: Vec::new(),
        events: Vec::new(),
        stopped: false,
    };
    for pass in 0..params.max_passes {
        if kernel.run_pass(pass) {
            break;
        }
    }
    kernel.finish()
}

impl Kernel<'_> {
    fn finish(self) -> ScenarioResult {
        let streams = self
            .streams
            .iter()
            .map(|s| StreamOutcome {
                req: s.program.req,
                offset: s.offset,
                length: s.length,
                pass: s.start_pass,
                // S35: a stream still active when the run stops is "stuck".
                status: match s.life {
                    Life::Active => Status::Stuck,
                    Life::Halted => Status::Ended,
                    Life::Failed => Status::Error,
                },
                error: s.error,
                halt: s.halt,
            })
            .collect();
        ScenarioResult {
            params: self.params.clone(),
            streams,
            host: self.host,
            passes: self.events.last().map_or(0, |e| e.pass_index + 1),
            commands: self.commands,
            events: self.events,
            stopped: self.stopped,
        }
    }

    /// One pass; true when the run ends after it (S33, S35).
    fn run_pass(&mut self, pass: u64) -> bool {
        self.sweep(pass);
        if self.deadlines(pass) {
            return true;
        }
        self.host_commands(pass);
        self.turns(pass);
        // S35: nothing active, in flight, queued, waiting or due later.
        let active = self.streams.iter().any(|s| s.life == Life::Active);
        let in_flight = self.grid.slots.iter().any(Option::is_some);
        !active
            && !in_flight
            && self.grid.queue.is_empty()
            && self.next_host == self.scenario.host().len()
    }

    /// S12: slots freed in ascending order; a result goes to the stream that
    /// made the command (S30), the highest slot's last.
    fn sweep(&mut self, pass: u64) {
        for slot in 0..SLOTS {
            if let Some(busy) = self.grid.slots[slot]
                && busy.ack_pass == Some(pass)
            {
                if let (Some(value), Some(s)) = (busy.result, busy.owner.stream()) {
                    self.streams[s].run.latest_result = value;
                }
                self.grid.slots[slot] = None;
            }
        }
    }

    /// S33: the lowest late slot decides; true when the grid is stopped.
    fn deadlines(&mut self, pass: u64) -> bool {
        let late = (0..SLOTS).find_map(|s| {
            self.grid.slots[s]
                .filter(|b| pass >= b.late_pass)
                .map(|b| (s, b))
        });
        let Some((slot, busy)) = late else {
            return false;
        };
        match busy.owner.stream() {
            Some(s) if self.streams[s].life == Life::Active => {
                let pc = self.commands[busy.command].command.pc;
                self.fail(s, Reason::Deadline, pc, pass);
            }
            owner => {
                let req = owner.map_or(0, |s| self.streams[s].program.req);
                self.post(kind::TIMEOUT, req, slot as u32, pass);
            }
        }
        self.stopped = true;
        // Every other active stream ends at its current pc, in start order.
        for s in 0..self.streams.len() {
            if self.streams[s].life == Life::Active {
                let pc = self.streams[s].run.pc;
                self.fail(s, Reason::Deadline, pc, pass);
            }
        }
        true
    }

    /// The active streams' indexes, in start order.
    fn active(&self) -> Vec<usize> {
        (0..self.streams.len())
            .filter(|&s| self.streams[s].life == Life::Active)
            .collect()
    }

    fn post(&mut self, kind: u8, req: u32, auxiliary: u32, pass: u64) {
        self.events.push(Event {
            kind,
            req,
            auxiliary: auxiliary & 0xFF_FFFF,
            pass_index: pass,
        });
    }

    /// S21: stream `s` ends with an error at once; its own queued jobs are
    /// dropped (S30), its commands in flight stay.
    fn fail(&mut self, s: usize, reason: Reason, pc: u32, pass: u64) {
        let req = self.streams[s].program.req;
        self.post(
            kind::STREAM_ERROR,
            req,
            u32::from(reason.number()) | (pc << 8),
            pass,
        );
        let stream = &mut self.streams[s];
        stream.life = Life::Failed;
        stream.error = Some(StreamError { reason, pc });
        stream.run.exclusive_mark = None;
        self.grid.queue.retain(|j| !j.owner.is(s));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::{self, HEADER_LEN};

    #[test]
    fn largest_upload_is_s2_for_the_largest_counts() {
        let ops = check::pad64(65_535 * check::OP_LEN);
        let templates = check::pad64(65_535 * check::TEMPLATE_LEN);
        assert_eq!(LARGEST_UPLOAD, HEADER_LEN + ops + templates);
    }
}

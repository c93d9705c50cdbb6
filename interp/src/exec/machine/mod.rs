//! The pass loop of the fast kernel (docs/spec.md "The kernel", S11..S22 for
//! one stream, S26..S35 for the whole kernel), the stream turn around the
//! dispatch loops, and the idle skip. This file sets a run up and gives its
//! answer; the pass loop and the idle skip are `passes`, the turns
//! `turn`, the turn budget, the quick passes and the spans' length
//! `budget`, the streams' ends `streams`, the host's commands `host`
//! and `host_phase`.
//!
//! A [`Machine`] runs either one stream ([`Machine::new`], the simulator of
//! docs/spec.md) or a kernel scenario ([`Machine::new_scenario`]: up to four
//! streams started by RUN commands beside the host's other commands, S26).
//! Both do every allocation in set-up (decoding every upload a RUN names,
//! room for every stream a RUN can start, the result vectors' reserve);
//! [`Machine::run`] allocates nothing of its own, pass after pass, except
//! when the result vectors outgrow what was reserved.
//!
//! The idle skip and the spans of quick passes are docs/dispatch.md's
//! "Idle passes cost nothing, exactly" and "Spans of quick passes".

mod budget;
mod host;
mod host_phase;
mod passes;
mod prepared;
mod restore;
mod streams;
mod turn;

pub use prepared::Prepared;
pub(crate) use restore::Parts;

use smallvec::SmallVec;

use self::host::Host;
use crate::check::CheckedUpload;
use crate::exec::decode::Program;
use crate::exec::dispatch::{self, Dispatch};
use crate::exec::kernel::{
    self, Kernel, Life, MAX_STREAMS, Stream, StreamEnd, StreamMeta, Waiting,
};
use crate::exec::observer::Observer;
use crate::types::result::kind;
use crate::types::{
    Params, Scenario, ScenarioCommand, ScenarioResult, SimResult, Status, StreamError,
    StreamOutcome,
};

/// A run of the fast kernel, set up and ready (or finished).
pub struct Machine {
    pub(super) params: Params,
    /// One stream: the check's error when it rejected the upload (P1).
    pub(super) check: Option<StreamError>,
    /// One stream: the pass of the host's cancel (S15).
    pub(super) cancel_pass: Option<u64>,
    /// The decoded programs: the one stream's, or one per RUN the check accepts.
    pub(super) programs: SmallVec<[Program; 1]>,
    pub(super) kernel: Kernel,
    /// Every stream started so far, in start order (its index is its owner
    /// id), each in one piece (one allocation for a one-stream run).
    pub(super) streams: Vec<Stream>,
    /// The active streams, in start order.
    pub(super) active: [u16; MAX_STREAMS],
    pub(super) n_active: usize,
    /// The host commands of a scenario (none for one stream).
    pub(super) host: Host,
    /// True once the run is over (a second `run` does nothing); before,
    /// the run goes on from `kernel.pass` (docs/pause.md).
    pub(super) over: bool,
    /// Whether there is anything to run (a rejected one-stream upload has not).
    pub(super) runnable: bool,
}

impl Machine {
    fn blank(
        params: &Params,
        programs: SmallVec<[Program; 1]>,
        host: Host,
        streams: usize,
    ) -> Machine {
        Machine {
            params: params.clone(),
            check: None,
            cancel_pass: None,
            programs,
            kernel: Kernel::new(params),
            streams: Vec::with_capacity(streams),
            active: [0; MAX_STREAMS],
            n_active: 0,
            host,
            over: false,
            runnable: true,
        }
    }

    /// Checks and pre-decodes `upload` and sets up the kernel (S11: the RUN
    /// is taken in pass 0). A rejected upload gives a machine whose result
    /// is the check's error (P1).
    pub fn new(upload: &[u8], params: &Params) -> Machine {
        let decoded =
            CheckedUpload::new(upload, params.region_size).map(|checked| Program::decode(&checked));
        let mut m = Machine::blank(params, SmallVec::new(), Host::none(), 1);
        m.cancel_pass = params.cancel_pass;
        match decoded {
            Err(e) => {
                // P1: one error event at pass 0 with the req of S3.
                let req = crate::format::check_req(upload);
                m.check = Some(e);
                m.runnable = false;
                // Nothing to run: the run is over before pass 0.
                m.over = true;
                // The RUN is taken in pass 0 (S11): with no pass at all
                // (max_passes 0, out of range) there is no event.
                if params.max_passes > 0 {
                    let aux = u32::from(e.reason.number()) | e.pc << 8;
                    m.kernel.post(kind::STREAM_ERROR, req, aux);
                }
            }
            Ok(program) => m.load(program, upload.len() as u32),
        }
        m
    }

    /// A one-stream machine running `program`, an upload of `length` bytes
    /// the check accepted ([`Prepared`]).
    pub(super) fn with_program(program: Program, length: u32, params: &Params) -> Machine {
        let mut m = Machine::blank(params, SmallVec::new(), Host::none(), 1);
        m.cancel_pass = params.cancel_pass;
        m.load(program, length);
        m
    }

    /// The decoded program `i`, for the tests that prepare it by hand.
    #[cfg(all(test, feature = "jit"))]
    pub(crate) fn program_mut(&mut self, i: usize) -> &mut Program {
        &mut self.programs[i]
    }

    /// Starts the one stream on `program` (S11: the RUN is taken in pass 0).
    fn load(&mut self, program: Program, length: u32) {
        self.programs.push(program);
        self.start(0, 0, length, 0);
        // Some room for the answer up front, so that short runs do not
        // grow the vectors in the pass loop; at most a small allocation
        // (under glibc's 1 KiB, D37), so that a tiny run's first answer
        // pays no large one.
        self.kernel.commands.reserve(8);
        self.kernel.events.reserve(4);
    }

    /// Sets up a kernel scenario (S26): every upload a RUN names is checked
    /// and decoded now, so that the passes allocate nothing.
    pub fn new_scenario(scenario: &Scenario) -> Machine {
        let mut programs = SmallVec::new();
        let host = Host::new(scenario, &mut programs);
        let runs = host.run_count();
        let mut m = Machine::blank(scenario.params(), programs, host, runs);
        m.kernel.record_owners = true;
        m.kernel.commands.reserve(32);
        m.kernel.owners.reserve(32);
        m.kernel.events.reserve(4 + runs);
        m
    }

    /// Starts a stream running program `program` (S11, S28): registers 0 but
    /// r15 = seed, its own steps, latest result and pending count.
    pub(super) fn start(&mut self, program: u16, offset: u32, length: u32, pass: u64) -> usize {
        let h = self.programs[usize::from(program)].head;
        let index = self.streams.len();
        let mut regs = [0u32; 16];
        regs[15] = h.seed;
        let meta = StreamMeta {
            pc: 0,
            steps: 0,
            max_steps: h.max_steps,
            pending: 0,
            latest_result: 0,
            req: h.req,
            // S13, S31: deadline_passes, else the header's when it is not 0.
            deadline: self
                .params
                .deadline_passes
                .or((h.deadline_us != 0).then_some(u64::from(h.deadline_us))),
            life: Life::Active,
            index: index as u16,
            program,
            exclusive_mark: None,
            waiting: Waiting::No,
        };
        self.streams.push(Stream {
            meta,
            regs,
            end: StreamEnd {
                offset,
                length,
                pass,
                ..StreamEnd::default()
            },
        });
        self.active[self.n_active] = index as u16;
        self.n_active += 1;
        index
    }

    /// Reserves room in the result vectors and the whole job queue (so a
    /// run of known size allocates nothing).
    pub fn reserve(&mut self, commands: usize, events: usize) {
        self.kernel.commands.reserve(commands);
        if self.kernel.record_owners {
            self.kernel.owners.reserve(commands);
        }
        self.kernel.events.reserve(events);
        self.kernel.queue.reserve_all();
    }

    /// Readies the programs for `dispatch` and observer `O` ahead of
    /// [`Machine::run`], which does it otherwise: the threaded variant's
    /// handlers, the `jit` variant's compilation (once per program). Lets a
    /// caller time the compilation apart from the run.
    pub fn prepare<O: Observer>(&mut self, dispatch: Dispatch) {
        for p in &mut self.programs {
            dispatch::prepare::<O>(dispatch, p);
        }
    }

    /// Runs the passes with the given fast variant, calling `obs`'s hooks.
    /// A machine runs once; calling `run` again does nothing.
    pub fn run<O: Observer>(&mut self, dispatch: Dispatch, obs: &mut O) {
        self.run_piece::<O, false>(dispatch, obs, u64::MAX);
    }

    /// Runs the passes from where the run stands up to pass `stop` (not
    /// run), or with `EVENT` to the end of the first pass that posts an
    /// event, whichever comes first; the run stops at a pass boundary
    /// ([`Machine::resume_at`]). `EVENT` is a parameter so that a run
    /// that does not ask pays nothing for the test. A paused run keeps no
    /// field of its own: its pass is the kernel's (decisions.md D39).
    pub(crate) fn run_piece<O: Observer, const EVENT: bool>(
        &mut self,
        dispatch: Dispatch,
        obs: &mut O,
        stop: u64,
    ) {
        self.prepare::<O>(dispatch);
        if self.over {
            return;
        }
        if !self.runnable {
            self.over = true;
            return;
        }
        let limit = stop.min(self.params.max_passes);
        self.over = self.passes::<O, EVENT>(self.kernel.pass, limit, dispatch, obs);
    }

    /// The pass the run goes on from, `None` once it is over (finished,
    /// stopped by a late command, or at `max_passes`).
    pub fn resume_at(&self) -> Option<u64> {
        (!self.over).then_some(self.kernel.pass)
    }

    /// The answer of a one-stream run (S24).
    pub fn into_result(self) -> SimResult {
        // Field by field: moving the kernel whole would copy it.
        one_result(
            self.params,
            self.check,
            &self.streams,
            self.kernel.commands,
            self.kernel.events,
            self.kernel.stopped,
        )
    }

    /// The answer of a one-stream run as it stands: a paused run's
    /// stream, still active, is stuck (S16).
    pub fn result_so_far(&self) -> SimResult {
        let k = &self.kernel;
        let (commands, events) = (k.commands.clone(), k.events.clone());
        one_result(
            self.params.clone(),
            self.check,
            &self.streams,
            commands,
            events,
            k.stopped,
        )
    }

    /// The answer of a scenario (S36).
    pub fn into_scenario_result(self) -> ScenarioResult {
        scenario_result(
            self.params,
            &self.streams,
            self.host.into_outcomes(),
            self.kernel.commands,
            self.kernel.owners,
            self.kernel.events,
            self.kernel.stopped,
        )
    }

    /// The answer of a scenario as it stands (S35: a stream still active
    /// is stuck, a host command not yet taken is waiting).
    pub fn scenario_result_so_far(&self) -> ScenarioResult {
        let k = &self.kernel;
        scenario_result(
            self.params.clone(),
            &self.streams,
            self.host.outcomes.clone(),
            k.commands.clone(),
            k.owners.clone(),
            k.events.clone(),
            k.stopped,
        )
    }

    /// Whether the machine runs a scenario (else one stream).
    pub(crate) fn is_scenario(&self) -> bool {
        self.kernel.record_owners
    }
}

/// The answer of a one-stream run (S24) from its parts (inlined: a call
/// cost `simulate` a dozen instructions).
#[inline(always)]
fn one_result(
    params: Params,
    check: Option<StreamError>,
    streams: &[Stream],
    commands: Vec<crate::types::SubmittedCommand>,
    events: Vec<crate::types::Event>,
    stopped: bool,
) -> SimResult {
    let end = streams.first().map(|s| s.end).unwrap_or_default();
    let (status, error) = match (check, streams.first()) {
        // No pass ran (max_passes 0, out of range): no event, no error.
        (Some(_), _) if params.max_passes == 0 => (Status::Stuck, None),
        (Some(e), _) => (Status::Error, Some(e)),
        (None, Some(s)) => (status_of(s.meta.life), end.error),
        (None, None) => (Status::Stuck, None),
    };
    let passes = events.last().map_or(0, |e| e.pass_index + 1);
    SimResult {
        params,
        check,
        commands,
        events,
        status,
        passes,
        error,
        halt: end.halt,
        stopped,
    }
}

/// The answer of a scenario (S36) from its parts.
#[inline(always)]
fn scenario_result(
    params: Params,
    streams: &[Stream],
    host: Vec<crate::types::HostOutcome>,
    commands: Vec<crate::types::SubmittedCommand>,
    owners: Vec<u16>,
    events: Vec<crate::types::Event>,
    stopped: bool,
) -> ScenarioResult {
    let streams = streams
        .iter()
        .map(|Stream { meta: s, end, .. }| StreamOutcome {
            req: s.req,
            offset: end.offset,
            length: end.length,
            pass: end.pass,
            status: status_of(s.life),
            error: end.error,
            halt: end.halt,
        })
        .collect();
    let passes = events.last().map_or(0, |e| e.pass_index + 1);
    let commands = commands
        .into_iter()
        .zip(owners)
        .map(|(command, owner)| ScenarioCommand {
            command,
            stream: (owner != kernel::HOST).then_some(usize::from(owner)),
        })
        .collect();
    ScenarioResult {
        params,
        streams,
        host,
        commands,
        events,
        stopped,
        passes,
    }
}

/// A stream's status in the answer: a stream still active when the run
/// stops is stuck (S16, S35).
fn status_of(life: Life) -> Status {
    match life {
        Life::Active => Status::Stuck,
        Life::Ended => Status::Ended,
        Life::Failed => Status::Error,
    }
}

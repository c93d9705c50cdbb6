//! The profile of a kernel scenario (S26..S36): up to four streams and the
//! host sharing the 16 completion slots and the job queue.
//!
//! [`ScenarioObserver`] keeps the turn counters of each stream (the kernel
//! names the stream of every turn by its index in start order, the index of
//! the answer's `streams`), the slot spans and the per-pass occupancy and
//! queue depth. After the run, [`ScenarioProfile::build`] joins the slot
//! spans to the answer's commands (sequence numbers) to say which source,
//! a stream or the host, held each slot for how many passes.
//!
//! Idle passes: in a pass the kernel skips, every active stream repeats the
//! wait its last turn ended with. A stream was active through the pass
//! before the skip exactly when it took a turn in that pass (S29: every
//! active stream takes one turn in every pass), so the skipped passes are
//! added to the streams whose last turn was in that pass and waited.

use std::collections::BTreeMap;
use std::fmt;

use serde::Serialize;

use kmst::exec::{Dispatch, Observer, TurnEnd, simulate_scenario_observed};
use kmst::format::SLOTS;
use kmst_reference::{Outcome, Scenario, ScenarioError, ScenarioResult};

use super::collect::{ProfileObserver, TURN_END_NAMES, TurnRecord, turn_end_index};
use super::report::{EndRow, OpsRow, QueueDepth, SlotOccupancy, Turns, status_name};

/// One stream's turn counters.
#[derive(Clone, Debug, Default)]
pub struct StreamCounters {
    pub turn_ends: [u64; 8],
    /// Idle passes skipped while the stream waited, by the wait's reason.
    pub skipped_by_end: [u64; 8],
    pub ops_per_turn: BTreeMap<u32, u64>,
    pub turns: u64,
    pub zero_op: u64,
    pub ops: u64,
    pub skipped: u64,
    pub last_turn: Option<TurnRecord>,
}

/// Collects what the kernel reports while a scenario runs. The slot spans,
/// occupancy and queue depth are [`ProfileObserver`]'s (it sees no
/// micro-ops: per-pc counts mean nothing across several programs).
#[derive(Clone, Debug, Default)]
pub struct ScenarioObserver {
    pub kernel: ProfileObserver,
    /// Per stream, by index in start order.
    pub streams: Vec<StreamCounters>,
}

impl ScenarioObserver {
    /// The streams that wait through the skipped passes `from..`: those
    /// whose last turn was in pass `from - 1` and waited.
    pub fn waiting_at(&self, from: u64) -> impl Iterator<Item = (usize, TurnRecord)> + '_ {
        self.streams.iter().enumerate().filter_map(move |(i, s)| {
            s.last_turn
                .filter(|t| t.pass + 1 == from && t.why.is_wait())
                .map(|t| (i, t))
        })
    }
}

impl Observer for ScenarioObserver {
    fn on_turn_end(&mut self, pass: u64, stream: usize, ops: u32, why: TurnEnd, pc: u32) {
        self.kernel.on_turn_end(pass, stream, ops, why, pc);
        if self.streams.len() <= stream {
            self.streams
                .resize_with(stream + 1, StreamCounters::default);
        }
        let s = &mut self.streams[stream];
        s.turn_ends[turn_end_index(why)] += 1;
        *s.ops_per_turn.entry(ops).or_insert(0) += 1;
        s.turns += 1;
        s.ops += u64::from(ops);
        if ops == 0 {
            s.zero_op += 1;
        }
        s.last_turn = Some(TurnRecord { pass, ops, why, pc });
    }

    hand_on!(kernel: on_submit, on_ack);

    fn on_pass_end(&mut self, pass: u64, busy_slots: u32, queue_len: u32) {
        self.kernel.on_pass_end(pass, busy_slots, queue_len);
    }

    fn on_idle(&mut self, from: u64, to: u64) {
        let waiting: Vec<(usize, TurnRecord)> = self.waiting_at(from).collect();
        for (i, t) in waiting {
            let s = &mut self.streams[i];
            s.skipped += to - from;
            s.skipped_by_end[turn_end_index(t.why)] += to - from;
        }
        self.kernel.on_idle(from, to);
    }
}

/// The profile of one scenario run.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ScenarioProfile {
    pub dispatch: String,
    pub turn_budget: u32,
    /// The run's `passes` (S16, S35).
    pub passes: u64,
    /// Passes the kernel went through, run or skipped.
    pub kernel_passes: u64,
    /// True when a late command stopped the grid (S33).
    pub stopped: bool,
    pub commands: u64,
    /// Micro-ops all streams executed.
    pub micro_ops: u64,
    /// One per accepted RUN, in start order.
    pub streams: Vec<StreamProfile>,
    /// The host commands by kind.
    pub host: Vec<HostRow>,
    /// Busy slots at the end of each pass, all sources together.
    pub slots: SlotOccupancy,
    /// The same by who made the command: each stream, then the host.
    pub slots_by_source: Vec<SourceSlots>,
    pub queue: QueueDepth,
}

/// One stream of the scenario and its turns.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct StreamProfile {
    /// Its index in the answer's `streams`.
    pub stream: usize,
    pub req: u32,
    pub offset: u32,
    pub length: u32,
    /// The pass its RUN was taken in.
    pub start_pass: u64,
    /// `ended`, `error` or `stuck`.
    pub status: String,
    /// `reason R at pc P` when it ended with an error.
    pub error: Option<String>,
    pub halt: Option<u32>,
    pub micro_ops: u64,
    /// Its turns; `without_turn` counts the passes from its start on.
    pub turns: Turns,
}

/// The host commands of one kind and what became of them.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct HostRow {
    /// `run`, `cancel`, `deadline`, `submit`, `enqueue`.
    pub kind: &'static str,
    pub sent: u64,
    pub taken: u64,
    pub rejected: u64,
    pub waiting: u64,
}

/// The completion slots one source's commands held.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct SourceSlots {
    /// `stream N` or `host`.
    pub source: String,
    pub commands: u64,
    /// Of them, jobs the queue submitted.
    pub queued: u64,
    /// Passes at whose end one of its commands held a slot, summed over
    /// its commands (a command submitted in pass s and acknowledged in the
    /// sweep of pass a holds its slot at the end of passes s..a).
    pub slot_passes: u64,
    /// `slot_passes / kernel_passes`: its share of the mean busy slots.
    pub mean: f64,
    /// The most slots it held at the end of one pass.
    pub max: u32,
}

fn ratio(a: u64, b: u64) -> f64 {
    if b == 0 { 0.0 } else { a as f64 / b as f64 }
}

/// The kinds of host command in report order.
const HOST_KINDS: [&str; 5] = ["run", "cancel", "deadline", "submit", "enqueue"];

impl ScenarioProfile {
    /// The report of a run from its answer and the observer's counts.
    pub fn build(
        scenario: &Scenario,
        result: &ScenarioResult,
        obs: &ScenarioObserver,
        dispatch: Dispatch,
    ) -> ScenarioProfile {
        let k = &obs.kernel;
        let kernel_passes = k.passes;
        let empty = StreamCounters::default();
        let streams = result
            .streams
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let c = obs.streams.get(i).unwrap_or(&empty);
                let ends = TURN_END_NAMES
                    .iter()
                    .enumerate()
                    .map(|(r, &why)| EndRow {
                        why,
                        turns: c.turn_ends[r],
                        share: ratio(c.turn_ends[r], c.turns),
                        skipped: c.skipped_by_end[r],
                    })
                    .collect();
                StreamProfile {
                    stream: i,
                    req: s.req,
                    offset: s.offset,
                    length: s.length,
                    start_pass: s.pass,
                    status: status_name(s.status).to_owned(),
                    error: s.error.map(|e| e.to_string()),
                    halt: s.halt,
                    micro_ops: c.ops,
                    turns: Turns {
                        taken: c.turns,
                        skipped: c.skipped,
                        zero_op: c.zero_op,
                        ran_nothing: c.zero_op + c.skipped,
                        without_turn: kernel_passes
                            .saturating_sub(s.pass)
                            .saturating_sub(c.turns + c.skipped),
                        mean_ops: ratio(c.ops, c.turns),
                        ops_histogram: c
                            .ops_per_turn
                            .iter()
                            .map(|(&ops, &turns)| OpsRow { ops, turns })
                            .collect(),
                        ends,
                    },
                }
            })
            .collect();

        let mut host: Vec<HostRow> = HOST_KINDS
            .iter()
            .map(|&kind| HostRow {
                kind,
                ..HostRow::default()
            })
            .collect();
        for (entry, outcome) in scenario.host().iter().zip(&result.host) {
            let kind = entry.command.kind();
            if let Some(row) = host.iter_mut().find(|r| r.kind == kind) {
                row.sent += 1;
                match outcome.outcome {
                    Outcome::Taken => row.taken += 1,
                    Outcome::Rejected(_) => row.rejected += 1,
                    Outcome::Waiting => row.waiting += 1,
                }
            }
        }

        ScenarioProfile {
            dispatch: dispatch.name().to_owned(),
            turn_budget: result.params.turn_budget,
            passes: result.passes,
            kernel_passes,
            stopped: result.stopped,
            commands: result.commands.len() as u64,
            micro_ops: obs.streams.iter().map(|s| s.ops).sum(),
            streams,
            host,
            slots: SlotOccupancy {
                mean: ratio(k.busy_sum, kernel_passes),
                max: k.busy_max,
                histogram: k.occupancy[..=SLOTS].to_vec(),
            },
            slots_by_source: slots_by_source(result, k),
            queue: QueueDepth {
                mean: ratio(k.queue_sum, kernel_passes),
                max: k.queue_max,
            },
        }
    }
}

/// The source of command `seq`: `Some(stream)`, or `None` for the host.
pub fn source_of(result: &ScenarioResult, seq: u64) -> Option<Option<usize>> {
    result
        .commands
        .get(seq as usize)
        .filter(|c| c.command.sequence == seq)
        .or_else(|| result.commands.iter().find(|c| c.command.sequence == seq))
        .map(|c| c.stream)
}

/// The name of a source: `stream N` or `host`.
pub fn source_name(source: Option<usize>) -> String {
    source.map_or_else(|| "host".to_owned(), |i| format!("stream {i}"))
}

fn slots_by_source(result: &ScenarioResult, k: &ProfileObserver) -> Vec<SourceSlots> {
    let n = result.streams.len();
    // Index n is the host.
    let mut rows: Vec<SourceSlots> = (0..=n)
        .map(|i| SourceSlots {
            source: source_name((i < n).then_some(i)),
            ..SourceSlots::default()
        })
        .collect();
    // (pass, +1 / -1, source) for the most held at once.
    let mut changes: Vec<(u64, i64, usize)> = Vec::new();
    for span in &k.spans {
        let at = match source_of(result, span.seq) {
            Some(Some(i)) if i < n => i,
            _ => n,
        };
        let end = span.ack.unwrap_or(k.pass_end.max(span.submit + 1));
        let row = &mut rows[at];
        row.commands += 1;
        row.queued += u64::from(span.queued);
        row.slot_passes += end.saturating_sub(span.submit);
        if end > span.submit {
            changes.push((span.submit, 1, at));
            changes.push((end, -1, at));
        }
    }
    // Frees before takes at the same pass: a slot acked in the sweep of
    // pass a is free at the end of pass a.
    changes.sort_unstable();
    let mut held = vec![0i64; n + 1];
    for (_, d, at) in changes {
        held[at] += d;
        rows[at].max = rows[at].max.max(held[at].max(0) as u32);
    }
    for r in &mut rows {
        r.mean = ratio(r.slot_passes, k.passes);
    }
    rows
}

/// Why a scenario cannot be profiled.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ScenarioProfileError {
    /// A turn budget of 0 (S25: at least 1).
    ZeroBudget,
    /// The scenario under other parameters is refused (a sweep's budget, a flag).
    Scenario(ScenarioError),
}

impl fmt::Display for ScenarioProfileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ScenarioProfileError::ZeroBudget => write!(f, "turn_budget must be at least 1"),
            ScenarioProfileError::Scenario(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for ScenarioProfileError {}

/// One profiled scenario run.
#[derive(Clone, Debug)]
pub struct ScenarioRun {
    pub result: ScenarioResult,
    pub observer: ScenarioObserver,
    pub profile: ScenarioProfile,
}

/// Runs `scenario` on `dispatch`, observed.
pub fn profile(
    scenario: &Scenario,
    dispatch: Dispatch,
) -> Result<ScenarioRun, ScenarioProfileError> {
    if scenario.params().turn_budget == 0 {
        return Err(ScenarioProfileError::ZeroBudget);
    }
    let mut observer = ScenarioObserver::default();
    let result = simulate_scenario_observed(scenario, dispatch, &mut observer);
    let profile = ScenarioProfile::build(scenario, &result, &observer, dispatch);
    Ok(ScenarioRun {
        result,
        observer,
        profile,
    })
}

/// One budget of a scenario sweep.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ScenarioSweepRow {
    pub turn_budget: u32,
    pub passes: u64,
    pub stopped: bool,
    /// Each stream's status, in start order.
    pub statuses: Vec<String>,
    /// Turns taken by all streams.
    pub turns: u64,
    pub skipped: u64,
    pub micro_ops: u64,
    pub mean_slots: f64,
    pub mean_queue: f64,
}

impl ScenarioSweepRow {
    /// The sweep's columns of a profile.
    pub fn of(p: &ScenarioProfile) -> ScenarioSweepRow {
        ScenarioSweepRow {
            turn_budget: p.turn_budget,
            passes: p.passes,
            stopped: p.stopped,
            statuses: p.streams.iter().map(|s| s.status.clone()).collect(),
            turns: p.streams.iter().map(|s| s.turns.taken).sum(),
            skipped: p.streams.iter().map(|s| s.turns.skipped).sum(),
            micro_ops: p.micro_ops,
            mean_slots: p.slots.mean,
            mean_queue: p.queue.mean,
        }
    }
}

/// Runs `scenario` once per turn budget (its other parameters as they are).
pub fn sweep(
    scenario: &Scenario,
    dispatch: Dispatch,
    budgets: &[u32],
) -> Result<Vec<ScenarioSweepRow>, ScenarioProfileError> {
    super::per_budget(scenario.params(), budgets, |params| {
        let s = scenario
            .with_params(params)
            .map_err(ScenarioProfileError::Scenario)?;
        Ok(ScenarioSweepRow::of(&profile(&s, dispatch)?.profile))
    })
}

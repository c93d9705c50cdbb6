//! The Chrome trace-event / Perfetto JSON of a profiled run (opens in
//! ui.perfetto.dev and chrome://tracing).
//!
//! Time axis: **one pass is one microsecond** of `ts` (pass p starts at
//! `ts = p`). Tracks (one process, `pid` 1):
//!
//! - `tid` 1, "stream turns": a complete (`X`) slice per turn the kernel ran,
//!   at `ts = pass`, `dur = micro-ops / turn_budget` (a full turn fills its
//!   pass; a turn of 0 micro-ops has `dur` 0), named by why it ended;
//! - `tid` 2, "idle passes (skipped)": one slice per run of passes the kernel
//!   skipped while the stream waited, `ts = from`, `dur = to - from`;
//! - `tid` 100 + s, "slot s": a slice per command in completion slot s, from
//!   its submit pass to the pass whose sweep acknowledged it (`dur = ack -
//!   submit`, at least 1), named `h<handler> [first, first+count)`; a command
//!   never acknowledged runs to the end of the run and is marked so;
//! - counters (`C`) "queue depth" and "busy slots", sampled at the end of
//!   each pass where they changed.
//!
//! The file is written *as the run goes* ([`profile_traced`] and its
//! [`TraceObserver`]): turns, idle ranges and counters go out when the
//! kernel reports them, so memory does not grow with the number of passes
//! (the slot slices, one per command, go out at the end, as the answer
//! itself keeps every command). A byte limit caps the file: once the next
//! event would pass it, no more events are written, the file is closed as
//! valid JSON, and [`TraceEnd::limited_at`] says at which pass it stopped.
//! The run's summary (`status`, `passes`) is in `otherData`, after the events.
//!
//! A kernel scenario ([`profile_scenario_traced`]) has the same time axis,
//! writer and limit, with a track per stream, one for the host commands and
//! one per slot whose slices are named by the stream or the host that made
//! the command (see `scenario`).

use std::io::{self, Write};

use kmst::exec::{Dispatch, Observer, TurnEnd, simulate_observed};
use kmst::format::SLOTS;
use kmst_reference::{Params, SimResult};
use serde_json::{Value, json};

use super::{
    IdleRange, PassSample, Profile, ProfileError, ProfileObserver, Run, SlotSpan, TurnRecord,
};

mod scenario;
pub use scenario::{ScenarioTraceObserver, profile_scenario_traced};

const PID: u64 = 1;
const TID_TURNS: u64 = 1;
const TID_IDLE: u64 = 2;
const TID_SLOT0: u64 = 100;

/// The bytes kept for closing the file (`]`, `otherData`) when the limit is near.
const CLOSING_RESERVE: u64 = 512;

/// Writes trace events one by one, within a byte limit.
struct Events<W: Write> {
    out: W,
    first: bool,
    written: u64,
    limit: u64,
    /// Set once an event was left out for the limit.
    full: bool,
    /// The first write error; nothing more is written after it.
    error: Option<io::Error>,
    budget: f64,
    idle_named: bool,
    slot_named: [bool; SLOTS],
    last_counters: Option<(u32, u32)>,
    /// The pass the run is in (the last hook's), while it runs.
    pass: u64,
    /// The pass in which the size limit was reached while the run went.
    limited_at: Option<u64>,
}

impl<W: Write> Events<W> {
    fn new(out: W, turn_budget: u32, limit: u64, process: &str) -> Events<W> {
        let mut e = Events {
            out,
            first: true,
            written: 0,
            limit,
            full: false,
            error: None,
            budget: f64::from(turn_budget.max(1)),
            idle_named: false,
            slot_named: [false; SLOTS],
            last_counters: None,
            pass: 0,
            limited_at: None,
        };
        e.raw(b"{\"traceEvents\": [\n");
        e.event(
            &json!({"ph": "M", "pid": PID, "tid": 0, "ts": 0, "name": "process_name",
                        "args": {"name": process}}),
        );
        e
    }

    fn raw(&mut self, bytes: &[u8]) {
        if self.error.is_none() {
            match self.out.write_all(bytes) {
                Ok(()) => self.written += bytes.len() as u64,
                Err(err) => self.error = Some(err),
            }
        }
    }

    fn event(&mut self, v: &Value) {
        if self.full || self.error.is_some() {
            return;
        }
        let text = v.to_string();
        let sep: &[u8] = if self.first { b"" } else { b",\n" };
        let need = (sep.len() + text.len()) as u64;
        if self.written.saturating_add(need) > self.limit.saturating_sub(CLOSING_RESERVE) {
            self.full = true;
            return;
        }
        self.first = false;
        self.raw(sep);
        self.raw(text.as_bytes());
    }

    fn thread_name(&mut self, tid: u64, name: &str) {
        self.event(
            &json!({"ph": "M", "pid": PID, "tid": tid, "ts": 0, "name": "thread_name",
                           "args": {"name": name}}),
        );
        self.event(&json!({"ph": "M", "pid": PID, "tid": tid, "ts": 0,
                           "name": "thread_sort_index", "args": {"sort_index": tid}}));
    }

    fn turn(&mut self, t: &TurnRecord) {
        self.event(&json!({
            "ph": "X", "pid": PID, "tid": TID_TURNS, "ts": t.pass,
            "dur": f64::from(t.ops) / self.budget, "name": t.why.name(),
            "args": {"pass": t.pass, "micro_ops": t.ops, "pc": t.pc},
        }));
    }

    /// A skipped range, drawn up to `active_until` (the stream's end).
    fn idle(&mut self, r: &IdleRange, active_until: u64) {
        let to = r.to.min(active_until);
        let Some(t) = r.after.filter(|t| t.why.is_wait()) else {
            return;
        };
        if to <= r.from {
            return;
        }
        if !self.idle_named {
            self.idle_named = true;
            self.thread_name(TID_IDLE, "idle passes (skipped)");
        }
        self.event(&json!({
            "ph": "X", "pid": PID, "tid": TID_IDLE, "ts": r.from, "dur": to - r.from,
            "name": format!("skipped: {}", t.why.name()),
            "args": {"from": r.from, "to": to, "pc": t.pc},
        }));
    }

    /// Notes the pass the run is in, for [`Events::note_limit`].
    fn at(&mut self, pass: u64) {
        self.pass = pass;
    }

    /// After a hook's events: the pass in which the limit was reached, once.
    fn note_limit(&mut self) {
        if self.full && self.limited_at.is_none() {
            self.limited_at = Some(self.pass);
        }
    }

    /// A pass's end while the run goes: its counters, if they changed.
    fn pass_end(&mut self, pass: u64, busy_slots: u32, queue_len: u32) {
        self.at(pass);
        self.sample(&PassSample {
            pass,
            busy_slots,
            queue_len,
        });
        self.note_limit();
    }

    fn sample(&mut self, s: &PassSample) {
        if self.last_counters != Some((s.busy_slots, s.queue_len)) {
            self.event(&json!({"ph": "C", "pid": PID, "tid": 0, "ts": s.pass,
                               "name": "queue depth", "args": {"jobs": s.queue_len}}));
            self.event(&json!({"ph": "C", "pid": PID, "tid": 0, "ts": s.pass,
                               "name": "busy slots", "args": {"slots": s.busy_slots}}));
            self.last_counters = Some((s.busy_slots, s.queue_len));
        }
    }

    /// One command's slice on its slot's track (named on first use), from
    /// its submit to its acknowledgement, or to `end` when it never was.
    fn slot_span(&mut self, s: &SlotSpan, name: String, args: Value, end: u64) {
        let slot = usize::from(s.slot) % SLOTS;
        if !self.slot_named[slot] {
            self.slot_named[slot] = true;
            self.thread_name(TID_SLOT0 + slot as u64, &format!("slot {slot}"));
        }
        let (stop, name) = match s.ack {
            Some(a) => (a, name),
            None => (
                end.max(s.submit + 1),
                format!("{name} (never acknowledged)"),
            ),
        };
        self.event(&json!({
            "ph": "X", "pid": PID, "tid": TID_SLOT0 + u64::from(s.slot), "ts": s.submit,
            "dur": stop.saturating_sub(s.submit).max(1), "name": name, "args": args,
        }));
    }

    /// The slot slices (one per command), the run's summary, and the close.
    fn finish(
        mut self,
        obs: &ProfileObserver,
        result: &SimResult,
        p: &Profile,
    ) -> io::Result<TraceEnd> {
        let end = obs.pass_end;
        for s in &obs.spans {
            let command = result
                .commands
                .get(s.seq as usize)
                .filter(|c| c.sequence == s.seq)
                .or_else(|| result.commands.iter().find(|c| c.sequence == s.seq));
            let (name, args) = match command {
                Some(c) => (
                    format!("h{} [{}, {})", c.handler, c.first, c.first + c.count),
                    json!({"sequence": c.sequence, "handler": c.handler, "first": c.first,
                           "count": c.count, "flags": c.flags, "pc": c.pc, "queued": c.queued,
                           "submit_pass": s.submit, "ack_pass": s.ack}),
                ),
                None => (
                    format!("seq {}", s.seq),
                    json!({"sequence": s.seq, "submit_pass": s.submit, "ack_pass": s.ack}),
                ),
            };
            self.slot_span(s, name, args, end);
        }
        let other = json!({"time axis": "1 pass = 1 us of ts", "dispatch": p.dispatch,
                           "turn_budget": p.turn_budget, "status": p.status,
                           "passes": p.passes});
        self.close(other, end)
    }

    /// Ends the events array, writes `otherData` (with what the limit left
    /// out) and flushes. A limit reached only by the events written after
    /// the run (the slot slices) is reached at its end, pass `end`.
    fn close(mut self, mut other: Value, end: u64) -> io::Result<TraceEnd> {
        if self.full {
            other["truncated"] = json!(format!(
                "the trace reached its size limit of {} bytes{}; later events are left out",
                self.limit,
                self.limited_at
                    .map_or(String::new(), |p| format!(" in pass {p}"))
            ));
        }
        self.raw(b"\n],\n\"otherData\": ");
        self.raw(other.to_string().as_bytes());
        self.raw(b"}\n");
        if self.error.is_none()
            && let Err(err) = self.out.flush()
        {
            self.error = Some(err);
        }
        match self.error {
            Some(err) => Err(err),
            None => Ok(TraceEnd {
                bytes: self.written,
                limited_at: self.limited_at.or(self.full.then_some(end)),
            }),
        }
    }
}

/// Writes the trace of `run` (profiled with `timeline` on) to `out`, whole.
pub fn write<W: Write>(run: &Run, out: W) -> io::Result<()> {
    let obs = &run.observer;
    let p = &run.profile;
    let mut w = Events::new(out, p.turn_budget, u64::MAX, "kmst stream");
    w.thread_name(TID_TURNS, "stream turns");
    for t in &obs.turns {
        w.turn(t);
    }
    let active_until = p.stream_end_pass.unwrap_or(u64::MAX);
    for r in &obs.idle {
        w.idle(r, active_until);
    }
    for s in &obs.samples {
        w.sample(s);
    }
    w.finish(obs, &run.result, p).map(|_| ())
}

/// The profiling observer that also writes the trace as the run goes.
pub struct TraceObserver<W: Write> {
    /// The counters of the report (its timeline is not kept).
    pub profile: ProfileObserver,
    events: Events<W>,
    /// The last idle range, held until the run shows it was not cut short
    /// by the stream's end (then it is drawn up to that end).
    pending_idle: Option<IdleRange>,
}

impl<W: Write> TraceObserver<W> {
    fn flush_idle(&mut self) {
        if let Some(r) = self.pending_idle.take() {
            self.events.idle(&r, u64::MAX);
        }
    }
}

impl<W: Write> Observer for TraceObserver<W> {
    const ENABLED: bool = true;

    hand_on!(profile: on_op, on_submit, on_ack);

    fn on_turn_end(&mut self, pass: u64, stream: usize, ops: u32, why: TurnEnd, pc: u32) {
        self.profile.on_turn_end(pass, stream, ops, why, pc);
        self.events.at(pass);
        self.flush_idle();
        self.events.turn(&TurnRecord { pass, ops, why, pc });
        self.events.note_limit();
    }

    fn on_pass_end(&mut self, pass: u64, busy_slots: u32, queue_len: u32) {
        self.profile.on_pass_end(pass, busy_slots, queue_len);
        self.events.pass_end(pass, busy_slots, queue_len);
    }

    fn on_idle(&mut self, from: u64, to: u64) {
        self.profile.on_idle(from, to);
        self.events.at(from);
        self.flush_idle();
        self.pending_idle = self.profile.idle.last().copied();
        self.events.note_limit();
    }
}

/// How a trace written as the run went ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TraceEnd {
    /// The bytes written.
    pub bytes: u64,
    /// The pass in which the size limit was reached (later events are left out).
    pub limited_at: Option<u64>,
}

/// Why [`profile_traced`] failed.
#[derive(Debug)]
pub enum TraceError {
    /// The stream could not be profiled (nothing useful was written).
    Profile(ProfileError),
    /// Writing the trace failed.
    Io(io::Error),
}

impl std::fmt::Display for TraceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TraceError::Profile(e) => write!(f, "{e}"),
            TraceError::Io(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for TraceError {}

/// Profiles `upload` like [`super::profile`] and writes its trace to `out`
/// while it runs, at most about `limit` bytes (see the module header).
pub fn profile_traced<W: Write>(
    upload: &[u8],
    params: &Params,
    dispatch: Dispatch,
    out: W,
    limit: u64,
) -> Result<(Run, TraceEnd), TraceError> {
    if params.turn_budget == 0 {
        return Err(TraceError::Profile(ProfileError::ZeroBudget));
    }
    let mut events = Events::new(out, params.turn_budget, limit, "kmst stream");
    events.thread_name(TID_TURNS, "stream turns");
    let mut obs = TraceObserver {
        profile: ProfileObserver::new(false),
        events,
        pending_idle: None,
    };
    let result = simulate_observed(upload, params, dispatch, &mut obs);
    if let Some(e) = result.check {
        return Err(TraceError::Profile(ProfileError::Rejected(e)));
    }
    let profile = Profile::build(upload, &result, &obs.profile, dispatch);
    let active_until = profile.stream_end_pass.unwrap_or(u64::MAX);
    if let Some(r) = obs.pending_idle.take() {
        obs.events.idle(&r, active_until);
        obs.events.note_limit();
    }
    let run_observer = obs.profile;
    // The slot slices come last; the limit may stop them too (then the
    // trace is cut at the end of the run).
    let end = obs
        .events
        .finish(&run_observer, &result, &profile)
        .map_err(TraceError::Io)?;
    Ok((
        Run {
            result,
            observer: run_observer,
            profile,
        },
        end,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::answers::Source;

    fn sorted_events(bytes: &[u8]) -> (Vec<String>, Value) {
        let v: Value = serde_json::from_slice(bytes).expect("the trace is JSON");
        let mut evs: Vec<String> = v["traceEvents"]
            .as_array()
            .unwrap()
            .iter()
            .map(Value::to_string)
            .collect();
        evs.sort();
        (evs, v["otherData"].clone())
    }

    /// Every corpus stream: the trace written as the run goes holds the same
    /// events as the one written from the kept timeline afterwards.
    #[test]
    fn written_as_it_goes_is_the_same_trace() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/streams");
        let mut traced = 0;
        for name in crate::corpus::stream_names(&dir).unwrap() {
            let text = std::fs::read_to_string(dir.join(format!("{name}.kms"))).unwrap();
            let source = Source::parse(&name, &text).unwrap();
            let (Ok(params), Ok(upload)) = (source.params(), source.assemble()) else {
                continue;
            };
            if params.validate().is_err() {
                continue;
            }
            let Ok(run) = super::super::profile(&upload, &params, Dispatch::Tail, true) else {
                continue;
            };
            let mut whole = Vec::new();
            write(&run, &mut whole).unwrap();
            let mut live = Vec::new();
            let (run2, end) =
                profile_traced(&upload, &params, Dispatch::Tail, &mut live, u64::MAX).unwrap();
            assert_eq!(end.limited_at, None);
            assert_eq!(end.bytes, live.len() as u64);
            assert_eq!(run2.result, run.result, "{name}");
            assert_eq!(sorted_events(&live), sorted_events(&whole), "{name}");
            traced += 1;
        }
        assert!(traced > 100, "only {traced} streams traced");
    }

    #[test]
    fn a_limited_trace_is_valid_json_and_says_where_it_stopped() {
        // `top: jmp top` with budget 1 runs one micro-op per pass for all
        // 1,000 passes: 1,000 turn slices, far more than 4 KiB.
        let upload =
            kmst::asm::assemble(".stream max_steps=100000 seed=1\ntop: jmp top\n").unwrap();
        let params = Params {
            max_passes: 1_000,
            turn_budget: 1,
            ..Params::default()
        };
        let mut out = Vec::new();
        let (_, end) = profile_traced(&upload, &params, Dispatch::Tail, &mut out, 4096).unwrap();
        assert!(out.len() <= 4096, "{} bytes", out.len());
        assert_eq!(end.bytes, out.len() as u64);
        let pass = end.limited_at.expect("the limit was reached");
        assert!(pass > 0 && pass < 1_000, "{pass}");
        let v: Value = serde_json::from_slice(&out).expect("still JSON");
        let turns = v["traceEvents"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["tid"] == 1 && e["ph"] == "X")
            .count() as u64;
        // A turn per pass up to the one that did not fit.
        assert_eq!(turns, pass);
        assert!(
            v["otherData"]["truncated"]
                .as_str()
                .unwrap()
                .contains(&format!("in pass {pass}"))
        );
    }
}

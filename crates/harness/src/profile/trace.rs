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

use std::io::{self, Write};

use serde_json::{Value, json};

use super::Run;

const PID: u64 = 1;
const TID_TURNS: u64 = 1;
const TID_IDLE: u64 = 2;
const TID_SLOT0: u64 = 100;

/// Writes `events` as one trace file.
struct Writer<W: Write> {
    out: W,
    first: bool,
}

impl<W: Write> Writer<W> {
    fn event(&mut self, v: &Value) -> io::Result<()> {
        if !self.first {
            self.out.write_all(b",\n")?;
        }
        self.first = false;
        serde_json::to_writer(&mut self.out, v)?;
        Ok(())
    }
}

fn thread_name(tid: u64, name: &str) -> [Value; 2] {
    [
        json!({"ph": "M", "pid": PID, "tid": tid, "ts": 0, "name": "thread_name",
               "args": {"name": name}}),
        json!({"ph": "M", "pid": PID, "tid": tid, "ts": 0, "name": "thread_sort_index",
               "args": {"sort_index": tid}}),
    ]
}

/// Writes the trace of `run` (profiled with `timeline` on) to `out`.
pub fn write<W: Write>(run: &Run, out: W) -> io::Result<()> {
    let obs = &run.observer;
    let p = &run.profile;
    let budget = f64::from(p.turn_budget.max(1));
    let mut w = Writer { out, first: true };
    w.out.write_all(b"{\"otherData\": ")?;
    serde_json::to_writer(
        &mut w.out,
        &json!({"time axis": "1 pass = 1 us of ts", "dispatch": p.dispatch,
                "turn_budget": p.turn_budget, "status": p.status, "passes": p.passes}),
    )?;
    w.out.write_all(b",\n\"traceEvents\": [\n")?;

    w.event(
        &json!({"ph": "M", "pid": PID, "tid": 0, "ts": 0, "name": "process_name",
                    "args": {"name": "kmst stream"}}),
    )?;
    for v in thread_name(TID_TURNS, "stream turns") {
        w.event(&v)?;
    }
    if !obs.idle.is_empty() {
        for v in thread_name(TID_IDLE, "idle passes (skipped)") {
            w.event(&v)?;
        }
    }
    let mut used = [false; kmst::format::SLOTS];
    for s in &obs.spans {
        used[usize::from(s.slot) % used.len()] = true;
    }
    for (slot, _) in used.iter().enumerate().filter(|(_, u)| **u) {
        for v in thread_name(TID_SLOT0 + slot as u64, &format!("slot {slot}")) {
            w.event(&v)?;
        }
    }

    for t in &obs.turns {
        w.event(&json!({
            "ph": "X", "pid": PID, "tid": TID_TURNS, "ts": t.pass,
            "dur": f64::from(t.ops) / budget, "name": t.why.name(),
            "args": {"pass": t.pass, "micro_ops": t.ops, "pc": t.pc},
        }))?;
    }
    let active_until = p.stream_end_pass.unwrap_or(u64::MAX);
    for r in &obs.idle {
        let to = r.to.min(active_until);
        let Some(t) = r.after.filter(|t| t.why.is_wait()) else {
            continue;
        };
        if to <= r.from {
            continue;
        }
        w.event(&json!({
            "ph": "X", "pid": PID, "tid": TID_IDLE, "ts": r.from, "dur": to - r.from,
            "name": format!("skipped: {}", t.why.name()),
            "args": {"from": r.from, "to": to, "pc": t.pc},
        }))?;
    }
    let end = obs.pass_end;
    for s in &obs.spans {
        let command = run
            .result
            .commands
            .get(s.seq as usize)
            .filter(|c| c.sequence == s.seq)
            .or_else(|| run.result.commands.iter().find(|c| c.sequence == s.seq));
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
        let (stop, name) = match s.ack {
            Some(a) => (a, name),
            None => (
                end.max(s.submit + 1),
                format!("{name} (never acknowledged)"),
            ),
        };
        w.event(&json!({
            "ph": "X", "pid": PID, "tid": TID_SLOT0 + u64::from(s.slot), "ts": s.submit,
            "dur": stop.saturating_sub(s.submit).max(1), "name": name, "args": args,
        }))?;
    }
    let mut last: Option<(u32, u32)> = None;
    for s in &obs.samples {
        if last != Some((s.busy_slots, s.queue_len)) {
            w.event(&json!({"ph": "C", "pid": PID, "tid": 0, "ts": s.pass,
                            "name": "queue depth", "args": {"jobs": s.queue_len}}))?;
            w.event(&json!({"ph": "C", "pid": PID, "tid": 0, "ts": s.pass,
                            "name": "busy slots", "args": {"slots": s.busy_slots}}))?;
            last = Some((s.busy_slots, s.queue_len));
        }
    }
    w.out.write_all(b"\n]}\n")?;
    w.out.flush()
}

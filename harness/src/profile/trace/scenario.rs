//! The trace of a kernel scenario, written as the run goes.
//!
//! Same time axis as a stream's (one pass is one microsecond of `ts`), same
//! writer and size limit. Tracks (process "kmst scenario"):
//!
//! - `tid` 1, "host commands": a slice per host command from the pass it is
//!   sent in to the pass it was taken or rejected in (0 long when at once),
//!   named by its kind and outcome (`run: stream 2`, `cancel rejected (10)`,
//!   `submit waiting`); written at the end, from the answer. Commands that
//!   wait at the same time are not nested (one did not run inside another):
//!   each goes on the first lane free at its sent pass, `tid` 1 and then
//!   `tid` [`TID_HOST_LANE1`] + k, "host commands (lane k + 2)" ([`lanes`]);
//! - `tid` 1000 + i, "stream i (req R)": stream i's turns (named by why they
//!   ended, `dur = micro-ops / turn_budget`) and the idle passes the kernel
//!   skipped while it waited (`skipped: <why>`);
//! - `tid` 100 + s, "slot s": a slice per command in slot s from submit to
//!   acknowledgement, named by its source, `stream i` or `host`;
//! - counters "queue depth" and "busy slots" at the end of each pass where
//!   they changed.

use std::io::Write;

use kmst::exec::{Dispatch, Observer, TurnEnd, simulate_scenario_observed};
use kmst_reference::{HostCommand, Outcome, Scenario, ScenarioResult};
use serde_json::json;

use super::{Events, PID, TraceEnd, TraceError};
use crate::profile::ProfileError;
use crate::profile::scenario::{
    ScenarioObserver, ScenarioProfile, ScenarioRun, source_name, source_of,
};

const TID_HOST: u64 = 1;
/// The second lane of host commands, and those after it.
const TID_HOST_LANE1: u64 = 2_000_000;
const TID_STREAM0: u64 = 1000;

/// The scenario's profiling observer that also writes the trace as the run goes.
pub struct ScenarioTraceObserver<W: Write> {
    /// The counters of the report.
    pub profile: ScenarioObserver,
    events: Events<W>,
    named: Vec<bool>,
}

impl<W: Write> ScenarioTraceObserver<W> {
    fn stream_track(&mut self, i: usize) -> u64 {
        if self.named.len() <= i {
            self.named.resize(i + 1, false);
        }
        let tid = TID_STREAM0 + i as u64;
        if !self.named[i] {
            self.named[i] = true;
            self.events
                .event(&json!({"ph": "M", "pid": PID, "tid": tid, "ts": 0,
                                      "name": "thread_name",
                                      "args": {"name": format!("stream {i}")}}));
            self.events
                .event(&json!({"ph": "M", "pid": PID, "tid": tid, "ts": 0,
                                      "name": "thread_sort_index",
                                      "args": {"sort_index": 10 + i as u64}}));
        }
        tid
    }
}

impl<W: Write> Observer for ScenarioTraceObserver<W> {
    fn on_turn_end(&mut self, pass: u64, stream: usize, ops: u32, why: TurnEnd, pc: u32) {
        self.profile.on_turn_end(pass, stream, ops, why, pc);
        self.events.at(pass);
        let tid = self.stream_track(stream);
        let dur = f64::from(ops) / self.events.budget;
        self.events.event(&json!({
            "ph": "X", "pid": PID, "tid": tid, "ts": pass, "dur": dur, "name": why.name(),
            "args": {"pass": pass, "micro_ops": ops, "pc": pc},
        }));
        self.events.note_limit();
    }

    hand_on!(profile: on_submit, on_ack);

    fn on_pass_end(&mut self, pass: u64, busy_slots: u32, queue_len: u32) {
        self.profile.on_pass_end(pass, busy_slots, queue_len);
        self.events.pass_end(pass, busy_slots, queue_len);
    }

    fn on_idle(&mut self, from: u64, to: u64) {
        let waiting: Vec<_> = self.profile.waiting_at(from).collect();
        self.events.at(from);
        for (i, t) in waiting {
            let tid = self.stream_track(i);
            self.events.event(&json!({
                "ph": "X", "pid": PID, "tid": tid, "ts": from, "dur": to - from,
                "name": format!("skipped: {}", t.why.name()),
                "args": {"from": from, "to": to, "pc": t.pc},
            }));
        }
        self.profile.on_idle(from, to);
        self.events.note_limit();
    }
}

/// The lane of each slice `[from, to]` (sorted by `from`, as the host's
/// entries are): the first lane whose last slice ended before `from`, so
/// that no two slices of a lane overlap or touch, and a slice of 0 passes
/// never sits inside another.
fn lanes(spans: &[(u64, u64)]) -> Vec<usize> {
    let mut ends: Vec<u64> = Vec::new();
    spans
        .iter()
        .map(
            |&(from, to)| match ends.iter().position(|&end| end < from) {
                Some(k) => {
                    ends[k] = to;
                    k
                }
                None => {
                    ends.push(to);
                    ends.len() - 1
                }
            },
        )
        .collect()
}

fn host_tid(lane: usize) -> u64 {
    match lane {
        0 => TID_HOST,
        k => TID_HOST_LANE1 + k as u64 - 1,
    }
}

/// A host command's slice name: its kind and what became of it.
fn host_name(command: &HostCommand, outcome: Outcome, stream: Option<usize>) -> String {
    let kind = command.kind();
    match (outcome, stream) {
        (Outcome::Taken, Some(i)) => format!("{kind}: stream {i}"),
        (Outcome::Taken, None) => format!("{kind} taken"),
        (Outcome::Rejected(r), _) => format!("{kind} rejected ({})", r.number()),
        (Outcome::Waiting, _) => format!("{kind} waiting"),
    }
}

impl<W: Write> Events<W> {
    /// The host commands, the slot slices, the summary and the close.
    fn finish_scenario(
        mut self,
        scenario: &Scenario,
        obs: &ScenarioObserver,
        result: &ScenarioResult,
        p: &ScenarioProfile,
    ) -> std::io::Result<TraceEnd> {
        let end = obs.kernel.pass_end;
        let spans: Vec<(u64, u64)> = scenario
            .host()
            .iter()
            .zip(&result.host)
            .map(|(entry, out)| (entry.pass, out.pass.unwrap_or(end.max(entry.pass))))
            .collect();
        let lane_of = lanes(&spans);
        for k in 0..lane_of.iter().copied().max().map_or(0, |m| m + 1) {
            let name = match k {
                0 => "host commands".to_owned(),
                k => format!("host commands (lane {})", k + 1),
            };
            let tid = host_tid(k);
            self.event(
                &json!({"ph": "M", "pid": PID, "tid": tid, "ts": 0, "name": "thread_name",
                               "args": {"name": name}}),
            );
            // Together, above the streams (sort index 10 + i).
            self.event(&json!({"ph": "M", "pid": PID, "tid": tid, "ts": 0,
                               "name": "thread_sort_index", "args": {"sort_index": 1}}));
        }
        for (j, ((entry, out), &(_, stop))) in scenario
            .host()
            .iter()
            .zip(&result.host)
            .zip(&spans)
            .enumerate()
        {
            self.event(&json!({
                "ph": "X", "pid": PID, "tid": host_tid(lane_of[j]), "ts": entry.pass,
                "dur": stop.saturating_sub(entry.pass),
                "name": host_name(&entry.command, out.outcome, out.stream),
                "args": {"host": j, "command": format!("{:?}", entry.command),
                         "sent_pass": entry.pass, "pass": out.pass},
            }));
        }
        for s in &obs.kernel.spans {
            let command = result
                .commands
                .iter()
                .find(|c| c.command.sequence == s.seq)
                .map(|c| c.command);
            let name = match source_of(result, s.seq) {
                Some(source) => source_name(source),
                None => format!("seq {}", s.seq),
            };
            let args = match command {
                Some(c) => json!({"sequence": c.sequence, "handler": c.handler,
                                  "group": format!("[{}, {})", c.first, c.first + c.count),
                                  "pc": c.pc, "queued": c.queued,
                                  "submit_pass": s.submit, "ack_pass": s.ack}),
                None => json!({"sequence": s.seq, "submit_pass": s.submit, "ack_pass": s.ack}),
            };
            self.slot_span(s, name, args, end);
        }
        let other = json!({"time axis": "1 pass = 1 us of ts", "dispatch": p.dispatch,
                           "turn_budget": p.turn_budget, "streams": p.streams.len(),
                           "stopped": p.stopped, "passes": p.passes});
        self.close(other, end)
    }
}

/// Profiles `scenario` on `dispatch` and writes its trace to `out` while it
/// runs, at most about `limit` bytes.
pub fn profile_scenario_traced<W: Write>(
    scenario: &Scenario,
    dispatch: Dispatch,
    out: W,
    limit: u64,
) -> Result<(ScenarioRun, TraceEnd), TraceError> {
    let budget = scenario.params().turn_budget;
    if budget == 0 {
        return Err(TraceError::Profile(ProfileError::ZeroBudget));
    }
    let mut obs = ScenarioTraceObserver {
        profile: ScenarioObserver::default(),
        events: Events::new(out, budget, limit, "kmst scenario"),
        named: Vec::new(),
    };
    let result = simulate_scenario_observed(scenario, dispatch, &mut obs);
    let profile = ScenarioProfile::build(scenario, &result, &obs.profile, dispatch);
    let observer = obs.profile;
    let end = obs
        .events
        .finish_scenario(scenario, &observer, &result, &profile)
        .map_err(TraceError::Io)?;
    Ok((
        ScenarioRun {
            result,
            observer,
            profile,
        },
        end,
    ))
}

#[cfg(test)]
mod tests {
    use super::lanes;

    #[test]
    fn commands_waiting_together_take_separate_lanes() {
        // [1, 4] and [1, 4] wait together: two lanes. [4, 6] starts in the
        // pass both end: a third. [5, 5] finds the first lane free (its
        // last slice ended in pass 4), and so does [7, 7].
        assert_eq!(
            lanes(&[(0, 0), (1, 4), (1, 4), (4, 6), (5, 5), (7, 7)]),
            [0, 0, 1, 2, 0, 0]
        );
        // Two at once in the same pass, 0 long: one inside the other on a
        // track, so two lanes.
        assert_eq!(lanes(&[(3, 3), (3, 3)]), [0, 1]);
        assert_eq!(lanes(&[]), Vec::<usize>::new());
    }
}

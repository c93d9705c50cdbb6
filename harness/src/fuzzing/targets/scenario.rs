//! Target `scenario`: does every fast dispatch variant run a whole-kernel
//! scenario (S26..S36: several streams, RUN rejections, the host's
//! commands) exactly as the reference model does?
//!
//! Input: `arbitrary::Unstructured` bytes for the scenario generator
//! ([`crate::fuzzing::scenario::arbitrary_scenario`]: 1..4 uploads from the
//! structured generators and bytes the check rejects, up to six RUNs at
//! passes of their own, CANCEL, DEADLINE, host submit and enqueue), with
//! `max_passes` cut to [`MAX_SCENARIO_PASSES`]. Every fast variant runs it,
//! and one of them also with the profiler's observer; each answer
//! ([`ScenarioResult`], every field) must be the reference's.

use arbitrary::Unstructured;

use crate::answers::{counted, first_difference};
use crate::fuzzing::divergence::{Divergence, caught};
use crate::fuzzing::scenario::arbitrary_scenario;
use crate::profile::ProfileObserver;
use kmst::exec::{Dispatch, simulate_scenario, simulate_scenario_observed};
use kmst_reference::{Scenario, ScenarioResult};

use super::agreement::{Agreement, Target, divergence};

/// The most passes a `scenario` run takes (the reference simulates every
/// pass, so a long stuck run costs as much as many short ones).
pub const MAX_SCENARIO_PASSES: u64 = 200;

/// The scenario a `scenario` input stands for.
pub fn scenario_of(input: &[u8]) -> Option<Scenario> {
    let scenario = arbitrary_scenario(&mut Unstructured::new(input)).ok()?;
    let mut params = scenario.params().clone();
    params.max_passes = params.max_passes.min(MAX_SCENARIO_PASSES);
    scenario.with_params(params).ok()
}

fn answer_text(r: &Result<ScenarioResult, String>) -> String {
    match r {
        Ok(r) => format!(
            "{}, {}, {}, passes {}, stopped {}",
            counted(r.streams.len(), "stream", "streams"),
            counted(r.commands.len(), "command", "commands"),
            counted(r.events.len(), "event", "events"),
            r.passes,
            r.stopped
        ),
        Err(panic) => panic.clone(),
    }
}

pub(super) fn scenario(input: &[u8]) -> Result<Agreement, Divergence> {
    let Some(scenario) = scenario_of(input) else {
        return Ok(Agreement::Skipped);
    };
    let want = caught(|| kmst_reference::simulate_scenario(&scenario));
    let observed = Dispatch::ALL[input.len() % Dispatch::ALL.len()];
    // The `jit` variant on one input in JIT_SHARE (sim.rs).
    let jit = super::sim::runs_jit(Target::Scenario, super::sim::input_hash(input));
    let mut runs: Vec<(String, Result<ScenarioResult, String>)> = Dispatch::ALL
        .iter()
        .filter(|d| jit || !super::sim::is_jit(d.name()))
        .map(|&d| {
            (
                d.name().to_owned(),
                caught(|| simulate_scenario(&scenario, d)),
            )
        })
        .collect();
    runs.push((
        format!("{}+observer", observed.name()),
        caught(|| {
            simulate_scenario_observed(&scenario, observed, &mut ProfileObserver::new(false))
        }),
    ));
    let differing: Vec<&(String, Result<ScenarioResult, String>)> =
        runs.iter().filter(|(_, r)| *r != want).collect();
    if differing.is_empty() {
        return match want {
            Ok(r) => Ok(Agreement::Scenario {
                streams: r.streams.len(),
                commands: r.commands.len(),
                events: r.events.len(),
                passes: r.passes,
                stopped: r.stopped,
            }),
            // Every implementation panicked alike: the reference model's
            // panic is a finding of its own.
            Err(panic) => Err(divergence(
                Target::Scenario,
                "the reference model panicked".into(),
                format!("{panic}\nscenario: {scenario:?}\n"),
            )),
        };
    }
    let mut body = format!(
        "scenario: {scenario:?}\nreference: {}\n",
        answer_text(&want)
    );
    for (name, got) in &differing {
        body.push_str(&format!("{name}: {}\n", answer_text(got)));
        if let (Ok(w), Ok(g)) = (&want, got)
            && let (Ok(w), Ok(g)) = (w.to_json_value(), g.to_json_value())
            && let Some(d) = first_difference(&w, &g)
        {
            body.push_str(&format!("  first difference, reference vs {name}: {d}\n"));
        }
    }
    let names: Vec<&str> = differing.iter().map(|(n, _)| n.as_str()).collect();
    Err(divergence(
        Target::Scenario,
        format!("{} differ(s) from the reference", names.join(", ")),
        body,
    ))
}

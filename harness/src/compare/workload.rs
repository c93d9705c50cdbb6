//! The workloads of `kmst compare` (bundled, `.kms` sources or scenario
//! files), the agreement check against the reference model, and micro-op
//! counting.
//!
//! A workload is one stream (an upload and its parameters) or a whole
//! kernel scenario (S26..S36: several streams and the host); both are
//! checked, counted and timed the same way.

use std::fmt;
use std::path::Path;

use kmst::exec::{Dispatch, Observer, TurnEnd, simulate_observed, simulate_scenario_observed};
use kmst_reference::{Params, Scenario, ScenarioResult};

use crate::answers::{
    Difference, DifferentialOracle, Implementation, Source, first_difference, run_difference,
};

/// The bundled workloads: name and `.kms` source, in the order they are reported.
pub const BUNDLED: [(&str, &str); 9] = [
    ("alu", include_str!("../../workloads/alu.kms")),
    ("alu_chain", include_str!("../../workloads/alu_chain.kms")),
    ("rand_mod", include_str!("../../workloads/rand_mod.kms")),
    ("branchy", include_str!("../../workloads/branchy.kms")),
    (
        "submit_heavy",
        include_str!("../../workloads/submit_heavy.kms"),
    ),
    (
        "queue_stress",
        include_str!("../../workloads/queue_stress.kms"),
    ),
    ("jobs_1000", include_str!("../../workloads/jobs_1000.kms")),
    ("long_wait", include_str!("../../workloads/long_wait.kms")),
    (
        "long_wait_1",
        include_str!("../../workloads/long_wait_1.kms"),
    ),
];

/// A bundled scenario workload: its name, what it exercises, the scenario
/// file (S36) and the `.kms` files it names.
pub struct BundledScenario {
    pub name: &'static str,
    pub notes: &'static str,
    pub json: &'static str,
    pub files: &'static [(&'static str, &'static str)],
}

/// The bundled multi-stream workloads, reported after [`BUNDLED`].
pub const BUNDLED_SCENARIOS: [BundledScenario; 2] = [
    BundledScenario {
        name: "four_streams",
        notes: "four streams submitting with results compete for the 16 slots beside 64 host-queued jobs; delays cycle 1..4",
        json: include_str!("../../workloads/four_streams.json"),
        files: &[
            (
                "four_streams_1.kms",
                include_str!("../../workloads/four_streams_1.kms"),
            ),
            (
                "four_streams_2.kms",
                include_str!("../../workloads/four_streams_2.kms"),
            ),
            (
                "four_streams_3.kms",
                include_str!("../../workloads/four_streams_3.kms"),
            ),
            (
                "four_streams_4.kms",
                include_str!("../../workloads/four_streams_4.kms"),
            ),
        ],
    },
    BundledScenario {
        name: "host_mix",
        notes: "host traffic: 25 rounds of RUN, a rejected RUN, host submits and enqueues, CANCEL, a rejected CANCEL, DEADLINE",
        json: include_str!("../../workloads/host_mix.json"),
        files: &[
            (
                "host_mix_spin.kms",
                include_str!("../../workloads/host_mix_spin.kms"),
            ),
            (
                "host_mix_worker.kms",
                include_str!("../../workloads/host_mix_worker.kms"),
            ),
        ],
    },
];

/// One benchmark: a stream (its upload and the parameters it runs with) or
/// a kernel scenario.
#[derive(Clone, Debug)]
pub struct Workload {
    pub name: String,
    /// The `;@ notes` of its source: what it exercises.
    pub notes: String,
    /// The stream's upload (empty for a scenario).
    pub upload: Vec<u8>,
    /// The stream's parameters, or the scenario's.
    pub params: Params,
    /// When set, the workload is this scenario, not a stream (boxed: a
    /// stream workload stays small).
    pub scenario: Option<Box<Scenario>>,
}

/// Why compare could not run or found the variants disagreeing.
#[derive(Debug)]
pub enum CompareError {
    /// A workload source's directives, parameters or assembly are bad.
    Workload { name: String, message: String },
    /// A variant's answer differs from the reference model's.
    Disagreement {
        workload: String,
        variant: Implementation,
        difference: Difference,
    },
    /// A requested dispatch variant is the reference model or not built in.
    Variant(String),
}

impl fmt::Display for CompareError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CompareError::Workload { name, message } => write!(f, "workload {name}: {message}"),
            CompareError::Disagreement {
                workload,
                variant,
                difference,
            } => write!(
                f,
                "workload {workload}: {variant} disagrees with the reference model at {difference}"
            ),
            CompareError::Variant(message) => write!(f, "{message}"),
        }
    }
}

impl std::error::Error for CompareError {}

impl Workload {
    /// A workload from a `.kms` source whose `;@ params` give its parameters.
    pub fn from_source(name: &str, source: &str) -> Result<Workload, CompareError> {
        let bad = |message: String| CompareError::Workload {
            name: name.to_owned(),
            message,
        };
        let source = Source::parse(name, source).map_err(|e| bad(e.to_string()))?;
        let params = source.params().map_err(|e| bad(e.to_string()))?;
        let upload = source.assemble().map_err(|e| bad(e.to_string()))?;
        Ok(Workload {
            name: name.to_owned(),
            notes: source.directives.notes,
            upload,
            params,
            scenario: None,
        })
    }

    /// A workload that runs `scenario`.
    pub fn from_scenario(name: &str, notes: &str, scenario: Scenario) -> Workload {
        Workload {
            name: name.to_owned(),
            notes: notes.to_owned(),
            upload: Vec::new(),
            params: scenario.params().clone(),
            scenario: Some(Box::new(scenario)),
        }
    }

    /// A bundled scenario, its files taken from the binary.
    pub fn from_bundled(b: &BundledScenario) -> Result<Workload, CompareError> {
        let path = Path::new("corpus/bench").join(format!("{}.json", b.name));
        let scenario = kmst::scenario::from_json_with(b.json, &path, &mut |p: &Path| {
            let file = p.file_name().and_then(|f| f.to_str()).unwrap_or("");
            b.files
                .iter()
                .find(|(name, _)| *name == file)
                .map(|(_, text)| text.as_bytes().to_vec())
                .ok_or_else(|| format!("no bundled file `{file}`"))
        })
        .map_err(|e| CompareError::Workload {
            name: b.name.to_owned(),
            message: e.to_string(),
        })?;
        Ok(Workload::from_scenario(b.name, b.notes, scenario))
    }

    /// Runs the workload once with `v` (what the timing repeats).
    pub fn run_once(&self, v: Implementation) -> u64 {
        match &self.scenario {
            None => {
                v.simulate(std::hint::black_box(&self.upload), &self.params)
                    .passes
            }
            Some(s) => simulate_scenario(std::hint::black_box(s), v).passes,
        }
    }
}

/// A scenario's answer from `v`.
pub fn simulate_scenario(scenario: &Scenario, v: Implementation) -> ScenarioResult {
    match v {
        Implementation::Reference => kmst_reference::simulate_scenario(scenario),
        Implementation::Fast(d) => kmst::exec::simulate_scenario(scenario, d),
    }
}

/// The bundled workloads: the streams ([`BUNDLED`]), assembled, then the
/// scenarios ([`BUNDLED_SCENARIOS`]).
pub fn bundled() -> Result<Vec<Workload>, CompareError> {
    let streams = BUNDLED
        .iter()
        .map(|(name, source)| Workload::from_source(name, source));
    let scenarios = BUNDLED_SCENARIOS.iter().map(Workload::from_bundled);
    streams.chain(scenarios).collect()
}

/// The names of the bundled workloads, in report order.
pub fn bundled_names() -> Vec<&'static str> {
    BUNDLED
        .iter()
        .map(|(n, _)| *n)
        .chain(BUNDLED_SCENARIOS.iter().map(|b| b.name))
        .collect()
}

/// The first difference between two scenario answers, as JSON (S36).
fn scenario_difference(want: &ScenarioResult, got: &ScenarioResult) -> Option<Difference> {
    if want == got {
        return None;
    }
    let d = match (want.to_json_value(), got.to_json_value()) {
        (Ok(w), Ok(g)) => first_difference(&w, &g),
        _ => None,
    };
    Some(d.unwrap_or_else(|| Difference {
        field: "answer".into(),
        expected: format!("{want:?}"),
        got: format!("{got:?}"),
    }))
}

// ---------------------------------------------------------------------------
// Agreement and counting.

/// Runs `workload` once with every variant and checks each answer against the
/// reference model's; returns the reference answer's `passes`.
pub fn check_agreement(
    workload: &Workload,
    variants: &[Implementation],
) -> Result<u64, CompareError> {
    let disagree = |variant, difference| CompareError::Disagreement {
        workload: workload.name.clone(),
        variant,
        difference,
    };
    let fast = variants.iter().filter(|&&v| v != Implementation::Reference);
    if let Some(scenario) = &workload.scenario {
        let reference = kmst_reference::simulate_scenario(scenario);
        for &v in fast {
            let got = simulate_scenario(scenario, v);
            if let Some(difference) = scenario_difference(&reference, &got) {
                return Err(disagree(v, difference));
            }
        }
        return Ok(reference.passes);
    }
    let reference = Implementation::Reference.simulate(&workload.upload, &workload.params);
    for &v in fast {
        let got = v.simulate(&workload.upload, &workload.params);
        if let Some((difference, _)) = run_difference(&reference, &got) {
            return Err(disagree(v, difference));
        }
    }
    Ok(reference.passes)
}

/// Counts micro-ops from the turn reports (a micro-op that waits does not count, S17).
#[derive(Clone, Copy, Debug, Default)]
pub struct OpCounter {
    pub ops: u64,
    pub turns: u64,
}

impl Observer for OpCounter {
    fn on_turn_end(&mut self, _pass: u64, _stream: usize, ops: u32, _why: TurnEnd, _pc: u32) {
        self.ops += u64::from(ops);
        self.turns += 1;
    }
}

/// Micro-ops `workload` executes, counted in an untimed run of the default
/// fast variant.
pub fn count_ops(workload: &Workload) -> u64 {
    let mut counter = OpCounter::default();
    if let Some(scenario) = &workload.scenario {
        simulate_scenario_observed(scenario, Dispatch::Tail, &mut counter);
        return counter.ops;
    }
    simulate_observed(
        &workload.upload,
        &workload.params,
        Dispatch::Tail,
        &mut counter,
    );
    counter.ops
}

//! The workloads of `kmst compare` (bundled or from `.kms` sources), the
//! agreement check against the reference model, and micro-op counting.

use std::fmt;

use kmst::exec::{Dispatch, Observer, TurnEnd, simulate_observed};
use kmst::reference::{Params, SimResult};

use crate::answers::{Difference, DifferentialOracle, Implementation, Source, run_difference};

/// The bundled workloads: name and `.kms` source, in the order they are reported.
pub const BUNDLED: [(&str, &str); 9] = [
    ("alu", include_str!("../../../../corpus/bench/alu.kms")),
    (
        "alu_chain",
        include_str!("../../../../corpus/bench/alu_chain.kms"),
    ),
    (
        "rand_mod",
        include_str!("../../../../corpus/bench/rand_mod.kms"),
    ),
    (
        "branchy",
        include_str!("../../../../corpus/bench/branchy.kms"),
    ),
    (
        "submit_heavy",
        include_str!("../../../../corpus/bench/submit_heavy.kms"),
    ),
    (
        "queue_stress",
        include_str!("../../../../corpus/bench/queue_stress.kms"),
    ),
    (
        "jobs_1000",
        include_str!("../../../../corpus/streams/jobs_1000.kms"),
    ),
    (
        "long_wait",
        include_str!("../../../../corpus/bench/long_wait.kms"),
    ),
    (
        "long_wait_1",
        include_str!("../../../../corpus/bench/long_wait_1.kms"),
    ),
];

/// One benchmark stream: its upload and the parameters it runs with.
#[derive(Clone, Debug)]
pub struct Workload {
    pub name: String,
    /// The `;@ notes` of its source: what it exercises.
    pub notes: String,
    pub upload: Vec<u8>,
    pub params: Params,
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
        })
    }
}

/// The bundled workloads ([`BUNDLED`]), assembled.
pub fn bundled() -> Result<Vec<Workload>, CompareError> {
    BUNDLED
        .iter()
        .map(|(name, source)| Workload::from_source(name, source))
        .collect()
}

// ---------------------------------------------------------------------------
// Agreement and counting.

/// Runs `workload` once with every variant and checks each answer against the
/// reference model's; returns the reference answer.
pub fn check_agreement(
    workload: &Workload,
    variants: &[Implementation],
) -> Result<SimResult, CompareError> {
    let reference = Implementation::Reference.simulate(&workload.upload, &workload.params);
    for &v in variants.iter().filter(|&&v| v != Implementation::Reference) {
        let got = v.simulate(&workload.upload, &workload.params);
        if let Some((difference, _)) = run_difference(&reference, &got) {
            return Err(CompareError::Disagreement {
                workload: workload.name.clone(),
                variant: v,
                difference,
            });
        }
    }
    Ok(reference)
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
    simulate_observed(
        &workload.upload,
        &workload.params,
        Dispatch::Tail,
        &mut counter,
    );
    counter.ops
}

//! Target `sim_structured`: does every fast dispatch variant run the
//! generator's valid uploads exactly as the reference model does?
//!
//! Input: `arbitrary::Unstructured` bytes for the generator
//! ([`crate::fuzzing::case`]), whose `max_passes` is cut to
//! [`MAX_STRUCTURED_PASSES`]; the comparison is [`super::sim::sim_all`] (every implementation, and one variant observed).

use arbitrary::Unstructured;

use crate::fuzzing::divergence::Divergence;
use crate::fuzzing::generate::{self, Case};

use super::agreement::{Agreement, Target};
use super::sim::sim_all;

/// The most passes a `sim_structured` run takes: the generator asks for up
/// to 2,000, and a run stuck that long (jobs that never fit, scanned by the
/// reference's allocator every pass) costs a hundred ordinary cases.
pub const MAX_STRUCTURED_PASSES: u64 = 64;

/// The case a `sim_structured` input stands for: the generator's
/// ([`crate::fuzzing::case`]) with `max_passes` at most [`MAX_STRUCTURED_PASSES`].
pub fn structured_case(input: &[u8]) -> Option<Case> {
    let mut case = generate::case(&mut Unstructured::new(input)).ok()?;
    case.params.max_passes = case.params.max_passes.min(MAX_STRUCTURED_PASSES);
    Some(case)
}

pub(super) fn sim_structured(input: &[u8]) -> Result<Agreement, Divergence> {
    let Some(case) = structured_case(input) else {
        return Ok(Agreement::Skipped);
    };
    sim_all(Target::SimStructured, &case.upload, &case.params)
}

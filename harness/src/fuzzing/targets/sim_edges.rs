//! Target `sim_edges`: does every fast dispatch variant, the compiled tier
//! among them, end each turn and each run on the micro-op the reference
//! model ends it on, where blocks and turn budgets meet?
//!
//! Input: `arbitrary::Unstructured` bytes for the block-edge generator
//! ([`crate::fuzzing::edges::edges_case`]); the comparison is
//! [`super::sim::sim_all`] (every implementation, and one variant observed).

use arbitrary::Unstructured;

use crate::fuzzing::divergence::Divergence;
use crate::fuzzing::generate::Case;

use super::agreement::{Agreement, Target};
use super::sim::sim_all;

/// The case a `sim_edges` input stands for.
pub fn edges_input(input: &[u8]) -> Option<Case> {
    crate::fuzzing::edges::edges_case(&mut Unstructured::new(input)).ok()
}

pub(super) fn sim_edges(input: &[u8]) -> Result<Agreement, Divergence> {
    let Some(case) = edges_input(input) else {
        return Ok(Agreement::Skipped);
    };
    sim_all(Target::SimEdges, &case.upload, &case.params)
}

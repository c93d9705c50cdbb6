//! Target `sim_raw`: does every fast dispatch variant run raw, possibly
//! malformed upload bytes exactly as the reference model does?
//!
//! Input: a [`SimPrefix`] (every parameter of S23..S25, always valid) and raw
//! upload bytes; the comparison is [`super::sim::sim_all`] (every implementation, and one variant observed) (for a rejected
//! upload, the P1 answer).

use crate::fuzzing::divergence::Divergence;
use crate::fuzzing::input::SimPrefix;

use super::agreement::{Agreement, Target};
use super::sim::sim_all;

pub(super) fn sim_raw(input: &[u8]) -> Result<Agreement, Divergence> {
    let (prefix, upload) = SimPrefix::split(input);
    let params = prefix.params();
    sim_all(Target::SimRaw, upload, &params)
}

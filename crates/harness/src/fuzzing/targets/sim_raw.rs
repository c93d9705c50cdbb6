//! Target `sim_raw`: does every fast dispatch variant run raw, possibly
//! malformed upload bytes exactly as the reference model does?
//!
//! Input: a [`SimPrefix`] (every parameter of S23..S25, always valid) and raw
//! upload bytes; the comparison is [`super::sim::sim_with`] (for a rejected
//! upload, the P1 answer).

use crate::answers::with_implementations;
use crate::fuzzing::input::SimPrefix;
use crate::fuzzing::report::Divergence;

use super::sim::sim_with;
use super::{Agreement, Target};

pub(super) fn sim_raw(input: &[u8]) -> Result<Agreement, Divergence> {
    let (prefix, upload) = SimPrefix::split(input);
    let params = prefix.params();
    with_implementations(|i| sim_with(Target::SimRaw, upload, &params, i))
}

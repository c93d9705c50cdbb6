//! The pass-by-pass simulator (streams.md "The kernel pass and the job queue", S11..S22).

use crate::params::Params;
use crate::result::SimResult;

/// Runs the check and then the stream as the kernel would.
pub fn simulate(upload: &[u8], params: &Params) -> SimResult {
    let _ = (upload, params);
    todo!("reference simulate")
}

//! The reference checker, written straight from streams.md "The check" and S2..S6.

use crate::result::StreamError;

/// What the kernel does before it runs a stream: `Ok` or the first fault.
pub fn check(data: &[u8], region_size: u64) -> Result<(), StreamError> {
    let _ = (data, region_size);
    todo!("reference check")
}

/// What the kernel answers a `KM_HANDLER_RUN`: the error (if any) and the req of its event (S3, S6).
pub fn check_run(
    data: &[u8],
    offset: u64,
    region_size: u64,
    active: &[(u64, u64)],
    active_reqs: &[u32],
) -> (Option<StreamError>, u32) {
    let _ = (data, offset, region_size, active, active_reqs);
    todo!("reference check_run")
}

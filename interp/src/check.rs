//! The optimized checker: `check` and `check_run` (streams.md "The check", S2..S6).

pub use kmst_reference::StreamError;

/// What the kernel does before it runs a stream: `Ok` or the first fault.
pub fn check(data: &[u8], region_size: u64) -> Result<(), StreamError> {
    let _ = (data, region_size);
    Ok(()) // placeholder until the checker lands
}

//! A cache hint for the answer's records.
//!
//! The records of a run (S19, 72 bytes each) go to the end of a vector that
//! outgrows the core's caches, so each new one is first written to a line
//! the core does not hold. Asking for the line a few records ahead lets the
//! stores find it there, for a few instructions a record (decisions.md
//! D27; the records' `make_room`, kernel/records.rs).

/// Asks for the cache line at `p`, about to be written. Only a hint: `p`
/// need not point at anything, and nothing is read.
#[inline(always)]
pub(crate) fn prefetch<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch reads nothing and faults on no address; SSE, which
    // it needs, is part of the x86_64 baseline.
    unsafe {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        _mm_prefetch::<_MM_HINT_T0>(p.cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

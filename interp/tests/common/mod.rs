//! What several of the engine's test files share.
#![allow(dead_code)]

use kmst::format::Header;

/// The header of the spec's 1000-job example (docs/spec.md "The builder",
/// docs/asm.md's first example): deadline 200,000 us, max_steps 100,000,
/// req 1, seed 1.
pub const JOB_EXAMPLE_HEADER: Header = Header {
    max_steps: 100_000,
    deadline_us: 200_000,
    req: 1,
    seed: 1,
};

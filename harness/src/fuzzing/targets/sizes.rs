//! Target `sizes`: does every implementation, the compiled tier among them,
//! answer programs of any size up to the format's limit alike, and within
//! the time and memory libFuzzer allows it (`-timeout`, `-rss_limit_mb`,
//! scripts/fuzz.sh)? A compile that grew with the square of the program,
//! or held all of it at once, is a finding here.
//!
//! Input: `arbitrary::Unstructured` bytes: a shape of
//! [`crate::shapes`], its size (16 to 65,535 micro-ops, each order of
//! magnitude as likely), up to 16 edits of the value operand of a micro-op
//! (so that loops run other counts and branches go other ways), and the
//! turn budget; the comparison is [`super::sim::sim_all`].

use arbitrary::Unstructured;

use crate::fuzzing::divergence::Divergence;
use crate::fuzzing::generate::Case;
use crate::shapes::{Shape, params};
use kmst::ops::{ImmKind, Opcode};

use super::agreement::{Agreement, Target};
use super::sim::sim_all;

/// The case a `sizes` input stands for.
pub fn sizes_input(input: &[u8]) -> Option<Case> {
    sizes_case(&mut Unstructured::new(input))
        .ok()
        .map(|(_, case)| case)
}

/// The shape and the case of a `sizes` input read from `u`.
pub fn sizes_case(u: &mut Unstructured<'_>) -> arbitrary::Result<(Shape, Case)> {
    let shape = Shape::ALL[u.choose_index(Shape::ALL.len())?];
    // A size by its bit length first, so that every order of magnitude is
    // as likely: 16 (Shape::MIN) to 2^16 - 1.
    let bits = u.int_in_range(5..=16u32)?;
    let n = u.int_in_range(1usize << (bits - 1)..=(1usize << bits) - 1)?;
    let mut upload = shape.upload(n);
    for _ in 0..u.int_in_range(0..=16u8)? {
        let pc = u.choose_index(upload.ops.len())?;
        let op = &mut upload.ops[pc];
        let takes_value = Opcode::from_u8(op.op).is_some_and(|o| o.imm_kind() == ImmKind::Value);
        if takes_value {
            op.imm = u.arbitrary()?;
        }
    }
    let mut params = params();
    params.turn_budget = u.int_in_range(1..=256)?;
    let upload = upload.encode();
    Ok((shape, Case { upload, params }))
}

pub(super) fn sizes(input: &[u8]) -> Result<Agreement, Divergence> {
    let Some(case) = sizes_input(input) else {
        return Ok(Agreement::Skipped);
    };
    sim_all(Target::Sizes, &case.upload, &case.params)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fuzzing::generate::random_bytes;

    #[test]
    fn inputs_reach_every_shape_and_the_largest_sizes() {
        let mut shapes = std::collections::BTreeSet::new();
        let mut largest = 0;
        for seed in 0..400 {
            let bytes = random_bytes(seed, 64);
            let (shape, case) = sizes_case(&mut Unstructured::new(&bytes)).expect("a case");
            let checked = kmst::check::CheckedUpload::new(&case.upload, case.params.region_size)
                .expect("every case passes the check");
            largest = largest.max(checked.op_count());
            shapes.insert(shape.name());
        }
        assert!(largest > 32_768, "the largest size reached: {largest}");
        assert_eq!(shapes.len(), Shape::ALL.len());
    }
}

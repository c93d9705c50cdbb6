//! Programs of every shape and size up to the format's limit (65,535
//! micro-ops, kmst_harness::shapes) on every dispatch variant, the compiled
//! tier's `jit` and `tiered` among them: each must give exactly the
//! reference model's answer. The compiled tier cuts a program into regions
//! of about 1,024 micro-ops with entries every 32 or so (docs/dispatch.md),
//! so the sizes cross those bounds and the format's own.

use kmst::exec::{Dispatch, simulate};
use kmst_harness::answers::run_difference;
use kmst_harness::shapes::{Shape, params};

/// Each shape's answer on every variant against the reference model's.
fn agree(sizes: &[usize]) {
    let params = params();
    for shape in Shape::ALL {
        for &n in sizes {
            let upload = shape.upload(n).encode();
            let want = kmst_reference::simulate(&upload, &params);
            assert_eq!(want.status, kmst_reference::Status::Ended, "{shape} {n}");
            for &d in Dispatch::ALL {
                let got = simulate(&upload, &params, d);
                let diff = run_difference(&want, &got).map(|(d, _)| d.to_string());
                assert!(got == want, "{shape} of {n} on {d}: {diff:?}");
            }
        }
    }
}

#[test]
fn every_shape_agrees_up_to_a_few_regions() {
    // Below, at and past one region (1,024), several regions, and a size
    // whose last region is a sliver.
    agree(&[Shape::MIN, 33, 100, 1_023, 1_025, 3_000, 4_097]);
}

#[test]
fn every_shape_agrees_at_the_formats_limit() {
    agree(&[65_535]);
}

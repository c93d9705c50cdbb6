//! gungraun: instructions and estimated cycles (callgrind with its cache
//! simulation) of what a first answer costs, on straight-line uploads of
//! 16, 1,000 and 65,535 micro-ops (`kmst_benches::straight_upload`):
//! the check, the decode (`Prepared::new`: the check, the pre-decode and
//! the upload's copy) and a whole `simulate` on the tail variant and on
//! the reference model. The cost per micro-op is the difference between
//! two sizes divided by theirs (issue 43's targets: check ≤ 20, decode ≤
//! 30; decisions.md D35, D36). Needs valgrind and gungraun-runner 0.20.0
//! (`scripts/install-iai-runner.sh`):
//! `cargo bench -p kmst-benches --bench decode_iai`.
//!
//! The upload is built in the setup, which callgrind does not count.
#![forbid(unsafe_code)]

use std::hint::black_box;

use gungraun::{library_benchmark, library_benchmark_group, main};
use kmst::exec::{Dispatch, Prepared, simulate};
use kmst::types::SimResult;
use kmst_benches::{straight_params, straight_upload};

/// One benchmark function per measured step, each over every size (the
/// sizes are written once).
macro_rules! per_size {
    ($($name:ident($upload:ident) -> $out:ty $body:block)*) => {$(
        #[library_benchmark]
        #[bench::n16(args = (16), setup = straight_upload)]
        #[bench::n1000(args = (1_000), setup = straight_upload)]
        #[bench::n65535(args = (65_535), setup = straight_upload)]
        fn $name($upload: Vec<u8>) -> $out {
            black_box($body)
        }
    )*};
}

per_size! {
    check(upload) -> bool {
        kmst::check::check(black_box(&upload), straight_params().region_size).is_ok()
    }
    decode(upload) -> bool {
        Prepared::new(black_box(&upload)).is_ok()
    }
    first_answer_tail(upload) -> SimResult {
        simulate(black_box(&upload), &straight_params(), Dispatch::Tail)
    }
    first_answer_reference(upload) -> SimResult {
        kmst_reference::simulate(black_box(&upload), &straight_params())
    }
}

library_benchmark_group!(
    name = load;
    benchmarks = check, decode, first_answer_tail, first_answer_reference
);

main!(library_benchmark_groups = load);

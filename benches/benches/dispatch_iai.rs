//! gungraun: instructions and estimated cycles (callgrind with its cache
//! simulation) of every dispatch variant and the reference model on every
//! bundled workload. Divide by the workload's micro-ops (`kmst compare
//! --json`, `ops`) for cycles per micro-op. Needs valgrind and
//! gungraun-runner 0.20.0 (`scripts/install-iai-runner.sh`):
//! `cargo bench -p kmst-benches --bench dispatch_iai`.
//!
//! The workload is assembled in the setup, which callgrind does not count; the
//! measured function is the whole `simulate` (check, pre-decode, run).
#![forbid(unsafe_code)]

use std::hint::black_box;

use gungraun::{library_benchmark, library_benchmark_group, main};
use kmst::exec::Dispatch;
use kmst_benches::workload;
use kmst_harness::answers::{DifferentialOracle, Implementation};
use kmst_harness::compare::Workload;
use kmst_reference::SimResult;

fn run(w: &Workload, d: Implementation) -> SimResult {
    d.simulate(black_box(&w.upload), &w.params)
}

/// One benchmark function per dispatch variant, each over every workload
/// (the workload list is written once).
macro_rules! per_variant {
    ($($name:ident => $dispatch:expr;)*) => {$(
        #[library_benchmark]
        #[bench::alu(args = ("alu"), setup = workload)]
        #[bench::alu_chain(args = ("alu_chain"), setup = workload)]
        #[bench::rand_mod(args = ("rand_mod"), setup = workload)]
        #[bench::branchy(args = ("branchy"), setup = workload)]
        #[bench::submit_heavy(args = ("submit_heavy"), setup = workload)]
        #[bench::queue_stress(args = ("queue_stress"), setup = workload)]
        #[bench::jobs_1000(args = ("jobs_1000"), setup = workload)]
        #[bench::long_wait(args = ("long_wait"), setup = workload)]
        #[bench::long_wait_1(args = ("long_wait_1"), setup = workload)]
        fn $name(w: Workload) -> SimResult {
            black_box(run(&w, $dispatch))
        }
    )*};
}

per_variant! {
    tail => Implementation::Fast(Dispatch::Tail);
    switch => Implementation::Fast(Dispatch::Switch);
    threaded => Implementation::Fast(Dispatch::Threaded);
    subroutine => Implementation::Fast(Dispatch::Subroutine);
    indirect => Implementation::Fast(Dispatch::Indirect);
    loop_match => Implementation::Fast(Dispatch::LoopMatch);
    jit => Implementation::Fast(Dispatch::Jit);
    tiered => Implementation::Fast(Dispatch::Tiered);
    reference => Implementation::Reference;
}

library_benchmark_group!(
    name = dispatch;
    benchmarks = tail, switch, threaded, subroutine, indirect, loop_match, jit, tiered, reference
);

main!(library_benchmark_groups = dispatch);

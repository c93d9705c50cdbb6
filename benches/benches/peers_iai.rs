//! gungraun: instructions (callgrind) of kmst's dispatch variants, wasmi (fuel
//! metering on and off) and native Rust on the same loops; group `peers`,
//! one function per workload, one bench per runner (`peers::alu::wasmi_fuel`).
//! Divide by the workload's micro-ops (`kmst compare --json`, `ops`) for
//! instructions per micro-op. The setup (assembly, wasm translation, the
//! checked first run) is not counted. Needs valgrind and
//! gungraun-runner 0.20.0 (`scripts/install-iai-runner.sh`):
//! `cargo bench -p kmst-benches --bench peers_iai`.
// Unsafe code only in the `asm!` barrier of peers/mod.rs.
#![deny(unsafe_code)]

use std::hint::black_box;

use gungraun::{library_benchmark, library_benchmark_group, main};

// The bench attributes below list the workloads and runners themselves.
#[allow(dead_code)]
#[path = "../peers/mod.rs"]
mod peer;
use peer::Peer;

/// One benchmark function per workload, each over every runner (the runner
/// list is written once).
macro_rules! per_workload {
    ($($name:ident => $workload:tt;)*) => {$(
        #[library_benchmark]
        #[bench::tail(args = ($workload, "tail"), setup = Peer::new)]
        #[bench::switch(args = ($workload, "switch"), setup = Peer::new)]
        #[bench::threaded(args = ($workload, "threaded"), setup = Peer::new)]
        #[bench::subroutine(args = ($workload, "subroutine"), setup = Peer::new)]
        #[bench::indirect(args = ($workload, "indirect"), setup = Peer::new)]
        #[bench::loop_match(args = ($workload, "loop_match"), setup = Peer::new)]
        #[bench::jit(args = ($workload, "jit"), setup = Peer::new)]
        #[bench::tiered(args = ($workload, "tiered"), setup = Peer::new)]
        #[bench::wasmi_fuel(args = ($workload, peer::WASMI_FUEL), setup = Peer::new)]
        #[bench::wasmi(args = ($workload, peer::WASMI), setup = Peer::new)]
        #[bench::native(args = ($workload, peer::NATIVE), setup = Peer::new)]
        fn $name(mut peer: Peer) -> Option<u32> {
            black_box(peer.run())
        }
    )*};
}

per_workload! {
    alu => "alu";
    alu_chain => "alu_chain";
    branchy => "branchy";
    rand_mod => "rand_mod";
}

library_benchmark_group!(
    name = peers;
    benchmarks = alu, alu_chain, branchy, rand_mod
);

main!(library_benchmark_groups = peers);

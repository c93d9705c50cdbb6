//! Criterion: kmst's dispatch variants beside wasmi (fuel metering on and
//! off) and native Rust on the same loops, groups `peers/<workload>` with one
//! benchmark per runner (`peers/alu/wasmi_fuel`), throughput in kmst
//! micro-ops. Every runner is checked against kmst's halt value before it is
//! timed (see `peers/mod.rs`). `cargo bench -p kmst-benches --bench peers`;
//! the side-by-side table with ratios: `cargo run --release -p kmst-benches
//! --example peers`.
// Unsafe code only in the `asm!` barrier of peers/mod.rs.
#![deny(unsafe_code)]

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, SamplingMode, Throughput, criterion_group, criterion_main};
use kmst_benches::micro_ops;

#[path = "../peers/mod.rs"]
mod peers;
use peers::{Peer, WORKLOADS, runners};

fn peers(c: &mut Criterion) {
    for w in &WORKLOADS {
        let mut group = c.benchmark_group(format!("peers/{}", w.name));
        group
            .sampling_mode(SamplingMode::Flat)
            .sample_size(20)
            .warm_up_time(Duration::from_millis(500))
            .measurement_time(Duration::from_secs(2))
            .throughput(Throughput::Elements(micro_ops(w.name)));
        for runner in runners() {
            let mut peer = Peer::new(w.name, runner);
            group.bench_function(runner, |b| b.iter(|| black_box(peer.run())));
        }
        group.finish();
    }
}

criterion_group!(benches, peers);
criterion_main!(benches);

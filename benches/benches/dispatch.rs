//! Criterion: wall time of every dispatch variant and the reference model on
//! every bundled workload, throughput in micro-ops (counted in a separate,
//! untimed run). `cargo bench -p kmst-benches --bench dispatch`; HTML reports
//! in `target/criterion/`.
#![forbid(unsafe_code)]

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, SamplingMode, Throughput, criterion_group, criterion_main};
use kmst_harness::answers::{DifferentialOracle, Implementation};
use kmst_harness::compare::count_ops;

fn dispatch(c: &mut Criterion) {
    for w in kmst_benches::workloads() {
        let mut group = c.benchmark_group(&w.name);
        // Flat sampling: the reference model takes milliseconds per run on some workloads.
        group
            .sampling_mode(SamplingMode::Flat)
            .sample_size(20)
            .warm_up_time(Duration::from_millis(500))
            .measurement_time(Duration::from_secs(2))
            .throughput(Throughput::Elements(count_ops(&w)));
        for d in Implementation::all() {
            group.bench_function(d.name(), |b| {
                b.iter(|| d.simulate(black_box(&w.upload), &w.params))
            });
        }
        group.finish();
    }
}

criterion_group!(benches, dispatch);
criterion_main!(benches);

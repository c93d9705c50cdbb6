//! Criterion: the compiled tier's compile at every size (issue 42), apart
//! from any run. For each program shape of `kmst_harness::shapes` at 1,000,
//! 16,000 and 65,535 micro-ops (the format's limit), the time of
//! `Machine::prepare` for `Dispatch::Jit`, which compiles the program; the
//! machine (check and pre-decode) is built in the untimed setup, one per
//! compile. Throughput in micro-ops compiled, so a compile that grows
//! linearly shows the same rate at every size.
//!
//! `cargo bench -p kmst-benches --bench compile` (about a minute); the
//! wasmtime side by side and the peak memory are in the example
//! `compile_sizes` (feature `wasmtime`).
#![forbid(unsafe_code)]

use std::time::Duration;

use criterion::{
    BatchSize, BenchmarkId, Criterion, SamplingMode, Throughput, criterion_group, criterion_main,
};
use kmst::exec::{Dispatch, Machine, NoObserver};
use kmst_harness::shapes::{self, Shape};

/// The sizes measured: small, the largest the old whole-program compile
/// could take, and the format's limit.
const SIZES: [usize; 3] = [1_000, 16_000, 65_535];

/// Measurement time per size: a compile of 65,535 micro-ops takes a tenth
/// to half a second, so criterion's ten samples need seconds there.
fn measurement_time(n: usize) -> Duration {
    if n <= 1_000 {
        Duration::from_millis(800)
    } else if n <= 16_000 {
        Duration::from_millis(1_500)
    } else {
        Duration::from_secs(5)
    }
}

fn compile(c: &mut Criterion) {
    if let Err(host) = kmst::exec::jit_available() {
        eprintln!("compile: the compiled tier does not compile on {host}; nothing to measure");
        return;
    }
    let params = shapes::params();
    let mut group = c.benchmark_group("compile");
    // Flat sampling and criterion's fewest samples: one compile is one
    // iteration, and the largest take long enough that the usual linear
    // ramp of iterations would run for minutes.
    group
        .sampling_mode(SamplingMode::Flat)
        .sample_size(10)
        .warm_up_time(Duration::from_millis(200));
    for n in SIZES {
        group
            .measurement_time(measurement_time(n))
            .throughput(Throughput::Elements(n as u64));
        for shape in Shape::ALL {
            let upload = shape.upload(n).encode();
            group.bench_function(BenchmarkId::new(shape.name(), n), |b| {
                b.iter_batched(
                    || Machine::new(&upload, &params),
                    |mut m| {
                        m.prepare::<NoObserver>(Dispatch::Jit);
                        // Returned, so that the compiled code is freed
                        // outside the timing.
                        m
                    },
                    BatchSize::PerIteration,
                )
            });
        }
    }
    group.finish();
}

criterion_group!(benches, compile);
criterion_main!(benches);

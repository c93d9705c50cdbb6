//! Criterion: the compiled tiers' compile at every size (issues 42 and 53)
//! and their run alone, each apart from the other.
//!
//! - `compile/<tier>/<shape>/<n>`: for each program shape of
//!   `kmst_harness::shapes` at 1,000, 16,000 and 65,535 micro-ops (the
//!   format's limit; the stencil tier also at 16), the time of
//!   `Machine::prepare` for the tier's variant (`jit`: Cranelift's compile;
//!   `stencil`: the copy and patch); the machine (check and pre-decode) is
//!   built in the untimed setup, one per compile. Throughput in micro-ops
//!   compiled, so a compile that grows linearly shows the same rate at
//!   every size.
//! - `run_alone/<workload>/<variant>`: a whole run of each bundled ALU
//!   loop with its program made beforehand, untimed: `tail` beside the two
//!   compiled tiers. Throughput in micro-ops run.
//!
//! `cargo bench -p kmst-benches --bench compile` (a few minutes); the
//! wasmtime side by side and the peak memory are in the example
//! `compile_sizes` (feature `wasmtime`), the side-by-side ratios in the
//! example `stencil_compile`.
#![forbid(unsafe_code)]

use std::time::Duration;

use criterion::{
    BatchSize, BenchmarkId, Criterion, SamplingMode, Throughput, criterion_group, criterion_main,
};
use kmst::exec::{Dispatch, Machine, NoObserver};
use kmst_harness::shapes::{self, Shape};

/// The sizes measured: small, the largest the old whole-program compile
/// could take, and the format's limit; the stencil tier also at the
/// smallest program size the load benches use, where its fixed cost shows.
fn sizes(tier: Dispatch) -> &'static [usize] {
    if tier == Dispatch::Jit {
        &[1_000, 16_000, 65_535]
    } else {
        &[16, 1_000, 16_000, 65_535]
    }
}

/// Measurement time per size: a Cranelift compile of 65,535 micro-ops takes
/// a tenth to half a second, so criterion's ten samples need seconds there.
fn measurement_time(n: usize) -> Duration {
    if n <= 1_000 {
        Duration::from_millis(800)
    } else if n <= 16_000 {
        Duration::from_millis(1_500)
    } else {
        Duration::from_secs(5)
    }
}

/// The compiled tiers this build has, with code for this host.
fn tiers() -> Vec<Dispatch> {
    let mut tiers = Vec::new();
    match kmst::exec::jit_available() {
        Ok(()) => tiers.push(Dispatch::Jit),
        Err(host) => eprintln!("compile: the compiled tier does not compile on {host}"),
    }
    if Dispatch::ALL.contains(&Dispatch::Stencil) {
        match kmst::exec::stencil_available() {
            Ok(()) => tiers.push(Dispatch::Stencil),
            Err(why) => eprintln!("compile: {why}"),
        }
    }
    tiers
}

fn compile(c: &mut Criterion) {
    let params = shapes::params();
    for tier in tiers() {
        let mut group = c.benchmark_group(format!("compile/{tier}"));
        // Flat sampling and criterion's fewest samples: one compile is one
        // iteration, and the largest take long enough that the usual linear
        // ramp of iterations would run for minutes.
        group
            .sampling_mode(SamplingMode::Flat)
            .sample_size(10)
            .warm_up_time(Duration::from_millis(200));
        for &n in sizes(tier) {
            group
                .measurement_time(measurement_time(n))
                .throughput(Throughput::Elements(n as u64));
            for shape in Shape::ALL {
                let upload = shape.upload(n).encode();
                group.bench_function(BenchmarkId::new(shape.name(), n), |b| {
                    b.iter_batched(
                        || Machine::new(&upload, &params),
                        |mut m| {
                            m.prepare::<NoObserver>(tier);
                            // Returned, so that the code is freed outside
                            // the timing.
                            m
                        },
                        BatchSize::PerIteration,
                    )
                });
            }
        }
        group.finish();
    }
}

/// The bundled loops the compiled tiers run alone.
const LOOPS: [&str; 4] = ["alu", "alu_chain", "rand_mod", "branchy"];

fn run_alone(c: &mut Criterion) {
    let tiers = tiers();
    for name in LOOPS {
        let w = kmst_benches::workload(name);
        let mut group = c.benchmark_group(format!("run_alone/{name}"));
        group
            .sampling_mode(SamplingMode::Flat)
            .sample_size(20)
            .warm_up_time(Duration::from_millis(300))
            .measurement_time(Duration::from_secs(2))
            .throughput(Throughput::Elements(kmst_benches::micro_ops(name)));
        for d in std::iter::once(Dispatch::ALL[0]).chain(tiers.iter().copied()) {
            group.bench_function(d.name(), |b| {
                b.iter_batched(
                    || {
                        let mut m = Machine::new(&w.upload, &w.params);
                        m.prepare::<NoObserver>(d);
                        m
                    },
                    |mut m| {
                        m.run(d, &mut NoObserver);
                        m
                    },
                    BatchSize::PerIteration,
                )
            });
        }
        group.finish();
    }
}

criterion_group!(benches, compile, run_alone);
criterion_main!(benches);

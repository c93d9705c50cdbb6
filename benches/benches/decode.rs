//! Criterion: wall time of what a first answer costs before and with its
//! run, on straight-line uploads of 16, 1,000 and 65,535 micro-ops
//! (`kmst_benches::straight_upload`: ADDIs, then HALT, each run once),
//! throughput in micro-ops: `check` (the kernel's check), `decode`
//! (`Prepared::new`: the check, the pre-decode and the upload's copy) and
//! `first_answer/tail` and `first_answer/reference` (a whole `simulate`).
//! Issue 43, decisions.md D35 and D36. `cargo bench -p kmst-benches
//! --bench decode`; HTML reports in `target/criterion/`.
#![forbid(unsafe_code)]

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use kmst::exec::{Dispatch, Prepared, simulate};
use kmst_benches::{LOAD_SIZES, straight_params, straight_upload};

fn load(c: &mut Criterion) {
    let params = straight_params();
    for n in LOAD_SIZES {
        let upload = straight_upload(n);
        let mut group = c.benchmark_group(format!("load/{n}"));
        group
            .sample_size(20)
            .warm_up_time(Duration::from_millis(500))
            .measurement_time(Duration::from_secs(2))
            .throughput(Throughput::Elements(n as u64));
        group.bench_function("check", |b| {
            b.iter(|| kmst::check::check(black_box(&upload), params.region_size))
        });
        group.bench_function("decode", |b| {
            b.iter(|| Prepared::new(black_box(&upload)).map(|_| ()))
        });
        group.bench_function("first_answer/tail", |b| {
            b.iter(|| simulate(black_box(&upload), &params, Dispatch::Tail))
        });
        group.bench_function("first_answer/reference", |b| {
            b.iter(|| kmst_reference::simulate(black_box(&upload), &params))
        });
        group.finish();
    }
}

criterion_group!(benches, load);
criterion_main!(benches);

//! Criterion: what pausing costs (docs/pause.md; docs/performance.md,
//! "Pausing and resuming"): a snapshot taken, restored, and the state
//! read, at the format's limits (four streams, all 16 slots busy, 64 jobs
//! waiting; each program 16 or 65,535 micro-ops) and for one stream paused
//! at pass 10 and at pass 100,000 (the cost does not grow with the passes).
//! `cargo bench -p kmst-benches --bench pause`.
#![forbid(unsafe_code)]

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use kmst::builder::Stream;
use kmst::exec::{Dispatch, Resumable, Until};
use kmst::scenario::ScenarioBuilder;
use kmst::types::{Delay, Params};

/// Four SUBMITs that are never acknowledged, 16 ENQUEUEs that wait behind
/// them, WAIT 0 for ever; padded with ADDIs after its HALT to `ops` micro-ops.
fn holder(req: u64, ops: usize) -> Stream {
    let mut s = Stream::new(0, 1_000_000, 1, req).unwrap();
    let r = s.registers(1).unwrap()[0];
    for _ in 0..4 {
        s.submit(1, (0.into(), 1.into()), &[], false, false)
            .unwrap();
    }
    for _ in 0..16 {
        s.enqueue(2, 1.into(), &[r.into()], false, false).unwrap();
    }
    s.wait(0).unwrap();
    s.halt(r);
    // 4 + 16 + 2 micro-ops and the prologue's SET of 1.
    for _ in 0..ops.saturating_sub(23) {
        s.addi(r, r, 1).unwrap();
    }
    s
}

/// Four holders paused before pass 5: every slot busy, the queue full.
fn at_the_limits(ops: usize) -> Resumable {
    let params = Params {
        delay: Delay::Never,
        max_passes: 1_000,
        // Four uploads of up to 1 MiB each, 2 MiB apart.
        region_size: 8 << 20,
        ..Params::default()
    };
    let mut b = ScenarioBuilder::new(params).unwrap();
    for k in 0..4u32 {
        b.place_stream(u64::from(k) << 21, &holder(u64::from(k) + 1, ops))
            .unwrap();
        b.run(0, k << 21).unwrap();
    }
    let mut run = Resumable::scenario(&b.build());
    run.run(Dispatch::default(), Until::Pass(5));
    let s = run.state();
    assert_eq!((s.streams.len(), s.slots.len(), s.queue.len()), (4, 16, 64));
    run
}

/// A loop that never ends, paused before `pass`.
fn one_stream(pass: u64) -> (Vec<u8>, Resumable) {
    let mut s = Stream::new(0, u32::MAX.into(), 1, 1).unwrap();
    let r = s.registers(1).unwrap()[0];
    let top = s.label();
    s.addi(r, r, 1).unwrap();
    s.jmp(top);
    let upload = s.encode().unwrap();
    let params = Params {
        turn_budget: 8,
        max_passes: 10_000_000,
        ..Params::default()
    };
    let mut run = Resumable::new(&upload, &params);
    run.run(Dispatch::default(), Until::Pass(pass));
    (upload, run)
}

fn pause(c: &mut Criterion) {
    let mut cases: Vec<(String, Resumable)> = vec![
        ("limits_16".into(), at_the_limits(16)),
        ("limits_65535".into(), at_the_limits(65_535)),
    ];
    for pass in [10, 100_000] {
        cases.push((format!("one_stream_pass_{pass}"), one_stream(pass).1));
    }
    for (name, run) in &cases {
        let with = run.snapshot().unwrap();
        let bare = run.snapshot_without_input().unwrap();
        eprintln!(
            "pause/{name}: snapshot {} bytes, {} without its input",
            with.len(),
            bare.len()
        );
        let mut group = c.benchmark_group(format!("pause/{name}"));
        group
            .sample_size(20)
            .warm_up_time(Duration::from_millis(300))
            .measurement_time(Duration::from_secs(1));
        group.bench_function("snapshot", |b| b.iter(|| black_box(run).snapshot()));
        group.bench_function("restore", |b| {
            b.iter(|| Resumable::restore(black_box(&with)).map(|r| r.resume_at()))
        });
        group.bench_function("state", |b| b.iter(|| black_box(run).state().pass));
        group.finish();
    }
}

criterion_group!(benches, pause);
criterion_main!(benches);

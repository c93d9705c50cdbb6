//! What observing costs (ignored by default; the numbers are in
//! docs/profiling.md). Run with
//! `cargo test --release -p kmst-harness --test profile_cost -- --ignored --nocapture`.
//!
//! The same workloads are timed with the plain `simulate`, with
//! `simulate_observed(.., &mut NoObserver)` and with the profiling observer;
//! the first two must be within noise of each other (NoObserver's hooks are
//! empty and `ENABLED = false`, so they compile away).

mod common;

use common::best_of;
use std::time::Duration;

use kmst::asm::assemble;
use kmst::exec::{Dispatch, NoObserver, simulate, simulate_observed};
use kmst_harness::profile::ProfileObserver;
use kmst_reference::{Delay, Params};

/// An arithmetic loop of 5 micro-ops a round, 2,000,000 rounds.
const ALU: &str = "
.stream max_steps=0xffffffff seed=1
        set r1, 2000000
        set r2, 3
top:    add r3, r3, r2
        mul r4, r3, r2
        shr r5, r4, 3
        addi r0, r0, 1
        jlt r0, r1, top
        halt r5
";

/// The spec's job loop, 20,000 jobs through the queue.
const JOBS: &str = "
.stream max_steps=0xffffffff seed=1 req=1
        set r2, 119
        set r3, 1
        set r4, 20000
        set r5, 0
top:    rand r1
        mod r1, r1, r2
        addi r1, r1, 1
        enqueue r1, handler=3, args=[r0, 77]
        addi r0, r0, 1
        jlt r0, r4, top
        wait 0
        halt r5
";

#[test]
#[ignore]
fn no_observer_costs_nothing() {
    for (name, src, delay) in [("alu", ALU, 0), ("jobs", JOBS, 3)] {
        let upload = assemble(src).unwrap();
        let params = Params {
            delay: Delay::Fixed(delay),
            max_passes: u64::MAX,
            ..Params::default()
        };
        let d = Dispatch::Tail;
        let reference = simulate(&upload, &params, d);
        // Interleaved, best of 30 each, so drift on a shared machine hits both.
        let (mut plain, mut none) = (Duration::MAX, Duration::MAX);
        // Each round swaps which goes first, so order effects cancel too.
        for round in 0..30 {
            let mut time_plain = || {
                plain = plain.min(best_of(1, || {
                    std::hint::black_box(simulate(&upload, &params, d));
                }))
            };
            let mut time_none = || {
                none = none.min(best_of(1, || {
                    std::hint::black_box(simulate_observed(&upload, &params, d, &mut NoObserver));
                }))
            };
            if round % 2 == 0 {
                time_plain();
                time_none();
            } else {
                time_none();
                time_plain();
            }
        }
        let mut obs = ProfileObserver::new(false);
        let observed = simulate_observed(&upload, &params, d, &mut obs);
        assert_eq!(observed, reference, "observing changes the answer");
        let profiled = best_of(7, || {
            let mut obs = ProfileObserver::new(false);
            std::hint::black_box(simulate_observed(&upload, &params, d, &mut obs));
        });
        println!(
            "{name:>5}: {:>9} micro-ops  simulate {:>9.3} ms  NoObserver {:>9.3} ms ({:+.1}%)  ProfileObserver {:>9.3} ms ({:.2}x)",
            obs.ops_total,
            plain.as_secs_f64() * 1e3,
            none.as_secs_f64() * 1e3,
            (none.as_secs_f64() / plain.as_secs_f64() - 1.0) * 100.0,
            profiled.as_secs_f64() * 1e3,
            profiled.as_secs_f64() / plain.as_secs_f64(),
        );
    }
}

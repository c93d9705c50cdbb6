//! Runs the 1,000-job example of docs/spec.md many times, for a profiler:
//! `valgrind --tool=callgrind target/release/examples/job_profile tail 200`
//! (the workload jobs_1000 of docs/performance.md, "The workloads"; where
//! its time goes: "Why jobs_1000 is 5×, not 50×, the reference" and the
//! register's kernel decisions, D18..D27).

use kmst::exec::{Dispatch, simulate};
use kmst_harness::fuzzing::job_example;
use kmst_reference::{Params, Status};

fn main() {
    let mut args = std::env::args().skip(1);
    let dispatch: Dispatch = args
        .next()
        .unwrap_or_else(|| "tail".into())
        .parse()
        .expect("a dispatch name");
    let runs: u32 = args
        .next()
        .map(|n| n.parse().expect("a run count"))
        .unwrap_or(200);
    let data = job_example().encode();
    let params = Params::default();
    let mut ended = 0;
    for _ in 0..runs {
        if simulate(&data, &params, dispatch).status == Status::Ended {
            ended += 1;
        }
    }
    println!("{ended} of {runs} runs ended");
}

//! One cell of the instruction-count baseline (`benches/icount-baseline.tsv`,
//! `scripts/icount-check.py`, docs/performance.md "Instruction counts as a
//! contract"), run under callgrind:
//!
//! ```sh
//! cargo build --release -p kmst-benches --bin icount_cell
//! target/release/icount_cell --list        # every cell and its micro-ops
//! valgrind --tool=callgrind --collect-atstart=no --toggle-collect=icount_cell::counted \
//!     target/release/icount_cell alu/tail 1
//! ```
//!
//! A cell is `WORKLOAD/WHAT`:
//!
//! - every bundled workload (the streams, then the scenarios) with every
//!   variant of `Dispatch::ALL` and `reference`: one whole run (check,
//!   pre-decode, run, the answer made and dropped), but `jit`: the same
//!   whole run with the compile left out (`Machine::prepare` is called
//!   between the set-up and the run, uncounted), and `jit_compile`: that
//!   compile alone (`jit` + `jit_compile` is a whole run of `jit`);
//! - the first answer on straight-line uploads of 16, 1,000 and 65,535
//!   micro-ops (`kmst_benches::straight_upload`, as the `decode_iai`
//!   bench): `load_N/check`, `load_N/decode` (`Prepared::new`: the check,
//!   the pre-decode and the upload's copy), `load_N/tail` and
//!   `load_N/reference` (a whole `simulate`).
//!
//! Each cell runs once uncounted (a warm-up: the allocator's first growth,
//! the compiled tier's one-time set-up), then RUNS times with only what
//! [`counted`] calls counted, so the process's start, the workload's
//! assembly and the warm-up stay out of the count.
#![forbid(unsafe_code)]

use std::hint::black_box;
use std::process::ExitCode;

use kmst::exec::{Dispatch, Machine, NoObserver, Prepared};
use kmst_benches::{LOAD_SIZES, straight_params, straight_upload};
use kmst_harness::answers::{DifferentialOracle, Implementation};
use kmst_harness::compare::{self, Workload};

/// The only code callgrind counts (`--toggle-collect=icount_cell::counted`):
/// not inlined, so that its symbol exists, and calling nothing whose name
/// contains its own (that would toggle the collection off).
#[inline(never)]
fn counted(f: &mut dyn FnMut()) {
    f();
}

/// Runs `f`, inside [`counted`] unless this is the warm-up.
fn part(warm_up: bool, f: &mut dyn FnMut()) {
    if warm_up { f() } else { counted(f) }
}

/// What a cell of a bundled workload runs.
#[derive(Clone, Copy)]
enum Run {
    /// A whole run of one implementation.
    Whole(Implementation),
    /// The compiled tier's run, its compile left out.
    JitAlone,
    /// The compiled tier's compile alone.
    JitCompile,
}

/// A machine set up for `w` (checked and pre-decoded).
fn machine(w: &Workload) -> Machine {
    match &w.scenario {
        None => Machine::new(black_box(&w.upload), &w.params),
        Some(s) => Machine::new_scenario(black_box(s)),
    }
}

/// The answer of a machine that ran, made and dropped.
fn finish(w: &Workload, m: Machine) {
    if w.scenario.is_some() {
        black_box(m.into_scenario_result());
    } else {
        black_box(m.into_result());
    }
}

/// One run of `w` as `run` says, counting what the cell counts.
fn workload_run(w: &Workload, run: Run, warm_up: bool) {
    match run {
        Run::Whole(v) => part(warm_up, &mut || {
            black_box(w.run_once(v));
        }),
        Run::JitAlone => {
            let mut m = None;
            part(warm_up, &mut || m = Some(machine(w)));
            let mut m = m.expect("set up");
            m.prepare::<NoObserver>(Dispatch::Jit);
            let mut m = Some(m);
            part(warm_up, &mut || {
                let mut m = m.take().expect("prepared");
                m.run(Dispatch::Jit, &mut NoObserver);
                finish(w, m);
            });
        }
        Run::JitCompile => {
            let mut m = machine(w);
            part(warm_up, &mut || m.prepare::<NoObserver>(Dispatch::Jit));
            m.run(Dispatch::Jit, &mut NoObserver);
            finish(w, m);
        }
    }
}

/// One first-answer run on `upload` (`what`: check, decode, or an
/// implementation's name).
fn load_run(upload: &[u8], what: &str, warm_up: bool) -> Result<(), String> {
    let params = straight_params();
    match what {
        "check" => part(warm_up, &mut || {
            black_box(kmst::check::check(black_box(upload), params.region_size).is_ok());
        }),
        "decode" => part(warm_up, &mut || {
            black_box(Prepared::new(black_box(upload)).is_ok());
        }),
        name => {
            let v: Implementation = name.parse().map_err(|e| format!("{e}"))?;
            part(warm_up, &mut || {
                black_box(v.simulate(black_box(upload), &params));
            });
        }
    }
    Ok(())
}

/// The first-answer cells' steps, in order.
const LOAD_STEPS: [&str; 4] = ["check", "decode", "tail", "reference"];

/// Every cell, with the micro-ops one run executes (the straight uploads:
/// their length).
fn cells() -> Result<Vec<(String, u64)>, String> {
    let mut out = Vec::new();
    // The compiled tier's compile right after its run.
    let mut whats = Vec::new();
    for d in Dispatch::ALL {
        whats.push(d.name());
        if *d == Dispatch::Jit {
            whats.push("jit_compile");
        }
    }
    whats.push("reference");
    for w in compare::bundled().map_err(|e| e.to_string())? {
        let ops = compare::count_ops(&w);
        for what in &whats {
            out.push((format!("{}/{what}", w.name), ops));
        }
    }
    for n in LOAD_SIZES {
        for what in LOAD_STEPS {
            out.push((format!("load_{n}/{what}"), n as u64));
        }
    }
    Ok(out)
}

fn run_cell(cell: &str, runs: u64) -> Result<(), String> {
    let (workload, what) = cell
        .split_once('/')
        .ok_or_else(|| format!("`{cell}`: a cell is WORKLOAD/WHAT"))?;
    if let Some(n) = workload.strip_prefix("load_") {
        let n: usize = n.parse().map_err(|_| format!("`{cell}`: no such size"))?;
        if !LOAD_SIZES.contains(&n) || !LOAD_STEPS.contains(&what) {
            return Err(format!("`{cell}`: no such cell"));
        }
        let upload = straight_upload(n);
        for k in 0..=runs {
            load_run(&upload, what, k == 0)?;
        }
        return Ok(());
    }
    let w = compare::bundled()
        .map_err(|e| e.to_string())?
        .into_iter()
        .find(|w| w.name == workload)
        .ok_or_else(|| format!("`{cell}`: no bundled workload `{workload}`"))?;
    let run = match what {
        "jit" => Run::JitAlone,
        "jit_compile" => Run::JitCompile,
        name => Run::Whole(name.parse().map_err(|e| format!("`{cell}`: {e}"))?),
    };
    if matches!(run, Run::JitAlone | Run::JitCompile) {
        let _: Implementation = "jit".parse().map_err(|e| format!("`{cell}`: {e}"))?;
    }
    // The warm-up, then the counted runs.
    for k in 0..=runs {
        workload_run(&w, run, k == 0);
    }
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.as_slice() {
        [flag] if flag == "--list" => cells().map(|cells| {
            for (cell, ops) in cells {
                println!("{cell}\t{ops}");
            }
        }),
        [cell] => run_cell(cell, 1),
        [cell, runs] => match runs.parse() {
            Ok(runs) => run_cell(cell, runs),
            Err(e) => Err(format!("RUNS: {e}")),
        },
        _ => {
            eprintln!("usage: icount_cell --list | icount_cell WORKLOAD/WHAT [RUNS]");
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("icount_cell: {e}");
            ExitCode::from(2)
        }
    }
}

//! A short, seeded random pass of every fuzz target, so that `cargo test`
//! exercises the generators and the comparisons without a fuzzer. Each test
//! is bounded by a count and by time (well under 30 s in a debug build) and
//! reproducible: the inputs come from fixed seeds (`random_bytes`), and a
//! failure names the seed and prints the divergence report.

use std::time::{Duration, Instant};

use kmst_harness::fuzzing::seeds::{corpus_seeds, random_bytes};
use kmst_harness::fuzzing::{Agreement, Target, run};
use kmst_reference::Status;

const BUDGET: Duration = Duration::from_secs(8);

/// Runs `count` inputs made by `input(i)` (or until the budget is spent).
fn pass(target: Target, count: u64, input: impl Fn(u64) -> Vec<u8>) -> Vec<Agreement> {
    let start = Instant::now();
    let mut seen = Vec::new();
    for i in 0..count {
        if start.elapsed() > BUDGET {
            break;
        }
        let data = input(i);
        match run(target, &data) {
            Ok(a) => seen.push(a),
            Err(d) => panic!("{target}, input {i} ({} bytes):\n{d}", data.len()),
        }
    }
    seen
}

#[test]
fn structured_generator_agrees() {
    let seen = pass(Target::SimStructured, 3_000, |i| random_bytes(i, 1024));
    // The generator reaches the kernel: some runs end, some err, some submit.
    let ended = seen
        .iter()
        .filter(|a| {
            matches!(
                a,
                Agreement::Sim {
                    status: Status::Ended,
                    ..
                }
            )
        })
        .count();
    let errors = seen
        .iter()
        .filter(|a| {
            matches!(
                a,
                Agreement::Sim {
                    status: Status::Error,
                    ..
                }
            )
        })
        .count();
    let submitting = seen
        .iter()
        .filter(|a| matches!(a, Agreement::Sim { commands, .. } if *commands > 0))
        .count();
    assert!(seen.len() >= 100, "only {} cases in the budget", seen.len());
    assert!(ended > seen.len() / 50, "{ended} of {} ended", seen.len());
    assert!(errors > seen.len() / 50, "{errors} of {} erred", seen.len());
    assert!(
        submitting > seen.len() / 10,
        "{submitting} of {} submitted",
        seen.len()
    );
}

/// `bytes` with 1..=4 bytes replaced, chosen by `i`.
fn mutate(bytes: &[u8], i: u64) -> Vec<u8> {
    let mut b = bytes.to_vec();
    let r = random_bytes(i ^ 0xA5A5, 16);
    for k in 0..=usize::from(r[0] % 4) {
        if b.is_empty() {
            break;
        }
        let at = usize::from(u16::from_le_bytes([r[1 + 2 * k], r[2 + 2 * k]])) % b.len();
        b[at] = r[9 + k];
    }
    b
}

fn mutated_seeds(target: Target, count: u64) -> Vec<Agreement> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/streams");
    let seeds: Vec<Vec<u8>> = corpus_seeds(&dir)
        .unwrap()
        .into_iter()
        .filter(|s| s.target == target)
        .map(|s| s.bytes)
        .collect();
    assert!(!seeds.is_empty());
    pass(target, count, |i| {
        mutate(&seeds[i as usize % seeds.len()], i)
    })
}

#[test]
fn mutated_uploads_agree_in_the_checkers() {
    let seen = mutated_seeds(Target::Check, 3_000);
    // Mutations both keep and break uploads.
    let accepted = seen
        .iter()
        .filter(|a| matches!(a, Agreement::Check { check: None, .. }))
        .count();
    assert!(
        accepted > 0 && accepted < seen.len(),
        "{accepted} of {} accepted",
        seen.len()
    );
}

#[test]
fn mutated_uploads_agree_in_every_variant() {
    let seen = mutated_seeds(Target::SimRaw, 1_500);
    let ran = seen
        .iter()
        .filter(|a| matches!(a, Agreement::Sim { check: None, .. }))
        .count();
    assert!(ran > 0, "no mutated upload passed the check");
}

#[test]
fn builder_scripts_never_fail() {
    let seen = pass(Target::Builder, 3_000, |i| random_bytes(i, 400));
    let built = seen
        .iter()
        .filter(|a| matches!(a, Agreement::Builder { built: Some(_) }))
        .count();
    assert!(built > 0, "no script was built");
}

/// Where the structured target's time goes (run by hand: `cargo test --release
/// --test fuzz_random -- --ignored --nocapture`): the slowest cases and their shapes.
#[test]
#[ignore]
fn structured_cost_profile() {
    let mut costs = Vec::new();
    let start = Instant::now();
    for i in 0..2_000u64 {
        let data = random_bytes(i, 1024);
        let t = Instant::now();
        let a = run(Target::SimStructured, &data).unwrap();
        let case = kmst_harness::fuzzing::targets::structured_case(&data).unwrap();
        costs.push((
            t.elapsed(),
            i,
            a,
            case.params.max_passes,
            case.params.core_count,
        ));
    }
    let total = start.elapsed();
    costs.sort_by_key(|c| std::cmp::Reverse(c.0));
    let sum: Duration = costs.iter().map(|c| c.0).sum();
    println!(
        "2000 cases in {total:?}: {:.0} per second",
        2000.0 / sum.as_secs_f64()
    );
    let top: Duration = costs.iter().take(100).map(|c| c.0).sum();
    println!(
        "slowest 100 take {:.0}% of the time",
        100.0 * top.as_secs_f64() / sum.as_secs_f64()
    );
    for c in costs.iter().take(15) {
        println!(
            "{:?} seed {} max_passes {} cores {}: {}",
            c.0, c.1, c.3, c.4, c.2
        );
    }
}

/// What the observed run costs the simulation targets (run by hand:
/// `cargo test --release --test fuzz_random -- --ignored --nocapture
/// observed_run_cost`): the same 4,000 structured cases through the plain
/// comparison (reference + every fast variant) and through the targets' own
/// (the same, then one variant observed), in interleaved rounds; prints the
/// median ratio of the two.
#[test]
#[ignore]
fn observed_run_cost() {
    use kmst_harness::answers::with_implementations;
    use kmst_harness::fuzzing::targets::{sim_all, sim_with, structured_case};
    let cases: Vec<_> = (0..4_000u64)
        .filter_map(|i| structured_case(&random_bytes(i, 1024)))
        .collect();
    let mut ratios = Vec::new();
    for _ in 0..21 {
        let t = Instant::now();
        for c in &cases {
            with_implementations(|i| sim_with(Target::SimStructured, &c.upload, &c.params, i))
                .unwrap();
        }
        let plain = t.elapsed();
        let t = Instant::now();
        for c in &cases {
            sim_all(Target::SimStructured, &c.upload, &c.params).unwrap();
        }
        let observed = t.elapsed();
        ratios.push(observed.as_secs_f64() / plain.as_secs_f64());
    }
    ratios.sort_by(f64::total_cmp);
    println!(
        "{} cases: with the observed run / without, median of 21 rounds: {:.3} (min {:.3}, max {:.3})",
        cases.len(),
        ratios[10],
        ratios[0],
        ratios[20]
    );
}

/// A longer sweep without a fuzzer (run by hand: `KMST_SWEEP_SECONDS=300
/// cargo test --release --test fuzz_random -- --ignored --nocapture sweep`):
/// structured cases, mutated raw uploads and builder scripts from seeds past
/// the ones the ordinary tests use, until the time is up.
#[test]
#[ignore]
fn sweep() {
    let seconds: u64 = std::env::var("KMST_SWEEP_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(60);
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/streams");
    let seeds = corpus_seeds(&dir).unwrap();
    let raw: Vec<&kmst_harness::fuzzing::seeds::Seed> = seeds.iter().collect();
    let start = Instant::now();
    let mut n = 0u64;
    let mut i = 1_000_000u64;
    while start.elapsed() < Duration::from_secs(seconds) {
        i += 1;
        let (target, data) = match i % 4 {
            0 => (Target::SimStructured, random_bytes(i, 1024)),
            1 => (Target::Builder, random_bytes(i, 400)),
            _ => {
                let s = raw[(i as usize / 4) % raw.len()];
                (s.target, mutate(&s.bytes, i))
            }
        };
        if let Err(d) = run(target, &data) {
            let path = std::env::temp_dir().join(format!("kmst-sweep-{target}-{i}"));
            std::fs::write(&path, &data).unwrap();
            panic!("{target}, input {i} (saved as {}):\n{d}", path.display());
        }
        n += 1;
    }
    println!(
        "{n} inputs in {:?}, every implementation agreed",
        start.elapsed()
    );
}

/// The block-edge generator (target `sim_edges`) agrees in every variant
/// and reaches what it aims at: runs over several passes (turns that end
/// on the budget), runs cut by `max_steps` (`Reason::StepLimit`, S14), MOD by zero
/// inside a block (`Reason::ModByZero`), and runs that end.
#[test]
fn edges_generator_agrees() {
    let seen = pass(Target::SimEdges, 3_000, |i| random_bytes(i, 1024));
    let count = |f: &dyn Fn(&Agreement) -> bool| seen.iter().filter(|a| f(a)).count();
    let reason = |n: u8| {
        count(&|a| matches!(a, Agreement::Sim { error: Some(e), .. } if e.reason.number() == n))
    };
    let ended = count(&|a| {
        matches!(
            a,
            Agreement::Sim {
                status: Status::Ended,
                ..
            }
        )
    });
    let several = count(&|a| matches!(a, Agreement::Sim { passes, .. } if *passes > 1));
    let n = seen.len();
    assert!(n >= 40, "only {n} cases in the budget");
    assert!(several > n / 3, "{several} of {n} ran several passes");
    assert!(reason(6) > n / 20, "{} of {n} hit max_steps", reason(6));
    assert!(reason(7) > n / 50, "{} of {n} divided by zero", reason(7));
    assert!(ended > n / 20, "{ended} of {n} ended");
}

/// Runs cut into pieces at random passes, each piece on a random variant
/// through a snapshot, answer as the reference's whole runs: one stream
/// and scenarios, each with cuts (docs/pause.md).
#[test]
fn runs_in_pieces_agree() {
    let seen = pass(Target::Resume, 2_000, |i| {
        let mut b = random_bytes(i ^ 0x9E5, 2048 + 8);
        // Every other input a scenario, and at least one cut.
        b[0] = (b[0] & !1) | (i & 1) as u8 | 2;
        b
    });
    let streams = seen
        .iter()
        .filter(|a| matches!(a, Agreement::Sim { .. }))
        .count();
    let scenarios = seen
        .iter()
        .filter(|a| matches!(a, Agreement::Scenario { .. }))
        .count();
    assert!(
        streams >= 50 && scenarios >= 50,
        "{streams} streams, {scenarios} scenarios"
    );
}

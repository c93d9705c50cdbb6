//! `kmst_harness::compare`: statistics on samples worked by hand, micro-op counts
//! worked from the workload sources, the agreement check on a planted
//! disagreement, and the renderings of a hand-made report.

use kmst::Observer;
use kmst::exec::{Dispatch, simulate, simulate_observed};
use kmst_harness::answers::{Difference, Implementation};
use kmst_harness::compare::{self, BUNDLED, OpCounter, Summary, Workload, t975};

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9 * b.abs().max(1.0)
}

fn bundled(name: &str) -> Workload {
    let (_, source) = BUNDLED.iter().find(|(n, _)| *n == name).unwrap();
    Workload::from_source(name, source).unwrap()
}

#[test]
fn summary_of_five_samples() {
    let s = Summary::of(&[3.0, 1.0, 5.0, 2.0, 4.0]);
    assert_eq!(s.n, 5);
    assert_eq!(s.median, 3.0);
    // n = 5 < 6: no order-statistic interval reaches 95%, so [min, max],
    // which covers 1 - 2 * (1/2)^5 = 1 - 1/16 = 0.9375.
    assert_eq!((s.median_lo, s.median_hi), (1.0, 5.0));
    assert!(close(s.median_level, 0.9375));
    // mean 3; squared deviations 4+1+0+1+4 = 10; variance 10/4; sd = 1.58113883.
    assert!(close(s.mean, 3.0));
    assert!(close(s.stddev, 2.5f64.sqrt()));
    // t(0.975, 4) = 2.776; half width 2.776 * 1.58113883 / sqrt(5) = 1.96292...
    let half = 2.776 * 2.5f64.sqrt() / 5f64.sqrt();
    assert!((half - 1.962927).abs() < 1e-5);
    assert!(close(s.mean_lo, 3.0 - half));
    assert!(close(s.mean_hi, 3.0 + half));
}

#[test]
fn summary_of_an_even_count_takes_the_middle_pair() {
    let s = Summary::of(&[4.0, 1.0, 3.0, 2.0]);
    assert_eq!(s.median, 2.5);
    // One sample: the interval for the mean is unbounded and sd is 0.
    let one = Summary::of(&[7.0]);
    assert_eq!((one.median, one.median_lo, one.median_hi), (7.0, 7.0, 7.0));
    assert_eq!(one.stddev, 0.0);
    assert!(one.mean_hi.is_infinite());
}

#[test]
fn summary_median_interval_of_fifteen_samples() {
    // 1..=15 in a scrambled order.
    let x = [
        9.0, 2.0, 14.0, 7.0, 1.0, 12.0, 5.0, 15.0, 3.0, 10.0, 8.0, 13.0, 4.0, 11.0, 6.0,
    ];
    let s = Summary::of(&x);
    assert_eq!(s.median, 8.0);
    // B ~ Bin(15, 1/2): P(B <= 3) = (1 + 15 + 105 + 455) / 32768 = 576/32768 = 0.0176 <= 0.025,
    // P(B <= 4) = (576 + 1365) / 32768 = 0.0592 > 0.025, so j = 4:
    // [x(4), x(12)] = [4, 12] with coverage 1 - 2 * 576/32768 = 0.96484375.
    assert_eq!((s.median_lo, s.median_hi), (4.0, 12.0));
    assert!(close(s.median_level, 1.0 - 2.0 * 576.0 / 32768.0));
}

#[test]
fn summary_of_six_samples_reaches_95_percent_with_min_and_max() {
    // n = 6: P(B <= 0) = 1/64 = 0.0156 <= 0.025 but P(B <= 1) = 7/64 > 0.025,
    // so j = 1: [min, max] with coverage 1 - 2/64 = 0.96875.
    let s = Summary::of(&[6.0, 5.0, 4.0, 3.0, 2.0, 1.0]);
    assert_eq!((s.median_lo, s.median_hi), (1.0, 6.0));
    assert!(close(s.median_level, 0.96875));
    assert_eq!(s.median, 3.5);
}

#[test]
fn summary_scaling_and_t_quantiles() {
    let s = Summary::of(&[2.0, 4.0, 6.0]).scaled(0.5);
    assert_eq!((s.median, s.median_lo, s.median_hi), (2.0, 1.0, 3.0));
    assert!(close(s.mean, 2.0));
    assert!(close(s.stddev, 1.0)); // sd of 2,4,6 is 2, halved
    assert_eq!(t975(1), 12.706);
    assert_eq!(t975(4), 2.776);
    assert_eq!(t975(30), 2.042);
    assert_eq!(t975(1000), 1.960);
}

#[test]
fn bundled_workloads_load_in_report_order() {
    let names: Vec<String> = compare::bundled()
        .unwrap()
        .into_iter()
        .map(|w| w.name)
        .collect();
    assert_eq!(
        names,
        [
            "alu",
            "alu_chain",
            "rand_mod",
            "branchy",
            "submit_heavy",
            "queue_stress",
            "jobs_1000",
            "long_wait",
            "long_wait_1",
            "four_streams",
            "host_mix"
        ]
    );
    assert_eq!(
        names,
        compare::bundled_names()
            .iter()
            .map(|n| n.to_string())
            .collect::<Vec<_>>()
    );
    // The params directives are read: long_wait's delay is 1,000,000 passes.
    let lw = bundled("long_wait");
    assert_eq!(lw.params.delay, kmst::Delay::Fixed(1_000_000));
    assert_eq!(lw.params.max_passes, 3_000_000);
}

#[test]
fn a_bad_params_directive_is_an_error() {
    let src = ";@ params {\"core_count\": 0}\n.stream max_steps=10 seed=1 req=1\n halt r0\n";
    let e = Workload::from_source("bad", src).unwrap_err().to_string();
    assert!(e.contains("bad") && e.contains("core_count"), "{e}");
}

/// Counts every micro-op through `on_op`, to cross-check the turn reports.
#[derive(Default)]
struct EveryOp(u64);

impl Observer for EveryOp {
    const ENABLED: bool = true;
    fn on_op(&mut self, _pc: u32) {
        self.0 += 1;
    }
}

#[test]
fn micro_op_counts_match_the_sources() {
    // alu: 3 SETs; 1,107 outer rounds of SET + 100 * 9 inner + ADDI + JLT = 903; HALT.
    // 3 + 1,107 * 903 + 1 = 999,625.
    let alu = bundled("alu");
    assert_eq!(compare::count_ops(&alu), 3 + 1_107 * 903 + 1);
    let mut every = EveryOp::default();
    simulate_observed(&alu.upload, &alu.params, Dispatch::Tail, &mut every);
    assert_eq!(every.0, 999_625);
    // alu_chain: 4 SETs; 1,422 outer rounds of SET + 100 * 7 inner + ADDI + JLT = 703; HALT.
    // 4 + 1,422 * 703 + 1 = 999,671.
    assert_eq!(
        compare::count_ops(&bundled("alu_chain")),
        4 + 1_422 * 703 + 1
    );
    // long_wait: 4 SUBMITs, WAIT (counted once, when it goes on), EVENT, HALT.
    assert_eq!(compare::count_ops(&bundled("long_wait")), 7);
    // jobs_1000: 4 SETs, 1,000 rounds of RAND MOD ADDI ENQUEUE ADDI JLT, WAIT, HALT.
    assert_eq!(compare::count_ops(&bundled("jobs_1000")), 4 + 6 * 1_000 + 2);
    let mut c = OpCounter::default();
    simulate_observed(
        &bundled("long_wait_1").upload,
        &bundled("long_wait_1").params,
        Dispatch::Tail,
        &mut c,
    );
    assert_eq!(c.ops, 7);
}

fn bundled_scenario(name: &str) -> Workload {
    let b = compare::BUNDLED_SCENARIOS
        .iter()
        .find(|b| b.name == name)
        .unwrap();
    Workload::from_bundled(b).unwrap()
}

#[test]
fn the_bundled_scenarios_agree_on_every_variant() {
    for name in ["four_streams", "host_mix"] {
        let w = bundled_scenario(name);
        let scenario = w.scenario.as_deref().expect("a scenario workload");
        let passes = compare::check_agreement(&w, &Implementation::all()).unwrap();
        // Each variant's answer is the reference's, field for field.
        let want = kmst_reference::simulate_scenario(scenario);
        assert_eq!(passes, want.passes);
        for &d in Dispatch::ALL {
            assert_eq!(
                compare::simulate_scenario(scenario, d.into()),
                want,
                "{name} {d}"
            );
        }
    }
}

#[test]
fn the_bundled_scenarios_run_what_their_sources_say() {
    // four_streams: four streams of 4 SETs + 2,000 rounds of AND MUL ADD
    // SUBMIT RESULT ADD ADDI AND JNZ JLT (10) + a WAIT 8 every 8th round (250)
    // + WAIT 0 + HALT = 20,256 micro-ops each (a micro-op that waits counts
    // nothing, S17, so the competition for slots changes no count).
    let w = bundled_scenario("four_streams");
    assert_eq!(compare::count_ops(&w), 4 * (4 + 2_000 * 10 + 250 + 2));
    let answer = kmst_reference::simulate_scenario(w.scenario.as_deref().unwrap());
    // 4 x 2,000 SUBMITs and the host's 64 queued jobs; all four halt.
    assert_eq!(answer.commands.len(), 4 * 2_000 + 64);
    let host_jobs = answer
        .commands
        .iter()
        .filter(|c| c.stream.is_none())
        .count();
    assert_eq!(host_jobs, 64);
    assert!(answer.streams.iter().all(|s| s.halt.is_some()));
    assert_eq!(answer.streams.len(), 4);

    // host_mix: 25 rounds of 100 passes. The spinner never waits: one full
    // turn of 64 in each pass it is active, from its RUN in pass 100c to
    // the CANCEL in pass 100c + 40 (before the turns, S29): 40 * 64 = 2,560.
    // The worker: 2 SETs + 200 * (SUBMIT RESULT ADD ADDI WAIT JLT) + WAIT 0
    // + HALT = 1,204, done well before the next round's RUN.
    let w = bundled_scenario("host_mix");
    assert_eq!(compare::count_ops(&w), 25 * (40 * 64 + 1_204));
    let answer = kmst_reference::simulate_scenario(w.scenario.as_deref().unwrap());
    // 50 streams; the second RUN of each round (req 30 active) and the
    // second CANCEL (no such stream) are rejected, and so is every
    // `deadline(0)` (odd rounds: 12).
    assert_eq!(answer.streams.len(), 50);
    let rejected = answer
        .host
        .iter()
        .filter(|h| matches!(h.outcome, kmst_reference::Outcome::Rejected(_)))
        .count();
    assert_eq!(rejected, 25 + 25 + 12);
    // 25 * 200 worker SUBMITs; per round 4 host submits and 3 jobs.
    assert_eq!(answer.commands.len(), 25 * 200 + 25 * (4 + 3));
}

/// The first difference between two runs, as the agreement check names it.
fn first_disagreement(
    reference: &kmst_reference::SimResult,
    got: &kmst_reference::SimResult,
) -> Option<Difference> {
    kmst_harness::answers::run_difference(reference, got).map(|(d, _)| d)
}

#[test]
fn the_agreement_check_finds_a_planted_disagreement() {
    let w = bundled("long_wait_1");
    let reference = kmst_reference::simulate(&w.upload, &w.params);
    let fast = simulate(&w.upload, &w.params, Dispatch::Tail);
    assert_eq!(first_disagreement(&reference, &fast), None);
    assert!(compare::check_agreement(&w, &Implementation::all()).is_ok());

    // A wrong halt value.
    let mut wrong = fast.clone();
    wrong.halt = Some(1);
    let d = first_disagreement(&reference, &wrong).unwrap();
    assert_eq!(d.field, "halt");
    assert_eq!((d.expected.as_str(), d.got.as_str()), ("0", "1"));

    // A command in the wrong slot: the first of the four takes slot 0 (the
    // lowest free), so moving the third to slot 9 is the first difference.
    let mut wrong = fast.clone();
    wrong.commands[2].slot = 9;
    let d = first_disagreement(&reference, &wrong).unwrap();
    assert_eq!(d.field, "commands[2].slot");

    // A missing event.
    let mut wrong = fast;
    wrong.events.pop();
    let d = first_disagreement(&reference, &wrong).unwrap();
    assert_eq!(d.field, "events.len");
}

/// The renderings of a hand-made report, which names the switch loop (so
/// they need its feature).
#[cfg(feature = "switch")]
mod hand_made {
    use std::time::Duration;

    use kmst::exec::Dispatch;
    use kmst_harness::answers::Implementation;
    use kmst_harness::compare::{self, Report, Settings, Summary, VariantResult, WorkloadResult};

    fn hand_report() -> Report {
        // ns per run: tail 2,000, switch 3,000, reference 200,000 on 1,000 micro-ops
        // and 10 passes. Speed-ups are per-sample ratios; with one sample each,
        // tail is 3000/2000 = 1.5x switch and 200000/2000 = 100x reference.
        let one = |v: f64| Summary::of(&[v]);
        let variant = |d, ns: f64| VariantResult {
            variant: d,
            runs_per_sample: 1,
            ns_per_run: one(ns),
            samples: vec![ns],
            speedup_vs_switch: Some(one(3000.0 / ns)),
            speedup_vs_reference: Some(one(200_000.0 / ns)),
            compiled: None,
        };
        Report {
            settings: Settings {
                samples: 1,
                sample_time: Duration::from_millis(5),
            },
            workloads: vec![WorkloadResult {
                name: "w".into(),
                notes: "hand-made".into(),
                ops: 1_000,
                passes: 10,
                variants: vec![
                    variant(Implementation::Fast(Dispatch::Tail), 2_000.0),
                    variant(Implementation::Fast(Dispatch::Switch), 3_000.0),
                    variant(Implementation::Reference, 200_000.0),
                ],
            }],
        }
    }

    /// Every implementation on a workload of `ops` micro-ops and `passes`
    /// passes, each with 21 samples of `ns` times 1 + k * spread (k in 0..21).
    fn wide_report(ops: u64, passes: u64, ns: f64, spread: f64) -> Report {
        let variants = Implementation::all()
            .into_iter()
            .enumerate()
            .map(|(i, d)| {
                let samples: Vec<f64> = (0..21)
                    .map(|k| ns * (i + 1) as f64 * (1.0 + k as f64 * spread))
                    .collect();
                VariantResult {
                    variant: d,
                    runs_per_sample: 1,
                    ns_per_run: Summary::of(&samples),
                    samples,
                    speedup_vs_switch: None,
                    speedup_vs_reference: Some(Summary::of(&[123_456.0])),
                    compiled: None,
                }
            })
            .collect();
        Report {
            settings: Settings {
                samples: 21,
                sample_time: Duration::from_millis(50),
            },
            workloads: vec![WorkloadResult {
                name: "a_workload_with_a_long_name".into(),
                notes: String::new(),
                ops,
                passes,
                variants,
            }],
        }
    }

    #[cfg(feature = "jit")]
    #[test]
    fn the_compiled_tier_shows_its_compile_and_its_run_apart() {
        // A jit row with a compile of 320,000 ns and runs of 120,000 ns on
        // the 1,000 micro-ops of the hand report: 320 µs, 120 ns/op.
        let mut r = hand_report();
        let one = |v: f64| Summary::of(&[v]);
        let mut jit = r.workloads[0].variants[0].clone();
        jit.variant = Implementation::Fast(Dispatch::Jit);
        jit.compiled = Some(compare::Compiled {
            compile: one(320_000.0),
            run: one(120_000.0),
        });
        r.workloads[0].variants.push(jit);
        let table = compare::render_table(&r, Implementation::Fast(Dispatch::Tail));
        assert!(
            table.contains("  jit: compile 320 µs, then the run alone 120 ns/op (medians)"),
            "{table}"
        );
        assert!(table.lines().map(str::len).max().unwrap() <= compare::TABLE_WIDTH);
        let v = compare::to_json(&r);
        let jit = &v["workloads"][0]["variants"][3];
        assert_eq!(jit["compile_ns"]["median"], 320_000.0);
        assert_eq!(jit["run_alone_ns"]["median"], 120_000.0);
        assert!(v["workloads"][0]["variants"][0].get("compile_ns").is_none());
    }

    #[test]
    fn the_table_fits_a_100_column_terminal() {
        // The widest numbers the bundled set gives (long_wait on the
        // reference model: some 170,000,000 ns per micro-op over 7
        // micro-ops and 1,000,002 passes), intervals of +-100%.
        let r = wide_report(7, 1_000_002, 1.2e9, 0.1);
        let table = compare::render_table(&r, Implementation::Fast(Dispatch::Tail));
        let widest = table.lines().map(str::len).max().unwrap();
        assert!(widest <= compare::TABLE_WIDTH, "{widest} columns:\n{table}");
        assert!(!table.contains("widen"), "{table}");
        // 21 samples: the interval [x(6), x(16)] covers 97.3% (1 - 2 P(B <= 5),
        // B ~ Bin(21, 1/2) = 1 - 2 * 0.01330 = 0.9734).
        assert!(table.contains("97.3% interval"), "{table}");
        // Intervals wider than any timing gives: the table says how to widen.
        let r = wide_report(7, 1_000_002, 1.2e9, 1e9);
        let table = compare::render_table(&r, Implementation::Fast(Dispatch::Tail));
        assert!(table.lines().map(str::len).max().unwrap() > compare::TABLE_WIDTH);
        assert!(
            table.contains("widen the terminal, or use --json"),
            "{table}"
        );
    }

    #[test]
    fn the_table_shows_per_op_per_pass_and_speedups() {
        let table = compare::render_table(&hand_report(), Implementation::Fast(Dispatch::Switch));
        assert!(
            table.starts_with("w: 1,000 micro-ops, 10 passes\n"),
            "{table}"
        );
        let tail = table
            .lines()
            .find(|l| l.trim_start().starts_with("tail "))
            .unwrap();
        let cells: Vec<&str> = tail.split_whitespace().collect();
        // tail: 2,000 ns / 1,000 micro-ops = 2.00 ns/op, one sample so its
        // interval is the median itself; ns/pass 2000/10 = 200; Mops/s =
        // 1000 ops / 2000 ns = 500; x switch 3000/2000 = 1.50; x reference
        // 200000/2000 = 100.
        assert_eq!(
            cells,
            [
                "tail", "2.00", "[0%,", "0%]", "200", "500", "1.50", "[0%,", "0%]", "100"
            ]
        );
        // The baseline's column is named for it.
        assert!(table.contains("x switch"), "{table}");
        assert!(table.contains("1 sample per cell"), "{table}");
        // One sample: its interval is [min, max], which covers 1 - 2 * 1/2 = 0.
        assert!(table.contains("0.0% interval"), "{table}");
        let over_tail = compare::render_table(&hand_report(), Implementation::Fast(Dispatch::Tail));
        let switch = over_tail
            .lines()
            .find(|l| l.trim_start().starts_with("switch "))
            .unwrap();
        // switch over tail: 2000/3000 = 0.667.
        assert_eq!(
            switch.split_whitespace().nth(6),
            Some("0.667"),
            "{over_tail}"
        );
    }

    #[test]
    fn the_json_has_the_documented_shape() {
        let v = compare::to_json(&hand_report());
        assert_eq!(v["settings"]["samples"], 1);
        assert_eq!(v["settings"]["sample_time_ms"], 5);
        let w = &v["workloads"][0];
        assert_eq!(w["name"], "w");
        assert_eq!(w["ops"], 1000);
        assert_eq!(w["passes"], 10);
        let tail = &w["variants"][0];
        assert_eq!(tail["variant"], "tail");
        assert_eq!(tail["ns_per_run"]["median"], 2000.0);
        assert_eq!(tail["ns_per_op"]["median"], 2.0);
        assert_eq!(tail["ns_per_pass"]["median"], 200.0);
        assert_eq!(tail["ops_per_second"], 5e8);
        assert_eq!(tail["speedup_vs_switch"]["median"], 1.5);
        assert_eq!(tail["speedup_vs_reference"]["median"], 100.0);
        assert_eq!(tail["ns_per_run"]["median_ci"].as_array().unwrap().len(), 2);
        // One sample: the mean's t-interval is unbounded, written as null.
        assert_eq!(tail["ns_per_run"]["mean_ci"][0], serde_json::Value::Null);
    }
}

//! `kmst compare`: how fast each dispatch variant runs the benchmark workloads.
//!
//! The project's main job is to show that the fast interpreter gives the
//! reference model's answers much faster. This module holds everything but
//! the command line:
//!
//! - the [`Workload`]s: the named benchmark streams bundled into the binary
//!   ([`bundled`], sources in `corpus/bench/` and `corpus/streams/jobs_1000.kms`)
//!   or any `.kms` source with `;@ params` directives ([`Workload::from_source`],
//!   read with the corpus loader's [`parse_directives`]);
//! - the agreement check: every variant's [`SimResult`] must equal the
//!   reference model's ([`first_disagreement`] names the first differing field);
//! - micro-op counting in a separate, untimed run through an [`Observer`]
//!   ([`count_ops`]), so the timed runs carry no counting cost;
//! - timing: the variants run round-robin, sample by sample, so that a load
//!   change on a shared machine hits every variant alike, and each speed-up is
//!   the median of the per-sample ratios ([`measure`]);
//! - statistics ([`Summary`]): the median with a distribution-free confidence
//!   interval from order statistics, and the mean with a Student-t interval;
//! - rendering: a text table ([`render_table`]), JSON ([`to_json`]) and an SVG
//!   bar chart ([`render_svg`]).

use std::fmt;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::corpus::{Difference, first_difference, parse_directives, run_json};
use crate::exec::{Dispatch, Observer, TurnEnd, simulate, simulate_observed};
use crate::reference::{Params, SimResult};

// ---------------------------------------------------------------------------
// Workloads.

/// The bundled workloads: name and `.kms` source, in the order they are reported.
pub const BUNDLED: [(&str, &str); 9] = [
    ("alu", include_str!("../../../corpus/bench/alu.kms")),
    (
        "alu_chain",
        include_str!("../../../corpus/bench/alu_chain.kms"),
    ),
    ("rand_mod", include_str!("../../../corpus/bench/rand_mod.kms")),
    ("branchy", include_str!("../../../corpus/bench/branchy.kms")),
    (
        "submit_heavy",
        include_str!("../../../corpus/bench/submit_heavy.kms"),
    ),
    (
        "queue_stress",
        include_str!("../../../corpus/bench/queue_stress.kms"),
    ),
    (
        "jobs_1000",
        include_str!("../../../corpus/streams/jobs_1000.kms"),
    ),
    (
        "long_wait",
        include_str!("../../../corpus/bench/long_wait.kms"),
    ),
    (
        "long_wait_1",
        include_str!("../../../corpus/bench/long_wait_1.kms"),
    ),
];

/// One benchmark stream: its upload and the parameters it runs with.
#[derive(Clone, Debug)]
pub struct Workload {
    pub name: String,
    /// The `;@ notes` of its source: what it exercises.
    pub notes: String,
    pub upload: Vec<u8>,
    pub params: Params,
}

/// Why compare could not run or found the variants disagreeing.
#[derive(Debug)]
pub enum CompareError {
    /// A workload source's directives, parameters or assembly are bad.
    Workload { name: String, message: String },
    /// A variant's answer differs from the reference model's.
    Disagreement {
        workload: String,
        variant: Dispatch,
        difference: Difference,
    },
    /// A requested dispatch variant is the reference model or not built in.
    Variant(String),
}

impl fmt::Display for CompareError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CompareError::Workload { name, message } => write!(f, "workload {name}: {message}"),
            CompareError::Disagreement {
                workload,
                variant,
                difference,
            } => write!(
                f,
                "workload {workload}: {variant} disagrees with the reference model at {difference}"
            ),
            CompareError::Variant(message) => write!(f, "{message}"),
        }
    }
}

impl std::error::Error for CompareError {}

impl Workload {
    /// A workload from a `.kms` source whose `;@ params` give its parameters.
    pub fn from_source(name: &str, source: &str) -> Result<Workload, CompareError> {
        let bad = |message: String| CompareError::Workload {
            name: name.to_owned(),
            message,
        };
        let directives = parse_directives(name, source).map_err(|e| bad(e.to_string()))?;
        let params = Params::from_json_value(&Value::Object(directives.params))
            .map_err(|e| bad(format!("params: {e}")))?;
        let upload = crate::asm::assemble(source).map_err(|e| bad(e.to_string()))?;
        Ok(Workload {
            name: name.to_owned(),
            notes: directives.notes,
            upload,
            params,
        })
    }
}

/// The bundled workloads ([`BUNDLED`]), assembled.
pub fn bundled() -> Result<Vec<Workload>, CompareError> {
    BUNDLED
        .iter()
        .map(|(name, source)| Workload::from_source(name, source))
        .collect()
}

// ---------------------------------------------------------------------------
// Agreement and counting.

/// The first field where `got` differs from the reference answer, as the
/// corpus compares answers (S24 JSON, keys in the saved order).
pub fn first_disagreement(reference: &SimResult, got: &SimResult) -> Option<Difference> {
    if reference == got {
        return None;
    }
    let a = Value::Object(run_json(reference));
    let b = Value::Object(run_json(got));
    // Equal JSON but unequal values can only differ in the parameters.
    Some(first_difference(&a, &b).unwrap_or_else(|| Difference {
        field: "params".into(),
        expected: format!("{:?}", reference.params),
        got: format!("{:?}", got.params),
    }))
}

/// Runs `workload` once with every variant and checks each answer against the
/// reference model's; returns the reference answer.
pub fn check_agreement(
    workload: &Workload,
    variants: &[Dispatch],
) -> Result<SimResult, CompareError> {
    let reference = simulate(&workload.upload, &workload.params, Dispatch::Reference);
    for &v in variants.iter().filter(|&&v| v != Dispatch::Reference) {
        let got = simulate(&workload.upload, &workload.params, v);
        if let Some(difference) = first_disagreement(&reference, &got) {
            return Err(CompareError::Disagreement {
                workload: workload.name.clone(),
                variant: v,
                difference,
            });
        }
    }
    Ok(reference)
}

/// Counts micro-ops from the turn reports (a micro-op that waits does not count, S17).
#[derive(Clone, Copy, Debug, Default)]
pub struct OpCounter {
    pub ops: u64,
    pub turns: u64,
}

impl Observer for OpCounter {
    fn on_turn_end(&mut self, _pass: u64, _stream: usize, ops: u32, _why: TurnEnd, _pc: u32) {
        self.ops += u64::from(ops);
        self.turns += 1;
    }
}

/// Micro-ops `workload` executes, counted in an untimed run of the default
/// fast variant.
pub fn count_ops(workload: &Workload) -> u64 {
    let mut counter = OpCounter::default();
    simulate_observed(
        &workload.upload,
        &workload.params,
        Dispatch::Tail,
        &mut counter,
    );
    counter.ops
}

// ---------------------------------------------------------------------------
// Statistics.

/// Two-sided 97.5% quantiles of Student's t for 1..=30 degrees of freedom.
const T975: [f64; 30] = [
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
    2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
    2.052, 2.048, 2.045, 2.042,
];

/// The 97.5% quantile of Student's t with `df` degrees of freedom (the
/// normal 1.960 above 30 is within 4% for the sample counts used here).
pub fn t975(df: usize) -> f64 {
    match df {
        0 => f64::INFINITY,
        1..=30 => T975[df - 1],
        31..=60 => 2.000,
        61..=120 => 1.980,
        _ => 1.960,
    }
}

/// What a set of samples says: centre and 95% intervals.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Summary {
    pub n: usize,
    pub median: f64,
    /// The median's distribution-free interval `[x(j), x(n+1-j)]` (order
    /// statistics, 1-based), the narrowest with coverage of at least 95%, or
    /// `[min, max]` when no such interval exists for this n.
    pub median_lo: f64,
    pub median_hi: f64,
    /// The actual coverage of `[median_lo, median_hi]`: `1 - 2 P(B <= j-1)`, B ~ Bin(n, 1/2).
    pub median_level: f64,
    pub mean: f64,
    /// Sample standard deviation (n - 1 in the denominator; 0 for one sample).
    pub stddev: f64,
    /// `mean ± t(0.975, n-1) stddev / sqrt(n)` (infinite for one sample).
    pub mean_lo: f64,
    pub mean_hi: f64,
}

/// `P(B <= k)` for B ~ Binomial(n, 1/2).
fn binomial_half_cdf(n: usize, k: usize) -> f64 {
    let mut term = 0.5f64.powi(n as i32); // C(n, 0) / 2^n
    let mut sum = 0.0;
    for i in 0..=k.min(n) {
        sum += term;
        term = term * (n - i) as f64 / (i + 1) as f64;
    }
    sum
}

impl Summary {
    /// Summarises `samples` (at least one; NaNs are not expected).
    pub fn of(samples: &[f64]) -> Summary {
        let mut x = samples.to_vec();
        x.sort_by(f64::total_cmp);
        let n = x.len();
        assert!(n > 0, "a summary needs at least one sample");
        let median = if n % 2 == 1 {
            x[n / 2]
        } else {
            (x[n / 2 - 1] + x[n / 2]) / 2.0
        };
        // Largest j with P(B <= j-1) <= 0.025: [x(j), x(n+1-j)] covers >= 95%.
        let mut j = 1;
        while j < n / 2 && binomial_half_cdf(n, j) <= 0.025 {
            j += 1;
        }
        let median_level = 1.0 - 2.0 * binomial_half_cdf(n, j - 1);
        let mean = x.iter().sum::<f64>() / n as f64;
        let stddev = if n > 1 {
            (x.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt()
        } else {
            0.0
        };
        let half = if n > 1 {
            t975(n - 1) * stddev / (n as f64).sqrt()
        } else {
            f64::INFINITY
        };
        Summary {
            n,
            median,
            median_lo: x[j - 1],
            median_hi: x[n - j],
            median_level,
            mean,
            stddev,
            mean_lo: mean - half,
            mean_hi: mean + half,
        }
    }

    /// The same summary with every value multiplied by `k > 0` (units).
    pub fn scaled(&self, k: f64) -> Summary {
        Summary {
            median: self.median * k,
            median_lo: self.median_lo * k,
            median_hi: self.median_hi * k,
            mean: self.mean * k,
            stddev: self.stddev * k,
            mean_lo: self.mean_lo * k,
            mean_hi: self.mean_hi * k,
            ..*self
        }
    }

    fn to_json(self) -> Value {
        let num = |v: f64| {
            if v.is_finite() { json!(v) } else { Value::Null }
        };
        json!({
            "n": self.n,
            "median": num(self.median),
            "median_ci": [num(self.median_lo), num(self.median_hi)],
            "median_ci_level": num(self.median_level),
            "mean": num(self.mean),
            "stddev": num(self.stddev),
            "mean_ci": [num(self.mean_lo), num(self.mean_hi)],
        })
    }
}

// ---------------------------------------------------------------------------
// Timing.

/// How long to measure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Settings {
    /// Samples per variant and workload.
    pub samples: usize,
    /// Each sample repeats the run until it has taken at least this long.
    pub sample_time: Duration,
}

impl Settings {
    /// A few seconds for all the bundled workloads (CI).
    pub const QUICK: Settings = Settings {
        samples: 7,
        sample_time: Duration::from_millis(3),
    };
    /// About a minute for all the bundled workloads.
    pub const DEFAULT: Settings = Settings {
        samples: 21,
        sample_time: Duration::from_millis(50),
    };
    /// Several minutes, for documentation.
    pub const FULL: Settings = Settings {
        samples: 41,
        sample_time: Duration::from_millis(200),
    };
}

/// One variant's measurement on one workload.
#[derive(Clone, Debug)]
pub struct VariantResult {
    pub variant: Dispatch,
    /// Runs per sample.
    pub runs_per_sample: u64,
    /// Nanoseconds per whole run (check, pre-decode and simulation).
    pub ns_per_run: Summary,
    /// The median of the per-sample ratios `switch time / this time`.
    pub speedup_vs_switch: Option<Summary>,
    /// The median of the per-sample ratios `reference time / this time`.
    pub speedup_vs_reference: Option<Summary>,
}

/// One workload's measurements.
#[derive(Clone, Debug)]
pub struct WorkloadResult {
    pub name: String,
    pub notes: String,
    /// Micro-ops executed (counted in a separate run).
    pub ops: u64,
    /// Passes of the answer.
    pub passes: u64,
    pub variants: Vec<VariantResult>,
}

impl WorkloadResult {
    /// The result of `variant`, if it was measured.
    pub fn get(&self, variant: Dispatch) -> Option<&VariantResult> {
        self.variants.iter().find(|v| v.variant == variant)
    }
}

/// Everything one compare run found.
#[derive(Clone, Debug)]
pub struct Report {
    pub settings: Settings,
    pub workloads: Vec<WorkloadResult>,
}

fn time_runs(workload: &Workload, variant: Dispatch, runs: u64) -> Duration {
    let start = Instant::now();
    for _ in 0..runs {
        std::hint::black_box(simulate(
            std::hint::black_box(&workload.upload),
            &workload.params,
            variant,
        ));
    }
    start.elapsed()
}

/// Per-sample ratios `base[i] / t[i]`.
fn ratios(base: &[f64], t: &[f64]) -> Summary {
    let r: Vec<f64> = base.iter().zip(t).map(|(b, t)| b / t).collect();
    Summary::of(&r)
}

/// Checks agreement, counts micro-ops and times `variants` on `workload`.
/// `progress` is told each step (for a terminal).
pub fn measure(
    workload: &Workload,
    variants: &[Dispatch],
    settings: Settings,
    progress: &mut dyn FnMut(&str),
) -> Result<WorkloadResult, CompareError> {
    progress(&format!("{}: checking agreement", workload.name));
    let answer = check_agreement(workload, variants)?;
    let ops = count_ops(workload);
    // Calibrate: one run each (warm-up), then enough runs to fill a sample.
    let runs: Vec<u64> = variants
        .iter()
        .map(|&v| {
            let once = time_runs(workload, v, 1).as_nanos().max(1);
            (settings.sample_time.as_nanos() / once).clamp(1, 1_000_000) as u64
        })
        .collect();
    let mut samples: Vec<Vec<f64>> = vec![Vec::with_capacity(settings.samples); variants.len()];
    for i in 0..settings.samples {
        progress(&format!(
            "{}: sample {}/{}",
            workload.name,
            i + 1,
            settings.samples
        ));
        for (k, &v) in variants.iter().enumerate() {
            let t = time_runs(workload, v, runs[k]);
            samples[k].push(t.as_nanos() as f64 / runs[k] as f64);
        }
    }
    let index = |d: Dispatch| variants.iter().position(|&v| v == d);
    #[cfg(feature = "switch")]
    let switch = index(Dispatch::Switch);
    #[cfg(not(feature = "switch"))]
    let switch: Option<usize> = None;
    let reference = index(Dispatch::Reference);
    let results = variants
        .iter()
        .enumerate()
        .map(|(k, &v)| VariantResult {
            variant: v,
            runs_per_sample: runs[k],
            ns_per_run: Summary::of(&samples[k]),
            speedup_vs_switch: switch.map(|s| ratios(&samples[s], &samples[k])),
            speedup_vs_reference: reference.map(|r| ratios(&samples[r], &samples[k])),
        })
        .collect();
    Ok(WorkloadResult {
        name: workload.name.clone(),
        notes: workload.notes.clone(),
        ops,
        passes: answer.passes,
        variants: results,
    })
}

/// [`measure`] on every workload.
pub fn compare(
    workloads: &[Workload],
    variants: &[Dispatch],
    settings: Settings,
    progress: &mut dyn FnMut(&str),
) -> Result<Report, CompareError> {
    let workloads = workloads
        .iter()
        .map(|w| measure(w, variants, settings, progress))
        .collect::<Result<_, _>>()?;
    Ok(Report {
        settings,
        workloads,
    })
}

// ---------------------------------------------------------------------------
// Rendering.

fn per(total: f64, count: u64) -> f64 {
    if count == 0 {
        f64::NAN
    } else {
        total / count as f64
    }
}

/// A number in a table cell: three significant figures, plain notation.
fn fmt3(v: f64) -> String {
    if !v.is_finite() {
        return "-".into();
    }
    let a = v.abs();
    if a >= 100.0 {
        format!("{v:.0}")
    } else if a >= 10.0 {
        format!("{v:.1}")
    } else if a >= 1.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.3}")
    }
}

fn fmt_ci(s: &Summary) -> String {
    format!(
        "{} [{}, {}]",
        fmt3(s.median),
        fmt3(s.median_lo),
        fmt3(s.median_hi)
    )
}

/// A large count with thousands separators.
fn fmt_count(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The report as an aligned text table. Intervals are the medians' 95%
/// intervals; speed-ups are medians of per-sample ratios.
pub fn render_table(report: &Report) -> String {
    let header = [
        "workload",
        "variant",
        "micro-ops",
        "passes",
        "ns/op [95% CI]",
        "ns/pass",
        "Mops/s",
        "x switch [95% CI]",
        "x reference [95% CI]",
    ];
    let mut rows: Vec<[String; 9]> = Vec::new();
    for w in &report.workloads {
        for v in &w.variants {
            let run = &v.ns_per_run;
            let ns_op = run.scaled(1.0 / w.ops.max(1) as f64);
            rows.push([
                w.name.clone(),
                v.variant.name().to_owned(),
                fmt_count(w.ops),
                fmt_count(w.passes),
                if w.ops == 0 {
                    "-".into()
                } else {
                    fmt_ci(&ns_op)
                },
                fmt3(per(run.median, w.passes)),
                fmt3(w.ops as f64 / run.median * 1e3),
                v.speedup_vs_switch.as_ref().map_or("-".into(), fmt_ci),
                v.speedup_vs_reference.as_ref().map_or("-".into(), fmt_ci),
            ]);
        }
    }
    let mut width = header.map(str::len);
    for row in &rows {
        for (w, cell) in width.iter_mut().zip(row) {
            *w = (*w).max(cell.len());
        }
    }
    let line = |cells: &[&str]| {
        let mut s = String::new();
        for (i, (cell, w)) in cells.iter().zip(width).enumerate() {
            if i > 0 {
                s.push_str("  ");
            }
            // Names left-aligned, numbers right-aligned.
            if i < 2 {
                s.push_str(&format!("{cell:<w$}"));
            } else {
                s.push_str(&format!("{cell:>w$}"));
            }
        }
        s.trim_end().to_owned() + "\n"
    };
    let mut out = line(&header);
    let mut last = "";
    for row in &rows {
        if !last.is_empty() && last != row[0] {
            out.push('\n');
        }
        last = &row[0];
        out.push_str(&line(&row.each_ref().map(String::as_str)));
    }
    out.push_str(&format!(
        "\n{} samples per cell, each at least {} ms; intervals: the median's 95% order-statistic interval.\n",
        report.settings.samples,
        report.settings.sample_time.as_millis()
    ));
    out
}

/// The report as JSON:
/// `{"settings": {samples, sample_time_ms}, "workloads": [{name, notes, ops,
/// passes, variants: [{variant, runs_per_sample, ns_per_run, ns_per_op,
/// ns_per_pass, ops_per_second, speedup_vs_switch, speedup_vs_reference}]}]}`,
/// each timing a summary object (`n`, `median`, `median_ci`,
/// `median_ci_level`, `mean`, `stddev`, `mean_ci`); a speed-up is null when
/// its base was not measured, `ns_per_op` when no micro-op ran.
pub fn to_json(report: &Report) -> Value {
    let workloads: Vec<Value> = report
        .workloads
        .iter()
        .map(|w| {
            let variants: Vec<Value> = w
                .variants
                .iter()
                .map(|v| {
                    let run = v.ns_per_run;
                    json!({
                        "variant": v.variant.name(),
                        "runs_per_sample": v.runs_per_sample,
                        "ns_per_run": run.to_json(),
                        "ns_per_op": if w.ops == 0 { Value::Null } else {
                            run.scaled(1.0 / w.ops as f64).to_json()
                        },
                        "ns_per_pass": if w.passes == 0 { Value::Null } else {
                            run.scaled(1.0 / w.passes as f64).to_json()
                        },
                        "ops_per_second": w.ops as f64 / run.median * 1e9,
                        "speedup_vs_switch": v.speedup_vs_switch.map_or(Value::Null, Summary::to_json),
                        "speedup_vs_reference": v.speedup_vs_reference.map_or(Value::Null, Summary::to_json),
                    })
                })
                .collect();
            json!({
                "name": w.name,
                "notes": w.notes,
                "ops": w.ops,
                "passes": w.passes,
                "variants": variants,
            })
        })
        .collect();
    json!({
        "settings": {
            "samples": report.settings.samples,
            "sample_time_ms": report.settings.sample_time.as_millis() as u64,
        },
        "workloads": workloads,
    })
}

/// A bar chart of nanoseconds per run (log scale), one group of bars per
/// workload, one bar per variant, with the medians' 95% intervals as whiskers.
pub fn render_svg(report: &Report) -> Result<String, String> {
    use plotters::prelude::*;

    let mut variants: Vec<Dispatch> = Vec::new();
    for w in &report.workloads {
        for v in &w.variants {
            if !variants.contains(&v.variant) {
                variants.push(v.variant);
            }
        }
    }
    let values = report
        .workloads
        .iter()
        .flat_map(|w| w.variants.iter())
        .flat_map(|v| [v.ns_per_run.median_lo, v.ns_per_run.median_hi]);
    let (lo, hi) = values.fold((f64::INFINITY, 0.0f64), |(lo, hi), v| {
        (lo.min(v.max(1.0)), hi.max(v))
    });
    if report.workloads.is_empty() || !lo.is_finite() {
        return Err("nothing to plot".into());
    }
    let (lo, hi) = (
        10f64.powf(lo.log10().floor()),
        10f64.powf(hi.log10().ceil()),
    );
    let n = report.workloads.len();
    let names: Vec<String> = report.workloads.iter().map(|w| w.name.clone()).collect();
    let palette = [
        RGBColor(0x1f, 0x77, 0xb4),
        RGBColor(0xff, 0x7f, 0x0e),
        RGBColor(0x2c, 0xa0, 0x2c),
        RGBColor(0xd6, 0x27, 0x28),
        RGBColor(0x94, 0x67, 0xbd),
    ];
    let mut svg = String::new();
    {
        let width = (160 * n as u32).max(640);
        let root = SVGBackend::with_string(&mut svg, (width, 480)).into_drawing_area();
        let e = |e: DrawingAreaErrorKind<_>| e.to_string();
        root.fill(&WHITE).map_err(e)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(
                "kmst compare: time per run (lower is faster)",
                ("sans-serif", 20),
            )
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(70)
            .build_cartesian_2d(0f64..n as f64, (lo..hi).log_scale())
            .map_err(e)?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(n * 2 + 1)
            .x_label_formatter(&|x| {
                let i = x.floor() as usize;
                // Label only the group centres.
                if (x - (i as f64 + 0.5)).abs() < 1e-6 && i < names.len() {
                    names[i].clone()
                } else {
                    String::new()
                }
            })
            .y_desc("ns per run")
            .draw()
            .map_err(e)?;
        let bar = 0.8 / variants.len() as f64;
        for (k, &variant) in variants.iter().enumerate() {
            let color = palette[k % palette.len()];
            let mut bars = Vec::new();
            let mut whiskers = Vec::new();
            for (i, w) in report.workloads.iter().enumerate() {
                let Some(v) = w.get(variant) else { continue };
                let x0 = i as f64 + 0.1 + bar * k as f64;
                let s = v.ns_per_run;
                bars.push(Rectangle::new(
                    [(x0, lo), (x0 + bar * 0.9, s.median.max(lo))],
                    color.filled(),
                ));
                let xm = x0 + bar * 0.45;
                whiskers.push(PathElement::new(
                    vec![(xm, s.median_lo.max(lo)), (xm, s.median_hi.max(lo))],
                    BLACK.stroke_width(1),
                ));
            }
            chart
                .draw_series(bars)
                .map_err(e)?
                .label(variant.name())
                .legend(move |(x, y)| {
                    Rectangle::new([(x, y - 5), (x + 10, y + 5)], color.filled())
                });
            chart.draw_series(whiskers).map_err(e)?;
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .position(SeriesLabelPosition::UpperLeft)
            .draw()
            .map_err(e)?;
        root.present().map_err(e)?;
    }
    Ok(svg)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binomial_half_cdf_small_cases() {
        // n = 4: P(B <= 1) = (1 + 4) / 16.
        assert!((binomial_half_cdf(4, 1) - 5.0 / 16.0).abs() < 1e-12);
        // n = 3: P(B <= 3) = 1.
        assert!((binomial_half_cdf(3, 3) - 1.0).abs() < 1e-12);
    }

    #[test]
    fn fmt_count_groups_thousands() {
        assert_eq!(fmt_count(999_671), "999,671");
        assert_eq!(fmt_count(7), "7");
        assert_eq!(fmt_count(1_000), "1,000");
    }
}

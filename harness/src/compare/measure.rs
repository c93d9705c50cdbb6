//! Timing: the variants run round-robin, sample by sample, so that a load
//! change on a shared machine hits every variant alike.

use std::time::{Duration, Instant};

#[cfg(any(feature = "switch", feature = "jit"))]
use kmst::exec::Dispatch;

use crate::answers::Implementation;

use super::stats::Summary;
use super::workload::{CompareError, Workload, check_agreement, count_ops};

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
    pub variant: Implementation,
    /// Runs per sample.
    pub runs_per_sample: u64,
    /// Nanoseconds per whole run (check, pre-decode and simulation).
    pub ns_per_run: Summary,
    /// Each sample's nanoseconds per run, in the order taken (the variants
    /// took their samples round-robin, so sample i of two variants ran
    /// side by side: [`WorkloadResult::speedup`] divides them).
    pub samples: Vec<f64>,
    /// The median of the per-sample ratios `switch time / this time`.
    pub speedup_vs_switch: Option<Summary>,
    /// The median of the per-sample ratios `reference time / this time`.
    pub speedup_vs_reference: Option<Summary>,
    /// The compiled tier's (`jit`, one stream) compile and run apart:
    /// nanoseconds to check, decode and compile the upload, and per run of
    /// the compiled program ([`kmst::exec::Prepared`]).
    pub compiled: Option<Compiled>,
}

/// A compiled variant's costs taken apart, each a summary of nanoseconds.
#[derive(Clone, Copy, Debug)]
pub struct Compiled {
    /// Check, decode and compile, once.
    pub compile: Summary,
    /// One run of the compiled program.
    pub run: Summary,
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
    pub fn get(&self, variant: Implementation) -> Option<&VariantResult> {
        self.variants.iter().find(|v| v.variant == variant)
    }

    /// How many times faster `variant` ran than `baseline`: the median of
    /// the per-sample ratios `baseline time / variant time`, with its
    /// interval; `None` unless both were measured with the same samples.
    pub fn speedup(&self, variant: Implementation, baseline: Implementation) -> Option<Summary> {
        let (v, b) = (self.get(variant)?, self.get(baseline)?);
        (!v.samples.is_empty() && v.samples.len() == b.samples.len())
            .then(|| ratios(&b.samples, &v.samples))
    }
}

/// Everything one compare run found.
#[derive(Clone, Debug)]
pub struct Report {
    pub settings: Settings,
    pub workloads: Vec<WorkloadResult>,
}

fn time_runs(workload: &Workload, variant: Implementation, runs: u64) -> Duration {
    let start = Instant::now();
    for _ in 0..runs {
        std::hint::black_box(workload.run_once(variant));
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
    variants: &[Implementation],
    settings: Settings,
    progress: &mut dyn FnMut(&str),
) -> Result<WorkloadResult, CompareError> {
    progress(&format!("{}: checking agreement", workload.name));
    let passes = check_agreement(workload, variants)?;
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
    let index = |d: Implementation| variants.iter().position(|&v| v == d);
    #[cfg(feature = "switch")]
    let switch = index(Implementation::Fast(Dispatch::Switch));
    #[cfg(not(feature = "switch"))]
    let switch: Option<usize> = None;
    let reference = index(Implementation::Reference);
    let results = variants
        .iter()
        .enumerate()
        .map(|(k, &v)| VariantResult {
            variant: v,
            runs_per_sample: runs[k],
            ns_per_run: Summary::of(&samples[k]),
            samples: samples[k].clone(),
            speedup_vs_switch: switch.map(|s| ratios(&samples[s], &samples[k])),
            speedup_vs_reference: reference.map(|r| ratios(&samples[r], &samples[k])),
            compiled: compiled_apart(workload, v, runs[k], settings.samples),
        })
        .collect();
    Ok(WorkloadResult {
        name: workload.name.clone(),
        notes: workload.notes.clone(),
        ops,
        passes,
        variants: results,
    })
}

/// The compile and the run of `variant` apart, `samples` of each, the run
/// `runs` times a sample: for the compiled tier on one stream only.
fn compiled_apart(
    workload: &Workload,
    variant: Implementation,
    runs: u64,
    samples: usize,
) -> Option<Compiled> {
    #[cfg(feature = "jit")]
    if variant == Implementation::Fast(Dispatch::Jit) && workload.scenario.is_none() {
        use kmst::exec::{NoObserver, Prepared};
        let (mut compile, mut run) = (Vec::new(), Vec::new());
        for _ in 0..samples.max(1) {
            let t = Instant::now();
            let mut p = Prepared::new(&workload.upload).ok()?;
            p.prepare::<NoObserver>(Dispatch::Jit);
            compile.push(t.elapsed().as_nanos() as f64);
            let t = Instant::now();
            for _ in 0..runs {
                std::hint::black_box(p.simulate(&workload.params, Dispatch::Jit));
            }
            run.push(t.elapsed().as_nanos() as f64 / runs as f64);
        }
        return Some(Compiled {
            compile: Summary::of(&compile),
            run: Summary::of(&run),
        });
    }
    let _ = (workload, variant, runs, samples);
    None
}

/// [`measure`] on every workload.
pub fn compare(
    workloads: &[Workload],
    variants: &[Implementation],
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

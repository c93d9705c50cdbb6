//! `kmst compare --counters`: instructions, conditional and indirect
//! branches and their mispredictions per micro-op, counted by valgrind's
//! callgrind with its branch simulator over the measured runs only.
//!
//! Callgrind counts a whole process, so the counting happens in a child:
//! the caller says how to start one that builds the same workload, runs it
//! once as a warm-up ([`run_child`]) and then `runs` times inside
//! [`measured_runs`]. The child runs under
//! `valgrind --tool=callgrind --branch-sim=yes --collect-atstart=no
//! --toggle-collect=kmst_harness::compare::counters::measured_runs*`, so the
//! process's start, the workload's assembly and the warm-up are not counted
//! (the simulated branch predictor still learns during the warm-up); the
//! totals come from callgrind's output file ([`parse_callgrind`]).

use std::ffi::OsString;
use std::fmt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::answers::Implementation;

use super::workload::{CompareError, Workload, check_agreement, count_ops};

/// The callgrind events read, in [`Counters::values`] order.
pub const EVENTS: [&str; 5] = ["Ir", "Bc", "Bcm", "Bi", "Bim"];

/// The names of [`Counters::values`] in JSON.
pub const COUNTER_NAMES: [&str; 5] = [
    "instructions",
    "conditional_branches",
    "conditional_mispredictions",
    "indirect_branches",
    "indirect_mispredictions",
];

/// The function whose calls callgrind counts (`--toggle-collect`).
pub const MEASURED_FUNCTION: &str = "kmst_harness::compare::counters::measured_runs";

/// Event totals of a callgrind run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    /// Instructions executed (`Ir`).
    pub instructions: u64,
    /// Conditional branches executed (`Bc`).
    pub conditional_branches: u64,
    /// Conditional branches the simulated predictor got wrong (`Bcm`).
    pub conditional_mispredictions: u64,
    /// Indirect jumps and calls executed, returns excepted (`Bi`).
    pub indirect_branches: u64,
    /// Indirect branches whose target was mispredicted (`Bim`).
    pub indirect_mispredictions: u64,
}

impl Counters {
    /// The five totals, in [`EVENTS`] order.
    pub fn values(&self) -> [u64; 5] {
        [
            self.instructions,
            self.conditional_branches,
            self.conditional_mispredictions,
            self.indirect_branches,
            self.indirect_mispredictions,
        ]
    }

    /// Each total divided by `n` (NaN when `n` is 0).
    pub fn per(&self, n: u64) -> [f64; 5] {
        self.values().map(|v| {
            if n == 0 {
                f64::NAN
            } else {
                v as f64 / n as f64
            }
        })
    }
}

/// What [`parse_callgrind`] reads from an output file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CallgrindTotals {
    /// The `creator:` line (`callgrind-3.19.0`), empty when there is none.
    pub creator: String,
    pub counters: Counters,
}

/// Reads a callgrind output file: the `events:` line names the columns, and
/// the totals are the sum of its `summary:` lines (one a part), or of its
/// `totals:` lines when it has no summary. A missing trailing value is 0
/// (callgrind leaves trailing zeros out); every event of [`EVENTS`] must be
/// named (`Bc`..`Bim` need `--branch-sim=yes`).
pub fn parse_callgrind(text: &str) -> Result<CallgrindTotals, String> {
    let mut events: Option<Vec<&str>> = None;
    let mut creator = String::new();
    let mut summary: Option<Vec<u64>> = None;
    let mut totals: Option<Vec<u64>> = None;
    for (i, line) in text.lines().enumerate() {
        let (key, rest) = match line.split_once(':') {
            Some((k, r)) if matches!(k, "events" | "creator" | "summary" | "totals") => {
                (k, r.trim())
            }
            _ => continue,
        };
        let numbers = |sum: &mut Option<Vec<u64>>| -> Result<(), String> {
            let mut acc = sum.take().unwrap_or_default();
            for (k, word) in rest.split_whitespace().enumerate() {
                let n: u64 = word
                    .parse()
                    .map_err(|_| format!("line {}: `{word}` is not a count", i + 1))?;
                if acc.len() <= k {
                    acc.resize(k + 1, 0);
                }
                acc[k] += n;
            }
            *sum = Some(acc);
            Ok(())
        };
        match key {
            "events" if events.is_some() => {
                return Err(format!("line {}: a second `events:` line", i + 1));
            }
            "events" => events = Some(rest.split_whitespace().collect()),
            "creator" => creator = rest.to_owned(),
            "summary" => numbers(&mut summary)?,
            _ => numbers(&mut totals)?,
        }
    }
    let events = events.ok_or("no `events:` line")?;
    let sums = summary
        .or(totals)
        .ok_or("no `summary:` or `totals:` line")?;
    if sums.len() > events.len() {
        return Err(format!("{} totals for {} events", sums.len(), events.len()));
    }
    let mut values = [0u64; 5];
    for (value, name) in values.iter_mut().zip(EVENTS) {
        let k = events
            .iter()
            .position(|e| *e == name)
            .ok_or_else(|| format!("no `{name}` event (callgrind needs --branch-sim=yes)"))?;
        *value = sums.get(k).copied().unwrap_or(0);
    }
    let [ir, bc, bcm, bi, bim] = values;
    Ok(CallgrindTotals {
        creator,
        counters: Counters {
            instructions: ir,
            conditional_branches: bc,
            conditional_mispredictions: bcm,
            indirect_branches: bi,
            indirect_mispredictions: bim,
        },
    })
}

// ---------------------------------------------------------------------------
// The child's side.

/// Runs `workload` with `variant` `runs` times: the only code callgrind
/// counts. Not inlined, so that its symbol exists for `--toggle-collect`,
/// and it calls no other function whose name contains its own (that call
/// would toggle the collection off).
#[inline(never)]
pub fn measured_runs(workload: &Workload, variant: Implementation, runs: u64) -> u64 {
    let mut passes = 0;
    for _ in 0..runs {
        passes = std::hint::black_box(workload.run_once(variant));
    }
    passes
}

/// The child's work: one uncounted warm-up run, then [`measured_runs`].
/// Returns the passes of the answer.
pub fn run_child(workload: &Workload, variant: Implementation, runs: u64) -> u64 {
    std::hint::black_box(workload.run_once(variant));
    measured_runs(std::hint::black_box(workload), variant, runs)
}

// ---------------------------------------------------------------------------
// The counting side.

/// How many runs each count covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CounterSettings {
    /// Runs counted per variant and workload (after one warm-up run).
    pub runs: u64,
}

impl CounterSettings {
    /// The fewest: one counted run.
    pub const QUICK: CounterSettings = CounterSettings { runs: 1 };
    /// Three counted runs.
    pub const DEFAULT: CounterSettings = CounterSettings { runs: 3 };
    /// Ten counted runs (for documentation).
    pub const FULL: CounterSettings = CounterSettings { runs: 10 };
}

/// One variant's counts on one workload.
#[derive(Clone, Debug)]
pub struct VariantCounters {
    pub variant: Implementation,
    /// Totals over the settings' runs.
    pub counters: Counters,
}

/// One workload's counts.
#[derive(Clone, Debug)]
pub struct CountedWorkload {
    pub name: String,
    pub notes: String,
    /// Micro-ops executed by one run ([`count_ops`]).
    pub ops: u64,
    /// Passes of the answer.
    pub passes: u64,
    pub variants: Vec<VariantCounters>,
}

/// Everything one `kmst compare --counters` run found.
#[derive(Clone, Debug)]
pub struct CounterReport {
    pub settings: CounterSettings,
    /// Callgrind's `creator:` (`callgrind-3.19.0`).
    pub tool: String,
    pub workloads: Vec<CountedWorkload>,
}

/// Why callgrind gave no counts for one child.
#[derive(Debug)]
pub enum CallgrindError {
    /// valgrind could not be started.
    Spawn(std::io::Error),
    /// valgrind (or the child under it) failed: its exit status and the last
    /// lines of its standard error.
    Failed { status: String, stderr_tail: String },
    /// The output file is missing or malformed.
    Output { path: PathBuf, message: String },
    /// Nothing was counted: no call of [`MEASURED_FUNCTION`] was seen (a
    /// stripped binary has no symbol for callgrind to match).
    Nothing,
}

impl fmt::Display for CallgrindError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CallgrindError::Spawn(err) => write!(f, "valgrind does not start: {err}"),
            CallgrindError::Failed {
                status,
                stderr_tail,
            } => {
                write!(f, "valgrind {status}")?;
                if stderr_tail.is_empty() {
                    write!(f, " and printed nothing")
                } else {
                    write!(f, ": {stderr_tail}")
                }
            }
            CallgrindError::Output { path, message } => {
                write!(f, "callgrind output {}: {message}", path.display())
            }
            CallgrindError::Nothing => write!(
                f,
                "callgrind counted nothing in {MEASURED_FUNCTION} (is the kmst binary stripped of its symbols?)"
            ),
        }
    }
}

impl std::error::Error for CallgrindError {}

/// Why `kmst compare --counters` could not count.
#[derive(Debug)]
pub enum CountersError {
    /// No `valgrind` on the PATH.
    NoValgrind,
    /// The agreement check failed, or a workload is bad.
    Compare(CompareError),
    /// Callgrind gave no counts for this workload and variant.
    Callgrind {
        workload: String,
        variant: Implementation,
        error: CallgrindError,
    },
}

impl fmt::Display for CountersError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CountersError::NoValgrind => write!(
                f,
                "compare --counters needs valgrind on the PATH (for example: apt install valgrind)"
            ),
            CountersError::Compare(e) => write!(f, "{e}"),
            CountersError::Callgrind {
                workload,
                variant,
                error,
            } => write!(f, "workload {workload}, {variant}: {error}"),
        }
    }
}

impl std::error::Error for CountersError {}

impl From<CompareError> for CountersError {
    fn from(e: CompareError) -> CountersError {
        CountersError::Compare(e)
    }
}

/// The `valgrind` program of the PATH, if there is one.
pub fn find_valgrind() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join("valgrind"))
        .find(|p| p.is_file())
}

/// The last `n` non-empty lines of `text`, joined by ` | ` (one line).
fn tail(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    lines[lines.len().saturating_sub(n)..].join(" | ")
}

/// Runs `argv` (a program and its arguments) under callgrind with the
/// branch simulator, counting [`MEASURED_FUNCTION`] only, and reads the
/// totals. The output file is a temporary file, removed afterwards.
pub fn callgrind(valgrind: &Path, argv: &[OsString]) -> Result<CallgrindTotals, CallgrindError> {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let out_file = std::env::temp_dir().join(format!(
        "kmst-callgrind-{}-{}.out",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    let mut out_arg = OsString::from("--callgrind-out-file=");
    out_arg.push(&out_file);
    let result = Command::new(valgrind)
        .args([
            "--tool=callgrind",
            "--branch-sim=yes",
            "--collect-atstart=no",
            &format!("--toggle-collect={MEASURED_FUNCTION}*"),
            "-q",
        ])
        .arg(out_arg)
        .args(argv)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output();
    let text = std::fs::read_to_string(&out_file);
    let _ = std::fs::remove_file(&out_file);
    let output = result.map_err(CallgrindError::Spawn)?;
    if !output.status.success() {
        return Err(CallgrindError::Failed {
            status: output.status.to_string(),
            stderr_tail: tail(&String::from_utf8_lossy(&output.stderr), 5),
        });
    }
    let bad = |message: String| CallgrindError::Output {
        path: out_file.clone(),
        message,
    };
    let totals = parse_callgrind(&text.map_err(|e| bad(e.to_string()))?).map_err(bad)?;
    if totals.counters.instructions == 0 {
        return Err(CallgrindError::Nothing);
    }
    Ok(totals)
}

/// Checks agreement on every workload first (as the timing does), then
/// counts every variant on every workload under callgrind. `child(i,
/// variant, runs)` is the command line (program first) of a process that
/// builds `workloads[i]` and calls [`run_child`] with `variant` and `runs`;
/// `progress` is told each step.
pub fn count_events(
    workloads: &[Workload],
    variants: &[Implementation],
    settings: CounterSettings,
    valgrind: &Path,
    child: &dyn Fn(usize, Implementation, u64) -> Vec<OsString>,
    progress: &mut dyn FnMut(&str),
) -> Result<CounterReport, CountersError> {
    let mut checked = Vec::with_capacity(workloads.len());
    for w in workloads {
        progress(&format!("{}: checking agreement", w.name));
        checked.push((check_agreement(w, variants)?, count_ops(w)));
    }
    let cells = workloads.len() * variants.len();
    let mut done = 0;
    let mut tool = String::new();
    let mut out = Vec::with_capacity(workloads.len());
    for (i, (w, (passes, ops))) in workloads.iter().zip(checked).enumerate() {
        let mut results = Vec::with_capacity(variants.len());
        for &v in variants {
            done += 1;
            progress(&format!(
                "{} {v}: counting under callgrind ({done}/{cells})",
                w.name
            ));
            let totals = callgrind(valgrind, &child(i, v, settings.runs)).map_err(|error| {
                CountersError::Callgrind {
                    workload: w.name.clone(),
                    variant: v,
                    error,
                }
            })?;
            tool = totals.creator;
            results.push(VariantCounters {
                variant: v,
                counters: totals.counters,
            });
        }
        out.push(CountedWorkload {
            name: w.name.clone(),
            notes: w.notes.clone(),
            ops,
            passes,
            variants: results,
        });
    }
    Ok(CounterReport {
        settings,
        tool,
        workloads: out,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A callgrind output file as callgrind 3.19 writes it with
    /// `--branch-sim=yes`, cut down to two functions.
    const SAMPLE: &str = "\
# callgrind format
version: 1
creator: callgrind-3.19.0
pid: 4242
cmd:  kmst counters-child --variant switch --runs 2 --workload alu
part: 1


desc: I1 cache:
desc: D1 cache:
desc: LL cache:

desc: Timerange: Basic block 0 - 1000
desc: Trigger: Program termination

positions: line
events: Ir Bc Bcm Bi Bim
summary: 29557000 4001000 12345 2000004 678

ob=(1) /work/target/release/kmst
fl=(1) ???
fn=(1) kmst_harness::compare::counters::measured_runs
0 4 0 0 0 0
cfn=(2) kmst::exec::simulate
calls=2 0
0 29556996 4001000 12345 2000004 678

totals: 29557000 4001000 12345 2000004 678
";

    #[test]
    fn reads_the_summary_by_event_name() {
        let t = parse_callgrind(SAMPLE).unwrap();
        assert_eq!(t.creator, "callgrind-3.19.0");
        assert_eq!(
            t.counters,
            Counters {
                instructions: 29_557_000,
                conditional_branches: 4_001_000,
                conditional_mispredictions: 12_345,
                indirect_branches: 2_000_004,
                indirect_mispredictions: 678,
            }
        );
        // 2 runs of 1,000 micro-ops: 29,557,000 / 2,000 = 14,778.5 per
        // micro-op; 4,001,000 / 2,000 = 2,000.5; 12,345 / 2,000 = 6.1725;
        // 2,000,004 / 2,000 = 1,000.002; 678 / 2,000 = 0.339.
        assert_eq!(
            t.counters.per(2 * 1_000),
            [14_778.5, 2_000.5, 6.1725, 1_000.002, 0.339]
        );
        assert!(t.counters.per(0).iter().all(|v| v.is_nan()));
    }

    #[test]
    fn events_in_another_order_and_trailing_zeros_left_out() {
        // With --cache-sim=yes too the branch events come after the cache
        // ones; the summary leaves out the trailing zero Bim.
        let text = "events: Ir Dr Dw Bc Bcm Bi Bim\nsummary: 100 7 8 20 3 5\n";
        let t = parse_callgrind(text).unwrap();
        assert_eq!(t.creator, "");
        assert_eq!(t.counters.values(), [100, 20, 3, 5, 0]);
    }

    #[test]
    fn totals_lines_when_there_is_no_summary_and_parts_add_up() {
        let text = "events: Ir Bc Bcm Bi Bim\ntotals: 10 4 1 2 1\npart: 2\ntotals: 5 1 0 1 0\n";
        let t = parse_callgrind(text).unwrap();
        assert_eq!(t.counters.values(), [15, 5, 1, 3, 1]);
        let text = "events: Ir Bc Bcm Bi Bim\nsummary: 1 2 3 4 5\ntotals: 9 9 9 9 9\n";
        assert_eq!(
            parse_callgrind(text).unwrap().counters.values(),
            [1, 2, 3, 4, 5]
        );
    }

    #[test]
    fn malformed_files_are_errors() {
        // (the file, what its error says)
        for (text, says) in [
            ("events: Ir\nsummary: 100\n", "--branch-sim=yes"),
            ("summary: 1\n", "events"),
            ("events: Ir Bc Bcm Bi Bim\n", "summary"),
            (
                "events: Ir Bc Bcm Bi Bim\nsummary: 1 2 3 4 5 6\n",
                "6 totals for 5 events",
            ),
            ("events: Ir\nevents: Ir\n", "second"),
        ] {
            let e = parse_callgrind(text).unwrap_err();
            assert!(e.contains(says), "{text:?}: {e}");
        }
        // The bad count's message is exactly this.
        assert_eq!(
            parse_callgrind("events: Ir Bc Bcm Bi Bim\nsummary: 1 x\n").unwrap_err(),
            "line 2: `x` is not a count"
        );
    }

    #[test]
    fn the_stderr_tail_is_one_line() {
        assert_eq!(tail("a\n\nb\n c \nd\n", 2), "c | d");
        assert_eq!(tail("", 5), "");
    }
}

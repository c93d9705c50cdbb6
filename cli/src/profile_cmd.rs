//! `kmst profile`: how a stream spends its per-pass turns (docs/profiling.md).
//!
//! Takes the flags of `kmst run` for the parameters, runs the stream on a
//! fast dispatch variant with the profiling observer, and prints the report
//! (tables, or `--json`), a budget sweep (`--sweep`), and optionally writes a
//! Perfetto trace (`--trace`). A `.json` file is a kernel scenario (S36):
//! the same, with a column per stream and the slots by source.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use kmst::exec::Dispatch;
use kmst_harness::compare;
use kmst_harness::corpus::replace::Replacement;
use kmst_harness::profile::{self, ProfileError, pairs, trace};
use kmst_reference::Scenario;

use crate::common::{CliError, JobsArgs, Kind, load_stream, print_out};
use crate::common::{U32, in_range};
use crate::run_cmd::{ParamsArgs, build_params_on};

#[derive(clap::Args)]
pub struct Args {
    /// The upload to profile (`.kms` is assembled), or a scenario (`.json`;
    /// `-`: standard input);
    /// several run at once (--jobs) and print in the order given, each under
    /// a `== FILE` line (with --json: an array of `{"file": FILE, "profile":
    /// ...}`); with --pairs, any number of them (none: the corpus and the
    /// bundled workloads).
    #[arg(required_unless_present = "pairs")]
    pub files: Vec<PathBuf>,
    #[command(flatten)]
    pub jobs: JobsArgs,
    /// Count the adjacent micro-ops executed within a turn, pairs and
    /// triples, over every FILE (each with its own parameters, the run flags
    /// over them).
    #[arg(long, conflicts_with_all = ["sweep", "trace", "budget"])]
    pub pairs: bool,
    /// With --pairs: how many pairs and triples to list (at least 1).
    #[arg(long, default_value_t = 10, requires = "pairs", allow_negative_numbers = true, value_parser = in_range::<1, U32>)]
    pub top: u64,
    #[command(flatten)]
    pub params: ParamsArgs,
    // The names come from `Dispatch::ALL` (common::dispatch_help).
    #[arg(long, default_value = "tail", help = crate::common::dispatch_help("The fast dispatch variant that runs the stream", false))]
    pub dispatch: String,
    /// The turn budget (micro-ops per turn; the same as --turn-budget, so
    /// not with it).
    #[arg(long, conflicts_with_all = ["sweep", "turn_budget"], allow_hyphen_values = true, value_parser = in_range::<1, U32>)]
    pub budget: Option<u64>,
    /// Run once per turn budget and tabulate: N,N,... (each 1..=4294967295).
    #[arg(long, value_delimiter = ',', num_args = 1, allow_negative_numbers = true, value_parser = in_range::<1, U32>)]
    pub sweep: Option<Vec<u64>>,
    /// Write a Chrome trace-event / Perfetto JSON file (1 pass = 1 us), as
    /// the run goes (a device or a FIFO is written through).
    #[arg(long, conflicts_with = "sweep")]
    pub trace: Option<PathBuf>,
    /// The largest trace to write: bytes, or with a K, M or G suffix (KiB,
    /// MiB, GiB). A trace that reaches it ends there, still valid JSON, with
    /// a note on standard error. 64 MiB opens in a few seconds in Perfetto's
    /// UI; a stream that spins fills it in well under a second.
    #[arg(long, default_value = "64M", allow_negative_numbers = true, value_parser = parse_size, requires = "trace")]
    pub trace_limit: u64,
    /// Print JSON instead of tables.
    #[arg(long)]
    pub json: bool,
}

fn profile_error(path: &std::path::Path, e: ProfileError) -> CliError {
    match e {
        // A verdict against the input (exit 1), as `kmst check` gives it.
        ProfileError::Rejected(_) => CliError::Verdict {
            path: path.to_owned(),
            message: e.to_string(),
        },
        _ => CliError::Usage(e.to_string()),
    }
}

/// True for a scenario file: JSON, known by its content.
fn is_scenario(path: &Path) -> Result<bool, CliError> {
    Ok(crate::common::read_input(path)?.1 == Kind::Json)
}

fn parse_dispatch(name: &str) -> Result<Dispatch, CliError> {
    name.parse()
        .map_err(|e: kmst::exec::UnknownDispatch| CliError::Usage(format!("--dispatch: {e}")))
}

/// Opens the trace file, runs `f` writing into it, keeps it whole, and
/// notes on standard error where a limited trace stopped.
fn with_trace<R>(
    path: &Path,
    limit: u64,
    f: impl FnOnce(&mut Replacement) -> Result<(R, trace::TraceEnd, u64), CliError>,
) -> Result<R, CliError> {
    let io = |err| CliError::Io {
        path: path.to_owned(),
        err,
    };
    // Written beside the old file and renamed over it once whole.
    let mut file = Replacement::create(path).map_err(io)?;
    let (run, end, simulated) = f(&mut file)?;
    file.commit().map_err(io)?;
    if let Some(pass) = end.limited_at {
        eprintln!(
            "kmst: note: the trace was cut at --trace-limit ({}) in pass {} of the {} \
             simulated; {} holds the run up to there (raise --trace-limit for more)",
            size_text(limit),
            kmst_harness::text::grouped(pass),
            kmst_harness::text::grouped(simulated),
            path.display()
        );
    }
    Ok(run)
}

/// A traced run's error: the profile's as `profile` makes it, a failed
/// write as the trace file's.
fn trace_error(
    path: &Path,
    e: trace::TraceError,
    profile: impl FnOnce(ProfileError) -> CliError,
) -> CliError {
    match e {
        trace::TraceError::Profile(e) => profile(e),
        trace::TraceError::Io(err) => CliError::Io {
            path: path.to_owned(),
            err,
        },
    }
}

/// `kmst profile SCENARIO.json`: the scenario's parameters, then the flags.
fn run_scenario(args: &Args, file: &Path) -> Result<Out, CliError> {
    let scenario = crate::common::read_scenario(file)?;
    let mut params = build_params_on(scenario.params().clone(), &args.params)?;
    if let Some(b) = args.budget {
        params.turn_budget = b as u32; // in_range: 1..=u32::MAX
    }
    let scenario = scenario
        .with_params(params)
        .map_err(|e| CliError::Usage(e.to_string()))?;
    let dispatch = parse_dispatch(&args.dispatch)?;
    let usage = |e: profile::scenario::ScenarioProfileError| CliError::Usage(e.to_string());
    if let Some(budgets) = &args.sweep {
        return sweep(
            args,
            dispatch,
            budgets,
            |b| profile::scenario::sweep(&scenario, dispatch, &[b]),
            usage,
            profile::render::scenario_sweep,
        );
    }
    let run = match &args.trace {
        None => profile::scenario::profile(&scenario, dispatch).map_err(usage)?,
        Some(path) => with_trace(path, args.trace_limit, |file| {
            let (run, end) =
                trace::profile_scenario_traced(&scenario, dispatch, file, args.trace_limit)
                    .map_err(|e| trace_error(path, e, |e| CliError::Usage(e.to_string())))?;
            let simulated = run.observer.kernel.pass_end;
            Ok((run, end, simulated))
        })?,
    };
    Ok(report(args, &run.profile, profile::render::scenario_human))
}

/// `--sweep`: one run per budget (`run`), --jobs at once, the rows in
/// order, as JSON or as the table `render` draws.
fn sweep<Row: serde::Serialize + Send, E: Send>(
    args: &Args,
    dispatch: Dispatch,
    budgets: &[u64],
    run: impl Fn(u32) -> Result<Vec<Row>, E> + Sync + Send,
    error: impl Fn(E) -> CliError,
    render: fn(&[Row]) -> String,
) -> Result<Out, CliError> {
    let budgets: Vec<u32> = budgets.iter().map(|&b| b as u32).collect(); // in_range
    let rows = args.jobs.map(&budgets, |&b| run(b))?;
    let rows: Vec<Row> = rows
        .into_iter()
        .collect::<Result<Vec<_>, _>>()
        .map_err(error)?
        .into_iter()
        .flatten()
        .collect();
    Ok(if args.json {
        Out::Json(serde_json::json!({"dispatch": dispatch.name(), "sweep": rows}))
    } else {
        Out::Text(render(&rows))
    })
}

/// What one file's profile prints: the tables, or the JSON value.
enum Out {
    Text(String),
    Json(serde_json::Value),
}

/// A profile's report: its JSON, or the tables `render` draws.
fn report<P: serde::Serialize>(args: &Args, profile: &P, render: fn(&P) -> String) -> Out {
    if args.json {
        Out::Json(serde_json::to_value(profile).expect("a profile is JSON"))
    } else {
        Out::Text(render(profile))
    }
}

pub fn run(args: Args) -> Result<ExitCode, CliError> {
    crate::common::refuse_std_output("--trace", args.trace.as_ref())?;
    if args.pairs {
        return run_pairs(&args);
    }
    if args.files.len() > 1 && args.trace.is_some() {
        return Err(CliError::Usage(
            "--trace writes the trace of one FILE; give one".into(),
        ));
    }
    // Each file on its own (--jobs at once; a sweep's budgets share the
    // threads), then printed in order up to the first error, as one after
    // another would have.
    let outs = if args.files.len() == 1 {
        vec![profile_file(&args, &args.files[0])]
    } else {
        args.jobs
            .map(&args.files, |file| profile_file(&args, file))?
    };
    let several = args.files.len() > 1;
    let mut text = String::new();
    let mut json = Vec::new();
    let mut failed = None;
    for (file, out) in args.files.iter().zip(outs) {
        match out {
            Err(e) => {
                failed = Some(e);
                break;
            }
            Ok(Out::Json(v)) if several => {
                json.push(serde_json::json!({"file": file.display().to_string(), "profile": v}))
            }
            Ok(Out::Json(v)) => json.push(v),
            Ok(Out::Text(t)) => {
                if several {
                    let gap = if text.is_empty() { "" } else { "\n" };
                    text.push_str(&format!("{gap}== {}\n", file.display()));
                }
                text.push_str(&t);
            }
        }
    }
    if !json.is_empty() {
        let v = if several {
            serde_json::Value::Array(json)
        } else {
            json.remove(0)
        };
        text = format!("{}\n", pretty(&v));
    }
    print_out(&text)?;
    match failed {
        Some(e) => Err(e),
        None => Ok(ExitCode::SUCCESS),
    }
}

/// `kmst profile FILE`: a stream's or a scenario's profile, sweep or trace.
fn profile_file(args: &Args, file: &Path) -> Result<Out, CliError> {
    if is_scenario(file)? {
        return run_scenario(args, file);
    }
    let stream = load_stream(file)?;
    let upload = stream.upload;
    let mut params = build_params_on(stream.params, &args.params)?;
    if let Some(b) = args.budget {
        params.turn_budget = b as u32; // in_range: 1..=u32::MAX
    }
    let dispatch = parse_dispatch(&args.dispatch)?;

    if let Some(budgets) = &args.sweep {
        return sweep(
            args,
            dispatch,
            budgets,
            |b| profile::sweep(&upload, &params, dispatch, &[b]),
            |e| profile_error(file, e),
            profile::render::sweep,
        );
    }

    let run = match &args.trace {
        None => profile::profile(&upload, &params, dispatch, false)
            .map_err(|e| profile_error(file, e))?,
        Some(path) => with_trace(path, args.trace_limit, |out| {
            let (run, end) =
                trace::profile_traced(&upload, &params, dispatch, out, args.trace_limit)
                    .map_err(|e| trace_error(path, e, |e| profile_error(file, e)))?;
            let simulated = run.observer.pass_end;
            Ok((run, end, simulated))
        })?,
    };
    Ok(report(args, &run.profile, profile::render::human))
}

/// A scenario file, its uploads assembled, under the run flags.
fn load_scenario(path: &Path, flags: &ParamsArgs) -> Result<Scenario, CliError> {
    let scenario = crate::common::read_scenario(path)?;
    let params = build_params_on(scenario.params().clone(), flags)?;
    scenario
        .with_params(params)
        .map_err(|e| CliError::Usage(e.to_string()))
}

/// `kmst profile --pairs [FILES...]`.
fn run_pairs(args: &Args) -> Result<ExitCode, CliError> {
    let dispatch = parse_dispatch(&args.dispatch)?;
    let name = |p: &Path| p.display().to_string();
    let mut sources: Vec<(String, pairs::Counts)> = Vec::new();
    if args.files.is_empty() {
        // The corpus, then the bundled workloads.
        let dir = Path::new(kmst_harness::corpus::DEFAULT_DIR);
        let names = kmst_harness::corpus::stream_names(dir).map_err(|e| {
            CliError::Usage(format!(
                "--pairs without FILES reads the corpus from {} (run it from the workspace \
                 root): {e}",
                dir.display()
            ))
        })?;
        let paths: Vec<PathBuf> = names
            .iter()
            .map(|stream| dir.join(format!("{stream}.kms")))
            .collect();
        let counted = args.jobs.map(&paths, |path| -> Result<_, CliError> {
            let stream = load_stream(path)?;
            let params = build_params_on(stream.params, &args.params)?;
            if params.validate().is_err() {
                return Ok(None); // a corpus stream about bad parameters runs nothing
            }
            Ok(Some(pairs::count_stream(&stream.upload, &params, dispatch)))
        })?;
        for (path, counts) in paths.iter().zip(counted) {
            if let Some(counts) = counts? {
                sources.push((name(path), counts));
            }
        }
        let bundled = compare::bundled().map_err(|e| CliError::Usage(format!("bundled {e}")))?;
        for w in bundled {
            let counts = match &w.scenario {
                Some(s) => {
                    let params = build_params_on(s.params().clone(), &args.params)?;
                    let s = s
                        .with_params(params)
                        .map_err(|e| CliError::Usage(e.to_string()))?;
                    pairs::count_scenario(&s, dispatch)
                }
                None => {
                    let params = build_params_on(w.params.clone(), &args.params)?;
                    pairs::count_stream(&w.upload, &params, dispatch)
                }
            };
            sources.push((format!("bench:{}", w.name), counts));
        }
    } else {
        let counted = args.jobs.map(&args.files, |path| -> Result<_, CliError> {
            Ok(if is_scenario(path)? {
                pairs::count_scenario(&load_scenario(path, &args.params)?, dispatch)
            } else {
                let stream = load_stream(path)?;
                let params = build_params_on(stream.params, &args.params)?;
                params.validate().map_err(|e| CliError::Input {
                    path: path.clone(),
                    message: e.to_string(),
                })?;
                pairs::count_stream(&stream.upload, &params, dispatch)
            })
        })?;
        for (path, counts) in args.files.iter().zip(counted) {
            sources.push((name(path), counts?));
        }
    }
    let report = pairs::PairReport::build(dispatch, &sources, args.top as usize);
    if args.json {
        print_out(&format!("{}\n", pretty(&report)))?;
    } else {
        print_out(&profile::render::pairs(&report))?;
    }
    Ok(ExitCode::SUCCESS)
}

fn pretty<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_string_pretty(v).expect("a profile prints as JSON")
}

/// A size as a person reads it: `64 MiB`, `1,000 bytes`.
fn size_text(n: u64) -> String {
    match [(30, "GiB"), (20, "MiB"), (10, "KiB")]
        .into_iter()
        .find(|&(shift, _)| n >= 1 << shift && n.is_multiple_of(1 << shift))
    {
        Some((shift, unit)) => format!("{} {unit}", kmst_harness::text::grouped(n >> shift)),
        None => format!("{} bytes", kmst_harness::text::grouped(n)),
    }
}

/// A size in bytes: `N`, `NK`, `NM` or `NG` (KiB, MiB, GiB).
fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let (digits, unit) = match t.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => (&t[..i], c.to_ascii_uppercase()),
        _ => (t, 'B'),
    };
    let shift = match unit {
        'B' => 0,
        'K' => 10,
        'M' => 20,
        'G' => 30,
        _ => {
            return Err(format!(
                "`{text}`: expected bytes, or a number with K, M or G"
            ));
        }
    };
    digits
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(1 << shift))
        .filter(|&n| n > 0)
        .ok_or_else(|| format!("`{text}`: expected a size from 1 byte to 16 EiB (N, NK, NM or NG)"))
}

#[cfg(test)]
mod tests {
    #[test]
    fn sizes() {
        use super::parse_size;
        assert_eq!(parse_size("4096"), Ok(4096));
        assert_eq!(parse_size("64K"), Ok(64 << 10));
        assert_eq!(parse_size("3m"), Ok(3 << 20));
        assert_eq!(parse_size("1G"), Ok(1 << 30));
        for bad in ["", "0", "G", "1T", "-1", "1.5G", "99999999999G"] {
            assert!(parse_size(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn sizes_as_text() {
        use super::size_text;
        assert_eq!(size_text(64 << 20), "64 MiB");
        assert_eq!(size_text(3 << 30), "3 GiB");
        assert_eq!(size_text(1536), "1,536 bytes");
        assert_eq!(size_text(2048), "2 KiB");
        assert_eq!(size_text(1000), "1,000 bytes");
    }
}

//! `kmst compare`: run every dispatch variant and the reference model on the
//! benchmark workloads, check that their answers agree, and report speed,
//! or with `--counters` the instructions, branches and mispredictions that
//! callgrind counts (the hidden `kmst counters-child` is the process it
//! counts).
//!
//! Exit 0 when every answer agrees, 1 at the first disagreement (printed on
//! stderr), 2 for a usage or I/O error (and for `--counters` without
//! valgrind, or when callgrind fails). The measuring lives in
//! [`kmst_harness::compare`].

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use kmst_harness::answers::{Implementation, UnknownImplementation};
use kmst_harness::compare::{
    self, CompareError, CounterSettings, CountersError, Settings, Workload,
};

use crate::common::{CliError, Kind, load_stream, print_out, read_input, write_file};
use crate::common::{U32, U64, in_range};

#[derive(clap::Args)]
pub struct Args {
    /// Workloads: `.kms` sources (with `;@ params` directives), uploads
    /// (with their `.params.json`) or kernel scenarios (JSON), known by
    /// their content (`-`: standard input); default: the bundled set.
    pub files: Vec<PathBuf>,
    /// A few seconds in all: fewer, shorter samples (CI); with --counters,
    /// 1 counted run.
    #[arg(long, conflicts_with = "full")]
    pub quick: bool,
    /// Several minutes: more, longer samples (for documentation); with
    /// --counters, 10 counted runs.
    #[arg(long)]
    pub full: bool,
    /// Samples per variant and workload (overrides the preset), 1..=4294967295.
    #[arg(long, allow_negative_numbers = true, value_parser = in_range::<1, U32>)]
    pub samples: Option<u64>,
    /// Count instead of timing: per micro-op, the instructions, conditional
    /// branches and their mispredictions, and indirect branches and theirs,
    /// from valgrind's callgrind with its branch simulator (needs valgrind).
    /// Each variant and workload runs in a child process under callgrind:
    /// one warm-up run, then the counted runs (3 by default), only those
    /// counted; nothing is timed. The agreement check runs first, as ever.
    /// A run under callgrind is some 50 to 100 times slower (every bundled
    /// workload and variant: about a minute).
    #[arg(long, conflicts_with_all = ["samples", "plot"])]
    pub counters: bool,
    /// With --counters: the runs counted per variant and workload
    /// (overrides the preset).
    #[arg(long, requires = "counters", value_name = "N", allow_negative_numbers = true, value_parser = in_range::<1, U64>)]
    pub runs: Option<u64>,
    /// Only these variants, comma-separated (the reference model always runs
    /// for the agreement check; it is timed or counted only when listed).
    #[arg(long, value_delimiter = ',')]
    pub variants: Vec<String>,
    /// Only the bundled workloads with these names, comma-separated.
    #[arg(long, value_delimiter = ',')]
    pub workloads: Vec<String>,
    /// Print JSON instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Also draw the speed-ups over --baseline as an SVG bar chart into this
    /// file (workloads in panels by the size of their speed-ups; a device or
    /// a FIFO is written through).
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<PathBuf>,
    /// The variant the table's and the chart's speed-ups are over: a
    /// dispatch variant or `reference` (default: the default variant,
    /// tail); it must be among the timed variants.
    #[arg(long, value_name = "NAME", conflicts_with = "counters")]
    pub baseline: Option<String>,
}

/// Of the presets `[quick, full, default]`, the one `--quick` or `--full` picks.
fn preset<T>(args: &Args, [quick, full, default]: [T; 3]) -> T {
    if args.quick {
        quick
    } else if args.full {
        full
    } else {
        default
    }
}

fn settings(args: &Args) -> Result<Settings, CliError> {
    let mut s = preset(args, [Settings::QUICK, Settings::FULL, Settings::DEFAULT]);
    if let Some(n) = args.samples {
        s.samples = n as usize; // in_range: 1..=u32::MAX
    }
    Ok(s)
}

fn counter_settings(args: &Args) -> Result<CounterSettings, CliError> {
    let mut s = preset(
        args,
        [
            CounterSettings::QUICK,
            CounterSettings::FULL,
            CounterSettings::DEFAULT,
        ],
    );
    if let Some(n) = args.runs {
        s.runs = n; // in_range: at least 1
    }
    Ok(s)
}

fn variants(args: &Args) -> Result<Vec<Implementation>, CliError> {
    if args.variants.is_empty() {
        return Ok(Implementation::all());
    }
    let mut out = Vec::new();
    for name in &args.variants {
        let d: Implementation = name
            .parse()
            .map_err(|e: UnknownImplementation| CliError::Usage(e.to_string()))?;
        if !out.contains(&d) {
            out.push(d);
        }
    }
    Ok(out)
}

/// `--baseline NAME`: an implementation among the timed ones; default the
/// default variant (or the first timed one when --variants leaves it out).
fn baseline(args: &Args, timed: &[Implementation]) -> Result<Implementation, CliError> {
    let Some(name) = &args.baseline else {
        let default = Implementation::Fast(kmst::exec::Dispatch::default());
        return Ok(if timed.contains(&default) {
            default
        } else {
            timed[0]
        });
    };
    let b: Implementation = name
        .parse()
        .map_err(|e: UnknownImplementation| CliError::Usage(format!("--baseline: {e}")))?;
    if !timed.contains(&b) {
        let names: Vec<&str> = timed.iter().map(|i| i.name()).collect();
        return Err(CliError::Usage(format!(
            "--baseline {name} is not among the timed variants ({}); add it to --variants",
            names.join(", ")
        )));
    }
    Ok(b)
}

/// A workload from a FILE argument, known by its content: a kernel
/// scenario (JSON), a `.kms` source whose `;@ params` give its parameters,
/// or an upload (with its `.params.json`, when it has one). An upload the
/// check rejects is a verdict (exit 1): there is nothing to time.
fn file_workload(path: &Path) -> Result<Workload, CliError> {
    let name = crate::common::stem(path);
    let name = if name.is_empty() { "workload" } else { &name };
    if read_input(path)?.1 == Kind::Json {
        let scenario = crate::common::read_scenario(path)?;
        return Ok(Workload::from_scenario(name, "a kernel scenario", scenario));
    }
    let stream = load_stream(path)?;
    if let Err(e) = kmst::check::check(&stream.upload, stream.params.region_size) {
        return Err(CliError::Verdict {
            path: path.to_owned(),
            message: format!(
                "the check rejects the upload: reason {} at pc {}; compare times only \
                 uploads the check accepts (`kmst check` says why)",
                e.reason, e.pc
            ),
        });
    }
    Ok(Workload {
        name: name.to_owned(),
        notes: stream.notes,
        upload: stream.upload,
        params: stream.params,
        scenario: None,
    })
}

fn workloads(args: &Args) -> Result<Vec<Workload>, CliError> {
    if !args.files.is_empty() {
        if !args.workloads.is_empty() {
            return Err(CliError::Usage(
                "--workloads selects bundled workloads; not with FILES".into(),
            ));
        }
        return args.files.iter().map(|path| file_workload(path)).collect();
    }
    let all = compare::bundled().map_err(|e| CliError::Usage(format!("bundled {e}")))?;
    if args.workloads.is_empty() {
        return Ok(all);
    }
    let known = compare::bundled_names();
    args.workloads
        .iter()
        .map(|name| {
            all.iter()
                .find(|w| &w.name == name)
                .cloned()
                .ok_or_else(|| {
                    CliError::Usage(format!(
                        "no bundled workload `{name}` (there are: {})",
                        known.join(", ")
                    ))
                })
        })
        .collect()
}

pub fn run(args: Args) -> Result<ExitCode, CliError> {
    crate::common::refuse_std_output("--plot", args.plot.as_ref())?;
    if args.counters {
        return run_counters(args);
    }
    let settings = settings(&args)?;
    let variants = variants(&args)?;
    let baseline = baseline(&args, &variants)?;
    let workloads = workloads(&args)?;
    let line = crate::progress::Line::new();
    let outcome = compare::compare(&workloads, &variants, settings, &mut |msg: &str| {
        line.show(msg)
    });
    line.clear();
    let report = match outcome {
        Ok(r) => r,
        Err(e @ CompareError::Disagreement { .. }) => {
            eprintln!("kmst compare: {e}");
            return Ok(ExitCode::from(1));
        }
        Err(e) => return Err(CliError::Usage(e.to_string())),
    };
    if let Some(path) = &args.plot {
        let svg = crate::plot::render_svg(&report, baseline).map_err(CliError::Usage)?;
        write_file(path, svg.as_bytes())?;
    }
    let text = if args.json {
        let mut s = serde_json::to_string_pretty(&compare::to_json_over(&report, baseline))
            .expect("a JSON value prints");
        s.push('\n');
        s
    } else {
        compare::render_table(&report, baseline)
    };
    print_out(&text)?;
    Ok(ExitCode::SUCCESS)
}

/// `kmst compare --counters`: every variant on every workload in a child
/// process (`kmst counters-child`) under callgrind.
fn run_counters(args: Args) -> Result<ExitCode, CliError> {
    let settings = counter_settings(&args)?;
    if args.files.iter().any(|f| crate::common::is_std(f)) {
        return Err(CliError::Usage(
            "--counters reads each FILE again in its child processes, and standard input \
             (`-`) can be read once; save it to a file"
                .into(),
        ));
    }
    let variants = variants(&args)?;
    let workloads = workloads(&args)?;
    let Some(valgrind) = compare::find_valgrind() else {
        return Err(CliError::Usage(CountersError::NoValgrind.to_string()));
    };
    let exe = std::env::current_exe()
        .map_err(|e| CliError::Usage(format!("where is this kmst executable: {e}")))?;
    // The child builds workload i as this process did: the same FILE or
    // the same bundled name.
    let child = |i: usize, v: Implementation, runs: u64| -> Vec<OsString> {
        let mut argv: Vec<OsString> = vec![
            exe.clone().into(),
            "counters-child".into(),
            "--variant".into(),
            v.name().into(),
            "--runs".into(),
            runs.to_string().into(),
        ];
        match args.files.get(i) {
            Some(path) => argv.extend(["--".into(), path.clone().into()]),
            None => argv.extend(["--workload".into(), workloads[i].name.clone().into()]),
        }
        argv
    };
    let line = crate::progress::Line::new();
    let outcome = compare::count_events(
        &workloads,
        &variants,
        settings,
        &valgrind,
        &child,
        &mut |msg: &str| line.show(msg),
    );
    line.clear();
    let report = match outcome {
        Ok(r) => r,
        Err(CountersError::Compare(e @ CompareError::Disagreement { .. })) => {
            eprintln!("kmst compare: {e}");
            return Ok(ExitCode::from(1));
        }
        Err(e) => return Err(CliError::Usage(e.to_string())),
    };
    let text = if args.json {
        let mut s = serde_json::to_string_pretty(&compare::counters_to_json(&report))
            .expect("a JSON value prints");
        s.push('\n');
        s
    } else {
        compare::render_counters_table(&report)
    };
    print_out(&text)?;
    Ok(ExitCode::SUCCESS)
}

/// `kmst counters-child`: the process `kmst compare --counters` runs under
/// callgrind (not for people: hidden from the help).
#[derive(clap::Args)]
pub struct ChildArgs {
    /// The variant to run.
    #[arg(long)]
    pub variant: String,
    /// The runs to count.
    #[arg(long)]
    pub runs: u64,
    /// A bundled workload, by name.
    #[arg(long, conflicts_with = "file", required_unless_present = "file")]
    pub workload: Option<String>,
    /// A workload FILE, as `kmst compare` reads it.
    pub file: Option<PathBuf>,
}

/// The bundled workload `name`, built alone (the child builds no other, so
/// that the others' allocations do not shape its heap).
fn bundled_workload(name: &str) -> Result<Workload, CliError> {
    let built = if let Some((n, source)) = compare::BUNDLED.iter().find(|(n, _)| *n == name) {
        Workload::from_source(n, source)
    } else if let Some(b) = compare::BUNDLED_SCENARIOS.iter().find(|b| b.name == name) {
        Workload::from_bundled(b)
    } else {
        return Err(CliError::Usage(format!("no bundled workload `{name}`")));
    };
    built.map_err(|e| CliError::Usage(format!("bundled {e}")))
}

/// Builds the workload, runs it once, then `--runs` times inside
/// [`compare::measured_runs`] (what callgrind counts).
pub fn run_child(args: ChildArgs) -> Result<ExitCode, CliError> {
    let variant: Implementation = args
        .variant
        .parse()
        .map_err(|e: UnknownImplementation| CliError::Usage(e.to_string()))?;
    let workload = match (&args.workload, &args.file) {
        (_, Some(path)) => file_workload(path)?,
        (Some(name), None) => bundled_workload(name)?,
        (None, None) => return Err(CliError::Usage("no workload".into())),
    };
    let passes = compare::run_child(&workload, variant, args.runs);
    print_out(&format!(
        "{} {variant}: {} counted runs, {passes} passes each\n",
        workload.name, args.runs
    ))?;
    Ok(ExitCode::SUCCESS)
}

//! `kmst corpus write` and `kmst corpus check`: regenerate or verify the golden
//! corpus of reference streams and kernel scenarios (library: `kmst_harness::corpus`,
//! format: docs/corpus.md).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use kmst_harness::corpus::{self, CorpusError};

use crate::common::{CliError, JobsArgs, print_out};
use crate::progress::Line;

#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    action: Action,
}

#[derive(clap::Subcommand)]
enum Action {
    /// Assemble every source and write its `.bin` and the reference model's answer as `.json`.
    Write {
        /// The corpus directory.
        #[arg(long, default_value = corpus::DEFAULT_DIR)]
        dir: PathBuf,
        /// Write even when the new answer contradicts the source's `;@ expect`.
        #[arg(long)]
        force: bool,
        /// The scenario directory (default: `corpus/scenarios` when it exists).
        #[arg(long)]
        scenario_dir: Option<PathBuf>,
        /// Only these streams or scenarios (default: every `.kms` in the directory and
        /// every scenario).
        names: Vec<String>,
    },
    /// Compare every saved answer with the reference model and every dispatch variant
    /// (exit 1 on any mismatch).
    Check {
        #[command(flatten)]
        jobs: JobsArgs,
        /// The corpus directory.
        #[arg(long, default_value = corpus::DEFAULT_DIR)]
        dir: PathBuf,
        /// The scenario directory (default: `corpus/scenarios` when it exists).
        #[arg(long)]
        scenario_dir: Option<PathBuf>,
        /// Only these streams or scenarios (default: every `.kms` in the directory and
        /// every scenario).
        names: Vec<String>,
    },
}

fn corpus_err(err: CorpusError) -> CliError {
    match err {
        CorpusError::Io { path, err } if err.kind() == std::io::ErrorKind::NotFound => {
            CliError::Usage(format!(
                "{}: no such file or folder (the corpus paths are relative to the workspace \
                 root: run there, or give --dir)",
                path.display()
            ))
        }
        CorpusError::Io { path, err } => CliError::Io { path, err },
        CorpusError::Unknown { stream } => CliError::Usage(format!("no stream named `{stream}`")),
        other => CliError::Usage(other.to_string()),
    }
}

/// `[done/total] name` on the progress line.
struct Progress {
    line: Line,
    total: usize,
}

impl Progress {
    fn new(total: usize) -> Progress {
        Progress {
            line: Line::new(),
            total,
        }
    }

    fn show(&self, done: usize, name: &str) {
        self.line.show(&format!("[{done}/{}] {name}", self.total));
    }

    fn clear(&self) {
        self.line.clear();
    }

    /// `f` of every name, `--jobs` at once, the answers in the names'
    /// order; the line counts the finished ones. Cleared at the end.
    fn each<R: Send>(
        &self,
        jobs: &JobsArgs,
        names: &[String],
        f: impl Fn(&str) -> R + Sync + Send,
    ) -> Result<Vec<R>, CliError> {
        let done = std::sync::atomic::AtomicUsize::new(0);
        let out = jobs.map(names, |name| {
            let r = f(name);
            let n = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
            self.show(n, name);
            r
        });
        self.clear();
        out
    }
}

/// The streams to work on: `names`, or every `.kms` in `dir`; none is an error.
fn names_in(dir: &Path, names: Vec<String>) -> Result<Vec<String>, CliError> {
    if !names.is_empty() {
        return Ok(names);
    }
    let found = corpus::stream_names(dir).map_err(corpus_err)?;
    if found.is_empty() {
        return Err(CliError::Usage(format!(
            "{}: no `.kms` streams in this directory",
            dir.display()
        )));
    }
    Ok(found)
}

pub fn run(args: Args) -> Result<ExitCode, CliError> {
    match args.action {
        Action::Write {
            dir,
            force,
            scenario_dir,
            names,
        } => streams_then_scenarios(
            &dir,
            scenario_dir,
            names,
            |n| write(&dir, n, force),
            |d, n| write_scenarios(d, n, force),
        ),
        Action::Check {
            jobs,
            dir,
            scenario_dir,
            names,
        } => streams_then_scenarios(
            &dir,
            scenario_dir,
            names,
            |n| check(&dir, n, jobs),
            |d, n| check_scenarios(d, n, jobs),
        ),
    }
}

/// `streams` of the names that are streams, then `scenarios` of the
/// scenario directory and the names that are scenarios (as
/// [`split_names`] splits them): the worse exit of the two.
fn streams_then_scenarios(
    dir: &Path,
    scenario_dir: Option<PathBuf>,
    names: Vec<String>,
    streams: impl FnOnce(Vec<String>) -> Result<ExitCode, CliError>,
    scenarios: impl FnOnce(&Path, Vec<String>) -> Result<ExitCode, CliError>,
) -> Result<ExitCode, CliError> {
    let (stream_names, scenario_names) = split_names(dir, scenario_dir, names)?;
    let a = stream_names.map_or(Ok(ExitCode::SUCCESS), streams)?;
    let b = scenario_names.map_or(Ok(ExitCode::SUCCESS), |(d, n)| scenarios(&d, n))?;
    Ok(worst(a, b))
}

fn write(dir: &Path, names: Vec<String>, force: bool) -> Result<ExitCode, CliError> {
    let names = names_in(dir, names)?;
    let contradicted = write_each(
        &names,
        |name| corpus::write_stream(dir, name, force),
        |m| print_out(&format!("{m}\n")),
    )?;
    let expect = if force {
        "`;@ expect` (written anyway)"
    } else {
        "`;@ expect` and were not written"
    };
    Ok(say_written(
        dir,
        &names,
        force,
        contradicted,
        ("stream", "streams"),
        expect,
    ))
}

/// Writes each of `names` with `write_one`, `report`ing what contradicts
/// its expected answer as it goes; how many contradicted.
fn write_each(
    names: &[String],
    write_one: impl Fn(&str) -> Result<Vec<corpus::Mismatch>, CorpusError>,
    report: impl Fn(&corpus::Mismatch) -> Result<(), CliError>,
) -> Result<usize, CliError> {
    let progress = Progress::new(names.len());
    let mut contradicted = 0;
    for (i, name) in names.iter().enumerate() {
        progress.show(i, name);
        let found = write_one(name).map_err(corpus_err)?;
        if !found.is_empty() {
            contradicted += 1;
            progress.clear();
            for m in &found {
                report(m)?;
            }
        }
    }
    progress.clear();
    Ok(contradicted)
}

/// Says how many of `names` were written in `dir`: all with `force`, else
/// those that do not contradict their `expect` (how many did, if any);
/// exit 1 when any did.
fn say_written(
    dir: &Path,
    names: &[String],
    force: bool,
    contradicted: usize,
    (one, many): (&str, &str),
    expect: &str,
) -> ExitCode {
    let written = if force {
        names.len()
    } else {
        names.len() - contradicted
    };
    eprintln!(
        "wrote {written} of {} in {}{}",
        kmst_harness::text::counted(names.len() as u64, one, many),
        dir.display(),
        if contradicted > 0 {
            format!(
                "; {contradicted} {} their {expect}",
                if contradicted == 1 {
                    "contradicts"
                } else {
                    "contradict"
                }
            )
        } else {
            String::new()
        }
    );
    exit_code(contradicted)
}

/// Exit 1 when any stream or scenario contradicted or did not match.
fn exit_code(failing: usize) -> ExitCode {
    if failing > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

fn check(dir: &Path, names: Vec<String>, jobs: JobsArgs) -> Result<ExitCode, CliError> {
    let names = names_in(dir, names)?;
    let impls = kmst_harness::answers::implementations();
    let progress = Progress::new(names.len());
    // Every stream on its own (--jobs at once), then the reports in order.
    let results = progress.each(&jobs, &names, |name| {
        let saved = corpus::load_saved(dir, name)?;
        corpus::check_saved(&saved, &kmst_harness::answers::implementations())
    })?;
    let mut failing = 0;
    for found in results {
        let found = found.map_err(corpus_err)?;
        if !found.is_empty() {
            failing += 1;
            progress.clear();
            for m in &found {
                print_out(&format!("{m}\n"))?;
            }
        }
    }
    progress.clear();
    let with: Vec<String> = impls.iter().map(|i| i.name()).collect();
    eprintln!(
        "checked {}: each `.bin` against its source assembled, and each saved answer \
         against its source's `;@ params` and `;@ expect` and against the answer (the \
         check's verdict and the run) of {}: {}",
        kmst_harness::text::counted(names.len() as u64, "stream", "streams"),
        with.join(", "),
        verdict(failing, names.len())
    );
    Ok(exit_code(failing))
}

/// `all match`, or how many of `total` do not.
fn verdict(failing: usize, total: usize) -> String {
    match (failing, total) {
        (0, 1) => "it matches".to_owned(),
        (0, _) => "all match".to_owned(),
        (1, 1) => "it does not match".to_owned(),
        (1, _) => format!("1 of {total} does not match"),
        _ => format!("{failing} of {total} do not match"),
    }
}

fn worst(a: ExitCode, b: ExitCode) -> ExitCode {
    if a == ExitCode::SUCCESS { b } else { a }
}

/// Which names are streams (a `.kms` in `dir`) and which scenarios (a
/// `.json` in the scenario directory). With no names: every stream, and every
/// scenario when the scenario directory was given or `corpus/scenarios`
/// exists. A name that is neither is an error. The stream list is `None`
/// when only scenarios were named (so that no stream is processed).
type Split = (Option<Vec<String>>, Option<(PathBuf, Vec<String>)>);

fn split_names(
    dir: &Path,
    scenario_dir: Option<PathBuf>,
    names: Vec<String>,
) -> Result<Split, CliError> {
    let scen_dir = scenario_dir
        .clone()
        .unwrap_or_else(|| PathBuf::from(corpus::scenario::DEFAULT_DIR));
    if names.is_empty() {
        let streams = names_in(dir, Vec::new())?;
        if scenario_dir.is_none() && !scen_dir.is_dir() {
            return Ok((Some(streams), None));
        }
        let scenarios = corpus::scenario::scenario_names(&scen_dir).map_err(corpus_err)?;
        return Ok((Some(streams), Some((scen_dir, scenarios))));
    }
    let (mut streams, mut scenarios) = (Vec::new(), Vec::new());
    for name in names {
        if dir.join(format!("{name}.kms")).exists() {
            streams.push(name);
        } else if scen_dir.join(format!("{name}.json")).exists() {
            scenarios.push(name);
        } else {
            return Err(CliError::Usage(format!(
                "no stream or scenario named `{name}`"
            )));
        }
    }
    let streams = (!streams.is_empty()).then_some(streams);
    Ok((streams, Some((scen_dir, scenarios))))
}

fn write_scenarios(dir: &Path, names: Vec<String>, force: bool) -> Result<ExitCode, CliError> {
    if names.is_empty() {
        return Ok(ExitCode::SUCCESS);
    }
    let contradicted = write_each(
        &names,
        |name| corpus::scenario::write_scenario(dir, name, force),
        |m| {
            println!("{m}");
            Ok(())
        },
    )?;
    Ok(say_written(
        dir,
        &names,
        force,
        contradicted,
        ("scenario", "scenarios"),
        "`expect`",
    ))
}

fn check_scenarios(dir: &Path, names: Vec<String>, jobs: JobsArgs) -> Result<ExitCode, CliError> {
    if names.is_empty() {
        return Ok(ExitCode::SUCCESS);
    }
    let impls = kmst_harness::answers::implementations();
    let progress = Progress::new(names.len());
    let results = progress.each(&jobs, &names, |name| {
        let saved = corpus::scenario::load_saved_scenario(dir, name)?;
        corpus::scenario::check_saved_scenario(&saved, &kmst_harness::answers::implementations())
    })?;
    let mut failing = 0;
    for found in results {
        let found = found.map_err(corpus_err)?;
        if !found.is_empty() {
            failing += 1;
            for m in &found {
                print_out(&format!("{m}\n"))?;
            }
        }
    }
    progress.clear();
    eprintln!(
        "checked {}: the `.bin` of each `.kms` upload against its source assembled, and \
         each saved answer against its `expect` and against the answer of {}: {}",
        kmst_harness::text::counted(names.len() as u64, "scenario", "scenarios"),
        corpus::scenario::scenario_implementations(&impls).join(", "),
        verdict(failing, names.len())
    );
    Ok(exit_code(failing))
}

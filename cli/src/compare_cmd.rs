//! `kmst compare`: run every dispatch variant and the reference model on the
//! benchmark workloads, check that their answers agree, and report speed.
//!
//! Exit 0 when every answer agrees, 1 at the first disagreement (printed on
//! stderr), 2 for a usage or I/O error. The measuring lives in
//! [`kmst_harness::compare`].

use std::path::PathBuf;
use std::process::ExitCode;

use kmst_harness::answers::{Implementation, UnknownImplementation};
use kmst_harness::compare::{self, CompareError, Settings, Workload};

use crate::common::{CliError, print_out, read_file, write_file};

#[derive(clap::Args)]
pub struct Args {
    /// `.kms` workloads (with `;@ params` directives) or scenario files
    /// (`.json`); default: the bundled set.
    pub files: Vec<PathBuf>,
    /// A few seconds in all: fewer, shorter samples (CI).
    #[arg(long, conflicts_with = "full")]
    pub quick: bool,
    /// Several minutes: more, longer samples (for documentation).
    #[arg(long)]
    pub full: bool,
    /// Samples per variant and workload (overrides the preset).
    #[arg(long)]
    pub samples: Option<usize>,
    /// Only these variants, comma-separated (the reference model always runs
    /// for the agreement check; it is timed only when listed).
    #[arg(long, value_delimiter = ',')]
    pub variants: Vec<String>,
    /// Only the bundled workloads with these names, comma-separated.
    #[arg(long, value_delimiter = ',')]
    pub workloads: Vec<String>,
    /// Print JSON instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Also draw the times as an SVG bar chart into this file.
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<PathBuf>,
}

fn settings(args: &Args) -> Result<Settings, CliError> {
    let mut s = if args.quick {
        Settings::QUICK
    } else if args.full {
        Settings::FULL
    } else {
        Settings::DEFAULT
    };
    if let Some(n) = args.samples {
        if n == 0 {
            return Err(CliError::Usage("--samples must be at least 1".into()));
        }
        s.samples = n;
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

fn workloads(args: &Args) -> Result<Vec<Workload>, CliError> {
    let input = |e: CompareError, path: PathBuf| CliError::Input {
        path,
        message: e.to_string(),
    };
    if !args.files.is_empty() {
        if !args.workloads.is_empty() {
            return Err(CliError::Usage(
                "--workloads selects bundled workloads; not with FILES".into(),
            ));
        }
        return args
            .files
            .iter()
            .map(|path| {
                let name = path
                    .file_stem()
                    .and_then(|s| s.to_str())
                    .unwrap_or("workload");
                if path.extension().is_some_and(|e| e == "json") {
                    let scenario =
                        kmst::scenario::read_file(path).map_err(|e| CliError::Input {
                            path: path.clone(),
                            message: e.to_string(),
                        })?;
                    return Ok(Workload::from_scenario(name, "a kernel scenario", scenario));
                }
                let bytes = read_file(path)?;
                let text = String::from_utf8(bytes).map_err(|_| CliError::Input {
                    path: path.clone(),
                    message: "not UTF-8 text (compare reads .kms sources)".into(),
                })?;
                Workload::from_source(name, &text).map_err(|e| input(e, path.clone()))
            })
            .collect();
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
    let settings = settings(&args)?;
    let variants = variants(&args)?;
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
        let svg = crate::plot::render_svg(&report).map_err(CliError::Usage)?;
        write_file(path, svg.as_bytes())?;
    }
    let text = if args.json {
        let mut s =
            serde_json::to_string_pretty(&compare::to_json(&report)).expect("a JSON value prints");
        s.push('\n');
        s
    } else {
        compare::render_table(&report)
    };
    print_out(&text)?;
    Ok(ExitCode::SUCCESS)
}

//! `kmst scenario`: run a kernel scenario (S26..S36) and print its answer: a
//! table of the streams and the host commands, or the S36 JSON.
//!
//! The file is read with [`kmst::scenario::from_json`] (uploads `.bin` or
//! `.kms`, assembled first), so a scenario error stops everything before
//! anything runs, in one line naming the entry and the field.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use kmst::Observer;
use kmst_harness::answers::Implementation;
use kmst_reference::{HostCommand, Outcome, Scenario, ScenarioResult, Status};

use crate::common::{CliError, JobsArgs, print_out};
use kmst_harness::text::grouped;

const AFTER_HELP: &str = "\
The scenario file (docs/scenario.md, S36):
  {\"params\":  {...},                                  (S24 without cancel_pass)
   \"uploads\": [{\"offset\": 0, \"file\": \"a.kms\"}, ...],  (.kms is assembled, else raw bytes)
   \"host\":    [{\"pass\": 0, \"run\": {\"offset\": 0}},      (length: the upload's at that offset)
               {\"pass\": 3, \"cancel\": 7}, {\"pass\": 3, \"deadline\": 50},
               {\"pass\": 4, \"submit\": {\"handler\": 5, \"first\": 0, \"count\": 4}},
               {\"pass\": 4, \"enqueue\": {\"handler\": 6, \"count\": 2}}]}
Upload files are relative to the scenario file's folder.

Output: the streams (req, range, start pass, status, error with the micro-op
at its pc, halt), each host command and its outcome, the counts of commands
and events, `stopped` and `passes`; with --json exactly the S36 answer.

Exit status: 0 when the scenario ran (whatever its streams did); 2 for a
scenario error (bad JSON, an unknown key, an overlapping or misaligned
placement, an upload file that cannot be read or assembled, ...), reported
in one line naming the entry and the field; nothing runs then.";

#[derive(clap::Args)]
#[command(after_help = AFTER_HELP)]
pub struct Args {
    /// The scenario files (JSON, S36; `-`: standard input, its upload files
    /// relative to the working folder); several run at once (--jobs) and
    /// print in the order given, each under a `== FILE` line (with --json:
    /// an array of `{"file": FILE, "answer": ...}`).
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    #[command(flatten)]
    pub jobs: JobsArgs,
    // The names come from `Dispatch::ALL` (common::dispatch_help).
    #[arg(long, default_value = "tail", help = crate::common::dispatch_help("The implementation that runs the scenario, a fast dispatch variant or the reference model", true))]
    pub dispatch: String,
    /// Print the S36 JSON answer instead of the tables.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub pause: crate::pause::PauseArgs,
}

pub fn run(args: Args) -> Result<ExitCode, CliError> {
    if args.pause.stop_at_pass.is_some() {
        let [file] = &args.files[..] else {
            return Err(CliError::Usage(
                "--save: one scenario file at a time".into(),
            ));
        };
        let d = crate::pause::fast(&args.dispatch)?;
        let run = kmst::exec::Resumable::scenario(&crate::common::read_scenario(file)?);
        crate::pause::pause_and_save(run, d, &args.pause, args.json)?;
        return Ok(ExitCode::SUCCESS);
    }
    let implementation = args
        .dispatch
        .parse::<Implementation>()
        .map_err(|e| CliError::Usage(format!("--dispatch: {e}")))?;
    // Each file on its own (--jobs at once); then printed in order, up to
    // the first error, as one after another would have.
    let answers = args
        .jobs
        .map(&args.files, |file| one(file, implementation))?;
    let several = args.files.len() > 1;
    let mut text = String::new();
    let mut json = Vec::new();
    let mut failed = None;
    for (file, answer) in args.files.iter().zip(answers) {
        let (scenario, answer, passes) = match answer {
            Ok(a) => a,
            Err(e) => {
                failed = Some(e);
                break;
            }
        };
        if args.json {
            let value = answer
                .to_json_value()
                .map_err(|e| CliError::Usage(e.to_string()))?;
            json.push(if several {
                serde_json::json!({"file": file.display().to_string(), "answer": value})
            } else {
                value
            });
        } else {
            if several {
                let _ = writeln!(
                    text,
                    "{}== {}",
                    if text.is_empty() { "" } else { "\n" },
                    file.display()
                );
            }
            text.push_str(&summary(&scenario, &answer, &passes));
        }
    }
    if args.json && !json.is_empty() {
        let value = if several {
            serde_json::Value::Array(json)
        } else {
            json.remove(0)
        };
        let pretty = serde_json::to_string_pretty(&value).expect("a JSON value prints");
        text = format!("{pretty}\n");
    }
    print_out(&text)?;
    match failed {
        Some(e) => Err(e),
        None => Ok(ExitCode::SUCCESS),
    }
}

/// One scenario file run by `implementation`.
fn one(
    file: &std::path::Path,
    implementation: Implementation,
) -> Result<(Scenario, ScenarioResult, PassCount), CliError> {
    let scenario = crate::common::read_scenario(file)?;
    let mut passes = PassCount::default();
    let answer = match implementation {
        Implementation::Reference => kmst_reference::simulate_scenario(&scenario),
        Implementation::Fast(d) => {
            kmst::exec::simulate_scenario_observed(&scenario, d, &mut passes)
        }
    };
    Ok((scenario, answer, passes))
}

/// The passes the fast kernel simulated and the ones it skipped as idle.
#[derive(Default)]
pub(crate) struct PassCount {
    simulated: u64,
    skipped: u64,
}

impl Observer for PassCount {
    fn on_pass_end(&mut self, _pass: u64, _busy_slots: u32, _queue_len: u32) {
        self.simulated += 1;
    }

    fn on_idle(&mut self, from: u64, to: u64) {
        self.skipped += to - from;
    }
}

/// The micro-op at `pc` of the stream at `[offset, offset + length)` of the
/// region, as assembly, when there is one (an error's pc may be op_count).
fn op_at(scenario: &Scenario, offset: u32, length: u32, pc: u32) -> Option<String> {
    let upload = scenario.region_bytes(u64::from(offset), u64::from(length));
    let op_count = u32::from_le_bytes(upload.get(8..12)?.try_into().ok()?);
    let at = kmst::format::HEADER_LEN + kmst::format::OP_LEN * pc as usize;
    let bytes = upload
        .get(at..at + kmst::format::OP_LEN)
        .filter(|_| pc < op_count)?;
    Some(kmst::asm::format_op(&kmst::format::MicroOp::read(bytes)))
}

/// A host command as one cell: its kind and its words.
fn command_text(c: &HostCommand) -> String {
    let words = |args: &[u32; 10]| {
        let used = args.iter().rposition(|&w| w != 0).map_or(0, |i| i + 1);
        let words: Vec<String> = args[..used].iter().map(u32::to_string).collect();
        format!("[{}]", words.join(", "))
    };
    let flags = |exclusive: bool, result: bool| {
        let mut s = String::new();
        if exclusive {
            s.push_str(" exclusive");
        }
        if result {
            s.push_str(" result");
        }
        s
    };
    match *c {
        HostCommand::Run { offset, length } => format!("run {offset}, {length}"),
        HostCommand::Cancel { req } => format!("cancel {req}"),
        HostCommand::Deadline { us } => format!("deadline {us}"),
        HostCommand::Submit {
            handler,
            first,
            count,
            ref args,
            exclusive,
            result,
        } => format!(
            "submit handler={handler} group={first}+{count} args={}{}",
            words(args),
            flags(exclusive, result)
        ),
        HostCommand::Enqueue {
            handler,
            count,
            ref args,
            exclusive,
            result,
        } => format!(
            "enqueue handler={handler} count={count} args={}{}",
            words(args),
            flags(exclusive, result)
        ),
    }
}

/// Left-aligned columns, two spaces apart, each row indented by two.
fn table(header: &[&str], rows: &[Vec<String>]) -> String {
    let mut widths: Vec<usize> = header.iter().map(|h| h.len()).collect();
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    let header: Vec<String> = header.iter().map(|h| h.to_string()).collect();
    for row in std::iter::once(&header).chain(rows) {
        let mut line = String::from(" ");
        for (w, cell) in widths.iter().zip(row) {
            let _ = write!(line, " {cell:<w$} ");
        }
        let _ = writeln!(out, "{}", line.trim_end());
    }
    out
}

pub(crate) fn summary(scenario: &Scenario, r: &ScenarioResult, passes: &PassCount) -> String {
    let mut s = String::new();
    let dash = || "-".to_string();
    let streams: Vec<Vec<String>> = r
        .streams
        .iter()
        .enumerate()
        .map(|(i, st)| {
            let status = match st.status {
                Status::Ended => "ended",
                Status::Error => "error",
                Status::Stuck => "stuck",
            };
            let error = st.error.map_or_else(dash, |e| {
                let mut text = format!("reason {} at pc {}", e.reason, e.pc);
                // `Reason::BadHeader` is the header's (pc 0 names no micro-op).
                if e.reason.number() > 1
                    && let Some(op) = op_at(scenario, st.offset, st.length, e.pc)
                {
                    let _ = write!(text, ": {op}");
                }
                text
            });
            let end = u64::from(st.offset) + u64::from(st.length);
            vec![
                i.to_string(),
                st.req.to_string(),
                format!("{}..{end}", st.offset),
                grouped(st.pass),
                status.to_string(),
                error,
                st.halt.map_or_else(dash, |h| h.to_string()),
            ]
        })
        .collect();
    let _ = writeln!(s, "streams: {}", grouped(r.streams.len() as u64));
    if !streams.is_empty() {
        let header = ["#", "req", "range", "pass", "status", "error", "halt"];
        s.push_str(&table(&header, &streams));
    }
    let host: Vec<Vec<String>> = scenario
        .host()
        .iter()
        .zip(&r.host)
        .enumerate()
        .map(|(i, (entry, h))| {
            let pass = h.pass.map_or_else(dash, grouped);
            let outcome = match h.outcome {
                Outcome::Taken => match h.stream {
                    Some(k) => format!("taken: stream {k}"),
                    None => "taken".to_string(),
                },
                // The number alone: the reasons' descriptions are a stream's.
                Outcome::Rejected(reason) => format!("rejected: reason {}", reason.number()),
                Outcome::Waiting => "waiting".to_string(),
            };
            vec![
                i.to_string(),
                grouped(entry.pass),
                command_text(&entry.command),
                pass,
                outcome,
            ]
        })
        .collect();
    let _ = writeln!(s, "host commands: {}", grouped(r.host.len() as u64));
    if !host.is_empty() {
        let header = ["#", "sent", "command", "pass", "outcome"];
        s.push_str(&table(&header, &host));
    }
    let _ = writeln!(s, "commands: {}", grouped(r.commands.len() as u64));
    let _ = writeln!(s, "events:   {}", grouped(r.events.len() as u64));
    let _ = writeln!(s, "stopped:  {}", r.stopped);
    let _ = writeln!(s, "passes:   {}", grouped(r.passes));
    // Only the fast kernel reports the passes it ran; shown when it did.
    if passes.simulated > 0 {
        let _ = writeln!(
            s,
            "simulated: {} ({} skipped as idle)",
            kmst_harness::text::counted(passes.simulated, "pass", "passes"),
            grouped(passes.skipped)
        );
    }
    s
}

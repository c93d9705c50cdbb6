//! `kmst run`: simulate one stream and print its answer (a summary, or the S24 JSON).
//!
//! The parameters are merged key by key: the defaults, then a `.kms`
//! source's `;@ params`, then the keys of `--params FILE.json` (a params
//! object or a whole saved answer), then the flags; they are validated (S25)
//! before anything runs.

use std::path::PathBuf;
use std::process::ExitCode;

use kmst::exec::{Dispatch, simulate_observed};
use kmst_harness::answers::{DifferentialOracle, Implementation};
use kmst_reference::{Delay, Params, ResultModel, SimResult, Status, result::kind};
use std::sync::atomic::{AtomicU64, Ordering};

use kmst_harness::text::{counted, grouped};

use crate::progress::{self, PassCounter};

use crate::common::{CliError, U32, U64, in_range, print_out, read_file};

#[derive(clap::Args)]
pub struct Args {
    /// The upload or `.kms` source to run (`-`: standard input).
    pub file: PathBuf,
    #[command(flatten)]
    pub params: ParamsArgs,
    // The names come from `Dispatch::ALL` (common::dispatch_help).
    #[arg(long, default_value = "tail", help = crate::common::dispatch_help("The implementation that runs the stream, a fast dispatch variant or the reference model", true))]
    pub dispatch: String,
    /// Print the S24 JSON object instead of a summary.
    #[arg(long)]
    pub json: bool,
    /// Print the passes the kernel simulated beside S16's `passes` (which
    /// counts to the last event) on every run, not only on a run with no
    /// event. A fast variant counts them as it runs; with `--dispatch
    /// reference` the fast kernel runs the stream a second time to count them.
    #[arg(long)]
    pub count_passes: bool,
    #[command(flatten)]
    pub pause: crate::pause::PauseArgs,
}

/// The simulation parameters as flags, shared by `kmst run` and `kmst profile`.
#[derive(clap::Args)]
pub struct ParamsArgs {
    /// Completion delay: N, never, cycle:BASE:MOD or table:V,V,... (entries may be `never`).
    #[arg(long, allow_hyphen_values = true)]
    pub delay: Option<String>,
    /// Result model: zero, sequence, arg:K or table:V,V,...
    #[arg(long, allow_hyphen_values = true)]
    pub result: Option<String>,
    /// Deadline of every command in passes (replaces the header's); at least 1.
    #[arg(long, allow_hyphen_values = true, value_parser = in_range::<1, U64>)]
    pub deadline_passes: Option<u64>,
    /// Deadline for a header deadline of 0; at least 1.
    #[arg(long, allow_hyphen_values = true, value_parser = in_range::<1, U64>)]
    pub default_deadline_passes: Option<u64>,
    /// Deliver a cancel in this pass.
    #[arg(long, allow_hyphen_values = true, value_parser = in_range::<0, U64>)]
    pub cancel_pass: Option<u64>,
    /// Grid size, 1..=65535 (the group fields are 16 bits).
    #[arg(long, allow_hyphen_values = true, value_parser = in_range::<1, 65535>)]
    pub core_count: Option<u64>,
    /// TIME returns pass * ticks_per_pass; 0..=4294967295.
    #[arg(long, allow_hyphen_values = true, value_parser = in_range::<0, U32>)]
    pub ticks_per_pass: Option<u64>,
    /// Stop a run that has not ended after this many passes; at least 1.
    #[arg(long, allow_hyphen_values = true, value_parser = in_range::<1, U64>)]
    pub max_passes: Option<u64>,
    /// The largest upload the check accepts.
    #[arg(long, allow_hyphen_values = true, value_parser = in_range::<0, U64>)]
    pub region_size: Option<u64>,
    /// Micro-ops per stream turn, 1..=4294967295.
    #[arg(long, allow_hyphen_values = true, value_parser = in_range::<1, U32>)]
    pub turn_budget: Option<u64>,
    /// Parameters from a JSON file: a params object or a saved answer (its
    /// `params`; `-`: standard input).
    #[arg(long)]
    pub params: Option<PathBuf>,
}

pub fn run(args: Args) -> Result<ExitCode, CliError> {
    let dispatch = crate::common::dispatch(&args.dispatch)?;
    let stream = crate::common::load_stream(&args.file)?;
    let params = build_params_on(stream.params, &args.params)?;
    let upload = stream.upload;
    if args.pause.stop_at_pass.is_some() {
        let d = crate::pause::fast(&args.dispatch)?;
        let run = kmst::exec::Resumable::new(&upload, &params);
        let run = crate::pause::pause_and_save(run, d, &args.pause, args.json)?;
        return match run.into_answer() {
            kmst::exec::Answer::Stream(a) => verdict(&a, args.file),
            kmst::exec::Answer::Scenario(_) => unreachable!("one stream's run"),
        };
    }
    let what = format!("kmst run {}", args.file.display());
    // The passes simulated, counted by the fast kernel's hooks of pass ends:
    // in a pipe or a file as the library runs (its spans of quick passes
    // whole), on a terminal pass by pass for the progress line (PassCounter).
    let passes = AtomicU64::new(0);
    let counted = |d| {
        if progress::shown() {
            simulate_observed(&upload, &params, d, &mut PassCounter::<true>(&passes))
        } else {
            simulate_observed(&upload, &params, d, &mut PassCounter::<false>(&passes))
        }
    };
    let (answer, simulated) = match dispatch {
        Implementation::Fast(d) => {
            let answer =
                progress::while_running(&what, Some(&passes), params.max_passes, || counted(d));
            (answer, Some(passes.load(Ordering::Relaxed)))
        }
        // The reference model has no hooks; it gives the same answer, so
        // the fast kernel, run after it, counts its passes.
        Implementation::Reference if args.count_passes => {
            let answer = progress::while_running(&what, Some(&passes), params.max_passes, || {
                let answer = dispatch.simulate(&upload, &params);
                counted(Dispatch::Tail);
                answer
            });
            (answer, Some(passes.load(Ordering::Relaxed)))
        }
        Implementation::Reference => {
            let answer = progress::while_running(&what, None, params.max_passes, || {
                dispatch.simulate(&upload, &params)
            });
            (answer, None)
        }
    };
    // The count is printed with --count-passes, or where S16's alone would
    // mislead: a run with no event (its `passes` is 0 however long it ran).
    let simulated = simulated.filter(|_| args.count_passes || answer.events.is_empty());
    if args.json {
        let value = answer
            .to_json_value()
            .map_err(|e| CliError::Usage(e.to_string()))?;
        let text = serde_json::to_string_pretty(&value).expect("a JSON value prints");
        print_out(&format!("{text}\n"))?;
    } else {
        let mut text = summary(&answer, &upload, simulated);
        if let Some(file) = &stream.params_file {
            text.insert_str(0, &format!("params:   from {}\n", file.display()));
        }
        print_out(&text)?;
    }
    verdict(&answer, args.file)
}

/// A verdict against the input: the check rejects the upload (the answer
/// is the kernel's one error event for it, S3).
fn verdict(answer: &SimResult, path: PathBuf) -> Result<ExitCode, CliError> {
    match answer.check {
        Some(e) => Err(CliError::Verdict {
            path,
            message: format!(
                "the check rejects the upload: reason {} at pc {}",
                e.reason, e.pc
            ),
        }),
        None => Ok(ExitCode::SUCCESS),
    }
}

/// The run's parameters, merged key by key: `base` (the defaults, or a
/// `.kms` source's `;@ params`), then the keys `--params FILE` gives, then the
/// flags; validated (S25).
pub fn build_params_on(base: Params, args: &ParamsArgs) -> Result<Params, CliError> {
    let mut p = match &args.params {
        None => base,
        Some(path) => crate::common::read_params_file(path, &read_file(path)?, base)?,
    };
    let usage = |e: kmst_reference::ParamsError| CliError::Usage(e.to_string());
    if let Some(d) = &args.delay {
        p.delay = parse_delay(d).map_err(usage)?;
    }
    if let Some(r) = &args.result {
        p.result = parse_result(r).map_err(usage)?;
    }
    if let Some(v) = args.deadline_passes {
        p.deadline_passes = Some(v);
    }
    if let Some(v) = args.default_deadline_passes {
        p.default_deadline_passes = v;
    }
    if let Some(v) = args.cancel_pass {
        p.cancel_pass = Some(v);
    }
    // in_range has bounded these to u32.
    if let Some(v) = args.core_count {
        p.core_count = v as u32;
    }
    if let Some(v) = args.ticks_per_pass {
        p.ticks_per_pass = v as u32;
    }
    if let Some(v) = args.max_passes {
        p.max_passes = v;
    }
    if let Some(v) = args.region_size {
        p.region_size = v;
    }
    if let Some(v) = args.turn_budget {
        p.turn_budget = v as u32;
    }
    p.validate().map_err(usage)?;
    Ok(p)
}

fn bad(param: &'static str, text: &str) -> kmst_reference::ParamsError {
    kmst_reference::ParamsError {
        param,
        message: format!(
            "cannot read `{text}`: expected {}",
            if param == "delay" {
                "N, never, cycle:BASE:MOD or table:V,V,... with N, BASE, V in 0..=4294967295 \
                 (V may be never) and MOD in 1..=4294967295"
            } else {
                "zero, sequence, arg:K with K in 0..=9, or table:V,V,... with V in 0..=4294967295"
            }
        ),
    }
}

fn parse_u32(param: &'static str, text: &str) -> Result<u32, kmst_reference::ParamsError> {
    text.trim().parse().map_err(|_| bad(param, text))
}

/// `N`, `never`, `cycle:BASE:MOD` or `table:V,V,...` (entries may be `never`).
pub fn parse_delay(text: &str) -> Result<Delay, kmst_reference::ParamsError> {
    if text == "never" {
        return Ok(Delay::Never);
    }
    if let Some(rest) = text.strip_prefix("cycle:") {
        let (base, modulo) = rest.split_once(':').ok_or_else(|| bad("delay", text))?;
        return Delay::cycle(parse_u32("delay", base)?, parse_u32("delay", modulo)?);
    }
    if let Some(rest) = text.strip_prefix("table:") {
        let entries = rest
            .split(',')
            .map(|e| match e.trim() {
                "never" => Ok(None),
                v => parse_u32("delay", v).map(Some),
            })
            .collect::<Result<Vec<_>, _>>()?;
        return Delay::table(entries);
    }
    parse_u32("delay", text).map(Delay::Fixed)
}

/// `zero`, `sequence`, `arg:K` or `table:V,V,...`.
pub fn parse_result(text: &str) -> Result<ResultModel, kmst_reference::ParamsError> {
    match text {
        "zero" => return Ok(ResultModel::Zero),
        "sequence" => return Ok(ResultModel::Sequence),
        _ => {}
    }
    if let Some(k) = text.strip_prefix("arg:") {
        let k: u8 = k.trim().parse().map_err(|_| bad("result", text))?;
        return ResultModel::arg(k);
    }
    if let Some(rest) = text.strip_prefix("table:") {
        let entries = rest
            .split(',')
            .map(|e| parse_u32("result", e))
            .collect::<Result<Vec<_>, _>>()?;
        return ResultModel::table(entries);
    }
    Err(bad("result", text))
}

fn kind_name(k: u8) -> &'static str {
    match k {
        kind::TIMEOUT => "TIMEOUT",
        kind::STREAM => "STREAM",
        kind::STREAM_END => "STREAM_END",
        kind::STREAM_ERROR => "STREAM_ERROR",
        _ => "?",
    }
}

/// The micro-op at `pc` as assembly, when the upload has one there (an error's
/// pc may be `op_count`, past the last micro-op, or 0 of a bad header).
fn op_at(upload: &[u8], pc: u32) -> Option<String> {
    kmst::format::micro_op_at(upload, pc).map(|op| kmst::asm::format_op(&op))
}

/// The readable summary of a run.
pub(crate) fn summary(r: &SimResult, upload: &[u8], simulated: Option<u64>) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let status = match r.status {
        Status::Ended => "ended",
        Status::Error => "error",
        Status::Stuck => "stuck",
    };
    let _ = writeln!(s, "status:   {status}");
    // S16's `passes` counts to the last event; with --count-passes, or
    // when no event happened (S16's 0 then says nothing of the run), how
    // many ran too.
    let s16 = format!(
        "passes:   {} (S16: the last event's pass + 1",
        grouped(r.passes)
    );
    let _ = match (simulated, r.events.is_empty()) {
        (Some(n), true) => writeln!(
            s,
            "{s16}; no event happened in the {} simulated)",
            counted(n, "pass", "passes")
        ),
        (None, true) => writeln!(
            s,
            "{s16}; no event happened; --count-passes counts the passes simulated)"
        ),
        (Some(n), false) => writeln!(s, "{s16}; {} simulated)", grouped(n)),
        (None, false) => writeln!(s, "{s16})"),
    };
    let _ = writeln!(s, "commands: {}", grouped(r.commands.len() as u64));
    let _ = writeln!(s, "events:   {}", grouped(r.events.len() as u64));
    if let Some(e) = r.check {
        let _ = writeln!(s, "check:    reason {} at pc {}", e.reason, e.pc);
    }
    if let Some(e) = r.error {
        let _ = write!(s, "error:    reason {} at pc {}", e.reason, e.pc);
        match op_at(upload, e.pc) {
            Some(op) if e.reason.number() > 1 => {
                let _ = writeln!(s, ": {op}");
            }
            _ => s.push('\n'),
        }
    }
    if let Some(h) = r.halt {
        let _ = writeln!(s, "halt:     {h}");
    }
    let _ = writeln!(s, "stopped:  {}", r.stopped);
    for e in r.events.iter().take(10) {
        let _ = writeln!(
            s,
            "  pass {:>7}  {:<12} req {} aux {:#x}",
            e.pass_index,
            kind_name(e.kind),
            e.req,
            e.auxiliary
        );
    }
    if r.events.len() > 10 {
        let more = counted(r.events.len() as u64 - 10, "more event", "more events");
        let _ = writeln!(s, "  ... {more}");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_flags_state_their_range() {
        assert_eq!(in_range::<1, 65535>("65535"), Ok(65535));
        assert_eq!(
            in_range::<1, 65535>("4294967296").unwrap_err(),
            "4294967296 is not in 1..=65535"
        );
        assert_eq!(
            in_range::<1, 65535>("0").unwrap_err(),
            "0 is not in 1..=65535"
        );
        assert_eq!(
            in_range::<0, U32>("-1").unwrap_err(),
            "-1 is not in 0..=4294967295"
        );
        assert_eq!(
            in_range::<1, U32>("x").unwrap_err(),
            "expected an integer in 1..=4294967295"
        );
        assert_eq!(in_range::<1, U64>("18446744073709551615"), Ok(u64::MAX));
        assert!(in_range::<1, U64>("18446744073709551616").is_err());
    }

    #[test]
    fn delay_flags() {
        assert_eq!(parse_delay("7").unwrap(), Delay::Fixed(7));
        assert_eq!(parse_delay("never").unwrap(), Delay::Never);
        assert_eq!(
            parse_delay("cycle:2:5").unwrap(),
            Delay::Cycle { base: 2, modulo: 5 }
        );
        assert_eq!(
            parse_delay("table:1,never,3").unwrap(),
            Delay::Table(vec![Some(1), None, Some(3)])
        );
        for bad in [
            "",
            "-1",
            "4294967296",
            "cycle:1:0",
            "cycle:1",
            "table:",
            "table:x",
            "soon",
        ] {
            assert_eq!(parse_delay(bad).unwrap_err().param, "delay", "{bad}");
        }
    }

    #[test]
    fn result_flags() {
        assert_eq!(parse_result("zero").unwrap(), ResultModel::Zero);
        assert_eq!(parse_result("sequence").unwrap(), ResultModel::Sequence);
        assert_eq!(parse_result("arg:9").unwrap(), ResultModel::Arg(9));
        assert_eq!(
            parse_result("table:4,5").unwrap(),
            ResultModel::Table(vec![4, 5])
        );
        for bad in ["", "arg:10", "arg:", "table:", "table:never", "one"] {
            assert_eq!(parse_result(bad).unwrap_err().param, "result", "{bad}");
        }
    }
}

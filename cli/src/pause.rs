//! Pausing a run for `kmst run`, `kmst scenario` and `kmst resume`: the
//! `--stop-at-pass N --save STATE` flags, the run stopped and saved, and
//! the state printed for a person or as JSON (docs/pause.md). A snapshot
//! file carries its upload or scenario and its parameters, so a resume
//! takes no simulation flag but `--dispatch`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use kmst::exec::resume::{Answer, Resumable, Standing, State};
use kmst::exec::{Dispatch, Until};
use kmst_harness::answers::Implementation;
use kmst_harness::text::grouped;
use serde_json::{Value, json};

use crate::common::{CliError, print_out, read_file, write_file};

/// `--stop-at-pass N --save STATE` of `kmst run` and `kmst scenario`.
#[derive(clap::Args)]
pub struct PauseArgs {
    /// Stop the run before pass N (every pass before it runs) and save it
    /// with --save; a pass at or past the run's end saves the finished run.
    #[arg(long, value_name = "N", requires = "save", value_parser = crate::common::in_range::<0, { crate::common::U64 }>)]
    pub stop_at_pass: Option<u64>,
    /// Where to write the snapshot (whole or not at all); then the state is
    /// printed (as `kmst state`) instead of the answer.
    #[arg(long, value_name = "STATE", requires = "stop_at_pass")]
    pub save: Option<PathBuf>,
}

/// A fast variant by name (the reference model cannot pause).
pub fn fast(name: &str) -> Result<Dispatch, CliError> {
    match crate::common::dispatch(name)? {
        Implementation::Fast(d) => Ok(d),
        Implementation::Reference => Err(CliError::Usage(
            "--dispatch reference: the reference model runs a whole run only; \
             pausing and resuming take a fast variant"
                .into(),
        )),
    }
}

/// Reads a snapshot file: any error of its bytes names the file (exit 2).
pub fn restore(path: &Path) -> Result<Resumable, CliError> {
    let bytes = read_file(path)?;
    Resumable::restore(&bytes).map_err(|e| CliError::Input {
        path: path.to_owned(),
        message: e.to_string(),
    })
}

/// Runs `run` to `--stop-at-pass`, saves it and prints its state; the
/// run as it stands is given back for the caller's verdict.
pub fn pause_and_save(
    mut run: Resumable,
    dispatch: Dispatch,
    pause: &PauseArgs,
    json: bool,
) -> Result<Resumable, CliError> {
    let (Some(stop), Some(save)) = (pause.stop_at_pass, &pause.save) else {
        unreachable!("clap requires both")
    };
    run.run(dispatch, Until::Pass(stop));
    let bytes = run
        .snapshot()
        .map_err(|e| CliError::Usage(format!("--save: {e}")))?;
    write_file(save, &bytes)?;
    print_out(&if json {
        pretty(&state_json(&run))
    } else {
        let mut text = state_text(&run);
        let _ = writeln!(
            text,
            "saved:    {} ({} bytes)",
            save.display(),
            grouped(bytes.len() as u64)
        );
        text
    })?;
    Ok(run)
}

pub fn pretty(v: &Value) -> String {
    format!(
        "{}\n",
        serde_json::to_string_pretty(v).expect("a JSON value prints")
    )
}

fn standing(s: Standing) -> &'static str {
    match s {
        Standing::Active => "active",
        Standing::Ended => "ended",
        Standing::Failed => "failed",
    }
}

fn owner(o: Option<usize>) -> Value {
    o.map_or(json!("host"), |s| json!(s))
}

/// The state as JSON: the machine between two passes and the answer so far.
pub fn state_json(run: &Resumable) -> Value {
    let s = run.state();
    let answer = match run.answer() {
        Answer::Stream(a) => a.to_json_value(),
        Answer::Scenario(a) => a.to_json_value(),
    }
    .unwrap_or(Value::Null);
    json!({
        "kind": if run.is_scenario() { "scenario" } else { "stream" },
        "pass": s.pass,
        "over": s.over,
        "default_deadline_passes": s.default_deadline,
        "streams": s.streams.iter().map(|t| json!({
            "req": t.req,
            "standing": standing(t.standing),
            "pc": t.pc,
            "regs": t.regs,
            "steps": t.steps,
            "max_steps": t.max_steps,
            "pending": t.pending,
            "latest_result": t.latest_result,
            "offset": t.offset,
            "length": t.length,
            "started": t.started,
        })).collect::<Vec<_>>(),
        "slots": s.slots.iter().map(|t| json!({
            "slot": t.slot,
            "sequence": t.sequence,
            "owner": owner(t.owner),
            "first": t.first,
            "count": t.count,
            "ack": t.ack,
            "deadline": t.deadline,
        })).collect::<Vec<_>>(),
        "queue": s.queue.iter().map(|j| json!({
            "id": j.id,
            "owner": owner(j.owner),
            "handler": j.command.handler,
            "count": j.command.count,
            "flags": j.command.flags,
            "args": j.command.args,
            "pc": j.command.pc,
            "overtaken": j.overtaken,
        })).collect::<Vec<_>>(),
        "host_waiting": s.host_waiting.iter().map(|(i, h)| json!({
            "index": i,
            "pass": h.pass,
            "kind": h.command.kind(),
        })).collect::<Vec<_>>(),
        "answer": answer,
    })
}

/// The state for a person.
pub fn state_text(run: &Resumable) -> String {
    let s: State = run.state();
    let mut t = String::new();
    let what = if run.is_scenario() {
        "a scenario"
    } else {
        "one stream"
    };
    if s.over {
        let _ = writeln!(
            t,
            "run:      {what}, over (ended in pass {})",
            grouped(s.pass)
        );
    } else {
        let _ = writeln!(
            t,
            "run:      {what}, paused before pass {}",
            grouped(s.pass)
        );
    }
    let _ = writeln!(t, "max_passes: {}", grouped(run.params().max_passes));
    let _ = writeln!(t, "streams:  {}", s.streams.len());
    for (i, st) in s.streams.iter().enumerate() {
        let _ = writeln!(
            t,
            "  #{i} req {} {}: pc {}, {} of {} steps, {} pending, latest result {}",
            st.req,
            standing(st.standing),
            st.pc,
            grouped(u64::from(st.steps)),
            grouped(u64::from(st.max_steps)),
            st.pending,
            st.latest_result
        );
        let regs: Vec<String> = st
            .regs
            .iter()
            .enumerate()
            .filter(|&(_, &v)| v != 0)
            .map(|(r, v)| format!("r{r}={v}"))
            .collect();
        let _ = writeln!(
            t,
            "     regs: {}",
            if regs.is_empty() {
                "all 0".into()
            } else {
                regs.join(" ")
            }
        );
        if let Some(e) = st.error {
            let _ = writeln!(t, "     error: reason {} at pc {}", e.reason, e.pc);
        }
        if let Some(h) = st.halt {
            let _ = writeln!(t, "     halt: {h}");
        }
    }
    let _ = writeln!(t, "slots:    {} busy", s.slots.len());
    for sl in &s.slots {
        let who = sl.owner.map_or("host".into(), |o| format!("stream {o}"));
        let ack = sl.ack.map_or("never".into(), grouped);
        let _ = writeln!(
            t,
            "  slot {:>2}: command {} of {who}, cores {}+{}, ack {ack}, deadline {}",
            sl.slot,
            sl.sequence,
            sl.first,
            sl.count,
            grouped(sl.deadline)
        );
    }
    let _ = writeln!(t, "queue:    {} waiting", s.queue.len());
    for j in &s.queue {
        let who = j.owner.map_or("host".into(), |o| format!("stream {o}"));
        let _ = writeln!(
            t,
            "  job {}: handler {} of {who}, {} cores, overtaken {}",
            j.id, j.command.handler, j.command.count, j.overtaken
        );
    }
    if run.is_scenario() {
        let _ = writeln!(t, "host:     {} commands to come", s.host_waiting.len());
        for (i, h) in &s.host_waiting {
            let _ = writeln!(
                t,
                "  #{i} in pass {}: {}",
                grouped(h.pass),
                h.command.kind()
            );
        }
    }
    let _ = writeln!(t, "commands: {} so far", grouped(s.commands.len() as u64));
    let _ = writeln!(t, "events:   {} so far", grouped(s.events.len() as u64));
    let _ = writeln!(t, "stopped:  {}", s.stopped);
    t
}

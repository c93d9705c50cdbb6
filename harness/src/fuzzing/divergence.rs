//! Readable reports of a divergence between implementations.
//!
//! A fuzz target that finds two implementations disagreeing panics with a
//! [`Divergence`]; `kmst replay` prints the same text. The report says what
//! was compared (the parameters as S24 JSON, the check's arguments), the
//! first place the answers differ (expected from the reference, got from
//! each variant that differs), and the micro-ops around every program
//! counter involved, so that most divergences can be judged from the report
//! alone.

use std::fmt::{self, Write as _};
use std::panic::{AssertUnwindSafe, catch_unwind};

use kmst::asm::format_op;
use kmst::format::{
    HEADER_LEN, MicroOp, OP_LEN, TEMPLATE_LEN, Template, read_u32, templates_offset,
};
use kmst::ops::ImmKind;
use kmst_reference::{Params, SimResult, StreamError};

use crate::answers::{run_difference, run_summary};

/// Two implementations gave different answers (or one panicked).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Divergence {
    /// The fuzz target's name.
    pub target: &'static str,
    /// One line: what differs.
    pub title: String,
    /// The full report.
    pub body: String,
}

impl fmt::Display for Divergence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "DIVERGENCE in fuzz target `{}`: {}",
            self.target, self.title
        )?;
        f.write_str(&self.body)
    }
}

impl std::error::Error for Divergence {}

/// Runs `f`, turning a panic into its message (so that a variant that
/// panics is reported beside the others instead of ending the comparison).
pub fn caught<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|payload| {
        if let Some(s) = payload.downcast_ref::<&str>() {
            format!("panicked: {s}")
        } else if let Some(s) = payload.downcast_ref::<String>() {
            format!("panicked: {s}")
        } else {
            "panicked".to_owned()
        }
    })
}

/// `(reason, pc)` as text, or `accepted`.
pub fn verdict_text(v: &Result<(), StreamError>) -> String {
    match v {
        Ok(()) => "accepted".into(),
        Err(e) => format!("rejected: reason {} at pc {}", e.reason.number(), e.pc),
    }
}

/// The parameters as one line of S24 JSON.
pub fn params_json(params: &Params) -> String {
    params.to_json_value().map_or_else(
        |e| format!("(not expressible as JSON: {e})"),
        |v| v.to_string(),
    )
}

/// The micro-ops within three of each pc in `pcs`, the pc marked `>`, with
/// the template a SUBMIT or ENQUEUE there names. Reads whatever of the
/// layout the data holds, so it also serves uploads the check rejects.
pub fn disasm_around(upload: &[u8], pcs: &[u32]) -> String {
    let mut out = String::new();
    if upload.len() < HEADER_LEN {
        let _ = writeln!(out, "  (no header: the data is {} bytes)", upload.len());
        return out;
    }
    let op_count = read_u32(upload, 8) as usize;
    let command_count = read_u32(upload, 12) as usize;
    let held = op_count.min((upload.len() - HEADER_LEN) / OP_LEN);
    let _ = writeln!(
        out,
        "  header: op_count {op_count}, command_count {command_count}, max_steps {}, deadline_us {}, req {}, seed {}",
        read_u32(upload, 16),
        read_u32(upload, 20),
        read_u32(upload, 24),
        read_u32(upload, 28)
    );
    let mut pcs: Vec<u32> = pcs.to_vec();
    pcs.sort_unstable();
    pcs.dedup();
    let mut shown_to = 0usize;
    for &pc in &pcs {
        let pc = pc as usize;
        let from = pc.saturating_sub(3).max(shown_to);
        let to = (pc + 4).min(held);
        if from >= to {
            if pc >= held {
                let _ = writeln!(
                    out,
                    "  > {pc}: (past the last micro-op; op_count {op_count})"
                );
            }
            continue;
        }
        if from > shown_to && shown_to != 0 {
            out.push_str("  ...\n");
        }
        for at in from..to {
            let op = MicroOp::read(&upload[HEADER_LEN + at * OP_LEN..]);
            let mark = if at == pc { '>' } else { ' ' };
            let _ = writeln!(out, "  {mark} {at:5}: {}", format_op(&op));
            if at == pc
                && let Some(code) = op.opcode()
                && code.imm_kind() == ImmKind::Template
            {
                let _ = writeln!(out, "           {}", template_text(upload, op.imm as usize));
            }
        }
        if pc >= held {
            let _ = writeln!(
                out,
                "  > {pc}: (past the last micro-op; op_count {op_count})"
            );
        }
        shown_to = to;
    }
    out
}

fn template_text(upload: &[u8], index: usize) -> String {
    let op_count = read_u32(upload, 8) as usize;
    let at = templates_offset(op_count) + index * TEMPLATE_LEN;
    match upload.get(at..at + TEMPLATE_LEN) {
        Some(bytes) => format!("template #{index}: {:?}", Template::read(bytes)),
        None => format!("template #{index}: not in the data"),
    }
}

/// Compares every variant's run with the reference's; `None` when all agree.
pub fn compare_runs(
    target: &'static str,
    upload: &[u8],
    params: &Params,
    reference: &Result<SimResult, String>,
    variants: &[(String, Result<SimResult, String>)],
) -> Option<Divergence> {
    let differing: Vec<&(String, Result<SimResult, String>)> =
        variants.iter().filter(|(_, r)| r != reference).collect();
    if differing.is_empty() {
        return None;
    }
    let names: Vec<&str> = differing.iter().map(|(n, _)| n.as_str()).collect();
    let mut body = String::new();
    let _ = writeln!(body, "params: {}", params_json(params));
    let _ = writeln!(
        body,
        "upload: {} bytes; check (region {}): {}",
        upload.len(),
        params.region_size,
        verdict_text(&kmst_reference::check(upload, params.region_size))
    );
    let mut pcs = Vec::new();
    let _ = writeln!(
        body,
        "reference: {}",
        reference.as_ref().map_or_else(Clone::clone, run_summary)
    );
    for (name, got) in &differing {
        let _ = writeln!(
            body,
            "{name}: {}",
            got.as_ref().map_or_else(Clone::clone, run_summary)
        );
        if let (Ok(want), Ok(got)) = (reference, got)
            && let Some((difference, at)) = run_difference(want, got)
        {
            let _ = writeln!(
                body,
                "  first difference, reference vs {name}: {difference}"
            );
            pcs.extend(at);
        }
    }
    let _ = writeln!(body, "micro-ops around the pcs involved {pcs:?}:");
    body.push_str(&disasm_around(upload, &pcs));
    body.push_str("(the whole upload: `kmst replay ARTIFACT --disasm`)\n");
    Some(Divergence {
        target,
        title: format!("{} differ(s) from the reference", names.join(", ")),
        body,
    })
}

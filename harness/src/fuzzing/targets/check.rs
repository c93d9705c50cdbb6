//! Target `check`: do the two checkers give the same verdict, and does the
//! upload format round-trip?
//!
//! Input: a [`CheckPrefix`] and raw bytes. The optimized checker and the
//! reference checker give the same `check` and `check_run` answers; `decode`
//! fails exactly when the check does, with its error (S10); an accepted
//! upload round-trips (`decode(encode(decode(d))) == decode(d)`, and
//! `encode(decode(z)) == z` for `z` = `d` with every ignored byte zeroed);
//! the disassembly re-assembles to an upload of the same length and verdict
//! (P6).

use std::fmt;

use crate::answers::{DifferentialOracle, RunArgs, with_checkers};
use crate::fuzzing::divergence::{Divergence, caught, disasm_around, verdict_text};
use crate::fuzzing::input::CheckPrefix;
use kmst::format::{HEADER_LEN, OP_LEN, TEMPLATE_LEN, Upload, templates_offset};
use kmst_reference::StreamError;

use super::agreement::{Agreement, Target, divergence};

/// `check` and `check_run` through both checkers, then decode/encode and the disassembler.
pub(super) fn check_target(input: &[u8]) -> Result<Agreement, Divergence> {
    let (prefix, data) = CheckPrefix::split(input);
    let region = prefix.region_size(data);
    let args = prefix.run_args(data);
    with_checkers(|c| check_with(Target::Check, data, region, &args, c))
}

/// The `check` target's comparison on `data` with these implementations
/// (the first is the expected one).
pub fn check_with(
    target: Target,
    data: &[u8],
    region: u64,
    args: &RunArgs,
    impls: &[Box<dyn DifferentialOracle>],
) -> Result<Agreement, Divergence> {
    let (first, rest) = impls.split_first().expect("at least one implementation");
    let want = caught(|| first.check(data, region));
    let want_run = caught(|| first.check_run(data, args));
    for other in rest {
        let got = caught(|| other.check(data, region));
        if got != want {
            let mut body = format!(
                "check(data, region_size = {region}) on {} bytes\n  {}: {}\n  {}: {}\n",
                data.len(),
                first.name(),
                err_text(&want),
                other.name(),
                err_text(&got)
            );
            body.push_str(&disasm_around(data, &pcs_of(&[&want, &got])));
            return Err(divergence(
                target,
                format!("check verdict: {} vs {}", first.name(), other.name()),
                body,
            ));
        }
        let got_run = caught(|| other.check_run(data, args));
        if got_run != want_run {
            let body = format!(
                "check_run(data of {} bytes, offset {}, region_size {}, active {:?}, active_reqs {:?})\n  {}: {}\n  {}: {}\n",
                data.len(),
                args.offset,
                args.region_size,
                args.active,
                args.active_reqs,
                first.name(),
                err_text(&want_run),
                other.name(),
                err_text(&got_run)
            );
            return Err(divergence(
                target,
                format!("check_run answer: {} vs {}", first.name(), other.name()),
                body,
            ));
        }
    }
    let (Ok(check), Ok(run)) = (want, want_run) else {
        return Err(divergence(
            target,
            format!("{} panicked", first.name()),
            "the expected implementation panicked".into(),
        ));
    };
    round_trips(target, data)?;
    Ok(Agreement::Check {
        check: check.err(),
        run,
    })
}

/// The layout position of byte `at` of an upload with these counts, for reports.
fn where_in_layout(at: usize, op_count: usize) -> String {
    if at < HEADER_LEN {
        return format!("header byte {at}");
    }
    let t0 = templates_offset(op_count);
    if at < HEADER_LEN + op_count * OP_LEN {
        let k = at - HEADER_LEN;
        return format!("micro-op {} byte {}", k / OP_LEN, k % OP_LEN);
    }
    if at < t0 {
        return "micro-op padding".into();
    }
    let k = at - t0;
    format!("template {} byte {}", k / TEMPLATE_LEN, k % TEMPLATE_LEN)
}

fn first_byte_difference(a: &[u8], b: &[u8]) -> Option<usize> {
    a.iter()
        .zip(b)
        .position(|(x, y)| x != y)
        .or_else(|| (a.len() != b.len()).then_some(a.len().min(b.len())))
}

/// S10 and P6 on `data`, whose check verdict both checkers agree on.
fn round_trips(target: Target, data: &[u8]) -> Result<(), Divergence> {
    let len = data.len() as u64;
    let verdict = kmst_reference::check(data, len);
    let decoded = caught(|| Upload::decode(data));
    let fail = |title: &str, body: String| Err(divergence(target, title.to_owned(), body));
    match (&verdict, &decoded) {
        (_, Err(p)) => return fail("decode panicked", p.clone()),
        (Err(e), Ok(Ok(_))) => {
            return fail(
                "decode accepted an upload the check rejects",
                format!(
                    "check (region = length {len}): reason {} at pc {}\n",
                    e.reason.number(),
                    e.pc
                ),
            );
        }
        (Err(e), Ok(Err(got))) if got.0 != *e => {
            return fail(
                "decode's error is not the check's (S10)",
                format!("check: {e:?}\ndecode: {:?}\n", got.0),
            );
        }
        (Ok(()), Ok(Err(got))) => {
            return fail(
                "decode refused an upload the check accepts",
                format!("decode: {:?}\n", got.0),
            );
        }
        (Ok(()), Ok(Ok(upload))) => {
            let encoded = upload.encode();
            let again = Upload::decode(&encoded);
            if again.as_ref().ok() != Some(upload) {
                let at = first_byte_difference(data, &encoded);
                return fail(
                    "decode(encode(decode(d))) != decode(d) (S10)",
                    format!(
                        "first byte of encode(decode(d)) that differs from d: {at:?} ({})\ndecode again: {:?}\n",
                        at.map_or_else(String::new, |a| where_in_layout(a, upload.ops.len())),
                        again.err()
                    ),
                );
            }
            let zeroed = kmst::format::zero_ignored(data);
            let z_upload = Upload::decode(&zeroed);
            match z_upload {
                Ok(u) if u.encode() == zeroed => {}
                Ok(u) => {
                    let e = u.encode();
                    let at = first_byte_difference(&zeroed, &e).unwrap_or(0);
                    return fail(
                        "encode(decode(z)) != z for z with its ignored bytes zero (S10)",
                        format!(
                            "first difference at byte {at} ({}): z has {:#04x}, encode gives {:#04x}\n",
                            where_in_layout(at, upload.ops.len()),
                            zeroed.get(at).copied().unwrap_or(0),
                            e.get(at).copied().unwrap_or(0)
                        ),
                    );
                }
                Err(e) => {
                    return fail(
                        "zeroing the ignored bytes made the check reject the upload",
                        format!("{:?}\n{}", e.0, disasm_around(&zeroed, &[e.0.pc])),
                    );
                }
            }
        }
        (Err(_), Ok(Err(_))) => {}
    }
    // P6: the disassembly re-assembles to the same length and verdict. The
    // reassembly of a huge upload is slow; the check target's inputs are small.
    if data.len() <= 1 << 16 {
        let text = match caught(|| kmst::asm::disassemble(data)) {
            Ok(t) => t,
            Err(p) => return fail("disassemble panicked", p),
        };
        match caught(|| kmst::asm::assemble(&text)) {
            Err(p) => return fail("assemble(disassemble(d)) panicked", p),
            Ok(Err(e)) => {
                return fail(
                    "the disassembly does not assemble (P6)",
                    format!("{e}\n--- text\n{text}"),
                );
            }
            Ok(Ok(back)) => {
                let back_verdict = kmst_reference::check(&back, back.len() as u64);
                if back.len() != data.len() || back_verdict != verdict {
                    return fail(
                        "the disassembly re-assembles to another length or verdict (P6)",
                        format!(
                            "data: {} bytes, {}\nreassembled: {} bytes, {}\n--- text\n{text}",
                            data.len(),
                            verdict_text(&verdict),
                            back.len(),
                            verdict_text(&back_verdict)
                        ),
                    );
                }
            }
        }
    }
    Ok(())
}

fn err_text<T: fmt::Debug>(r: &Result<T, String>) -> String {
    match r {
        Ok(v) => format!("{v:?}"),
        Err(p) => p.clone(),
    }
}

fn pcs_of(answers: &[&Result<Result<(), StreamError>, String>]) -> Vec<u32> {
    answers
        .iter()
        .filter_map(|a| match a {
            Ok(Err(e)) => Some(e.pc),
            _ => None,
        })
        .collect()
}

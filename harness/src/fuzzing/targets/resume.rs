//! Target `resume`: does a run cut at any passes into pieces, each piece
//! on a variant of its own after a snapshot and a restore, answer exactly
//! as the reference model's whole run (docs/pause.md)?
//!
//! Input: a prefix of [`PREFIX`] bytes, then the bytes of
//! [`structured_case`] (one stream) or of [`scenario_of`] (a scenario).
//! The prefix's first byte chooses one stream or a scenario (bit 0) and
//! the number of cuts (bits 1..3: 0 to 3); each cut takes two bytes: the
//! pass (a fraction of the run's length), the variant of the piece after
//! it, and whether its snapshot carries the input or is restored with it
//! given; one of the pieces may stop at the next event instead.

use kmst::exec::{Answer, Dispatch, Resumable, SnapshotError, Until};

use crate::fuzzing::divergence::{Divergence, caught};

use super::agreement::{Agreement, Target, divergence};
use super::scenario::scenario_of;
use super::sim::{input_hash, is_jit, runs_jit};
use super::sim_structured::structured_case;

/// The control bytes before the generator's.
pub const PREFIX: usize = 8;

/// One piece of a run: where it stops, what runs it, how it is saved.
#[derive(Clone, Copy, Debug)]
struct Piece {
    until: Until,
    dispatch: Dispatch,
    carry: bool,
}

/// The pieces `prefix` asks for in a run of about `length` passes, the
/// variants from `variants`.
fn pieces(prefix: &[u8], length: u64, variants: &[Dispatch]) -> Vec<Piece> {
    let cuts = usize::from(prefix[0] >> 1 & 3);
    let mut at = Vec::new();
    for k in 0..cuts {
        let (a, b) = (prefix[1 + 2 * k], prefix[2 + 2 * k]);
        let until = if b & 0x80 != 0 && k == 0 {
            Until::Event
        } else {
            Until::Pass(u64::from(a) * (length + 2) / 255)
        };
        at.push((until, b));
    }
    // Passes in order (an earlier stop after a later one runs nothing).
    at.sort_by_key(|(u, _)| match u {
        Until::Pass(p) => *p,
        _ => 0,
    });
    let last = prefix[PREFIX - 1];
    at.push((Until::End, last));
    at.into_iter()
        .map(|(until, b)| Piece {
            until,
            dispatch: variants[usize::from(b & 0x3F) % variants.len()],
            carry: b & 0x40 == 0,
        })
        .collect()
}

/// Runs `run` in `pieces`; `None` when a snapshot cannot be taken (a
/// closure model), else the answer or the first restore's error.
fn in_pieces(
    mut run: Resumable,
    pieces: &[Piece],
    restore: impl Fn(&[u8], bool) -> Result<Resumable, SnapshotError>,
) -> Option<Result<Answer, String>> {
    for (k, piece) in pieces.iter().enumerate() {
        run.run(piece.dispatch, piece.until);
        if k + 1 == pieces.len() {
            break;
        }
        let bytes = match if piece.carry {
            run.snapshot()
        } else {
            run.snapshot_without_input()
        } {
            Ok(b) => b,
            Err(SnapshotError::Custom { .. }) => return None,
            Err(e) => return Some(Err(format!("the snapshot: {e}"))),
        };
        run = match restore(&bytes, piece.carry) {
            Ok(r) => r,
            Err(e) => return Some(Err(format!("the restore after piece {k}: {e}"))),
        };
    }
    Some(Ok(run.into_answer()))
}

pub(super) fn resume(input: &[u8]) -> Result<Agreement, Divergence> {
    if input.len() < PREFIX {
        return Ok(Agreement::Skipped);
    }
    let (prefix, rest) = input.split_at(PREFIX);
    let jit = runs_jit(Target::Resume, input_hash(input));
    let variants: Vec<Dispatch> = Dispatch::ALL
        .iter()
        .copied()
        .filter(|d| jit || !is_jit(d.name()))
        .collect();
    let (want, got, plan) = if prefix[0] & 1 == 0 {
        let Some(case) = structured_case(rest) else {
            return Ok(Agreement::Skipped);
        };
        let want = caught(|| kmst_reference::simulate(&case.upload, &case.params));
        let length = want.as_ref().map_or(0, |w| w.passes);
        let plan = pieces(
            prefix,
            length.max(case.params.max_passes.min(64)),
            &variants,
        );
        let got = caught(|| {
            in_pieces(
                Resumable::new(&case.upload, &case.params),
                &plan,
                |b, carry| {
                    if carry {
                        Resumable::restore(b)
                    } else {
                        Resumable::restore_upload(b, &case.upload)
                    }
                },
            )
        });
        (want.map(Answer::Stream), got, plan)
    } else {
        let Some(scenario) = scenario_of(rest) else {
            return Ok(Agreement::Skipped);
        };
        let want = caught(|| kmst_reference::simulate_scenario(&scenario));
        let length = want.as_ref().map_or(0, |w| w.passes);
        let plan = pieces(prefix, length, &variants);
        let got = caught(|| {
            in_pieces(Resumable::scenario(&scenario), &plan, |b, carry| {
                if carry {
                    Resumable::restore(b)
                } else {
                    Resumable::restore_scenario(b, &scenario)
                }
            })
        });
        (want.map(Answer::Scenario), got, plan)
    };
    let got = match got {
        Ok(None) => return Ok(Agreement::Skipped),
        Ok(Some(Ok(answer))) => Ok(answer),
        Ok(Some(Err(e))) | Err(e) => Err(e),
    };
    match (&want, &got) {
        (Ok(w), Ok(g)) if w == g => Ok(match w {
            Answer::Stream(a) => Agreement::Sim {
                check: a.check,
                status: a.status,
                error: a.error,
                commands: a.commands.len(),
                events: a.events.len(),
                passes: a.passes,
            },
            Answer::Scenario(a) => Agreement::Scenario {
                streams: a.streams.len(),
                commands: a.commands.len(),
                events: a.events.len(),
                passes: a.passes,
                stopped: a.stopped,
            },
        }),
        _ => Err(divergence(
            Target::Resume,
            "a run in pieces differs from the reference's whole run".into(),
            format!("pieces: {plan:?}\nreference: {want:?}\nin pieces: {got:?}\n"),
        )),
    }
}

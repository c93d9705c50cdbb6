//! The profile of one run ([`Profile`]) and one row of a budget sweep
//! ([`SweepRow`]): plain data, serialisable as the `--json` output.
//!
//! The report speaks in the pass-by-pass model of the spec: the fast kernel
//! skips idle passes (the stream waits at the same micro-op and nothing can
//! change), and the report adds those back as *skipped* waiting turns, kept
//! apart from the turns the kernel ran.

use serde::Serialize;

use super::collect::{ProfileObserver, TURN_END_NAMES, turn_end_index};
use kmst::exec::Dispatch;
use kmst::format::{NO_REGISTER, SLOTS, Upload};
use kmst::ops::Opcode;
use kmst_reference::result::kind;
use kmst_reference::{SimResult, Status};

/// How many of the most executed lines the disassembly marks as hot.
pub const HOT_LINES: usize = 5;

/// The profile of one run.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Profile {
    /// The dispatch variant that ran it (`kmst::exec::Dispatch::name`).
    pub dispatch: String,
    pub turn_budget: u32,
    /// `ended`, `error` or `stuck`.
    pub status: String,
    /// The run's `passes` (S16: the last event's pass plus one).
    pub passes: u64,
    /// Passes the kernel went through, run or skipped (from pass 0 to the
    /// last pass it reported).
    pub kernel_passes: u64,
    /// The pass in which the stream ended (its end or error event), if it did.
    pub stream_end_pass: Option<u64>,
    pub commands: u64,
    /// Micro-ops the stream executed.
    pub micro_ops: u64,
    pub turns: Turns,
    pub slots: SlotOccupancy,
    pub queue: QueueDepth,
    /// One line per micro-op (and a last line for pc op_count if the
    /// program ran off its end).
    pub pcs: Vec<PcLine>,
}

/// The stream's turns.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Turns {
    /// Turns the kernel ran.
    pub taken: u64,
    /// Passes the kernel skipped as idle while the stream waited: each is a
    /// turn of the pass-by-pass model that runs 0 micro-ops.
    pub skipped: u64,
    /// Turns the kernel ran that executed no micro-op.
    pub zero_op: u64,
    /// Passes in which the stream ran nothing: `zero_op + skipped`.
    pub ran_nothing: u64,
    /// Passes of the run without a turn of the stream (after its end, or a
    /// pass whose cancel or deadline ended it before the turns).
    pub without_turn: u64,
    /// Micro-ops per turn taken.
    pub mean_ops: f64,
    /// Turns taken by micro-ops run, ascending, only counts that occur.
    pub ops_histogram: Vec<OpsRow>,
    /// Why turns ended: every reason, in a fixed order.
    pub ends: Vec<EndRow>,
}

/// `turns` turns ran exactly `ops` micro-ops.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct OpsRow {
    pub ops: u32,
    pub turns: u64,
}

/// How many turns ended for `why`.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct EndRow {
    /// `budget`, `wait-slots`, `wait-queue-full`, `wait-exclusive`, `wait`,
    /// `halt-pending`, `error`, `halt`.
    pub why: &'static str,
    /// Turns taken that ended so.
    pub turns: u64,
    /// Their share of the turns taken.
    pub share: f64,
    /// Skipped idle passes that repeat such a wait.
    pub skipped: u64,
}

/// Busy completion slots at the end of each pass (skipped passes included).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct SlotOccupancy {
    pub mean: f64,
    pub max: u32,
    /// Passes with 0, 1, ..., 16 busy slots.
    pub histogram: Vec<u64>,
}

/// Jobs waiting in the queue at the end of each pass.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct QueueDepth {
    pub mean: f64,
    pub max: u32,
}

/// One micro-op of the program with its counts.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct PcLine {
    pub pc: u32,
    /// The micro-op in `.kms` syntax (`@N` targets, `#N` templates).
    pub text: String,
    /// Times it executed (counted as a step).
    pub executed: u64,
    /// Turns taken that stopped here waiting.
    pub waits: u64,
    /// Skipped idle passes spent waiting here.
    pub skipped: u64,
    /// The line's rank by executions (1 = most; equal counts share a rank),
    /// for ranks up to [`HOT_LINES`].
    pub hot: Option<u32>,
}

/// One budget of a sweep.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct SweepRow {
    pub turn_budget: u32,
    pub status: String,
    /// The run's passes (S16).
    pub passes: u64,
    pub turns: u64,
    pub skipped: u64,
    pub mean_slots: f64,
    pub micro_ops: u64,
}

impl SweepRow {
    /// The sweep's columns of a profile.
    pub fn of(p: &Profile) -> SweepRow {
        SweepRow {
            turn_budget: p.turn_budget,
            status: p.status.clone(),
            passes: p.passes,
            turns: p.turns.taken,
            skipped: p.turns.skipped,
            mean_slots: p.slots.mean,
            micro_ops: p.micro_ops,
        }
    }
}

/// `a / b`, 0 when b is 0.
fn ratio(a: u64, b: u64) -> f64 {
    if b == 0 { 0.0 } else { a as f64 / b as f64 }
}

/// The name of a status as in S24.
pub fn status_name(s: Status) -> &'static str {
    match s {
        Status::Ended => "ended",
        Status::Error => "error",
        Status::Stuck => "stuck",
    }
}

/// A micro-op's text; a SUBMIT or ENQUEUE also names its template's handler
/// and (for SUBMIT) fixed group.
fn op_text(op: &kmst::format::MicroOp, program: &Upload) -> String {
    let mut text = kmst::asm::format_op(op);
    let template = program.templates.get(op.imm as usize);
    match (op.opcode(), template) {
        (Some(Opcode::Submit), Some(t)) => {
            let c = &t.command;
            let field = |reg: u8, v: u16| {
                if reg == NO_REGISTER {
                    v.to_string()
                } else {
                    format!("r{reg}")
                }
            };
            text.push_str(&format!(
                "  ; handler {} group ({}, {})",
                c.handler,
                field(t.first_register, c.first),
                field(t.count_register, c.count)
            ));
        }
        (Some(Opcode::Enqueue), Some(t)) => {
            text.push_str(&format!("  ; handler {}", t.command.handler));
        }
        _ => {}
    }
    text
}

impl Profile {
    /// Builds the report from a run's counts. `upload` is the accepted upload.
    pub fn build(
        upload: &[u8],
        result: &SimResult,
        obs: &ProfileObserver,
        dispatch: Dispatch,
    ) -> Profile {
        // The pass of the stream's end or error event (one stream: its req).
        let stream_end_pass = result
            .events
            .iter()
            .find(|e| e.kind == kind::STREAM_END || e.kind == kind::STREAM_ERROR)
            .map(|e| e.pass_index);
        let active_until = stream_end_pass.unwrap_or(u64::MAX);

        // Skipped passes before the stream ended repeat the wait of the
        // turn before them; after it they are passes without a turn.
        let mut skipped_by_end = [0u64; 8];
        let mut skipped_at: Vec<(u32, u64)> = Vec::new();
        let mut skipped = 0u64;
        for r in &obs.idle {
            let to = r.to.min(active_until);
            if to <= r.from {
                continue;
            }
            let Some(t) = r.after.filter(|t| t.why.is_wait()) else {
                continue;
            };
            let n = to - r.from;
            skipped += n;
            skipped_by_end[turn_end_index(t.why)] += n;
            skipped_at.push((t.pc, n));
        }

        let program = Upload::read_checked(upload);
        let op_count = program.ops.len();
        // A run off the end waits at, and fails at, pc op_count (S17).
        let ran_off = result.error.is_some_and(|e| e.pc as usize == op_count);
        let lines = if ran_off { op_count + 1 } else { op_count };
        let executed = obs.executed_per_pc(lines);
        let mut pcs: Vec<PcLine> = (0..lines)
            .map(|pc| PcLine {
                pc: pc as u32,
                text: match program.ops.get(pc) {
                    Some(op) => op_text(op, &program),
                    None => "(end of program)".to_owned(),
                },
                executed: executed[pc],
                waits: obs.waits_at.get(pc).copied().unwrap_or(0),
                skipped: 0,
                hot: None,
            })
            .collect();
        for (pc, n) in skipped_at {
            if let Some(line) = pcs.get_mut(pc as usize) {
                line.skipped += n;
            }
        }
        // Competition ranking: a line's rank is 1 + the lines executed more
        // often, so equally hot lines share a mark.
        let mut counts: Vec<u64> = pcs.iter().map(|l| l.executed).filter(|&n| n > 0).collect();
        counts.sort_unstable_by(|a, b| b.cmp(a));
        for l in &mut pcs {
            if l.executed > 0 {
                let rank = counts.partition_point(|&n| n > l.executed) + 1;
                if rank <= HOT_LINES {
                    l.hot = Some(rank as u32);
                }
            }
        }
        let taken = obs.turn_count;
        let ends = TURN_END_NAMES
            .iter()
            .enumerate()
            .map(|(i, &why)| EndRow {
                why,
                turns: obs.turn_ends[i],
                share: ratio(obs.turn_ends[i], taken),
                skipped: skipped_by_end[i],
            })
            .collect();
        let kernel_passes = obs.passes;
        Profile {
            dispatch: dispatch.name().to_owned(),
            turn_budget: result.params.turn_budget,
            status: status_name(result.status).to_owned(),
            passes: result.passes,
            kernel_passes,
            stream_end_pass,
            commands: result.commands.len() as u64,
            micro_ops: obs.ops_total,
            turns: Turns {
                taken,
                skipped,
                zero_op: obs.zero_op_turns,
                ran_nothing: obs.zero_op_turns + skipped,
                without_turn: kernel_passes.saturating_sub(taken + skipped),
                mean_ops: ratio(obs.ops_total, taken),
                ops_histogram: obs
                    .ops_per_turn
                    .iter()
                    .map(|(&ops, &turns)| OpsRow { ops, turns })
                    .collect(),
                ends,
            },
            slots: SlotOccupancy {
                mean: ratio(obs.busy_sum, kernel_passes),
                max: obs.busy_max,
                histogram: obs.occupancy[..=SLOTS].to_vec(),
            },
            queue: QueueDepth {
                mean: ratio(obs.queue_sum, kernel_passes),
                max: obs.queue_max,
            },
            pcs,
        }
    }
}

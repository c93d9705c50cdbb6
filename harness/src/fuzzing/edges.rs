//! Runs aimed at block edges and turn budgets (target `sim_edges`).
//!
//! The fast variants charge fuel once per straight-line block and count
//! micro-op by micro-op only when the turn's remainder is shorter than the
//! block (S15..S17); the compiled tier charges at block heads and hands a
//! short remainder to the interpreter. Those are the places a dispatch loop
//! or a compiler is most likely wrong, and [`crate::fuzzing::case`] reaches
//! them only by chance. This generator builds programs out of blocks whose
//! lengths sit next to the run's turn budget `B` (1, `B - 1`, `B`,
//! `B + 1`, `2B`, …), closes them with the micro-ops that end a block
//! (back-edges as the fused ADDI+JLT/JNZ pairs, forward jumps into the
//! middle of a later block, SUBMIT, ENQUEUE, WAIT, EVENT, TIME, HALT), puts
//! a rare MOD by zero (`Reason::ModByZero`) inside a block, and picks `max_steps`
//! (S14) around the step counts where a block starts or ends.
//!
//! Every run is short: at most `max_passes` (64) turns of at most the
//! budget each. Most back-edges count r5 up to the limit in r6, which no
//! other micro-op writes, so those loops end on their own.

use arbitrary::{Result, Unstructured};

use kmst::format::{MicroOp, NO_REGISTER};
use kmst::ops::Opcode;

use super::generate::{Case, arbitrary_params, op, template, upload};

/// The counter every back-edge increments, and its limit.
const COUNTER: u8 = 5;
const LIMIT: u8 = 6;

/// The most micro-ops of a generated program (well below the format's limit).
const MAX_OPS: usize = 160;

/// A register a straight micro-op may write: anything but the loop counter
/// and its limit.
fn dest(u: &mut Unstructured) -> Result<u8> {
    Ok(*u.choose(&[0u8, 1, 2, 3, 4, 7, 15])?)
}

/// A register a micro-op may read (the counter and limit too).
fn src(u: &mut Unstructured) -> Result<u8> {
    Ok(*u.choose(&[0u8, 1, 2, 3, 4, 5, 6, 15])?)
}

/// A block length next to the budget `b`.
fn block_len(u: &mut Unstructured, b: u32) -> Result<usize> {
    let b = i64::from(b);
    let len = match u.int_in_range(0..=8)? {
        0 => 1,
        1 => b - 1,
        2 | 3 => b,
        4 => b + 1,
        5 => 2 * b,
        6 => 2 * b + 1,
        7 => 2 * b - 1,
        _ => i64::from(u.int_in_range(1..=24u32)?),
    };
    Ok(len.clamp(1, 40) as usize)
}

/// One straight micro-op (S4's unread fields left 0), mostly the ones the
/// decoder fuses or turns into variants, sometimes a MOD by r0 that may
/// be zero (`Reason::ModByZero` inside a block).
fn straight(u: &mut Unstructured) -> Result<MicroOp> {
    use Opcode::*;
    let a = dest(u)?;
    Ok(match u.int_in_range(0..=11)? {
        0 => op(Set, a, 0, 0, u.int_in_range(0..=40)?),
        1 => op(Mov, a, src(u)?, 0, 0),
        2 => op(Add, a, src(u)?, src(u)?, 0),
        3 => op(Add, a, a, src(u)?, 0),
        4 => op(Addi, a, src(u)?, 0, u.int_in_range(0..=7)?),
        5 => op(Addi, a, a, 0, 1),
        6 => op(Sub, a, src(u)?, src(u)?, 0),
        7 => op(Mul, a, a, src(u)?, 0),
        8 => op(And, a, src(u)?, src(u)?, 0),
        9 => op(Shr, a, a, 0, u.int_in_range(0..=33)?),
        10 => op(Rand, a, 0, 0, 0),
        _ => {
            if u.ratio(1, 12)? {
                op(Mod, a, src(u)?, 0, 0) // r0: zero until something writes it
            } else {
                op(Mod, a, src(u)?, 2, 0) // r2: the prologue's non-zero value
            }
        }
    })
}

/// How a block ends.
#[derive(Clone, Copy)]
enum Close {
    /// Falls into the next block (which is a jump target or not).
    Fall,
    /// `ADDI r5, r5, 1; JLT r5, r6, target` or the JNZ form: a loop.
    Back,
    /// A forward jump, often into the middle of a later block.
    Forward,
    /// A kernel-facing micro-op: SUBMIT, ENQUEUE, WAIT, EVENT or TIME.
    Kernel,
}

/// A program of blocks around the budget `b`, with `command_count` templates.
fn program(u: &mut Unstructured, b: u32, command_count: u32) -> Result<Vec<MicroOp>> {
    use Opcode::*;
    let mut ops = vec![
        op(Set, 1, 0, 0, u.int_in_range(1..=6)?),
        op(Set, 2, 0, 0, u.int_in_range(1..=9)?),
        op(Set, LIMIT, 0, 0, u.int_in_range(1..=40)?),
    ];
    // Where each block starts, and the forward jumps to fix up once the
    // program's length is known: (pc of the jump, blocks ahead, offset).
    let mut heads = Vec::new();
    let mut forward: Vec<(usize, usize, usize)> = Vec::new();
    let blocks = u.int_in_range(1..=6usize)?;
    for k in 0..blocks {
        let head = ops.len();
        heads.push(head);
        let len = block_len(u, b)?;
        let close = *u.choose(&[
            Close::Fall,
            Close::Back,
            Close::Back,
            Close::Forward,
            Close::Kernel,
            Close::Kernel,
        ])?;
        // The block's closing micro-ops count in its length.
        let tail = match close {
            Close::Fall => 0,
            Close::Back => 2,
            Close::Forward | Close::Kernel => 1,
        };
        for _ in tail..len.max(tail) {
            ops.push(straight(u)?);
        }
        match close {
            Close::Fall => {}
            Close::Back => {
                // Back to this block's head, a head before it, or into its
                // middle (which the decoder makes a head of its own).
                let target = match u.int_in_range(0..=2)? {
                    0 => head,
                    1 => *u.choose(&heads)?,
                    _ => u.int_in_range(head..=ops.len())?,
                };
                if u.ratio(1, 3)? {
                    // The JNZ form counts r7 down (ADDI in place + JNZ): other
                    // micro-ops write r7 too, so only the pass limit bounds
                    // it, which the turn budget keeps small anyway.
                    ops.push(op(Addi, 7, 7, 0, u32::MAX));
                    ops.push(op(Jnz, 7, 0, 0, target as u32));
                } else {
                    ops.push(op(Addi, COUNTER, COUNTER, 0, 1));
                    ops.push(op(Jlt, COUNTER, LIMIT, 0, target as u32));
                }
            }
            Close::Forward => {
                forward.push((ops.len(), u.int_in_range(1..=2)?, u.int_in_range(0..=3)?));
                let code = *u.choose(&[Jmp, Jnz, Jeq, Jlt])?;
                ops.push(op(code, src(u)?, src(u)?, 0, 0));
            }
            Close::Kernel => {
                let t = u.int_in_range(0..=command_count - 1)?;
                ops.push(match u.int_in_range(0..=5)? {
                    0 | 1 => op(Submit, 0, 0, 0, t),
                    2 => op(Enqueue, 1, 0, 0, t),
                    3 => op(Wait, 0, 0, 0, u.int_in_range(0..=2)?),
                    4 => op(Event, src(u)?, 0, 0, 0),
                    _ => op(Time, dest(u)?, 0, 0, 0),
                });
            }
        }
        if ops.len() >= MAX_OPS || k + 1 == blocks {
            break;
        }
    }
    // The end: HALT, WAIT then HALT, or running off the end.
    match u.int_in_range(0..=3)? {
        0 => {}
        1 => {
            ops.push(op(Wait, 0, 0, 0, 0));
            ops.push(op(Halt, 0, 0, 0, 0));
        }
        _ => ops.push(op(Halt, src(u)?, 0, 0, 0)),
    }
    let last = ops.len() - 1;
    for (pc, ahead, offset) in forward {
        // The head of a later block plus an offset (its middle), else the end.
        let later = heads.iter().copied().filter(|&h| h > pc).nth(ahead - 1);
        let target = later.map_or(last, |h| (h + offset).min(last));
        ops[pc].imm = target as u32;
    }
    Ok(ops)
}

/// One run aimed at block edges and budgets.
pub fn edges_case(u: &mut Unstructured) -> Result<Case> {
    let mut params = arbitrary_params(u)?;
    params.turn_budget = *u.choose(&[1u32, 2, 3, 4, 5, 7, 8, 12, 16, 63, 64, 65])?;
    params.max_passes = u.int_in_range(1..=64)?;
    let b = params.turn_budget;
    let command_count = u.int_in_range(1..=2u32)?;
    let ops = program(u, b, command_count)?;
    let mut templates = Vec::new();
    for _ in 0..command_count {
        let count = u.int_in_range(1..=params.core_count.clamp(1, 8))? as u16;
        let flags = *u.choose(&[0u8, 0, 4, 2])?;
        let mut t = template(
            u.int_in_range(1..=239)?,
            flags,
            (0, count),
            &[u.int_in_range(0..=9)?],
            &[(1, src(u)?)],
        );
        if u.ratio(1, 4)? {
            t.count_register = 1;
        } else {
            t.count_register = NO_REGISTER;
        }
        templates.push(t);
    }
    // max_steps (S14) where a block starts or ends: a few steps, a
    // multiple of the budget give or take one, or plenty.
    let max_steps = match u.int_in_range(0..=4)? {
        0 => u.int_in_range(1..=8)?,
        1 => (b * u.int_in_range(1..=6)?).saturating_add(u.int_in_range(0..=2)?) - 1,
        2 => u.int_in_range(1..=300)?,
        _ => 100_000,
    }
    .max(1);
    let deadline_us = if u.ratio(1, 2)? {
        0
    } else {
        u.int_in_range(1..=60)?
    };
    let seed = u.int_in_range(1..=u32::MAX)?;
    let upload = upload(max_steps, deadline_us, seed, u.arbitrary()?, ops, templates);
    Ok(Case {
        upload: upload.encode(),
        params,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fuzzing::generate::random_bytes;
    use kmst::check::check;

    /// The generator's uploads pass the check (S1..S6): the run reaches the
    /// blocks, not the checker.
    #[test]
    fn uploads_pass_the_check() {
        for s in 0..500 {
            let bytes = random_bytes(s, 1024);
            let c = edges_case(&mut Unstructured::new(&bytes)).unwrap();
            assert_eq!(
                check(&c.upload, c.params.region_size).err(),
                None,
                "seed {s}"
            );
        }
    }
}

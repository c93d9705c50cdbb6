//! The reference model's reading of each micro-op, in one place
//! (docs/spec.md "Micro-ops", S4): the register fields and the imm the
//! check tests ([`operands`]), and what the micro-ops that touch only the
//! stream's registers do ([`registers`]): the arithmetic, RAND and the
//! jumps. The micro-ops that talk to the kernel (S18: HALT, SUBMIT,
//! ENQUEUE, WAIT, RESULT, EVENT, TIME) are each simulator's own, one
//! stream's (`sim.rs`) and the whole kernel's (`scenario/run/turns.rs`).
//! Written from the specification's table, never from kmst's `for_each_op!`,
//! so that a slip in one is caught by the other.

use crate::result::Reason;

/// One decoded micro-op (program.rs decodes them; each simulator reads
/// them here and in its own turn).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Op {
    pub op: u8,
    pub a: usize,
    pub b: usize,
    pub c: usize,
    pub imm: u32,
}

/// What a running stream holds, in either simulator: its registers (S11:
/// 0, but r15 = the seed), where it is and how far it went, the latest
/// result it can read, and the mark of the exclusive SUBMIT it waits at.
#[derive(Clone, Debug)]
pub(crate) struct Running {
    pub(crate) regs: [u32; 16],
    pub(crate) pc: u32,
    pub(crate) steps: u64,
    pub(crate) latest_result: u32,
    /// For the exclusive SUBMIT the stream waits at: jobs with an id below this
    /// were queued before it was first tried (S18). Cleared when it goes on.
    pub(crate) exclusive_mark: Option<u64>,
}

impl Running {
    /// At the start, with r15 = `seed` (S11).
    pub(crate) fn new(seed: u32) -> Running {
        let mut regs = [0; 16];
        regs[15] = seed;
        Running {
            regs,
            pc: 0,
            steps: 0,
            latest_result: 0,
            exclusive_mark: None,
        }
    }
}

/// What a micro-op did, in either simulator.
pub(crate) enum Step {
    /// Completed; go to this pc.
    Next(u32),
    /// Has to wait: the turn ends, the micro-op is retried next turn.
    Wait,
    /// HALT ended the stream.
    Halted,
    /// The stream ends with this error.
    Fail(Reason),
}

/// What a micro-op's imm means to the check (S4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Imm {
    /// Not checked (ignored, or an integer operand).
    Plain,
    /// A jump target: below op_count or `Reason::BadJump`.
    Target,
    /// A template index: below command_count or `Reason::BadTemplate`.
    Template,
}

/// The register fields (`a`, `b`, `c`) and the imm kind opcode `op` uses, or
/// `None` for an unknown opcode (the table of docs/spec.md "Micro-ops" and S4).
pub fn operands(op: u8) -> Option<(&'static [char], Imm)> {
    use Imm::*;
    Some(match op {
        1 => (&['a'], Plain),                       // SET a, imm
        2 => (&['a', 'b'], Plain),                  // MOV a, b
        3 | 5 | 6 | 7 => (&['a', 'b', 'c'], Plain), // ADD SUB MUL AND
        4 => (&['a', 'b'], Plain),                  // ADDI a, b, imm
        8 => (&['a', 'b'], Plain),                  // SHR a, b, imm
        9 => (&['a', 'b', 'c'], Plain),             // MOD a, b, c
        10 => (&['a'], Plain),                      // RAND a
        16 => (&[], Target),                        // JMP imm
        17 | 18 => (&['a', 'b'], Target),           // JLT JEQ a, b, imm
        19 => (&['a'], Target),                     // JNZ a, imm
        20 => (&['a'], Plain),                      // HALT a
        32 => (&[], Template),                      // SUBMIT imm
        33 => (&['a'], Template),                   // ENQUEUE imm, a
        40 => (&[], Plain),                         // WAIT imm
        41 | 48 | 49 => (&['a'], Plain),            // RESULT EVENT TIME a
        _ => return None,
    })
}

/// Micro-op `op` at `pc`, if it touches only the registers `regs`: the pc
/// it goes on to, or the reason it ends the stream with (MOD by zero). `None`
/// for a micro-op that talks to the kernel (module doc) or that the check
/// rejects. Inlined into both simulators' turn, as the match it replaced
/// was (its instruction counts are the baseline's, docs/performance.md).
#[inline(always)]
pub(crate) fn registers(op: Op, pc: u32, regs: &mut [u32; 16]) -> Option<Result<u32, Reason>> {
    let Op { op, a, b, c, imm } = op;
    let jump = |taken: bool| Some(Ok(if taken { imm } else { pc + 1 }));
    let value = match op {
        1 => imm,
        2 => regs[b],
        3 => regs[b].wrapping_add(regs[c]),
        4 => regs[b].wrapping_add(imm),
        5 => regs[b].wrapping_sub(regs[c]),
        6 => regs[b].wrapping_mul(regs[c]),
        7 => regs[b] & regs[c],
        8 => regs[b] >> (imm & 31),
        9 => {
            if regs[c] == 0 {
                return Some(Err(Reason::ModByZero));
            }
            regs[b] % regs[c]
        }
        // xorshift32 of r15 (13, 17, 5), kept in r15 and written to `a`.
        10 => {
            let mut x = regs[15];
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            regs[15] = x;
            x
        }
        16 => return jump(true),
        17 => return jump(regs[a] < regs[b]),
        18 => return jump(regs[a] == regs[b]),
        19 => return jump(regs[a] != 0),
        _ => return None,
    };
    regs[a] = value;
    Some(Ok(pc + 1))
}

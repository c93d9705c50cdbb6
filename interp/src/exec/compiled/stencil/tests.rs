//! The stencil tier's own tests: what the stencils hold, and code that
//! answers as the interpreter on programs of every shape.

use super::*;
use crate::exec::compiled::entry::{Entry, PC_MASK, SHORT};

/// Runs the code of `insts` from block head `pc` with `fuel`: (pc, fuel,
/// short) of its exit.
fn call(code: &Code, regs: &mut [u32; 16], pc: u32, fuel: u32) -> (u32, u32, bool) {
    // SAFETY: `code` was made from the program `pc` is in, and `regs` is a
    // stream's 16 registers.
    let out = unsafe {
        let entry: Entry = (*code.entry().0.add(pc as usize)).expect("pc is a head");
        entry(regs.as_mut_ptr(), pc, fuel)
    };
    ((out & PC_MASK) as u32, (out >> 32) as u32, out & SHORT != 0)
}

/// Every stencil a micro-op may need is in the table, none refers to
/// anything but its holes (build.rs would have failed), and each of the
/// arithmetic ones has the holes of the fields its micro-op reads (S4).
/// The micro-ops that read or change the kernel have none: the
/// interpreter runs them.
#[test]
fn the_stencils_have_their_micro_ops_holes() {
    use crate::ops::Opcode::{self, *};
    let Some(s) = STENCILS.as_ref() else { return };
    let of = |o: Opcode| s.ops[o as usize].unwrap_or_else(|| panic!("no stencil for {o:?}"));
    let kinds = |st: &Stencil| st.holes.iter().map(|h| h.1).collect::<Vec<_>>();
    let has = |st: &Stencil, k: HoleKind| kinds(st).contains(&k);
    for o in [
        Set, Mov, Add, Addi, Sub, Mul, And, Shr, Rand, Mod, Jmp, Jlt, Jeq, Jnz,
    ] {
        of(o);
    }
    for o in [Submit, Wait, Event, Time, ReadResult, Halt] {
        assert!(s.ops[o as usize].is_none(), "{o:?} is the interpreter's");
    }
    // ADD a, b, c: all three fields, and it falls through to the next.
    for k in [HoleKind::A, HoleKind::B, HoleKind::C] {
        assert!(has(of(Add), k), "{k:?}");
    }
    assert!(
        !has(of(Add), HoleKind::Continue),
        "the final jump is dropped"
    );
    // ADDI a, b, imm: no `c`.
    assert!(has(of(Addi), HoleKind::Imm) && !has(of(Addi), HoleKind::C));
    // A conditional jump: its target, and on.
    assert!(has(of(Jlt), HoleKind::Jump));
    // MOD leaves for the interpreter on a zero divisor (S14's reason 7).
    assert!(has(of(Mod), HoleKind::Exit) && has(of(Mod), HoleKind::Pc));
    // A head charges its block or leaves short.
    assert!(has(&s.head, HoleKind::Len) && has(&s.head, HoleKind::Short));
}

/// A straight block runs in the code: SET r1, 5; SET r2, 7; ADD r3, r1,
/// r2; MUL r4, r3, r3; then HALT leaves for the interpreter with the fuel
/// of HALT given back. Values by hand: r3 = 12, r4 = 144.
#[test]
fn a_block_runs_and_leaves_at_halt() {
    use crate::exec::compiled::testing::program;
    use crate::ops::Opcode::*;
    if available().is_err() {
        return;
    }
    let p = program(&[
        (Set, 1, 0, 0, 5),
        (Set, 2, 0, 0, 7),
        (Add, 3, 1, 2, 0),
        (Mul, 4, 3, 3, 0),
        (Halt, 4, 0, 0, 0),
    ]);
    let code = Code::compile(&p.insts).expect("stencils");
    let mut regs = [0u32; 16];
    // The whole program is one block of 5 (HALT stops the turn, so it ends
    // the block); 10 units: 5 charged, HALT's given back.
    let (pc, fuel, short) = call(&code, &mut regs, 0, 10);
    assert_eq!((pc, fuel, short), (4, 6, false));
    assert_eq!((regs[1], regs[2], regs[3], regs[4]), (5, 7, 12, 144));
    // 4 units do not cover the block: it leaves short at once.
    let mut regs = [0u32; 16];
    assert_eq!(call(&code, &mut regs, 0, 4), (0, 4, true));
    assert_eq!(regs[3], 0);
}

/// `prepare` makes the stencil code for the `stencil` variant and no other
/// (without an observer of every micro-op, which runs the interpreter),
/// and a run of that variant calls it: every variant gives the same
/// answer, so only the program and the loop show it.
#[test]
fn the_stencil_variant_makes_and_runs_its_code() {
    use crate::builder::Stream;
    use crate::check::CheckedUpload;
    use crate::exec::decode::Program;
    use crate::exec::{Dispatch, Machine, NoObserver, entered};
    use crate::types::Params;
    if available().is_err() {
        return;
    }
    let mut s = Stream::new(0, 1_000, 1, 7).unwrap();
    let r = s.registers(1).unwrap()[0];
    for _ in 0..10 {
        s.addi(r, r, 1).unwrap();
    }
    s.halt(r);
    let upload = s.encode().unwrap();
    let checked = CheckedUpload::new(&upload, upload.len() as u64).unwrap();
    for &d in Dispatch::ALL {
        let mut p = Program::decode(&checked);
        crate::exec::dispatch::prepare::<NoObserver>(d, &mut p);
        assert_eq!(p.stencil.get().is_some(), d == Dispatch::Stencil, "{d}");
    }
    entered::take_code();
    let mut m = Machine::new(&upload, &Params::default());
    m.run(Dispatch::Stencil, &mut NoObserver);
    assert!(entered::take_code(), "the stencil code ran");
    // S16: ten ADDIs of 1, HALT r = 10.
    assert_eq!(m.into_result().halt, Some(10));
}

/// A loop: r1 counts 0..10 (ADDI, JLT back), r2 adds r1 each time: 0 + 1 +
/// ... + 9 = 45. The code leaves at HALT, after 1 + 10 * 3 micro-ops.
#[test]
fn a_loop_runs_in_the_code() {
    use crate::exec::compiled::testing::program;
    use crate::ops::Opcode::*;
    if available().is_err() {
        return;
    }
    let p = program(&[
        (Set, 3, 0, 0, 10),
        (Add, 2, 2, 1, 0),
        (Addi, 1, 1, 0, 1),
        (Jlt, 1, 3, 0, 1),
        (Halt, 2, 0, 0, 0),
    ]);
    let code = Code::compile(&p.insts).expect("stencils");
    let mut regs = [0u32; 16];
    let (pc, fuel, short) = call(&code, &mut regs, 0, 1000);
    assert_eq!((regs[1], regs[2]), (10, 45));
    assert_eq!((pc, short), (4, false));
    // SET, 10 times ADD, ADDI, JLT: 31 units; HALT's given back.
    assert_eq!(fuel, 1000 - 31);
}

/// RESULT inside a block leaves for the interpreter (it reads the kernel,
/// S18) and gives back its own unit and the rest of the block's, which the
/// head charged: SET r1, 1; RESULT r2; ADD r3, r1, r1; ADD r4, r3, r3;
/// HALT r3 is one block of 5 (HALT ends it). From 10 units: 5 charged, SET
/// runs, RESULT leaves at pc 1 with 5 + 4 = 9.
#[test]
fn a_micro_op_for_the_interpreter_gives_back_the_rest_of_its_block() {
    use crate::exec::compiled::testing::program;
    use crate::ops::Opcode::*;
    if available().is_err() {
        return;
    }
    let p = program(&[
        (Set, 1, 0, 0, 1),
        (ReadResult, 2, 0, 0, 0),
        (Add, 3, 1, 1, 0),
        (Add, 4, 3, 3, 0),
        (Halt, 3, 0, 0, 0),
    ]);
    let code = Code::compile(&p.insts).expect("stencils");
    let mut regs = [0u32; 16];
    assert_eq!(call(&code, &mut regs, 0, 10), (1, 9, false));
    assert_eq!((regs[1], regs[3]), (1, 0), "SET ran, ADD did not");
    // Once the interpreter has run RESULT (9 - 1 = 8 units left), the code
    // is entered again right after it (J12): the rest of the block, two
    // ADDs and HALT, charged (8 - 3 = 5), the ADDs run (r3 = 1 + 1, r4 =
    // 2 + 2), HALT leaves at pc 4 with its own unit given back (6).
    assert!(code.entries[2].is_some() && code.entries[3].is_none());
    assert_eq!(call(&code, &mut regs, 2, 8), (4, 6, false));
    assert_eq!((regs[3], regs[4]), (2, 4));
    // With less fuel than the rest of the block (2 < 3), the entry leaves
    // short, at its pc, with the fuel untouched.
    assert_eq!(call(&code, &mut regs, 2, 2), (2, 2, true));
}

/// The stencil code pays for a program at most one in five of whose
/// micro-ops the interpreter runs (J10), counted without `End`: SET,
/// ADDI ×4, HALT (1 of 6) pays; 8 ADDIs and 2 TIMEs (2 of 10, one in
/// five) pays; 7 ADDIs and 3 TIMEs (3 of 10) does not; 20 ADDIs and 10
/// TIMEs (10 of 30) does not.
#[cfg(feature = "jit")]
#[test]
fn the_stencils_pay_for_one_kernel_micro_op_in_five_at_most() {
    use crate::exec::compiled::testing::program;
    use crate::ops::Opcode::{self, *};
    if available().is_err() {
        return;
    }
    let of = |kernel: usize, straight: usize| {
        let mut ops: Vec<(Opcode, u8, u8, u8, u32)> = vec![(Addi, 1, 1, 0, 1); straight];
        ops.extend(std::iter::repeat_n((Time, 2, 0, 0, 0), kernel));
        pays(&program(&ops).insts)
    };
    let halted = program(&[
        (Set, 1, 0, 0, 1),
        (Addi, 1, 1, 0, 1),
        (Addi, 1, 1, 0, 1),
        (Addi, 1, 1, 0, 1),
        (Addi, 1, 1, 0, 1),
        (Halt, 1, 0, 0, 0),
    ]);
    assert!(pays(&halted.insts));
    assert!(of(2, 8));
    assert!(!of(3, 7));
    assert!(!of(10, 20));
}

/// MOD leaves for the interpreter on a zero divisor only (S14's reason 7
/// is the interpreter's to record), and otherwise goes on: MOD r2, r1, r2
/// (its `a` is its `c`, so running it twice would give another value):
/// 7 % 5 = 2. Then MOD r4, r1, r3 with r3 = 0 leaves at its pc, giving
/// back its own unit (MOD ends its block).
#[test]
fn mod_goes_on_or_leaves_on_a_zero_divisor() {
    use crate::exec::compiled::testing::program;
    use crate::ops::Opcode::*;
    if available().is_err() {
        return;
    }
    let p = program(&[
        (Set, 1, 0, 0, 7),
        (Set, 2, 0, 0, 5),
        (Mod, 2, 1, 2, 0),
        (Mod, 4, 1, 3, 0),
        (Halt, 2, 0, 0, 0),
    ]);
    let code = Code::compile(&p.insts).expect("stencils");
    let mut regs = [0u32; 16];
    // Blocks: [SET, SET, MOD] (3 units), [MOD] (1): 100 - 3 - 1, then the
    // second MOD's unit given back.
    assert_eq!(call(&code, &mut regs, 0, 100), (3, 97, false));
    assert_eq!(regs[2], 2, "7 % 5, once");
    assert_eq!(regs[4], 0);
}

//! The tiered variant (feature `jit`): a program starts in the tail-call
//! table (the subroutine loop where that variant is not built) and moves
//! to the compiled tier (`jit.rs`) once it is hot: when the turns that ran
//! out of fuel have run about as many micro-ops as its compile costs
//! (`Program::heat`, decode.rs's `BREAK_EVEN`, D33). A program whose turns
//! end on the kernel (waits, full slots) never gets hot: compiled code
//! leaves for the interpreter at every micro-op that reads or changes the
//! kernel, and runs such programs slower than the tail variant. The move
//! happens between two entries into the loops, where the pc and the
//! registers are the stream's own, so every answer is that of either tier.

use super::jit;
use crate::exec::bodies::Ctx;
use crate::exec::decode::Program;
use crate::exec::inst::{Exit, Inst};
use crate::exec::observer::Observer;

/// Runs from `ip` until an exit.
///
/// # Safety
/// The handler contract (handler.rs): `ip` in a decoded program, `regs`
/// the stream's registers, `ctx` a live `Ctx<O>` whose `program` is that
/// program and whose `code`, when set, was compiled from it; `fuel >= 1`.
#[inline(never)]
pub(crate) unsafe fn run<O: Observer>(
    ip: *const Inst,
    regs: *mut u32,
    ctx: *mut (),
    fuel: u32,
) -> Exit {
    // SAFETY: the caller's contract; `program` outlives the turn (the
    // machine owns it and the turn borrows the machine), and the program
    // is only ever read through it: `heat` and the compiled code are cells.
    // Entering the loops again at the ip where the fuel ran out, with the
    // fuel left, runs the same micro-ops as one entry would (a turn may
    // start anywhere in a block: the chain's counted handlers).
    unsafe {
        let c = ctx as *mut Ctx<O>;
        if O::ENABLED {
            return interpret::<O>(ip, regs, ctx, fuel);
        }
        let (mut ip, mut fuel) = (ip, fuel);
        loop {
            if (*c).code.is_some() {
                return jit::run::<O>(ip, regs, ctx, fuel);
            }
            // A long entry (a whole run of quick passes, machine/mod.rs)
            // runs in pieces, so that a program can get hot inside it.
            let piece = fuel.min(PIECE);
            let exit = interpret::<O>(ip, regs, ctx, piece);
            if exit != Exit::Fuel {
                // The fuel left is the entry's, not the piece's.
                (*c).exit_fuel += fuel - piece;
                return exit;
            }
            let program = &*((*c).program as *const Program);
            if program.heat(piece) {
                (*c).code = program.compiled();
                if (*c).code.is_none() {
                    // No backend here: the interpreter for another while.
                    program.heat.set(0);
                }
            }
            fuel -= piece;
            if fuel == 0 {
                return exit;
            }
            ip = (*c).exit_ip;
        }
    }
}

/// The most micro-ops one entry into the interpreter runs before the
/// program's heat is counted: a re-entry costs a few instructions per
/// 4,096 micro-ops.
const PIECE: u32 = 4096;

/// The interpreter of a program not yet hot.
///
/// # Safety
/// As [`run`].
#[inline(always)]
unsafe fn interpret<O: Observer>(ip: *const Inst, regs: *mut u32, ctx: *mut (), fuel: u32) -> Exit {
    // SAFETY: the caller's contract, which each loop's entry states (the
    // tail-call table needs no preparation of the program).
    unsafe {
        #[cfg(feature = "tail")]
        return super::chain::enter::<O, super::tail::Tail<O>>(ip, regs, ctx, fuel);
        #[cfg(not(feature = "tail"))]
        return super::subroutine::run::<O>(ip, regs, ctx, fuel);
    }
}

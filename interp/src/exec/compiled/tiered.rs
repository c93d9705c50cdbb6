//! The tiered variant (feature `jit`): a program starts in the tail-call
//! table (the subroutine loop where that variant is not built) and moves
//! up a tier each time it gets hot: when the turns that ran out of fuel
//! have run about as many micro-ops as the next tier's code costs to make
//! (`Program::heat`, `Program::hotter`, decode/'s break-evens, D33, J10).
//! With stencils (feature `stencil`) the first tier is the copy-and-patch
//! code and the second Cranelift's; without, Cranelift's alone. Both run
//! in the compiled tiers' loop (`compiled/run.rs`). A program whose turns
//! end on the kernel (waits, full slots) never gets hot: compiled code
//! leaves for the interpreter at every micro-op that reads or changes the
//! kernel, and runs such programs slower than the tail variant. The move
//! happens between two entries into the loops, where the pc and the
//! registers are the stream's own, so every answer is that of either tier.

use super::cranelift::run as jit;
use crate::exec::bodies::Ctx;
use crate::exec::decode::Program;
use crate::exec::handler::loop_entry;
use crate::exec::inst::{Exit, Inst};
use crate::exec::observer::Observer;

loop_entry! {
    "tiered";
    /// Runs from `ip` until an exit: an entry of at most [`PIECE`] micro-ops
    /// into a program not yet compiled (a turn of a stream with its budget)
    /// goes straight to the interpreter, inline; the rest to [`pieces`].
    ///
    /// # Safety
    /// The handler contract (handler.rs): `ip` in a decoded program, `regs`
    /// the stream's registers, `ctx` a live `Ctx<O>` whose `program` is that
    /// program and whose `code`, when set, was compiled from it; `fuel >= 1`.
    #[inline(always)]
    fn run<O: Observer>(ip, regs, ctx, fuel) {
        // SAFETY: the caller's contract.
        unsafe {
            let c = ctx as *const Ctx<O>;
            if O::ENABLED || ((*c).code.is_none() && fuel <= PIECE) {
                let exit = interpret::<O>(ip, regs, ctx, fuel);
                if exit == Exit::Fuel && !O::ENABLED {
                    heat::<O>(ctx, fuel);
                }
                return exit;
            }
            pieces::<O>(ip, regs, ctx, fuel)
        }
    }
}

/// Counts `fuel` micro-ops of a turn that ran out of fuel towards the
/// program's heat, and moves it up a tier when it is hot.
///
/// # Safety
/// As [`run`].
#[inline(never)]
unsafe fn heat<O: Observer>(ctx: *mut (), fuel: u32) {
    // SAFETY: the caller's contract; `program` outlives the turn (the
    // machine owns it and the turn borrows the machine), and the program
    // is only ever read through it: its count and its code are cells.
    unsafe {
        let c = ctx as *mut Ctx<O>;
        let program = &*((*c).program as *const Program);
        if program.heat(fuel) {
            (*c).code = program.hotter();
        }
    }
}

/// [`run`] for the other entries: the program's last tier's code, or its
/// code or the interpreter in pieces of at most [`PIECE`] micro-ops (a
/// whole run of quick passes, machine/mod.rs, can be one entry), so that a
/// program can get hot inside one entry and go on in the next tier.
///
/// # Safety
/// As [`run`].
#[inline(never)]
unsafe fn pieces<O: Observer>(ip: *const Inst, regs: *mut u32, ctx: *mut (), fuel: u32) -> Exit {
    // SAFETY: the caller's contract. Entering the loops again at the ip
    // where the fuel ran out, with the fuel left, runs the same micro-ops
    // as one entry would (a turn may start anywhere in a block: the
    // chain's counted handlers).
    unsafe {
        let c = ctx as *mut Ctx<O>;
        let (mut ip, mut fuel) = (ip, fuel);
        let program = &*((*c).program as *const Program);
        loop {
            if (*c).code.is_some() && program.hottest() {
                return jit::run::<O>(ip, regs, ctx, fuel);
            }
            let piece = fuel.min(PIECE);
            let exit = if (*c).code.is_some() {
                jit::run::<O>(ip, regs, ctx, piece)
            } else {
                interpret::<O>(ip, regs, ctx, piece)
            };
            if exit != Exit::Fuel {
                // The fuel left is the entry's, not the piece's.
                (*c).exit_fuel += fuel - piece;
                return exit;
            }
            heat::<O>(ctx, piece);
            fuel -= piece;
            if fuel == 0 {
                return exit;
            }
            ip = (*c).exit_ip;
        }
    }
}

/// The most micro-ops one entry into the interpreter or the stencil code
/// runs before the program's heat is counted: a re-entry costs a few
/// instructions per 4,096 micro-ops.
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
        return crate::exec::dispatch::chain::enter::<O, crate::exec::dispatch::tail::Tail<O>>(
            ip, regs, ctx, fuel,
        );
        #[cfg(not(feature = "tail"))]
        return crate::exec::dispatch::subroutine::run::<O>(ip, regs, ctx, fuel);
    }
}

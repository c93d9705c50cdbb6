//! The compiled tiers' loop (features `jit` and `stencil`): the stream's
//! program runs as compiled code (entry.rs's protocol), an entry at a
//! time, until it reaches a micro-op the interpreter runs (one that reads
//! or changes the kernel, HALT, MOD by 0, `End`), which runs as one unit
//! of the subroutine loop before the compiled code goes on; an exit to
//! another region's entry enters it; a turn that begins where the code
//! has no entry runs unit by unit up to the next entry; and when the fuel
//! does not cover the next block, the rest of the turn (fewer micro-ops
//! than the block) runs in the subroutine loop. Without compiled code (no
//! backend for this host), or with an observer that hears every micro-op,
//! the subroutine loop runs the whole turn. Each tier's variant enters it
//! through a loop entry of its own (`cranelift/run.rs`, `stencil/run.rs`),
//! so that a test can tell them apart.

use super::entry::{GO, PC_MASK, SHORT, call, entry_at};
use crate::exec::bodies::Ctx;
use crate::exec::dispatch::subroutine;
use crate::exec::inst::{Exit, Inst};
use crate::exec::observer::Observer;
use crate::exec::step::exit_at;

/// Runs from `ip` until an exit.
///
/// # Safety
/// The handler contract (handler.rs): `ip` in a decoded program, `regs`
/// the stream's registers, `ctx` a live `Ctx<O>` whose `code`, when set,
/// was made from that program by a compiled tier, `fuel >= 1`.
#[inline(always)]
pub(crate) unsafe fn run<O: Observer>(
    ip: *const Inst,
    regs: *mut u32,
    ctx: *mut (),
    fuel: u32,
) -> Exit {
    // SAFETY: the caller's contract; every pc the compiled code returns is
    // one of the program's (at most op_count, compile.rs), and every `next`
    // a unit returns stays in the program.
    unsafe {
        let c = &*(ctx as *const Ctx<O>);
        let (Some(code), false) = (c.code, O::ENABLED) else {
            return subroutine::run::<O>(ip, regs, ctx, fuel);
        };
        let base = c.base;
        let (mut pc, mut fuel) = (c.pc(ip), fuel);
        loop {
            if let Some(entry) = entry_at(code, pc) {
                #[cfg(test)]
                crate::exec::entered::note_code();
                let out = call(entry, regs, pc, fuel);
                pc = (out & PC_MASK) as u32;
                fuel = (out >> 32) as u32;
                if fuel == 0 {
                    return exit_at::<O>(ctx, base.add(pc as usize), 0, Exit::Fuel);
                }
                if out & GO != 0 {
                    // Another region's entry: enter its function.
                    continue;
                }
                if out & SHORT != 0 {
                    // Less fuel than the block: the turn ends inside it.
                    return subroutine::run::<O>(base.add(pc as usize), regs, ctx, fuel);
                }
            }
            // One unit in the interpreter: one the compiled code left to
            // it, or one of a block entered past its head (a turn that
            // began where the last one's fuel ran out), up to an entry.
            match subroutine::step::<O>(base.add(pc as usize), regs, ctx, fuel) {
                Ok((next, 0)) => return exit_at::<O>(ctx, next, 0, Exit::Fuel),
                Ok((next, left)) => {
                    pc = c.pc(next);
                    fuel = left;
                }
                Err(why) => return why,
            }
        }
    }
}

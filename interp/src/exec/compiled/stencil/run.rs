//! The `stencil` variant's loop: the compiled tiers' (compiled/run.rs)
//! over this tier's code, which the turn put in the `Ctx`
//! (machine/turn.rs). Its own entry, so that a test can tell the variants'
//! loops apart.

use crate::exec::handler::loop_entry;
use crate::exec::inst::{Exit, Inst};
use crate::exec::observer::Observer;

loop_entry! {
    "stencil";
    /// Runs from `ip` until an exit: the compiled tiers' loop over this
    /// tier's code.
    ///
    /// # Safety
    /// As `compiled::run::run`, the `Ctx`'s code this program's stencil code.
    #[inline(never)]
    fn run<O: Observer>(ip, regs, ctx, fuel) {
        // SAFETY: the caller's contract.
        unsafe { crate::exec::compiled::run::run::<O>(ip, regs, ctx, fuel) }
    }
}

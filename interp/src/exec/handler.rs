//! The handler: the signature every chained handler has ([`Handler`]), how
//! one is written ([`handler_fn!`]), and the contract every handler relies on. Beside
//! [`inst`](super::inst) at the bottom of the interpreter.
//!
//! # The contract every handler relies on
//!
//! A handler is entered with
//! - `ip` pointing at an instruction of a decoded [`Program`](super::decode::Program):
//!   the micro-ops `0..op_count`, then the `End` sentinel at `op_count`;
//!   every jump target and every `next` a body returns stays in that range,
//!   and every `op` byte is an [`OpIndex`](super::inst::OpIndex) below
//!   [`HANDLERS`](super::inst::HANDLERS), with or without the
//!   [`HEAD`](super::inst::HEAD) bit, written by the decoder;
//! - `regs` pointing at the running stream's 16 registers, and every
//!   register field an instruction's handler reads as a register below 16
//!   (SUBMIT's `a` and `b` may be `NO_REGISTER`, read only by the `group`
//!   variant, which the decoder gives only where both are registers; a
//!   head's `c` may hold its block's length);
//! - `ctx` the turn's live `Ctx<O>` (type-erased), whose pointers are
//!   disjoint from `regs` and from the program;
//! - `fuel >= 1` for a counted handler; a head or charged handler
//!   (dispatch/chain.rs) may get 0, after a block that used the last unit.
//!
//! The decoder establishes the first two from a `CheckedUpload` (the check's
//! reasons 3, 4 and 5), the stream turn the last two. Each `unsafe` block in
//! the interpreter cites this contract rather than restating it.
//!

use super::inst::{Exit, Free, Handler, Inst};

/// Emits a handler fn item with the calling convention of [`Handler`].
#[cfg(not(kmst_preserve_none))]
macro_rules! handler_fn {
    ($(#[$m:meta])* fn $name:ident $($rest:tt)*) => {
        $(#[$m])* pub(crate) unsafe fn $name $($rest)*
    };
}
#[cfg(kmst_preserve_none)]
macro_rules! handler_fn {
    ($(#[$m:meta])* fn $name:ident $($rest:tt)*) => {
        $(#[$m])* pub(crate) unsafe extern "rust-preserve-none" fn $name $($rest)*
    };
}
#[allow(unused_imports)] // used where a variant with handlers is built
pub(crate) use handler_fn;

/// A handler that ends in `become` (dispatch/handlers.rs: the chained and
/// indirect kinds), as [`handler_fn!`] writes it, kept only in a build with
/// the feature `handlers`: a stable build drops it unparsed, because the
/// parser refuses `become` on stable Rust even in an item a `cfg` removes.
#[cfg(feature = "handlers")]
macro_rules! become_fn {
    ($($t:tt)*) => {
        $crate::exec::handler::handler_fn! { $($t)* }
    };
}
#[cfg(not(feature = "handlers"))]
macro_rules! become_fn {
    ($($t:tt)*) => {};
}
#[allow(unused_imports)] // used where a variant with handlers is built
pub(crate) use become_fn;

handler_fn! {
    /// The handler a decoded instruction holds until a variant that reads
    /// it (the threaded one) sets its own (`dispatch::prepare`, from
    /// `Machine::run`); the other variants never read it. Never runs:
    /// running it is a defect of the engine.
    ///
    /// # Safety
    /// None needed: it touches nothing.
    fn unset(_: *const Inst, _: *mut u32, _: u32, _: Free, _: *mut (), _: u32) -> Exit {
        unreachable!("a threaded program ran before its handlers were set")
    }
}

/// [`unset`] as a [`Handler`].
pub(crate) const UNSET: Handler = unset;

/// A loop's entry: a `pub(crate) unsafe fn` of the handler contract's
/// arguments (handler.rs) that, in the unit tests, first notes that the
/// loop of `$variant` was entered (`entered`, read by the test that each
/// variant runs its own loop), then runs `$body`. A build of the switch
/// or loop_match variant alone declares none.
#[allow(unused_macros)]
macro_rules! loop_entry {
    (
        $variant:expr;
        $(#[$attr:meta])*
        fn $name:ident<$($g:ident: $bound:path),*>($ip:ident, $regs:ident, $ctx:ident, $fuel:ident)
        $body:block
    ) => {
        $(#[$attr])*
        pub(crate) unsafe fn $name<$($g: $bound),*>(
            $ip: *const Inst,
            $regs: *mut u32,
            $ctx: *mut (),
            $fuel: u32,
        ) -> Exit {
            #[cfg(test)]
            crate::exec::entered::note($variant);
            $body
        }
    };
}
#[allow(unused_imports)] // used where a loop variant is built
pub(crate) use loop_entry;

//! Which dispatch loop a run entered first, on this thread: the unit
//! tests' only (`#[cfg(test)]`). Every variant gives the same answers, so
//! that `dispatch::enter` sends a variant to its own loop, and not to
//! another's, shows nowhere else. Each loop's entry notes its variant's
//! name; a layer below the loops, it imports nothing.

use std::cell::Cell;

thread_local! {
    static FIRST: Cell<Option<&'static str>> = const { Cell::new(None) };
    static CODE: Cell<bool> = const { Cell::new(false) };
}

/// Notes that the loop of the variant named `name` was entered, unless
/// another was first.
pub(crate) fn note(name: &'static str) {
    FIRST.with(|f| {
        if f.get().is_none() {
            f.set(Some(name));
        }
    });
}

/// The name of the loop entered first since the last call, forgotten.
pub(crate) fn take() -> Option<&'static str> {
    FIRST.with(Cell::take)
}

/// Notes that a compiled tier's code was called (the compiled tiers' loop,
/// compiled/run.rs): a variant that falls back to the interpreter gives
/// the same answers, and shows only here.
#[cfg(feature = "compiled")]
pub(crate) fn note_code() {
    CODE.with(|c| c.set(true));
}

/// Whether compiled code was called since the last call, forgotten.
#[cfg(feature = "stencil")]
pub(crate) fn take_code() -> bool {
    CODE.with(Cell::take)
}

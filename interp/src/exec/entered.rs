//! Which dispatch loop a run entered first, on this thread: the unit
//! tests' only (`#[cfg(test)]`). Every variant gives the same answers, so
//! that `dispatch::enter` sends a variant to its own loop, and not to
//! another's, shows nowhere else. Each loop's entry notes its variant's
//! name; a layer below the loops, it imports nothing.

use std::cell::Cell;

thread_local! {
    static FIRST: Cell<Option<&'static str>> = const { Cell::new(None) };
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

//! The turn budget (S17), in one place: the fuel a turn starts with, when
//! the passes after it are quick and how many of them one chain of
//! handlers may span, and how the fuel such a chain used is split back
//! into turns. The rest of the budget's path, for a reader following it:
//! the handlers count it per micro-op (step.rs, `Unit::counted`; the
//! switch loop), a block's head charges its whole block (dispatch/chain.rs,
//! `head`; decode.rs cuts the blocks), a superinstruction stops between
//! its two micro-ops when one unit is left (step.rs, `run_pair`), and a
//! micro-op that reads or changes the kernel returns `Exit::Resync` inside
//! a span (bodies, `Ctx::resync`).
//!
//! **Quick passes.** A pass is quick for the one active stream whose last
//! turn used its whole budget when nothing but that stream's turn can
//! happen in it: the queue is empty (so its turn does nothing), no slot
//! can be acknowledged or late (before `next_change`), no host command is
//! due and it is not the cancel pass, and it is below `max_passes`
//! ([`is_quick`], the one predicate; [`quick_end`] the first pass where it
//! fails).

use super::host::Host;
use crate::exec::kernel::{Kernel, StreamMeta};
use crate::types::Params;

/// The fuel a turn starts with (S17): the budget, or the steps left when
/// fewer (then the fuel running out is the step limit).
#[inline(always)]
pub(super) fn turn_fuel(budget: u32, s: &StreamMeta) -> u32 {
    budget.min(s.max_steps - s.steps)
}

/// The first pass after `p` whose host phase has anything to do: the next
/// host command due, or the cancel pass when it is still to come.
#[inline(always)]
pub(super) fn host_at(host: &Host, cancel: Option<u64>, p: u64) -> u64 {
    let mut at = host.next_due();
    if let Some(c) = cancel
        && c > p
    {
        at = at.min(c);
    }
    at
}

/// The first pass that is not quick by the kernel's and the host's state:
/// the next pass where a slot changes, `max_passes`, or `host_at` (from
/// [`host_at`]). Passes before it are quick while the queue is empty.
#[inline(always)]
pub(super) fn quick_end(kernel: &Kernel, max_passes: u64, host_at: u64) -> u64 {
    kernel.next_change.min(max_passes).min(host_at)
}

/// Whether pass `q` is quick (module doc), `host_at` as from [`host_at`].
#[inline(always)]
pub(super) fn is_quick(kernel: &Kernel, q: u64, max_passes: u64, host_at: u64) -> bool {
    // `q < quick_end(..)` test by test: the first fails most often.
    q < kernel.next_change && kernel.queue.len() == 0 && q < host_at && q < max_passes
}

/// Whether the pass after the current one is quick for stream `s`, the one
/// active stream, whose turn just used its whole budget, and `s` has a
/// whole budget of steps left for its turn there (as [`quick_span`] at
/// least 1, without its division).
#[inline(always)]
pub(super) fn next_pass_is_quick(
    kernel: &Kernel,
    params: &Params,
    cancel: Option<u64>,
    host: &Host,
    s: &StreamMeta,
) -> bool {
    let p = kernel.pass;
    is_quick(kernel, p + 1, params.max_passes, host_at(host, cancel, p))
        && u64::from(s.max_steps - s.steps) >= 2 * u64::from(params.turn_budget)
}

/// How many passes after the current one are quick for stream `s` (as
/// [`next_pass_is_quick`], pass after pass) if its turns in them change
/// nothing the kernel reads: the turns a chain may run after this one
/// without returning (module doc of [`machine`](super), "Spans of quick
/// passes"). Bounded so that the chain's fuel fits in a `u32`.
pub(super) fn quick_span(
    kernel: &Kernel,
    params: &Params,
    cancel: Option<u64>,
    host: &Host,
    s: &StreamMeta,
) -> u32 {
    let p = kernel.pass;
    let budget = params.turn_budget;
    if kernel.queue.len() != 0 || budget == 0 {
        return 0;
    }
    let end = quick_end(kernel, params.max_passes, host_at(host, cancel, p));
    let by_passes = end.saturating_sub(p + 1);
    // ...and while the steps left before its turn are at least two
    // budgets: (k + 1) budgets in all, counting this turn's.
    let by_steps = u64::from((s.max_steps - s.steps) / budget).saturating_sub(1);
    let by_fuel = u64::from(u32::MAX / budget - 1);
    by_passes.min(by_steps).min(by_fuel) as u32
}

/// A chain that spanned `span` quick passes with `chain` units of fuel
/// stopped with `left`: it ran whole turns of `budget` micro-ops, one per
/// quick pass, then stopped in the turn of pass `pass + k` (at its very
/// start when the fuel it used is a multiple of the budget and the exit is
/// not the fuel's). Gives `k` and the fuel left of that turn, which
/// started with `fuel`.
#[inline(always)]
pub(super) fn split_span(chain: u32, left: u32, fuel: u32, budget: u32, span: u32) -> (u32, u32) {
    let used = chain - left;
    let k = (used / budget).min(span);
    (k, fuel - (used - k * budget))
}

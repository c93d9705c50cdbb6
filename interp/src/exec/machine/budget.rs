//! The turn budget (S17), in one place: the fuel a turn starts with, when
//! the passes after it are quick and how many of them one chain of
//! handlers may span, and how the fuel such a chain used is split back
//! into turns. The rest of the budget's path, for a reader following it:
//! the handlers count it per micro-op (dispatch/handlers.rs, `NAME_counted`
//! and the others; the switch loop), a block's head charges its whole
//! block (`NAME_head`; decode/ cuts the blocks), a superinstruction stops
//! between its two micro-ops when one unit is left (`if fuel == 1` in
//! each pair's counted handlers), and a
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
    limit: u64,
    cancel: Option<u64>,
    host: &Host,
    s: &StreamMeta,
) -> bool {
    let p = kernel.pass;
    is_quick(kernel, p + 1, limit, host_at(host, cancel, p))
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
    limit: u64,
    cancel: Option<u64>,
    host: &Host,
    s: &StreamMeta,
) -> u32 {
    let p = kernel.pass;
    let budget = params.turn_budget;
    if kernel.queue.len() != 0 || budget == 0 {
        return 0;
    }
    let end = quick_end(kernel, limit, host_at(host, cancel, p));
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

#[cfg(test)]
mod tests {
    use super::*;

    fn stream(steps: u32, max_steps: u32) -> StreamMeta {
        StreamMeta {
            steps,
            ..StreamMeta::blank(max_steps)
        }
    }

    /// A kernel in pass 5 whose next slot change is in pass 10.
    fn kernel(params: &Params) -> Kernel {
        let mut k = Kernel::new(params);
        k.pass = 5;
        k.next_change = 10;
        k
    }

    /// S17: a turn runs the budget, or the steps left when fewer.
    #[test]
    fn a_turn_starts_with_the_budget_or_the_steps_left() {
        assert_eq!(turn_fuel(64, &stream(0, 1_000)), 64);
        assert_eq!(turn_fuel(64, &stream(950, 1_000)), 50);
        assert_eq!(turn_fuel(64, &stream(1_000, 1_000)), 0);
    }

    /// Pass 5, next change in pass 10, no host, no cancel: passes 6, 7, 8
    /// and 9 are quick (10 sweeps a slot), so a chain may span 4 turns
    /// after this one when the stream has the steps for 5 whole turns.
    #[test]
    fn quick_until_the_next_slot_change() {
        let params = Params::default();
        let k = kernel(&params);
        let host = Host::none();
        let s = stream(0, 1_000_000);
        assert!(next_pass_is_quick(
            &k,
            &params,
            params.max_passes,
            None,
            &host,
            &s
        ));
        assert_eq!(
            quick_span(&k, &params, params.max_passes, None, &host, &s),
            4
        );
        for (q, quick) in [(6, true), (9, true), (10, false), (11, false)] {
            let at = host_at(&host, None, 5);
            assert_eq!(is_quick(&k, q, params.max_passes, at), quick, "pass {q}");
        }
    }

    /// The cancel pass (S15) and `max_passes` end the quick passes before
    /// it; a cancel pass already past does not.
    #[test]
    fn the_cancel_pass_and_max_passes_end_them() {
        let params = Params::default();
        let k = kernel(&params);
        let host = Host::none();
        let s = stream(0, 1_000_000);
        assert_eq!(
            quick_span(&k, &params, params.max_passes, Some(8), &host, &s),
            2
        );
        assert!(!next_pass_is_quick(
            &k,
            &params,
            params.max_passes,
            Some(6),
            &host,
            &s
        ));
        assert_eq!(
            quick_span(&k, &params, params.max_passes, Some(6), &host, &s),
            0
        );
        assert_eq!(
            quick_span(&k, &params, params.max_passes, Some(5), &host, &s),
            4
        );
        let short = Params {
            max_passes: 8,
            ..Params::default()
        };
        let k = kernel(&short);
        assert_eq!(quick_span(&k, &short, short.max_passes, None, &host, &s), 2);
        assert!(!is_quick(&k, 8, short.max_passes, u64::MAX));
    }

    /// A queued job makes no pass quick: the queue's turn may place it.
    #[test]
    fn a_queued_job_makes_no_pass_quick() {
        let params = Params::default();
        let mut k = kernel(&params);
        k.host_enqueue(1, 1, [0; 10], 0).unwrap();
        let host = Host::none();
        let s = stream(0, 1_000_000);
        assert!(!next_pass_is_quick(
            &k,
            &params,
            params.max_passes,
            None,
            &host,
            &s
        ));
        assert_eq!(
            quick_span(&k, &params, params.max_passes, None, &host, &s),
            0
        );
        assert!(!is_quick(&k, 6, params.max_passes, u64::MAX));
    }

    /// The steps bound the span (S17): with 200 steps left and a budget of
    /// 64, this turn and 2 more have a whole budget (3 * 64 = 192 <= 200);
    /// with 127 left, not even the next one (2 * 64 = 128 > 127).
    #[test]
    fn the_steps_left_bound_the_span() {
        let params = Params::default();
        let k = kernel(&params);
        let host = Host::none();
        assert_eq!(
            quick_span(
                &k,
                &params,
                params.max_passes,
                None,
                &host,
                &stream(800, 1_000)
            ),
            2
        );
        assert!(next_pass_is_quick(
            &k,
            &params,
            params.max_passes,
            None,
            &host,
            &stream(800, 1_000)
        ));
        assert_eq!(
            quick_span(
                &k,
                &params,
                params.max_passes,
                None,
                &host,
                &stream(873, 1_000)
            ),
            0
        );
        assert!(!next_pass_is_quick(
            &k,
            &params,
            params.max_passes,
            None,
            &host,
            &stream(873, 1_000)
        ));
    }

    /// A chain of 64 + 3 * 64 units spanning 3 quick passes: stopped with
    /// 100 left it used 156, two whole turns and 28 of the third, which has
    /// 36 left; stopped at 128 used, at the very start of the third turn
    /// (64 left); run out, in the last turn (k is at most the span) with 0.
    #[test]
    fn a_span_splits_back_into_turns() {
        assert_eq!(split_span(256, 100, 64, 64, 3), (2, 36));
        assert_eq!(split_span(256, 128, 64, 64, 3), (2, 64));
        assert_eq!(split_span(256, 0, 64, 64, 3), (3, 0));
        // Stopped inside the first turn: no quick pass was reached.
        assert_eq!(split_span(256, 250, 64, 64, 3), (0, 58));
    }
}

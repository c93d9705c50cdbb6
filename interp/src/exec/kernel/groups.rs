//! The group allocator (docs/spec.md "The kernel", S20), kept as the free
//! stretches of the grid between the busy slots' groups, in core order.
//!
//! The lowest first core where a job's group overlaps no busy group is the
//! start of the first stretch at least as wide as the job (the allocator's
//! candidate is 0 or the furthest end of the groups before it, which is
//! where a stretch starts), and a job fits somewhere exactly when it is at
//! most as wide as the widest stretch (so a job that cannot fit costs one
//! comparison). A placement there takes the front of that stretch: the
//! stretch shrinks and none splits, so within the queue's turn a placement
//! costs two stores, and the widest stretch a walk of the stretches (one
//! when every slot was free, as in a queue of jobs acknowledged at once).

use super::slot::Slot;
use crate::format::SLOTS;

/// Whether `[f, f + c)` and `[g, g + d)` share a core.
#[inline]
pub(super) fn overlaps(f: u32, c: u32, g: u32, d: u32) -> bool {
    let (f, c, g, d) = (u64::from(f), u64::from(c), u64::from(g), u64::from(d));
    f < g + d && g < f + c
}

/// The free stretches of `0 .. core_count`, in core order.
pub(super) struct Free {
    /// Each stretch's first core.
    start: [u32; SLOTS + 1],
    /// Each stretch's width (0 once placements took all of it).
    width: [u32; SLOTS + 1],
    len: usize,
    /// The busy groups as `(first, end)` while the stretches are rebuilt.
    groups: [(u64, u64); SLOTS],
}

impl Free {
    pub(super) fn new() -> Free {
        Free {
            start: [0; SLOTS + 1],
            width: [0; SLOTS + 1],
            len: 0,
            groups: [(0, 0); SLOTS],
        }
    }

    /// Refills the stretches from the groups of the `busy` slots (every
    /// group inside the grid: SUBMIT, the host and the queue check it).
    /// An idle grid, one stretch, is filled in line (a queue whose jobs are
    /// all acknowledged by the next turn finds it so every time).
    #[inline(always)]
    pub(super) fn rebuild(&mut self, busy: u16, slots: &[Slot; SLOTS], core_count: u32) {
        if busy == 0 {
            self.start[0] = 0;
            self.width[0] = core_count;
            self.len = 1;
        } else {
            self.rebuild_busy(busy, slots, core_count);
        }
    }

    /// [`Free::rebuild`] with at least one busy group.
    #[inline(never)]
    fn rebuild_busy(&mut self, busy: u16, slots: &[Slot; SLOTS], core_count: u32) {
        // The groups as (first, end), sorted by first (u64: no sum wraps),
        // in a list kept in place (a fresh one per turn cost a memset).
        let groups = &mut self.groups;
        let mut n = 0;
        let mut bits = busy;
        while bits != 0 {
            let s = &slots[bits.trailing_zeros() as usize];
            bits &= bits - 1;
            let (first, end) = (u64::from(s.first), u64::from(s.first) + u64::from(s.count));
            let mut at = n;
            while at > 0 && groups[at - 1].0 > first {
                groups[at] = groups[at - 1];
                at -= 1;
            }
            groups[at] = (first, end);
            n += 1;
        }
        let mut len = 0;
        let mut reach = 0u64;
        for &(first, end) in &self.groups[..n] {
            if first > reach {
                self.start[len] = reach as u32;
                self.width[len] = (first - reach) as u32;
                len += 1;
            }
            reach = reach.max(end);
        }
        let core_count = u64::from(core_count);
        if core_count > reach {
            self.start[len] = reach as u32;
            self.width[len] = (core_count - reach) as u32;
            len += 1;
        }
        self.len = len;
    }

    /// The widest stretch: a job fits somewhere ([`Free::lowest_fit`] finds
    /// room) exactly when its count is at most this.
    #[inline]
    pub(super) fn widest(&self) -> u64 {
        // One stretch (an idle grid) without the loop's set-up.
        if self.len == 1 {
            return u64::from(self.width[0]);
        }
        let mut widest = 0;
        for &w in &self.width[..self.len.min(SLOTS + 1)] {
            widest = widest.max(w);
        }
        u64::from(widest)
    }

    /// The first stretch at least `count` wide, if any: the job's group
    /// starts at its start, the lowest first core where it overlaps no busy
    /// group.
    #[inline]
    pub(super) fn lowest_fit(&self, count: u32) -> Option<usize> {
        // One stretch without the search's set-up (as in `widest`).
        if self.len == 1 {
            return (self.width[0] >= count).then_some(0);
        }
        self.width[..self.len.min(SLOTS + 1)]
            .iter()
            .position(|&w| w >= count)
    }

    /// The first core of stretch `i`.
    #[inline]
    pub(super) fn start(&self, i: usize) -> u32 {
        self.start[i]
    }

    /// A group of `count` cores takes the front of stretch `i` (at most its width).
    #[inline]
    pub(super) fn take(&mut self, i: usize, count: u32) {
        self.start[i] += count;
        self.width[i] -= count;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slot(first: u32, count: u32) -> Slot {
        Slot {
            first,
            count,
            ..Slot::default()
        }
    }

    /// Groups [3, 5) and [4, 10) overlap, [20, 22) stands alone, on a grid
    /// of 30: free are [0, 3) (3 cores), [10, 20) (10) and [22, 30) (8).
    /// A job of 4 goes to 10 (the first stretch of at least 4), which
    /// leaves [14, 20) (6): the widest is then 8, and a job of 7 goes to 22.
    #[test]
    fn the_stretches_widest_and_lowest_fit() {
        let mut slots = [Slot::default(); SLOTS];
        slots[0] = slot(20, 2);
        slots[1] = slot(4, 6);
        slots[2] = slot(3, 2);
        let mut f = Free::new();
        f.rebuild(0b111, &slots, 30);
        assert_eq!(f.widest(), 10);
        assert_eq!(f.lowest_fit(3).map(|i| f.start(i)), Some(0));
        assert_eq!(f.lowest_fit(10).map(|i| f.start(i)), Some(10));
        assert_eq!(f.lowest_fit(11), None);
        let i = f.lowest_fit(4).unwrap();
        assert_eq!(f.start(i), 10);
        f.take(i, 4);
        assert_eq!(f.widest(), 8);
        assert_eq!(f.lowest_fit(7).map(|i| f.start(i)), Some(22));
        // On a grid of 21 the last group reaches past it: [10, 20) is widest.
        f.rebuild(0b111, &slots, 21);
        assert_eq!(f.widest(), 10);
        // A full grid has no room; an empty one is one stretch.
        slots[3] = slot(0, 30);
        f.rebuild(0b1111, &slots, 30);
        assert_eq!((f.widest(), f.lowest_fit(1)), (0, None));
        f.rebuild(0, &slots, 30);
        assert_eq!(
            (f.widest(), f.lowest_fit(30).map(|i| f.start(i))),
            (30, Some(0))
        );
    }
}

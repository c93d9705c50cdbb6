//! The group allocator (docs/spec.md "The kernel", S20): the busy slots'
//! groups sorted by first core on the stack, and the lowest first core where
//! a job's group overlaps none of them, and the widest free stretch (so
//! that a job that cannot fit costs one comparison).

use super::Slot;
use crate::format::SLOTS;

/// Whether `[f, f + c)` and `[g, g + d)` share a core.
#[inline]
pub(super) fn overlaps(f: u32, c: u32, g: u32, d: u32) -> bool {
    let (f, c, g, d) = (u64::from(f), u64::from(c), u64::from(g), u64::from(d));
    f < g + d && g < f + c
}

/// The busy slots' groups sorted by first core, for the allocator.
pub(super) struct Groups {
    /// `(first, end)`, ascending by first (u64: no sum wraps, whatever the grid).
    pub(super) list: [(u64, u64); SLOTS],
    pub(super) len: usize,
}

impl Groups {
    /// Refills the list with the groups of the `busy` slots.
    pub(super) fn rebuild(&mut self, busy: u16, slots: &[Slot; SLOTS]) {
        self.len = 0;
        let mut busy = busy;
        while busy != 0 {
            let s = &slots[busy.trailing_zeros() as usize];
            self.insert(s.first, s.count);
            busy &= busy - 1;
        }
    }

    /// Adds the group `[first, first + count)`, keeping the order.
    pub(super) fn insert(&mut self, first: u32, count: u32) {
        let (first, end) = (u64::from(first), u64::from(first) + u64::from(count));
        let mut at = self.len;
        while at > 0 && self.list[at - 1].0 > first {
            self.list[at] = self.list[at - 1];
            at -= 1;
        }
        self.list[at] = (first, end);
        self.len += 1;
    }

    /// The most cores of one free stretch of `0 .. core_count` between the
    /// groups: a job fits somewhere (`lowest_fit` finds room) exactly when
    /// its count is at most this.
    pub(super) fn widest_gap(&self, core_count: u32) -> u64 {
        let mut reach = 0u64;
        let mut widest = 0u64;
        for &(first, end) in &self.list[..self.len] {
            widest = widest.max(first.saturating_sub(reach));
            reach = reach.max(end);
        }
        widest.max(u64::from(core_count).saturating_sub(reach))
    }

    /// The lowest `first` in `0 ..= core_count - count` whose range overlaps
    /// no busy group (docs/spec.md "The kernel", S20): walking the groups by
    /// first core, the candidate is 0 or the furthest end seen so far.
    pub(super) fn lowest_fit(&self, count: u32, core_count: u32) -> Option<u32> {
        let count = u64::from(count);
        let mut candidate = 0u64;
        for &(first, end) in &self.list[..self.len] {
            if candidate + count <= first {
                break;
            }
            candidate = candidate.max(end);
        }
        // candidate + count <= core_count keeps the candidate within u32.
        (candidate + count <= u64::from(core_count)).then_some(candidate as u32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Groups [3, 5) and [4, 10) overlap, [20, 22) stands alone, on a grid
    /// of 30: free are [0, 3) (3 cores), [10, 20) (10) and [22, 30) (8).
    #[test]
    fn widest_gap_and_lowest_fit_agree() {
        let mut g = Groups {
            list: [(0, 0); SLOTS],
            len: 0,
        };
        g.insert(20, 2);
        g.insert(4, 6);
        g.insert(3, 2);
        assert_eq!(g.widest_gap(30), 10);
        assert_eq!(g.lowest_fit(3, 30), Some(0));
        assert_eq!(g.lowest_fit(4, 30), Some(10));
        assert_eq!(g.lowest_fit(10, 30), Some(10));
        assert_eq!(g.lowest_fit(11, 30), None);
        // On a grid of 21 the last group reaches past it: [10, 20) is widest.
        assert_eq!(g.widest_gap(21), 10);
        // A full grid has no room.
        g.insert(0, 30);
        assert_eq!(g.widest_gap(30), 0);
        assert_eq!(g.lowest_fit(1, 30), None);
    }
}

//! The job queue (S18, S20): a fixed slab of 64 jobs plus the insertion
//! order as slab indices and 16-bit keys of the core counts, so the queue's
//! turn compares its window's 16 keys at once and a job leaving from the
//! middle moves bytes, not jobs. Nothing here allocates but the slab, once,
//! at the first job (or at `reserve_all`). A job is kept as the record it
//! will make, so that its placement copies it once into the answer.
//!
//! **Overtake counts are computed, not counted.** A job is overtaken when a
//! job behind it is placed (S20). With `placed` the number of jobs the queue
//! has placed so far and `pos` the job's place in the queue now, the count
//! of a job is `placed + pos - base`, where `base` is fixed when it joins
//! (`placed + len` then: count 0) and lowered by one for each job ahead of it
//! that a failed stream's drop takes out (S21). A placement from behind it
//! raises `placed` and leaves `pos`; one from ahead of it raises `placed` and
//! lowers `pos`; so a placement touches no other job. Counts never grow
//! along the queue (a job placed from behind a job is behind every job ahead
//! of it too), so the head holds the largest.

#[cfg(feature = "nightly")]
use std::simd::cmp::SimdPartialOrd;
#[cfg(feature = "nightly")]
use std::simd::i16x16;

use crate::exec::kernel::template::BLANK;
use crate::format::flags;
use crate::types::SubmittedCommand;

/// The most jobs waiting in the queue.
pub(crate) const QUEUE_CAP: usize = 64;
/// How many queued jobs the queue's turn looks at (S20).
pub(super) const WINDOW: usize = 16;
/// A job overtaken this often blocks those behind it (S20).
pub(super) const STARVATION: u64 = 1024;

/// One waiting job: the record it will make when placed (S19), but for
/// the sequence number, slot, first core and pass that its placement fills
/// in, so that the placement copies it once into the answer.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Job {
    /// Its handler, flags, count, arguments (patched at ENQUEUE), pc, and
    /// `queued` true.
    pub cmd: SubmittedCommand,
    pub id: u64,
    /// Its owner's fixed deadline in passes (S13, S31), read at its
    /// placement without a look at the stream.
    pub deadline: Option<u64>,
    /// The stream that queued it, or [`super::HOST`].
    pub owner: u16,
}

/// [`Queue::fitting`]'s compare on stable Rust, key by key: bit `i` set when
/// key `i` is at most `cores`.
#[cfg(not(feature = "nightly"))]
fn fitting_by_key(keys: &[i16], cores: i16) -> u32 {
    keys.iter()
        .enumerate()
        .fold(0u32, |bits, (i, &k)| bits | u32::from(k <= cores) << i)
}

#[cfg(test)]
impl Job {
    /// A job of `count` cores from `owner`, for the tests.
    pub(crate) fn of(id: u64, count: u32, owner: u16) -> Job {
        Job {
            cmd: SubmittedCommand { count, ..BLANK },
            id,
            deadline: None,
            owner,
        }
    }
}

impl Default for Job {
    fn default() -> Job {
        Job {
            cmd: BLANK,
            id: 0,
            deadline: None,
            owner: 0,
        }
    }
}

/// The job queue: a slab of jobs and the insertion order.
///
/// The order is kept in two arrays side by side, the waiting job k (in
/// queue order) at index `head + k`: its slab index with the exclusive flag
/// (bit 7), and its core count as a key (the count, 32,767 for any larger
/// one). `head` stays below 64 (the jobs move down when it gets there), so
/// the window is always 16 contiguous keys: the turn compares them with
/// the free cores as one vector of 16 lanes, without a branch.
pub(crate) struct Queue {
    /// The slab, on the heap from the first job on: a run that enqueues
    /// nothing allocates nothing for it, and the kernel stays cheap to move.
    /// A whole array, so that an index masked to 0..64 needs no bounds
    /// check (decisions.md D25).
    jobs: Option<Box<[Job; QUEUE_CAP]>>,
    /// Each slab entry's job's overtake base (module doc).
    base: [u64; QUEUE_CAP],
    /// How many jobs the queue has placed (module doc).
    placed: u64,
    /// `placed` when the current turn started.
    placed_before: u64,
    /// The slab index of each waiting job, with [`EXCLUSIVE`].
    order: [u8; 2 * QUEUE_CAP],
    /// The key of each waiting job: its core count, or [`i16::MAX`] for a
    /// larger one (a grid of more than 32,767 cores).
    keys: [i16; 2 * QUEUE_CAP],
    head: usize,
    pub(super) len: usize,
    /// Free slab entries as bits.
    free: u64,
}

/// The exclusive flag in an order entry.
pub(super) const EXCLUSIVE: u8 = 1 << 7;

/// A job's key for the window's comparison: its core count, cut to 32,767.
#[inline]
fn key(count: u32) -> i16 {
    count.min(i16::MAX as u32) as i16
}

/// The slab index of an order entry.
#[inline]
pub(super) fn entry_slab(entry: u8) -> usize {
    usize::from(entry & 0x3F)
}

impl Queue {
    pub(super) fn new() -> Queue {
        Queue {
            jobs: None,
            base: [0; QUEUE_CAP],
            placed: 0,
            placed_before: 0,
            order: [0; 2 * QUEUE_CAP],
            keys: [0; 2 * QUEUE_CAP],
            head: 0,
            len: 0,
            free: u64::MAX,
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    /// Room for every entry of the slab, so that no ENQUEUE allocates.
    pub fn reserve_all(&mut self) {
        self.slab_mut();
    }

    /// The slab, allocated on first use.
    #[inline]
    fn slab_mut(&mut self) -> &mut [Job; QUEUE_CAP] {
        /// Out of line: a 4 KiB array built in the caller's frame would
        /// make ENQUEUE's handler probe its stack.
        #[cold]
        #[inline(never)]
        fn new_slab() -> Box<[Job; QUEUE_CAP]> {
            Box::new([Job::default(); QUEUE_CAP])
        }
        self.jobs.get_or_insert_with(new_slab)
    }

    /// The job in slab entry `at` (none before the first job).
    #[inline]
    pub(super) fn slab_entry(&self, at: usize) -> Option<&Job> {
        self.jobs.as_ref().map(|slab| &slab[at % QUEUE_CAP])
    }

    /// Adds `job` at the end; the caller checked that the queue is not full.
    #[inline]
    pub(super) fn push(&mut self, job: Job) {
        *self.push_entry(job.cmd.flags, job.cmd.count) = job;
    }

    /// Adds a job of `flags` and `count` cores at the end and gives its
    /// slab entry for the caller to fill in place (ENQUEUE writes the
    /// patched arguments straight there); the caller checked that the
    /// queue is not full.
    #[inline]
    pub(super) fn push_entry(&mut self, job_flags: u8, count: u32) -> &mut Job {
        debug_assert!(self.len < QUEUE_CAP);
        let at = self.free.trailing_zeros() as usize % QUEUE_CAP;
        self.free &= !(1 << at);
        let exclusive = if job_flags & flags::EXCLUSIVE != 0 {
            EXCLUSIVE
        } else {
            0
        };
        self.base[at] = self.placed + self.len as u64;
        let end = (self.head + self.len) % (2 * QUEUE_CAP);
        self.order[end] = at as u8 | exclusive;
        self.keys[end] = key(count);
        self.len += 1;
        &mut self.slab_mut()[at]
    }

    /// The order entry (slab index and exclusive flag) of the waiting job
    /// at `pos` (in queue order).
    #[inline]
    pub(super) fn entry(&self, pos: usize) -> u8 {
        self.order[(self.head + pos) % (2 * QUEUE_CAP)]
    }

    /// The core count of the waiting job at `pos`.
    #[inline]
    pub(super) fn count(&self, pos: usize) -> u32 {
        self.jobs
            .as_ref()
            .map_or(0, |slab| slab[entry_slab(self.entry(pos))].cmd.count)
    }

    /// The bits of the places among the first `window` (at most 16) whose
    /// job may fit in `cores` cores: one comparison of 16 keys. Every job of
    /// at most `cores` cores is among them; with more than 32,767 cores a
    /// larger job may be too (its key is cut), which the allocator's exact
    /// answer then turns down.
    #[inline]
    pub(super) fn fitting(&self, window: usize, cores: u64) -> u32 {
        let cores = cores.min(i16::MAX as u64) as i16;
        // head < 64, so the 16 keys from head are inside the array.
        let keys = &self.keys[self.head % QUEUE_CAP..][..WINDOW];
        // One SIMD compare of the 16 keys (decisions.md D22); on stable
        // Rust, key by key.
        #[cfg(feature = "nightly")]
        let bits = i16x16::from_slice(keys)
            .simd_le(i16x16::splat(cores))
            .to_bitmask() as u32;
        #[cfg(not(feature = "nightly"))]
        let bits = fitting_by_key(keys, cores);
        bits & ((1 << window) - 1)
    }

    /// True when a job queued before job id `mark` is still waiting (an
    /// exclusive command waits for those, S18).
    #[inline]
    pub(super) fn holds_older(&self, mark: u64) -> bool {
        self.len > 0 && self.job(0).is_some_and(|j| j.id < mark)
    }

    /// The waiting job at `pos` (none in an empty queue).
    pub(super) fn job(&self, pos: usize) -> Option<&Job> {
        self.slab_entry(entry_slab(self.entry(pos)))
    }

    /// How often the job of `entry`, now at `pos`, has been overtaken (S20).
    #[inline]
    pub(super) fn overtaken(&self, entry: u8, pos: usize) -> u64 {
        (self.placed + pos as u64).wrapping_sub(self.base[entry_slab(entry)])
    }

    /// The job of `entry` was placed: its slab entry is free again. The
    /// order is rewritten by [`Queue::remove_placed`].
    #[inline]
    pub(super) fn placed(&mut self, entry: u8) {
        self.free |= 1 << entry_slab(entry);
        self.placed += 1;
    }

    /// How many jobs the current turn has placed so far.
    #[inline]
    pub(super) fn placed_in_turn(&self) -> usize {
        (self.placed - self.placed_before) as usize
    }

    /// Ends a turn that placed the waiting jobs whose places are the bits
    /// of `placed` (S20): the jobs ahead of the last one placed that stay
    /// move up, in order, to just before it; the head follows.
    #[inline]
    pub(super) fn remove_placed(&mut self, placed: u32) {
        let removed = self.placed_in_turn();
        self.placed_before = self.placed;
        if placed == 0 {
            return;
        }
        let end = ((32 - placed.leading_zeros()) as usize).min(WINDOW);
        // The jobs placed from the head on leave with it: none is copied.
        let start = (placed.trailing_ones() as usize).min(end);
        let head = self.head % QUEUE_CAP;
        // Backwards, each job one place further by the placed ones behind
        // it; a placed one is copied too, onto a place a job that stays
        // (or the new head) then covers, so there is no branch on which.
        // `to - 1 >= from` always: nothing is overwritten before it is read.
        let mut to = end;
        for from in (start..end).rev() {
            self.order[head + to - 1] = self.order[head + from];
            self.keys[head + to - 1] = self.keys[head + from];
            to -= usize::from(placed & (1 << from) == 0);
        }
        self.head = head + removed;
        self.len -= removed;
        if self.head >= QUEUE_CAP {
            // Move the waiting jobs down, so that the window stays inside.
            let (head, len) = (self.head % QUEUE_CAP, self.len);
            self.order
                .copy_within(QUEUE_CAP + head..QUEUE_CAP + head + len, head);
            self.keys
                .copy_within(QUEUE_CAP + head..QUEUE_CAP + head + len, head);
            self.head = head;
        }
    }

    /// The waiting jobs in queue order, each with how often it has been
    /// overtaken (S20): what a snapshot keeps of the queue (restore.rs).
    pub(super) fn waiting(&self) -> impl Iterator<Item = (Job, u64)> + '_ {
        (0..self.len).filter_map(move |pos| {
            let entry = self.entry(pos);
            self.job(pos).map(|job| (*job, self.overtaken(entry, pos)))
        })
    }

    /// A queue holding `jobs` in this order, each overtaken as often as it
    /// says (at most 2^40 times, checked by the caller), as
    /// [`Queue::waiting`] gave them.
    pub(super) fn restored(jobs: &[(Job, u64)]) -> Queue {
        debug_assert!(jobs.len() <= QUEUE_CAP);
        let mut q = Queue::new();
        // A count of placements far from 0, so that a base (placements
        // before the job's place, less its overtakes) never goes below 0.
        q.placed = 1 << 41;
        q.placed_before = q.placed;
        for (pos, &(job, overtaken)) in jobs.iter().enumerate() {
            q.push(job);
            let at = entry_slab(q.entry(pos));
            q.base[at] = q.placed + pos as u64 - overtaken;
        }
        q
    }

    /// Drops every job of `owner`; returns how many.
    pub(super) fn drop_owner(&mut self, owner: u16) -> u32 {
        let mut kept = 0;
        let mut dropped = 0;
        for pos in 0..self.len {
            let entry = self.entry(pos);
            let at = entry_slab(entry);
            if self.slab_entry(at).is_some_and(|job| job.owner == owner) {
                self.free |= 1 << at;
                dropped += 1;
            } else {
                // Its place drops by the jobs dropped ahead of it; its
                // overtake count does not (module doc).
                self.base[at] -= u64::from(dropped);
                let key = self.keys[(self.head + pos) % (2 * QUEUE_CAP)];
                self.order[self.head + kept] = entry;
                self.keys[self.head + kept] = key;
                kept += 1;
            }
        }
        self.len = kept;
        dropped
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(id: u64, count: u32, owner: u16) -> Job {
        Job::of(id, count, owner)
    }

    /// The computed counts against S20's counting, worked by hand: jobs
    /// A, B, C, D queued in that order.
    #[test]
    fn overtake_counts_follow_s20() {
        let mut q = Queue::new();
        for (id, owner) in [(0, 1), (1, 2), (2, 1), (3, 1)] {
            q.push(job(id, 1, owner));
        }
        let counts =
            |q: &Queue| -> Vec<u64> { (0..q.len).map(|p| q.overtaken(q.entry(p), p)).collect() };
        assert_eq!(counts(&q), [0, 0, 0, 0]);
        // One turn places C (pos 2): A and B are overtaken once; D is not.
        q.placed(q.entry(2));
        q.remove_placed(0b100);
        assert_eq!(counts(&q), [1, 1, 0]);
        // The next turn places A (pos 0): nobody is overtaken, B moves up.
        q.placed(q.entry(0));
        q.remove_placed(0b1);
        assert_eq!(counts(&q), [1, 0]);
        // E joins behind D (count 0); then D (pos 1) is placed: B once more.
        q.push(job(4, 1, 1));
        assert_eq!(counts(&q), [1, 0, 0]);
        q.placed(q.entry(1));
        q.remove_placed(0b10);
        assert_eq!(counts(&q), [2, 0]);
        assert_eq!(q.job(0).unwrap().id, 1);
        assert_eq!(q.job(1).unwrap().id, 4);
        // B's stream (owner 2) fails: B leaves, E keeps its count 0 at pos 0.
        assert_eq!(q.drop_owner(2), 1);
        assert_eq!(counts(&q), [0]);
        assert_eq!(q.job(0).unwrap().id, 4);
    }

    /// A drop ahead of a job that was overtaken keeps its count: F, G, H
    /// queued; H placed (F, G at 1); F's owner fails: G stays at 1.
    #[test]
    fn a_drop_keeps_the_counts_behind_it() {
        let mut q = Queue::new();
        q.push(job(0, 1, 7));
        q.push(job(1, 1, 8));
        q.push(job(2, 1, 8));
        q.placed(q.entry(2));
        q.remove_placed(0b100);
        assert_eq!(q.overtaken(q.entry(1), 1), 1);
        assert_eq!(q.drop_owner(7), 1);
        assert_eq!(q.len, 1);
        assert_eq!(q.overtaken(q.entry(0), 0), 1);
    }
}

#[cfg(test)]
mod removal {
    use super::*;

    /// Jobs 0..6 queued; a turn places those at places 1, 2 and 4: 0 and 3
    /// stay ahead of 5, in order, and the queue is 0, 3, 5.
    #[test]
    fn remove_placed_keeps_the_order() {
        let mut q = Queue::new();
        for id in 0..6 {
            q.push(Job::of(id, 1, 0));
        }
        for pos in [1, 2, 4] {
            q.placed(q.entry(pos));
        }
        q.remove_placed(0b1_0110);
        let ids: Vec<u64> = (0..q.len).map(|p| q.job(p).unwrap().id).collect();
        assert_eq!(ids, [0, 3, 5]);
        // The freed slab entries are taken again, lowest first: 1, 2, 4.
        q.push(Job::of(6, 1, 0));
        assert_eq!(entry_slab(q.entry(3)), 1);
        assert_eq!(q.job(3).unwrap().id, 6);
    }
}

#[cfg(test)]
mod moving_down {
    use super::*;

    fn job(id: u64) -> Job {
        // Counts 1, 2, 3, 1, 2, 3, ...: id % 3 + 1.
        Job::of(id, (id % 3 + 1) as u32, 0)
    }

    /// A full queue of jobs 0..63; 100 turns each place the head and queue
    /// one more: after turn k the queue is jobs k + 1 ..= k + 64, whatever
    /// the jobs' move down past index 64 did.
    #[test]
    fn the_order_survives_the_move_down() {
        let mut q = Queue::new();
        for id in 0..64 {
            q.push(job(id));
        }
        for k in 0..100u64 {
            q.placed(q.entry(0));
            q.remove_placed(0b1);
            q.push(job(k + 64));
            assert_eq!(q.len, 64);
            assert_eq!(q.job(0).unwrap().id, k + 1);
            assert_eq!(q.job(63).unwrap().id, k + 64);
            assert_eq!(q.count(0), ((k + 1) % 3 + 1) as u32);
        }
        // Now jobs 100..=163: counts 2, 3, 1, 2, 3, 1, ... (100 % 3 = 1).
        // Of the first 5 (2, 3, 1, 2, 3) those of at most 2 cores: places 0, 2, 3.
        assert_eq!(q.fitting(5, 2), 0b01101);
        // Of all 16, those of 1 core: places 2, 5, 8, 11, 14.
        assert_eq!(q.fitting(16, 1), 0b0100_1001_0010_0100);
    }

    /// Counts past 15 bits (a grid of up to 65,535 cores, S25, or one out
    /// of range, which still runs as the reference model runs it): jobs of
    /// 70,000 and 5 cores. 69,999 free cores must offer the second; the first
    /// is offered too (both keys are cut to 32,767), and the allocator's
    /// exact answer turns it down. 4 free cores offer neither.
    #[test]
    fn large_counts_are_cut_in_the_keys() {
        let mut q = Queue::new();
        for (id, count) in [(0, 70_000), (1, 5)] {
            q.push(Job::of(id, count, 0));
        }
        assert_eq!(q.fitting(2, 69_999), 0b11);
        assert_eq!(q.fitting(2, 70_000), 0b11);
        assert_eq!(q.fitting(2, 4), 0b00);
        assert_eq!(q.fitting(2, 5), 0b10);
        assert_eq!(q.fitting(2, 32_766), 0b10);
        assert_eq!(q.count(0), 70_000);
    }
}

//! The job queue (S18, S20): a fixed slab of 64 jobs plus an order array of
//! slab indices in insertion order, so a job leaving from the middle moves
//! words, not jobs. Nothing here allocates after set-up but the slab's
//! first growth.

use crate::format::flags;

/// The most jobs waiting in the queue.
pub(crate) const QUEUE_CAP: usize = 64;
/// How many queued jobs the queue's turn looks at (S20).
pub(super) const WINDOW: usize = 16;
/// A job overtaken this often blocks those behind it (S20).
pub(super) const STARVATION: u32 = 1024;

/// One waiting job (its arguments patched at ENQUEUE).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Job {
    pub id: u64,
    pub handler: u8,
    pub flags: u8,
    pub count: u32,
    pub args: [u32; 10],
    pub pc: u32,
    /// The stream that queued it, or [`super::HOST`].
    pub owner: u16,
}

/// The job queue: a slab of jobs and the insertion order.
///
/// The order array holds one packed word per waiting job, so the queue's
/// turn reads the window from contiguous memory: the slab index (bits 0..6),
/// the exclusive flag (bit 7) and the core count (bits 8..40).
pub(crate) struct Queue {
    /// The slab, on the heap and grown on demand: entry `k` exists once `k`
    /// jobs have waited at the same time. A run that enqueues nothing
    /// allocates nothing for it, and the kernel stays cheap to move.
    pub(super) jobs: Vec<Job>,
    /// How often each slab entry's job has been overtaken (S20).
    pub(super) overtaken: [u32; QUEUE_CAP],
    /// A ring: waiting job k (in queue order) is at `(head + k) % 64`.
    order: [u64; QUEUE_CAP],
    head: usize,
    pub(super) len: usize,
    /// Free slab entries as bits.
    free: u64,
    /// Waiting jobs overtaken STARVATION times or more.
    pub(super) starving: u32,
}

pub(super) const ENTRY_EXCLUSIVE: u64 = 1 << 7;

#[inline]
pub(super) fn entry_slab(entry: u64) -> usize {
    (entry & 0x3F) as usize
}

#[inline]
pub(super) fn entry_count(entry: u64) -> u32 {
    (entry >> 8) as u32
}

impl Queue {
    pub(super) fn new() -> Queue {
        Queue {
            jobs: Vec::new(),
            overtaken: [0; QUEUE_CAP],
            order: [0; QUEUE_CAP],
            head: 0,
            len: 0,
            free: u64::MAX,
            starving: 0,
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    /// Room for every entry of the slab, so that no ENQUEUE allocates.
    pub fn reserve_all(&mut self) {
        self.jobs.reserve(QUEUE_CAP - self.jobs.len());
    }

    pub(super) fn push(&mut self, job: Job) {
        debug_assert!(self.len < QUEUE_CAP);
        let at = self.free.trailing_zeros() as usize;
        self.free &= !(1 << at);
        let exclusive = if job.flags & flags::EXCLUSIVE != 0 {
            ENTRY_EXCLUSIVE
        } else {
            0
        };
        // The lowest free entry is at most one past the slab's end.
        if at == self.jobs.len() {
            self.jobs.push(job);
        } else {
            self.jobs[at] = job;
        }
        self.overtaken[at] = 0;
        self.order[(self.head + self.len) % QUEUE_CAP] =
            at as u64 | exclusive | u64::from(job.count) << 8;
        self.len += 1;
    }

    /// The packed entry of the waiting job at `pos` (in queue order).
    #[inline]
    pub(super) fn entry(&self, pos: usize) -> u64 {
        self.order[(self.head + pos) % QUEUE_CAP]
    }

    pub(super) fn job(&self, pos: usize) -> &Job {
        &self.jobs[entry_slab(self.entry(pos))]
    }

    pub(super) fn remove(&mut self, pos: usize) {
        let at = entry_slab(self.entry(pos));
        self.free |= 1 << at;
        if self.overtaken[at] >= STARVATION {
            self.starving -= 1;
        }
        // The jobs ahead (at most 15: the queue's turn looks at 16) move
        // one place back and the head follows.
        for k in (0..pos).rev() {
            self.order[(self.head + k + 1) % QUEUE_CAP] = self.order[(self.head + k) % QUEUE_CAP];
        }
        self.head = (self.head + 1) % QUEUE_CAP;
        self.len -= 1;
    }

    /// One more overtake for each of the first `n` waiting jobs.
    pub(super) fn overtake(&mut self, n: usize) {
        for k in 0..n {
            let entry = self.entry(k);
            let o = &mut self.overtaken[entry_slab(entry)];
            *o = o.saturating_add(1);
            if *o == STARVATION {
                self.starving += 1;
            }
        }
    }

    /// Drops every job of `owner`; returns how many.
    pub(super) fn drop_owner(&mut self, owner: u16) -> u32 {
        let mut kept = 0;
        let mut dropped = 0;
        for pos in 0..self.len {
            let entry = self.entry(pos);
            let at = entry_slab(entry);
            if self.jobs[at].owner == owner {
                self.free |= 1 << at;
                if self.overtaken[at] >= STARVATION {
                    self.starving -= 1;
                }
                dropped += 1;
            } else {
                self.order[(self.head + kept) % QUEUE_CAP] = entry;
                kept += 1;
            }
        }
        self.len = kept;
        dropped
    }
}

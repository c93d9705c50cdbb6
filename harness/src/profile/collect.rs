//! [`ProfileObserver`]: the counters the kernel's hooks feed while a stream runs.
//!
//! Everything here is plain counting; the work of turning counts into a
//! report is done once, after the run ([`super::report`]).

use std::collections::BTreeMap;

use kmst::exec::{Observer, TurnEnd};
use kmst::format::SLOTS;

/// The eight ways a turn ends, in report order (`TurnEnd::name`).
pub const TURN_END_NAMES: [&str; 8] = [
    "budget",
    "wait-slots",
    "wait-queue-full",
    "wait-exclusive",
    "wait",
    "halt-pending",
    "error",
    "halt",
];

/// The index of `why` in [`TURN_END_NAMES`].
pub fn turn_end_index(why: TurnEnd) -> usize {
    match why {
        TurnEnd::Budget => 0,
        TurnEnd::WaitSlots => 1,
        TurnEnd::WaitQueueFull => 2,
        TurnEnd::WaitExclusive => 3,
        TurnEnd::Wait => 4,
        TurnEnd::HaltPending => 5,
        TurnEnd::Error(_) => 6,
        TurnEnd::Halt(_) => 7,
    }
}

/// One turn the kernel ran.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TurnRecord {
    pub pass: u64,
    pub ops: u32,
    pub why: TurnEnd,
    /// The stream's pc after the turn (the waiting micro-op, or the next one).
    pub pc: u32,
}

/// A range of passes `from..to` the kernel skipped as idle, with the turn
/// that came before it (whose wait the skipped passes repeat).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IdleRange {
    pub from: u64,
    pub to: u64,
    /// The last turn before the range, if the stream had one.
    pub after: Option<TurnRecord>,
}

/// One command from submit to acknowledgement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SlotSpan {
    pub slot: u8,
    pub seq: u64,
    pub submit: u64,
    /// The pass whose sweep freed it (`None`: still busy when the run ended).
    pub ack: Option<u64>,
    pub queued: bool,
}

/// The kernel's state at the end of a pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct PassSample {
    pub pass: u64,
    pub busy_slots: u32,
    pub queue_len: u32,
}

/// Collects what the kernel reports. Set `keep_timeline` for a trace (it
/// keeps every turn and every pass sample; the counters are kept always).
#[derive(Clone, Debug, Default)]
pub struct ProfileObserver {
    /// Keep `turns` and `samples` (for the trace writer).
    pub keep_timeline: bool,
    /// How often `on_op` was called per pc (see `executed_per_pc`).
    pub attempts: Vec<u64>,
    /// Attempts per pc that did not execute: the waiting or failing
    /// micro-op that ended a turn without counting.
    pub not_executed: Vec<u64>,
    /// Turns that ended waiting at each pc.
    pub waits_at: Vec<u64>,
    /// Turns ended per reason ([`TURN_END_NAMES`] order).
    pub turn_ends: [u64; 8],
    /// Micro-ops per turn: ops -> turns.
    pub ops_per_turn: BTreeMap<u32, u64>,
    pub turn_count: u64,
    pub zero_op_turns: u64,
    pub ops_total: u64,
    /// Passes at each slot occupancy 0..=16 (idle passes counted too).
    pub occupancy: [u64; SLOTS + 1],
    pub queue_sum: u64,
    pub queue_max: u32,
    pub busy_sum: u64,
    pub busy_max: u32,
    /// Passes observed (run or skipped).
    pub passes: u64,
    /// The last pass the kernel reported the end of, plus one.
    pub pass_end: u64,
    pub idle: Vec<IdleRange>,
    pub spans: Vec<SlotSpan>,
    /// Index into `spans` of the command in each busy slot.
    open: [Option<usize>; SLOTS],
    last_turn: Option<TurnRecord>,
    /// `on_op` calls since the last turn end, and the last pc.
    turn_attempts: u64,
    last_pc: u32,
    last_sample: PassSample,
    pub turns: Vec<TurnRecord>,
    pub samples: Vec<PassSample>,
}

fn bump(v: &mut Vec<u64>, at: usize, by: u64) {
    if v.len() <= at {
        v.resize(at + 1, 0);
    }
    v[at] += by;
}

impl ProfileObserver {
    /// A fresh observer; `keep_timeline` keeps what a trace needs.
    pub fn new(keep_timeline: bool) -> ProfileObserver {
        ProfileObserver {
            keep_timeline,
            ..ProfileObserver::default()
        }
    }

    fn sample(&mut self, s: PassSample, passes: u64) {
        self.occupancy[s.busy_slots.min(SLOTS as u32) as usize] += passes;
        self.busy_sum += u64::from(s.busy_slots) * passes;
        self.busy_max = self.busy_max.max(s.busy_slots);
        self.queue_sum += u64::from(s.queue_len) * passes;
        self.queue_max = self.queue_max.max(s.queue_len);
        self.passes += passes;
    }
}

impl Observer for ProfileObserver {
    const ENABLED: bool = true;

    fn on_op(&mut self, pc: u32) {
        bump(&mut self.attempts, pc as usize, 1);
        self.turn_attempts += 1;
        self.last_pc = pc;
    }

    fn on_turn_end(&mut self, pass: u64, _stream: usize, ops: u32, why: TurnEnd, pc: u32) {
        // `on_op` reports completed micro-ops only (observer.rs). Should a
        // turn ever report one call more than it counted (an `on_op` before
        // a micro-op that then waited or failed, as the hook once did), that
        // last call was no execution.
        if self.turn_attempts > u64::from(ops) {
            bump(&mut self.not_executed, self.last_pc as usize, 1);
        }
        self.turn_attempts = 0;
        if why.is_wait() {
            bump(&mut self.waits_at, pc as usize, 1);
        }
        self.turn_ends[turn_end_index(why)] += 1;
        *self.ops_per_turn.entry(ops).or_insert(0) += 1;
        self.turn_count += 1;
        self.ops_total += u64::from(ops);
        if ops == 0 {
            self.zero_op_turns += 1;
        }
        let record = TurnRecord { pass, ops, why, pc };
        self.last_turn = Some(record);
        if self.keep_timeline {
            self.turns.push(record);
        }
    }

    fn on_submit(&mut self, slot: u8, seq: u64, pass: u64, queued: bool) {
        self.open[usize::from(slot) % SLOTS] = Some(self.spans.len());
        self.spans.push(SlotSpan {
            slot,
            seq,
            submit: pass,
            ack: None,
            queued,
        });
    }

    fn on_ack(&mut self, slot: u8, _seq: u64, pass: u64) {
        if let Some(i) = self.open[usize::from(slot) % SLOTS].take() {
            self.spans[i].ack = Some(pass);
        }
    }

    fn on_pass_end(&mut self, pass: u64, busy_slots: u32, queue_len: u32) {
        let s = PassSample {
            pass,
            busy_slots,
            queue_len,
        };
        self.sample(s, 1);
        self.last_sample = s;
        self.pass_end = pass + 1;
        if self.keep_timeline {
            self.samples.push(s);
        }
    }

    fn on_idle(&mut self, from: u64, to: u64) {
        let s = self.last_sample;
        self.sample(s, to - from);
        self.pass_end = to;
        self.idle.push(IdleRange {
            from,
            to,
            after: self.last_turn,
        });
    }
}

impl ProfileObserver {
    /// Micro-ops executed at each pc (the attempts less the corrections the
    /// turn ends recorded), `len` entries.
    pub fn executed_per_pc(&self, len: usize) -> Vec<u64> {
        (0..len)
            .map(|pc| {
                let a = self.attempts.get(pc).copied().unwrap_or(0);
                let c = self.not_executed.get(pc).copied().unwrap_or(0);
                a.saturating_sub(c)
            })
            .collect()
    }
}

//! Adjacent micro-ops as they execute: the pairs and triples behind
//! `kmst profile --pairs`, the candidates for superinstructions.
//!
//! A pair is two micro-ops executed one right after the other within one
//! turn of one stream (a turn's end breaks the chain: the next turn may be
//! another stream's, and a fused micro-op never spans a turn); a triple is
//! three. Counts are dynamic (times executed) and by opcode mnemonic.
//!
//! [`PairObserver`] sees each completed micro-op's pc through `on_op`, but
//! learns whose it was only at the turn's end, so it counts the turn's pc
//! pairs and triples on the side and files them under the stream then. The
//! pcs become mnemonics once, after the run, from each stream's program.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use serde::Serialize;

use kmst::exec::{Dispatch, Observer, TurnEnd, simulate_observed, simulate_scenario_observed};
use kmst::format::Upload;
use kmst_reference::{Params, Scenario};

/// A multiply-rotate hasher for small integer keys: these maps are touched
/// once per executed micro-op, where SipHash would dominate.
#[derive(Default, Clone, Copy)]
pub struct PcHasher(u64);

impl Hasher for PcHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }
    fn write_u32(&mut self, n: u32) {
        self.write_u64(u64::from(n));
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }
}

type PcMap<K> = HashMap<K, u64, BuildHasherDefault<PcHasher>>;

/// One stream's pc pairs and triples.
#[derive(Clone, Debug, Default)]
pub struct StreamPcs {
    pub ops: u64,
    pub pairs: PcMap<(u32, u32)>,
    pub triples: PcMap<(u32, u32, u32)>,
}

/// Counts adjacent pcs per stream (see the module header).
#[derive(Clone, Debug, Default)]
pub struct PairObserver {
    /// By the stream's index in start order.
    pub streams: Vec<StreamPcs>,
    turn: StreamPcs,
    prev: Option<u32>,
    prev2: Option<u32>,
}

impl Observer for PairObserver {
    const ENABLED: bool = true;

    fn on_op(&mut self, pc: u32) {
        self.turn.ops += 1;
        if let Some(p1) = self.prev {
            *self.turn.pairs.entry((p1, pc)).or_insert(0) += 1;
            if let Some(p0) = self.prev2 {
                *self.turn.triples.entry((p0, p1, pc)).or_insert(0) += 1;
            }
        }
        self.prev2 = self.prev;
        self.prev = Some(pc);
    }

    fn on_turn_end(&mut self, _pass: u64, stream: usize, _ops: u32, _why: TurnEnd, _pc: u32) {
        self.prev = None;
        self.prev2 = None;
        if self.turn.ops == 0 {
            return;
        }
        if self.streams.len() <= stream {
            self.streams.resize_with(stream + 1, StreamPcs::default);
        }
        let s = &mut self.streams[stream];
        s.ops += self.turn.ops;
        self.turn.ops = 0;
        for (k, n) in self.turn.pairs.drain() {
            *s.pairs.entry(k).or_insert(0) += n;
        }
        for (k, n) in self.turn.triples.drain() {
            *s.triples.entry(k).or_insert(0) += n;
        }
    }
}

/// Pair and triple counts by mnemonic, of one source or of several.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub ops: u64,
    pub pairs: HashMap<[&'static str; 2], u64>,
    pub triples: HashMap<[&'static str; 3], u64>,
    /// Of `pairs`, those whose second micro-op is the next in the program
    /// (pc + 1): a straight line a superinstruction can cover, not a jump.
    pub pairs_straight: HashMap<[&'static str; 2], u64>,
    /// Of `triples`, those at pc, pc + 1, pc + 2.
    pub triples_straight: HashMap<[&'static str; 3], u64>,
}

impl Counts {
    /// Adds `other`'s counts.
    pub fn add(&mut self, other: &Counts) {
        self.ops += other.ops;
        for (k, n) in &other.pairs {
            *self.pairs.entry(*k).or_insert(0) += n;
        }
        for (k, n) in &other.triples {
            *self.triples.entry(*k).or_insert(0) += n;
        }
        for (k, n) in &other.pairs_straight {
            *self.pairs_straight.entry(*k).or_insert(0) += n;
        }
        for (k, n) in &other.triples_straight {
            *self.triples_straight.entry(*k).or_insert(0) += n;
        }
    }

    /// The observer's pc counts of each stream, named through its program.
    fn of(obs: &PairObserver, program: impl Fn(usize) -> Vec<u8>) -> Counts {
        let mut c = Counts::default();
        for (i, s) in obs.streams.iter().enumerate() {
            if s.ops == 0 {
                continue;
            }
            // The stream ran, so the check accepted its upload.
            let upload = Upload::read_checked(&program(i));
            let name = |pc: u32| -> &'static str {
                upload
                    .ops
                    .get(pc as usize)
                    .and_then(|op| op.opcode())
                    .map_or("?", |o| o.mnemonic())
            };
            c.ops += s.ops;
            for (&(a, b), &n) in &s.pairs {
                let k = [name(a), name(b)];
                *c.pairs.entry(k).or_insert(0) += n;
                if b == a.wrapping_add(1) {
                    *c.pairs_straight.entry(k).or_insert(0) += n;
                }
            }
            for (&(a, b, d), &n) in &s.triples {
                let k = [name(a), name(b), name(d)];
                *c.triples.entry(k).or_insert(0) += n;
                if b == a.wrapping_add(1) && d == b.wrapping_add(1) {
                    *c.triples_straight.entry(k).or_insert(0) += n;
                }
            }
        }
        c
    }
}

/// The pairs and triples one stream executes with `params` on `dispatch`
/// (none if the check rejects it).
pub fn count_stream(upload: &[u8], params: &Params, dispatch: Dispatch) -> Counts {
    let mut obs = PairObserver::default();
    let result = simulate_observed(upload, params, dispatch, &mut obs);
    if result.check.is_some() {
        return Counts::default();
    }
    Counts::of(&obs, |_| upload.to_vec())
}

/// The pairs and triples every stream of `scenario` executes on `dispatch`.
pub fn count_scenario(scenario: &Scenario, dispatch: Dispatch) -> Counts {
    let mut obs = PairObserver::default();
    let result = simulate_scenario_observed(scenario, dispatch, &mut obs);
    Counts::of(&obs, |i| {
        let s = &result.streams[i];
        scenario.region_bytes(u64::from(s.offset), u64::from(s.length))
    })
}

/// One source of the report: its name and what it ran.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SourceRow {
    pub name: String,
    pub micro_ops: u64,
    pub pairs: u64,
}

/// One pair or triple of the report.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct SeqRow {
    /// The mnemonics in execution order.
    pub ops: Vec<&'static str>,
    /// Times executed, over all sources.
    pub count: u64,
    /// Its share of all pairs (or triples) executed.
    pub share: f64,
    /// Of `count`, the times its micro-ops were at consecutive pcs (a
    /// straight line, which a superinstruction can cover; the rest jumped).
    pub straight_count: u64,
    /// `straight_count / count`: the share the table shows as "straight"
    /// (a fraction, as `share` is).
    pub straight_share: f64,
    /// How many sources execute it.
    pub sources: u64,
    /// The source that executes it most, and its share of `count`.
    pub top_source: String,
    pub top_share: f64,
}

/// `kmst profile --pairs`: the most executed pairs and triples over a set of sources.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct PairReport {
    pub dispatch: String,
    pub sources: Vec<SourceRow>,
    pub micro_ops: u64,
    /// Adjacent pairs executed in all (a turn of k micro-ops has k - 1).
    pub pairs: u64,
    /// Adjacent triples executed in all (k - 2 per turn of k >= 2).
    pub triples: u64,
    /// The `top` most executed pairs, most first (ties by mnemonics).
    pub top_pairs: Vec<SeqRow>,
    pub top_triples: Vec<SeqRow>,
}

fn top_rows<const N: usize>(
    sources: &[(String, Counts)],
    get: impl Fn(&Counts) -> &HashMap<[&'static str; N], u64>,
    straight: impl Fn(&Counts) -> &HashMap<[&'static str; N], u64>,
    top: usize,
) -> (u64, Vec<SeqRow>) {
    let mut all: HashMap<[&'static str; N], u64> = HashMap::new();
    for (_, c) in sources {
        for (k, n) in get(c) {
            *all.entry(*k).or_insert(0) += n;
        }
    }
    let total: u64 = all.values().sum();
    let mut rows: Vec<([&'static str; N], u64)> = all.into_iter().collect();
    rows.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    rows.truncate(top);
    let rows = rows
        .into_iter()
        .map(|(k, count)| {
            let mut in_sources = 0;
            let mut best: Option<(&str, u64)> = None;
            let mut in_line = 0;
            for (name, c) in sources {
                in_line += straight(c).get(&k).copied().unwrap_or(0);
                let n = get(c).get(&k).copied().unwrap_or(0);
                if n > 0 {
                    in_sources += 1;
                    if best.is_none_or(|b| n > b.1) {
                        best = Some((name, n));
                    }
                }
            }
            let (top_source, top_n) = best.unwrap_or(("", 0));
            SeqRow {
                ops: k.to_vec(),
                count,
                share: count as f64 / total.max(1) as f64,
                straight_count: in_line,
                straight_share: in_line as f64 / count.max(1) as f64,
                sources: in_sources,
                top_source: top_source.to_owned(),
                top_share: top_n as f64 / count.max(1) as f64,
            }
        })
        .collect();
    (total, rows)
}

impl PairReport {
    /// The report of `sources` (name and counts), `top` rows of each kind.
    pub fn build(dispatch: Dispatch, sources: &[(String, Counts)], top: usize) -> PairReport {
        let (pairs, top_pairs) = top_rows(sources, |c| &c.pairs, |c| &c.pairs_straight, top);
        let (triples, top_triples) =
            top_rows(sources, |c| &c.triples, |c| &c.triples_straight, top);
        PairReport {
            dispatch: dispatch.name().to_owned(),
            sources: sources
                .iter()
                .map(|(name, c)| SourceRow {
                    name: name.clone(),
                    micro_ops: c.ops,
                    pairs: c.pairs.values().sum(),
                })
                .collect(),
            micro_ops: sources.iter().map(|(_, c)| c.ops).sum(),
            pairs,
            triples,
            top_pairs,
            top_triples,
        }
    }
}

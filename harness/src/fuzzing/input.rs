//! The byte layouts of the raw fuzz targets' inputs.
//!
//! A raw target's input is a fixed-size prefix that says how to call the
//! implementations, then the upload bytes themselves (so that libFuzzer's
//! byte mutations and the dictionary act on a real upload). Each prefix has
//! an encoder as well as a decoder, so the seed corpora can be built from the
//! saved streams of `corpus/streams` with their own parameters.
//!
//! - [`CheckPrefix`] (target `check`, [`CHECK_PREFIX`] bytes): the region
//!   size of `check` and the offset, up to seven active ranges and up to five
//!   active reqs of `check_run`, each over its whole type, with modes that
//!   put them at S6's boundaries (the upload's length, the region's end, 2⁶⁴).
//! - [`SimPrefix`] (target `sim_raw`, [`SIM_PREFIX`] bytes): every parameter
//!   of S23..S25, always decoded into its valid range, with `max_passes` at
//!   most [`MAX_RAW_PASSES`] and `turn_budget` at most [`MAX_RAW_BUDGET`] so
//!   one input runs at most a few hundred thousand micro-ops.

use crate::answers::RunArgs;
use kmst_reference::{Delay, Params, ResultModel};

/// Bytes of the `check` target's prefix.
pub const CHECK_PREFIX: usize = 160;
/// Bytes of the `sim_raw` target's prefix.
pub const SIM_PREFIX: usize = 64;
/// The largest `max_passes` a `sim_raw` input asks for.
pub const MAX_RAW_PASSES: u64 = 256;
/// The largest `turn_budget` a `sim_raw` input asks for.
pub const MAX_RAW_BUDGET: u32 = 1024;
/// The region size of S24's default (1 MiB).
const DEFAULT_REGION: u64 = 1 << 20;

fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(w)
}

fn put64(b: &mut [u8], at: usize, v: u64) {
    b[at..at + 8].copy_from_slice(&v.to_le_bytes());
}

fn put16(b: &mut [u8], at: usize, v: u16) {
    b[at..at + 2].copy_from_slice(&v.to_le_bytes());
}

fn put32(b: &mut [u8], at: usize, v: u32) {
    b[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

/// Splits an input into its `N`-byte prefix (zero-filled if the input is
/// shorter) and the rest.
fn split<const N: usize>(input: &[u8]) -> ([u8; N], &[u8]) {
    let mut prefix = [0u8; N];
    let n = input.len().min(N);
    prefix[..n].copy_from_slice(&input[..n]);
    (prefix, &input[n..])
}

/// How the `check` target calls `check` and `check_run` on its upload.
///
/// Every value can reach the whole of its type (S6's arguments are u64
/// region, offset and active ranges and u32 reqs): the two checkers compute
/// `offset + length` and a range's end differently (u128, or saturating
/// u64), and only values near 2⁶⁴ tell those apart. Modes put the values
/// where the rules turn (the upload's length, the region's end, 2⁶⁴) so that
/// a one-byte mutation reaches them; the raw fields reach everything else.
///
/// Layout (little-endian):
///
/// | bytes | meaning |
/// |---|---|
/// | 0 | region mode (mod 8): 0 the upload's length, 1 length − 64·d, 2 length + d, 3 the raw u64, 4 1 MiB, 5 length − d, 6 2⁶⁴ − 1 − d, 7 length + 64·d |
/// | 1 | d of the region mode |
/// | 2 | offset mode (mod 8): 0 zero, 1 64·e, 2 the raw u64, 3 region − length, 4 that rounded down to 64, 5 2⁶⁴ − 1 − e, 6 (2⁶⁴ − 64) − 64·e, 7 region − 64·e |
/// | 3 | e of the offset mode |
/// | 4..12 | raw region size |
/// | 12..20 | raw offset |
/// | 20 | active ranges (mod 8): how many of the seven at 48.. |
/// | 21 | active reqs (mod 5): how many of the four at 24..40 |
/// | 22 | bit 0: the upload's own req is active too (after those) |
/// | 23 | ignored |
/// | 24..40 | four active reqs, u32 each |
/// | 40..47 | range k's mode (mod 4): 0 (start, length) raw; 1 start = offset + start (wrapping); 2 length = 2⁶⁴ − 1 − length; 3 start = 2⁶⁴ − 1 − start |
/// | 47 | ignored |
/// | 48..160 | seven active ranges, (u64 start, u64 length) each |
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CheckPrefix(pub [u8; CHECK_PREFIX]);

/// The most active ranges a `check` input holds.
pub const CHECK_RANGES: usize = 7;
/// The most active reqs a `check` input holds besides the upload's own.
pub const CHECK_REQS: usize = 4;

impl CheckPrefix {
    /// Splits a `check` input into its prefix and upload.
    pub fn split(input: &[u8]) -> (CheckPrefix, &[u8]) {
        let (p, rest) = split::<CHECK_PREFIX>(input);
        (CheckPrefix(p), rest)
    }

    /// The prefix that checks in a region exactly as large as the upload and
    /// runs it at offset 0 with nothing active.
    pub fn plain() -> CheckPrefix {
        CheckPrefix([0; CHECK_PREFIX])
    }

    /// A prefix giving exactly this `check_run` call (`check` gets the same
    /// region size): the region, the offset and the first
    /// [`CHECK_RANGES`] active ranges as they are, and the first
    /// [`CHECK_REQS`] active reqs.
    pub fn for_run(args: &RunArgs) -> CheckPrefix {
        let mut p = [0u8; CHECK_PREFIX];
        p[0] = 3;
        p[2] = 2;
        put64(&mut p, 4, args.region_size);
        put64(&mut p, 12, args.offset);
        let ranges = &args.active[..args.active.len().min(CHECK_RANGES)];
        p[20] = ranges.len() as u8;
        for (k, &(at, len)) in ranges.iter().enumerate() {
            put64(&mut p, 48 + 16 * k, at);
            put64(&mut p, 56 + 16 * k, len);
        }
        let reqs = &args.active_reqs[..args.active_reqs.len().min(CHECK_REQS)];
        p[21] = reqs.len() as u8;
        for (k, &req) in reqs.iter().enumerate() {
            put32(&mut p, 24 + 4 * k, req);
        }
        CheckPrefix(p)
    }

    /// The region size for `check` and `check_run` of `upload`.
    pub fn region_size(&self, upload: &[u8]) -> u64 {
        let p = &self.0;
        let len = upload.len() as u64;
        let d = u64::from(p[1]);
        match p[0] % 8 {
            0 => len,
            1 => len.saturating_sub(64 * d),
            2 => len + d,
            3 => u64_at(p, 4),
            4 => DEFAULT_REGION,
            5 => len.saturating_sub(d),
            6 => u64::MAX - d,
            _ => len + 64 * d,
        }
    }

    /// The `check_run` arguments for `upload`.
    pub fn run_args(&self, upload: &[u8]) -> RunArgs {
        let p = &self.0;
        let region_size = self.region_size(upload);
        let len = upload.len() as u64;
        let e = u64::from(p[3]);
        let offset = match p[2] % 8 {
            0 => 0,
            1 => 64 * e,
            2 => u64_at(p, 12),
            3 => region_size.saturating_sub(len),
            4 => region_size.saturating_sub(len) / 64 * 64,
            5 => u64::MAX - e,
            6 => (u64::MAX / 64 * 64) - 64 * e,
            _ => region_size.saturating_sub(64 * e),
        };
        let active = (0..usize::from(p[20] % 8))
            .map(|k| {
                let (at, len) = (u64_at(p, 48 + 16 * k), u64_at(p, 56 + 16 * k));
                match p[40 + k] % 4 {
                    0 => (at, len),
                    1 => (offset.wrapping_add(at), len),
                    2 => (at, u64::MAX - len),
                    _ => (u64::MAX - at, len),
                }
            })
            .collect();
        let mut active_reqs: Vec<u32> = (0..usize::from(p[21] % 5))
            .map(|k| u32_at(p, 24 + 4 * k))
            .collect();
        if p[22] & 1 != 0 && upload.len() >= 64 {
            active_reqs.push(u32_at(upload, 24));
        }
        RunArgs {
            offset,
            region_size,
            active,
            active_reqs,
        }
    }
}

/// The simulation parameters of a `sim_raw` input.
///
/// Layout (little-endian); every value decodes into its S25 range:
///
/// | bytes | meaning |
/// |---|---|
/// | 0 | delay (mod 4): 0 fixed, 1 never, 2 cycle, 3 table |
/// | 1..5 | fixed: the u32 delay; cycle: base u16 (1..3), modulo u16 (3..5, 0 means 1) |
/// | 5 | delay table length − 1 (mod 8) |
/// | 6..14 | delay table entries, one byte each, 0xFF never |
/// | 14 | result (mod 4): 0 zero, 1 sequence, 2 arg, 3 table |
/// | 15 | arg k (mod 10), or result table length − 1 (mod 4) |
/// | 16..32 | result table, four u32 |
/// | 32..36 | deadline_passes (0 not given) |
/// | 36..40 | default_deadline_passes (0 means 1,000,000) |
/// | 40..42 | cancel_pass + 1 (0 not given; mod 1,024) |
/// | 42..44 | core_count (0 means 119) |
/// | 44..48 | ticks_per_pass |
/// | 48..50 | max_passes − 1 (mod [`MAX_RAW_PASSES`]) |
/// | 50..52 | turn_budget − 1 (mod [`MAX_RAW_BUDGET`]) |
/// | 52..56 | region_size |
/// | 56..64 | ignored |
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SimPrefix(pub [u8; SIM_PREFIX]);

impl SimPrefix {
    /// Splits a `sim_raw` input into its prefix and upload.
    pub fn split(input: &[u8]) -> (SimPrefix, &[u8]) {
        let (p, rest) = split::<SIM_PREFIX>(input);
        (SimPrefix(p), rest)
    }

    /// The parameters (always valid per S25).
    pub fn params(&self) -> Params {
        let p = &self.0;
        let delay = match p[0] % 4 {
            0 => Delay::Fixed(u32_at(p, 1)),
            1 => Delay::Never,
            2 => Delay::Cycle {
                base: u32::from(u16_at(p, 1)),
                modulo: u32::from(u16_at(p, 3)).max(1),
            },
            _ => Delay::Table(
                p[6..6 + usize::from(p[5] % 8) + 1]
                    .iter()
                    .map(|&e| (e != 0xFF).then_some(u32::from(e)))
                    .collect(),
            ),
        };
        let result = match p[14] % 4 {
            0 => ResultModel::Zero,
            1 => ResultModel::Sequence,
            2 => ResultModel::Arg(p[15] % 10),
            _ => ResultModel::Table(
                (0..usize::from(p[15] % 4) + 1)
                    .map(|k| u32_at(p, 16 + 4 * k))
                    .collect(),
            ),
        };
        let deadline = u32_at(p, 32);
        let default_deadline = u32_at(p, 36);
        let cancel = u16_at(p, 40);
        let core_count = u16_at(p, 42);
        Params {
            delay,
            result,
            deadline_passes: (deadline != 0).then_some(u64::from(deadline)),
            default_deadline_passes: if default_deadline == 0 {
                1_000_000
            } else {
                u64::from(default_deadline)
            },
            cancel_pass: (cancel != 0).then(|| u64::from(cancel - 1) % 1024),
            core_count: if core_count == 0 {
                119
            } else {
                u32::from(core_count)
            },
            ticks_per_pass: u32_at(p, 44),
            max_passes: u64::from(u16_at(p, 48)) % MAX_RAW_PASSES + 1,
            turn_budget: u32::from(u16_at(p, 50)) % MAX_RAW_BUDGET + 1,
            region_size: u64::from(u32_at(p, 52)),
        }
    }

    /// The prefix closest to `params`: what the layout cannot hold is
    /// clamped (max_passes and turn_budget to their caps, a delay table to
    /// eight entries of at most 254, a result table to four entries, a
    /// custom model to the default, a cancel pass to 1,023).
    pub fn encode(params: &Params) -> SimPrefix {
        let mut p = [0u8; SIM_PREFIX];
        match &params.delay {
            Delay::Fixed(d) => put32(&mut p, 1, *d),
            Delay::Never => p[0] = 1,
            Delay::Cycle { base, modulo } => {
                p[0] = 2;
                put16(&mut p, 1, (*base).min(0xFFFF) as u16);
                put16(&mut p, 3, (*modulo).clamp(1, 0xFFFF) as u16);
            }
            Delay::Table(t) if !t.is_empty() => {
                p[0] = 3;
                let n = t.len().min(8);
                p[5] = (n - 1) as u8;
                for (k, e) in t.iter().take(n).enumerate() {
                    p[6 + k] = e.map_or(0xFF, |d| d.min(254) as u8);
                }
            }
            Delay::Table(_) | Delay::Custom(_) => {}
        }
        match &params.result {
            ResultModel::Zero | ResultModel::Custom(_) => {}
            ResultModel::Sequence => p[14] = 1,
            ResultModel::Arg(k) => {
                p[14] = 2;
                p[15] = *k % 10;
            }
            ResultModel::Table(t) if !t.is_empty() => {
                p[14] = 3;
                let n = t.len().min(4);
                p[15] = (n - 1) as u8;
                for (k, &v) in t.iter().take(n).enumerate() {
                    put32(&mut p, 16 + 4 * k, v);
                }
            }
            ResultModel::Table(_) => {}
        }
        let clamp32 = |v: u64| v.min(u64::from(u32::MAX)) as u32;
        put32(&mut p, 32, params.deadline_passes.map_or(0, clamp32));
        put32(
            &mut p,
            36,
            match params.default_deadline_passes {
                1_000_000 => 0,
                d => clamp32(d),
            },
        );
        put16(
            &mut p,
            40,
            params.cancel_pass.map_or(0, |c| c.min(1023) as u16 + 1),
        );
        put16(
            &mut p,
            42,
            match params.core_count {
                119 => 0,
                c => c.min(0xFFFF) as u16,
            },
        );
        put32(&mut p, 44, params.ticks_per_pass);
        put16(
            &mut p,
            48,
            (params.max_passes.clamp(1, MAX_RAW_PASSES) - 1) as u16,
        );
        put16(
            &mut p,
            50,
            (params.turn_budget.clamp(1, MAX_RAW_BUDGET) - 1) as u16,
        );
        put32(&mut p, 52, clamp32(params.region_size));
        SimPrefix(p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_prefix_decodes_into_valid_params() {
        // S25: whatever the bytes, the decoded parameters are in range.
        for fill in [0u8, 0x01, 0x7F, 0xFE, 0xFF] {
            let params = SimPrefix([fill; SIM_PREFIX]).params();
            assert!(params.validate().is_ok(), "fill {fill:#x}: {params:?}");
            assert!((1..=MAX_RAW_PASSES).contains(&params.max_passes));
            assert!((1..=MAX_RAW_BUDGET).contains(&params.turn_budget));
        }
    }

    #[test]
    fn all_zero_prefix_is_the_default_run_but_short() {
        // Byte 0 = 0: fixed delay of the u32 at 1..5 = 0; result zero;
        // deadline and cancel not given; 0 stands for 1,000,000 and core_count 119;
        // max_passes 0 % 256 + 1 = 1; turn_budget 1; region 0.
        let p = SimPrefix([0; SIM_PREFIX]).params();
        let want = Params {
            max_passes: 1,
            turn_budget: 1,
            region_size: 0,
            ticks_per_pass: 0,
            ..Params::default()
        };
        assert_eq!(p, want);
    }

    #[test]
    fn representable_params_round_trip() {
        let params = Params {
            delay: Delay::Table(vec![Some(2), None, Some(0)]),
            result: ResultModel::Table(vec![7, 8, 9]),
            deadline_passes: Some(5),
            default_deadline_passes: 3,
            cancel_pass: Some(2),
            core_count: 16,
            ticks_per_pass: 7,
            max_passes: 200,
            region_size: 2 << 20,
            turn_budget: 64,
        };
        assert_eq!(SimPrefix::encode(&params).params(), params);
        let cycle = Params {
            delay: Delay::Cycle { base: 3, modulo: 4 },
            result: ResultModel::Arg(9),
            ..Params::default()
        };
        // Only max_passes is clamped (1,000,000 > 256).
        let back = SimPrefix::encode(&cycle).params();
        assert_eq!(back.max_passes, MAX_RAW_PASSES);
        assert_eq!(
            back,
            Params {
                max_passes: MAX_RAW_PASSES,
                ..cycle
            }
        );
    }

    #[test]
    fn check_prefix_modes() {
        let upload = [0u8; 128];
        // Mode 1 with d = 1: region 128 - 64 = 64; offset mode 3: region - length saturates to 0.
        let mut p = [0u8; CHECK_PREFIX];
        p[0] = 1;
        p[1] = 1;
        p[2] = 3;
        let p = CheckPrefix(p);
        assert_eq!(p.region_size(&upload), 64);
        assert_eq!(p.run_args(&upload).offset, 0);
        // A prefix built for a run gives that run back.
        let args = RunArgs {
            offset: 64,
            region_size: 192,
            active: vec![(0, 64), (128, 0)],
            active_reqs: vec![9],
        };
        assert_eq!(CheckPrefix::for_run(&args).run_args(&upload), args);
    }

    #[test]
    fn check_prefix_reaches_the_u64_edges() {
        let mut upload = [0u8; 128];
        upload[24..28].copy_from_slice(&0x0102_0304u32.to_le_bytes()); // the header's req
        // Region mode 6, d = 0: 2^64 - 1. Offset mode 6, e = 1: the last
        // multiple of 64 below 2^64 (0xFFFF_FFFF_FFFF_FFC0), less 64.
        let mut p = [0u8; CHECK_PREFIX];
        p[0] = 6;
        p[2] = 6;
        p[3] = 1;
        // Four ranges, one per mode; raw (start, length) = (2^64 - 64, 5) each.
        p[20] = 4;
        p[40..44].copy_from_slice(&[0, 1, 2, 3]);
        for k in 0..4 {
            put64(&mut p, 48 + 16 * k, u64::MAX - 63);
            put64(&mut p, 56 + 16 * k, 5);
        }
        // Two reqs of the four, and the upload's own.
        p[21] = 2;
        p[22] = 1;
        put32(&mut p, 24, 7);
        put32(&mut p, 28, u32::MAX);
        let args = CheckPrefix(p).run_args(&upload);
        let offset = 0xFFFF_FFFF_FFFF_FF80;
        assert_eq!(args.region_size, u64::MAX);
        assert_eq!(args.offset, offset);
        assert_eq!(
            args.active,
            vec![
                (u64::MAX - 63, 5),
                // mode 1: offset + (2^64 - 64) wraps to offset - 64.
                (offset - 64, 5),
                // mode 2: length 2^64 - 1 - 5.
                (u64::MAX - 63, u64::MAX - 5),
                // mode 3: start 2^64 - 1 - (2^64 - 64) = 63.
                (63, 5),
            ]
        );
        assert_eq!(args.active_reqs, vec![7, u32::MAX, 0x0102_0304]);
        // Offset mode 5, e = 3: 2^64 - 4; mode 7, e = 2: region - 128.
        p[2] = 5;
        p[3] = 3;
        assert_eq!(CheckPrefix(p).run_args(&upload).offset, u64::MAX - 3);
        p[2] = 7;
        p[3] = 2;
        assert_eq!(CheckPrefix(p).run_args(&upload).offset, u64::MAX - 128);
        // Any run with at most seven ranges and four reqs is held exactly.
        let args = RunArgs {
            offset: u64::MAX - 63,
            region_size: u64::MAX,
            active: (0..7).map(|k| (u64::MAX - k, u64::MAX - 2 * k)).collect(),
            active_reqs: vec![1, 2, 3, u32::MAX],
        };
        assert_eq!(CheckPrefix::for_run(&args).run_args(&upload), args);
    }
}

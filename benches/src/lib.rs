//! What the dispatch benchmarks share: the workloads of `kmst compare`
//! ([`kmst_harness::compare::BUNDLED`]), so that criterion, gungraun and
//! `kmst compare` measure the same streams with the same parameters.
//!
//! [`Kmst`] and [`micro_ops`] are all that the peer benchmarks (`peers/`:
//! wasmi and native Rust on the same loops) use of kmst, so that they follow
//! kmst's API in one place.
#![forbid(unsafe_code)]

use kmst::exec::{Dispatch, simulate};
use kmst_harness::compare::{self, Workload};

/// The bundled workload `name`, assembled; panics on an unknown name or a
/// source that does not assemble (a defect of the bench itself).
pub fn workload(name: &str) -> Workload {
    let (_, source) = compare::BUNDLED
        .iter()
        .find(|(n, _)| *n == name)
        .unwrap_or_else(|| panic!("no bundled workload `{name}`"));
    Workload::from_source(name, source).unwrap_or_else(|e| panic!("{e}"))
}

/// Every bundled stream workload, in report order (the bundled scenarios
/// are `kmst compare`'s only).
pub fn workloads() -> Vec<Workload> {
    let all = compare::bundled().unwrap_or_else(|e| panic!("{e}"));
    all.into_iter().filter(|w| w.scenario.is_none()).collect()
}

/// One kmst dispatch variant on one bundled workload, ready to run.
pub struct Kmst {
    workload: Workload,
    dispatch: Dispatch,
}

impl Kmst {
    /// The names of kmst's own dispatch variants compiled into this build
    /// (the reference model left out), default first.
    pub fn variants() -> Vec<&'static str> {
        Dispatch::ALL.iter().map(|d| d.name()).collect()
    }

    /// `variant` (a name of [`Kmst::variants`]) on bundled workload
    /// `workload`; panics on an unknown name.
    pub fn new(workload: &str, variant: &str) -> Self {
        let dispatch = variant.parse().unwrap_or_else(|e| panic!("{e}"));
        Kmst {
            workload: self::workload(workload),
            dispatch,
        }
    }

    /// One whole run (check, pre-decode, simulate); the halt value, `None`
    /// when the stream did not end with HALT.
    pub fn run(&self) -> Option<u32> {
        let upload = std::hint::black_box(&self.workload.upload);
        simulate(upload, &self.workload.params, self.dispatch).halt
    }
}

/// The micro-ops one run of bundled workload `name` executes (counted in an
/// untimed run): the unit of work of every per-micro-op figure.
pub fn micro_ops(name: &str) -> u64 {
    compare::count_ops(&workload(name))
}

/// The sizes of the load benches (`decode`, `decode_iai`): the smallest
/// programs, a thousand micro-ops, and the format's limit.
pub const LOAD_SIZES: [usize; 3] = [16, 1_000, 65_535];

/// A straight-line upload of `n` micro-ops (1 to 65,535): `n - 1` times
/// `addi r0, r0, 1`, then `halt r0`, each run once. What a first answer
/// costs before its first micro-op (the check, the decode) grows with
/// `n`; the run itself is one pass over it (issue 43, decisions.md D35,
/// D36).
pub fn straight_upload(n: usize) -> Vec<u8> {
    use kmst::format::{Header, MicroOp, Upload};
    use kmst::ops::Opcode;
    assert!((1..=65_535).contains(&n), "{n} micro-ops");
    let mut ops = vec![MicroOp::new(Opcode::Addi, 0, 0, 0, 1); n - 1];
    ops.push(MicroOp::new(Opcode::Halt, 0, 0, 0, 0));
    let header = Header {
        max_steps: n as u32,
        deadline_us: 0,
        req: 1,
        seed: 1,
    };
    Upload {
        header,
        ops,
        templates: vec![],
    }
    .encode()
}

/// The parameters a [`straight_upload`] runs with: the defaults, in a
/// region that holds the largest (65,535 micro-ops are 1 MiB and 64 bytes).
pub fn straight_params() -> kmst::types::Params {
    kmst::types::Params {
        region_size: 2 << 20,
        ..kmst::types::Params::default()
    }
}

/// The median of `xs`: the middle one, or the mean of the middle two.
pub fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    let n = xs.len();
    if n % 2 == 1 {
        xs[n / 2]
    } else {
        (xs[n / 2 - 1] + xs[n / 2]) / 2.0
    }
}

/// An example's first argument, its number of rounds: `default` when it
/// is absent; `None`, with `usage` printed, when it is not a number of at
/// least 1.
pub fn rounds_arg(default: usize, usage: &str) -> Option<usize> {
    match std::env::args().nth(1).map(|s| s.parse()) {
        None => Some(default),
        Some(Ok(n)) if n >= 1 => Some(n),
        _ => {
            eprintln!("{usage}");
            None
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_straight_upload_halts_with_its_count_of_addis() {
        // n - 1 ADDIs add 1 each to r0 (0 at the start), then HALT r0.
        for n in super::LOAD_SIZES {
            let upload = super::straight_upload(n);
            assert_eq!(upload.len(), 64 + (16 * n).div_ceil(64) * 64);
            let answer = kmst::exec::simulate(
                &upload,
                &super::straight_params(),
                kmst::exec::Dispatch::Tail,
            );
            assert_eq!(answer.halt, Some(n as u32 - 1), "{n}");
        }
    }

    #[test]
    fn every_bundled_workload_loads() {
        for (name, _) in kmst_harness::compare::BUNDLED {
            assert_eq!(super::workload(name).name, name);
        }
    }

    #[test]
    fn every_kmst_variant_halts_alu_with_its_sum() {
        // alu.kms: r4 += r1 for r1 = 100, 99, ..., 1 in each of 1,107 outer
        // rounds: 1,107 x 5,050 = 5,590,350. Micro-ops (its header): 3 SETs,
        // 1,107 x (SET + 100 x 9 + ADDI + JLT) = 1,107 x 903, and the HALT.
        for variant in super::Kmst::variants() {
            assert_eq!(super::Kmst::new("alu", variant).run(), Some(5_590_350));
        }
        assert_eq!(super::micro_ops("alu"), 3 + 1_107 * 903 + 1);
    }
}

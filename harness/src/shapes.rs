//! Programs of any size up to the format's limit in the shapes that stress
//! a compiler (docs/dispatch.md, "The compiled tier at every size"): the
//! size sweep of the tests, the benchmarks and the `sizes` fuzz target
//! build their uploads here, so that all three judge the same programs.
//!
//! Every shape has exactly `n` micro-ops (at least [`Shape::MIN`]), ends with
//! HALT, and runs to it well inside its `max_steps`; [`params`] lets the
//! check take an upload of 65,535 micro-ops (1 MiB, the default region, is
//! 65,532).

use kmst::format::{Header, MicroOp, Upload};
use kmst::ops::Opcode::{self, *};
use kmst::types::Params;

/// A program's shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Shape {
    /// `n - 1` ADDI r0 += 1, then HALT: one long run of straight blocks.
    Straight,
    /// SET r1 = 1, then JNZ r1 to the next micro-op `n - 2` times, then
    /// HALT: every micro-op a block of one and a jump's target.
    Targets,
    /// One loop of `n - 4` micro-ops run three times: the whole program
    /// one loop.
    Loop,
    /// Loops of seven micro-ops, each run three times, one after the other.
    Loops,
    /// TIME, ADD, EVENT, RESULT, ADDI over and over: every other micro-op
    /// reads or changes the kernel.
    Kernel,
}

impl Shape {
    /// Every shape.
    pub const ALL: [Shape; 5] = [
        Shape::Straight,
        Shape::Targets,
        Shape::Loop,
        Shape::Loops,
        Shape::Kernel,
    ];

    /// The fewest micro-ops a shape is built with.
    pub const MIN: usize = 16;

    /// The shape's name.
    pub fn name(self) -> &'static str {
        match self {
            Shape::Straight => "straight",
            Shape::Targets => "targets",
            Shape::Loop => "loop",
            Shape::Loops => "loops",
            Shape::Kernel => "kernel",
        }
    }

    /// The program of `n` micro-ops (`n` clamped to `MIN..=65,535`).
    pub fn upload(self, n: usize) -> Upload {
        let n = n.clamp(Shape::MIN, kmst::format::MAX_OPS);
        let op = |code: Opcode, a: u8, b: u8, c: u8, imm: u32| MicroOp {
            op: code as u8,
            a,
            b,
            c,
            imm,
        };
        let mut ops = Vec::with_capacity(n);
        match self {
            Shape::Straight => ops.extend((1..n).map(|_| op(Addi, 0, 0, 0, 1))),
            Shape::Targets => {
                ops.push(op(Set, 1, 0, 0, 1));
                ops.extend((1..n - 1).map(|pc| op(Jnz, 1, 0, 0, pc as u32 + 1)));
            }
            Shape::Loop => {
                ops.push(op(Set, 1, 0, 0, 3));
                ops.extend((1..n - 3).map(|i| {
                    let (a, b) = (3 + i % 8, 3 + (i + 1) % 8);
                    op(Addi, a as u8, b as u8, 0, i as u32)
                }));
                ops.push(op(Addi, 1, 1, 0, u32::MAX));
                ops.push(op(Jnz, 1, 0, 0, 1));
            }
            Shape::Loops => {
                while ops.len() + 8 < n {
                    let head = ops.len() as u32 + 1;
                    ops.push(op(Set, 1, 0, 0, 3));
                    ops.push(op(Addi, 2, 2, 0, 1));
                    ops.push(op(Mul, 3, 2, 2, 0));
                    ops.push(op(Add, 4, 4, 3, 0));
                    ops.push(op(And, 5, 4, 2, 0));
                    ops.push(op(Shr, 6, 5, 0, 1));
                    ops.push(op(Addi, 1, 1, 0, u32::MAX));
                    ops.push(op(Jnz, 1, 0, 0, head));
                }
                ops.resize(n - 1, op(Addi, 0, 0, 0, 1));
            }
            Shape::Kernel => {
                let cycle = [
                    op(Time, 1, 0, 0, 0),
                    op(Add, 2, 2, 1, 0),
                    op(Event, 2, 0, 0, 0),
                    op(ReadResult, 4, 0, 0, 0),
                    op(Addi, 3, 3, 0, 1),
                ];
                ops.extend(cycle.iter().cycle().take(n - 1));
            }
        }
        ops.push(op(Halt, 0, 0, 0, 0));
        debug_assert_eq!(ops.len(), n);
        Upload {
            header: Header {
                // The loop runs three times: at most 3n micro-ops anywhere.
                max_steps: 4 * n as u32,
                deadline_us: 0,
                req: 1,
                seed: 1,
            },
            ops,
            templates: vec![],
        }
    }
}

/// The parameters every shape runs with: the defaults, with a region that
/// takes an upload of 65,535 micro-ops and as many passes as its steps need.
pub fn params() -> Params {
    Params {
        region_size: 2 << 20,
        ..Params::default()
    }
}

named!(
    Shape,
    /// A name that is no shape's.
    UnknownShape,
    "unknown shape `{}` (one of {})"
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_shape_has_exactly_n_micro_ops_and_passes_the_check() {
        for shape in Shape::ALL {
            for n in [Shape::MIN, 100, 1_000, 65_535] {
                let upload = shape.upload(n);
                assert_eq!(upload.ops.len(), n, "{shape} {n}");
                let data = upload.encode();
                let checked = kmst::check::check(&data, params().region_size);
                assert_eq!(checked, Ok(()), "{shape} {n}");
            }
        }
    }

    #[test]
    fn names_round_trip() {
        for shape in Shape::ALL {
            assert_eq!(shape.name().parse::<Shape>(), Ok(shape));
        }
        assert!("square".parse::<Shape>().is_err());
    }
}

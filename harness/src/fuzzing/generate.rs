//! The generators of runs: seeded random programs and parameters for
//! differential testing.
//!
//! Everything is driven by [`arbitrary::Unstructured`], so the fuzz targets
//! and the randomized tests share one generator: [`case`] gives an upload and
//! the parameters of a short run. Uploads are valid by construction
//! (registers below 16, jump targets below op_count, template indexes below
//! command_count, in-range handlers, flags and patches) and runs are short
//! (small `max_steps` and `max_passes`), so loops always terminate. The
//! builders ([`op`], [`template`], [`upload`], [`job_example`]) also serve
//! hand-made tests; [`random_bytes`] expands a seed into the bytes a
//! generator reads, for seeded tests without a fuzzer.
//!
//! The bottom layer of `fuzzing`: the other generators (`edges`,
//! `scenario`), the targets and the seeds build on it, and it names none of
//! them.

use arbitrary::{Result, Unstructured};

use kmst::format::{Command, Header, MicroOp, NO_REGISTER, Template, Upload};
use kmst::ops::{ImmKind, Opcode};
use kmst_reference::{Delay, Params, ResultModel};

/// One generated run: the upload bytes and the parameters.
#[derive(Clone, Debug)]
pub struct Case {
    pub upload: Vec<u8>,
    pub params: Params,
}

/// A micro-op.
pub fn op(code: Opcode, a: u8, b: u8, c: u8, imm: u32) -> MicroOp {
    MicroOp {
        op: code as u8,
        a,
        b,
        c,
        imm,
    }
}

/// A template: `handler`, `flags`, a fixed group, integer `args` (the rest
/// 0) and `(argument, register)` patches; group registers 0xFF.
pub fn template(
    handler: u8,
    flags: u8,
    group: (u16, u16),
    args: &[u32],
    patches: &[(u8, u8)],
) -> Template {
    let mut t = Template {
        command: Command {
            handler,
            flags,
            first: group.0,
            count: group.1,
            args: [0; 10],
        },
        first_register: NO_REGISTER,
        count_register: NO_REGISTER,
        patch_count: patches.len() as u8,
        ..Template::default()
    };
    t.command.args[..args.len()].copy_from_slice(args);
    for (k, &(arg, reg)) in patches.iter().enumerate() {
        t.patch_arg[k] = arg;
        t.patch_reg[k] = reg;
    }
    t
}

/// An upload with this header and body.
pub fn upload(
    max_steps: u32,
    deadline_us: u32,
    seed: u32,
    req: u32,
    ops: Vec<MicroOp>,
    templates: Vec<Template>,
) -> Upload {
    Upload {
        header: Header {
            max_steps,
            deadline_us,
            req,
            seed,
        },
        ops,
        templates,
    }
}

/// The 1,000-job example of docs/spec.md "The builder", as its builder
/// emits it: job = r0, count = r1 (S7); the constants 119, 1000 and 0 in r2,
/// r3, r4 as a SET prologue (S8); one template (S9): handler 3, args
/// [job, 77] with arg 0 patched from r0.
pub fn job_example() -> Upload {
    use Opcode::*;
    let ops = vec![
        op(Set, 2, 0, 0, 119),
        op(Set, 3, 0, 0, 1000),
        op(Set, 4, 0, 0, 0),
        op(Rand, 1, 0, 0, 0), // top = 3
        op(Mod, 1, 1, 2, 0),
        op(Addi, 1, 1, 0, 1),
        op(Enqueue, 1, 0, 0, 0),
        op(Addi, 0, 0, 0, 1),
        op(Jlt, 0, 3, 0, 3),
        op(Wait, 0, 0, 0, 0),
        op(Halt, 4, 0, 0, 0),
    ];
    upload(
        100_000,
        200_000,
        1,
        1,
        ops,
        vec![template(3, 0, (0, 0), &[0, 77], &[(0, 0)])],
    )
}

fn register(u: &mut Unstructured) -> Result<u8> {
    // Mostly the low registers so values flow between micro-ops; r15 sometimes.
    Ok(if u.ratio(1, 10)? {
        15
    } else {
        u.int_in_range(0..=5)?
    })
}

fn small_value(u: &mut Unstructured) -> Result<u32> {
    Ok(match u.int_in_range(0..=9)? {
        0 => u.arbitrary()?,
        1 => u32::MAX - u.int_in_range(0..=3)?,
        2..=4 => u.int_in_range(0..=3)?,
        _ => u.int_in_range(0..=140)?,
    })
}

/// A valid template for a grid of `core_count` cores (sometimes a group that
/// leaves it, for `Reason::BadGroup`).
pub fn arbitrary_template(u: &mut Unstructured, core_count: u32) -> Result<Template> {
    let handler = u.int_in_range(1..=239)?;
    let flags = *u.choose(&[0u8, 0, 0, 2, 4, 6])?;
    let cc = core_count.min(u32::from(u16::MAX)) as u16;
    let count = if u.ratio(1, 12)? {
        0
    } else {
        u.int_in_range(1..=cc.saturating_add(1))?
    };
    let first = u.int_in_range(0..=cc)?;
    let mut args = [0u32; 10];
    for a in args.iter_mut() {
        if u.ratio(1, 3)? {
            *a = u.arbitrary()?;
        }
    }
    let patch_count = u.int_in_range(0..=4)?;
    let mut patches = Vec::new();
    for _ in 0..patch_count {
        patches.push((u.int_in_range(0..=9)?, register(u)?));
    }
    let mut t = template(handler, flags, (first, count), &args, &patches);
    // Often both group fields from registers (SUBMIT's `group` variant
    // when the template is not exclusive), else each now and then.
    if u.ratio(1, 4)? {
        t.first_register = register(u)?;
        t.count_register = register(u)?;
    } else {
        if u.ratio(1, 4)? {
            t.first_register = register(u)?;
        }
        if u.ratio(1, 4)? {
            t.count_register = register(u)?;
        }
    }
    // Ignored bytes: patch entries past patch_count may hold anything.
    for k in usize::from(t.patch_count)..4 {
        t.patch_arg[k] = u.arbitrary()?;
        t.patch_reg[k] = u.arbitrary()?;
    }
    Ok(t)
}

/// A valid program of 1..=`max_ops` micro-ops with 1..=3 templates.
pub fn arbitrary_upload(u: &mut Unstructured, max_ops: usize, core_count: u32) -> Result<Upload> {
    let op_count = u.int_in_range(1..=max_ops.max(1))?;
    let command_count = u.int_in_range(1..=3)?;
    let mut ops = Vec::with_capacity(op_count);
    // Usually a prologue gives r1..r4 small non-zero values, so ENQUEUE
    // counts and register groups are often valid.
    let prologue = if u.ratio(3, 4)? {
        u.int_in_range(0..=4)?.min(op_count - 1)
    } else {
        0
    };
    for r in 0..prologue {
        ops.push(op(Opcode::Set, r as u8 + 1, 0, 0, u.int_in_range(1..=24)?));
    }
    for pc in prologue..op_count {
        let code = *u.choose(Opcode::ALL)?;
        let mut m = op(code, 0, 0, 0, 0);
        let (mut a, b, c) = (register(u)?, register(u)?, register(u)?);
        if code == Opcode::Enqueue && u.ratio(3, 4)? {
            a = u.int_in_range(1..=4)?; // the prologue's registers
        }
        // Fields the micro-op does not read are ignored (S4): fill them anyhow.
        let junk: [u8; 3] = u.arbitrary()?;
        m.a = junk[0];
        m.b = junk[1];
        m.c = junk[2];
        for field in code.regs() {
            match field {
                kmst::ops::RegField::A => m.a = a,
                kmst::ops::RegField::B => m.b = b,
                kmst::ops::RegField::C => m.c = c,
            }
        }
        m.imm = match code.imm_kind() {
            ImmKind::Target => {
                // Mostly backward or short forward jumps.
                if u.ratio(2, 3)? {
                    u.int_in_range(0..=pc as u32)?
                } else {
                    u.int_in_range(0..=op_count as u32 - 1)?
                }
            }
            ImmKind::Template => u.int_in_range(0..=command_count as u32 - 1)?,
            ImmKind::Value if code == Opcode::Wait => u.int_in_range(0..=3)?,
            ImmKind::Value => small_value(u)?,
            ImmKind::None => u.arbitrary()?,
        };
        ops.push(m);
    }
    // Most programs end in a HALT so that some runs end "ended".
    if u.ratio(2, 3)? {
        let last = ops.len() - 1;
        ops[last] = op(Opcode::Halt, register(u)?, 0, 0, 0);
    }
    let mut templates = Vec::with_capacity(command_count);
    for _ in 0..command_count {
        templates.push(arbitrary_template(u, core_count)?);
    }
    let max_steps = u.int_in_range(1..=400)?;
    let deadline_us = if u.ratio(1, 2)? {
        0
    } else {
        u.int_in_range(1..=60)?
    };
    let seed = u.int_in_range(1..=u32::MAX)?;
    let req = u.arbitrary()?;
    Ok(upload(max_steps, deadline_us, seed, req, ops, templates))
}

/// A job loop in the shape of the 1,000-job example: `jobs` rounds of
/// random-sized ENQUEUEs (or SUBMITs), some exclusive, then WAIT and HALT.
/// Exercises the queue, the allocator and the slots.
pub fn arbitrary_job_loop(u: &mut Unstructured, core_count: u32) -> Result<Upload> {
    use Opcode::*;
    let jobs = u.int_in_range(1..=120)?;
    let modulo = u.int_in_range(1..=core_count.max(1))?;
    let mut ops = vec![
        op(Set, 2, 0, 0, modulo),
        op(Set, 3, 0, 0, jobs),
        op(Set, 4, 0, 0, u.int_in_range(0..=3)?),
        op(Rand, 1, 0, 0, 0), // top = 3
        op(Mod, 1, 1, 2, 0),
        op(Addi, 1, 1, 0, 1),
    ];
    let command_count = u.int_in_range(1..=3)?;
    for _ in 0..u.int_in_range(1..=3)? {
        let t = u.int_in_range(0..=command_count as u32 - 1)?;
        ops.push(if u.ratio(3, 4)? {
            op(Enqueue, 1, 0, 0, t)
        } else {
            op(Submit, 0, 0, 0, t)
        });
    }
    if u.ratio(1, 3)? {
        ops.push(op(Wait, 0, 0, 0, u.int_in_range(0..=20)?));
    }
    ops.push(op(Addi, 0, 0, 0, 1));
    ops.push(op(Jlt, 0, 3, 0, 3));
    ops.push(op(Wait, 0, 0, 0, u.int_in_range(0..=2)?));
    ops.push(op(Halt, 4, 0, 0, 0));
    let mut templates = Vec::with_capacity(command_count);
    for _ in 0..command_count {
        let mut t = arbitrary_template(u, core_count)?;
        if u.ratio(1, 2)? {
            // A SUBMIT of this template takes r1 cores at 0 (often overlapping).
            t.count_register = 1;
            t.first_register = NO_REGISTER;
            t.command.first = 0;
        }
        templates.push(t);
    }
    let max_steps = u.int_in_range(1..=5_000)?;
    let deadline_us = if u.ratio(2, 3)? {
        0
    } else {
        u.int_in_range(1..=80)?
    };
    let seed = u.int_in_range(1..=u32::MAX)?;
    Ok(upload(
        max_steps,
        deadline_us,
        seed,
        u.arbitrary()?,
        ops,
        templates,
    ))
}

/// A delay model with small delays.
pub fn arbitrary_delay(u: &mut Unstructured) -> Result<Delay> {
    Ok(match u.int_in_range(0..=5)? {
        0 => Delay::Fixed(0),
        1 => Delay::Fixed(u.int_in_range(0..=30)?),
        2 => Delay::Never,
        3 => Delay::Cycle {
            base: u.int_in_range(0..=5)?,
            modulo: u.int_in_range(1..=5)?,
        },
        _ => {
            let n = u.int_in_range(1..=5)?;
            let mut t = Vec::with_capacity(n);
            for _ in 0..n {
                t.push(if u.ratio(1, 6)? {
                    None
                } else {
                    Some(u.int_in_range(0..=12)?)
                });
            }
            Delay::Table(t)
        }
    })
}

/// A result model.
pub fn arbitrary_result(u: &mut Unstructured) -> Result<ResultModel> {
    Ok(match u.int_in_range(0..=3)? {
        0 => ResultModel::Zero,
        1 => ResultModel::Sequence,
        2 => ResultModel::Arg(u.int_in_range(0..=9)?),
        _ => {
            let n = u.int_in_range(1..=4)?;
            let mut t = Vec::with_capacity(n);
            for _ in 0..n {
                t.push(u.arbitrary()?);
            }
            ResultModel::Table(t)
        }
    })
}

/// Parameters of a short run (small max_passes, small deadlines sometimes).
pub fn arbitrary_params(u: &mut Unstructured) -> Result<Params> {
    Ok(Params {
        delay: arbitrary_delay(u)?,
        result: arbitrary_result(u)?,
        deadline_passes: if u.ratio(1, 3)? {
            Some(u.int_in_range(1..=40)?)
        } else {
            None
        },
        default_deadline_passes: if u.ratio(1, 2)? {
            u.int_in_range(1..=60)?
        } else {
            1_000_000
        },
        cancel_pass: if u.ratio(1, 4)? {
            Some(u.int_in_range(0..=60)?)
        } else {
            None
        },
        core_count: *u.choose(&[1u32, 2, 8, 16, 119, 119, 119, 130])?,
        ticks_per_pass: if u.ratio(1, 2)? {
            1_000
        } else {
            u.arbitrary()?
        },
        max_passes: if u.ratio(1, 8)? {
            u.int_in_range(1..=2_000)?
        } else {
            u.int_in_range(1..=150)?
        },
        region_size: 1 << 20,
        turn_budget: *u.choose(&[1u32, 2, 3, 5, 8, 63, 64, 64])?,
    })
}

/// One generated run.
pub fn case(u: &mut Unstructured) -> Result<Case> {
    let params = arbitrary_params(u)?;
    let upload = if u.ratio(1, 4)? {
        arbitrary_job_loop(u, params.core_count)?
    } else {
        arbitrary_upload(u, 24, params.core_count)?
    };
    Ok(Case {
        upload: upload.encode(),
        params,
    })
}

/// Parameters outside their S25 ranges, which the library still accepts:
/// turn_budget 0, max_passes 0, deadline_passes 0, core_count 0 or near
/// 2^32, a cycle
/// of modulo 0, empty tables, `arg(k)` with k > 9.
pub fn out_of_range_params(u: &mut Unstructured) -> Result<Params> {
    let mut p = arbitrary_params(u)?;
    match u.int_in_range(0..=8)? {
        8 => p.core_count = u32::MAX - u.int_in_range(0..=1)?,
        0 => p.turn_budget = 0,
        1 => p.max_passes = 0,
        2 => p.deadline_passes = Some(0),
        3 => p.core_count = 0,
        4 => {
            p.delay = Delay::Cycle {
                base: u.arbitrary()?,
                modulo: 0,
            }
        }
        5 => p.delay = Delay::Table(Vec::new()),
        6 => p.result = ResultModel::Table(Vec::new()),
        _ => p.result = ResultModel::Arg(u.int_in_range(10..=255)?),
    }
    Ok(p)
}

/// A run that may also be faulty: sometimes an upload with one byte changed
/// or cut short (so the check may reject it), sometimes parameters outside
/// their ranges. For differential tests of the whole pipeline.
pub fn any_case(u: &mut Unstructured) -> Result<Case> {
    let mut c = case(u)?;
    if u.ratio(1, 5)? {
        let at = u.choose_index(c.upload.len())?;
        c.upload[at] = u.arbitrary()?;
    }
    if u.ratio(1, 20)? {
        let len = u.int_in_range(0..=c.upload.len())?;
        c.upload.truncate(len);
    }
    if u.ratio(1, 10)? {
        c.params = out_of_range_params(u)?;
    }
    Ok(c)
}

/// Pseudo-random bytes from `seed` (xorshift64), reproducible everywhere.
pub fn random_bytes(seed: u64, len: usize) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}

/// The bytes a seed expands to (a small xorshift), for seeded tests without a fuzzer.
pub(super) fn seed_bytes(seed: u64) -> Vec<u8> {
    random_bytes(seed, 4096)
}

/// [`any_case`] for a seed.
pub fn any_case_from_seed(seed: u64) -> Case {
    let bytes = seed_bytes(seed);
    any_case(&mut Unstructured::new(&bytes)).unwrap_or_else(|_| case_from_seed(seed))
}

/// The valid case for a seed: a small xorshift expands the seed into the
/// bytes the generator reads (for seeded tests without a fuzzer).
pub fn case_from_seed(seed: u64) -> Case {
    let bytes = seed_bytes(seed);
    let mut u = Unstructured::new(&bytes);
    // The generator cannot fail on 4 KiB (it reads far less); if it ever did,
    // the default parameters and a one-HALT program stand in.
    case(&mut u).unwrap_or_else(|_| Case {
        upload: upload(1, 0, 1, 0, vec![op(Opcode::Halt, 0, 0, 0, 0)], vec![]).encode(),
        params: Params::default(),
    })
}

//! S10 as properties: `decode(encode(u)) == u` and `encode(decode(d)) == d`,
//! and `assemble(disassemble(d)) == d`, over arbitrary valid uploads generated
//! directly (in-range fields, ignored bytes zero).

use kmst::asm::{assemble, disassemble};
use kmst::builder::{Operand, Reg, template};
use kmst::check::{CheckedUpload, check};
use kmst::format::{Command, Header, MicroOp, Template, Upload};
use kmst::ops::{ImmKind, Opcode, RegField};
use proptest::prelude::*;

fn header() -> impl Strategy<Value = Header> {
    (1..=u32::MAX, any::<u32>(), any::<u32>(), 1..=u32::MAX).prop_map(
        |(max_steps, deadline_us, req, seed)| Header {
            max_steps,
            deadline_us,
            req,
            seed,
        },
    )
}

/// A valid micro-op for `op_count` ops and `command_count` templates. Unused
/// operand fields get arbitrary values when `junk` (MicroOp keeps them).
fn micro_op(op_count: u32, command_count: u32, junk: bool) -> impl Strategy<Value = MicroOp> {
    let ops: Vec<Opcode> = Opcode::ALL
        .iter()
        .copied()
        .filter(|o| command_count > 0 || o.imm_kind() != ImmKind::Template)
        .collect();
    (
        proptest::sample::select(ops),
        any::<[u8; 3]>(),
        any::<[u8; 3]>(),
        any::<u32>(),
    )
        .prop_map(move |(opcode, regs, extra, imm)| {
            let mut op = MicroOp::new(opcode, 0, 0, 0, 0);
            let fields = [RegField::A, RegField::B, RegField::C];
            let slots = [&mut op.a, &mut op.b, &mut op.c];
            for (i, slot) in slots.into_iter().enumerate() {
                if opcode.regs().contains(&fields[i]) {
                    *slot = regs[i] % 16;
                } else if junk {
                    *slot = extra[i];
                }
            }
            op.imm = match opcode.imm_kind() {
                ImmKind::Target => imm % op_count,
                ImmKind::Template => imm % command_count,
                ImmKind::Value => imm,
                ImmKind::None if junk => imm,
                ImmKind::None => 0,
            };
            op
        })
}

/// A valid template; entries past patch_count are left zero (ignored bytes).
fn raw_template() -> impl Strategy<Value = Template> {
    (
        1..=239u8,
        proptest::sample::select(vec![0u8, 2, 4, 6]),
        any::<(u16, u16)>(),
        any::<[u32; 10]>(),
        0..=4u8,
        any::<[(u8, u8); 4]>(),
        any::<(u8, u8)>(),
    )
        .prop_map(
            |(handler, flags, (first, count), args, patch_count, entries, (f, c))| {
                let mut t = Template {
                    command: Command {
                        handler,
                        flags,
                        first,
                        count,
                        args,
                    },
                    patch_count,
                    first_register: if f < 128 { f % 16 } else { 0xFF },
                    count_register: if c < 128 { c % 16 } else { 0xFF },
                    ..Template::default()
                };
                let live = entries.iter().take(usize::from(patch_count));
                for (k, &(arg, reg)) in live.enumerate() {
                    t.patch_arg[k] = arg % 10;
                    t.patch_reg[k] = reg % 16;
                }
                t
            },
        )
}

prop_compose! {
    fn any_upload(junk: bool)(op_count in 1..48u32, command_count in 0..6u32)
        (header in header(),
         ops in proptest::collection::vec(micro_op(op_count, command_count, junk), op_count as usize),
         templates in proptest::collection::vec(raw_template(), command_count as usize))
        -> Upload {
        Upload { header, ops, templates }
    }
}

/// A builder-shaped upload: template k is used by the k-th SUBMIT/ENQUEUE and
/// made by `template` (so the disassembler prints it inline).
fn operand() -> impl Strategy<Value = Operand> {
    prop_oneof![
        any::<u32>().prop_map(|v| Operand::Int(v.into())),
        (0..16u8).prop_map(|r| Operand::Reg(Reg::new(r).unwrap())),
    ]
}

fn inline_job() -> impl Strategy<Value = (bool, Template, u8)> {
    (
        any::<bool>(),
        1..=239i64,
        (operand(), operand()),
        proptest::collection::vec(operand(), 0..=10),
        any::<(bool, bool)>(),
        0..16u8,
    )
        .prop_filter_map(
            "at most four registers",
            |(submit, h, (f, c), args, (e, r), a)| {
                let group = submit.then(|| {
                    let narrow = |o: Operand| match o {
                        Operand::Int(v) => Operand::Int(v & 0xFFFF),
                        reg => reg,
                    };
                    (narrow(f), narrow(c))
                });
                template(h, group, &args, e, r).ok().map(|t| (submit, t, a))
            },
        )
}

prop_compose! {
    fn inline_upload()(upload in any_upload(false),
                       jobs in proptest::collection::vec(inline_job(), 0..6),
                       at in proptest::collection::vec(any::<proptest::sample::Index>(), 6))
        -> Upload {
        let mut u = upload;
        // Replace every template micro-op by a plain one, then insert the jobs in order.
        for op in &mut u.ops {
            if op.opcode().unwrap().imm_kind() == ImmKind::Template {
                *op = MicroOp::new(Opcode::Rand, op.a, 0, 0, 0);
            }
        }
        u.templates.clear();
        let mut positions: Vec<usize> = at.iter().take(jobs.len()).map(|i| i.index(u.ops.len())).collect();
        positions.sort();
        for (k, ((submit, t, a), pos)) in jobs.into_iter().zip(positions).enumerate() {
            let opcode = if submit { Opcode::Submit } else { Opcode::Enqueue };
            let a = if submit { 0 } else { a };
            u.ops[pos] = MicroOp::new(opcode, a, 0, 0, k as u32);
            u.templates.push(t);
        }
        // Positions may coincide: keep only templates some op still uses, renumbered in order.
        let mut next = 0u32;
        let mut keep = Vec::new();
        for op in &mut u.ops {
            if op.opcode().unwrap().imm_kind() == ImmKind::Template {
                keep.push(u.templates[op.imm as usize]);
                op.imm = next;
                next += 1;
            }
        }
        u.templates = keep;
        u
    }
}

fn round_trips(u: &Upload) -> Result<(), TestCaseError> {
    let bytes = u.encode();
    prop_assert_eq!(check(&bytes, bytes.len() as u64), Ok(()));
    prop_assert_eq!(&Upload::decode(&bytes).unwrap(), u);
    prop_assert_eq!(Upload::decode(&bytes).unwrap().encode(), bytes.clone());
    let c = CheckedUpload::new(&bytes, bytes.len() as u64).unwrap();
    prop_assert_eq!(c.op_count() as usize, u.ops.len());
    let text = disassemble(&bytes);
    prop_assert!(!text.contains(".op") && !text.contains(".size"), "{}", text);
    let again = assemble(&text).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
    prop_assert_eq!(again, bytes, "{}", text);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn valid_uploads_round_trip(u in any_upload(false)) {
        round_trips(&u)?;
    }

    #[test]
    fn unused_operand_fields_survive(u in any_upload(true)) {
        round_trips(&u)?;
    }

    #[test]
    fn builder_shaped_uploads_print_inline(u in inline_upload()) {
        round_trips(&u)?;
        let text = disassemble(&u.encode());
        prop_assert!(!text.contains(".template"), "{}", text);
    }

    #[test]
    fn the_checker_never_panics(data in proptest::collection::vec(any::<u8>(), 0..512), region in any::<u64>()) {
        let _ = check(&data, region);
        let _ = kmst::check::check_run(&data, region & !63, u64::MAX, &[(0, 64)], &[0]);
        // Any bytes disassemble; re-assembling gives an upload of the same length.
        let text = disassemble(&data);
        let again = assemble(&text).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        prop_assert_eq!(again.len(), data.len());
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    /// Damaged uploads: the check never panics, the disassembly always
    /// re-assembles, and the result gets the same verdict (the disassembler
    /// keeps every byte the check reads), with the same length.
    #[test]
    fn damaged_uploads_keep_their_verdict(
        u in any_upload(false),
        hits in proptest::collection::vec((any::<proptest::sample::Index>(), any::<u8>()), 1..4),
    ) {
        let mut data = u.encode();
        for (at, byte) in hits {
            let i = at.index(data.len());
            data[i] = byte;
        }
        let verdict = check(&data, data.len() as u64);
        let text = disassemble(&data);
        let again = assemble(&text).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        prop_assert_eq!(again.len(), data.len());
        prop_assert_eq!(check(&again, again.len() as u64), verdict, "{}", text);
        if verdict.is_err() {
            prop_assert!(text.starts_with("; the check rejects this upload: reason "));
        }
    }
}

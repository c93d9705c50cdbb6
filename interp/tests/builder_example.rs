//! The spec's 1000-job example (docs/spec.md "The builder"), S7..S9 by hand.

mod common;

use common::JOB_EXAMPLE_HEADER;
use kmst::asm::{assemble, disassemble};
use kmst::builder::{Operand, Stream};
use kmst::check::check;
use kmst::format::{MicroOp, NO_REGISTER, Template, Upload};
use kmst::ops::Opcode;

const HANDLER_MAP: i64 = 3;

fn example() -> Stream {
    let mut s = Stream::new(200_000, 100_000, 1, 1).unwrap();
    let regs = s.registers(2).unwrap();
    let (job, count) = (regs[0], regs[1]);
    let top = s.label();
    s.rand(count);
    let c119 = s.constant(119).unwrap();
    s.mod_(count, count, c119);
    s.addi(count, count, 1).unwrap();
    s.enqueue(
        HANDLER_MAP,
        count.into(),
        &[job.into(), 77.into()],
        false,
        false,
    )
    .unwrap();
    s.addi(job, job, 1).unwrap();
    let c1000 = s.constant(1000).unwrap();
    s.jlt(job, c1000, top);
    s.wait(0).unwrap();
    let c0 = s.constant(0).unwrap();
    s.halt(c0);
    s
}

fn op(code: Opcode, a: u8, b: u8, c: u8, imm: u32) -> MicroOp {
    MicroOp::new(code, a, b, c, imm)
}

#[test]
fn the_micro_op_list_by_hand() {
    // registers(2) -> job r0, count r1 (S7: lowest free first); const(119) -> r2,
    // const(1000) -> r3, const(0) -> r4. The prologue is SET r2,119; SET r3,1000;
    // SET r4,0 (S8, first-asked order), so `top` (body 0) is pc 3 and the JLT at
    // body 5 is pc 8 with target 3. The enqueue makes template 0 (S9).
    let u = example().upload().unwrap();
    use Opcode::*;
    assert_eq!(
        u.ops,
        vec![
            op(Set, 2, 0, 0, 119),
            op(Set, 3, 0, 0, 1000),
            op(Set, 4, 0, 0, 0),
            op(Rand, 1, 0, 0, 0),
            op(Mod, 1, 1, 2, 0),
            op(Addi, 1, 1, 0, 1),
            op(Enqueue, 1, 0, 0, 0),
            op(Addi, 0, 0, 0, 1),
            op(Jlt, 0, 3, 0, 3),
            op(Wait, 0, 0, 0, 0),
            op(Halt, 4, 0, 0, 0),
        ]
    );
    // Template 0: handler 3, args [_, 77], one patch arg 0 <- r0; enqueue ignores
    // the group registers, which are 0xFF; no flags.
    let mut t = Template {
        first_register: NO_REGISTER,
        count_register: NO_REGISTER,
        patch_count: 1,
        ..Template::default()
    };
    t.command.handler = 3;
    t.command.args[1] = 77;
    t.patch_arg[0] = 0;
    t.patch_reg[0] = 0;
    assert_eq!(u.templates, vec![t]);
    assert_eq!(u.header, JOB_EXAMPLE_HEADER);
}

#[test]
fn encode_decode_disassemble_reassemble() {
    let bytes = example().encode().unwrap();
    // 64 header + pad64(11 * 16 = 176) = 192 + pad64(80) = 128.
    assert_eq!(bytes.len(), 64 + 192 + 128);
    assert_eq!(check(&bytes, 1 << 20), Ok(()));
    let decoded = Upload::decode(&bytes).unwrap();
    assert_eq!(decoded, example().upload().unwrap());
    assert_eq!(decoded.encode(), bytes);
    let text = disassemble(&bytes);
    // Written by hand from the micro-op list above: one label at pc 3, the
    // template inline because template 0 is used once, by the only ENQUEUE.
    let expected = "\
.stream max_steps=100000 deadline_us=200000 req=1 seed=1
        set r2, 119
        set r3, 1000
        set r4, 0
L3:
        rand r1
        mod r1, r1, r2
        addi r1, r1, 1
        enqueue r1, handler=3, args=[r0, 77]
        addi r0, r0, 1
        jlt r0, r3, L3
        wait 0
        halt r4
";
    assert_eq!(text, expected);
    assert_eq!(assemble(&text).unwrap(), bytes);
}

#[test]
fn submit_group_fields_and_patch_order() {
    // S9: integer group fields into the command with 0xFF; a register field sets
    // the register number; register args become patches in ascending arg order.
    let mut s = Stream::new(0, 10, 5, 0).unwrap();
    let r = s.registers(3).unwrap();
    s.submit(
        9,
        (Operand::Int(4), r[2].into()),
        &[7.into(), r[1].into(), (-1).into(), r[0].into()],
        true,
        true,
    )
    .unwrap();
    s.halt(r[0]);
    let u = s.upload().unwrap();
    let t = u.templates[0];
    assert_eq!((t.command.first, t.first_register), (4, 0xFF));
    assert_eq!((t.command.count, t.count_register), (0, 2));
    assert_eq!(t.command.args[..4], [7, 0, 0xFFFF_FFFF, 0]);
    assert_eq!(t.patch_count, 2);
    assert_eq!(
        (&t.patch_arg[..2], &t.patch_reg[..2]),
        (&[1u8, 3][..], &[1u8, 0][..])
    );
    assert_eq!(t.command.flags, 0b110); // exclusive bit 1, result bit 2 (S1)
    assert_eq!(u.ops[0], op(Opcode::Submit, 0, 0, 0, 0));
    assert_eq!(check(&s.encode().unwrap(), 1 << 20), Ok(()));
}

#[test]
fn enqueue_integer_count_is_a_constant_and_templates_follow_call_order() {
    // S9: enqueue with integer count uses const(count); one template per call.
    let mut s = Stream::new(0, 10, 5, 0).unwrap();
    s.enqueue(1, 8.into(), &[], false, false).unwrap(); // const(8) -> r0
    s.submit(2, (0.into(), 8.into()), &[], false, false)
        .unwrap();
    s.enqueue(3, 8.into(), &[], false, false).unwrap(); // shares r0
    let c = s.constant(8).unwrap();
    s.halt(c);
    let u = s.upload().unwrap();
    // Prologue SET r0, 8, then ENQUEUE r0 #0, SUBMIT #1, ENQUEUE r0 #2, HALT r0.
    assert_eq!(
        u.ops,
        vec![
            op(Opcode::Set, 0, 0, 0, 8),
            op(Opcode::Enqueue, 0, 0, 0, 0),
            op(Opcode::Submit, 0, 0, 0, 1),
            op(Opcode::Enqueue, 0, 0, 0, 2),
            op(Opcode::Halt, 0, 0, 0, 0),
        ]
    );
    let handlers: Vec<u8> = u.templates.iter().map(|t| t.command.handler).collect();
    assert_eq!(handlers, [1, 2, 3]);
}

#[test]
fn forward_labels_and_prologue_arithmetic() {
    // Body: 0 JNZ r0 -> end; 1 SET r1, 5; 2 (end) HALT c. Two constants asked
    // (7 then 9) give a prologue of 2, so `end` is pc 4 and the JNZ at pc 2.
    let mut s = Stream::new(0, 10, 5, 0).unwrap();
    let r = s.registers(2).unwrap();
    let end = s.forward();
    s.jnz(r[0], end);
    s.set(r[1], 5).unwrap();
    let _seven = s.constant(7).unwrap(); // r2
    s.bind(end).unwrap();
    let nine = s.constant(9).unwrap(); // r3
    s.halt(nine);
    let u = s.upload().unwrap();
    assert_eq!(u.ops[0], op(Opcode::Set, 2, 0, 0, 7));
    assert_eq!(u.ops[1], op(Opcode::Set, 3, 0, 0, 9));
    assert_eq!(u.ops[2], op(Opcode::Jnz, 0, 0, 0, 4));
    assert_eq!(u.ops[4], op(Opcode::Halt, 3, 0, 0, 0));
    let top = s.label(); // at body 3 = pc 5, the end of the program
    s.jmp(top);
    // Now the JMP itself is at body 3, so `top` is pc 5 = the JMP: in range.
    assert_eq!(s.upload().unwrap().ops[5], op(Opcode::Jmp, 0, 0, 0, 5));
}

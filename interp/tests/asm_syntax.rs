//! The `.kms` syntax of docs/asm.md: each form, each error with line and column.

mod common;

use common::JOB_EXAMPLE_HEADER;
use kmst::asm::{AsmError, assemble, disassemble, format_op};
use kmst::check::{Reason, StreamError, check};
use kmst::format::{Header, MicroOp, Upload};
use kmst::ops::Opcode;

fn upload(text: &str) -> Upload {
    let bytes = assemble(text).unwrap_or_else(|e| panic!("{e}"));
    Upload::decode(&bytes).unwrap_or_else(|e| panic!("{e}"))
}

fn error(text: &str) -> String {
    assemble(text).unwrap_err().to_string()
}

/// Each `(text, message)`: `head` and then `text` is refused with that
/// message.
fn assert_errors(head: &str, cases: &[(&str, &str)]) {
    for (text, want) in cases {
        assert_eq!(error(&format!("{head}{text}")), *want, "{text:?}");
    }
}

fn rejected(text: &str) -> StreamError {
    let bytes = assemble(text).unwrap_or_else(|e| panic!("{e}"));
    check(&bytes, 1 << 20).unwrap_err()
}

const HEAD: &str = ".stream max_steps=10 seed=1\n";

#[test]
fn the_docs_example() {
    // docs/asm.md's first example: 4 SETs, then the loop; `top` is pc 4.
    let u = upload(
        "; the spec's 1000-job example
.stream deadline_us=200000 max_steps=100000 seed=1 req=1
        set r2, 119          ; constants are plain SET micro-ops
        set r3, 1
        set r4, 1000
        set r5, 0
top:    rand r1
        mod r1, r1, r2
        addi r1, r1, 1
        enqueue r1, handler=3, args=[r0, 77]
        addi r0, r0, 1
        jlt r0, r4, top
        wait 0
        halt r5
",
    );
    assert_eq!(u.ops.len(), 12);
    assert_eq!(u.header, JOB_EXAMPLE_HEADER);
    assert_eq!(u.ops[9], MicroOp::new(Opcode::Jlt, 0, 4, 0, 4));
    assert_eq!(u.ops[7], MicroOp::new(Opcode::Enqueue, 1, 0, 0, 0));
    assert_eq!(u.templates[0].command.args[1], 77);
    assert_eq!(u.templates[0].patches().collect::<Vec<_>>(), [(0, 0)]);
}

#[test]
fn header_defaults_and_hex() {
    let u = upload(".stream max_steps=0x10 seed=7\nhalt r0\n");
    assert_eq!(
        u.header,
        Header {
            max_steps: 16,
            deadline_us: 0,
            req: 0,
            seed: 7,
        }
    );
    assert_errors(
        "",
        &[
            ("halt r0\n", "line 1, column 1: a micro-op before `.stream`"),
            (
                ".stream seed=1\nhalt r0\n",
                "line 1, column 1: `.stream` needs `max_steps=`",
            ),
            (
                ".stream max_steps=1 seed=1\n.stream max_steps=1 seed=1\n",
                "line 2, column 1: `.stream` given twice",
            ),
            ("", "line 1, column 1: no `.stream` line"),
            (
                ".stream max_steps=1 seed=1 colour=2\n",
                "line 1, column 28: unknown key `colour` (expected one of max_steps, deadline_us, req, seed, magic, version, op_count, command_count)",
            ),
            (
                ".stream max_steps=4294967296 seed=1\n",
                "line 1, column 19: max_steps 4294967296 is out of range 0..=4294967295",
            ),
        ],
    );
}

#[test]
fn registers_and_the_documented_error() {
    // The brief's example message: column 9 is where `r16` starts on line 3.
    assert_eq!(
        error(".stream max_steps=1 seed=1\nset r1, 0\nmov r1, r16\n"),
        "line 3, column 9: unknown register r16"
    );
    assert_errors(
        HEAD,
        &[
            (
                "add r1, r2\n",
                "line 2, column 11: expected `,`, found the end of the line",
            ),
            (
                "add r1, r2, 5\n",
                "line 2, column 13: expected a register, found `5`",
            ),
            ("frob r1\n", "line 2, column 1: unknown micro-op `frob`"),
            (
                "halt r1 r2\n",
                "line 2, column 9: expected the end of the line, found `r2`",
            ),
        ],
    );
}

#[test]
fn immediates() {
    let u = upload(&format!(
        "{HEAD}set r0, -1\naddi r1, r1, 0xFFFFFFFF\nshr r2, r3, -2147483648\nwait 4294967295\nhalt r0\n"
    ));
    assert_eq!(u.ops[0].imm, u32::MAX); // -1 as two's complement
    assert_eq!(u.ops[1].imm, u32::MAX);
    assert_eq!(u.ops[2].imm, 0x8000_0000);
    assert_eq!(u.ops[3].imm, u32::MAX);
    assert!(
        error(&format!("{HEAD}set r0, 4294967296\n")).contains("imm 4294967296 is out of range")
    );
    assert!(error(&format!("{HEAD}set r0, -2147483649\n")).contains("out of range"));
    assert_eq!(
        error(&format!("{HEAD}wait -1\n")),
        "line 2, column 6: wait count -1 is out of range 0..=4294967295"
    );
}

#[test]
fn labels_and_targets() {
    // `a` at pc 0, `b` and `c` both at pc 2 (label-only line, then a label before an op).
    let u = upload(&format!(
        "{HEAD}a: jmp c\n   jnz r1, @1\nb:\nc: jeq r1, r2, b\n   jlt r3, r4, a\n"
    ));
    assert_eq!(u.ops[0].imm, 2);
    assert_eq!(u.ops[1].imm, 1);
    assert_eq!(u.ops[2].imm, 2);
    assert_eq!(u.ops[3].imm, 0);
    // `end` is 4 = op_count: assembled, but the check rejects it (`Reason::BadJump` at pc 3).
    let bytes = assemble(&format!(
        "{HEAD}jlt r3, r4, end\nhalt r0\njmp end\nhalt r0\nend:\n"
    ))
    .unwrap();
    assert_eq!(
        check(&bytes, 1 << 20),
        Err(StreamError {
            reason: Reason::BadJump,
            pc: 0
        })
    );
    assert_errors(
        HEAD,
        &[
            ("jmp nowhere\n", "line 2, column 5: unknown label `nowhere`"),
            (
                "x: halt r0\nx: halt r0\n",
                "line 3, column 1: label `x` is defined twice",
            ),
        ],
    );
}

#[test]
fn comments() {
    let u = upload(&format!(
        "# a comment\n{HEAD}; another\nhalt r1 # trailing\nhalt r2;x\n"
    ));
    assert_eq!(u.ops.len(), 2);
}

#[test]
fn inline_templates() {
    let u = upload(&format!(
        "{HEAD}submit handler=3, group=(0, 8), args=[r1, 77, 0x10], exclusive, result\n\
         submit handler=9, group=(r2, r3), args=[1, 2, 3]\n\
         enqueue r1, handler=4\nhalt r0\n"
    ));
    assert_eq!(u.templates.len(), 3);
    let t = u.templates[0];
    assert_eq!(
        (
            t.command.handler,
            t.command.flags,
            t.command.first,
            t.command.count
        ),
        (3, 6, 0, 8)
    );
    assert_eq!(t.command.args[..3], [0, 77, 16]);
    assert_eq!((t.first_register, t.count_register), (0xFF, 0xFF));
    assert_eq!(t.patches().collect::<Vec<_>>(), [(0, 1)]);
    let t = u.templates[1];
    assert_eq!(
        (
            t.first_register,
            t.count_register,
            t.command.first,
            t.command.count
        ),
        (2, 3, 0, 0)
    );
    assert_eq!(t.patch_count, 0);
    assert_eq!(u.ops[2], MicroOp::new(Opcode::Enqueue, 1, 0, 0, 2));
    assert_errors(
        HEAD,
        &[
            (
                "submit group=(0, 1)\n",
                "line 2, column 8: the template needs `handler=`",
            ),
            (
                "submit handler=240\n",
                "line 2, column 16: handler 240 is out of range 1..=239",
            ),
            (
                "submit handler=1, group=(0, 65536)\n",
                "line 2, column 29: group count 65536 is out of range 0..=65535",
            ),
        ],
    );
    assert_eq!(
        error(&format!(
            "{HEAD}submit handler=1, args=[r0, r1, r2, r3, r4]\n"
        )),
        "line 2, column 24: 5 register arguments, more than 4"
    );
    assert!(
        error(&format!(
            "{HEAD}submit handler=1, args=[0,0,0,0,0,0,0,0,0,0,0]\n"
        ))
        .contains("more than 10 arguments")
    );
    assert!(
        error(&format!("{HEAD}enqueue r1, handler=1, group=(0, 1)\n"))
            .contains("unknown key `group`")
    );
}

#[test]
fn explicit_templates_and_mixing() {
    let u = upload(&format!(
        "{HEAD}.template 0 handler=3, group=(0, 8), args=[5, 0], patches=[1<-r2, 1<-r3], first=r4, count=0xff, flags=0x06\n\
         submit #0\nenqueue r1, #0\nsubmit handler=7\n.template 2 handler=8\nsubmit #2\nhalt r0\n"
    ));
    assert_eq!(u.templates.len(), 3);
    let t = u.templates[0];
    assert_eq!(
        (t.command.first, t.command.count, t.command.args[0]),
        (0, 8, 5)
    );
    assert_eq!(t.patches().collect::<Vec<_>>(), [(1, 2), (1, 3)]);
    assert_eq!(
        (t.first_register, t.count_register, t.command.flags),
        (4, 0xFF, 6)
    );
    // The inline template on line 4 is number 1 (one sequence by line order).
    assert_eq!(u.ops[2].imm, 1);
    assert_eq!(u.templates[1].command.handler, 7);
    assert_eq!(u.ops[3].imm, 2);
    assert_eq!(
        error(&format!("{HEAD}.template 1 handler=3\n")),
        "line 2, column 11: template 1 defined out of order; the next template is 0"
    );
}

#[test]
fn raw_forms_reach_every_fault() {
    // `Reason::UnknownOpcode`: an unknown opcode; 4: a register number 16; 3 and 5: indexes out of range.
    for (text, reason, pc) in [
        ("halt r0\n.op 11, 0, 0, 0, 0\n", Reason::UnknownOpcode, 1),
        (".op 2, 1, 16, 0, 0\n", Reason::BadRegister, 0),
        ("jmp @1\n", Reason::BadJump, 0),
        ("halt r0\nsubmit #0\n", Reason::BadTemplate, 1),
    ] {
        let want = StreamError { reason, pc };
        assert_eq!(rejected(&format!("{HEAD}{text}")), want, "{text:?}");
    }
    // A bad template: handler 0, queue flag, 5 patches, raw patch bytes, group register 16.
    for t in [
        "handler=0",
        "handler=1, flags=1",
        "handler=1, patch_count=5",
        "handler=1, patches=[12<-r40]",
        "handler=1, first=0x10",
    ] {
        assert_eq!(
            rejected(&format!("{HEAD}.template 0 {t}\nhalt r0\nsubmit #0\n")),
            StreamError {
                reason: Reason::BadTemplate,
                pc: 1
            },
            "{t}"
        );
    }
    // Header overrides and `.size`. (op_count=2 would still fit the one 64-byte
    // line of micro-ops, so the size test passes and the zero op 1 is `Reason::UnknownOpcode`.)
    assert_eq!(
        rejected(".stream max_steps=1 seed=1 op_count=2\nhalt r0\n"),
        StreamError {
            reason: Reason::UnknownOpcode,
            pc: 1
        }
    );
    for h in [
        "magic=0",
        "version=2",
        "op_count=5",
        "command_count=1",
        "seed=0 max_steps=1",
        "max_steps=0 seed=1",
    ] {
        let text = if h.contains("seed") {
            format!(".stream {h}\nhalt r0\n")
        } else {
            format!(".stream max_steps=1 seed=1 {h}\nhalt r0\n")
        };
        assert_eq!(
            rejected(&text),
            StreamError {
                reason: Reason::BadHeader,
                pc: 0
            },
            "{h}"
        );
    }
    let bytes = assemble(&format!("{HEAD}halt r0\n.size 100\n")).unwrap();
    assert_eq!(bytes.len(), 100);
    let bytes = assemble(&format!("{HEAD}halt r0\n.size 32\n")).unwrap();
    assert_eq!(bytes.len(), 32);
}

#[test]
fn unused_fields_in_braces() {
    let u = upload(&format!(
        "{HEAD}mov r1, r2 {{c=9}}\nhalt r0 {{b=1 c=2, imm=7}}\njmp @0 {{a=255}}\n"
    ));
    assert_eq!(
        u.ops[0],
        MicroOp {
            op: 2,
            a: 1,
            b: 2,
            c: 9,
            imm: 0
        }
    );
    assert_eq!(
        u.ops[1],
        MicroOp {
            op: 20,
            a: 0,
            b: 1,
            c: 2,
            imm: 7
        }
    );
    assert_eq!(u.ops[2].a, 255);
    assert!(error(&format!("{HEAD}mov r1, r2 {{a=1}}\n")).contains("unknown key `a`"));
    assert!(error(&format!("{HEAD}set r1, 1 {{imm=1}}\n")).contains("unknown key `imm`"));
}

#[test]
fn format_op_prints_one_micro_op() {
    // The unknown opcode 0 and ADD's c = 16 print as `.op`; MOV's unused c as `{c=3}`.
    let raw = |op, a, b, c, imm| MicroOp { op, a, b, c, imm };
    for (op, want) in [
        (MicroOp::new(Opcode::Addi, 1, 2, 0, 5), "addi r1, r2, 5"),
        (MicroOp::new(Opcode::Jlt, 1, 2, 0, 7), "jlt r1, r2, @7"),
        (MicroOp::new(Opcode::Enqueue, 3, 0, 0, 2), "enqueue r3, #2"),
        (MicroOp::new(Opcode::Submit, 0, 0, 0, 0), "submit #0"),
        (raw(2, 1, 2, 3, 0), "mov r1, r2 {c=3}"),
        (raw(0, 1, 2, 3, 4), ".op 0, 1, 2, 3, 4"),
        (raw(3, 1, 2, 16, 0), ".op 3, 1, 2, 16, 0"),
    ] {
        assert_eq!(format_op(&op), want, "{op:?}");
    }
}

#[test]
fn disassembly_of_rejected_uploads_reassembles() {
    // An upload with an unknown opcode, a bad register, a jump out of range and
    // a template index out of range: the disassembly names the verdict and
    // re-assembles to the same bytes.
    let text = format!(
        "{HEAD}.template 0 handler=0, flags=0x81, patches=[12<-r40], first=0x10, patch_count=9\n\
         .op 0, 1, 2, 3, 4\n.op 3, 1, 2, 16, 0\njmp @99\nsubmit #5\nhalt r0\n"
    );
    let bytes = assemble(&text).unwrap();
    let out = disassemble(&bytes);
    assert!(
        out.starts_with("; the check rejects this upload: reason 2 (unknown opcode) at pc 0\n"),
        "{out}"
    );
    assert_eq!(assemble(&out).unwrap(), bytes, "{out}");
    // Short and misaligned data too.
    for len in [0usize, 10, 64, 100] {
        let data: Vec<u8> = (0..len as u8).collect();
        let out = disassemble(&data);
        assert_eq!(assemble(&out).unwrap().len(), len, "{out}");
    }
    let _: Option<AsmError> = None;
}

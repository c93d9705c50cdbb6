//! The byte layout of docs/spec.md "The upload", S1 and S2, checked byte by byte.

use kmst::format::{Command, Header, MicroOp, Template, Upload, flags, upload_len};
use kmst::ops::Opcode;

fn word(data: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(data[at..at + 4].try_into().unwrap())
}

#[test]
fn header_ops_and_templates_where_the_spec_puts_them() {
    let mut t = Template {
        command: Command {
            handler: 7,
            flags: flags::EXCLUSIVE | flags::RESULT,
            first: 0x0102,
            count: 0x0304,
            args: [10, 11, 12, 13, 14, 15, 16, 17, 18, 0xA0B0_C0D0],
        },
        first_register: 5,
        count_register: 0xFF,
        patch_count: 2,
        ..Template::default()
    };
    t.patch_arg[..2].copy_from_slice(&[3, 9]);
    t.patch_reg[..2].copy_from_slice(&[1, 15]);
    let u = Upload {
        header: Header {
            max_steps: 0x1122_3344,
            deadline_us: 200_000,
            req: 9,
            seed: 0xDEAD_BEEF,
        },
        ops: (0..5)
            .map(|i| MicroOp::new(Opcode::Addi, i, 2, 0, 0x0102_0304 + u32::from(i)))
            .collect(),
        templates: vec![
            t,
            Template {
                command: Command {
                    handler: 1,
                    ..Command::default()
                },
                ..Template::default()
            },
        ],
    };
    let d = u.encode();
    // 64 + pad64(5 * 16 = 80) = 64 + 128 = 192; templates: pad64(2 * 80 = 160) = 192. Total 384.
    assert_eq!(d.len(), 384);
    assert_eq!(upload_len(5, 2), 384);
    // Header: magic "KMST" as 0x4B4D5354 little-endian = bytes 54 53 4D 4B.
    assert_eq!(&d[0..4], &[0x54, 0x53, 0x4D, 0x4B]);
    let words: Vec<u32> = (0..8).map(|i| word(&d, 4 * i)).collect();
    assert_eq!(
        words,
        [0x4B4D_5354, 1, 5, 2, 0x1122_3344, 200_000, 9, 0xDEAD_BEEF]
    );
    assert!(
        d[32..64].iter().all(|&b| b == 0),
        "the header's last 32 bytes are zero"
    );
    // Micro-op 3 at 64 + 48: op, a, b, c, imm, then imm2 and 4 zero bytes.
    assert_eq!(&d[112..120], &[4, 3, 2, 0, 0x07, 0x03, 0x02, 0x01]);
    assert!(d[120..128].iter().all(|&b| b == 0));
    assert!(d[144..192].iter().all(|&b| b == 0), "padding after op 4");
    // Template 0 at 192: command (S1), then arg[4], register[4], first, count, patch_count.
    let t0 = &d[192..272];
    assert_eq!(&t0[0..4], &[7, 0b110, 0, 0], "handler, flags, slot 0");
    assert_eq!(word(t0, 4), 0, "sequence");
    assert_eq!(word(t0, 8), 0, "landing");
    assert_eq!(
        &t0[12..16],
        &[0x02, 0x01, 0x04, 0x03],
        "first, count as u16"
    );
    assert_eq!(word(t0, 16), 10);
    assert_eq!(word(t0, 52), 0xA0B0_C0D0, "args[9] at 16 + 36");
    assert!(t0[56..64].iter().all(|&b| b == 0), "reserved words");
    assert_eq!(&t0[64..75], &[3, 9, 0, 0, 1, 15, 0, 0, 5, 0xFF, 2]);
    assert!(t0[75..80].iter().all(|&b| b == 0));
    // Template 1 at 272.
    assert_eq!(d[272], 1);
    assert!(
        d[352..384].iter().all(|&b| b == 0),
        "padding after the last template"
    );
    assert_eq!(Upload::decode(&d).unwrap(), u);
    assert_eq!(Header::from_bytes(&d), Some(u.header));
    assert_eq!(Header::from_bytes(&d[..63]), None);
}

#[test]
fn decode_carries_the_checks_reason_and_pc() {
    // S10: decode of a rejected upload is the check's error. Op 1 with opcode 0 -> `Reason::UnknownOpcode` at pc 1.
    let mut u = Upload {
        header: Header {
            max_steps: 1,
            deadline_us: 0,
            req: 0,
            seed: 1,
        },
        ops: vec![MicroOp::new(Opcode::Halt, 0, 0, 0, 0); 2],
        templates: vec![],
    };
    u.ops[1].op = 0;
    let e = Upload::decode(&u.encode()).unwrap_err();
    assert_eq!((e.0.reason.number(), e.0.pc), (2, 1));
    assert!(e.to_string().contains("reason 2"));
}

/// `micro_op_at` reads the header's op_count (bytes 8..12, S2) and the
/// micro-op at byte 64 + 16 pc (S1): present below op_count, absent at it,
/// past the data, or without a header.
#[test]
fn the_micro_op_at_a_pc_is_read_where_the_spec_puts_it() {
    let mut data = vec![0u8; 64 + 3 * 16];
    data[8..12].copy_from_slice(&2u32.to_le_bytes());
    data[64 + 16..64 + 32].copy_from_slice(&[3, 1, 2, 4, 9, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    let op = kmst::format::micro_op_at(&data, 1).unwrap();
    assert_eq!((op.op, op.a, op.b, op.c, op.imm), (3, 1, 2, 4, 9));
    assert!(kmst::format::micro_op_at(&data, 0).is_some());
    // pc 2 is op_count: the bytes are there, the micro-op is not.
    assert_eq!(kmst::format::micro_op_at(&data, 2), None);
    assert_eq!(kmst::format::micro_op_at(&data[..64 + 20], 1), None);
    assert_eq!(kmst::format::micro_op_at(&data[..10], 0), None);
}

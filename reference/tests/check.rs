//! The check (docs/spec.md "The check", S2..S6), one test per rule, with the
//! expected reason and pc worked out from the spec.

mod common;

use common::{Tpl, Up};
use kmst_reference::{Reason, StreamError, check, check_run};

const REGION: u64 = 1 << 20;

fn err(reason: Reason, pc: u32) -> Result<(), StreamError> {
    Err(StreamError { reason, pc })
}

/// The check of the upload that `build` writes.
fn checked(build: impl FnOnce(&mut Up) -> &mut Up) -> Result<(), StreamError> {
    let mut u = Up::new();
    build(&mut u);
    check(&u.bytes(), REGION)
}

/// SET r0,0; HALT r0 with one good template: accepted.
fn good() -> Up {
    let mut u = Up::new();
    u.set(0, 0).halt(0);
    u.template(Tpl::group(3, 0, 1));
    u
}

#[test]
fn a_good_upload_is_accepted() {
    // 64 header + pad64(2*16)=64 + pad64(80)=128 = 256 bytes.
    let b = good().bytes();
    assert_eq!(b.len(), 256);
    assert_eq!(check(&b, REGION), Ok(()));
    // A stream as large as the region is accepted, one byte less is not.
    assert_eq!(check(&b, 256), Ok(()));
    assert_eq!(check(&b, 255), err(Reason::BadHeader, 0));
}

#[test]
fn header_faults_are_reason_1_at_pc_0() {
    let bad = |f: &dyn Fn(&mut Up)| {
        let mut u = good();
        f(&mut u);
        check(&u.bytes(), REGION)
    };
    let e = err(Reason::BadHeader, 0);
    assert_eq!(check(&[], REGION), e);
    assert_eq!(check(&[0; 63], REGION), e);
    let mut b = good().bytes();
    b.push(0); // not a multiple of 64
    assert_eq!(check(&b, REGION), e);
    b.extend_from_slice(&[0; 63]); // a multiple of 64 but not the layout's size
    assert_eq!(check(&b, REGION), e);
    assert_eq!(bad(&|u| u.magic = 0x4B4D_5355), e);
    assert_eq!(bad(&|u| u.version = 2), e);
    assert_eq!(bad(&|u| u.seed = 0), e);
    assert_eq!(bad(&|u| u.max_steps = 0), e);
    assert_eq!(bad(&|u| u.op_count = Some(0)), e);
    assert_eq!(bad(&|u| u.op_count = Some(65_536)), e);
    assert_eq!(bad(&|u| u.command_count = Some(65_536)), e);
    // op_count 5 does not match the two micro-ops laid out (pad64(5*16)=128 != 64).
    assert_eq!(bad(&|u| u.op_count = Some(5)), e);
    // op_count 3 still pads to 64 bytes: the layout's size is unchanged, but the
    // third micro-op is the zero padding: opcode 0, `Reason::UnknownOpcode` at pc 2.
    assert_eq!(
        bad(&|u| u.op_count = Some(3)),
        err(Reason::UnknownOpcode, 2)
    );
    // Header words that do not matter: req and deadline take any value.
    assert_eq!(bad(&|u| u.req = u32::MAX), Ok(()));
    assert_eq!(bad(&|u| u.deadline_us = u32::MAX), Ok(()));
}

#[test]
fn huge_counts_do_not_overflow() {
    // op_count and command_count at their maxima, with a tiny upload: `Reason::BadHeader`.
    let mut u = good();
    u.op_count = Some(65_535);
    u.command_count = Some(65_535);
    assert_eq!(check(&u.bytes(), u64::MAX), err(Reason::BadHeader, 0));
    let mut u = good();
    u.op_count = Some(u32::MAX);
    assert_eq!(check(&u.bytes(), u64::MAX), err(Reason::BadHeader, 0));
}

#[test]
fn unknown_opcodes_are_reason_2() {
    for op in [0u8, 11, 15, 21, 31, 34, 39, 42, 47, 50, 255] {
        assert_eq!(
            checked(|u| u.set(0, 0).op(op, 0, 0, 0, 0).halt(0)),
            err(Reason::UnknownOpcode, 1),
            "opcode {op}"
        );
    }
}

#[test]
fn registers_in_used_fields_only_are_reason_4() {
    // SET reads a only: b = c = 200 are ignored, a = 16 is a fault.
    assert_eq!(checked(|u| u.op(1, 0, 200, 200, 0).halt(0)), Ok(()));
    assert_eq!(
        checked(|u| u.op(1, 16, 0, 0, 0).halt(0)),
        err(Reason::BadRegister, 0)
    );
    // ADD reads c.
    assert_eq!(
        checked(|u| u.halt(0).add(0, 1, 16)),
        err(Reason::BadRegister, 1)
    );
    // MOV does not read c; JMP reads no register; WAIT neither; SUBMIT neither.
    assert_eq!(
        checked(|u| u
            .op(2, 1, 2, 99, 0)
            .op(16, 99, 99, 99, 0)
            .op(40, 99, 99, 99, 0)
            .halt(0)),
        Ok(())
    );
    let t = Tpl::group(3, 0, 1);
    let mut u = Up::new();
    u.op(32, 99, 99, 99, 0).halt(0);
    u.template(t.clone());
    assert_eq!(check(&u.bytes(), REGION), Ok(()));
    // ENQUEUE reads a.
    let mut u = Up::new();
    u.op(33, 16, 0, 0, 0).halt(0);
    u.template(t);
    assert_eq!(check(&u.bytes(), REGION), err(Reason::BadRegister, 0));
    // JLT reads b; SHR reads b; HALT reads a.
    for (op, a, b) in [
        (17u8, 0u8, 16u8),
        (8, 0, 16),
        (20, 16, 0),
        (10, 16, 0),
        (49, 16, 0),
    ] {
        assert_eq!(
            checked(|u| u.halt(0).op(op, a, b, 0, 0)),
            err(Reason::BadRegister, 1),
            "opcode {op}"
        );
    }
}

#[test]
fn jump_targets_are_reason_3() {
    // Two micro-ops: target 1 is fine, 2 (= op_count) is not.
    assert_eq!(checked(|u| u.jmp(1).halt(0)), Ok(()));
    for op in [16u8, 17, 18, 19] {
        assert_eq!(
            checked(|u| u.halt(0).op(op, 0, 0, 0, 2)),
            err(Reason::BadJump, 1),
            "opcode {op}"
        );
    }
    // SET's imm is a value, never a target.
    assert_eq!(checked(|u| u.set(0, 1000).halt(0)), Ok(()));
}

#[test]
fn template_indexes_are_reason_5_at_the_micro_op() {
    let mut u = Up::new();
    u.halt(0).submit(1);
    u.template(Tpl::group(3, 0, 1));
    assert_eq!(check(&u.bytes(), REGION), err(Reason::BadTemplate, 1));
    assert_eq!(
        checked(|u| u.halt(0).enqueue(0, 0)),
        err(Reason::BadTemplate, 1)
    );
}

#[test]
fn within_a_micro_op_registers_come_before_the_target() {
    // S4: opcode, registers a b c, jump target, template. JLT with b = 16 and
    // target 99: `Reason::BadRegister`, not 3. ENQUEUE with a = 16 and index 5: `Reason::BadRegister`.
    assert_eq!(
        checked(|u| u.op(17, 0, 16, 0, 99).halt(0)),
        err(Reason::BadRegister, 0)
    );
    assert_eq!(
        checked(|u| u.op(33, 16, 0, 0, 5).halt(0)),
        err(Reason::BadRegister, 0)
    );
}

#[test]
fn micro_ops_come_in_order_and_before_templates() {
    // pc 1 bad register, pc 2 unknown opcode: pc 1 wins.
    assert_eq!(
        checked(|u| u.set(0, 0).set(16, 0).op(0, 0, 0, 0, 0).halt(0)),
        err(Reason::BadRegister, 1)
    );
    // A bad template (handler 0) used at pc 0 and an unknown opcode at pc 2:
    // the micro-ops are checked first, `Reason::UnknownOpcode` at pc 2.
    let mut u = Up::new();
    u.submit(0).halt(0).op(99, 0, 0, 0, 0);
    u.template(Tpl::group(0, 0, 1));
    assert_eq!(check(&u.bytes(), REGION), err(Reason::UnknownOpcode, 2));
}

/// An upload whose only template is `t`, used by SUBMIT at pc 2 and ENQUEUE at pc 1.
fn with_template(t: [u8; 80]) -> Result<(), StreamError> {
    let mut u = Up::new();
    u.set(0, 1).enqueue(0, 0).submit(0).halt(0);
    u.raw_template(t);
    check(&u.bytes(), REGION)
}

#[test]
fn template_faults_are_reason_5_at_the_first_user() {
    let base = Tpl::group(3, 0, 1).bytes();
    assert_eq!(with_template(base), Ok(()));
    let e = err(Reason::BadTemplate, 1); // the lowest pc that uses it: the ENQUEUE
    let edit = |f: &dyn Fn(&mut [u8; 80])| {
        let mut t = base;
        f(&mut t);
        with_template(t)
    };
    // The template with these (byte, value) written.
    let patched = |bytes: &[(usize, u8)]| {
        edit(&|t| {
            for &(i, v) in bytes {
                t[i] = v;
            }
        })
    };
    assert_eq!(edit(&|t| t[0] = 0), e); // handler 0
    assert_eq!(edit(&|t| t[0] = 240), e); // handler 240
    assert_eq!(edit(&|t| t[0] = 239), Ok(()));
    assert_eq!(edit(&|t| t[0] = 1), Ok(()));
    assert_eq!(edit(&|t| t[1] = 0b110), Ok(())); // exclusive and result
    assert_eq!(edit(&|t| t[1] = 0b001), e); // the queue bit
    assert_eq!(edit(&|t| t[1] = 0b1000), e); // a reserved bit
    assert_eq!(edit(&|t| t[74] = 5), e); // more than four patches
    // Patch entries: argument above 9, register above 15, only within patch_count.
    assert_eq!(patched(&[(74, 1), (64, 9), (68, 15)]), Ok(()));
    assert_eq!(patched(&[(74, 1), (64, 10)]), e);
    assert_eq!(patched(&[(74, 4), (67, 0), (71, 16)]), e);
    assert_eq!(patched(&[(74, 3), (67, 200), (71, 200)]), Ok(()));
    // first_register / count_register: 0xFF or below 16.
    assert_eq!(edit(&|t| t[72] = 15), Ok(()));
    assert_eq!(edit(&|t| t[72] = 16), e);
    assert_eq!(edit(&|t| t[73] = 0xFE), e);
    // Ignored bytes: the slot, sequence, landing words, reserved words, the last 5 bytes.
    assert_eq!(
        edit(&|t| {
            t[2] = 9;
            t[3] = 9;
            t[4..12].fill(0xAB);
            t[56..64].fill(0xCD);
            t[75..80].fill(0xEE);
        }),
        Ok(())
    );
}

#[test]
fn unused_bad_template_is_at_pc_0_and_templates_go_in_order() {
    // Template 0 is good and used at pc 1; template 1 is bad and unused: pc 0.
    let mut u = Up::new();
    u.set(0, 0).submit(0).halt(0);
    u.template(Tpl::group(3, 0, 1));
    u.template(Tpl::group(0, 0, 1));
    assert_eq!(check(&u.bytes(), REGION), err(Reason::BadTemplate, 0));
    // Both bad: template 0 (used at pc 2) is reported before template 1 (used at pc 1).
    let mut u = Up::new();
    u.set(0, 0).submit(1).submit(0).halt(0);
    u.template(Tpl::group(0, 0, 1));
    u.template(Tpl::group(3, 0, 1).flags(1));
    assert_eq!(check(&u.bytes(), REGION), err(Reason::BadTemplate, 2));
}

#[test]
fn ignored_bytes_are_ignored() {
    let mut b = good().bytes();
    b[32..64].fill(0x55); // the header's last 32 bytes
    b[64 + 8..64 + 16].fill(0x66); // imm2 and the zero bytes of micro-op 0
    b[64 + 32..128].fill(0x77); // padding after the micro-ops
    b[128 + 80..256].fill(0x88); // padding after the templates
    assert_eq!(check(&b, REGION), Ok(()));
}

#[test]
fn check_run_rules() {
    let b = good().bytes(); // 256 bytes, req 7
    let reject = Some(StreamError {
        reason: Reason::BadHeader,
        pc: 0,
    });
    assert_eq!(check_run(&b, 0, REGION, &[], &[]), (None, 7));
    assert_eq!(check_run(&b, 64, REGION, &[], &[]), (None, 7));
    // Offset not a multiple of 64.
    assert_eq!(check_run(&b, 32, REGION, &[], &[]), (reject, 7));
    // The range test: offset > region, or length > region - offset.
    assert_eq!(check_run(&b, 1024, 1024 + 256, &[], &[]), (None, 7));
    // 1088 + 256 > 1280, but 1088 + 64 <= 1280: the header is inside, req 7 (S3).
    assert_eq!(check_run(&b, 1088, 1024 + 256, &[], &[]), (reject, 7));
    assert_eq!(check_run(&b, u64::MAX - 63, 1024, &[], &[]), (reject, 0));
    // S3: req 0 when offset + 64 > region_size; header's req while the header fits.
    assert_eq!(check_run(&b, 1024, 1024 + 64, &[], &[]), (reject, 7));
    assert_eq!(check_run(&b, 1024, 1024 + 63, &[], &[]), (reject, 0));
    // Overlap with an active range (half-open); adjacent ranges and empty ones do not overlap.
    assert_eq!(check_run(&b, 256, REGION, &[(0, 256)], &[]), (None, 7));
    assert_eq!(check_run(&b, 256, REGION, &[(512, 64)], &[]), (None, 7));
    assert_eq!(check_run(&b, 256, REGION, &[(300, 0)], &[]), (None, 7));
    assert_eq!(check_run(&b, 256, REGION, &[(0, 257)], &[]), (reject, 7));
    assert_eq!(check_run(&b, 256, REGION, &[(511, 1)], &[]), (reject, 7));
    assert_eq!(
        check_run(&b, 256, REGION, &[(0, u64::MAX)], &[]),
        (reject, 7)
    );
    // The header's req is an active stream's.
    assert_eq!(check_run(&b, 0, REGION, &[], &[3, 7]), (reject, 7));
    assert_eq!(check_run(&b, 0, REGION, &[], &[3, 8]), (None, 7));
    // Otherwise the answer is check's.
    let mut u = good();
    u.ops[1][0] = 99;
    assert_eq!(
        check_run(&u.bytes(), 0, REGION, &[], &[]),
        (
            Some(StreamError {
                reason: Reason::UnknownOpcode,
                pc: 1
            }),
            7
        )
    );
    // Short data: req 0; the active-req test needs 64 bytes, so a short upload
    // fails in check (`Reason::BadHeader`) even with req 0 active.
    assert_eq!(check_run(&[0; 32], 0, REGION, &[], &[0]), (reject, 0));
    // S6 order: an offset fault comes before the overlap, both `Reason::BadHeader`; an
    // accepted range with an active req is rejected before check would accept.
    assert_eq!(check_run(&b, 64, REGION, &[(0, 128)], &[7]), (reject, 7));
}

#[test]
fn check_never_panics_on_truncated_or_random_bytes() {
    let b = good().bytes();
    for n in 0..b.len() {
        let _ = check(&b[..n], REGION);
        let _ = check_run(&b[..n], 0, REGION, &[(0, 0)], &[0]);
    }
    // A simple generator of byte soup with a valid header start.
    let mut x: u32 = 12345;
    for _ in 0..200 {
        let mut d = b.clone();
        for byte in d.iter_mut().skip(8) {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            if x.is_multiple_of(7) {
                *byte = x as u8;
            }
        }
        let _ = check(&d, REGION);
    }
}

//! The check (docs/spec.md "The check", S2..S6) as behaviour: every rule is
//! asserted of both checkers, the optimized one (`kmst::check`) and the
//! reference model's (`kmst_reference`), each test once per checker
//! (`optimized::NAME` and `reference::NAME`). Every expected value is worked
//! out from the spec and the rulings, never taken from either checker.

use kmst::check::CheckedUpload;
use kmst::ops::Opcode;
use kmst_reference::{Reason, StreamError};

/// The upload's magic number (docs/spec.md "The upload"; S2).
const MAGIC: u32 = 0x4B4D_5354;

/// `check_run(data, offset, region_size, active, active_reqs)`: the error and the req (S3, S6).
type CheckRun = fn(&[u8], u64, u64, &[(u64, u64)], &[u32]) -> (Option<StreamError>, u32);

/// One checker: its `check` and `check_run`.
struct Checker {
    check: fn(&[u8], u64) -> Result<(), StreamError>,
    check_run: CheckRun,
}

impl Checker {
    fn check(&self, data: &[u8], region_size: u64) -> Result<(), StreamError> {
        (self.check)(data, region_size)
    }

    /// The check of an upload of `ops` and `templates` in a 1 MiB region.
    fn check_upload(&self, ops: &[[u8; 5]], templates: &[[u8; 80]]) -> Result<(), StreamError> {
        self.check(&upload(ops, templates), MIB)
    }

    /// The check of an upload of `ops` and no templates, in a 1 MiB region.
    fn ops(&self, ops: &[[u8; 5]]) -> Result<(), StreamError> {
        self.check_upload(ops, &[])
    }
}

const OPTIMIZED: Checker = Checker {
    check: kmst::check::check,
    check_run: kmst::check::check_run,
};

const REFERENCE: Checker = Checker {
    check: kmst_reference::check,
    check_run: kmst_reference::check_run,
};

/// One `#[test]` per behaviour and checker: `optimized::NAME` and `reference::NAME`.
macro_rules! for_both_checkers {
    ($($name:ident),* $(,)?) => {
        mod optimized {
            $(#[test]
            fn $name() {
                super::$name(&super::OPTIMIZED)
            })*
        }
        mod reference {
            $(#[test]
            fn $name() {
                super::$name(&super::REFERENCE)
            })*
        }
    };
}

for_both_checkers!(
    a_minimal_upload_is_accepted,
    header_too_short,
    header_not_a_multiple_of_64,
    larger_than_region_rejected_equal_accepted,
    header_fields,
    op_count_range,
    command_count_65536_rejected,
    size_mismatch,
    reason_2_unknown_opcode,
    reason_4_register_in_a_used_field_only,
    reason_3_jump_target,
    reason_5_template_index,
    order_within_one_op,
    earlier_op_wins,
    template_rules,
    template_pc_is_the_lowest_use,
    unused_bad_template_is_pc_0,
    first_bad_template_in_table_order_wins,
    micro_op_faults_before_template_faults,
    check_run_offset_and_range,
    check_run_req_per_s3,
    check_run_overlap_is_half_open,
    check_run_active_req,
    check_run_order_alignment_before_check,
);

const OK_HALT: [u8; 5] = [20, 0, 0, 0, 0]; // HALT r0

/// Raw upload bytes: header words, then the ops (op, a, b, c, imm), then raw templates.
fn raw(words: [u32; 8], ops: &[[u8; 5]], imm: &[u32], templates: &[[u8; 80]]) -> Vec<u8> {
    let ops_len = (ops.len() * 16).div_ceil(64) * 64;
    let t_len = (templates.len() * 80).div_ceil(64) * 64;
    let mut out = vec![0u8; 64 + ops_len + t_len];
    for (i, w) in words.iter().enumerate() {
        out[4 * i..4 * i + 4].copy_from_slice(&w.to_le_bytes());
    }
    for (i, op) in ops.iter().enumerate() {
        let at = 64 + 16 * i;
        out[at..at + 4].copy_from_slice(&op[..4]);
        let v = imm.get(i).copied().unwrap_or(u32::from(op[4]));
        out[at + 4..at + 8].copy_from_slice(&v.to_le_bytes());
    }
    for (j, t) in templates.iter().enumerate() {
        let at = 64 + ops_len + 80 * j;
        out[at..at + 80].copy_from_slice(t);
    }
    out
}

fn header(op_count: u32, command_count: u32) -> [u32; 8] {
    // magic, version, op_count, command_count, max_steps, deadline, req, seed
    [MAGIC, 1, op_count, command_count, 100, 0, 7, 1]
}

fn upload(ops: &[[u8; 5]], templates: &[[u8; 80]]) -> Vec<u8> {
    raw(
        header(ops.len() as u32, templates.len() as u32),
        ops,
        &[],
        templates,
    )
}

/// A good template: handler 3, no flags, no patches, group from the command.
fn good_template() -> [u8; 80] {
    let mut t = [0u8; 80];
    t[0] = 3;
    t[72] = 0xFF;
    t[73] = 0xFF;
    t
}

fn err(reason: Reason, pc: u32) -> Result<(), StreamError> {
    Err(StreamError { reason, pc })
}

const MIB: u64 = 1 << 20;

fn a_minimal_upload_is_accepted(c: &Checker) {
    // 64-byte header + one op padded to 64 = 128 bytes.
    let data = upload(&[OK_HALT], &[]);
    assert_eq!(data.len(), 128);
    assert_eq!(c.check(&data, MIB), Ok(()));
}

fn header_too_short(c: &Checker) {
    assert_eq!(c.check(&[], MIB), err(Reason::BadHeader, 0));
    let data = upload(&[OK_HALT], &[]);
    assert_eq!(c.check(&data[..63], MIB), err(Reason::BadHeader, 0));
}

fn header_not_a_multiple_of_64(c: &Checker) {
    let mut data = upload(&[OK_HALT], &[]);
    data.push(0);
    assert_eq!(c.check(&data, MIB), err(Reason::BadHeader, 0));
}

fn larger_than_region_rejected_equal_accepted(c: &Checker) {
    let data = upload(&[OK_HALT], &[]); // 128 bytes
    assert_eq!(c.check(&data, 127), err(Reason::BadHeader, 0));
    assert_eq!(c.check(&data, 64), err(Reason::BadHeader, 0));
    assert_eq!(c.check(&data, 128), Ok(()));
}

fn with_word(i: usize, v: u32) -> Vec<u8> {
    let mut w = header(1, 0);
    w[i] = v;
    raw(w, &[OK_HALT], &[], &[])
}

fn header_fields(c: &Checker) {
    let bad = err(Reason::BadHeader, 0);
    assert_eq!(c.check(&with_word(0, 0x5453_4D4B), MIB), bad, "magic");
    assert_eq!(c.check(&with_word(1, 2), MIB), bad, "version 2");
    assert_eq!(c.check(&with_word(1, 0), MIB), bad, "version 0");
    assert_eq!(c.check(&with_word(7, 0), MIB), bad, "seed 0");
    assert_eq!(c.check(&with_word(4, 0), MIB), bad, "max_steps 0");
    assert_eq!(c.check(&with_word(4, 1), MIB), Ok(()), "max_steps 1");
    assert_eq!(
        c.check(&with_word(5, u32::MAX), MIB),
        Ok(()),
        "any deadline"
    );
    assert_eq!(c.check(&with_word(7, u32::MAX), MIB), Ok(()), "any seed");
}

fn op_count_range(c: &Checker) {
    let bad = err(Reason::BadHeader, 0);
    // op_count 0: size 64 exactly matches 64 + 0 + 0, but op_count must be >= 1.
    let zero = raw(header(0, 0), &[], &[], &[]);
    assert_eq!(zero.len(), 64);
    assert_eq!(c.check(&zero, MIB), bad);
    // op_count 65,536 with the size it would need: 64 + 65,536 * 16.
    let mut big = vec![0u8; 64 + 65_536 * 16];
    let w = header(65_536, 0);
    for (i, v) in w.iter().enumerate() {
        big[4 * i..4 * i + 4].copy_from_slice(&v.to_le_bytes());
    }
    for i in 0..65_536 {
        big[64 + 16 * i] = 20; // HALT r0
    }
    assert_eq!(c.check(&big, 4 * MIB), bad);
    // op_count 65,535 is allowed: 64 + pad64(65,535 * 16) = 64 + 1,048,576.
    let mut w = header(65_535, 0);
    w[4] = 1;
    big.truncate(64 + 1_048_576);
    for (i, v) in w.iter().enumerate() {
        big[4 * i..4 * i + 4].copy_from_slice(&v.to_le_bytes());
    }
    assert_eq!(c.check(&big, 4 * MIB), Ok(()));
}

fn command_count_65536_rejected(c: &Checker) {
    // Size would be 64 + 64 + 65,536 * 80 bytes; build it so only the count is wrong.
    let mut data = vec![0u8; 128 + 65_536 * 80];
    for (i, v) in header(1, 65_536).iter().enumerate() {
        data[4 * i..4 * i + 4].copy_from_slice(&v.to_le_bytes());
    }
    data[64] = 20;
    assert_eq!(c.check(&data, 16 * MIB), err(Reason::BadHeader, 0));
    // 65,535 templates of zeros would be `Reason::BadTemplate`, not 1: the count itself is fine.
    data.truncate(128 + (65_535 * 80usize).div_ceil(64) * 64);
    data[12..16].copy_from_slice(&65_535u32.to_le_bytes());
    assert_eq!(c.check(&data, 16 * MIB), err(Reason::BadTemplate, 0));
}

fn size_mismatch(c: &Checker) {
    // Header says 2 ops (still one 64-byte line) -> same size, accepted.
    let data = raw(header(2, 0), &[OK_HALT, OK_HALT], &[], &[]);
    assert_eq!(c.check(&data, MIB), Ok(()));
    // Header says 5 ops (two lines, 192 bytes) but data has 128.
    let mut data = raw(header(1, 0), &[OK_HALT], &[], &[]);
    data[8..12].copy_from_slice(&5u32.to_le_bytes());
    assert_eq!(c.check(&data, MIB), err(Reason::BadHeader, 0));
    // One template declared, none present.
    let mut data = raw(header(1, 0), &[OK_HALT], &[], &[]);
    data[12..16].copy_from_slice(&1u32.to_le_bytes());
    assert_eq!(c.check(&data, MIB), err(Reason::BadHeader, 0));
    // Extra trailing line.
    let mut data = upload(&[OK_HALT], &[]);
    data.extend([0u8; 64]);
    assert_eq!(c.check(&data, MIB), err(Reason::BadHeader, 0));
}

fn reason_2_unknown_opcode(c: &Checker) {
    for bad in [0u8, 11, 15, 21, 31, 34, 39, 42, 47, 50, 255] {
        let data = upload(&[OK_HALT, [bad, 0, 0, 0, 0]], &[]);
        assert_eq!(
            c.check(&data, MIB),
            err(Reason::UnknownOpcode, 1),
            "opcode {bad}"
        );
    }
}

fn reason_4_register_in_a_used_field_only(c: &Checker) {
    // ADD reads a, b, c: r16 in c is `Reason::BadRegister` at pc 0.
    assert_eq!(
        c.ops(&[[3, 0, 0, 16, 0], OK_HALT]),
        err(Reason::BadRegister, 0)
    );
    // MOV reads a, b only: c = 200 is ignored.
    assert_eq!(c.ops(&[[2, 1, 15, 200, 0], OK_HALT]), Ok(()));
    // MOV b = 16 is `Reason::BadRegister`.
    assert_eq!(
        c.ops(&[OK_HALT, [2, 1, 16, 0, 0]]),
        err(Reason::BadRegister, 1)
    );
    // JMP reads no register: a = 255 ignored.
    assert_eq!(c.ops(&[[16, 255, 255, 255, 1], OK_HALT]), Ok(()));
    // ENQUEUE reads a.
    assert_eq!(
        c.check(
            &upload(&[[33, 16, 0, 0, 0], OK_HALT], &[good_template()]),
            MIB
        ),
        err(Reason::BadRegister, 0)
    );
}

fn reason_3_jump_target(c: &Checker) {
    // Two ops: target 2 is op_count, out of range; target 1 fine.
    for op in [16u8, 17, 18, 19] {
        assert_eq!(c.ops(&[[op, 0, 0, 0, 1], OK_HALT]), Ok(()));
        assert_eq!(c.ops(&[OK_HALT, [op, 0, 0, 0, 2]]), err(Reason::BadJump, 1));
    }
    let data = raw(header(1, 0), &[[16, 0, 0, 0, 0]], &[u32::MAX], &[]);
    assert_eq!(c.check(&data, MIB), err(Reason::BadJump, 0));
    // SET's imm is a value, never a target.
    let data = raw(header(2, 0), &[[1, 0, 0, 0, 0], OK_HALT], &[u32::MAX], &[]);
    assert_eq!(c.check(&data, MIB), Ok(()));
}

fn reason_5_template_index(c: &Checker) {
    // One template: index 1 is out of range for SUBMIT and ENQUEUE.
    let t = [good_template()];
    assert_eq!(c.check_upload(&[[32, 0, 0, 0, 0], OK_HALT], &t), Ok(()));
    assert_eq!(
        c.check_upload(&[[32, 0, 0, 0, 1], OK_HALT], &t),
        err(Reason::BadTemplate, 0)
    );
    assert_eq!(
        c.check_upload(&[OK_HALT, [33, 0, 0, 0, 1]], &t),
        err(Reason::BadTemplate, 1)
    );
    // No templates at all: SUBMIT 0 is out of range.
    assert_eq!(
        c.ops(&[[32, 0, 0, 0, 0], OK_HALT]),
        err(Reason::BadTemplate, 0)
    );
}

fn order_within_one_op(c: &Checker) {
    // JLT with register a = 16 and target out of range: register first (`Reason::BadRegister`).
    assert_eq!(
        c.ops(&[[17, 16, 0, 0, 9], OK_HALT]),
        err(Reason::BadRegister, 0)
    );
    // ENQUEUE with register a = 16 and template index out of range: register first.
    assert_eq!(
        c.ops(&[[33, 16, 0, 0, 9], OK_HALT]),
        err(Reason::BadRegister, 0)
    );
    // Register a fine, b bad: still 4.
    assert_eq!(
        c.ops(&[[17, 0, 99, 0, 9], OK_HALT]),
        err(Reason::BadRegister, 0)
    );
}

fn earlier_op_wins(c: &Checker) {
    // `Reason::UnknownOpcode` at pc 3 vs `Reason::BadRegister` at pc 1: pc 1 wins.
    let ops = [OK_HALT, [3, 0, 0, 17, 0], OK_HALT, [0, 0, 0, 0, 0]];
    assert_eq!(c.ops(&ops), err(Reason::BadRegister, 1));
    // `Reason::BadRegister` at pc 2 vs `Reason::BadJump` at pc 0: pc 0 wins.
    let ops = [[16, 0, 0, 0, 9], OK_HALT, [10, 16, 0, 0, 0]];
    assert_eq!(c.ops(&ops), err(Reason::BadJump, 0));
}

fn bad_template(edit: impl Fn(&mut [u8; 80])) -> [u8; 80] {
    let mut t = good_template();
    edit(&mut t);
    t
}

fn template_rules(c: &Checker) {
    let ops = [[32, 0, 0, 0, 0], OK_HALT];
    let cases: Vec<(&str, [u8; 80])> = vec![
        ("handler 0", bad_template(|t| t[0] = 0)),
        ("handler 240", bad_template(|t| t[0] = 240)),
        ("queue flag", bad_template(|t| t[1] = 1)),
        ("flag bit 3", bad_template(|t| t[1] = 8)),
        ("patch_count 5", bad_template(|t| t[74] = 5)),
        ("patch arg 10", bad_template(|t| (t[74], t[64]) = (1, 10))),
        ("patch reg 16", bad_template(|t| (t[74], t[68]) = (1, 16))),
        ("patch 3 arg", bad_template(|t| (t[74], t[67]) = (4, 10))),
        ("first_register 16", bad_template(|t| t[72] = 16)),
        ("count_register 0xFE", bad_template(|t| t[73] = 0xFE)),
    ];
    for (what, t) in cases {
        assert_eq!(
            c.check_upload(&ops, &[t]),
            err(Reason::BadTemplate, 0),
            "{what}"
        );
    }
    let fine: Vec<(&str, [u8; 80])> = vec![
        ("handler 1", bad_template(|t| t[0] = 1)),
        ("handler 239", bad_template(|t| t[0] = 239)),
        ("exclusive|result", bad_template(|t| t[1] = 6)),
        (
            "patches past count ignored",
            bad_template(|t| (t[74], t[65], t[69]) = (1, 99, 99)),
        ),
        (
            "4 patches",
            bad_template(|t| {
                t[74] = 4;
                t[64..68].copy_from_slice(&[9, 9, 0, 1]);
                t[68..72].copy_from_slice(&[15, 0, 1, 2]);
            }),
        ),
        ("group regs", bad_template(|t| (t[72], t[73]) = (0, 15))),
        (
            "ignored bytes",
            bad_template(|t| {
                t[2] = 0xAA;
                t[4] = 1;
                t[8] = 1;
                t[56] = 1;
                t[75] = 0xFF;
                t[79] = 1;
            }),
        ),
    ];
    for (what, t) in fine {
        assert_eq!(c.check_upload(&ops, &[t]), Ok(()), "{what}");
    }
}

fn template_pc_is_the_lowest_use(c: &Checker) {
    // Template 1 is bad; used at pc 5 and pc 2 -> pc 2.
    let t = [good_template(), bad_template(|t| t[0] = 0)];
    let ops = [
        OK_HALT,
        [32, 0, 0, 0, 0],
        [32, 0, 0, 0, 1],
        OK_HALT,
        OK_HALT,
        [33, 0, 0, 0, 1],
    ];
    assert_eq!(c.check_upload(&ops, &t), err(Reason::BadTemplate, 2));
    // Used only at pc 5 (by ENQUEUE) -> pc 5.
    let ops = [
        OK_HALT,
        [32, 0, 0, 0, 0],
        OK_HALT,
        OK_HALT,
        OK_HALT,
        [33, 0, 0, 0, 1],
    ];
    assert_eq!(c.check_upload(&ops, &t), err(Reason::BadTemplate, 5));
    // A SET whose imm is 1 does not "use" template 1.
    let ops = [OK_HALT, [1, 0, 0, 0, 1], OK_HALT];
    assert_eq!(c.check_upload(&ops, &t), err(Reason::BadTemplate, 0));
}

fn unused_bad_template_is_pc_0(c: &Checker) {
    let t = [
        good_template(),
        good_template(),
        bad_template(|t| t[1] = 0x80),
    ];
    let ops = [OK_HALT, [32, 0, 0, 0, 0], [32, 0, 0, 0, 1]];
    assert_eq!(c.check_upload(&ops, &t), err(Reason::BadTemplate, 0));
}

fn first_bad_template_in_table_order_wins(c: &Checker) {
    // Template 0 bad used at pc 3, template 1 bad used at pc 1: template 0's pc 3.
    let t = [bad_template(|t| t[0] = 0), bad_template(|t| t[0] = 0)];
    let ops = [OK_HALT, [32, 0, 0, 0, 1], OK_HALT, [32, 0, 0, 0, 0]];
    assert_eq!(c.check_upload(&ops, &t), err(Reason::BadTemplate, 3));
}

fn micro_op_faults_before_template_faults(c: &Checker) {
    // Bad template 0 used at pc 0, unknown opcode at pc 2: the op fault wins.
    let t = [bad_template(|t| t[0] = 0)];
    let ops = [[32, 0, 0, 0, 0], OK_HALT, [0, 0, 0, 0, 0]];
    assert_eq!(c.check_upload(&ops, &t), err(Reason::UnknownOpcode, 2));
    // Header faults before everything.
    let mut data = upload(&ops, &t);
    data[28..32].fill(0); // seed 0
    assert_eq!(c.check(&data, MIB), err(Reason::BadHeader, 0));
}

fn run(
    c: &Checker,
    data: &[u8],
    (offset, region): (u64, u64),
    active: &[(u64, u64)],
    reqs: &[u32],
) -> (Option<Reason>, u32) {
    let (e, req) = (c.check_run)(data, offset, region, active, reqs);
    if let Some(e) = e.filter(|e| e.reason == Reason::BadHeader) {
        assert_eq!(e.pc, 0, "reason 1 is always at pc 0");
    }
    (e.map(|e| e.reason), req)
}

/// `data` RUN with nothing active, each `(offset, region, reason, req)`:
/// the fault's reason (`None` when it fits) and the req the answer names.
fn runs(c: &Checker, data: &[u8], cases: &[(u64, u64, Option<Reason>, u32)]) {
    for &(offset, region, reason, req) in cases {
        assert_eq!(
            run(c, data, (offset, region), &[], &[]),
            (reason, req),
            "offset {offset}, region {region}"
        );
    }
}

fn check_run_offset_and_range(c: &Checker) {
    let data = upload(&[OK_HALT], &[]); // 128 bytes, req 7
    let top = u64::MAX - 63; // a multiple of 64
    let len = data.len() as u64;
    runs(
        c,
        &data,
        &[
            (0, 128, None, 7),
            (64, 192, None, 7),
            // offset not a multiple of 64; the header is still inside (1 + 64 <= 1000) -> req 7.
            (1, 1000, Some(Reason::BadHeader), 7),
            // range does not fit: 64 + 128 > 128; header 64..128 is inside -> req 7.
            (64, 128, Some(Reason::BadHeader), 7),
            // offset past the region: header not inside -> req 0.
            (256, 128, Some(Reason::BadHeader), 0),
            // no-wrap form: offset near u64::MAX must not wrap into "inside".
            (top, u64::MAX, Some(Reason::BadHeader), 0),
            // region u64::MAX with offset 0 fits.
            (0, u64::MAX, None, 7),
            // S6: a range that ends exactly at the region's end fits.
            (128, 128 + len, None, 7),
            // An offset at the region's end: no room even for the header (req 0, S3).
            (128 + len, 128 + len, Some(Reason::BadHeader), 0),
        ],
    );
}

fn check_run_req_per_s3(c: &Checker) {
    // Shorter than 64 bytes: req 0 even with a valid-looking start.
    let data = upload(&[OK_HALT], &[]);
    assert_eq!(
        run(c, &data[..32], (0, 1000), &[], &[]),
        (Some(Reason::BadHeader), 0)
    );
    runs(
        c,
        &data,
        &[
            // offset + 64 == region_size: header inside -> req 7 even though the range fails.
            (64, 128, Some(Reason::BadHeader), 7),
            // offset + 64 == region_size + 64 ... offset 128, region 128: header not inside.
            (128, 128, Some(Reason::BadHeader), 0),
        ],
    );
    // A check fault (unknown opcode) keeps the header's req.
    let bad = upload(&[[0, 0, 0, 0, 0]], &[]);
    let (e, req) = (c.check_run)(&bad, 0, 1000, &[], &[]);
    assert_eq!(
        e,
        Some(StreamError {
            reason: Reason::UnknownOpcode,
            pc: 0
        })
    );
    assert_eq!(req, 7);
}

fn check_run_overlap_is_half_open(c: &Checker) {
    let data = upload(&[OK_HALT], &[]); // at 128, occupies [128, 256)
    let region = 4096;
    assert_eq!(
        run(c, &data, (128, region), &[(0, 128)], &[]),
        (None, 7),
        "ends where we start"
    );
    assert_eq!(
        run(c, &data, (128, region), &[(256, 64)], &[]),
        (None, 7),
        "starts where we end"
    );
    assert_eq!(
        run(c, &data, (128, region), &[(0, 129)], &[]).0,
        Some(Reason::BadHeader)
    );
    assert_eq!(
        run(c, &data, (128, region), &[(255, 1)], &[]).0,
        Some(Reason::BadHeader)
    );
    assert_eq!(
        run(c, &data, (128, region), &[(0, 4096)], &[]).0,
        Some(Reason::BadHeader)
    );
    // A zero-length active range overlaps nothing, even inside ours.
    assert_eq!(run(c, &data, (128, region), &[(192, 0)], &[]), (None, 7));
    // An active range reaching past u64::MAX does not wrap.
    assert_eq!(
        run(c, &data, (128, region), &[(u64::MAX, u64::MAX)], &[]),
        (None, 7)
    );
    // A zero-length upload overlaps nothing (then fails the header check).
    assert_eq!(
        run(c, &[], (128, region), &[(0, 4096)], &[7]),
        (Some(Reason::BadHeader), 0)
    );
}

fn check_run_active_req(c: &Checker) {
    let data = upload(&[OK_HALT], &[]);
    assert_eq!(
        run(c, &data, (0, 4096), &[], &[1, 7]),
        (Some(Reason::BadHeader), 7)
    );
    assert_eq!(run(c, &data, (0, 4096), &[], &[1, 8]), (None, 7));
    // Under 64 bytes the req is not read: 32 zero bytes vs active req 0 -> the header check.
    let (e, req) = (c.check_run)(&[0u8; 32], 0, 4096, &[], &[0]);
    assert_eq!((e.map(|e| e.reason), req), (Some(Reason::BadHeader), 0));
}

fn check_run_order_alignment_before_check(c: &Checker) {
    // Unaligned offset with an upload that has an op fault: `Reason::BadHeader`, not 2.
    let bad = upload(&[[0, 0, 0, 0, 0]], &[]);
    assert_eq!(
        run(c, &bad, (64 + 1, 4096), &[], &[]),
        (Some(Reason::BadHeader), 7)
    );
    // The check uses the whole region size: 128 bytes at offset 0 in a 128 region.
    let data = upload(&[OK_HALT], &[]);
    assert_eq!(run(c, &data, (0, 128), &[], &[]), (None, 7));
}

/// `CheckedUpload` is the optimized checker's own: an accepted upload read in place.
#[test]
fn checked_upload_reads_in_place() {
    let t = [good_template()];
    let data = upload(&[[32, 0, 0, 0, 0], [1, 3, 0, 0, 9], OK_HALT], &t);
    let c = CheckedUpload::new(&data, MIB).unwrap();
    assert_eq!((c.op_count(), c.command_count()), (3, 1));
    assert_eq!(c.header().req, 7);
    let (opcode, op) = c.op(1);
    assert_eq!((opcode, op.a, op.imm), (Opcode::Set, 3, 9));
    assert_eq!(c.template(0).command.handler, 3);
    // In place: the very bytes given, not a copy.
    assert!(std::ptr::eq(c.bytes(), data.as_slice()));
}

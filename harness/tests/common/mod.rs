//! What several of the harness's test files share: small streams and
//! scenarios, the timing of the ignored speed tests, and the case count of
//! the longer ignored hunts.
#![allow(dead_code)]

use std::time::{Duration, Instant};

use kmst_reference::{HostCommand, Params, Scenario};

/// A loop of 2 micro-ops run N = 100 times: `set; (addi; jlt) x 100; halt`,
/// 1 SET + 200 + HALT = 202 micro-ops.
pub const LOOP: &str = "
.stream max_steps=100000 seed=1
        set r1, 100
top:    addi r0, r0, 1
        jlt r0, r1, top
        halt r2
";

/// Stream A of the two-stream scenarios (req 1): two SUBMITs on (0, 1) and
/// (1, 1), WAIT 0, HALT.
pub const STREAM_A: &str = "
.stream max_steps=1000 seed=1 req=1
        submit handler=1, group=(0, 1)
        submit handler=1, group=(1, 1)
        wait 0
        halt r0
";

/// Stream B of the two-stream scenarios (req 2): a loop of 3 rounds of
/// (addi; jlt), then HALT.
pub const STREAM_B: &str = "
.stream max_steps=1000 seed=1 req=2
        set r1, 3
top:    addi r0, r0, 1
        jlt r0, r1, top
        halt r0
";

/// A scenario on `params`: STREAM_A placed at 0 and STREAM_B at 1024, both
/// RUN in pass 0 in that order.
pub fn two_streams(params: Params) -> Scenario {
    let a = kmst::asm::assemble(STREAM_A).unwrap();
    let b = kmst::asm::assemble(STREAM_B).unwrap();
    let (la, lb) = (a.len() as u32, b.len() as u32);
    let mut s = Scenario::new(params).unwrap();
    s.place(0, a).unwrap().place(1024, b).unwrap();
    for (offset, length) in [(0, la), (1024, lb)] {
        s.push(0, HostCommand::Run { offset, length }).unwrap();
    }
    s
}

/// The shortest of `n` timed calls of `f`.
pub fn best_of<F: FnMut()>(n: usize, mut f: F) -> Duration {
    (0..n)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .min()
        .unwrap_or_default()
}

/// How many cases a longer ignored hunt runs: `KMST_CASES`, else 100,000.
pub fn cases_from_env() -> u64 {
    std::env::var("KMST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000)
}

/// `SUBMIT t0; WAIT 0; TIME r; HALT r` (max_steps 10, seed 1, req 0), its
/// one template `handler` on the fixed `group`: the stream halts with the
/// time of the pass in which its command was acknowledged.
pub fn submit_wait_time_halt(r: u8, handler: u8, group: (u16, u16)) -> Vec<u8> {
    use kmst::ops::Opcode::{Halt, Submit, Time, Wait};
    use kmst_harness::fuzzing::{op, template, upload};
    let ops = vec![
        op(Submit, 0, 0, 0, 0),
        op(Wait, 0, 0, 0, 0),
        op(Time, r, 0, 0, 0),
        op(Halt, r, 0, 0, 0),
    ];
    upload(
        10,
        0,
        1,
        0,
        ops,
        vec![template(handler, 0, group, &[], &[])],
    )
    .encode()
}

/// The micro-ops of `text` in the `.kms` syntax (docs/asm.md), one a line.
pub fn program(text: &str) -> Vec<kmst::format::MicroOp> {
    let text = format!(".stream max_steps=1 seed=1\n{text}\n");
    let bytes = kmst::asm::assemble(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    // Read as written (a program may name templates it is given elsewhere):
    // the header's op count, then 16 bytes a micro-op from byte 64.
    let count = kmst::format::read_u32(&bytes, 8) as usize;
    bytes[64..64 + 16 * count]
        .chunks(16)
        .map(kmst::format::MicroOp::read)
        .collect()
}

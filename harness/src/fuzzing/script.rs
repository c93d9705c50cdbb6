//! Arbitrary sequences of builder calls, for the `builder` fuzz target.
//!
//! A [`Script`] is a header and a list of [`Call`]s, drawn from
//! [`Unstructured`] with values that favour the edges the builder must
//! police (P4: 0, 1, 239/240, 65,535/65,536, 2³¹, 2³²−1/2³², negatives) as
//! well as raw 64-bit values. [`Script::run`] plays the calls on a
//! [`Stream`]; a call the builder refuses is skipped (the stream must stay
//! usable), and the result is what `encode` gives. The plain micro-op calls
//! are generated from [`kmst::for_each_op!`], so every micro-op the builder
//! has is reachable.

use arbitrary::{Result, Unstructured};

use kmst::builder::{BuildError, Label, Operand, Reg, Stream};
use kmst::format::Upload;
use kmst::ops::Opcode;

/// An integer with edge values likely.
fn edgy(u: &mut Unstructured) -> Result<i64> {
    const EDGES: [i64; 18] = [
        0,
        1,
        2,
        9,
        10,
        239,
        240,
        65_535,
        65_536,
        i32::MAX as i64,
        i32::MIN as i64,
        i32::MIN as i64 - 1,
        u32::MAX as i64,
        u32::MAX as i64 + 1,
        -1,
        i64::MIN,
        i64::MAX,
        119,
    ];
    Ok(match u.int_in_range(0..=9)? {
        0..=3 => u.int_in_range(0..=20)?,
        4..=6 => *u.choose(&EDGES)?,
        7 => u
            .int_in_range(-3i64..=3)?
            .saturating_add(*u.choose(&EDGES)?),
        _ => u.arbitrary()?,
    })
}

/// A u64 header field: mostly valid, sometimes an edge or a raw value.
fn edgy_u64(u: &mut Unstructured) -> Result<u64> {
    Ok(match u.int_in_range(0..=15)? {
        0..=11 => u.int_in_range(1..=1000)?,
        12 | 13 => *u.choose(&[0, 1, u64::from(u32::MAX), u64::from(u32::MAX) + 1, u64::MAX])?,
        14 => u64::from(u.arbitrary::<u32>()?),
        _ => u.arbitrary()?,
    })
}

/// A command field or argument of a call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arg {
    Int(i64),
    /// A register by number (0..=15).
    Reg(u8),
}

impl Arg {
    fn arbitrary(u: &mut Unstructured) -> Result<Arg> {
        Ok(if u.ratio(1, 3)? {
            Arg::Reg(u.int_in_range(0..=15)?)
        } else {
            Arg::Int(edgy(u)?)
        })
    }

    fn operand(self) -> Operand {
        match self {
            Arg::Int(v) => Operand::Int(v),
            Arg::Reg(r) => Operand::Reg(Reg::new(r).unwrap_or(Reg::GENERATOR)),
        }
    }
}

/// One builder call. Labels are named by their position in the list of
/// labels made so far (modulo its length).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Call {
    Registers(usize),
    Constant(i64),
    Label,
    Forward,
    /// A label made by another stream (the builder must refuse it).
    ForeignLabel,
    Bind(usize),
    /// A plain micro-op: its opcode, registers a, b, c, imm and label.
    Op {
        code: Opcode,
        regs: [u8; 3],
        imm: i64,
        label: usize,
    },
    Wait(i64),
    Submit {
        handler: i64,
        group: (Arg, Arg),
        args: Vec<Arg>,
        exclusive: bool,
        result: bool,
    },
    Enqueue {
        handler: i64,
        count: Arg,
        args: Vec<Arg>,
        exclusive: bool,
        result: bool,
    },
}

/// A stream's header arguments and its calls.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Script {
    pub deadline_us: u64,
    pub max_steps: u64,
    pub seed: u64,
    pub req: u64,
    pub calls: Vec<Call>,
}

fn args(u: &mut Unstructured) -> Result<Vec<Arg>> {
    let n = u.int_in_range(0..=12)?;
    (0..n).map(|_| Arg::arbitrary(u)).collect()
}

impl Call {
    fn arbitrary(u: &mut Unstructured) -> Result<Call> {
        Ok(match u.int_in_range(0..=15)? {
            0 => Call::Registers(u.int_in_range(0..=16)?),
            1 => Call::Constant(edgy(u)?),
            2 => Call::Label,
            3 => Call::Forward,
            4 => {
                if u.ratio(1, 4)? {
                    Call::ForeignLabel
                } else {
                    Call::Bind(u.arbitrary()?)
                }
            }
            5 => Call::Wait(edgy(u)?),
            6 => Call::Submit {
                handler: edgy(u)?,
                group: (Arg::arbitrary(u)?, Arg::arbitrary(u)?),
                args: args(u)?,
                exclusive: u.arbitrary()?,
                result: u.arbitrary()?,
            },
            7 => Call::Enqueue {
                handler: edgy(u)?,
                count: Arg::arbitrary(u)?,
                args: args(u)?,
                exclusive: u.arbitrary()?,
                result: u.arbitrary()?,
            },
            _ => Call::Op {
                code: *u.choose(Opcode::ALL)?,
                regs: [
                    u.int_in_range(0..=15)?,
                    u.int_in_range(0..=15)?,
                    u.int_in_range(0..=15)?,
                ],
                imm: edgy(u)?,
                label: u.arbitrary()?,
            },
        })
    }
}

impl Script {
    /// A script from fuzzer bytes: up to 200 calls.
    pub fn arbitrary(u: &mut Unstructured) -> Result<Script> {
        let mut s = Script {
            deadline_us: edgy_u64(u)?,
            max_steps: edgy_u64(u)?,
            seed: edgy_u64(u)?,
            req: edgy_u64(u)?,
            calls: Vec::new(),
        };
        while !u.is_empty() && s.calls.len() < 200 {
            s.calls.push(Call::arbitrary(u)?);
        }
        Ok(s)
    }

    /// Plays the calls; `Err` if `Stream::new` refuses the header.
    pub fn run(&self) -> std::result::Result<Played, BuildError> {
        let mut stream = Stream::new(self.deadline_us, self.max_steps, self.seed, self.req)?;
        let mut labels: Vec<Label> = Vec::new();
        let mut foreign = Stream::new(0, 1, 1, 0).expect("a valid header");
        let mut refused = Vec::new();
        let mut outcomes = Vec::with_capacity(self.calls.len());
        for call in &self.calls {
            // A refused call is skipped: the stream goes on without it.
            let outcome = play(&mut stream, &mut labels, &mut foreign, call);
            if let Err(e) = &outcome {
                refused.push(e.clone());
            }
            outcomes.push(outcome);
        }
        let upload = stream.upload();
        Ok(Played {
            stream,
            upload,
            outcomes,
            refused,
        })
    }
}

/// A script played on a stream.
#[derive(Clone, Debug)]
pub struct Played {
    pub stream: Stream,
    /// What `Stream::upload` gives at the end.
    pub upload: std::result::Result<Upload, BuildError>,
    /// What the builder answered each call, in order.
    pub outcomes: Vec<std::result::Result<(), BuildError>>,
    /// The errors of the calls the builder refused, in order.
    pub refused: Vec<BuildError>,
}

fn label_at(s: &mut Stream, labels: &mut Vec<Label>, k: usize) -> Label {
    if labels.is_empty() {
        labels.push(s.label());
    }
    labels[k % labels.len()]
}

fn play(
    s: &mut Stream,
    labels: &mut Vec<Label>,
    foreign: &mut Stream,
    call: &Call,
) -> std::result::Result<(), BuildError> {
    match call {
        Call::Registers(n) => s.registers(*n).map(drop),
        Call::Constant(v) => s.constant(*v).map(drop),
        Call::Label => {
            labels.push(s.label());
            Ok(())
        }
        Call::Forward => {
            labels.push(s.forward());
            Ok(())
        }
        Call::ForeignLabel => {
            // Labels count from 0 in every stream: make the foreign stream's
            // list longer than this one's so the label is unknown here.
            let mut l = foreign.label();
            for _ in 0..=labels.len() {
                l = foreign.label();
            }
            labels.push(l);
            Ok(())
        }
        Call::Bind(k) => {
            let l = label_at(s, labels, *k);
            s.bind(l)
        }
        Call::Wait(n) => s.wait(*n),
        Call::Submit {
            handler,
            group,
            args,
            exclusive,
            result,
        } => {
            let args: Vec<Operand> = args.iter().map(|a| a.operand()).collect();
            s.submit(
                *handler,
                (group.0.operand(), group.1.operand()),
                &args,
                *exclusive,
                *result,
            )
        }
        Call::Enqueue {
            handler,
            count,
            args,
            exclusive,
            result,
        } => {
            let args: Vec<Operand> = args.iter().map(|a| a.operand()).collect();
            s.enqueue(*handler, count.operand(), &args, *exclusive, *result)
        }
        Call::Op {
            code,
            regs,
            imm,
            label,
        } => {
            let r = regs.map(|n| Reg::new(n).unwrap_or(Reg::GENERATOR));
            let l = label_at(s, labels, *label);
            plain_op(s, *code, r, *imm, l)
        }
    }
}

/// The register a field name of `for_each_op!` stands for.
macro_rules! reg_of {
    ($r:ident, a) => {
        $r[0]
    };
    ($r:ident, b) => {
        $r[1]
    };
    ($r:ident, c) => {
        $r[2]
    };
}

macro_rules! play_op {
    (@call $s:ident, $fn:ident, [$($reg:ident)*], none, $r:ident, $imm:ident, $l:ident) => {{
        $s.$fn($(reg_of!($r, $reg)),*);
        Ok(())
    }};
    (@call $s:ident, $fn:ident, [$($reg:ident)*], value, $r:ident, $imm:ident, $l:ident) => {{
        $s.$fn($(reg_of!($r, $reg),)* $imm)
    }};
    (@call $s:ident, $fn:ident, [$($reg:ident)*], target, $r:ident, $imm:ident, $l:ident) => {{
        $s.$fn($(reg_of!($r, $reg),)* $l);
        Ok(())
    }};
    // `mod` is a keyword: the builder method is `mod_`.
    (@one $code:ident, $s:ident, $name:ident, mod, $regs:tt, $kind:ident, $r:ident, $imm:ident, $l:ident) => {
        if $code == Opcode::$name {
            return play_op!(@call $s, mod_, $regs, $kind, $r, $imm, $l);
        }
    };
    // Written by hand in the builder (and played by `Call::Wait`, `Submit`, `Enqueue`).
    (@one $code:ident, $s:ident, $name:ident, wait, $regs:tt, $kind:ident, $r:ident, $imm:ident, $l:ident) => {};
    (@one $code:ident, $s:ident, $name:ident, $mn:ident, $regs:tt, template, $r:ident, $imm:ident, $l:ident) => {};
    (@one $code:ident, $s:ident, $name:ident, $mn:ident, $regs:tt, $kind:ident, $r:ident, $imm:ident, $l:ident) => {
        if $code == Opcode::$name {
            return play_op!(@call $s, $mn, $regs, $kind, $r, $imm, $l);
        }
    };
    ($($name:ident = $num:literal, $mn:ident, [$($reg:ident)*], $kind:ident, $doc:literal;)*) => {
        /// Calls the builder method of a plain micro-op (WAIT, SUBMIT and
        /// ENQUEUE become a `wait(imm)`, and an empty submit/enqueue of handler 1).
        fn plain_op(
            s: &mut Stream,
            code: Opcode,
            r: [Reg; 3],
            imm: i64,
            l: Label,
        ) -> std::result::Result<(), BuildError> {
            $(play_op!(@one code, s, $name, $mn, [$($reg)*], $kind, r, imm, l);)*
            match code {
                Opcode::Submit => s.submit(1, (Operand::Int(0), Operand::Int(1)), &[], false, false),
                Opcode::Enqueue => s.enqueue(1, Operand::Reg(r[0]), &[], false, false),
                _ => s.wait(imm),
            }
        }
    };
}

kmst::for_each_op!(play_op);

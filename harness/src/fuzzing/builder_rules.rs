//! What a [`Script`] of builder calls must give, worked out from the rules
//! (docs/spec.md "The builder", S7..S9, and P4 in docs/semantics.md), not
//! from `kmst::builder`: the oracle of the `builder` fuzz target.
//!
//! [`expect`] replays the script on a plain model of a stream (a register
//! pool, the constants, the body with its jumps still naming labels, the
//! labels, the templates) and says, for `Stream::new`, for every call and
//! for the final `upload`, either what it must do or the errors it may
//! answer. A call that breaks several rules may name any of them (the rules
//! do not order them); a refused call changes nothing. The micro-ops of a
//! plain call are built from the operand table of [`kmst::ops`] (which
//! fields an opcode reads, what its immediate is); everything else (ranges,
//! pool order, prologue, patches, group fields, jump targets) is restated
//! here.

use kmst::builder::BuildError;
use kmst::format::{Command, Header, MicroOp, Template, Upload};
use kmst::ops::{ImmKind, Opcode, RegField};

use crate::fuzzing::script::{Arg, Call, Script};

/// What one step must answer: done, or refused with one of these errors.
pub type Outcome = Result<(), Vec<BuildError>>;

/// What a whole script must give.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expected {
    /// `Stream::new`: `Err` with the header errors any of which is right.
    pub new: Outcome,
    /// One per call (empty when `new` is refused).
    pub calls: Vec<Outcome>,
    /// The final `upload()`: the upload the calls ask for, or its errors.
    pub upload: Result<Upload, Vec<BuildError>>,
}

/// `0xFF` in `first_register`/`count_register`: the field comes from the command (S9).
const FROM_COMMAND: u8 = 0xFF;
/// Command flag bits (S1): exclusive is bit 1, result bit 2.
const EXCLUSIVE: u8 = 0x02;
const RESULT: u8 = 0x04;
/// The pool r0..r14 (S7: r15 is the generator's).
const POOL: usize = 15;

/// P4: an argument, constant, immediate or enqueue count "fits 32 bits" when
/// it is in -2,147,483,648 ..= 4,294,967,295; a negative one is stored as its
/// two's complement.
fn fit32(v: i64) -> Option<u32> {
    if (-(1i64 << 31)..=(1i64 << 32) - 1).contains(&v) {
        Some(v as u32)
    } else {
        None
    }
}

/// P4: a header field in `min ..= 4,294,967,295`.
fn header_word(v: u64, min: u64) -> Option<u32> {
    (min..=u64::from(u32::MAX)).contains(&v).then_some(v as u32)
}

/// A label as the script holds it: one of this stream's (by its number) or
/// another stream's (by its number there).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LabelRef {
    Own(usize),
    Foreign(usize),
}

/// A micro-op of the body; a jump keeps its label until the upload.
#[derive(Clone, Copy, Debug)]
struct BodyOp {
    op: MicroOp,
    jump: Option<LabelRef>,
}

#[derive(Clone, Debug)]
struct Model {
    header: Header,
    taken: [bool; POOL],
    /// `(value, register)` in the order first asked for (S8).
    constants: Vec<(u32, u8)>,
    body: Vec<BodyOp>,
    /// This stream's labels: the body position, `None` until bound.
    labels: Vec<Option<usize>>,
    templates: Vec<Template>,
    /// The labels the script has made, in order (what `Call::Bind(k)` and a jump's `label` index).
    script_labels: Vec<LabelRef>,
    /// How many labels the script's other stream has made.
    foreign_made: usize,
}

/// What `script` must give.
pub fn expect(script: &Script) -> Expected {
    let mut errors = Vec::new();
    let max_steps = header_word(script.max_steps, 1);
    let deadline_us = header_word(script.deadline_us, 0);
    let req = header_word(script.req, 0);
    let seed = header_word(script.seed, 1);
    if max_steps.is_none() {
        errors.push(BuildError::MaxSteps(script.max_steps));
    }
    if deadline_us.is_none() {
        errors.push(BuildError::Deadline(script.deadline_us));
    }
    if req.is_none() {
        errors.push(BuildError::Req(script.req));
    }
    if seed.is_none() {
        errors.push(BuildError::Seed(script.seed));
    }
    let (Some(max_steps), Some(deadline_us), Some(req), Some(seed)) =
        (max_steps, deadline_us, req, seed)
    else {
        return Expected {
            new: Err(errors.clone()),
            calls: Vec::new(),
            upload: Err(errors),
        };
    };
    let mut m = Model {
        header: Header {
            max_steps,
            deadline_us,
            req,
            seed,
        },
        taken: [false; POOL],
        constants: Vec::new(),
        body: Vec::new(),
        labels: Vec::new(),
        templates: Vec::new(),
        script_labels: Vec::new(),
        foreign_made: 0,
    };
    let calls = script.calls.iter().map(|c| m.call(c)).collect();
    Expected {
        new: Ok(()),
        calls,
        upload: m.upload(),
    }
}

fn op(code: Opcode, a: u8, imm: u32) -> MicroOp {
    MicroOp {
        op: code as u8,
        a,
        b: 0,
        c: 0,
        imm,
    }
}

impl Model {
    fn free(&self) -> usize {
        self.taken.iter().filter(|t| !**t).count()
    }

    /// The lowest free register of the pool, taken (S7). The caller checked one is free.
    fn take(&mut self) -> u8 {
        let n = self
            .taken
            .iter()
            .position(|t| !*t)
            .expect("a free register");
        self.taken[n] = true;
        n as u8
    }

    /// The register `constant(v)` gives (S7, S8): the one already holding
    /// the value, else the lowest free one. Changes nothing when refused.
    fn constant(&mut self, v: i64) -> Result<u8, Vec<BuildError>> {
        let Some(w) = fit32(v) else {
            return Err(vec![BuildError::Constant(v)]);
        };
        if let Some(&(_, r)) = self.constants.iter().find(|(c, _)| *c == w) {
            return Ok(r);
        }
        if self.free() == 0 {
            return Err(vec![BuildError::TooManyRegisters { asked: 1, free: 0 }]);
        }
        let r = self.take();
        self.constants.push((w, r));
        Ok(r)
    }

    /// The script's label `k` (modulo how many it has); with none yet, the
    /// script first makes one at the next micro-op.
    fn label_at(&mut self, k: usize) -> LabelRef {
        if self.script_labels.is_empty() {
            let l = self.new_label(true);
            self.script_labels.push(l);
        }
        self.script_labels[k % self.script_labels.len()]
    }

    fn new_label(&mut self, bound: bool) -> LabelRef {
        self.labels.push(bound.then_some(self.body.len()));
        LabelRef::Own(self.labels.len() - 1)
    }

    fn push(&mut self, op: MicroOp) {
        self.body.push(BodyOp { op, jump: None });
    }

    fn call(&mut self, call: &Call) -> Outcome {
        match call {
            Call::Registers(n) => {
                let free = self.free();
                if *n > free {
                    return Err(vec![BuildError::TooManyRegisters { asked: *n, free }]);
                }
                for _ in 0..*n {
                    self.take();
                }
                Ok(())
            }
            Call::Constant(v) => self.constant(*v).map(drop),
            Call::Label => {
                let l = self.new_label(true);
                self.script_labels.push(l);
                Ok(())
            }
            Call::Forward => {
                let l = self.new_label(false);
                self.script_labels.push(l);
                Ok(())
            }
            Call::ForeignLabel => {
                // The script makes `script_labels.len() + 2` labels on the
                // other stream and keeps the last.
                self.foreign_made += self.script_labels.len() + 2;
                self.script_labels
                    .push(LabelRef::Foreign(self.foreign_made - 1));
                Ok(())
            }
            Call::Bind(k) => match self.label_at(*k) {
                // A label of another stream is not this stream's to bind.
                LabelRef::Foreign(i) => Err(vec![BuildError::UnknownLabel(i)]),
                LabelRef::Own(i) if self.labels[i].is_some() => {
                    Err(vec![BuildError::LabelRebound(i)])
                }
                LabelRef::Own(i) => {
                    self.labels[i] = Some(self.body.len());
                    Ok(())
                }
            },
            Call::Wait(n) => self.wait(*n),
            Call::Submit {
                handler,
                group,
                args,
                exclusive,
                result,
            } => {
                let t = template(*handler, Some(*group), args, *exclusive, *result)?;
                self.templates.push(t);
                let index = (self.templates.len() - 1) as u32;
                self.push(op(Opcode::Submit, 0, index));
                Ok(())
            }
            Call::Enqueue {
                handler,
                count,
                args,
                exclusive,
                result,
            } => self.enqueue(*handler, *count, args, *exclusive, *result),
            Call::Op {
                code,
                regs,
                imm,
                label,
            } => {
                // The script names the label before it calls the builder.
                let l = self.label_at(*label);
                self.plain(*code, *regs, *imm, l)
            }
        }
    }

    /// P4: a wait count is 0 ..= 4,294,967,295 (no negatives).
    fn wait(&mut self, n: i64) -> Outcome {
        match u32::try_from(n) {
            Ok(w) => {
                self.push(op(Opcode::Wait, 0, w));
                Ok(())
            }
            Err(_) => Err(vec![BuildError::WaitCount(n)]),
        }
    }

    /// S9: an integer count becomes `constant(count)`, the micro-op's register a.
    fn enqueue(
        &mut self,
        handler: i64,
        count: Arg,
        args: &[Arg],
        exclusive: bool,
        result: bool,
    ) -> Outcome {
        let t = template(handler, None, args, exclusive, result);
        let mut errors = t.as_ref().err().cloned().unwrap_or_default();
        let register = match count {
            Arg::Reg(r) => Some(r),
            Arg::Int(v) => match fit32(v) {
                None => {
                    errors.push(BuildError::EnqueueCount(v));
                    None
                }
                Some(w) => {
                    let held = self.constants.iter().any(|(c, _)| *c == w);
                    if !held && self.free() == 0 {
                        errors.push(BuildError::TooManyRegisters { asked: 1, free: 0 });
                    }
                    None
                }
            },
        };
        if !errors.is_empty() {
            return Err(errors);
        }
        let register = match (register, count) {
            (Some(r), _) => r,
            (None, Arg::Int(v)) => self.constant(v)?,
            (None, Arg::Reg(r)) => r,
        };
        self.templates.push(t?);
        let index = (self.templates.len() - 1) as u32;
        self.push(op(Opcode::Enqueue, register, index));
        Ok(())
    }

    /// A plain micro-op call as the script makes it: the fields the opcode
    /// reads from `regs` (a, b, c), the others 0; a value immediate that
    /// must fit 32 bits, a jump to `label`, or no immediate (0). WAIT, SUBMIT
    /// and ENQUEUE become `wait(imm)`, a submit of handler 1 on (0, 1) and an
    /// enqueue of handler 1 counting register a, without arguments.
    fn plain(&mut self, code: Opcode, regs: [u8; 3], imm: i64, label: LabelRef) -> Outcome {
        match code {
            Opcode::Wait => return self.wait(imm),
            Opcode::Submit => {
                return self.call(&Call::Submit {
                    handler: 1,
                    group: (Arg::Int(0), Arg::Int(1)),
                    args: Vec::new(),
                    exclusive: false,
                    result: false,
                });
            }
            Opcode::Enqueue => {
                return self.enqueue(1, Arg::Reg(regs[0]), &[], false, false);
            }
            _ => {}
        }
        let mut m = op(code, 0, 0);
        for field in code.regs() {
            match field {
                RegField::A => m.a = regs[0],
                RegField::B => m.b = regs[1],
                RegField::C => m.c = regs[2],
            }
        }
        let mut jump = None;
        match code.imm_kind() {
            ImmKind::Value => {
                m.imm = fit32(imm).ok_or_else(|| {
                    vec![BuildError::Immediate {
                        op: code.mnemonic(),
                        value: imm,
                    }]
                })?;
            }
            ImmKind::Target => jump = Some(label),
            ImmKind::None | ImmKind::Template => {}
        }
        self.body.push(BodyOp { op: m, jump });
        Ok(())
    }

    /// The upload (S8: the constants' SETs, then the body with every jump
    /// at its label's position plus the prologue; S9: the templates in call
    /// order), or what P4 refuses: too many micro-ops, none, a label never
    /// bound, a label of another stream, a jump to the end of the program.
    fn upload(&self) -> Result<Upload, Vec<BuildError>> {
        let prologue = self.constants.len();
        let total = prologue + self.body.len();
        let mut errors = Vec::new();
        if total > 65_535 {
            errors.push(BuildError::TooManyOps(total));
        }
        if total == 0 {
            errors.push(BuildError::Empty);
        }
        for (i, l) in self.labels.iter().enumerate() {
            if l.is_none() {
                errors.push(BuildError::UnboundLabel(i));
            }
        }
        let mut ops: Vec<MicroOp> = self
            .constants
            .iter()
            .map(|&(v, r)| op(Opcode::Set, r, v))
            .collect();
        for b in &self.body {
            let mut m = b.op;
            match b.jump {
                None => {}
                Some(LabelRef::Foreign(i)) => errors.push(BuildError::UnknownLabel(i)),
                Some(LabelRef::Own(i)) => match self.labels[i] {
                    None => {} // UnboundLabel(i) above
                    Some(p) if prologue + p >= total => errors.push(BuildError::JumpPastEnd {
                        label: i,
                        target: prologue + p,
                    }),
                    Some(p) => m.imm = (prologue + p) as u32,
                },
            }
            ops.push(m);
        }
        if !errors.is_empty() {
            return Err(errors);
        }
        Ok(Upload {
            header: self.header,
            ops,
            templates: self.templates.clone(),
        })
    }
}

/// The template of one `submit` (`group` given) or `enqueue` call (S9, P4):
/// handler 1..=239; at most ten arguments, at most four of them registers;
/// integer arguments that fit 32 bits into the command, register arguments
/// as patches in ascending argument order; integer group fields 0..=65,535
/// into the command with the group register 0xFF, a register field as that
/// register's number (what the command's field then holds is not the
/// rules' business: [`same_template`] does not compare it). An `enqueue`'s
/// template has group (0, 0) from the command.
fn template(
    handler: i64,
    group: Option<(Arg, Arg)>,
    args: &[Arg],
    exclusive: bool,
    result: bool,
) -> Result<Template, Vec<BuildError>> {
    let mut errors = Vec::new();
    if !(1..=239).contains(&handler) {
        errors.push(BuildError::Handler(handler));
    }
    if args.len() > 10 {
        errors.push(BuildError::TooManyArgs(args.len()));
    }
    let registers = args.iter().filter(|a| matches!(a, Arg::Reg(_))).count();
    if registers > 4 {
        errors.push(BuildError::TooManyRegisterArgs(registers));
    }
    let mut t = Template {
        command: Command {
            handler: handler.clamp(0, 255) as u8,
            flags: (if exclusive { EXCLUSIVE } else { 0 }) | (if result { RESULT } else { 0 }),
            ..Command::default()
        },
        first_register: FROM_COMMAND,
        count_register: FROM_COMMAND,
        ..Template::default()
    };
    for (index, a) in args.iter().enumerate() {
        match *a {
            Arg::Int(value) => match fit32(value) {
                Some(w) if index < 10 => t.command.args[index] = w,
                Some(_) => {}
                None => errors.push(BuildError::Argument { index, value }),
            },
            Arg::Reg(r) => {
                let k = usize::from(t.patch_count);
                if k < 4 {
                    t.patch_arg[k] = index as u8;
                    t.patch_reg[k] = r;
                    t.patch_count += 1;
                }
            }
        }
    }
    if let Some((first, count)) = group {
        for (field, a) in [("first", first), ("count", count)] {
            let (value, register) = match a {
                Arg::Reg(r) => (0, r),
                Arg::Int(v) => match u16::try_from(v) {
                    Ok(w) => (w, FROM_COMMAND),
                    Err(_) => {
                        errors.push(BuildError::GroupField { field, value: v });
                        (0, FROM_COMMAND)
                    }
                },
            };
            if field == "first" {
                (t.command.first, t.first_register) = (value, register);
            } else {
                (t.command.count, t.count_register) = (value, register);
            }
        }
    }
    if errors.is_empty() {
        Ok(t)
    } else {
        Err(errors)
    }
}

/// Whether `got` is the template `want` asks for: equal, except a group
/// field read from a register, whose command field the rules leave open.
pub fn same_template(want: &Template, got: &Template) -> bool {
    let mut w = *want;
    if w.first_register != FROM_COMMAND {
        w.command.first = got.command.first;
    }
    if w.count_register != FROM_COMMAND {
        w.command.count = got.command.count;
    }
    w == *got
}

#[cfg(test)]
mod tests {
    use super::*;

    fn script(calls: Vec<Call>) -> Script {
        Script {
            deadline_us: 0,
            max_steps: 100,
            seed: 1,
            req: 0,
            calls,
        }
    }

    #[test]
    fn header_ranges_are_p4s() {
        // max_steps 0 and seed 2^32 both break P4: either error is right.
        let s = Script {
            max_steps: 0,
            seed: 1 << 32,
            ..script(vec![])
        };
        assert_eq!(
            expect(&s).new,
            Err(vec![BuildError::MaxSteps(0), BuildError::Seed(1 << 32)])
        );
        // An empty program is refused at upload (P4).
        assert_eq!(expect(&script(vec![])).upload, Err(vec![BuildError::Empty]));
    }

    #[test]
    fn constants_make_a_prologue_and_jumps_count_it() {
        // label L0 at body 0; constant 7 -> r0 (lowest free, S7); constant
        // -1 -> r1; constant 4294967295 is -1's 32 bits -> r1 again;
        // jmp L0 -> target 0 + prologue 2 = 2 (S8); halt r0.
        let s = script(vec![
            Call::Label,
            Call::Constant(7),
            Call::Constant(-1),
            Call::Constant(u32::MAX.into()),
            Call::Op {
                code: Opcode::Jmp,
                regs: [9, 9, 9],
                imm: 0,
                label: 0,
            },
            Call::Op {
                code: Opcode::Halt,
                regs: [0, 9, 9],
                imm: 5,
                label: 0,
            },
        ]);
        let e = expect(&s);
        assert!(e.calls.iter().all(Result::is_ok), "{:?}", e.calls);
        let u = e.upload.unwrap();
        assert_eq!(
            u.ops,
            vec![
                op(Opcode::Set, 0, 7),
                op(Opcode::Set, 1, u32::MAX),
                op(Opcode::Jmp, 0, 2),
                op(Opcode::Halt, 0, 0),
            ]
        );
    }

    #[test]
    fn a_foreign_label_is_refused_even_when_its_number_is_ours() {
        // ForeignLabel with no labels yet: the other stream makes labels 0
        // and 1, the script keeps 1. Two own labels (0 and 1) follow; the
        // script's label list is [F1, own 0, own 1]. Bind(0) names F1:
        // UnknownLabel(1) although this stream has a label 1.
        let s = script(vec![
            Call::ForeignLabel,
            Call::Forward,
            Call::Forward,
            Call::Bind(0),
        ]);
        let e = expect(&s);
        assert_eq!(e.calls[3], Err(vec![BuildError::UnknownLabel(1)]));
    }

    #[test]
    fn an_integer_enqueue_count_is_a_constant_and_register_args_are_patches() {
        // enqueue(5, count 3, [r7, 9, r2]) -> constant 3 in r0 (prologue SET
        // r0, 3); template: handler 5, result flag 4, args[1] = 9, patches
        // (arg 0 <- r7), (arg 2 <- r2), group (0, 0) from the command; the
        // ENQUEUE reads r0 and names template 0. Then a HALT.
        let s = script(vec![
            Call::Enqueue {
                handler: 5,
                count: Arg::Int(3),
                args: vec![Arg::Reg(7), Arg::Int(9), Arg::Reg(2)],
                exclusive: false,
                result: true,
            },
            Call::Op {
                code: Opcode::Halt,
                regs: [0, 0, 0],
                imm: 0,
                label: 0,
            },
        ]);
        let u = expect(&s).upload.unwrap();
        assert_eq!(
            u.ops,
            vec![
                op(Opcode::Set, 0, 3),
                op(Opcode::Enqueue, 0, 0),
                op(Opcode::Halt, 0, 0)
            ]
        );
        let t = u.templates[0];
        assert_eq!((t.command.handler, t.command.flags), (5, 4));
        assert_eq!(t.command.args[1], 9);
        assert_eq!(t.patch_count, 2);
        assert_eq!((t.patch_arg, t.patch_reg), ([0, 2, 0, 0], [7, 2, 0, 0]));
        assert_eq!((t.first_register, t.count_register), (0xFF, 0xFF));
    }
}

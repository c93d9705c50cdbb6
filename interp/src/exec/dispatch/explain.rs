//! Where each variant's code for each unit is in this process, for `kmst
//! explain`: the named handlers of handlers.rs as the variants' tables hold
//! them (the observer-free instances a plain run uses), and, for the
//! variants whose units are arms of one loop function (switch,
//! loop_match), that function and the unit's index. Addresses only:
//! reading and disassembling the machine code is the command line's.

use std::fmt;

use super::Dispatch;
use crate::exec::inst::{HANDLERS, HEAD, Inst};
use crate::exec::observer::NoObserver;
use crate::ops::Opcode;

/// The fields of a pre-decoded instruction as `(offset, size, what)`, in
/// bytes, for reading a handler's loads (`kmst explain`); an instruction
/// is [`INST_LEN`] bytes, the next one right after it.
pub fn inst_fields() -> [(usize, usize, &'static str); 6] {
    use std::mem::offset_of;
    /// The size of the field `f` reads.
    fn size<T>(_: fn(&Inst) -> &T) -> usize {
        std::mem::size_of::<T>()
    }
    [
        (
            offset_of!(Inst, handler),
            size(|i| &i.handler),
            "handler (threaded)",
        ),
        (
            offset_of!(Inst, op),
            size(|i| &i.op),
            "op byte: the handler index",
        ),
        (offset_of!(Inst, a), size(|i| &i.a), "field a"),
        (offset_of!(Inst, b), size(|i| &i.b), "field b"),
        (offset_of!(Inst, c), size(|i| &i.c), "field c"),
        (offset_of!(Inst, imm), size(|i| &i.imm), "imm"),
    ]
}

/// The size of a pre-decoded instruction, in bytes.
pub const INST_LEN: usize = std::mem::size_of::<Inst>();

/// The bit of the `op` byte that marks a block's head.
pub const HEAD_BIT: u8 = HEAD;

/// A unit: a micro-op, `End`, a superinstruction or an operand variant,
/// by its name in handlers.rs (`add`, `add_b`, `addi_jlt_in_place`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Unit {
    /// Its handlers' names without their kind.
    pub name: &'static str,
    /// What it runs, in words.
    pub doc: &'static str,
    /// Its handler index (the `op` byte without the head bit).
    pub index: u8,
}

/// The handlers of every unit are in this file (its row: [`Unit::line`]).
pub const HANDLERS_FILE: &str = "interp/src/exec/dispatch/handlers.rs";

impl Unit {
    /// Every unit, in handler-index order.
    pub fn all() -> Vec<Unit> {
        (0..HANDLERS as u8).map(Unit::at).collect()
    }

    fn at(index: u8) -> Unit {
        let (name, doc, _, _) = handler_rows()[usize::from(index)];
        Unit { name, doc, index }
    }

    /// The unit named `name`: a handler name without its kind (`add_b`),
    /// or a micro-op's mnemonic (`result` is `read_result`).
    pub fn find(name: &str) -> Option<Unit> {
        let name = name.to_ascii_lowercase();
        if let Some(u) = Unit::all().into_iter().find(|u| u.name == name) {
            return Some(u);
        }
        let op = Opcode::from_mnemonic(&name)?;
        Unit::all()
            .into_iter()
            .nth(Opcode::ALL.iter().position(|&o| o == op)?)
    }

    /// The first line of its section in [`HANDLERS_FILE`].
    pub fn line(self) -> u32 {
        handler_rows()[usize::from(self.index)].2
    }

    /// The line of its handler of kind `kind` (`counted`, ..., `switch`,
    /// `loop_match`: how the handler's name ends) in [`HANDLERS_FILE`].
    fn handler_line(self, kind: &str) -> u32 {
        let k = super::handlers::KINDS.iter().position(|&k| k == kind);
        k.map_or(self.line(), |k| {
            handler_rows()[usize::from(self.index)].3[k]
        })
    }
}

impl fmt::Display for Unit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name)
    }
}

/// handlers.rs's table of units.
#[allow(clippy::type_complexity)]
fn handler_rows() -> &'static [(&'static str, &'static str, u32, [u32; 7]); HANDLERS] {
    &super::handlers::UNITS
}

/// What a piece of machine code is for a unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A chained handler that counts one unit of fuel per micro-op.
    Counted,
    /// A chained handler inside a block its head paid for.
    Charged,
    /// A chained handler at a block's head.
    Head,
    /// The subroutine loop's unit, which returns to the loop.
    Sub,
    /// The indirect variant's unit, which tail-calls the central dispatch.
    Indirect,
    /// The arm of a loop function's `match` that runs the unit: found
    /// through the loop's jump table at entry [`Unit::index`].
    Arm,
}

impl Kind {
    /// Its name, as handlers.rs's names end.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Counted => "counted",
            Kind::Charged => "charged",
            Kind::Head => "head",
            Kind::Sub => "sub",
            Kind::Indirect => "indirect",
            Kind::Arm => "arm",
        }
    }
}

/// One function (or arm) of machine code a variant runs for a unit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Code {
    /// What it is.
    pub kind: Kind,
    /// Its name in the source (`add_charged`; an arm: `switch::run`'s
    /// `OpIndex::Add`).
    pub name: String,
    /// Where its source is, `file:line`.
    pub source: String,
    /// The address of its first instruction in this process; an arm's:
    /// the loop function's.
    pub addr: usize,
}

/// The code `dispatch` runs for `unit`, in this process.
pub fn code(dispatch: Dispatch, unit: Unit) -> Vec<Code> {
    let i = usize::from(unit.index);
    let row = |kind: Kind, addr: usize| Code {
        kind,
        name: format!("{}_{}", unit.name, kind.name()),
        source: format!("{HANDLERS_FILE}:{}", unit.handler_line(kind.name())),
        addr,
    };
    let _ = (i, &row);
    match dispatch {
        #[cfg(feature = "tail")]
        Dispatch::Tail => {
            type N = super::tail::Tail<NoObserver>;
            chained::<N>(&N::TABLE, i)
                .map(|(kind, addr)| row(kind, addr))
                .into()
        }
        #[cfg(feature = "threaded")]
        Dispatch::Threaded => {
            type N = super::threaded::Threaded<NoObserver>;
            chained::<N>(&N::TABLE, i)
                .map(|(kind, addr)| row(kind, addr))
                .into()
        }
        #[cfg(feature = "subroutine")]
        Dispatch::Subroutine => vec![row(Kind::Sub, super::subroutine::entry::<NoObserver>(i))],
        #[cfg(feature = "indirect")]
        Dispatch::Indirect => {
            // LLVM inlines the ring of `become`s (every callee is static)
            // into the central dispatch: the named handler runs as its arm.
            vec![arm(
                "indirect::central",
                "indirect",
                unit,
                super::indirect::central::<NoObserver> as *const () as usize,
            )]
        }
        #[cfg(feature = "switch")]
        Dispatch::Switch => vec![arm(
            "switch::run",
            "switch",
            unit,
            super::switch::run::<NoObserver> as *const () as usize,
        )],
        #[cfg(feature = "loop_match")]
        Dispatch::LoopMatch => vec![arm(
            "loop_match::run",
            "loop_match",
            unit,
            super::loop_match::run::<NoObserver> as *const () as usize,
        )],
        // The compiled tier's code is each upload's (`compiled`); a unit
        // it hands to the interpreter runs as the subroutine loop's.
        #[cfg(feature = "jit")]
        Dispatch::Jit => code(Dispatch::Subroutine, unit),
        // The interpreter a program runs in until it is hot.
        #[cfg(all(feature = "jit", feature = "tail"))]
        Dispatch::Tiered => code(Dispatch::Tail, unit),
        #[cfg(all(feature = "jit", not(feature = "tail")))]
        Dispatch::Tiered => code(Dispatch::Subroutine, unit),
        // Each upload's copied stencils; a unit the code hands to the
        // interpreter runs as the subroutine loop's.
        #[cfg(feature = "stencil")]
        Dispatch::Stencil => code(Dispatch::Subroutine, unit),
    }
}

/// The counted, charged and head handlers of handler index `i` of the
/// chained variant `N`, whose charged and head handlers are `table`.
#[cfg(feature = "chain")]
fn chained<N: super::kinds::NextHandler>(
    table: &[crate::exec::inst::Handler; crate::exec::inst::TABLE_LEN],
    i: usize,
) -> [(Kind, usize); 3] {
    [
        (
            Kind::Counted,
            super::chain::Checked::<NoObserver, N>::TABLE[i] as usize,
        ),
        (Kind::Charged, table[i] as usize),
        (Kind::Head, table[HEAD as usize + i] as usize),
    ]
}

/// What [`code`] shows of `dispatch` when it is not the variant's own
/// code for a unit: the compiled tiers' interpreters.
pub fn note(dispatch: Dispatch) -> Option<&'static str> {
    match dispatch {
        #[cfg(feature = "jit")]
        Dispatch::Jit => Some(
            "jit compiles each upload (`kmst explain FILE --dispatch jit`); shown: the \
             subroutine unit it runs a micro-op it leaves to the interpreter with",
        ),
        #[cfg(feature = "jit")]
        Dispatch::Tiered => Some(if cfg!(feature = "tail") {
            "tiered runs tail's handlers until the program is hot, then jit's code; shown: tail's"
        } else {
            "tiered runs the subroutine loop until the program is hot, then jit's code; shown: \
             subroutine's"
        }),
        #[cfg(feature = "stencil")]
        Dispatch::Stencil => Some(
            "stencil copies and patches each upload's code from stencils of the bodies; shown: \
             the subroutine unit it runs a micro-op it leaves to the interpreter with",
        ),
        _ => None,
    }
}

/// One region of an upload compiled by the `jit` variant: its function's
/// machine code.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Region {
    /// The pcs of the micro-ops it holds.
    pub pcs: std::ops::Range<u32>,
    /// Its machine code, as Cranelift emitted it (before it is made
    /// runnable: calls and jumps out of it are relocated there).
    pub code: Vec<u8>,
}

/// Why an upload's compiled code cannot be shown ([`compiled`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NotCompiled {
    /// The check rejects the upload (checked with a region as long as it).
    Rejected(crate::check::StreamError),
    /// This build has no compiled tier (kmst's feature `jit`).
    NotBuilt,
    /// Cranelift has no backend for this host, or failed: its words.
    Compiler(String),
}

impl fmt::Display for NotCompiled {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NotCompiled::Rejected(e) => write!(f, "the check rejects the upload: {e}"),
            NotCompiled::NotBuilt => f.write_str(
                "this build has no such compiled tier (kmst's features `jit` and `stencil`)",
            ),
            NotCompiled::Compiler(e) => write!(f, "the compiled tier cannot compile it: {e}"),
        }
    }
}

impl std::error::Error for NotCompiled {}

/// The regions the `jit` variant compiles for `upload`, checked with a
/// region as long as the upload.
pub fn compiled(upload: &[u8]) -> Result<Vec<Region>, NotCompiled> {
    let checked = crate::check::CheckedUpload::new(upload, upload.len() as u64)
        .map_err(NotCompiled::Rejected)?;
    #[cfg(not(feature = "jit"))]
    {
        let _ = checked;
        Err(NotCompiled::NotBuilt)
    }
    #[cfg(feature = "jit")]
    {
        use crate::exec::compiled::cranelift::{Code, REGION, available};
        available().map_err(NotCompiled::Compiler)?;
        let p = crate::exec::decode::Program::decode(&checked);
        let mut regions = Vec::new();
        Code::compile_seen(&p.insts, REGION, &mut |pcs, code| {
            regions.push(Region {
                pcs,
                code: code.to_vec(),
            })
        })
        .map_err(NotCompiled::Compiler)?;
        Ok(regions)
    }
}

/// The stencil code the `stencil` variant makes for `upload` (checked with
/// a region as long as the upload), as it is before it is mapped: the
/// exits first, then each pc's code (a head's where a block starts, then
/// its micro-op's stencil), every jump a displacement inside it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stenciled {
    /// The code.
    pub code: Vec<u8>,
    /// Where each pc's code starts in it, `End`'s last.
    pub starts: Vec<usize>,
}

/// [`Stenciled`] for `upload`.
pub fn stenciled(upload: &[u8]) -> Result<Stenciled, NotCompiled> {
    let checked = crate::check::CheckedUpload::new(upload, upload.len() as u64)
        .map_err(NotCompiled::Rejected)?;
    #[cfg(not(feature = "stencil"))]
    {
        let _ = checked;
        Err(NotCompiled::NotBuilt)
    }
    #[cfg(feature = "stencil")]
    {
        let p = crate::exec::decode::Program::decode(&checked);
        let (code, starts) =
            crate::exec::compiled::stencil::listing(&p.insts).map_err(NotCompiled::Compiler)?;
        Ok(Stenciled { code, starts })
    }
}

/// The arm of loop function `func` (at `addr`) for `unit`: its handler
/// `NAME_kind`, inlined there.
#[allow(dead_code)] // a build without the loop variants
fn arm(func: &str, kind: &str, unit: Unit, addr: usize) -> Code {
    Code {
        kind: Kind::Arm,
        name: format!("{}_{kind}, inlined into {func}", unit.name),
        source: format!("{HANDLERS_FILE}:{}", unit.handler_line(kind)),
        addr,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each unit's line in handlers.rs starts its section, which holds
    /// every handler named after it, each at its own line, up to the next
    /// unit's.
    #[test]
    fn each_units_line_holds_its_row() {
        let file = include_str!("handlers.rs");
        let lines: Vec<&str> = file.lines().collect();
        let all = Unit::all();
        for (k, u) in all.iter().enumerate() {
            let at = u.line() as usize;
            assert!(lines[at - 1].starts_with(&format!("// {u}: ")), "{u}");
            let end = all.get(k + 1).map_or(lines.len(), |n| n.line() as usize);
            for kind in [
                "counted",
                "charged",
                "head",
                "sub",
                "indirect",
                "switch",
                "loop_match",
            ] {
                let line = u.handler_line(kind) as usize;
                assert!((at..end).contains(&line), "{u}_{kind}");
                assert!(
                    lines[line - 1].contains(&format!("fn {u}_{kind}<")),
                    "{u}_{kind}"
                );
            }
        }
    }

    #[test]
    fn units_are_found_by_name_and_mnemonic() {
        // ADD is the third micro-op of the definition list (ops.rs).
        let add = Unit::find("add").unwrap();
        assert_eq!((add.name, add.index), ("add", 2));
        // RESULT's mnemonic names the unit ReadResult.
        assert_eq!(Unit::find("result").unwrap().name, "read_result");
        assert_eq!(Unit::find("ADDI_JLT").unwrap().name, "addi_jlt");
        assert_eq!(Unit::find("nosuch"), None);
    }

    /// Every variant with handlers of its own gives each unit code at a
    /// distinct address per kind, and the arms of a loop share the loop's.
    #[test]
    fn every_unit_has_code_under_every_interpreter() {
        for &d in Dispatch::ALL {
            for u in Unit::all() {
                let code = code(d, u);
                assert!(!code.is_empty(), "{d} {u}");
                for c in &code {
                    assert_ne!(c.addr, 0, "{d} {u}");
                }
            }
        }
    }

    /// The layout of docs/dispatch.md "Pre-decoding": 16 bytes, the
    /// handler pointer first (8 bytes on a 64-bit host), then the `op`
    /// byte, `a`, `b`, `c`, and the 4-byte imm.
    #[cfg(target_pointer_width = "64")]
    #[test]
    fn the_fields_are_the_instructions_layout() {
        assert_eq!(INST_LEN, 16);
        let at: Vec<(usize, usize)> = inst_fields()
            .iter()
            .map(|&(at, size, _)| (at, size))
            .collect();
        assert_eq!(at, [(0, 8), (8, 1), (9, 1), (10, 1), (11, 1), (12, 4)]);
        assert_eq!(inst_fields()[2].2, "field a");
        assert_eq!(HEAD_BIT, 0x40);
    }

    /// Only the compiled tiers show another variant's code, and say so.
    #[test]
    fn only_the_compiled_tiers_have_a_note() {
        for &d in Dispatch::ALL {
            let compiled = matches!(d.name(), "jit" | "tiered" | "stencil");
            assert_eq!(note(d).is_some(), compiled, "{d}");
            if let Some(n) = note(d) {
                assert!(n.starts_with(d.name()), "{n}");
            }
        }
    }

    /// The subroutine loop's unit of a handler index is its table's entry,
    /// the same at the index and at the index with the head bit.
    #[cfg(feature = "subroutine")]
    #[test]
    fn a_subroutine_is_its_tables_entry() {
        for u in Unit::all() {
            let code = code(Dispatch::Subroutine, u);
            assert_eq!(code.len(), 1);
            let c = &code[0];
            let i = usize::from(u.index);
            assert_eq!(
                c.addr,
                super::super::subroutine::entry::<NoObserver>(i + usize::from(HEAD))
            );
            assert_eq!(c.kind, Kind::Sub);
            assert_eq!(c.name, format!("{u}_sub"));
        }
    }

    /// Without the compiled tier there is nothing to compile.
    #[cfg(not(feature = "jit"))]
    #[test]
    fn a_build_without_the_compiled_tier_says_so() {
        let mut s = crate::builder::Stream::new(0, 1_000, 1, 7).unwrap();
        let r = s.registers(1).unwrap()[0];
        s.halt(r);
        let e = compiled(&s.encode().unwrap()).unwrap_err();
        assert_eq!(e, NotCompiled::NotBuilt);
        assert!(e.to_string().contains("`jit`"), "{e}");
    }

    /// `SET r1, 10; top: ADDI r0, r0, 1; JLT r0, r1, top; HALT r0`, the
    /// compiled tiers' tests' upload.
    #[cfg(any(feature = "jit", feature = "stencil"))]
    fn small_loop() -> Vec<u8> {
        let mut s = crate::builder::Stream::new(0, 1_000, 1, 7).unwrap();
        let r = s.registers(2).unwrap();
        s.set(r[1], 10).unwrap();
        let top = s.label();
        s.addi(r[0], r[0], 1).unwrap();
        s.jlt(r[0], r[1], top);
        s.halt(r[0]);
        s.encode().unwrap()
    }

    /// The stencil code of a small loop, `SET r1, 10; top: ADDI r0, r0, 1;
    /// JLT r0, r1, top; HALT r0`: a start for each pc and `End`, in order,
    /// and the JLT's stencil (no head: it does not start a block) jumping
    /// to the ADDI's code, the loop's head: `mov eax, [rdi + a]; cmp eax,
    /// [rdi + b]; jb rel32`, the displacement at byte 14.
    #[cfg(feature = "stencil")]
    #[test]
    fn an_upload_makes_its_stencil_code() {
        if crate::exec::compiled::stencil::available().is_err() {
            return;
        }
        let upload = small_loop();
        let st = stenciled(&upload).unwrap();
        assert_eq!(st.starts.len(), 5);
        assert!(st.starts.windows(2).all(|w| w[0] < w[1]));
        assert!(st.code.len() > st.starts[4]);
        let jlt = st.starts[2];
        assert_eq!(st.code[jlt + 12..jlt + 14], [0x0F, 0x82], "jb rel32");
        let rel = i32::from_le_bytes(st.code[jlt + 14..jlt + 18].try_into().unwrap());
        assert_eq!(jlt as i64 + 18 + i64::from(rel), st.starts[1] as i64);
        let e = stenciled(&upload[..10]).unwrap_err();
        assert!(matches!(&e, NotCompiled::Rejected(r) if r.pc == 0), "{e}");
    }

    /// The compiled tier's regions of a small loop: one region holding its
    /// micro-ops (SET, ADDI, JLT, HALT: pcs 0..4, a region holds up to
    /// 1,024), with code; a rejected upload names the check.
    #[cfg(feature = "jit")]
    #[test]
    fn an_upload_compiles_to_its_regions() {
        if crate::exec::compiled::cranelift::available().is_err() {
            return;
        }
        let upload = small_loop();
        let regions = compiled(&upload).unwrap();
        assert_eq!(regions.len(), 1);
        assert_eq!(regions[0].pcs.start, 0);
        assert!(!regions[0].code.is_empty());
        // Cut short: the check's reason 1 at pc 0 (S5).
        let e = compiled(&upload[..10]).unwrap_err();
        assert!(matches!(&e, NotCompiled::Rejected(r) if r.pc == 0), "{e}");
        assert!(
            e.to_string().starts_with("the check rejects the upload"),
            "{e}"
        );
    }
}

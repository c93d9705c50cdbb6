//! The instruction every dispatch variant runs and what it says: the
//! pre-decoded micro-op ([`Inst`]), the dense handler index in its `op`
//! byte ([`OpIndex`], with the superinstructions and variants of
//! [`for_each_fused!`]), the [`HEAD`] bit of a block's head, and why a
//! chain of handlers returns ([`Exit`]). The bottom layer of the
//! interpreter: it depends on nothing of `exec`.
//!
//! # Blocks: fuel charged once per straight-line run
//!
//! The decoder cuts the program into blocks: runs of micro-ops that control
//! enters only at the first (the block's head: pc 0, a jump target, the
//! micro-op after a jump or after one that can stop the turn, `End`) and
//! that only the last can leave early (bodies' `OpBody::STRAIGHT`). A head's
//! `op` byte has the [`HEAD`] bit and its free field ([`len_in_imm`]) says
//! how many micro-ops the block has. A head's handler charges the whole
//! block when the fuel covers it, and the block's other handlers then count
//! nothing; with less fuel, it counts micro-op by micro-op until the fuel
//! runs out inside the block, so the turn still ends after exactly the
//! micro-op S17 says (dispatch/chain.rs, `head`). That is the only thing
//! fuel decides: wrong fuel gives a wrong answer, never an access outside
//! the program.

use crate::ops::{ImmKind, Opcode};

/// Every handler's signature: instruction pointer, register file, the
/// accumulator (the value the last straight micro-op wrote, docs/dispatch.md
/// "The accumulator"), an unused slot, the type-erased
/// [`Ctx`](super::bodies::Ctx), and the one folded fuel counter. All
/// travel in registers; the return value is one byte. The [`Free`] slot
/// takes rcx (x86-64), so that `ctx` and `fuel` sit in r8 and r9: SHR's
/// shift count must be in `cl` and MOD's divide uses `edx:eax` (where only
/// the accumulator lives, which MOD does not keep; decisions.md D6). The
/// plain Rust calling convention is the default; `rust-preserve-none`
/// (`--cfg kmst_preserve_none`) is not (decisions.md D5).
#[cfg(not(kmst_preserve_none))]
pub(crate) type Handler = unsafe fn(*const Inst, *mut u32, u32, Free, *mut (), u32) -> Exit;

/// An argument slot that carries nothing: passed uninitialised, it costs no
/// instruction and leaves its register free for a handler's body.
pub(crate) type Free = std::mem::MaybeUninit<usize>;

/// Every handler's signature, with the `rust-preserve-none` convention.
#[cfg(kmst_preserve_none)]
pub(crate) type Handler =
    unsafe extern "rust-preserve-none" fn(*const Inst, *mut u32, u32, Free, *mut (), u32) -> Exit;

/// One pre-decoded micro-op: 16 bytes, one per slot of the program.
#[derive(Clone, Copy)]
#[repr(C, align(16))]
pub(crate) struct Inst {
    /// The direct-threaded handler of this micro-op (the `threaded` variant).
    pub handler: Handler,
    /// The dense handler index ([`OpIndex`]), for the table and the switch.
    pub op: u8,
    /// Register fields, each below 16 (S4; the check's `Reason::BadRegister`) where the
    /// micro-op reads it as a register. Besides: SUBMIT's `a` and `b` hold
    /// its template's group registers or `NO_REGISTER` (for the `group`
    /// variant), and a head whose micro-op has an imm keeps its block's
    /// length in `c` ([`len_in_imm`]).
    pub a: u8,
    pub b: u8,
    pub c: u8,
    /// The integer operand; for a jump the distance to its target in
    /// bytes, `(target - pc) * 16` (wrapping, read as i32; decode/), so
    /// that a taken jump is one add; for SUBMIT/ENQUEUE the template index.
    /// A head whose micro-op has no imm keeps its block's length here
    /// ([`len_in_imm`]).
    pub imm: u32,
}

/// The bit of an instruction's `op` byte that marks the head of a block
/// (module doc); the rest of the byte is the [`OpIndex`].
pub(crate) const HEAD: u8 = 0x40;

const _: () = assert!(
    HANDLERS <= HEAD as usize,
    "the HEAD bit is above every index"
);

/// The length of a handler table indexed by `op` bytes: every [`OpIndex`],
/// then (from [`HEAD`] on) every index as a head. The entries between are
/// never used.
#[cfg(feature = "table")]
pub(crate) const TABLE_LEN: usize = HEAD as usize + HANDLERS;

/// Where a head keeps its block's length: in `imm` when its (first)
/// micro-op has no imm, else in `c`, which no micro-op with an imm reads
/// (`for_each_op!`; `End` keeps it in `imm`).
pub(crate) const fn len_in_imm(op: Option<Opcode>) -> bool {
    match op {
        Some(op) => matches!(op.imm_kind(), ImmKind::None),
        None => true,
    }
}

/// The longest block: a length kept in `c` is a byte.
pub(crate) const MAX_BLOCK: usize = u8::MAX as usize;

/// Why a dispatch loop returned to the kernel (the payload is in the turn's `Ctx`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum Exit {
    /// The folded counter (turn budget and steps left) reached zero.
    Fuel,
    /// SUBMIT: all 16 slots busy.
    WaitSlots,
    /// ENQUEUE: the queue holds 64 jobs.
    WaitQueueFull,
    /// Exclusive SUBMIT: an older job still queued, or a busy group overlaps.
    WaitExclusive,
    /// WAIT: too many commands and jobs pending.
    WaitPending,
    /// HALT: commands or jobs still pending.
    HaltPending,
    /// A runtime error; the reason is in the turn's `Ctx`, the pc is the micro-op's.
    Error,
    /// HALT ended the stream; the halt value is in the turn's `Ctx`.
    Halt,
    /// A micro-op that reads or changes the kernel (SUBMIT, ENQUEUE, EVENT,
    /// TIME) was reached in a chain spanning several quick passes: it has not
    /// run, and the kernel must first learn which pass it is in
    /// (machine/turn.rs; machine/mod.rs, "Spans of quick passes").
    Resync,
}

/// Where a body sends control: the next instruction, or back to the kernel.
pub(crate) type Flow = Result<*const Inst, Exit>;

/// Calls `$m!` with `[the micro-op names] [the superinstructions] [the
/// variants]`.
///
/// A superinstruction is `Fused = First + Second;`: a micro-op that is
/// neither a jump nor able to fail or wait, followed by any micro-op;
/// `First(in_place)` asks that the first be in place (its `b` is its `a`,
/// read once; the variants below), `Second(a)` that the second's `a` be the
/// register the first wrote, which it then takes from the accumulator. The
/// pairs are the most frequent straight-line pairs over the corpus and the
/// bench workloads (`kmst profile --pairs`, decisions.md D3), leaving
/// out pairs that only one benchmark's loop has. `Program::decode`
/// (decode/) gives the first of such a pair the fused handler (the first
/// matching entry, in list order) and keeps the second in place unchanged,
/// so a jump into the second still runs it alone; the fused handler counts
/// two micro-ops and stops between them when only one unit of fuel is left
/// (docs/dispatch.md, "Superinstructions").
///
/// A variant is `Variant = Base(src);`: the micro-op `Base` reading its
/// operands from where [`operand::src`](super::operand::src) says, each
/// with the condition `Program::decode` tests before giving it (the first
/// in list order that holds):
/// - `b`, `c`: that register field from the accumulator, the value the
///   micro-op just before it in its block wrote, rather than from the
///   register file, so a chain of dependent micro-ops passes its values in
///   a machine register rather than through a store and a load
///   (docs/dispatch.md "The accumulator");
/// - `in_place`: the micro-op's `b` is its `a` (`ADD r4, r4, r1`), so the
///   body reads one register field less; true wherever the micro-op runs;
/// - `in_place_c`: both;
/// - `a`: a jump's `a` from the accumulator (`AND r2, r1, r10; JEQ r2, r11,
///   zero`): a block's closing test of the value just computed;
/// - `group`: a SUBMIT whose template is not exclusive and takes its first
///   core and count from registers, which the decoder wrote into its `a`
///   and `b` (`NO_REGISTER` otherwise).
macro_rules! for_each_fused {
    ($m:ident [$($ops:tt)*]) => {
        $m! { [$($ops)*] [
            AddiJltInPlace = Addi(in_place) + Jlt(a);
            AddiJlt = Addi + Jlt;
            AddiJnzInPlace = Addi(in_place) + Jnz(a);
            AddiJnz = Addi + Jnz;
            RandMod = Rand + Mod;
            AddAddi = Add + Addi;
        ] [
            AddInPlaceC = Add(in_place_c);
            AddB = Add(b);
            AddC = Add(c);
            AddInPlace = Add(in_place);
            SubB = Sub(b);
            SubC = Sub(c);
            SubInPlace = Sub(in_place);
            MulB = Mul(b);
            MulC = Mul(c);
            MulInPlace = Mul(in_place);
            AndB = And(b);
            AndC = And(c);
            AndInPlace = And(in_place);
            MovB = Mov(b);
            AddiB = Addi(b);
            AddiInPlace = Addi(in_place);
            ShrB = Shr(b);
            ShrInPlace = Shr(in_place);
            JnzA = Jnz(a);
            JltA = Jlt(a);
            JeqA = Jeq(a);
            SubmitGroup = Submit(group);
        ] }
    };
}
pub(crate) use for_each_fused;

macro_rules! define_op_index {
    ($($name:ident = $($field:tt),*;)*) => {
        for_each_fused!(define_op_index_all [$($name)*]);
    };
}

macro_rules! define_op_index_all {
    ([$($name:ident)*] [$($fused:ident = $first:ident $(($fsrc:ident))? + $second:ident $(($ssrc:ident))?;)*] [$($var:ident = $base:ident($src:ident);)*]) => {
        /// The dense handler index of each micro-op, in the order of the
        /// definition list, then the `End` sentinel, then the
        /// superinstructions, then the variants.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        #[repr(u8)]
        pub(crate) enum OpIndex {
            $($name,)*
            End,
            $($fused,)*
            $($var,)*
        }

        /// The number of handlers (every micro-op, `End`, the
        /// superinstructions, the variants).
        pub(crate) const HANDLERS: usize = 0 $(+ { let _ = OpIndex::$fused; 1 })* $(+ { let _ = OpIndex::$var; 1 })* + OpIndex::End as usize + 1;

        impl OpIndex {
            /// The index of an opcode.
            pub(crate) const fn of(op: Opcode) -> OpIndex {
                match op {
                    $(Opcode::$name => OpIndex::$name,)*
                }
            }
        }
    };
}

crate::for_each_op!(define_op_index);

#[cfg(feature = "matched")]
impl OpIndex {
    /// The index stored in an instruction's `op` byte (the [`HEAD`] bit
    /// ignored).
    ///
    /// # Safety
    /// `byte` was written as `OpIndex as u8`, perhaps with the [`HEAD`] bit
    /// (Program::decode does).
    #[inline(always)]
    pub(crate) unsafe fn from_byte(byte: u8) -> OpIndex {
        let byte = byte & !HEAD;
        debug_assert!(usize::from(byte) < HANDLERS);
        // SAFETY: the caller's contract; OpIndex is repr(u8) with dense values.
        unsafe { std::mem::transmute::<u8, OpIndex>(byte) }
    }
}

//! The micro-op bodies, written once, and what every dispatch variant shares.
//!
//! Each micro-op of [`for_each_op!`](crate::for_each_op) has a zero-sized type
//! of the same name (`Add`, `Jlt`, `Submit`, ...) implementing [`OpBody`]: one
//! `#[inline(always)]` function that does the micro-op and says where control
//! goes next ([`Flow`]). The bodies live in one file per category:
//! [`arith`] (register arithmetic), [`control`] (jumps and the `End` sentinel)
//! and [`kernel`] (the micro-ops that talk to the kernel). The three dispatch
//! loops (`tail.rs`, `switch.rs`, `threaded.rs`) are generated from the same
//! list and differ only in how they pass control to the next micro-op.

pub(crate) mod arith;
pub(crate) mod control;
pub(crate) mod kernel;

pub(crate) use arith::*;
pub(crate) use control::*;
pub(crate) use kernel::*;

use super::kernel::{Kernel, Refusal, StreamMeta};
use super::observer::Observer;
use super::program::{Inst, Tmpl};
use crate::ops::Opcode;
use crate::reference::Reason;

/// Why a dispatch loop returned to the kernel (the payload is in [`Ctx`]).
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
    /// A runtime error; the reason is in [`Ctx::reason`], the pc is the micro-op's.
    Error,
    /// HALT ended the stream; the status is in [`Ctx::halt`].
    Halt,
}

/// Where a body sends control: the next instruction, or back to the kernel.
pub(crate) type Flow = std::result::Result<*const Inst, Exit>;

/// Every handler's signature: instruction pointer, register file, the
/// type-erased [`Ctx`], and the one folded fuel counter. All four travel in
/// registers; the return value is one byte. The plain Rust calling
/// convention is the default: `rust-preserve-none` (`--cfg
/// kmst_preserve_none`) measured no faster (docs/dispatch.md).
#[cfg(not(kmst_preserve_none))]
pub(crate) type Handler = unsafe fn(*const Inst, *mut u32, *mut (), u32) -> Exit;
/// Every handler's signature, with the `rust-preserve-none` convention.
#[cfg(kmst_preserve_none)]
pub(crate) type Handler =
    unsafe extern "rust-preserve-none" fn(*const Inst, *mut u32, *mut (), u32) -> Exit;

/// Emits a handler fn item with the calling convention of [`Handler`].
#[cfg(not(kmst_preserve_none))]
macro_rules! handler_fn {
    ($(#[$m:meta])* fn $name:ident $($rest:tt)*) => {
        $(#[$m])* pub(crate) unsafe fn $name $($rest)*
    };
}
#[cfg(kmst_preserve_none)]
macro_rules! handler_fn {
    ($(#[$m:meta])* fn $name:ident $($rest:tt)*) => {
        $(#[$m])* pub(crate) unsafe extern "rust-preserve-none" fn $name $($rest)*
    };
}
pub(crate) use handler_fn;

/// Hands control to the next handler as a guaranteed tail call.
macro_rules! tail_call {
    ($f:expr, $ip:expr, $regs:expr, $ctx:expr, $fuel:expr) => {
        become ($f)($ip, $regs, $ctx, $fuel)
    };
}
pub(crate) use tail_call;

/// The state one turn of one stream works on, reached through raw pointers
/// because the handlers receive it type-erased as `*mut ()`.
pub(crate) struct Ctx<O: Observer> {
    pub kernel: *mut Kernel,
    pub stream: *mut StreamMeta,
    pub obs: *mut O,
    /// The program's first instruction (pc 0).
    pub base: *const Inst,
    pub templates: *const Tmpl,
    /// Where the turn stopped: the next micro-op to run (or the waiting one).
    pub exit_ip: *const Inst,
    /// The fuel left when the turn stopped.
    pub exit_fuel: u32,
    /// The reason of an [`Exit::Error`].
    pub reason: Reason,
    /// The halt register of an [`Exit::Halt`].
    pub halt: u32,
}

impl<O: Observer> Ctx<O> {
    /// Maps the kernel's refusal of a SUBMIT or ENQUEUE onto an exit.
    #[inline(always)]
    pub fn fail(&mut self, refusal: Refusal) -> Exit {
        match refusal {
            Refusal::Wait(exit) => exit,
            Refusal::Error(reason) => {
                self.reason = reason;
                Exit::Error
            }
        }
    }

    /// The program counter of `ip`.
    #[inline(always)]
    pub fn pc(&self, ip: *const Inst) -> u32 {
        // SAFETY: every `ip` a handler sees points into the program starting at
        // `base` (Program::decode: jump targets below op_count, the End
        // sentinel at op_count), so both are in one allocation.
        unsafe { ip.offset_from(self.base) as u32 }
    }
}

/// One micro-op's behaviour.
pub(crate) trait OpBody {
    /// Does the micro-op at `ip`.
    ///
    /// # Safety
    /// `ip` points at an instruction of a decoded [`Program`](super::program::Program)
    /// with this body's op, `regs` at that stream's 16 registers, and `ctx`'s
    /// pointers are live and unaliased for the call.
    unsafe fn run<O: Observer>(ip: *const Inst, regs: *mut u32, ctx: &mut Ctx<O>) -> Flow;
}

/// Reads register `r`.
///
/// # Safety
/// `r < 16` (Program::decode re-tests the check's reason 4) and `regs` points
/// at 16 registers.
#[inline(always)]
pub(crate) unsafe fn get(regs: *mut u32, r: u8) -> u32 {
    // SAFETY: the caller's contract.
    unsafe { *regs.add(usize::from(r)) }
}

/// Writes register `r`.
///
/// # Safety
/// As [`get`].
#[inline(always)]
pub(crate) unsafe fn set(regs: *mut u32, r: u8, v: u32) {
    // SAFETY: the caller's contract.
    unsafe { *regs.add(usize::from(r)) = v }
}

/// Records the exit point (cold, shared by every variant).
#[cold]
#[inline(never)]
pub(crate) unsafe fn exit_at<O: Observer>(
    ctx: *mut (),
    ip: *const Inst,
    fuel: u32,
    why: Exit,
) -> Exit {
    // SAFETY: `ctx` is the `Ctx<O>` the turn created (the dispatch entry's contract).
    let c = unsafe { &mut *(ctx as *mut Ctx<O>) };
    c.exit_ip = ip;
    c.exit_fuel = fuel;
    why
}

/// Counts the completed micro-op at `ip` when the observer wants per-pc counts.
#[inline(always)]
pub(crate) unsafe fn observe<O: Observer>(ctx: *mut (), ip: *const Inst) {
    if O::ENABLED {
        // SAFETY: as `exit_at`; the observer is not otherwise borrowed here.
        let c = unsafe { &mut *(ctx as *mut Ctx<O>) };
        let pc = c.pc(ip);
        unsafe { (*c.obs).on_op(pc) };
    }
}

/// Calls `$m!` with `[the micro-op names] [the superinstructions]`, where each
/// superinstruction is `Fused = First + Second;`: a micro-op that is neither a
/// jump nor able to fail or wait, followed by one that is. Program::decode
/// gives the first of such a pair the fused handler and keeps the second in
/// place unchanged, so a jump into the second still runs it alone; the fused
/// handler counts two micro-ops and stops between them when only one unit of
/// fuel is left (docs/dispatch.md, "Superinstructions").
macro_rules! for_each_fused {
    ($m:ident [$($ops:tt)*]) => {
        $m! { [$($ops)*] [
            AddiJlt = Addi + Jlt;
            AddiJnz = Addi + Jnz;
        ] }
    };
}
pub(crate) use for_each_fused;

macro_rules! define_op_index {
    ($($name:ident = $code:literal, $mn:ident, [$($reg:ident)*], $imm:ident, $doc:literal;)*) => {
        for_each_fused!(define_op_index_all [$($name)*]);
    };
}

macro_rules! define_op_index_all {
    ([$($name:ident)*] [$($fused:ident = $first:ident + $second:ident;)*]) => {
        /// The dense handler index of each micro-op, in the order of the
        /// definition list, then the `End` sentinel, then the superinstructions.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        #[repr(u8)]
        pub(crate) enum OpIndex {
            $($name,)*
            End,
            $($fused,)*
        }

        /// The number of handlers (every micro-op, `End`, the superinstructions).
        pub(crate) const HANDLERS: usize = 0 $(+ { let _ = OpIndex::$fused; 1 })* + OpIndex::End as usize + 1;

        impl OpIndex {
            /// The index of an opcode.
            pub(crate) const fn of(op: Opcode) -> OpIndex {
                match op {
                    $(Opcode::$name => OpIndex::$name,)*
                }
            }

            /// The superinstruction of the pair `first` then `second`, if any.
            pub(crate) fn fuse(first: OpIndex, second: OpIndex) -> Option<OpIndex> {
                $(if first == OpIndex::$first && second == OpIndex::$second {
                    return Some(OpIndex::$fused);
                })*
                None
            }
        }
    };
}

crate::for_each_op!(define_op_index);

/// Runs the superinstruction `A` then `B` at `ip` with `fuel >= 1` units
/// left, exactly as the two micro-ops one after the other: `Ok((next, fuel
/// left))`, where a fuel of 1 stops after `A` with `next` at `B` (fuel 0);
/// `Err` after recording the exit point of the micro-op that stopped.
///
/// # Safety
/// `ip` is a decoded instruction fused from `A` (which returns `ip + 1`) and
/// the instruction after it is a decoded `B`; `regs` and `ctx` as a handler's.
#[inline(always)]
pub(crate) unsafe fn run_pair<A: OpBody, B: OpBody, O: Observer>(
    ip: *const Inst,
    regs: *mut u32,
    ctx: *mut (),
    fuel: u32,
) -> std::result::Result<(*const Inst, u32), Exit> {
    // SAFETY: the caller's contract; `ctx` is the live `Ctx<O>` of the turn.
    unsafe {
        let mid = match A::run::<O>(ip, regs, &mut *(ctx as *mut Ctx<O>)) {
            Ok(mid) => mid,
            Err(why) => return Err(exit_at::<O>(ctx, ip, fuel, why)),
        };
        debug_assert!(mid == ip.add(1));
        observe::<O>(ctx, ip);
        if fuel == 1 {
            // S17: the budget or the steps ran out between the two.
            return Ok((mid, 0));
        }
        match B::run::<O>(mid, regs, &mut *(ctx as *mut Ctx<O>)) {
            Ok(next) => {
                observe::<O>(ctx, mid);
                Ok((next, fuel - 2))
            }
            Err(why) => Err(exit_at::<O>(ctx, mid, fuel - 1, why)),
        }
    }
}

impl OpIndex {
    /// The index stored in an instruction.
    ///
    /// # Safety
    /// `byte` was written as `OpIndex as u8` (Program::decode does).
    #[inline(always)]
    pub(crate) unsafe fn from_byte(byte: u8) -> OpIndex {
        debug_assert!(usize::from(byte) < HANDLERS);
        // SAFETY: the caller's contract; OpIndex is repr(u8) with dense values.
        unsafe { std::mem::transmute::<u8, OpIndex>(byte) }
    }
}

//! The micro-op bodies, written once, and what every dispatch variant shares.
//!
//! Each micro-op of [`for_each_op!`](crate::for_each_op) has a zero-sized type
//! of the same name (`Add`, `Jlt`, `Submit`, ...) implementing [`OpBody`]: one
//! `#[inline(always)]` function that does the micro-op and says where control
//! goes next ([`Flow`]). The bodies live in one file per category:
//! [`arith`] (register arithmetic), [`control`] (jumps and the `End` sentinel)
//! and [`kernel_facing`] (the micro-ops that talk to the kernel, S18). Every
//! dispatch loop (`dispatch/`) is generated from the same list and differs
//! only in how it passes control to the next micro-op; the compiled tier
//! builds each body's lowering (`OpBody::lower`).

pub(crate) mod arith;
pub(crate) mod control;
pub(crate) mod kernel_facing;

pub(crate) use arith::*;
pub(crate) use control::*;
pub(crate) use kernel_facing::*;

#[cfg(feature = "jit")]
use super::compiled::lower::{Emit, Lowered};
use super::inst::Inst;
pub(crate) use super::inst::{Exit, Flow};
use super::kernel::template::Tmpl;
use super::kernel::{Kernel, Refusal, StreamMeta};
use super::observer::Observer;
pub(crate) use super::operand::Src;
use crate::ops::Opcode;
use crate::types::Reason;

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
    /// True when the fuel spans several quick passes (machine/mod.rs,
    /// "Spans of quick passes"): a micro-op that reads or changes the
    /// kernel must return [`Exit::Resync`] before it runs.
    pub spanning: bool,
    /// The stream's program compiled (the `jit`, `stencil` and `tiered`
    /// variants), when it is.
    #[cfg(feature = "compiled")]
    pub code: Option<crate::exec::compiled::entry::Compiled>,
    /// The stream's `Program` (decode/, a layer above this one, hence
    /// erased), for the `tiered` variant, which compiles it once it is hot.
    #[cfg(feature = "jit")]
    pub program: *const (),
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

    /// `Err(Exit::Resync)` inside a span of quick passes (machine/mod.rs,
    /// "Spans of quick passes"): for the micro-ops that read or change the
    /// kernel, which must first learn their pass.
    #[inline(always)]
    pub fn resync(&self) -> Result<(), Exit> {
        if self.spanning {
            Err(Exit::Resync)
        } else {
            Ok(())
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

/// Which micro-op a body does (`None` for the `End` sentinel): made from
/// `for_each_op!`, whose names the bodies bear.
pub(crate) trait Named {
    const OP: Option<Opcode>;
}

macro_rules! named_bodies {
    ($($name:ident = $($field:tt),*;)*) => {
        $(impl Named for $name {
            const OP: Option<Opcode> = Some(Opcode::$name);
        })*
    };
}

crate::for_each_op!(named_bodies);

impl Named for End {
    const OP: Option<Opcode> = None;
}

/// One micro-op's behaviour: [`OpBody::run`] for the interpreters,
/// [`OpBody::lower`] for the compiled tier, side by side in one `impl`.
pub(crate) trait OpBody: Named {
    /// True when the micro-op never stops the turn and always goes on to the
    /// next instruction (never `Err`, always `ip + 1`): it can sit inside a
    /// block (inst.rs "Blocks") rather than end one.
    const STRAIGHT: bool = false;

    /// True when the compiled tier leaves the micro-op to the interpreter
    /// (it reads or changes the kernel, or ends the stream): its lowering
    /// is then [`Lowered::Interpret`] by default. Every other body writes
    /// its own [`OpBody::lower`]; one that forgets does not build with the
    /// feature `jit`.
    #[cfg(feature = "jit")]
    const INTERPRETED: bool = false;

    /// Does the micro-op at `ip`, reading the operands `S` names from
    /// `acc` rather than the register file (a forwarding variant,
    /// docs/dispatch.md "The accumulator"). A straight micro-op leaves in
    /// `acc` the value it wrote to register `a`; any other leaves `acc` as
    /// it is or clears it (it ends its block, and the head after it reads
    /// no accumulator). `S` is [`Regs`](super::operand::Regs) everywhere but in the variants and
    /// pairs of `for_each_fused!` (inst.rs).
    ///
    /// # Safety
    /// `ip` points at an instruction of a decoded [`Program`](super::decode::Program)
    /// with this body's op, `regs` at that stream's 16 registers, and `ctx`'s
    /// pointers are live and unaliased for the call. When `S` reads an
    /// operand from the accumulator, `acc` holds the register the operand
    /// names (the micro-op before wrote it) and the micro-op has that
    /// operand; when `S` is in place, `b` is `a` (Program::decode).
    unsafe fn run<O: Observer, S: Src>(
        ip: *const Inst,
        regs: *mut u32,
        ctx: &mut Ctx<O>,
        acc: &mut u32,
    ) -> Flow;

    /// Builds the micro-op `i` for the compiled tier (exec/compiled/lower.rs), as
    /// [`OpBody::run`] does it: the one definition of what it does, twice
    /// written side by side.
    #[cfg(feature = "jit")]
    fn lower<E: Emit>(e: &mut E, i: &Inst) -> Lowered {
        const {
            assert!(
                Self::INTERPRETED,
                "a body the interpreter does not run alone writes its own `lower`"
            )
        };
        let _ = (e, i);
        Lowered::Interpret
    }
}

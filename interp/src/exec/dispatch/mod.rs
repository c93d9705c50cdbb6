//! The dispatch loops, and the one place a variant is chosen: [`Dispatch`]
//! names the variants compiled into this build, `prepare` readies a
//! decoded program for one (the threaded variant stores its handlers in
//! it), and `enter` runs a chain of handlers with the chosen one. Each
//! variant is a file holding its loop and how it finds the next handler,
//! nothing else:
//!
//! - `tail` (feature `tail`, nightly; the default when built): a static table of handlers, each ending in a
//!   guaranteed tail call (`become`) through the table;
//! - `threaded` (feature `threaded`, nightly): each instruction carries its
//!   handler pointer;
//! - `switch` (feature `switch`; stable Rust): `loop { match op { .. } }`;
//! - `subroutine` (feature `subroutine`; stable Rust): a loop calls each
//!   unit through a table of function pointers, and the unit returns;
//! - `indirect` (feature `indirect`, nightly): each unit's handler
//!   tail-calls one central dispatch function, which matches the next `op`;
//! - `loop_match` (feature `loop_match`, nightly): the switch loop as a
//!   `#[loop_match]` state machine;
//! - `jit` (feature `jit`): the program compiled with Cranelift
//!   (exec/compiled/cranelift/), the micro-ops that read or change the kernel run by the
//!   subroutine loop's units one at a time;
//! - `tiered` (feature `jit`): the tail-call table (else the subroutine
//!   loop) until the program is hot, then the `jit` variant's loop.
//!
//! The tail and threaded variants share their handlers (`chain`): counted,
//! charged and head handlers generated from the same bodies, charging a
//! block's fuel at its head. The other four count the fuel per micro-op
//! through the same units (`step::Unit`), or, the switch loop, the bodies.

#[cfg(feature = "chain")]
pub(crate) mod chain;
#[cfg(any(feature = "chain", feature = "subroutine", feature = "indirect"))]
pub mod explain;
#[cfg(any(feature = "chain", feature = "subroutine", feature = "indirect"))]
pub(crate) mod generic;
// Generated (scripts/gen-handlers.py), its layout the generator's.
#[cfg(any(feature = "chain", feature = "subroutine", feature = "indirect"))]
#[rustfmt::skip]
pub(crate) mod handlers;
#[cfg(feature = "indirect")]
pub(crate) mod indirect;
#[cfg(feature = "loop_match")]
pub(crate) mod loop_match;
#[cfg(feature = "subroutine")]
pub(crate) mod subroutine;
#[cfg(feature = "switch")]
pub(crate) mod switch;
#[cfg(feature = "tail")]
pub(crate) mod tail;
#[cfg(feature = "threaded")]
pub(crate) mod threaded;

use std::fmt;
use std::str::FromStr;

use super::decode::Program;
use super::inst::{Exit, Inst};
use super::observer::Observer;

/// Declares [`Dispatch`], [`Dispatch::ALL`] and [`Dispatch::name`] from
/// one list, each variant once: its documentation, its name and the
/// feature that builds it.
macro_rules! variants {
    ($($(#[doc = $doc:literal])* $variant:ident = $name:literal if $feature:literal;)*) => {
        /// Which fast dispatch loop runs the stream. Each is a cargo
        /// feature; the default is the first of [`Dispatch::ALL`]: `Tail`
        /// when built (nightly), else `Switch` (stable).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Dispatch {
            $($(#[doc = $doc])* #[cfg(feature = $feature)] $variant,)*
        }

        impl Dispatch {
            /// Every variant compiled into this build, the default first.
            pub const ALL: &'static [Dispatch] = &[$(#[cfg(feature = $feature)] Dispatch::$variant,)*];

            /// Its name, as the command line, the answers and the
            /// benchmarks spell it.
            pub fn name(self) -> &'static str {
                match self {
                    $(#[cfg(feature = $feature)] Dispatch::$variant => $name,)*
                }
            }
        }
    };
}

variants! {
    /// Tail-call table (feature `tail`, nightly; the default).
    Tail = "tail" if "tail";
    /// `loop { match }` over the pre-decoded program.
    Switch = "switch" if "switch";
    /// Direct threading: each instruction stores its handler (feature
    /// `threaded`, nightly).
    Threaded = "threaded" if "threaded";
    /// Subroutine threading: a loop calls each unit through a table of
    /// function pointers (feature `subroutine`).
    Subroutine = "subroutine" if "subroutine";
    /// Indirect threading: each unit tail-calls a central dispatch function
    /// (feature `indirect`, nightly).
    Indirect = "indirect" if "indirect";
    /// The switch loop as a `#[loop_match]` state machine (feature
    /// `loop_match`, nightly).
    LoopMatch = "loop_match" if "loop_match";
    /// The compiled tier: the program compiled with Cranelift (feature
    /// `jit`).
    Jit = "jit" if "jit";
    /// Tiered: the tail-call table (else the subroutine loop) until the
    /// program has run about as long as its compile would take in turns
    /// that ran out of fuel, then the compiled tier (feature `jit`).
    Tiered = "tiered" if "jit";
}

impl Default for Dispatch {
    /// The first variant of [`Dispatch::ALL`].
    fn default() -> Dispatch {
        Dispatch::ALL[0]
    }
}

impl fmt::Display for Dispatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A dispatch name that is unknown or not compiled into this build.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownDispatch(pub String);

impl fmt::Display for UnknownDispatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = Dispatch::ALL.iter().map(|d| d.name()).collect();
        write!(
            f,
            "unknown dispatch `{}` (this build has: {})",
            self.0,
            names.join(", ")
        )
    }
}

impl std::error::Error for UnknownDispatch {}

impl FromStr for Dispatch {
    type Err = UnknownDispatch;

    fn from_str(s: &str) -> Result<Dispatch, UnknownDispatch> {
        Dispatch::ALL
            .iter()
            .copied()
            .find(|d| d.name() == s)
            .ok_or_else(|| UnknownDispatch(s.to_owned()))
    }
}

/// Readies the decoded program `p` for `dispatch` with observer `O`: the
/// threaded variant stores each instruction's handler in it; the compiled
/// tier compiles it, once (if it cannot, here, its variant runs the
/// program with the subroutine loop: `jit::available` says why); the
/// tiered variant compiles it later, if it gets hot (compiled/tiered.rs).
pub(crate) fn prepare<O: Observer>(dispatch: Dispatch, p: &mut Program) {
    #[cfg(feature = "threaded")]
    if dispatch == Dispatch::Threaded {
        for inst in p.insts.iter_mut() {
            inst.handler = threaded::Threaded::<O>::of(inst.op);
        }
    }
    // Not for an observer of every micro-op: the jit loop then runs the
    // subroutine loop and never the code.
    #[cfg(feature = "jit")]
    if Dispatch::Jit == dispatch && !O::ENABLED {
        p.compiled();
    }
    let _ = (dispatch, p);
}

/// Runs the chain of handlers of `dispatch` from `ip` until an exit.
///
/// The default variant is tested first and entered inline; the others go
/// through one out-of-line match, so that adding a variant adds nothing to
/// the default's turn (decisions.md D29).
///
/// # Safety
/// The handler contract (handler.rs): `ip` in a decoded program, `regs`
/// that stream's 16 registers, `ctx` the turn's live `Ctx<O>`, `fuel >= 1`;
/// the program was readied for `dispatch` and `O` by [`prepare`].
#[inline(always)]
pub(crate) unsafe fn enter<O: Observer>(
    dispatch: Dispatch,
    ip: *const Inst,
    regs: *mut u32,
    ctx: *mut (),
    fuel: u32,
) -> Exit {
    #[cfg(feature = "tail")]
    if dispatch == Dispatch::Tail {
        // SAFETY: the caller's contract, which the chain's entry states.
        return unsafe { chain::enter::<O, tail::Tail<O>>(ip, regs, ctx, fuel) };
    }
    // The tiered variant's turns are mostly the tail-call table's: one
    // call less than through the match (D33).
    #[cfg(feature = "jit")]
    if dispatch == Dispatch::Tiered {
        // SAFETY: the caller's contract, which the loop's entry states.
        return unsafe { crate::exec::compiled::tiered::run::<O>(ip, regs, ctx, fuel) };
    }
    // SAFETY: the caller's contract.
    unsafe { enter_other::<O>(dispatch, ip, regs, ctx, fuel) }
}

/// [`enter`] for every variant but the tail-call table's.
///
/// # Safety
/// As [`enter`].
#[cold]
#[inline(never)]
unsafe fn enter_other<O: Observer>(
    dispatch: Dispatch,
    ip: *const Inst,
    regs: *mut u32,
    ctx: *mut (),
    fuel: u32,
) -> Exit {
    // SAFETY: the caller's contract, which each loop's entry states.
    unsafe {
        match dispatch {
            #[cfg(feature = "switch")]
            Dispatch::Switch => switch::run::<O>(ip, regs, ctx, fuel),
            #[cfg(feature = "threaded")]
            Dispatch::Threaded => chain::enter::<O, threaded::Threaded<O>>(ip, regs, ctx, fuel),
            #[cfg(feature = "tail")]
            Dispatch::Tail => chain::enter::<O, tail::Tail<O>>(ip, regs, ctx, fuel),
            #[cfg(feature = "subroutine")]
            Dispatch::Subroutine => subroutine::run::<O>(ip, regs, ctx, fuel),
            #[cfg(feature = "indirect")]
            Dispatch::Indirect => indirect::run::<O>(ip, regs, ctx, fuel),
            #[cfg(feature = "loop_match")]
            Dispatch::LoopMatch => loop_match::run::<O>(ip, regs, ctx, fuel),
            #[cfg(feature = "jit")]
            Dispatch::Jit => crate::exec::compiled::cranelift::run::run::<O>(ip, regs, ctx, fuel),
            #[cfg(feature = "jit")]
            Dispatch::Tiered => crate::exec::compiled::tiered::run::<O>(ip, regs, ctx, fuel),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Dispatch;
    use crate::builder::Stream;
    use crate::exec::entered;
    use crate::exec::simulate;
    use crate::types::Params;

    /// Each variant runs its own loop: `entered` names the loop a run went
    /// into first (the tiered variant's before the tail-call table it
    /// starts with). The answer is the same in all of them (S16: ten
    /// ADDIs of 1, HALT r0 = 10).
    #[test]
    fn each_variant_enters_its_own_loop() {
        let mut s = Stream::new(0, 1_000, 1, 7).unwrap();
        let r = s.registers(1).unwrap()[0];
        for _ in 0..10 {
            s.addi(r, r, 1).unwrap();
        }
        s.halt(r);
        let upload = s.encode().unwrap();
        for &d in Dispatch::ALL {
            entered::take();
            let answer = simulate(&upload, &Params::default(), d);
            assert_eq!(answer.halt, Some(10), "{d}");
            assert_eq!(entered::take(), Some(d.name()));
        }
    }

    /// `prepare` compiles the program for the `jit` variant, where Cranelift
    /// has a backend, and for no other (the tiered variant compiles later,
    /// once hot): each variant's own loop then runs the same answer, so
    /// only the program shows it.
    #[cfg(feature = "jit")]
    #[test]
    fn only_the_jit_variant_compiles_in_prepare() {
        use crate::check::CheckedUpload;
        use crate::exec::{NoObserver, decode::Program, jit_available};
        let mut s = Stream::new(0, 1_000, 1, 7).unwrap();
        let r = s.registers(1).unwrap()[0];
        s.addi(r, r, 1).unwrap();
        s.halt(r);
        let upload = s.encode().unwrap();
        let checked = CheckedUpload::new(&upload, upload.len() as u64).unwrap();
        for &d in Dispatch::ALL {
            let mut p = Program::decode(&checked);
            super::prepare::<NoObserver>(d, &mut p);
            let compiled = d == Dispatch::Jit && jit_available().is_ok();
            assert_eq!(p.code.get().is_some(), compiled, "{d}");
        }
    }

    /// A name no variant of this build has is refused, and the message
    /// names it and every variant the build has.
    #[test]
    fn an_unknown_name_is_refused_with_the_names_of_the_build() {
        let e = "fastest".parse::<Dispatch>().unwrap_err();
        assert_eq!(e, super::UnknownDispatch("fastest".to_string()));
        let message = e.to_string();
        assert!(
            message.starts_with("unknown dispatch `fastest`"),
            "{message}"
        );
        for &d in Dispatch::ALL {
            assert!(message.contains(d.name()), "{message}");
            assert_eq!(d.name().parse::<Dispatch>(), Ok(d));
        }
    }
}

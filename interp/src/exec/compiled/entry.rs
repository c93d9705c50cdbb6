//! What every compiled tier's code speaks (features `jit` and `stencil`):
//! an entry is an `extern "C" fn(regs, pc, fuel) -> u64` that runs from
//! `pc` until it leaves, and returns `(fuel << 32) | kind | pc`, where the
//! kind says why it left: to interpret the micro-op at `pc` (no bit), the
//! fuel short of the block at `pc` ([`SHORT`]), or on at `pc`, another
//! region's entry ([`GO`]). A program's code is a table of entries by pc
//! ([`Compiled`]), which the compiled tiers' loop (`run.rs`) runs. Here,
//! with the leaf types, because the turn's `Ctx` holds a [`Compiled`].

/// A compiled region's function: `(regs, pc, fuel) -> (fuel << 32)
/// | kind | pc`.
pub(crate) type Entry = unsafe extern "C" fn(*mut u32, u32, u32) -> u64;

/// A compiled program: for each pc, the function that can be entered
/// there, or `None` where its code cannot be entered (cranelift/plan.rs,
/// stencil/mod.rs's heads); valid while the program's code lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Compiled(pub *const Option<Entry>);

/// The kind bit that says the fuel does not cover the block at `pc`: the
/// interpreter runs the rest of the turn.
pub(crate) const SHORT: u64 = 1 << 31;

/// The kind bit that says control goes on at `pc`, an entry of another
/// region: the loop enters that region's function.
pub(crate) const GO: u64 = 1 << 30;

/// The bits of the result that hold the pc (at most 65,535: S1's limit).
pub(crate) const PC_MASK: u64 = (1 << 30) - 1;

/// The function of compiled program `code` that can be entered at `pc`,
/// if any.
///
/// # Safety
/// `code` is the entry table of a live compiled program (a tier's
/// `Code::entry`) made from the program `pc` is in (`pc <= op_count`).
#[inline(always)]
pub(crate) unsafe fn entry_at(code: Compiled, pc: u32) -> Option<Entry> {
    // SAFETY: the table has one entry per pc of the program, End included.
    unsafe { *code.0.add(pc as usize) }
}

/// Runs compiled region `entry` from micro-op `pc` with `fuel`: the result
/// `(fuel << 32) | kind | pc`.
///
/// # Safety
/// `entry` is [`entry_at`]`(code, pc)` of a live compiled program, and `regs`
/// points at that stream's 16 registers, borrowed by nothing else during
/// the call.
#[inline(always)]
pub(crate) unsafe fn call(entry: Entry, regs: *mut u32, pc: u32, fuel: u32) -> u64 {
    // SAFETY: the caller's contract; the code touches only `regs[0..16]`.
    unsafe { entry(regs, pc, fuel) }
}

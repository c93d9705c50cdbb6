//! The subroutine-threaded variant (feature `subroutine`; stable Rust): a
//! loop calls each instruction's unit through a static table of function
//! pointers indexed by its `op` byte, and the unit returns to the loop with
//! where the program goes next and the fuel left. One indirect call and one
//! return per unit; the fuel is counted per micro-op, as the switch loop
//! counts it (no block is charged at its head).

use std::marker::PhantomData;

use super::handlers::*;
use super::kinds::Sub;
use crate::exec::handler::loop_entry;
use crate::exec::inst::{Exit, HANDLERS, HEAD, Inst, TABLE_LEN};
use crate::exec::observer::Observer;
use crate::exec::step::exit_at;

/// Runs the one unit at `ip`: `(next, fuel left)`, or the exit once its
/// point is recorded (the compiled tier's way to the interpreter).
///
/// # Safety
/// The handler contract (handler.rs): `ip` in a decoded program, `regs`
/// the stream's registers, `ctx` a live `Ctx<O>`, `fuel >= 1`.
#[cfg(feature = "compiled")]
#[inline(always)]
pub(crate) unsafe fn step<O: Observer>(
    ip: *const Inst,
    regs: *mut u32,
    ctx: *mut (),
    fuel: u32,
) -> Result<(*const Inst, u32), Exit> {
    let table: &'static [Sub; TABLE_LEN] = const { &Subs::<O>::TABLE };
    // SAFETY: the caller's contract; the `op` byte is below TABLE_LEN.
    unsafe { (table.get_unchecked(usize::from((*ip).op)))(ip, regs, ctx, fuel) }
}

loop_entry! {
    "subroutine";
    /// Runs from `ip` until an exit.
    ///
    /// # Safety
    /// The handler contract (handler.rs): `ip` in a decoded program, `regs`
    /// the stream's registers, `ctx` a live `Ctx<O>`, `fuel >= 1`.
    #[inline(never)]
    fn run<O: Observer>(ip, regs, ctx, fuel) {
        // Through a reference: indexing the const itself would copy it.
        let table: &'static [Sub; TABLE_LEN] = const { &Subs::<O>::TABLE };
        let (mut ip, mut fuel) = (ip, fuel);
        // SAFETY: the caller's contract; every `next` a unit returns stays in
        // the program with its `op` byte written by the decoder (below
        // TABLE_LEN), and the loop calls again only with fuel left.
        unsafe {
            loop {
                match (table.get_unchecked(usize::from((*ip).op)))(ip, regs, ctx, fuel) {
                    Ok((next, 0)) => return exit_at::<O>(ctx, next, 0, Exit::Fuel),
                    Ok((next, left)) => (ip, fuel) = (next, left),
                    Err(why) => return why,
                }
            }
        }
    }
}

/// The address of the subroutine of handler index `index` (explain.rs).
pub(crate) fn entry<O: Observer>(index: usize) -> usize {
    Subs::<O>::TABLE[index] as usize
}

/// The subroutines for observer `O`.
struct Subs<O>(PhantomData<O>);

macro_rules! subroutine_table {
    ($($index:ident: $counted:ident $charged:ident $head:ident $sub:ident $indirect:ident $switch:ident $loop_match:ident;)*) => {
        impl<O: Observer> Subs<O> {
            /// By `op` byte: each index's subroutine, again from [`HEAD`]
            /// on (a head is counted like any micro-op here). The unused
            /// entries between hold `End`'s. Nothing is held between
            /// calls: a forwarding variant reads the register file.
            const TABLE: [Sub; TABLE_LEN] = {
                let units: [Sub; HANDLERS] = [$($sub::<O> as Sub,)*];
                let mut t = [end_sub::<O> as Sub; TABLE_LEN];
                let mut i = 0;
                while i < HANDLERS {
                    t[i] = units[i];
                    t[HEAD as usize + i] = units[i];
                    i += 1;
                }
                t
            };
        }
    };
}

for_each_handler!(subroutine_table);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::observer::NoObserver;

    /// `entry` is the address `kmst explain` shows: the table's entry of
    /// that index, the same at the index with the head bit.
    #[test]
    fn an_entry_is_the_tables() {
        for i in 0..HANDLERS {
            let table = Subs::<NoObserver>::TABLE[i] as usize;
            assert_eq!(entry::<NoObserver>(i), table);
            assert_eq!(entry::<NoObserver>(usize::from(HEAD) + i), table);
        }
    }
}

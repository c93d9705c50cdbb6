//! What the compiler asks of a unit: which body's lowering builds it
//! ([`lower`], generated from the list of units, `for_each_unit!`), and
//! what that lowering does without building anything ([`Survey`]: whether
//! it interprets, which registers it touches, where it jumps), for the
//! plan (plan.rs) and the builder (compile.rs) alike.

use crate::exec::compiled::lower::{Cmp, Emit, Lowered};
use crate::exec::inst::{HEAD, Inst, OpIndex};
use crate::exec::step::{Unit, for_each_unit};

/// The dense index of a decoded `op` byte.
pub(crate) fn op_index(op: u8) -> OpIndex {
    let index = op & !HEAD;
    assert!(usize::from(index) < crate::exec::inst::HANDLERS);
    // SAFETY: the index is below HANDLERS (asserted), a dense OpIndex.
    #[allow(unsafe_code)]
    unsafe {
        OpIndex::from_byte(index)
    }
}

macro_rules! lowerings {
    ($($index:ident: $unit:ty;)*) => {
        /// Lowers the micro-op of dense index `index` at `e`'s pc
        /// ([`Unit::lower`]).
        pub(crate) fn lower<E: Emit>(index: OpIndex, e: &mut E, i: &Inst) -> Lowered {
            match index {
                $(OpIndex::$index => <$unit as Unit>::lower(e, i),)*
            }
        }
    };
}

for_each_unit!(lowerings);

/// What the plan needs of a micro-op's lowering, asked of the lowering
/// itself (an [`Emit`] that builds nothing): whether the interpreter runs
/// it, the registers its code touches, and where it jumps.
pub(crate) struct Survey {
    pc: u32,
    pub interprets: bool,
    pub uses: u16,
    pub jump: Option<u32>,
    /// Whether control can go on to the next micro-op.
    pub falls: bool,
}

impl Survey {
    /// The survey of the micro-op `i` of dense index `index` at `pc`.
    pub(crate) fn of(index: OpIndex, i: &Inst, pc: u32) -> Survey {
        let mut s = Survey {
            pc,
            interprets: false,
            uses: 0,
            jump: None,
            falls: true,
        };
        if lower(index, &mut s, i) == Lowered::Interpret {
            s.interprets = true;
            s.uses = 0;
            s.jump = None;
        }
        s
    }
}

impl Emit for Survey {
    type Val = ();
    fn pc(&self) -> u32 {
        self.pc
    }
    fn reg(&mut self, r: u8) {
        self.uses |= 1 << r;
    }
    fn set_reg(&mut self, r: u8, _: ()) {
        self.uses |= 1 << r;
    }
    fn konst(&mut self, _: u32) {}
    fn add(&mut self, _: (), _: ()) {}
    fn sub(&mut self, _: (), _: ()) {}
    fn mul(&mut self, _: (), _: ()) {}
    fn and(&mut self, _: (), _: ()) {}
    fn xor(&mut self, _: (), _: ()) {}
    fn shl(&mut self, _: (), _: u32) {}
    fn shr(&mut self, _: (), _: u32) {}
    fn rem_or_interpret(&mut self, _: (), _: ()) {}
    fn jump(&mut self, target: u32) {
        self.jump = Some(target);
        self.falls = false;
    }
    fn branch(&mut self, _: Cmp, _: (), _: (), target: u32) {
        self.jump = Some(target);
    }
}

//! The one definition of every micro-op.
//!
//! [`for_each_op!`](crate::for_each_op) lists the 21 micro-ops once: opcode number, name,
//! mnemonic, the register fields it reads (S4), what its imm is, and a one-line
//! meaning. Everything that depends on the set of micro-ops — the [`Opcode`]
//! enum, the checker's operand validation, the encoder, the disassembler, the
//! assembler and the dispatch handlers of every interpreter variant — is
//! generated from this list by passing it a macro, as wasmtime's Pulley does.
//!
//! Each entry has the form
//! `Name = opcode, mnemonic, [register fields], imm_kind, "meaning";`
//! where the register fields are a subset of `a b c` in that order and
//! `imm_kind` is one of `none`, `value` (an integer operand), `target` (a jump
//! target, checked with `Reason::BadJump`) or `template` (a template index, `Reason::BadTemplate`).

/// Calls `$m!` with the list of every micro-op (see the module doc for the
/// form). Tokens after the macro's name are passed before the list, for a
/// macro that hands the list on (`for_each_op!(m args)` calls `m! { args
/// Set = 1, ...; ... }`).
#[macro_export]
macro_rules! for_each_op {
    ($m:ident $($pre:tt)*) => {
        $m! {
            $($pre)*
            Set = 1, set, [a], value, "a = imm";
            Mov = 2, mov, [a b], none, "a = b";
            Add = 3, add, [a b c], none, "a = b + c, wrapping";
            Addi = 4, addi, [a b], value, "a = b + imm, wrapping";
            Sub = 5, sub, [a b c], none, "a = b - c, wrapping";
            Mul = 6, mul, [a b c], none, "a = b * c, the low 32 bits";
            And = 7, and, [a b c], none, "a = b & c";
            Shr = 8, shr, [a b], value, "a = b >> (imm & 31), logical";
            Mod = 9, mod, [a b c], none, "a = b % c; c = 0 ends the stream with reason 7";
            Rand = 10, rand, [a], none, "xorshift r15 (<<13, >>17, <<5), then a = r15";
            Jmp = 16, jmp, [], target, "go to micro-op imm";
            Jlt = 17, jlt, [a b], target, "go to imm if a < b, unsigned";
            Jeq = 18, jeq, [a b], target, "go to imm if a == b";
            Jnz = 19, jnz, [a], target, "go to imm if a != 0";
            Halt = 20, halt, [a], none, "wait until nothing of the stream is pending, then end with status a";
            Submit = 32, submit, [], template, "submit command template imm on its group";
            Enqueue = 33, enqueue, [a], template, "queue template imm as a job of a cores";
            Wait = 40, wait, [], value, "go on when at most imm commands and jobs are pending";
            ReadResult = 41, result, [a], none, "a = result of the latest completed command with result=True";
            Event = 48, event, [a], none, "post a progress event with the low 24 bits of a";
            Time = 49, time, [a], none, "a = low 32 bits of the tick counter";
        }
    };
}

/// A register field of a micro-op.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RegField {
    /// The micro-op's `a` field.
    A,
    /// The micro-op's `b` field.
    B,
    /// The micro-op's `c` field.
    C,
}

/// What a micro-op's imm field means.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ImmKind {
    /// Ignored.
    None,
    /// An integer operand.
    Value,
    /// A jump target (`Reason::BadJump` when out of range).
    Target,
    /// A template index (`Reason::BadTemplate` when out of range).
    Template,
}

macro_rules! imm_kind {
    (none) => {
        ImmKind::None
    };
    (value) => {
        ImmKind::Value
    };
    (target) => {
        ImmKind::Target
    };
    (template) => {
        ImmKind::Template
    };
}

macro_rules! reg_field {
    (a) => {
        RegField::A
    };
    (b) => {
        RegField::B
    };
    (c) => {
        RegField::C
    };
}

macro_rules! define_opcode {
    ($($name:ident = $code:literal, $mn:ident, [$($reg:ident)*], $imm:ident, $doc:literal;)*) => {
        /// A micro-op's opcode (docs/spec.md "Micro-ops").
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(u8)]
        pub enum Opcode {
            $(#[doc = $doc] $name = $code,)*
        }

        impl Opcode {
            /// Every opcode, in the order of the definition list.
            pub const ALL: &'static [Opcode] = &[$(Opcode::$name,)*];

            /// The opcode with this number, or `None` for an invalid one (`Reason::UnknownOpcode`).
            #[inline]
            pub const fn from_u8(byte: u8) -> Option<Opcode> {
                match byte {
                    $($code => Some(Opcode::$name),)*
                    _ => None,
                }
            }

            /// The opcode for an assembly mnemonic (lower case).
            pub fn from_mnemonic(mnemonic: &str) -> Option<Opcode> {
                match mnemonic {
                    $(stringify!($mn) => Some(Opcode::$name),)*
                    _ => None,
                }
            }

            /// The assembly mnemonic (lower case).
            pub const fn mnemonic(self) -> &'static str {
                match self {
                    $(Opcode::$name => stringify!($mn),)*
                }
            }

            /// The register fields it reads, in the order a, b, c (S4).
            pub const fn regs(self) -> &'static [RegField] {
                match self {
                    $(Opcode::$name => &[$(reg_field!($reg)),*],)*
                }
            }

            /// What its imm field means.
            pub const fn imm_kind(self) -> ImmKind {
                match self {
                    $(Opcode::$name => imm_kind!($imm),)*
                }
            }

            /// Its one-line meaning.
            pub const fn doc(self) -> &'static str {
                match self {
                    $(Opcode::$name => $doc,)*
                }
            }
        }
    };
}

for_each_op!(define_opcode);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opcode_numbers_are_the_specifications() {
        // docs/spec.md "Micro-ops": 21 micro-ops with these numbers.
        let numbers: Vec<u8> = Opcode::ALL.iter().map(|&op| op as u8).collect();
        assert_eq!(
            numbers,
            [
                1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 16, 17, 18, 19, 20, 32, 33, 40, 41, 48, 49
            ]
        );
        for byte in 0..=255u8 {
            assert_eq!(
                Opcode::from_u8(byte).map(|op| op as u8),
                numbers.contains(&byte).then_some(byte)
            );
        }
    }

    #[test]
    fn operand_fields_follow_s4() {
        use RegField::*;
        assert_eq!(Opcode::Mod.regs(), &[A, B, C]);
        assert_eq!(Opcode::Shr.regs(), &[A, B]);
        assert_eq!(Opcode::Enqueue.regs(), &[A]);
        assert!(
            Opcode::Jmp.regs().is_empty()
                && Opcode::Submit.regs().is_empty()
                && Opcode::Wait.regs().is_empty()
        );
        assert_eq!(Opcode::Jlt.imm_kind(), ImmKind::Target);
        assert_eq!(Opcode::Enqueue.imm_kind(), ImmKind::Template);
        assert_eq!(Opcode::Halt.imm_kind(), ImmKind::None);
        for &op in Opcode::ALL {
            assert_eq!(Opcode::from_mnemonic(op.mnemonic()), Some(op));
        }
    }
}

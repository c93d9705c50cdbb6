//! The peers: the bench workloads `alu`, `alu_chain`, `branchy` and
//! `rand_mod` (corpus/bench/*.kms) as hand-written WebAssembly run by wasmi
//! (and, with feature `wasmtime`, by wasmtime), with fuel metering on and
//! off, and as native Rust (the floor), beside
//! kmst's own dispatch variants. Each peer runs the same loop with the same
//! final registers; the unit of work is one kmst micro-op
//! ([`kmst_benches::micro_ops`]), so every runner's time divides by the same
//! count.
//!
//! Included with `#[path]` by the `peers` benches and example: wasmi is a
//! dev-dependency, which the library cannot use.

use std::arch::asm;

use kmst_benches::Kmst;
use wasmi::{CompilationMode, Config, Engine, Func, Linker, Module, Store, Val};

/// The registers r0..r15 at HALT.
pub type Regs = [u32; 16];

/// One workload in its peer forms.
pub struct Workload {
    /// The bundled kmst workload of the same name.
    pub name: &'static str,
    /// A module exporting `run: [] -> [i32; 16]`, the final registers.
    wat: &'static str,
    /// The loop in Rust; the final registers.
    native: fn() -> Regs,
    /// The register the stream's HALT names.
    halt: usize,
}

/// The workloads that have peers, in report order.
pub const WORKLOADS: [Workload; 4] = [
    Workload {
        name: "alu",
        wat: include_str!("alu.wat"),
        native: alu,
        halt: 4,
    },
    Workload {
        name: "alu_chain",
        wat: include_str!("alu_chain.wat"),
        native: alu_chain,
        halt: 8,
    },
    Workload {
        name: "branchy",
        wat: include_str!("branchy.wat"),
        native: branchy,
        halt: 0,
    },
    Workload {
        name: "rand_mod",
        wat: include_str!("rand_mod.wat"),
        native: rand_mod,
        halt: 4,
    },
];

/// The runner names besides kmst's variants.
pub const WASMI_FUEL: &str = "wasmi_fuel";
pub const WASMI: &str = "wasmi";
pub const NATIVE: &str = "native";
#[cfg(feature = "wasmtime")]
pub const WASMTIME_FUEL: &str = "wasmtime_fuel";
#[cfg(feature = "wasmtime")]
pub const WASMTIME: &str = "wasmtime";

/// Every runner, kmst's variants first (its default, `tail`, the first of
/// all), native Rust last.
pub fn runners() -> Vec<&'static str> {
    let mut all = Kmst::variants();
    all.extend([WASMI_FUEL, WASMI]);
    #[cfg(feature = "wasmtime")]
    all.extend([WASMTIME_FUEL, WASMTIME]);
    all.push(NATIVE);
    all
}

/// One runner on one workload, set up and checked, ready to run.
pub enum Peer {
    Kmst(Kmst),
    Wasmi {
        store: Box<Store<()>>,
        func: Func,
        results: Vec<Val>,
        halt: usize,
    },
    #[cfg(feature = "wasmtime")]
    Wasmtime {
        store: Box<wasmtime::Store<()>>,
        func: wasmtime::Func,
        results: Vec<wasmtime::Val>,
        halt: usize,
    },
    Native {
        run: fn() -> Regs,
        halt: usize,
    },
}

impl Peer {
    /// `runner` (a name of [`runners`]) on `workload`, after one checked run:
    /// native Rust's halt register equals kmst's halt value (its default
    /// variant's), a wasm peer's sixteen final registers equal native Rust's, and
    /// this runner's halt value equals kmst's. Panics on an unknown name or a
    /// difference (a defect of the peer, not of a measurement).
    pub fn new(workload: &str, runner: &str) -> Peer {
        let w = WORKLOADS
            .iter()
            .find(|w| w.name == workload)
            .unwrap_or_else(|| panic!("no peer workload `{workload}`"));
        let kmst_halt = Kmst::new(w.name, Kmst::variants()[0]).run();
        let native = (w.native)();
        assert_eq!(
            Some(native[w.halt]),
            kmst_halt,
            "{workload}: native Rust's r{} against kmst's halt value",
            w.halt
        );
        let mut peer = match runner {
            WASMI_FUEL => Peer::wasmi(w, true),
            WASMI => Peer::wasmi(w, false),
            #[cfg(feature = "wasmtime")]
            WASMTIME_FUEL => Peer::wasmtime(w, true),
            #[cfg(feature = "wasmtime")]
            WASMTIME => Peer::wasmtime(w, false),
            NATIVE => Peer::Native {
                run: w.native,
                halt: w.halt,
            },
            variant => Peer::Kmst(Kmst::new(w.name, variant)),
        };
        if !matches!(peer, Peer::Kmst(_) | Peer::Native { .. }) {
            assert_eq!(
                peer.registers(),
                native,
                "{workload}: {runner}'s final registers against native Rust's"
            );
        }
        assert_eq!(
            peer.run(),
            kmst_halt,
            "{workload}: {runner}'s halt value against kmst's"
        );
        peer
    }

    /// `w`'s module instantiated in a fresh engine (translated eagerly, so
    /// that no run pays for translation).
    fn wasmi(w: &Workload, fuel: bool) -> Peer {
        let mut config = Config::default();
        config
            .consume_fuel(fuel)
            .compilation_mode(CompilationMode::Eager);
        let engine = Engine::new(&config);
        let module = Module::new(&engine, w.wat).unwrap_or_else(|e| panic!("{}: {e}", w.name));
        let mut store = Box::new(Store::new(&engine, ()));
        if fuel {
            // Metered, never exhausted: about one unit per instruction, 2^64 units.
            store.set_fuel(u64::MAX).expect("fuel metering is on");
        }
        let instance = Linker::new(&engine)
            .instantiate_and_start(&mut *store, &module)
            .unwrap_or_else(|e| panic!("{}: {e}", w.name));
        let func = instance
            .get_func(&*store, "run")
            .unwrap_or_else(|| panic!("{}: no export `run`", w.name));
        Peer::Wasmi {
            store,
            func,
            results: vec![Val::I32(0); 16],
            halt: w.halt,
        }
    }

    /// `w`'s module compiled by wasmtime (Cranelift, ahead of any run) and
    /// instantiated in a fresh engine.
    #[cfg(feature = "wasmtime")]
    fn wasmtime(w: &Workload, fuel: bool) -> Peer {
        let mut config = wasmtime::Config::new();
        config.consume_fuel(fuel);
        let engine = wasmtime::Engine::new(&config).unwrap_or_else(|e| panic!("wasmtime: {e}"));
        let wasm = wat::parse_str(w.wat).unwrap_or_else(|e| panic!("{}: {e}", w.name));
        let module =
            wasmtime::Module::new(&engine, wasm).unwrap_or_else(|e| panic!("{}: {e}", w.name));
        let mut store = Box::new(wasmtime::Store::new(&engine, ()));
        if fuel {
            // Metered, never exhausted: wasmtime keeps up to 2^63 units in
            // the running code and the rest in reserve.
            store.set_fuel(u64::MAX).expect("fuel metering is on");
        }
        let instance = wasmtime::Linker::new(&engine)
            .instantiate(&mut *store, &module)
            .unwrap_or_else(|e| panic!("{}: {e}", w.name));
        let func = instance
            .get_func(&mut *store, "run")
            .unwrap_or_else(|| panic!("{}: no export `run`", w.name));
        Peer::Wasmtime {
            store,
            func,
            results: vec![wasmtime::Val::I32(0); 16],
            halt: w.halt,
        }
    }

    /// One whole run; the halt value (`None`: kmst's stream did not halt).
    pub fn run(&mut self) -> Option<u32> {
        match self {
            Peer::Kmst(k) => k.run(),
            Peer::Wasmi { halt, .. } | Peer::Native { halt, .. } => {
                let halt = *halt;
                Some(self.registers()[halt])
            }
            #[cfg(feature = "wasmtime")]
            Peer::Wasmtime { halt, .. } => {
                let halt = *halt;
                Some(self.registers()[halt])
            }
        }
    }

    /// One whole run of a peer; its final registers (kmst does not report
    /// its registers: zeros).
    fn registers(&mut self) -> Regs {
        match self {
            Peer::Kmst(_) => [0; 16],
            Peer::Wasmi {
                store,
                func,
                results,
                ..
            } => {
                func.call(&mut **store, &[], results)
                    .unwrap_or_else(|e| panic!("wasmi: {e}"));
                let mut regs = [0; 16];
                for (r, v) in regs.iter_mut().zip(results.iter()) {
                    *r = v.i32().expect("`run` returns i32s") as u32;
                }
                regs
            }
            #[cfg(feature = "wasmtime")]
            Peer::Wasmtime {
                store,
                func,
                results,
                ..
            } => {
                func.call(&mut **store, &[], results)
                    .unwrap_or_else(|e| panic!("wasmtime: {e}"));
                let mut regs = [0; 16];
                for (r, v) in regs.iter_mut().zip(results.iter()) {
                    *r = v.i32().expect("`run` returns i32s") as u32;
                }
                regs
            }
            Peer::Native { run, .. } => run(),
        }
    }
}

// ---------------------------------------------------------------------------
// Native Rust: each loop written as the stream is, `r[n]` for register rN
// (u32, wrapping; JLT is unsigned; ADDI -1 is adding 0xffff_ffff).

/// Hides the named registers' values from the optimiser once per round, so
/// that the loop is run as written: no value known at compile time (no
/// multiply by a constant 3, no divide by a constant 1000), none left
/// uncomputed because unused, no closed form for a sum. `black_box` alone
/// does not do this: LLVM still folds the loop around it.
macro_rules! barrier {
    ($($r:expr),* $(,)?) => {
        $(
            // SAFETY: the template is an assembler comment naming the
            // register (an operand left unnamed is an error; its width does
            // not matter in a comment): it reads and writes no memory, no
            // stack and no flags, and leaves the register as it was.
            #[allow(asm_sub_register, unsafe_code)]
            unsafe {
                asm!("/* {0} */", inout(reg) $r, options(nomem, nostack, preserves_flags))
            }
        )*
    };
}

/// RAND (docs/spec.md): xorshift32 of r15; r15 and the result are the new value.
fn rand(r: &mut Regs) -> u32 {
    let mut x = r[15];
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    r[15] = x;
    x
}

/// Registers at the start of a stream with `seed` (S11: zeros, r15 = seed).
fn start(seed: u32) -> Regs {
    let mut r = [0; 16];
    r[15] = seed;
    r
}

/// corpus/bench/alu.kms.
fn alu() -> Regs {
    let mut r = start(7);
    r[3] = 3;
    r[9] = 1107;
    r[0] = 0;
    loop {
        r[1] = 100;
        loop {
            r[4] = r[4].wrapping_add(r[1]);
            r[5] = r[1].wrapping_mul(r[3]);
            r[6] = r[6].wrapping_add(5);
            r[7] = r[1] & r[9];
            r[8] = r[5] >> 2;
            r[10] = r[10].wrapping_add(r[7]);
            r[11] = r[6].wrapping_mul(r[3]);
            r[1] = r[1].wrapping_add(u32::MAX);
            barrier!(r[1], r[3], r[4], r[5], r[6], r[7], r[8], r[9], r[10], r[11]);
            if r[1] == 0 {
                break;
            }
        }
        r[0] = r[0].wrapping_add(1);
        barrier!(r[0], r[9]);
        if r[0] >= r[9] {
            break;
        }
    }
    r
}

/// corpus/bench/alu_chain.kms.
fn alu_chain() -> Regs {
    let mut r = start(7);
    r[3] = 3;
    r[9] = 1422;
    r[0] = 0;
    r[4] = 0;
    loop {
        r[1] = 100;
        loop {
            r[4] = r[4].wrapping_add(r[1]);
            r[5] = r[4].wrapping_mul(r[3]);
            r[6] = r[5] & r[4];
            r[7] = r[6] >> 3;
            r[8] = r[8].wrapping_add(r[7]);
            r[1] = r[1].wrapping_add(u32::MAX);
            barrier!(r[1], r[3], r[4], r[5], r[6], r[7], r[8]);
            if r[1] == 0 {
                break;
            }
        }
        r[0] = r[0].wrapping_add(1);
        barrier!(r[0], r[9]);
        if r[0] >= r[9] {
            break;
        }
    }
    r
}

/// corpus/bench/branchy.kms.
fn branchy() -> Regs {
    let mut r = start(99);
    r[10] = 3;
    r[11] = 0;
    r[12] = 2;
    r[9] = 111_111;
    loop {
        r[1] = rand(&mut r);
        r[2] = r[1] & r[10];
        if r[2] == r[11] {
            r[8] = r[8].wrapping_add(5); // zero
        } else if r[2] < r[12] {
            r[7] = r[7].wrapping_add(1); // one
        } else {
            r[2] = r[2].wrapping_add(2u32.wrapping_neg());
            if r[2] != 0 {
                r[6] = r[6].wrapping_add(3); // three
            } else {
                r[5] = r[5].wrapping_add(2);
            }
        }
        r[0] = r[0].wrapping_add(1); // next
        barrier!(
            r[0], r[1], r[2], r[5], r[6], r[7], r[8], r[9], r[10], r[11], r[12], r[15]
        );
        if r[0] >= r[9] {
            break;
        }
    }
    r
}

/// corpus/bench/rand_mod.kms.
fn rand_mod() -> Regs {
    let mut r = start(12345);
    r[2] = 1000;
    r[9] = 166_666;
    loop {
        r[1] = rand(&mut r);
        // MOD by zero is an error in kmst, a trap in WebAssembly: here 0
        // (never taken, but checked as the others check it).
        r[3] = r[1].checked_rem(r[2]).unwrap_or(0);
        r[3] = r[3].wrapping_add(7);
        r[4] = r[4].wrapping_add(r[3]);
        r[0] = r[0].wrapping_add(1);
        barrier!(r[0], r[1], r[2], r[3], r[4], r[9], r[15]);
        if r[0] >= r[9] {
            break;
        }
    }
    r
}

//! The compiled tier's compile beside wasmtime's at every size (issue 42),
//! and the peers run alone by both, once compiled.
//!
//! `cargo run --release -p kmst-benches --features wasmtime --example
//! compile_sizes [ROUNDS]` (default 5). Two markdown tables:
//!
//! - For every program shape of `kmst_harness::shapes` at 1,000, 16,000 and
//!   65,535 micro-ops: kmst's compile (`Machine::prepare` for
//!   `Dispatch::Jit`, the machine built before the timing) and wasmtime's
//!   `Module::new` of the same program as one wasm function (see [`wat`]),
//!   on an engine without and with fuel metering. Each round compiles every
//!   cell on all three, their order rotating from round to round; printed
//!   are the median time and the median peak heap (the most bytes held on
//!   the heap during the compile beyond those held before it, counted by this
//!   program's allocator), and kmst's time and heap over wasmtime's, the
//!   median of the ratios within a round.
//! - The peers (`peers/mod.rs`) run alone: ns per kmst micro-op of kmst's
//!   `jit` (the program compiled before the timing, a fresh machine per
//!   run), and of wasmtime with and without fuel (the module compiled and
//!   instantiated once, each call one whole run), rotating as above, and
//!   `jit` over each, the median of the per-round ratios.
//!
//! Both sides use the same Cranelift (0.135: wasmtime 48), each with its own
//! settings: kmst's (opt level none) and wasmtime's defaults (opt level
//! speed). wasmtime compiles on this thread only (its `parallel-compilation`
//! feature is off). Code memory mapped by either side is not heap and is
//! not counted.
// Unsafe code only in the counting allocator below and the `asm!` barrier
// of peers/mod.rs.
#![deny(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::fmt::Write as _;
use std::hint::black_box;
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::time::Instant;

use kmst::exec::{Dispatch, Machine, NoObserver};
use kmst::format::Upload;
use kmst::ops::Opcode;
use kmst_benches::{median, micro_ops};
use kmst_harness::shapes::{self, Shape};

// Only the peer workloads and their wasmtime runners are used here.
#[allow(dead_code)]
#[path = "../peers/mod.rs"]
mod peers;
use peers::{Peer, WASMTIME, WASMTIME_FUEL, WORKLOADS};

/// The sizes compiled: small, the largest the old whole-program compile
/// could take, and the format's limit.
const SIZES: [usize; 3] = [1_000, 16_000, 65_535];

/// Rounds of the run alone (each a few milliseconds), at least.
const RUN_ROUNDS: usize = 21;

// ---------------------------------------------------------------------------
// Heap counting: the system allocator, with the bytes held now and the most
// held since the last `reset_peak`. Counts requested sizes, not the
// allocator's own overhead.

struct Counting;

static HELD: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(bytes: usize) {
    let now = HELD.fetch_add(bytes, Relaxed) + bytes;
    PEAK.fetch_max(now, Relaxed);
}

fn shrank(bytes: usize) {
    HELD.fetch_sub(bytes, Relaxed);
}

#[allow(unsafe_code)]
// SAFETY: every method hands its arguments unchanged to the system
// allocator, whose contract the caller's guarantees meet, and returns what
// it returns; the counting touches only two atomics and never allocates.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: `layout` is the caller's, non-zero-sized as `alloc` requires.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as in `alloc`.
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from this allocator, that is from `System`,
        // with this `layout` (the caller's guarantee).
        unsafe { System.dealloc(ptr, layout) };
        shrank(layout.size());
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: `ptr` and `layout` as in `dealloc`, `new_size` as the
        // caller guarantees for `realloc`.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            if new_size >= layout.size() {
                grew(new_size - layout.size());
            } else {
                shrank(layout.size() - new_size);
            }
        }
        p
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// One measurement: seconds and peak heap bytes.
#[derive(Clone, Copy)]
struct Sample {
    secs: f64,
    heap: f64,
}

/// Runs `f`, timed, with the heap's peak reset before; returns what it
/// returned, to be dropped after the measurement.
fn measure<T>(f: impl FnOnce() -> T) -> (Sample, T) {
    let before = HELD.load(Relaxed);
    PEAK.store(before, Relaxed);
    let start = Instant::now();
    let out = black_box(f());
    let secs = start.elapsed().as_secs_f64();
    let heap = PEAK.load(Relaxed).saturating_sub(before) as f64;
    (Sample { secs, heap }, out)
}

// ---------------------------------------------------------------------------
// The shapes as WebAssembly.

/// `upload` as a wasm module text: one exported function `run`, with the
/// sixteen registers as sixteen i32 locals (r15 starting at the seed) and
/// each micro-op the few instructions that do the same, returning all
/// sixteen registers at HALT (so that no register's work is dead code, as
/// none is in kmst, which stores them all when it leaves compiled code).
/// Jumps as the shapes have them: a jump back to a loop head closes a wasm
/// `loop` opened at that head with a `br_if` to it (`loop`, `loops`); a
/// jump to the next micro-op (every micro-op a target: `targets`) is a
/// `block` of its own ended by the `br_if` out of it, so that each is a
/// conditional branch whose taken and fallen-through paths meet at the next
/// micro-op, as in kmst. The kernel-facing micro-ops (`kernel`) call
/// imported host functions `kmst.time`, `kmst.event` and `kmst.result`.
/// Returns the text and the register HALT names. Panics on a micro-op or a
/// jump the shapes do not have.
fn wat(upload: &Upload) -> (String, usize) {
    let ops = &upload.ops;
    let heads: Vec<bool> = {
        let mut heads = vec![false; ops.len()];
        for (pc, op) in ops.iter().enumerate() {
            if op.op == Opcode::Jnz as u8 && (op.imm as usize) <= pc {
                heads[op.imm as usize] = true;
            }
        }
        heads
    };
    let mut w = String::with_capacity(ops.len() * 64);
    w.push_str("(module\n");
    w.push_str("  (import \"kmst\" \"time\" (func $time (result i32)))\n");
    w.push_str("  (import \"kmst\" \"event\" (func $event (param i32)))\n");
    w.push_str("  (import \"kmst\" \"result\" (func $result (result i32)))\n");
    w.push_str("  (func (export \"run\") (result");
    w.push_str(&" i32".repeat(16));
    w.push_str(")\n    (local");
    w.push_str(&" i32".repeat(16));
    w.push_str(")\n");
    let _ = writeln!(
        w,
        "    i32.const {} local.set 15",
        upload.header.seed as i32
    );
    let mut open_loops: Vec<usize> = Vec::new();
    let mut halt = None;
    for (pc, op) in ops.iter().enumerate() {
        assert!(halt.is_none(), "pc {pc}: a micro-op after HALT");
        if heads[pc] {
            w.push_str("    loop\n");
            open_loops.push(pc);
        }
        let (a, b, c, imm) = (op.a, op.b, op.c, op.imm);
        let code = Opcode::from_u8(op.op).unwrap_or_else(|| panic!("pc {pc}: opcode {}", op.op));
        let binary = |name: &str| format!("local.get {b} local.get {c} {name} local.set {a}");
        let line = match code {
            Opcode::Set => format!("i32.const {} local.set {a}", imm as i32),
            Opcode::Addi => format!(
                "local.get {b} i32.const {} i32.add local.set {a}",
                imm as i32
            ),
            Opcode::Add => binary("i32.add"),
            Opcode::Mul => binary("i32.mul"),
            Opcode::And => binary("i32.and"),
            Opcode::Shr => format!(
                "local.get {b} i32.const {} i32.shr_u local.set {a}",
                imm & 31
            ),
            Opcode::Time => format!("call $time local.set {a}"),
            Opcode::Event => format!("local.get {a} call $event"),
            Opcode::ReadResult => format!("call $result local.set {a}"),
            Opcode::Jnz if imm as usize == pc + 1 => format!("block local.get {a} br_if 0 end"),
            Opcode::Jnz if open_loops.last() == Some(&(imm as usize)) => {
                open_loops.pop();
                format!("local.get {a} br_if 0 end")
            }
            Opcode::Halt => {
                halt = Some(usize::from(a));
                String::new()
            }
            _ => panic!("pc {pc}: no wasm form for {code:?} here"),
        };
        w.push_str("    ");
        w.push_str(&line);
        w.push('\n');
    }
    assert!(open_loops.is_empty(), "a loop head without its jump back");
    w.push_str("   ");
    for r in 0..16 {
        let _ = write!(w, " local.get {r}");
    }
    w.push_str("))\n");
    (w, halt.expect("the shapes end with HALT"))
}

/// Fuel metering of the two wasmtime engines compared: off, on.
const FUEL: [bool; 2] = [false, true];

/// The two wasmtime engines compared, as [`FUEL`] says.
fn engines() -> [wasmtime::Engine; 2] {
    FUEL.map(|fuel| {
        let mut config = wasmtime::Config::new();
        config.consume_fuel(fuel);
        wasmtime::Engine::new(&config).unwrap_or_else(|e| panic!("wasmtime: {e}"))
    })
}

/// Runs `wasm`'s `run` once on `engine` (with fuel metering if `fuel`)
/// with stand-in host functions (time and results 0, events dropped); the
/// value of register `halt`.
fn run_wasm(engine: &wasmtime::Engine, fuel: bool, wasm: &[u8], halt: usize) -> u32 {
    let module = wasmtime::Module::new(engine, wasm).unwrap_or_else(|e| panic!("wasmtime: {e}"));
    let mut store = wasmtime::Store::new(engine, ());
    if fuel {
        store.set_fuel(u64::MAX).expect("fuel metering is on");
    }
    let mut linker = wasmtime::Linker::new(engine);
    linker
        .func_wrap("kmst", "time", || 0i32)
        .expect("one definition");
    linker
        .func_wrap("kmst", "event", |_: i32| {})
        .expect("one definition");
    linker
        .func_wrap("kmst", "result", || 0i32)
        .expect("one definition");
    let instance = linker
        .instantiate(&mut store, &module)
        .unwrap_or_else(|e| panic!("wasmtime: {e}"));
    let run = instance.get_func(&mut store, "run").expect("export `run`");
    let mut results = vec![wasmtime::Val::I32(0); 16];
    run.call(&mut store, &[], &mut results)
        .unwrap_or_else(|e| panic!("wasmtime: {e}"));
    results[halt].i32().expect("i32 results") as u32
}

/// One cell of the compile table: a shape at a size in both forms.
struct Cell {
    shape: Shape,
    n: usize,
    upload: Vec<u8>,
    wasm: Vec<u8>,
}

/// The compilers of a round, in the table's order.
const SIDES: [&str; 3] = ["kmst", "wasmtime", "wasmtime_fuel"];

fn compile_table(rounds: usize) {
    let params = shapes::params();
    let engines = engines();
    let mut cells = Vec::new();
    for n in SIZES {
        for shape in Shape::ALL {
            let upload = shape.upload(n);
            let (text, halt) = wat(&upload);
            let wasm = wat::parse_str(&text).unwrap_or_else(|e| panic!("{shape} {n}: {e}"));
            let upload = upload.encode();
            if n == SIZES[0] {
                // The check (and a first compile of each side, untimed):
                // kmst's halt value, compiled, against wasmtime's.
                let kmst = kmst::exec::simulate(&upload, &params, Dispatch::Jit).halt;
                for (engine, fuel) in engines.iter().zip(FUEL) {
                    assert_eq!(
                        Some(run_wasm(engine, fuel, &wasm, halt)),
                        kmst,
                        "{shape} {n}: wasmtime's halt value against kmst's"
                    );
                }
            }
            cells.push(Cell {
                shape,
                n,
                upload,
                wasm,
            });
        }
    }

    // samples[cell][side]: one per round.
    let mut samples = vec![[const { Vec::new() }; 3]; cells.len()];
    for round in 0..rounds {
        for (i, cell) in cells.iter().enumerate() {
            for k in 0..SIDES.len() {
                let side = (k + round + i) % SIDES.len();
                let sample = if side == 0 {
                    let mut m = Machine::new(&cell.upload, &params);
                    let (s, ()) = measure(|| m.prepare::<NoObserver>(Dispatch::Jit));
                    drop(m);
                    s
                } else {
                    let engine = &engines[side - 1];
                    let (s, module) = measure(|| {
                        wasmtime::Module::new(engine, &cell.wasm)
                            .unwrap_or_else(|e| panic!("wasmtime: {e}"))
                    });
                    drop(module);
                    s
                };
                samples[i][side].push(sample);
            }
        }
        eprintln!("compile_sizes: round {} of {rounds}", round + 1);
    }

    println!(
        "Compile time (ms) and peak heap (MB, 10^6 bytes) per shape and size: medians of {rounds} interleaved rounds; kmst/wasmtime: the median of the per-round ratios"
    );
    println!();
    println!(
        "| shape | micro-ops | kmst ms | kmst MB | wasmtime ms | wasmtime MB | wasmtime+fuel ms | wasmtime+fuel MB | time kmst/wasmtime | time kmst/wasmtime+fuel | heap kmst/wasmtime | heap kmst/wasmtime+fuel |"
    );
    println!("|---|---:|{}", "---:|".repeat(10));
    for (cell, s) in cells.iter().zip(&samples) {
        let time = |side: usize| median(s[side].iter().map(|x| x.secs * 1e3).collect());
        let heap = |side: usize| median(s[side].iter().map(|x| x.heap / 1e6).collect());
        let ratio = |side: usize, f: fn(&Sample) -> f64| {
            median(
                s[0].iter()
                    .zip(&s[side])
                    .map(|(k, w)| f(k) / f(w))
                    .collect(),
            )
        };
        let secs: fn(&Sample) -> f64 = |x| x.secs;
        let bytes: fn(&Sample) -> f64 = |x| x.heap;
        println!(
            "| {} | {} | {:.1} | {:.1} | {:.1} | {:.1} | {:.1} | {:.1} | {:.2} | {:.2} | {:.2} | {:.2} |",
            cell.shape,
            cell.n,
            time(0),
            heap(0),
            time(1),
            heap(1),
            time(2),
            heap(2),
            ratio(1, secs),
            ratio(2, secs),
            ratio(1, bytes),
            ratio(2, bytes),
        );
    }
}

fn run_table(rounds: usize) {
    let runners = ["jit", WASMTIME_FUEL, WASMTIME];
    let mut rows = Vec::new();
    for w in &WORKLOADS {
        let workload = kmst_benches::workload(w.name);
        let mut wasm = [
            Peer::new(w.name, WASMTIME_FUEL),
            Peer::new(w.name, WASMTIME),
        ];
        let expected = wasm[0].run();
        // ns[runner]: one whole run per round.
        let mut ns = [const { Vec::new() }; 3];
        for round in 0..rounds {
            for k in 0..runners.len() {
                let r = (k + round) % runners.len();
                if r == 0 {
                    let mut m = Machine::new(&workload.upload, &workload.params);
                    m.prepare::<NoObserver>(Dispatch::Jit);
                    let start = Instant::now();
                    m.run(Dispatch::Jit, &mut NoObserver);
                    ns[r].push(start.elapsed().as_nanos() as f64);
                    if round == 0 {
                        assert_eq!(
                            m.into_result().halt,
                            expected,
                            "{}: jit's halt value against wasmtime's",
                            w.name
                        );
                    }
                } else {
                    let start = Instant::now();
                    black_box(wasm[r - 1].run());
                    ns[r].push(start.elapsed().as_nanos() as f64);
                }
            }
        }
        rows.push((w.name, micro_ops(w.name) as f64, ns));
    }

    println!(
        "The run alone, ns per kmst micro-op (median of {rounds} interleaved rounds; one round = one whole run, compiled before)"
    );
    println!();
    println!(
        "| workload | micro-ops | jit | wasmtime+fuel | wasmtime | jit / wasmtime+fuel | jit / wasmtime |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|");
    for (name, ops, ns) in &rows {
        let ratio = |r: usize| median(ns[0].iter().zip(&ns[r]).map(|(k, w)| k / w).collect());
        println!(
            "| {name} | {ops} | {:.3} | {:.3} | {:.3} | {:.2} | {:.2} |",
            median(ns[0].clone()) / ops,
            median(ns[1].clone()) / ops,
            median(ns[2].clone()) / ops,
            ratio(1),
            ratio(2),
        );
    }
}

fn main() -> ExitCode {
    let Some(rounds) =
        kmst_benches::rounds_arg(5, "usage: compile_sizes [ROUNDS] (ROUNDS >= 1, default 5)")
    else {
        return ExitCode::from(2);
    };
    if let Err(host) = kmst::exec::jit_available() {
        eprintln!("compile_sizes: the compiled tier does not compile on {host}");
        return ExitCode::FAILURE;
    }
    compile_table(rounds);
    println!();
    run_table(rounds.max(RUN_ROUNDS));
    ExitCode::SUCCESS
}

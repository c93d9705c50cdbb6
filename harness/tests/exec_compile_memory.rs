//! The compiled tiers' memory is bounded per micro-op (docs/dispatch.md,
//! "The compiled tier at every size"): a counting global allocator watches
//! the compile (`Machine::prepare` with `Dispatch::Jit`, and with
//! `Dispatch::Stencil` where built) of every shape of
//! kmst_harness::shapes at the format's limit. Cranelift's compiler builds
//! one region of about 1,024 micro-ops at a time and frees its context
//! before the next, so its peak is what it keeps (the code and a table of
//! one entry per micro-op) plus one region's work, whatever the program's
//! size. The stencil tier allocates the same few buffers whatever the
//! program's size (issue 53: no allocation per micro-op).
#![cfg(any(feature = "jit", feature = "stencil"))]

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicIsize, Ordering};

use kmst::exec::{Dispatch, Machine, NoObserver};
use kmst_harness::shapes::{Shape, params};

struct Counting;

thread_local! {
    // Only the test's own thread counts (the harness's threads allocate
    // at any time).
    static COUNTING: Cell<bool> = const { Cell::new(false) };
}
/// Bytes allocated and not yet freed since counting began, and their peak;
/// the allocations made (a `realloc` counts as one).
static LIVE: AtomicIsize = AtomicIsize::new(0);
static PEAK: AtomicIsize = AtomicIsize::new(0);
static MADE: AtomicIsize = AtomicIsize::new(0);

fn grow(by: isize) {
    if COUNTING.with(Cell::get) {
        let live = LIVE.fetch_add(by, Ordering::Relaxed) + by;
        PEAK.fetch_max(live, Ordering::Relaxed);
    }
}

fn made() {
    if COUNTING.with(Cell::get) {
        MADE.fetch_add(1, Ordering::Relaxed);
    }
}

// SAFETY: forwards every call to the system allocator unchanged; it only
// counts bytes while COUNTING is set.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        grow(layout.size() as isize);
        made();
        // SAFETY: the caller's contract, forwarded.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        grow(-(layout.size() as isize));
        // SAFETY: the caller's contract, forwarded.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        grow(new_size as isize - layout.size() as isize);
        made();
        // SAFETY: the caller's contract, forwarded.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// (peak, kept) bytes and the allocations of the compile of `shape` at `n`
/// micro-ops for variant `tier`.
fn compile_bytes(tier: Dispatch, shape: Shape, n: usize) -> (isize, isize, isize) {
    let data = shape.upload(n).encode();
    let mut m = Machine::new(&data, &params());
    LIVE.store(0, Ordering::SeqCst);
    PEAK.store(0, Ordering::SeqCst);
    MADE.store(0, Ordering::SeqCst);
    COUNTING.with(|c| c.set(true));
    m.prepare::<NoObserver>(tier);
    COUNTING.with(|c| c.set(false));
    (
        PEAK.load(Ordering::SeqCst),
        LIVE.load(Ordering::SeqCst),
        MADE.load(Ordering::SeqCst),
    )
}

// One test function only, so that no other test counts at the same time.
#[test]
fn the_compile_holds_a_bounded_amount_per_micro_op() {
    #[cfg(feature = "stencil")]
    stencils_allocate_no_more_for_more_micro_ops();
    #[cfg(feature = "jit")]
    cranelift_holds_one_region_at_a_time();
}

/// Cranelift's compile keeps a table entry a micro-op, and its peak is one
/// region's work at a time.
#[cfg(feature = "jit")]
fn cranelift_holds_one_region_at_a_time() {
    if kmst::exec::jit_available().is_err() {
        eprintln!("no Cranelift backend here: nothing compiles");
        return;
    }
    for shape in Shape::ALL {
        // One region's compile, then 64 of them.
        let (region_peak, _, _) = compile_bytes(Dispatch::Jit, shape, 1_024);
        let (peak, kept, _) = compile_bytes(Dispatch::Jit, shape, 65_535);
        eprintln!("{shape}: one region's peak {region_peak}; 65,535: peak {peak}, kept {kept}");
        // What the compiled program keeps on the heap: its table of one
        // function pointer (8 bytes) per micro-op and the module's own
        // records (the code itself is in pages of its own).
        assert!(
            kept <= 16 * 65_535 + (64 << 10),
            "{shape}: {kept} bytes kept, more than 16 a micro-op and 64 KiB"
        );
        // The rest is one region's work at a time: 64 regions peak at no
        // more than twice one region's peak (the kept bytes aside), where a
        // compile of the whole program at once would grow with it.
        assert!(
            peak <= 2 * region_peak + kept,
            "{shape}: peak {peak} bytes, one region's {region_peak}, kept {kept}"
        );
    }
}

/// The stencil tier makes the same allocations at 16,000 and at 65,535
/// micro-ops (its buffers are sized from the program up front: the code,
/// the offsets where each pc starts, the jumps to patch, the entries; a
/// program this large maps pages of its own, where a small one may first
/// map the thread's pool of pages);
/// it keeps one entry (8 bytes) a micro-op on the heap, the code being in
/// pages of its own; its peak is room for the longest stencil and a head
/// at every pc (under 100 bytes), and 32 bytes a micro-op of tables.
#[cfg(feature = "stencil")]
fn stencils_allocate_no_more_for_more_micro_ops() {
    if kmst::exec::stencil_available().is_err() {
        eprintln!("no stencils here");
        return;
    }
    for shape in Shape::ALL {
        let (_, _, few) = compile_bytes(Dispatch::Stencil, shape, 16_000);
        let (peak, kept, many) = compile_bytes(Dispatch::Stencil, shape, 65_535);
        eprintln!(
            "{shape} stencils: {few} allocations at 16,000, {many} at 65,535; peak {peak}, kept {kept}"
        );
        assert_eq!(few, many, "{shape}: allocations grow with the program");
        assert!(kept <= 8 * 65_536 + 4096, "{shape}: {kept} bytes kept");
        assert!(peak <= (100 + 32) * 65_536, "{shape}: peak {peak} bytes");
    }
}

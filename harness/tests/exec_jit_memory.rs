//! The compiled tier's memory is bounded per micro-op (docs/dispatch.md,
//! "The compiled tier at every size"): a counting global allocator watches
//! the compile (`Machine::prepare` with `Dispatch::Jit`) of every shape of
//! kmst_harness::shapes at the format's limit. The compiler builds one
//! region of about 1,024 micro-ops at a time and frees its context before
//! the next, so its peak is what it keeps (the code and a table of one
//! entry per micro-op) plus one region's work, whatever the program's size.
#![cfg(feature = "jit")]

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicIsize, Ordering};

use kmst::exec::{Dispatch, Machine, NoObserver, jit_available};
use kmst_harness::shapes::{Shape, params};

struct Counting;

thread_local! {
    // Only the test's own thread counts (the harness's threads allocate
    // at any time).
    static COUNTING: Cell<bool> = const { Cell::new(false) };
}
/// Bytes allocated and not yet freed since counting began, and their peak.
static LIVE: AtomicIsize = AtomicIsize::new(0);
static PEAK: AtomicIsize = AtomicIsize::new(0);

fn grow(by: isize) {
    if COUNTING.with(Cell::get) {
        let live = LIVE.fetch_add(by, Ordering::Relaxed) + by;
        PEAK.fetch_max(live, Ordering::Relaxed);
    }
}

// SAFETY: forwards every call to the system allocator unchanged; it only
// counts bytes while COUNTING is set.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        grow(layout.size() as isize);
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
        // SAFETY: the caller's contract, forwarded.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// (peak, kept) bytes of the compile of `shape` at `n` micro-ops.
fn compile_bytes(shape: Shape, n: usize) -> (isize, isize) {
    let data = shape.upload(n).encode();
    let mut m = Machine::new(&data, &params());
    LIVE.store(0, Ordering::SeqCst);
    PEAK.store(0, Ordering::SeqCst);
    COUNTING.with(|c| c.set(true));
    m.prepare::<NoObserver>(Dispatch::Jit);
    COUNTING.with(|c| c.set(false));
    (PEAK.load(Ordering::SeqCst), LIVE.load(Ordering::SeqCst))
}

// One test function only, so that no other test allocates while counting.
#[test]
fn the_compile_holds_a_bounded_amount_per_micro_op() {
    if jit_available().is_err() {
        eprintln!("no Cranelift backend here: nothing compiles");
        return;
    }
    for shape in Shape::ALL {
        // One region's compile, then 64 of them.
        let (region_peak, _) = compile_bytes(shape, 1_024);
        let (peak, kept) = compile_bytes(shape, 65_535);
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

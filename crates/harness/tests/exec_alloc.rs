//! The fast kernel allocates nothing per pass or per micro-op: a counting
//! global allocator watches a whole run of the 1,000-job example of
//! docs/spec.md "The builder" on every fast variant.
//!
//! Allocation is allowed in set-up (`Machine::new`, which checks and decodes
//! the upload) and for the result vectors, which the test reserves up front
//! with the sizes worked out from the spec: 1,000 commands (one per job) and
//! one event (the STREAM_END of `halt 0`). The count covers `Machine::run`
//! only, that is every pass of the run.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};

use kmst::exec::{Dispatch, Machine, NoObserver};
use kmst::reference::{Params, Status};
use kmst_harness::fuzzing::job_example;

struct Counting;

thread_local! {
    // Only the test's own thread counts: the test harness's other threads may
    // allocate at any time (output capture, timing) and are not the kernel.
    static COUNTING: Cell<bool> = const { Cell::new(false) };
}
static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

// SAFETY: forwards every call to the system allocator unchanged; it only
// counts calls while COUNTING is set.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if COUNTING.with(Cell::get) {
            ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        }
        // SAFETY: the caller's contract, forwarded.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract, forwarded.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if COUNTING.with(Cell::get) {
            ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        }
        // SAFETY: the caller's contract, forwarded.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

// One test function only, so that no other test allocates while counting.
#[test]
fn the_pass_loop_does_not_allocate() {
    let data = job_example().encode();
    let params = Params::default();
    for &dispatch in Dispatch::ALL {
        let mut m = Machine::new(&data, &params);
        m.reserve(1000, 1);
        ALLOCATIONS.store(0, Ordering::SeqCst);
        COUNTING.with(|c| c.set(true));
        m.run(dispatch, &mut NoObserver);
        COUNTING.with(|c| c.set(false));
        let counted = ALLOCATIONS.load(Ordering::SeqCst);
        let r = m.into_result();
        // The run is the whole example: every job submitted, then HALT.
        assert_eq!(r.status, Status::Ended);
        assert_eq!(r.commands.len(), 1000);
        assert_eq!(r.events.len(), 1);
        assert_eq!(
            counted, 0,
            "{dispatch}: {counted} allocations in the pass loop"
        );
    }
    // The counter does count: a run without the reserve grows the vectors.
    let mut m = Machine::new(&data, &params);
    ALLOCATIONS.store(0, Ordering::SeqCst);
    COUNTING.with(|c| c.set(true));
    m.run(Dispatch::Tail, &mut NoObserver);
    COUNTING.with(|c| c.set(false));
    assert!(ALLOCATIONS.load(Ordering::SeqCst) > 0);
}

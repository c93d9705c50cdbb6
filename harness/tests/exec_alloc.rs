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
use kmst_harness::fuzzing::job_example;
use kmst_reference::{HostCommand, Params, Scenario, Status};

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

/// How many allocations this thread makes in `f`.
fn allocations_in(f: impl FnOnce()) -> usize {
    ALLOCATIONS.store(0, Ordering::SeqCst);
    COUNTING.with(|c| c.set(true));
    f();
    COUNTING.with(|c| c.set(false));
    ALLOCATIONS.load(Ordering::SeqCst)
}

// One test function only, so that no other test allocates while counting.
#[test]
fn the_pass_loop_does_not_allocate() {
    let data = job_example().encode();
    let params = Params::default();
    for &dispatch in Dispatch::ALL {
        let mut m = Machine::new(&data, &params);
        m.reserve(1000, 1);
        // The compiled tier compiles here, before the run.
        m.prepare::<NoObserver>(dispatch);
        let counted = allocations_in(|| m.run(dispatch, &mut NoObserver));
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
    // A kernel scenario: the example with req 1 at 0 and with req 2 at 1024
    // (two streams at once), a host enqueue and a host submit in pass 3, a
    // RUN of the first again in pass 5 (rejected: its range is active), and
    // a DEADLINE. S28: each stream runs the example, 1,000 commands each;
    // the host's two commands make 2,002; events: two STREAM_ENDs and the
    // rejected RUN's STREAM_ERROR.
    let mut second = job_example();
    second.header.req = 2;
    let second = second.encode();
    let mut scenario = Scenario::new(params.clone()).unwrap();
    scenario.place(0, data.clone()).unwrap();
    scenario.place(1024, second.clone()).unwrap();
    let run = |offset: u32, length: usize| HostCommand::Run {
        offset,
        length: length as u32,
    };
    scenario.push(0, run(0, data.len())).unwrap();
    scenario.push(0, run(1024, second.len())).unwrap();
    scenario
        .push(
            3,
            HostCommand::Enqueue {
                handler: 9,
                count: 2,
                args: [0; 10],
                exclusive: false,
                result: false,
            },
        )
        .unwrap();
    scenario
        .push(
            3,
            HostCommand::Submit {
                handler: 9,
                first: 0,
                count: 1,
                args: [0; 10],
                exclusive: false,
                result: true,
            },
        )
        .unwrap();
    scenario.push(5, run(0, data.len())).unwrap();
    scenario.push(6, HostCommand::Deadline { us: 500 }).unwrap();
    for &dispatch in Dispatch::ALL {
        let mut m = Machine::new_scenario(&scenario);
        m.reserve(2002, 3);
        // The compiled tier compiles here, before the run.
        m.prepare::<NoObserver>(dispatch);
        let counted = allocations_in(|| m.run(dispatch, &mut NoObserver));
        let r = m.into_scenario_result();
        assert_eq!(r.streams.len(), 2);
        assert!(r.streams.iter().all(|s| s.status == Status::Ended));
        assert_eq!(r.commands.len(), 2002);
        assert_eq!(r.events.len(), 3);
        assert_eq!(
            counted, 0,
            "{dispatch}: {counted} allocations in a scenario's pass loop"
        );
    }
    // The counter does count: a run without the reserve grows the vectors.
    let mut m = Machine::new(&data, &params);
    assert!(allocations_in(|| m.run(Dispatch::Tail, &mut NoObserver)) > 0);
}

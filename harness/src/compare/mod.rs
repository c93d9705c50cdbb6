//! `kmst compare`: how fast each dispatch variant runs the benchmark workloads.
//!
//! The project's main job is to show that the fast interpreter gives the
//! reference model's answers much faster. This module holds everything but
//! the command line:
//!
//! - the [`Workload`]s: the named benchmark streams bundled into the binary
//!   ([`bundled`], sources in `corpus/bench/` and `corpus/streams/jobs_1000.kms`)
//!   or any `.kms` source with `;@ params` directives ([`Workload::from_source`]),
//!   and the bundled kernel scenarios ([`BUNDLED_SCENARIOS`]: several streams
//!   beside the host, sources in `corpus/bench/`) or any scenario file;
//! - the agreement check: every variant's answer must equal the reference
//!   model's ([`check_agreement`], which names the first differing field);
//! - micro-op counting in a separate, untimed run through an [`Observer`](kmst::Observer)
//!   ([`count_ops`]), so the timed runs carry no counting cost;
//! - timing: the variants run round-robin, sample by sample, so that a load
//!   change on a shared machine hits every variant alike, and each speed-up is
//!   the median of the per-sample ratios ([`measure`]);
//! - statistics ([`Summary`]): the median with a distribution-free confidence
//!   interval from order statistics, and the mean with a Student-t interval;
//! - rendering: a text table ([`render_table`]) and JSON ([`to_json`]); the
//!   command line draws the SVG chart;
//! - counters instead of times (`kmst compare --counters`, [`count_events`]):
//!   instructions, conditional and indirect branches and their
//!   mispredictions per micro-op, counted by valgrind's callgrind with its
//!   branch simulator in a child process over [`measured_runs`] only, and
//!   their table ([`render_counters_table`]) and JSON ([`counters_to_json`]).

mod counters;
mod measure;
mod render;
mod stats;
mod workload;

pub use counters::{
    COUNTER_NAMES, CallgrindError, CallgrindTotals, CountedWorkload, CounterReport,
    CounterSettings, Counters, CountersError, EVENTS, MEASURED_FUNCTION, VariantCounters,
    callgrind, count_events, find_valgrind, measured_runs, parse_callgrind, run_child,
};
pub use measure::{Compiled, Report, Settings, VariantResult, WorkloadResult, compare, measure};
pub use render::{
    TABLE_WIDTH, counters_to_json, fmt3, interval_level, level_text, render_counters_table,
    render_table, to_json, to_json_over,
};
pub use stats::{Summary, t975};
pub use workload::{
    BUNDLED, BUNDLED_SCENARIOS, BundledScenario, CompareError, OpCounter, Workload, bundled,
    bundled_names, check_agreement, count_ops, simulate_scenario,
};

//! One line that sums a run up, for reports.

use kmst_reference::SimResult;

/// One line summing up a run.
pub fn run_summary(r: &SimResult) -> String {
    let end = match (&r.error, r.halt) {
        (Some(e), _) => format!(" (reason {} at pc {})", e.reason.number(), e.pc),
        (None, Some(h)) => format!(" (halt {h})"),
        _ => String::new(),
    };
    format!(
        "status {:?}{end}, {} commands, {} events, passes {}, stopped {}",
        r.status,
        r.commands.len(),
        r.events.len(),
        r.passes,
        r.stopped
    )
}

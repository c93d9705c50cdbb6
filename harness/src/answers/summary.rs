//! One line that sums a run up, for reports.

use kmst_reference::SimResult;

/// `n` and its noun, singular for 1: `1 command`, `2 events`.
pub fn counted(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// One line summing up a run.
pub fn run_summary(r: &SimResult) -> String {
    let end = match (&r.error, r.halt) {
        (Some(e), _) => format!(" (reason {} at pc {})", e.reason.number(), e.pc),
        (None, Some(h)) => format!(" (halt {h})"),
        _ => String::new(),
    };
    format!(
        "status {:?}{end}, {}, {}, passes {}, stopped {}",
        r.status,
        counted(r.commands.len(), "command", "commands"),
        counted(r.events.len(), "event", "events"),
        r.passes,
        r.stopped
    )
}

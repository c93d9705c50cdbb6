//! A one-line progress display on standard error, shown only when standard
//! error is a terminal (never in a pipe or a log file), so that a long run
//! shows a sign of life and a script's output stays clean.

use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use kmst::exec::Observer;

/// The display line: `show` replaces it, `clear` removes it.
pub struct Line {
    on: bool,
}

impl Line {
    /// On when standard error is a terminal.
    pub fn new() -> Line {
        Line {
            on: std::io::stderr().is_terminal(),
        }
    }

    pub fn show(&self, msg: &str) {
        if self.on {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r\x1b[2K{msg}");
            let _ = err.flush();
        }
    }

    /// Clears the line (before a message is printed, or at the end).
    pub fn clear(&self) {
        if self.on {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r\x1b[2K");
            let _ = err.flush();
        }
    }
}

/// Counts the passes the kernel has simulated (the last pass it reported
/// the end of, plus one, S22's passes and the idle ones it skipped).
pub struct PassCounter<'a>(pub &'a AtomicU64);

impl Observer for PassCounter<'_> {
    const ENABLED: bool = true;

    fn on_pass_end(&mut self, pass: u64, _busy_slots: u32, _queue_len: u32) {
        self.0.store(pass + 1, Ordering::Relaxed);
    }

    fn on_idle(&mut self, _from: u64, to: u64) {
        self.0.store(to, Ordering::Relaxed);
    }
}

/// Runs `work`; on a terminal, after half a second, shows `what`, the
/// elapsed time and (when `passes` is given) the passes simulated of
/// `max_passes`, four times a second, until `work` returns.
pub fn while_running<R>(
    what: &str,
    passes: Option<&AtomicU64>,
    max_passes: u64,
    work: impl FnOnce() -> R,
) -> R {
    let line = Line::new();
    if !line.on {
        return work();
    }
    let done = AtomicBool::new(false);
    std::thread::scope(|scope| {
        scope.spawn(|| {
            let start = Instant::now();
            let mut next = start + Duration::from_millis(500);
            let mut shown = false;
            while !done.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(50));
                if Instant::now() < next {
                    continue;
                }
                next += Duration::from_millis(250);
                shown = true;
                let t = start.elapsed();
                let mut msg = format!("{what}: {:.1} s", t.as_secs_f64());
                if let Some(p) = passes {
                    let p = p.load(Ordering::Relaxed);
                    msg.push_str(&format!(
                        ", pass {} of at most {} ({:.1}%)",
                        group(p),
                        group(max_passes),
                        p as f64 * 100.0 / max_passes.max(1) as f64
                    ));
                }
                line.show(&msg);
            }
            if shown {
                line.clear();
            }
        });
        let r = work();
        done.store(true, Ordering::Relaxed);
        r
    })
}

/// `n` with thousands separators: 1,234,567.
pub fn group(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `n` and the noun: `1 pass`, `2,355 passes`.
pub fn count(n: u64, one: &str, many: &str) -> String {
    format!("{} {}", group(n), if n == 1 { one } else { many })
}

#[cfg(test)]
mod tests {
    #[test]
    fn thousands() {
        use super::group;
        assert_eq!(group(0), "0");
        assert_eq!(group(999), "999");
        assert_eq!(group(1_000), "1,000");
        assert_eq!(group(1_234_567), "1,234,567");
        assert_eq!(group(u64::MAX), "18,446,744,073,709,551,615");
    }

    #[test]
    fn counts() {
        use super::count;
        assert_eq!(count(1, "pass", "passes"), "1 pass");
        assert_eq!(count(0, "pass", "passes"), "0 passes");
        assert_eq!(count(2_355, "stream", "streams"), "2,355 streams");
    }
}

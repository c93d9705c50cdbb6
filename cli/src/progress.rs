//! A one-line progress display on standard error, shown only when standard
//! error is a terminal (never in a pipe or a log file), so that a long run
//! shows a sign of life and a script's output stays clean.

use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use kmst::exec::Observer;
use kmst_harness::text::{counted, grouped};

/// True when the progress line shows: standard error is a terminal.
pub fn shown() -> bool {
    std::io::stderr().is_terminal()
}

/// The display line: `show` replaces it, `clear` removes it.
pub struct Line {
    on: bool,
}

impl Line {
    /// On when standard error is a terminal.
    pub fn new() -> Line {
        Line { on: shown() }
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
/// the end of, plus one, S22's passes and the idle ones it skipped); at the
/// end, every pass simulated. It asks for no per-micro-op hook (`ENABLED`
/// false). With `EVERY_PASS` false the kernel runs as the library's
/// `simulate` does, spans of quick passes in one chain, each counted when it
/// ends (up to 2^32 micro-ops later: seconds); with it true every pass is
/// counted as it ends, for a progress line that moves, at some cost when
/// one stream spins alone (docs/cli.md: about a tenth at the default turn budget
/// of 64, three times as long at a budget of 1).
pub struct PassCounter<'a, const EVERY_PASS: bool>(pub &'a AtomicU64);

impl<const EVERY: bool> Observer for PassCounter<'_, EVERY> {
    const EVERY_PASS: bool = EVERY;

    fn on_pass_end(&mut self, pass: u64, _busy_slots: u32, _queue_len: u32) {
        self.0.store(pass + 1, Ordering::Relaxed);
    }

    fn on_idle(&mut self, _from: u64, to: u64) {
        self.0.store(to, Ordering::Relaxed);
    }
}

/// Runs `work`; on a terminal, after half a second, shows `what`, the
/// elapsed time and (when `passes` is given) the passes simulated of
/// `max_passes`, the rate and the time left at that rate (at most: the run
/// may end before `max_passes`), four times a second, until `work` returns.
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
            // The count and when it last moved: the rate is taken there (a
            // span of quick passes is counted only when it ends).
            let (mut counted, mut counted_at) = (0, 0.0);
            while !done.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(50));
                if Instant::now() < next {
                    continue;
                }
                next += Duration::from_millis(250);
                shown = true;
                let t = start.elapsed().as_secs_f64();
                let mut msg = format!("{what}: {t:.1} s");
                if let Some(p) = passes {
                    let p = p.load(Ordering::Relaxed);
                    if p != counted {
                        (counted, counted_at) = (p, t);
                    }
                    msg.push_str(&passes_text(counted, max_passes, counted_at));
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

/// The passes part of the progress line: `p` passes of at most
/// `max_passes` simulated in `secs` seconds, the rate, and the time the rest
/// takes at that rate (the run may end sooner).
pub fn passes_text(p: u64, max_passes: u64, secs: f64) -> String {
    let mut s = format!(
        ", pass {} of at most {} ({:.1}%)",
        grouped(p),
        grouped(max_passes),
        p as f64 * 100.0 / max_passes.max(1) as f64
    );
    if p > 0 && secs > 0.0 {
        let rate = p as f64 / secs;
        s.push_str(&format!(", {} passes/s", grouped(rate as u64)));
        let left = max_passes.saturating_sub(p) as f64 / rate;
        s.push_str(&format!(", at most {} left", duration(left)));
    }
    s
}

/// Seconds as a person reads them: `42 s`, `3 min 20 s`, `2 h 5 min`,
/// `12 days`, `1,234 years`.
pub fn duration(secs: f64) -> String {
    let s = secs.round() as u64; // saturates: u64::MAX s is beyond every unit below
    const DAY: u64 = 86_400;
    const YEAR: u64 = 365 * DAY;
    match s {
        0..60 => format!("{s} s"),
        60..3_600 => format!("{} min {} s", s / 60, s % 60),
        3_600..DAY => format!("{} h {} min", s / 3_600, s % 3_600 / 60),
        DAY..YEAR => counted(s / DAY, "day", "days"),
        _ => counted(s / YEAR, "year", "years"),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn durations() {
        use super::duration;
        assert_eq!(duration(0.4), "0 s");
        assert_eq!(duration(59.4), "59 s");
        assert_eq!(duration(200.0), "3 min 20 s");
        assert_eq!(duration(7_500.0), "2 h 5 min");
        assert_eq!(duration(86_400.0), "1 day");
        assert_eq!(duration(12.5 * 86_400.0), "12 days");
        assert_eq!(duration(1e30), "584,942,417,355 years");
    }

    #[test]
    fn the_passes_part() {
        use super::passes_text;
        // 1,000 of 10,000 passes in 2 s: 500 passes/s, the 9,000 left in 18 s.
        assert_eq!(
            passes_text(1_000, 10_000, 2.0),
            ", pass 1,000 of at most 10,000 (10.0%), 500 passes/s, at most 18 s left"
        );
        // None yet: no rate.
        assert_eq!(passes_text(0, 10, 1.0), ", pass 0 of at most 10 (0.0%)");
    }
}

//! The human form of a profile: aligned tables, histograms as bars, and the
//! program as annotated disassembly with the hottest lines marked.

use std::fmt::Write as _;

use super::report::{Profile, SweepRow};

/// The widest bar, in characters.
const BAR: usize = 40;
/// More distinct per-turn micro-op counts than this are shown in buckets.
const MAX_OPS_ROWS: usize = 20;

/// A bar of `value` out of `max`, at most [`BAR`] wide; never empty for a non-zero value.
fn bar(value: u64, max: u64) -> String {
    if value == 0 || max == 0 {
        return String::new();
    }
    let n = ((value as u128 * BAR as u128).div_ceil(max as u128) as usize).clamp(1, BAR);
    "#".repeat(n)
}

fn pct(share: f64) -> String {
    format!("{:.1}%", share * 100.0)
}

/// Micro-op buckets `[lo, hi]` and their turns: exact values when there are
/// few, else 0, equal ranges up to budget - 1, and the budget itself.
fn ops_buckets(p: &Profile) -> Vec<(u32, u32, u64)> {
    let rows = &p.turns.ops_histogram;
    if rows.len() <= MAX_OPS_ROWS {
        return rows.iter().map(|r| (r.ops, r.ops, r.turns)).collect();
    }
    let budget = p.turn_budget.max(1);
    let top = rows.last().map_or(budget, |r| r.ops.max(budget));
    let width = (budget - 1).max(1).div_ceil(16).max(1);
    let mut out: Vec<(u32, u32, u64)> = vec![(0, 0, 0)];
    let mut lo = 1;
    while lo < budget {
        let hi = (lo + width - 1).min(budget - 1);
        out.push((lo, hi, 0));
        lo = hi + 1;
    }
    out.push((budget, top, 0));
    for r in rows {
        if let Some(b) = out.iter_mut().find(|b| b.0 <= r.ops && r.ops <= b.1) {
            b.2 += r.turns;
        }
    }
    out.retain(|b| b.2 > 0);
    out
}

/// The whole human report.
pub fn human(p: &Profile) -> String {
    let mut s = String::new();
    let t = &p.turns;
    let _ = writeln!(
        s,
        "profile: {} dispatch, turn budget {}",
        p.dispatch, p.turn_budget
    );
    let _ = writeln!(s, "status        {}", p.status);
    let _ = writeln!(s, "passes        {}", p.passes);
    let _ = writeln!(s, "kernel passes {} (run or skipped)", p.kernel_passes);
    let _ = writeln!(s, "commands      {}", p.commands);
    let _ = writeln!(s, "micro-ops     {}", p.micro_ops);
    let _ = writeln!(
        s,
        "turns         {} taken, {:.2} micro-ops per turn",
        t.taken, t.mean_ops
    );
    let _ = writeln!(
        s,
        "ran nothing   {} passes: {} turns of 0 micro-ops + {} idle passes skipped",
        t.ran_nothing, t.zero_op, t.skipped
    );
    let _ = writeln!(s, "no turn       {} passes", t.without_turn);

    let _ = writeln!(s, "\nmicro-ops per turn");
    let buckets = ops_buckets(p);
    let max = buckets.iter().map(|b| b.2).max().unwrap_or(0);
    let _ = writeln!(s, "  {:>13}  {:>10}  {:>6}", "micro-ops", "turns", "share");
    for (lo, hi, n) in buckets {
        let label = if lo == hi {
            lo.to_string()
        } else {
            format!("{lo}..={hi}")
        };
        let share = if t.taken == 0 {
            0.0
        } else {
            n as f64 / t.taken as f64
        };
        let _ = writeln!(
            s,
            "  {label:>13}  {n:>10}  {:>6}  {}",
            pct(share),
            bar(n, max)
        );
    }

    let _ = writeln!(s, "\nwhy turns ended");
    let _ = writeln!(
        s,
        "  {:<16}  {:>10}  {:>6}  {:>12}",
        "reason", "turns", "share", "idle skipped"
    );
    let max = t.ends.iter().map(|e| e.turns).max().unwrap_or(0);
    for e in &t.ends {
        let _ = writeln!(
            s,
            "  {:<16}  {:>10}  {:>6}  {:>12}  {}",
            e.why,
            e.turns,
            pct(e.share),
            e.skipped,
            bar(e.turns, max)
        );
    }

    let _ = writeln!(
        s,
        "\nbusy slots at the end of a pass: mean {:.2}, max {}",
        p.slots.mean, p.slots.max
    );
    let _ = writeln!(s, "  {:>5}  {:>10}  {:>6}", "slots", "passes", "share");
    let max = p.slots.histogram.iter().copied().max().unwrap_or(0);
    for (k, &n) in p.slots.histogram.iter().enumerate() {
        let share = if p.kernel_passes == 0 {
            0.0
        } else {
            n as f64 / p.kernel_passes as f64
        };
        let _ = writeln!(s, "  {k:>5}  {n:>10}  {:>6}  {}", pct(share), bar(n, max));
    }
    let _ = writeln!(
        s,
        "\nqueue depth at the end of a pass: mean {:.2}, max {}",
        p.queue.mean, p.queue.max
    );

    let _ = writeln!(
        s,
        "\nprogram ({} hottest lines marked *N)",
        super::report::HOT_LINES
    );
    let _ = writeln!(
        s,
        "  {:>3}  {:>5}  {:>10}  {:>8}  {:>10}  micro-op",
        "hot", "pc", "executed", "waits", "idle"
    );
    for l in &p.pcs {
        let hot = l.hot.map_or(String::new(), |r| format!("*{r}"));
        let _ = writeln!(
            s,
            "  {hot:>3}  {:>5}  {:>10}  {:>8}  {:>10}  {}",
            l.pc, l.executed, l.waits, l.skipped, l.text
        );
    }
    trim_lines(&s)
}

/// Drops the trailing blanks an empty bar leaves.
fn trim_lines(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for line in s.lines() {
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// The sweep table.
pub fn sweep(rows: &[SweepRow]) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{:>8}  {:>6}  {:>10}  {:>10}  {:>10}  {:>10}  {:>10}",
        "budget", "status", "passes", "turns", "skipped", "micro-ops", "mean slots"
    );
    for r in rows {
        let _ = writeln!(
            s,
            "{:>8}  {:>6}  {:>10}  {:>10}  {:>10}  {:>10}  {:>10.2}",
            r.turn_budget, r.status, r.passes, r.turns, r.skipped, r.micro_ops, r.mean_slots
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bars_scale_to_the_largest_and_never_vanish() {
        assert_eq!(bar(0, 10), "");
        assert_eq!(bar(10, 10).len(), BAR);
        assert_eq!(bar(5, 10).len(), BAR / 2);
        // 1 of a million still shows.
        assert_eq!(bar(1, 1_000_000), "#");
    }

    #[test]
    fn many_distinct_turn_lengths_go_into_buckets() {
        use super::super::report::{OpsRow, Turns};
        // Budget 64, one turn of each length 0..=29 and five of 64: 31
        // distinct counts (> 20), so buckets: [0], then width ceil(63 / 16)
        // = 4: [1, 4], [5, 8], ..., [25, 28], [29, 32] (only 29 occurs),
        // and [64, 64].
        let mut rows: Vec<OpsRow> = (0..30).map(|ops| OpsRow { ops, turns: 1 }).collect();
        rows.push(OpsRow { ops: 64, turns: 5 });
        let p = Profile {
            turn_budget: 64,
            turns: Turns {
                taken: 35,
                ops_histogram: rows,
                ..Turns::default()
            },
            ..Profile::default()
        };
        let mut expect = vec![(0, 0, 1)];
        for k in 0..7 {
            expect.push((1 + 4 * k, 4 + 4 * k, 4));
        }
        expect.push((29, 32, 1));
        expect.push((64, 64, 5));
        assert_eq!(ops_buckets(&p), expect);
        let text = human(&p);
        assert!(text.contains("  29..=32  "), "{text}");
        // Few distinct counts stay exact.
        let p = Profile {
            turn_budget: 64,
            turns: Turns {
                ops_histogram: vec![OpsRow { ops: 3, turns: 2 }, OpsRow { ops: 64, turns: 1 }],
                ..Turns::default()
            },
            ..Profile::default()
        };
        assert_eq!(ops_buckets(&p), vec![(3, 3, 2), (64, 64, 1)]);
    }
}

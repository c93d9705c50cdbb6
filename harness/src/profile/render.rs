//! The human form of a profile: aligned tables, histograms as bars, and the
//! program as annotated disassembly with the hottest lines marked.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::text::{counted, grouped};

use super::report::{OpsRow, Profile, QueueDepth, SlotOccupancy, SweepRow};
use super::scenario::{ScenarioProfile, ScenarioSweepRow};

mod pairs;
pub use pairs::pairs;

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
    buckets_of(&p.turns.ops_histogram, p.turn_budget)
}

/// [`ops_buckets`] of a histogram and a budget.
fn buckets_of(rows: &[OpsRow], turn_budget: u32) -> Vec<(u32, u32, u64)> {
    if rows.len() <= MAX_OPS_ROWS {
        return rows.iter().map(|r| (r.ops, r.ops, r.turns)).collect();
    }
    let budget = turn_budget.max(1);
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
        p.dispatch,
        grouped(u64::from(p.turn_budget))
    );
    let _ = writeln!(s, "status        {}", p.status);
    let _ = writeln!(s, "passes        {}", grouped(p.passes));
    let _ = writeln!(
        s,
        "kernel passes {} (run or skipped)",
        grouped(p.kernel_passes)
    );
    let _ = writeln!(s, "commands      {}", grouped(p.commands));
    let _ = writeln!(s, "micro-ops     {}", grouped(p.micro_ops));
    let _ = writeln!(
        s,
        "turns         {} taken, {:.2} micro-ops per turn",
        grouped(t.taken),
        t.mean_ops
    );
    let _ = writeln!(
        s,
        "ran nothing   {}: {} of 0 micro-ops + {} skipped",
        counted(t.ran_nothing, "pass", "passes"),
        counted(t.zero_op, "turn", "turns"),
        counted(t.skipped, "idle pass", "idle passes")
    );
    let _ = writeln!(
        s,
        "no turn       {}",
        counted(t.without_turn, "pass", "passes")
    );

    let _ = writeln!(s, "\nmicro-ops per turn");
    let buckets = ops_buckets(p);
    let max = buckets.iter().map(|b| b.2).max().unwrap_or(0);
    let _ = writeln!(s, "  {:>13}  {:>10}  {:>6}", "micro-ops", "turns", "share");
    for (lo, hi, n) in buckets {
        let label = if lo == hi {
            grouped(lo.into())
        } else {
            format!("{}..={}", grouped(lo.into()), grouped(hi.into()))
        };
        let share = if t.taken == 0 {
            0.0
        } else {
            n as f64 / t.taken as f64
        };
        let _ = writeln!(
            s,
            "  {label:>13}  {:>10}  {:>6}  {}",
            grouped(n),
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
            grouped(e.turns),
            pct(e.share),
            grouped(e.skipped),
            bar(e.turns, max)
        );
    }

    let _ = writeln!(
        s,
        "\nbusy slots at the end of a pass: mean {:.2}, max {}",
        p.slots.mean, p.slots.max
    );
    slots_and_queue(&mut s, &p.slots, &p.queue, p.kernel_passes, true);

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
            l.pc,
            grouped(l.executed),
            grouped(l.waits),
            grouped(l.skipped),
            l.text
        );
    }
    trim_lines(&s)
}

/// The passes by busy slots at their end (`all`: the counts no pass had
/// too), then the queue's depth.
fn slots_and_queue(
    s: &mut String,
    slots: &SlotOccupancy,
    queue: &QueueDepth,
    kernel_passes: u64,
    all: bool,
) {
    let _ = writeln!(s, "  {:>5}  {:>10}  {:>6}", "slots", "passes", "share");
    let max = slots.histogram.iter().copied().max().unwrap_or(0);
    for (k, &n) in slots.histogram.iter().enumerate() {
        if n == 0 && !all {
            continue;
        }
        let share = if kernel_passes == 0 {
            0.0
        } else {
            n as f64 / kernel_passes as f64
        };
        let _ = writeln!(
            s,
            "  {k:>5}  {:>10}  {:>6}  {}",
            grouped(n),
            pct(share),
            bar(n, max)
        );
    }
    let _ = writeln!(
        s,
        "\nqueue depth at the end of a pass: mean {:.2}, max {}",
        queue.mean,
        grouped(u64::from(queue.max))
    );
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
            grouped(u64::from(r.turn_budget)),
            r.status,
            grouped(r.passes),
            grouped(r.turns),
            grouped(r.skipped),
            grouped(r.micro_ops),
            r.mean_slots
        );
    }
    s
}

/// A table whose first `left` columns are left-aligned, the others right-aligned.
fn table(s: &mut String, header: &[String], rows: &[Vec<String>], left: usize) {
    let mut width: Vec<usize> = header.iter().map(String::len).collect();
    for r in rows {
        for (w, c) in width.iter_mut().zip(r) {
            *w = (*w).max(c.len());
        }
    }
    let mut line = |cells: &[String]| {
        let mut l = String::from(" ");
        for (i, (c, w)) in cells.iter().zip(&width).enumerate() {
            l.push_str(if i == 0 { " " } else { "  " });
            if i < left {
                l.push_str(&format!("{c:<w$}"));
            } else {
                l.push_str(&format!("{c:>w$}"));
            }
        }
        let _ = writeln!(s, "{}", l.trim_end());
    };
    line(header);
    for r in rows {
        line(r);
    }
}

/// More streams than this share columns: one per upload range.
const MAX_STREAM_COLUMNS: usize = 8;

/// The columns of the turn tables: one per stream, or with more than
/// [`MAX_STREAM_COLUMNS`] streams one per upload range (`[0, 128) x25`:
/// every stream started from it), each with the streams it adds up.
fn stream_columns(p: &ScenarioProfile) -> Vec<(String, Vec<usize>)> {
    if p.streams.len() <= MAX_STREAM_COLUMNS {
        return p
            .streams
            .iter()
            .map(|t| (format!("stream {}", t.stream), vec![t.stream]))
            .collect();
    }
    let mut groups: Vec<((u32, u32), Vec<usize>)> = Vec::new();
    for (i, t) in p.streams.iter().enumerate() {
        match groups.iter_mut().find(|g| g.0 == (t.offset, t.length)) {
            Some(g) => g.1.push(i),
            None => groups.push(((t.offset, t.length), vec![i])),
        }
    }
    groups
        .into_iter()
        .map(|((offset, length), members)| {
            let end = u64::from(offset) + u64::from(length);
            (format!("[{offset}, {end}) x{}", members.len()), members)
        })
        .collect()
}

/// The human report of a scenario: a column per stream (or per upload).
pub fn scenario_human(p: &ScenarioProfile) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "scenario profile: {} dispatch, turn budget {}",
        p.dispatch,
        grouped(u64::from(p.turn_budget))
    );
    let _ = writeln!(s, "streams       {}", grouped(p.streams.len() as u64));
    let _ = writeln!(s, "passes        {}", grouped(p.passes));
    let _ = writeln!(
        s,
        "kernel passes {} (run or skipped)",
        grouped(p.kernel_passes)
    );
    let _ = writeln!(s, "stopped       {}", p.stopped);
    let _ = writeln!(s, "commands      {}", grouped(p.commands));
    let _ = writeln!(s, "micro-ops     {}", grouped(p.micro_ops));

    let columns = stream_columns(p);
    let _ = writeln!(s, "\nstreams");
    let header: Vec<String> = [
        "stream",
        "req",
        "range",
        "start",
        "status",
        "micro-ops",
        "turns",
        "ops/turn",
        "ran nothing",
        "no turn",
        "end",
    ]
    .map(String::from)
    .to_vec();
    let rows: Vec<Vec<String>> = p
        .streams
        .iter()
        .map(|t| {
            vec![
                t.stream.to_string(),
                t.req.to_string(),
                format!(
                    "[{}, {})",
                    t.offset,
                    u64::from(t.offset) + u64::from(t.length)
                ),
                grouped(t.start_pass),
                t.status.clone(),
                grouped(t.micro_ops),
                grouped(t.turns.taken),
                format!("{:.2}", t.turns.mean_ops),
                grouped(t.turns.ran_nothing),
                grouped(t.turns.without_turn),
                match (&t.error, t.halt) {
                    (Some(e), _) => e.clone(),
                    (None, Some(h)) => format!("halt {h}"),
                    (None, None) => "-".to_owned(),
                },
            ]
        })
        .collect();
    table(&mut s, &header, &rows, 1);

    if !p.streams.is_empty() {
        // Buckets over all the streams' turns, then each stream's count in each.
        let mut all: BTreeMap<u32, u64> = BTreeMap::new();
        for t in &p.streams {
            for r in &t.turns.ops_histogram {
                *all.entry(r.ops).or_insert(0) += r.turns;
            }
        }
        let merged: Vec<OpsRow> = all
            .into_iter()
            .map(|(ops, turns)| OpsRow { ops, turns })
            .collect();
        let _ = writeln!(s, "\nmicro-ops per turn (turns of each stream)");
        let mut header = vec!["micro-ops".to_owned()];
        header.extend(columns.iter().map(|c| c.0.clone()));
        let rows: Vec<Vec<String>> = buckets_of(&merged, p.turn_budget)
            .into_iter()
            .map(|(lo, hi, _)| {
                let mut row = vec![if lo == hi {
                    grouped(lo.into())
                } else {
                    format!("{}..={}", grouped(lo.into()), grouped(hi.into()))
                }];
                for (_, members) in &columns {
                    let n: u64 = members
                        .iter()
                        .flat_map(|&i| &p.streams[i].turns.ops_histogram)
                        .filter(|r| lo <= r.ops && r.ops <= hi)
                        .map(|r| r.turns)
                        .sum();
                    row.push(grouped(n));
                }
                row
            })
            .collect();
        table(&mut s, &header, &rows, 1);

        let _ = writeln!(s, "\nwhy turns ended (turns taken, +idle passes skipped)");
        let mut header = vec!["reason".to_owned()];
        header.extend(columns.iter().map(|c| c.0.clone()));
        let rows: Vec<Vec<String>> = (0..super::collect::TURN_END_NAMES.len())
            .map(|r| {
                let mut row = vec![super::collect::TURN_END_NAMES[r].to_owned()];
                for (_, members) in &columns {
                    let turns: u64 = members
                        .iter()
                        .map(|&i| p.streams[i].turns.ends[r].turns)
                        .sum();
                    let skipped: u64 = members
                        .iter()
                        .map(|&i| p.streams[i].turns.ends[r].skipped)
                        .sum();
                    row.push(if skipped > 0 {
                        format!("{} +{}", grouped(turns), grouped(skipped))
                    } else {
                        grouped(turns)
                    });
                }
                row
            })
            .collect();
        table(&mut s, &header, &rows, 1);
    }

    let sent: Vec<_> = p.host.iter().filter(|h| h.sent > 0).collect();
    if !sent.is_empty() {
        let _ = writeln!(s, "\nhost commands");
        let header = ["kind", "sent", "taken", "rejected", "waiting"]
            .map(String::from)
            .to_vec();
        let rows: Vec<Vec<String>> = sent
            .iter()
            .map(|h| {
                vec![
                    h.kind.to_owned(),
                    grouped(h.sent),
                    grouped(h.taken),
                    grouped(h.rejected),
                    grouped(h.waiting),
                ]
            })
            .collect();
        table(&mut s, &header, &rows, 1);
    }

    let _ = writeln!(
        s,
        "\nbusy slots at the end of a pass: mean {:.2}, max {}",
        p.slots.mean, p.slots.max
    );
    let header = [
        "source",
        "commands",
        "queued",
        "slot-passes",
        "mean slots",
        "max slots",
    ]
    .map(String::from)
    .to_vec();
    // With many streams, one row per column of the turn tables (the max
    // is the largest of its streams'); the host last.
    let mut rows: Vec<Vec<String>> = Vec::new();
    let n = p.streams.len();
    let by_source: Vec<(String, Vec<usize>)> = if n > MAX_STREAM_COLUMNS {
        columns.clone()
    } else {
        (0..n)
            .map(|i| (p.slots_by_source[i].source.clone(), vec![i]))
            .collect()
    };
    for (name, members) in by_source.into_iter().chain([("host".to_owned(), vec![n])]) {
        let of = |f: &dyn Fn(&super::scenario::SourceSlots) -> u64| -> u64 {
            members
                .iter()
                .filter_map(|&i| p.slots_by_source.get(i))
                .map(f)
                .sum()
        };
        let mean: f64 = members
            .iter()
            .filter_map(|&i| p.slots_by_source.get(i))
            .map(|r| r.mean)
            .sum();
        let max = members
            .iter()
            .filter_map(|&i| p.slots_by_source.get(i))
            .map(|r| r.max)
            .max()
            .unwrap_or(0);
        rows.push(vec![
            name,
            grouped(of(&|r| r.commands)),
            grouped(of(&|r| r.queued)),
            grouped(of(&|r| r.slot_passes)),
            format!("{mean:.2}"),
            max.to_string(),
        ]);
    }
    table(&mut s, &header, &rows, 1);
    s.push('\n');
    slots_and_queue(&mut s, &p.slots, &p.queue, p.kernel_passes, false);
    trim_lines(&s)
}

/// The scenario sweep table.
pub fn scenario_sweep(rows: &[ScenarioSweepRow]) -> String {
    let mut s = String::new();
    let header = [
        "budget",
        "passes",
        "stopped",
        "streams",
        "turns",
        "skipped",
        "micro-ops",
        "mean slots",
        "mean queue",
    ]
    .map(String::from)
    .to_vec();
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            vec![
                grouped(u64::from(r.turn_budget)),
                grouped(r.passes),
                r.stopped.to_string(),
                status_counts(&r.statuses),
                grouped(r.turns),
                grouped(r.skipped),
                grouped(r.micro_ops),
                format!("{:.2}", r.mean_slots),
                format!("{:.2}", r.mean_queue),
            ]
        })
        .collect();
    table(&mut s, &header, &cells, 1);
    s
}

/// `2 ended, 1 error`: how many streams have each status, in first-seen order.
fn status_counts(statuses: &[String]) -> String {
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for st in statuses {
        match counts.iter_mut().find(|(n, _)| n == st) {
            Some(c) => c.1 += 1,
            None => counts.push((st, 1)),
        }
    }
    if counts.is_empty() {
        return "none".to_owned();
    }
    counts
        .iter()
        .map(|(n, c)| format!("{c} {n}"))
        .collect::<Vec<_>>()
        .join(", ")
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

//! The compare reports (times, and `--counters`' counts) as text tables and
//! as JSON.

use serde_json::{Map, Value, json};

use super::counters::{COUNTER_NAMES, CounterReport};
use super::measure::Report;
use super::stats::Summary;
use crate::answers::Implementation;
use crate::text::{counted, grouped};

fn per(total: f64, count: u64) -> f64 {
    if count == 0 {
        f64::NAN
    } else {
        total / count as f64
    }
}

/// A number in a table cell: three significant figures (all the integer
/// digits from 1,000 up, with thousands separators), plain notation down to
/// 0.001, scientific below.
pub fn fmt3(v: f64) -> String {
    if !v.is_finite() {
        return "-".into();
    }
    let a = v.abs();
    if a >= 999.5 {
        let sign = if v < 0.0 { "-" } else { "" };
        format!("{sign}{}", grouped(a.round() as u64))
    } else if a >= 100.0 {
        format!("{v:.0}")
    } else if a >= 10.0 {
        format!("{v:.1}")
    } else if a >= 1.0 {
        format!("{v:.2}")
    } else if a == 0.0 {
        "0".into()
    } else if a < 0.001 {
        // Tiny (the reference's speed-up over a fast variant): 4.94e-6.
        format!("{v:.2e}")
    } else {
        // Below 1: three significant figures (0.00312, not 0.003).
        let decimals = (2 - a.log10().floor() as i32).max(3) as usize;
        format!("{v:.decimals$}")
    }
}

#[cfg(test)]
mod fmt_tests {
    use super::fmt3;

    #[test]
    fn three_significant_figures() {
        for (v, text) in [
            (123_456_789.4, "123,456,789"),
            (1_000.0, "1,000"),
            (999.4, "999"),
            (12.345, "12.3"),
            (1.5, "1.50"),
            (0.5, "0.500"),
            (0.0312, "0.0312"),
            (0.001_234, "0.00123"),
            (0.000_004_94, "4.94e-6"),
            (0.0, "0"),
            (f64::NAN, "-"),
        ] {
            assert_eq!(fmt3(v), text, "{v}");
        }
    }
}

/// An interval relative to its median: `[-8.3%, +12%]` (one decimal under
/// 10%, thousands separators past 1,000%).
fn fmt_rel(s: &Summary) -> String {
    let pct = |x: f64| {
        let p = (x / s.median - 1.0) * 100.0;
        if !p.is_finite() {
            return "-".to_owned();
        }
        let sign = if p < 0.0 { "-" } else { "+" };
        let a = p.abs();
        if a < 0.05 {
            "0%".to_owned()
        } else if a < 9.95 {
            format!("{sign}{a:.1}%")
        } else {
            format!("{sign}{}%", grouped(a.round() as u64))
        }
    };
    format!("[{}, {}]", pct(s.median_lo), pct(s.median_hi))
}

/// The confidence the medians' intervals really have, with `n` samples
/// each: the coverage of the narrowest order-statistic interval reaching
/// 95% (or of [min, max] below 6 samples, where none does).
pub fn interval_level(n: usize) -> f64 {
    if n == 0 {
        return f64::NAN;
    }
    let ranks: Vec<f64> = (0..n).map(|i| i as f64).collect();
    Summary::of(&ranks).median_level
}

/// `97.9%`: a level as the table and the chart print it.
pub fn level_text(level: f64) -> String {
    let p = level * 100.0;
    if p >= 99.95 {
        // Never "100%": an interval of finitely many samples is not certain.
        format!("{p:.3}%")
    } else {
        format!("{p:.1}%")
    }
}

/// The widest table [`render_table`] aims for: a 100-column terminal.
pub const TABLE_WIDTH: usize = 100;

/// The report as an aligned text table, a block per workload (its
/// micro-ops and passes on its first line): per variant, ns per micro-op
/// with its interval relative to the median, ns per pass, micro-ops per
/// second, the speed-up over `baseline` with its interval, and over the
/// reference model. Intervals are the medians' order-statistic intervals,
/// labelled with the confidence they really have; speed-ups are medians of
/// per-sample ratios. It fits [`TABLE_WIDTH`] columns for the bundled
/// workloads; a wider one says so in its footnote.
pub fn render_table(report: &Report, baseline: Implementation) -> String {
    let level = level_text(interval_level(report.settings.samples));
    let base = baseline.name();
    let header = [
        "variant".to_owned(),
        "ns/op".to_owned(),
        format!("{level} interval"),
        "ns/pass".to_owned(),
        "Mops/s".to_owned(),
        format!("x {base}"),
        format!("{level} interval"),
        "x reference".to_owned(),
    ];
    let mut blocks: Vec<(String, Vec<[String; 8]>)> = Vec::new();
    for w in &report.workloads {
        let mut rows = Vec::new();
        for v in &w.variants {
            let run = &v.ns_per_run;
            let ns_op = run.scaled(1.0 / w.ops.max(1) as f64);
            let vs_base = w.speedup(v.variant, baseline);
            rows.push([
                v.variant.name().to_owned(),
                if w.ops == 0 {
                    "-".into()
                } else {
                    fmt3(ns_op.median)
                },
                if w.ops == 0 {
                    "-".into()
                } else {
                    fmt_rel(&ns_op)
                },
                fmt3(per(run.median, w.passes)),
                fmt3(w.ops as f64 / run.median * 1e3),
                vs_base.as_ref().map_or("-".into(), |s| fmt3(s.median)),
                vs_base.as_ref().map_or("-".into(), fmt_rel),
                v.speedup_vs_reference
                    .as_ref()
                    .map_or("-".into(), |s| fmt3(s.median)),
            ]);
        }
        let mut title = format!(
            "{}: {}, {}",
            w.name,
            counted(w.ops, "micro-op", "micro-ops"),
            counted(w.passes, "pass", "passes")
        );
        for v in &w.variants {
            if let Some(c) = &v.compiled {
                title.push_str(&format!(
                    "\n  {}: compile {} µs, then the run alone {} ns/op (medians)",
                    v.variant.name(),
                    fmt3(c.compile.median / 1e3),
                    fmt3(per(c.run.median, w.ops)),
                ));
            }
        }
        blocks.push((title, rows));
    }
    let mut width = header.each_ref().map(String::len);
    for (_, rows) in &blocks {
        for row in rows {
            for (w, cell) in width.iter_mut().zip(row) {
                *w = (*w).max(cell.len());
            }
        }
    }
    let line = |cells: &[String; 8]| {
        let mut s = String::from("  ");
        for (i, (cell, w)) in cells.iter().zip(width).enumerate() {
            if i > 0 {
                s.push_str("  ");
            }
            // Names and intervals left-aligned, numbers right-aligned.
            if matches!(i, 0 | 2 | 6) {
                s.push_str(&format!("{cell:<w$}"));
            } else {
                s.push_str(&format!("{cell:>w$}"));
            }
        }
        s.trim_end().to_owned() + "\n"
    };
    let mut out = String::new();
    for (k, (title, rows)) in blocks.iter().enumerate() {
        if k > 0 {
            out.push('\n');
        }
        out.push_str(title);
        out.push('\n');
        out.push_str(&line(&header));
        for row in rows {
            out.push_str(&line(row));
        }
    }
    let n = report.settings.samples;
    out.push_str(&format!(
        "\n{} per cell, each at least {} ms. Intervals: the median's order-statistic\n\
         interval, relative to the median; with {n} samples it covers {level} (the\n\
         narrowest reaching 95%; below 6 samples none does, and it is [min, max]).\n\
         x {base}: the median of the per-sample ratios {base} time / variant time\n\
         (--baseline; higher is faster); x reference likewise over the reference model.\n",
        counted(n as u64, "sample", "samples"),
        report.settings.sample_time.as_millis(),
    ));
    let widest = out.lines().map(str::len).max().unwrap_or(0);
    if widest > TABLE_WIDTH {
        out.push_str(&format!(
            "(This table is {widest} columns wide: widen the terminal, or use --json.)\n"
        ));
    }
    out
}

/// The report as JSON:
/// `{"settings": {samples, sample_time_ms}, "workloads": [{name, notes, ops,
/// passes, variants: [{variant, runs_per_sample, ns_per_run, ns_per_op,
/// ns_per_pass, ops_per_second, speedup_vs_switch, speedup_vs_reference}]}]}`,
/// each timing a summary object (`n`, `median`, `median_ci`,
/// `median_ci_level`, `mean`, `stddev`, `mean_ci`); a speed-up is null when
/// its base was not measured, `ns_per_op` when no micro-op ran. The
/// compiled tier on one stream adds `compile_ns` (check, decode and
/// compile) and `run_alone_ns` (a run of the compiled program).
pub fn to_json(report: &Report) -> Value {
    to_json_inner(report, None)
}

/// [`to_json`] with the speed-ups over `baseline` too, as the table shows
/// them: `settings.baseline` (its name) and each variant's
/// `speedup_vs_baseline` (a summary, null when either was not measured).
pub fn to_json_over(report: &Report, baseline: Implementation) -> Value {
    to_json_inner(report, Some(baseline))
}

/// A workload's object in either JSON report, its variants' as given.
fn workload_json(name: &str, notes: &str, ops: u64, passes: u64, variants: Vec<Value>) -> Value {
    json!({
        "name": name,
        "notes": notes,
        "ops": ops,
        "passes": passes,
        "variants": variants,
    })
}

fn to_json_inner(report: &Report, baseline: Option<Implementation>) -> Value {
    let workloads: Vec<Value> = report
        .workloads
        .iter()
        .map(|w| {
            let variants: Vec<Value> = w
                .variants
                .iter()
                .map(|v| {
                    let run = v.ns_per_run;
                    let mut o = json!({
                        "variant": v.variant.name(),
                        "runs_per_sample": v.runs_per_sample,
                        "ns_per_run": run.to_json(),
                        "ns_per_op": if w.ops == 0 { Value::Null } else {
                            run.scaled(1.0 / w.ops as f64).to_json()
                        },
                        "ns_per_pass": if w.passes == 0 { Value::Null } else {
                            run.scaled(1.0 / w.passes as f64).to_json()
                        },
                        "ops_per_second": w.ops as f64 / run.median * 1e9,
                        "speedup_vs_switch": v.speedup_vs_switch.map_or(Value::Null, Summary::to_json),
                        "speedup_vs_reference": v.speedup_vs_reference.map_or(Value::Null, Summary::to_json),
                    });
                    if let Some(c) = &v.compiled {
                        o["compile_ns"] = c.compile.to_json();
                        o["run_alone_ns"] = c.run.to_json();
                    }
                    if let Some(b) = baseline {
                        o["speedup_vs_baseline"] =
                            w.speedup(v.variant, b).map_or(Value::Null, |s| s.to_json());
                    }
                    o
                })
                .collect();
            workload_json(&w.name, &w.notes, w.ops, w.passes, variants)
        })
        .collect();
    let mut settings = json!({
        "samples": report.settings.samples,
        "sample_time_ms": report.settings.sample_time.as_millis() as u64,
    });
    if let Some(b) = baseline {
        settings["baseline"] = json!(b.name());
    }
    json!({
        "settings": settings,
        "workloads": workloads,
    })
}

/// A number with two decimals and thousands separators (`-` when not finite).
fn fmt2(v: f64) -> String {
    if !v.is_finite() {
        return "-".into();
    }
    let cents = (v.abs() * 100.0).round() as u64;
    let sign = if v < 0.0 && cents > 0 { "-" } else { "" };
    format!("{sign}{}.{:02}", grouped(cents / 100), cents % 100)
}

/// Aligned rows: the first two columns left-aligned (names), the others
/// right-aligned (numbers); a blank line between workloads (column 0).
fn align<const N: usize>(header: [&str; N], rows: &[[String; N]]) -> String {
    let mut width = header.map(str::len);
    for row in rows {
        for (w, cell) in width.iter_mut().zip(row) {
            *w = (*w).max(cell.len());
        }
    }
    let line = |cells: &[&str]| {
        let mut s = String::new();
        for (i, (cell, w)) in cells.iter().zip(width).enumerate() {
            if i > 0 {
                s.push_str("  ");
            }
            if i < 2 {
                s.push_str(&format!("{cell:<w$}"));
            } else {
                s.push_str(&format!("{cell:>w$}"));
            }
        }
        s.trim_end().to_owned() + "\n"
    };
    let mut out = line(&header);
    let mut last = "";
    for row in rows {
        if !last.is_empty() && last != row[0] {
            out.push('\n');
        }
        last = &row[0];
        out.push_str(&line(&row.each_ref().map(String::as_str)));
    }
    out
}

/// The counters as an aligned text table: per micro-op, the instructions,
/// the conditional branches and their mispredictions, the indirect branches
/// and theirs, two decimals each.
pub fn render_counters_table(report: &CounterReport) -> String {
    let header = [
        "workload",
        "variant",
        "micro-ops",
        "instr/op",
        "branches/op",
        "mispred/op",
        "indirect/op",
        "ind.mispred/op",
    ];
    let mut rows: Vec<[String; 8]> = Vec::new();
    for w in &report.workloads {
        for v in &w.variants {
            let [ir, bc, bcm, bi, bim] = v.counters.per(report.settings.runs * w.ops).map(fmt2);
            rows.push([
                w.name.clone(),
                v.variant.name().to_owned(),
                grouped(w.ops),
                ir,
                bc,
                bcm,
                bi,
                bim,
            ]);
        }
    }
    let mut out = align(header, &rows);
    let runs = report.settings.runs;
    let tool = if report.tool.is_empty() {
        "callgrind"
    } else {
        &report.tool
    };
    let plural = if runs == 1 { "" } else { "s" };
    out.push_str(&format!(
        "\n{tool} --branch-sim=yes, {runs} run{plural} per cell after a warm-up run; whole runs (check, pre-decode, simulation) per micro-op; branches, mispred: conditional.\n"
    ));
    out
}

/// The counters as JSON:
/// `{"settings": {mode: "counters", runs, warm_up_runs, tool}, "workloads":
/// [{name, notes, ops, passes, variants: [{variant, counters: {runs, total,
/// per_run, per_op}}]}]}`; `total`, `per_run` and `per_op` each have
/// `instructions`, `conditional_branches`, `conditional_mispredictions`,
/// `indirect_branches` and `indirect_mispredictions` (`total` integers
/// over the runs, the others numbers); `per_op` is null when no micro-op ran.
pub fn counters_to_json(report: &CounterReport) -> Value {
    let runs = report.settings.runs;
    let object = |values: Vec<Value>| -> Value {
        let map: Map<String, Value> = COUNTER_NAMES
            .iter()
            .map(|n| (*n).to_owned())
            .zip(values)
            .collect();
        Value::Object(map)
    };
    let workloads: Vec<Value> = report
        .workloads
        .iter()
        .map(|w| {
            let variants: Vec<Value> = w
                .variants
                .iter()
                .map(|v| {
                    let c = &v.counters;
                    json!({
                        "variant": v.variant.name(),
                        "counters": {
                            "runs": runs,
                            "total": object(c.values().map(Value::from).to_vec()),
                            "per_run": object(c.per(runs).map(Value::from).to_vec()),
                            "per_op": if w.ops == 0 { Value::Null } else {
                                object(c.per(runs * w.ops).map(Value::from).to_vec())
                            },
                        },
                    })
                })
                .collect();
            workload_json(&w.name, &w.notes, w.ops, w.passes, variants)
        })
        .collect();
    json!({
        "settings": {
            "mode": "counters",
            "runs": runs,
            "warm_up_runs": 1,
            "tool": report.tool,
        },
        "workloads": workloads,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fmt2_two_decimals() {
        for (v, text) in [
            (14.778_5, "14.78"),
            (0.004, "0.00"),
            (53_072_431.0, "53,072,431.00"),
            (-1.5, "-1.50"),
            (f64::NAN, "-"),
        ] {
            assert_eq!(fmt2(v), text, "{v}");
        }
    }
}

//! `kmst compare --plot`: the report as an SVG bar chart (plotters).
//!
//! It plots what a user comes for: how many times faster each variant ran
//! than a baseline of their choosing (`--baseline`, default the default
//! variant), one group of bars per workload, each bar labelled with its
//! value and whiskered with its interval (at the confidence it really has).
//! Workloads are grouped into panels by the size of their speed-ups (up to
//! 10x, up to 100x, ...), each panel on its own linear scale, so that the
//! 1.2x differences between dispatch styles are not flattened by the
//! reference model's 10^5x; a grey line marks the baseline's 1x.

use kmst_harness::answers::Implementation;
use kmst_harness::compare::{Report, Summary, WorkloadResult, fmt3, interval_level, level_text};

/// The panel of a workload whose largest speed-up is `max`: 0 up to 10x
/// (slower ones too), k for 10^k to 10^(k+1).
fn panel_of(max: f64) -> i32 {
    if max.is_finite() && max >= 10.0 {
        max.log10().floor() as i32
    } else {
        0
    }
}

/// The most workloads in one row of the chart.
const PER_ROW: usize = 6;

/// A speed-up as a bar's label: three significant figures and `x`.
pub fn value_label(v: f64) -> String {
    format!("{}x", fmt3(v))
}

/// One bar: its variant's index, the speed-up summary.
type Bars = Vec<(usize, Summary)>;

/// A row of the chart: its panel (by size), whether it continues the row
/// before, and its workloads with their bars.
type Row<'a> = (i32, bool, Vec<&'a (&'a WorkloadResult, Bars)>);

/// The chart of `report`'s speed-ups over `baseline`.
pub fn render_svg(report: &Report, baseline: Implementation) -> Result<String, String> {
    use plotters::prelude::*;
    use plotters::style::text_anchor::{HPos, Pos, VPos};

    let mut variants: Vec<Implementation> = Vec::new();
    for w in &report.workloads {
        for v in &w.variants {
            if v.variant != baseline && !variants.contains(&v.variant) {
                variants.push(v.variant);
            }
        }
    }
    // Every workload where the baseline and some variant were timed.
    let measured: Vec<(&WorkloadResult, Bars)> = report
        .workloads
        .iter()
        .filter_map(|w| {
            let bars: Bars = variants
                .iter()
                .enumerate()
                .filter_map(|(k, &v)| w.speedup(v, baseline).map(|s| (k, s)))
                .collect();
            (!bars.is_empty()).then_some((w, bars))
        })
        .collect();
    if measured.is_empty() {
        return Err(format!(
            "--plot: nothing to plot over the baseline {} (is it among the timed variants?)",
            baseline.name()
        ));
    }
    let mut panels: Vec<(i32, Vec<&(&WorkloadResult, Bars)>)> = Vec::new();
    for m in &measured {
        let max = m.1.iter().map(|(_, s)| s.median).fold(0.0, f64::max);
        let key = panel_of(max);
        match panels.iter_mut().find(|p| p.0 == key) {
            Some(p) => p.1.push(m),
            None => panels.push((key, vec![m])),
        }
    }
    panels.sort_by_key(|p| p.0);
    // At most PER_ROW workloads side by side; a larger panel goes on in
    // the next row, on its own scale too.
    let panels: Vec<Row> = panels
        .into_iter()
        .flat_map(|(key, members)| {
            members
                .chunks(PER_ROW)
                .enumerate()
                .map(|(i, c)| (key, i > 0, c.to_vec()))
                .collect::<Vec<_>>()
        })
        .collect();
    let palette = [
        RGBColor(0x1f, 0x77, 0xb4),
        RGBColor(0xff, 0x7f, 0x0e),
        RGBColor(0x2c, 0xa0, 0x2c),
        RGBColor(0xd6, 0x27, 0x28),
        RGBColor(0x94, 0x67, 0xbd),
        RGBColor(0x8c, 0x56, 0x4b),
        RGBColor(0xe3, 0x77, 0xc2),
        RGBColor(0x7f, 0x7f, 0x7f),
    ];
    let level = level_text(interval_level(report.settings.samples));
    let base = baseline.name();
    let caption = [
        format!(
            "Bars: the median over {} of the per-sample ratio {base} time / variant time; \
             whiskers: its order-statistic interval, which covers {level}.",
            if report.settings.samples == 1 {
                "1 sample".to_owned()
            } else {
                format!("{} samples", report.settings.samples)
            }
        ),
        format!(
            "Each sample at least {} ms. Panels: workloads grouped by the size of their \
             speed-ups, each on its own linear scale; the grey line is {base} (1x).",
            report.settings.sample_time.as_millis()
        ),
    ];
    let most = panels.iter().map(|p| p.2.len()).max().unwrap_or(1);
    let group = (26 * variants.len() as u32 + 30).max(110);
    let legend_width = 140;
    let plot_width = (group * most as u32 + 110).max(640);
    let width = plot_width + legend_width;
    let panel_height = 340;
    let head = 50;
    let foot = 60;
    let height = head + panel_height * panels.len() as u32 + foot;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (width, height)).into_drawing_area();
        let e = |e: DrawingAreaErrorKind<_>| e.to_string();
        root.fill(&WHITE).map_err(e)?;
        root.draw_text(
            &format!("kmst compare: speed-up over {base} (higher is faster)"),
            &("sans-serif", 22).into_font().color(&BLACK),
            (16, 14),
        )
        .map_err(e)?;
        let (top, rest) = root.split_vertically(head);
        let _ = top;
        let (body, bottom) = rest.split_vertically(panel_height * panels.len() as u32);
        for (i, text) in caption.iter().enumerate() {
            bottom
                .draw_text(
                    text,
                    &("sans-serif", 13).into_font().color(&BLACK),
                    (12, 10 + 20 * i as i32),
                )
                .map_err(e)?;
        }
        let (plots, legend) = body.split_horizontally(plot_width);
        for (k, &variant) in variants.iter().enumerate() {
            let y = 20 + 24 * k as i32;
            let color = palette[k % palette.len()];
            legend
                .draw(&Rectangle::new([(8, y), (22, y + 14)], color.filled()))
                .map_err(e)?;
            legend
                .draw_text(
                    variant.name(),
                    &("sans-serif", 14).into_font().color(&BLACK),
                    (30, y),
                )
                .map_err(e)?;
        }
        let areas = plots.split_evenly((panels.len(), 1));
        for ((key, continued, members), area) in panels.iter().zip(areas) {
            // The scale fits the bars (the medians) and the baseline's 1x,
            // with room above for the labels; a whisker past it is cut at
            // the top, so one noisy interval does not flatten the panel.
            let top_value = members
                .iter()
                .flat_map(|m| m.1.iter().map(|(_, s)| s.median))
                .filter(|v| v.is_finite())
                .fold(1.0f64, f64::max);
            let y_max = top_value * 1.35;
            let label_top = top_value * 1.08;
            let mut title = if *key == 0 {
                "speed-ups below 10x".to_owned()
            } else {
                let power = |k: i32| kmst_harness::text::grouped(10u64.saturating_pow(k as u32));
                format!("speed-ups from {}x to {}x", power(*key), power(key + 1))
            };
            if *continued {
                title.push_str(" (continued)");
            }
            let n = members.len();
            let names: Vec<String> = members.iter().map(|m| m.0.name.clone()).collect();
            let mut chart = ChartBuilder::on(&area)
                .caption(&title, ("sans-serif", 15))
                .margin(10)
                .x_label_area_size(28)
                .y_label_area_size(70)
                .build_cartesian_2d(0f64..n as f64, 0f64..y_max)
                .map_err(e)?;
            chart
                .configure_mesh()
                .disable_x_mesh()
                .x_labels(n * 2 + 1)
                .x_label_formatter(&|x| {
                    let i = x.floor() as usize;
                    if (x - (i as f64 + 0.5)).abs() < 1e-6 && i < names.len() {
                        names[i].clone()
                    } else {
                        String::new()
                    }
                })
                .y_label_formatter(&|y| format!("{}x", fmt3(*y)))
                .y_desc(format!("x {base}"))
                .draw()
                .map_err(e)?;
            chart
                .draw_series([PathElement::new(
                    vec![(0.0, 1.0), (n as f64, 1.0)],
                    RGBColor(0x80, 0x80, 0x80).stroke_width(2),
                )])
                .map_err(e)?;
            let bar = 0.84 / variants.len() as f64;
            let label_font = ("sans-serif", 11)
                .into_font()
                .transform(FontTransform::Rotate270)
                .color(&BLACK)
                .pos(Pos::new(HPos::Left, VPos::Center));
            for (i, (_, bars)) in members.iter().enumerate() {
                for (k, s) in bars {
                    let color = palette[k % palette.len()];
                    let x0 = i as f64 + 0.08 + bar * *k as f64;
                    let xm = x0 + bar * 0.45;
                    chart
                        .draw_series([Rectangle::new(
                            [(x0, 0.0), (x0 + bar * 0.9, s.median)],
                            color.filled(),
                        )])
                        .map_err(e)?;
                    chart
                        .draw_series([PathElement::new(
                            vec![(xm, s.median_lo), (xm, s.median_hi.min(y_max))],
                            BLACK.stroke_width(1),
                        )])
                        .map_err(e)?;
                    // The value, upright above the bar and its whisker
                    // (below the top when the whisker is cut there).
                    let above = s.median_hi.max(s.median).min(label_top) + y_max * 0.01;
                    chart
                        .draw_series([Text::new(
                            value_label(s.median),
                            (xm, above),
                            label_font.clone(),
                        )])
                        .map_err(e)?;
                }
            }
        }
        root.present().map_err(e)?;
    }
    Ok(svg)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use kmst::exec::Dispatch;
    use kmst_harness::compare::{Settings, Summary, VariantResult, WorkloadResult};

    use super::*;

    const TAIL: Implementation = Implementation::Fast(Dispatch::Tail);
    const SWITCH: Implementation = Implementation::Fast(Dispatch::Switch);
    const REFERENCE: Implementation = Implementation::Reference;

    fn variant(d: Implementation, samples: &[f64]) -> VariantResult {
        VariantResult {
            variant: d,
            runs_per_sample: 1,
            ns_per_run: Summary::of(samples),
            samples: samples.to_vec(),
            speedup_vs_switch: None,
            speedup_vs_reference: None,
            compiled: None,
        }
    }

    /// A workload timed once on tail, switch and the reference model: its
    /// ns per run on each.
    fn workload(name: &str, [tail, switch, reference]: [f64; 3]) -> WorkloadResult {
        WorkloadResult {
            name: name.into(),
            notes: String::new(),
            ops: 1_000,
            passes: 10,
            variants: vec![
                variant(TAIL, &[tail]),
                variant(SWITCH, &[switch]),
                variant(REFERENCE, &[reference]),
            ],
        }
    }

    /// Two workloads, one sample each. `fast`: tail 2,000 ns, switch 3,000,
    /// reference 200,000. `slow_ref`: tail 1,000, switch 1,500, reference
    /// 50,000,000.
    fn report() -> Report {
        Report {
            settings: Settings {
                samples: 1,
                sample_time: Duration::from_millis(5),
            },
            workloads: vec![
                workload("fast", [2_000.0, 3_000.0, 200_000.0]),
                workload("slow_ref", [1_000.0, 1_500.0, 50_000_000.0]),
            ],
        }
    }

    fn text(svg: &str, t: &str) -> bool {
        svg.contains(&format!(">\n{t}\n<")) || svg.contains(&format!(">{t}<"))
    }

    #[test]
    fn bars_are_speedups_over_the_baseline_with_their_values() {
        let svg = render_svg(&report(), TAIL).unwrap();
        assert!(svg.starts_with("<svg"));
        assert!(
            text(&svg, "kmst compare: speed-up over tail (higher is faster)"),
            "{svg}"
        );
        // Over tail: switch 2,000 / 3,000 = 0.667x and 1,000 / 1,500 =
        // 0.667x; the reference 2,000 / 200,000 = 0.0100x and 1,000 /
        // 50,000,000 = 2.00e-5x. Every speed-up is below 10x: one panel.
        for label in ["0.667x", "0.0100x", "2.00e-5x"] {
            assert!(text(&svg, label), "no label {label}");
        }
        assert!(text(&svg, "speed-ups below 10x"));
        assert!(!svg.contains("speed-ups from"), "one panel only");
        // The legend names the variants but not the baseline.
        assert!(text(&svg, "switch") && text(&svg, "reference"));
        assert!(svg.contains("over 1 sample of the per-sample ratio tail time / variant time"));
    }

    #[test]
    fn panels_group_workloads_by_the_size_of_their_speedups() {
        // Over the reference model: fast: tail 200,000 / 2,000 = 100x,
        // switch 66.7x (the panel of 100x to 1,000x, by its largest);
        // slow_ref: tail 50,000x, switch 33,333x (10,000x to 100,000x).
        let svg = render_svg(&report(), REFERENCE).unwrap();
        assert!(text(&svg, "speed-ups from 100x to 1,000x"), "{svg}");
        assert!(text(&svg, "speed-ups from 10,000x to 100,000x"), "{svg}");
        assert!(!text(&svg, "speed-ups below 10x"));
        for label in ["100x", "66.7x", "50,000x", "33,333x"] {
            assert!(text(&svg, label), "no label {label}");
        }
        // A baseline that was not timed: nothing to plot, said plainly.
        let mut r = report();
        for w in &mut r.workloads {
            w.variants.retain(|v| v.variant != SWITCH);
        }
        let err = render_svg(&r, SWITCH).unwrap_err();
        assert!(err.contains("baseline switch"), "{err}");
    }

    #[test]
    fn panel_boundaries() {
        assert_eq!(panel_of(0.5), 0);
        assert_eq!(panel_of(9.99), 0);
        assert_eq!(panel_of(10.0), 1);
        assert_eq!(panel_of(99_999.0), 4);
        assert_eq!(panel_of(f64::NAN), 0);
    }
}

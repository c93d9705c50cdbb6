//! `kmst compare --plot`: the report as an SVG bar chart (plotters).
//!
//! It plots what the table leads with: nanoseconds per micro-op, on a log
//! axis, one group of bars per workload and one bar per variant, with the
//! medians' 95% intervals as whiskers; the legend sits beside the bars and a
//! caption states the sampling.

use kmst_harness::answers::Implementation;
use kmst_harness::compare::Report;

/// An axis value: whole numbers with thousands separators, small ones plain.
fn axis_label(v: f64) -> String {
    if v >= 1.0 {
        crate::progress::group(v.round() as u64)
    } else {
        let s = format!("{v:.6}");
        s.trim_end_matches('0').trim_end_matches('.').to_owned()
    }
}

/// The chart: ns per micro-op (log scale) per workload and variant.
pub fn render_svg(report: &Report) -> Result<String, String> {
    use plotters::prelude::*;

    // Workloads that ran micro-ops (ns per micro-op is defined).
    let workloads: Vec<_> = report.workloads.iter().filter(|w| w.ops > 0).collect();
    let mut variants: Vec<Implementation> = Vec::new();
    for w in &workloads {
        for v in &w.variants {
            if !variants.contains(&v.variant) {
                variants.push(v.variant);
            }
        }
    }
    let per_op = |w: &kmst_harness::compare::WorkloadResult, ns: f64| ns / w.ops as f64;
    let values = workloads.iter().flat_map(|w| {
        w.variants.iter().flat_map(move |v| {
            [
                per_op(w, v.ns_per_run.median_lo),
                per_op(w, v.ns_per_run.median_hi),
            ]
        })
    });
    let (lo, hi) = values.fold((f64::INFINITY, 0.0f64), |(lo, hi), v| {
        (lo.min(v.max(1e-3)), hi.max(v))
    });
    if workloads.is_empty() || !lo.is_finite() {
        return Err("nothing to plot".into());
    }
    let (lo, hi) = (
        10f64.powf(lo.log10().floor()),
        10f64.powf(hi.log10().ceil().max(lo.log10().floor() + 1.0)),
    );
    let n = workloads.len();
    let names: Vec<String> = workloads.iter().map(|w| w.name.clone()).collect();
    let palette = [
        RGBColor(0x1f, 0x77, 0xb4),
        RGBColor(0xff, 0x7f, 0x0e),
        RGBColor(0x2c, 0xa0, 0x2c),
        RGBColor(0xd6, 0x27, 0x28),
        RGBColor(0x94, 0x67, 0xbd),
    ];
    let caption = format!(
        "Bars: the median of {} samples per bar (each at least {} ms); whiskers: the median's 95% interval.",
        report.settings.samples,
        report.settings.sample_time.as_millis()
    );
    let mut svg = String::new();
    {
        let legend_width = 130;
        let width = (150 * n as u32).max(560) + legend_width;
        let root = SVGBackend::with_string(&mut svg, (width, 500)).into_drawing_area();
        let e = |e: DrawingAreaErrorKind<_>| e.to_string();
        root.fill(&WHITE).map_err(e)?;
        let (main, foot) = root.split_vertically(470);
        let (plot_area, legend_area) = main.split_horizontally(width - legend_width);
        foot.draw_text(
            &caption,
            &("sans-serif", 13).into_font().color(&BLACK),
            (12, 6),
        )
        .map_err(e)?;
        let mut chart = ChartBuilder::on(&plot_area)
            .caption(
                "kmst compare: time per micro-op (lower is faster)",
                ("sans-serif", 20),
            )
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(80)
            .build_cartesian_2d(0f64..n as f64, (lo..hi).log_scale())
            .map_err(e)?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(n * 2 + 1)
            .x_label_formatter(&|x| {
                let i = x.floor() as usize;
                // Label only the group centres.
                if (x - (i as f64 + 0.5)).abs() < 1e-6 && i < names.len() {
                    names[i].clone()
                } else {
                    String::new()
                }
            })
            .y_label_formatter(&|y| axis_label(*y))
            .y_desc("ns per micro-op (log scale)")
            .draw()
            .map_err(e)?;
        let bar = 0.8 / variants.len() as f64;
        for (k, &variant) in variants.iter().enumerate() {
            let color = palette[k % palette.len()];
            let mut bars = Vec::new();
            let mut whiskers = Vec::new();
            for (i, w) in workloads.iter().enumerate() {
                let Some(v) = w.get(variant) else { continue };
                let x0 = i as f64 + 0.1 + bar * k as f64;
                let s = v.ns_per_run;
                bars.push(Rectangle::new(
                    [(x0, lo), (x0 + bar * 0.9, per_op(w, s.median).max(lo))],
                    color.filled(),
                ));
                let xm = x0 + bar * 0.45;
                whiskers.push(PathElement::new(
                    vec![
                        (xm, per_op(w, s.median_lo).max(lo)),
                        (xm, per_op(w, s.median_hi).max(lo)),
                    ],
                    BLACK.stroke_width(1),
                ));
            }
            chart.draw_series(bars).map_err(e)?;
            chart.draw_series(whiskers).map_err(e)?;
            // The legend, beside the plot.
            let y = 60 + 24 * k as i32;
            legend_area
                .draw(&Rectangle::new([(8, y), (22, y + 14)], color.filled()))
                .map_err(e)?;
            legend_area
                .draw_text(
                    variant.name(),
                    &("sans-serif", 14).into_font().color(&BLACK),
                    (30, y),
                )
                .map_err(e)?;
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

    #[test]
    fn the_svg_has_a_bar_per_variant_and_the_legend() {
        let variant = |d, ns: f64| VariantResult {
            variant: d,
            runs_per_sample: 1,
            ns_per_run: Summary::of(&[ns]),
            speedup_vs_switch: None,
            speedup_vs_reference: None,
        };
        let report = Report {
            settings: Settings {
                samples: 1,
                sample_time: Duration::from_millis(5),
            },
            workloads: vec![WorkloadResult {
                name: "w".into(),
                notes: String::new(),
                ops: 1_000,
                passes: 10,
                variants: vec![
                    variant(Implementation::Fast(Dispatch::Tail), 2_000.0),
                    variant(Implementation::Fast(Dispatch::Switch), 3_000.0),
                    variant(Implementation::Reference, 200_000.0),
                ],
            }],
        };
        let svg = render_svg(&report).unwrap();
        assert!(svg.starts_with("<svg"));
        for name in ["tail", "switch", "reference", "w"] {
            assert!(svg.contains(&format!(">\n{name}\n<")), "no label {name}");
        }
        // The axis has its unit; the caption states the sampling.
        assert!(svg.contains("ns per micro-op (log scale)"));
        assert!(svg.contains("the median of 1 samples per bar (each at least 5 ms)"));
        assert!(svg.contains("95% interval"));
        // ns per micro-op: 2,000 ns / 1,000 micro-ops = 2 (tail) up to
        // 200 (reference), so the log axis runs from 1 to 1,000.
        assert!(
            svg.contains(">\n1\n<") && svg.contains(">\n1,000\n<"),
            "{svg}"
        );
        assert!(!svg.contains(">\n10,000\n<"), "{svg}");
    }
}

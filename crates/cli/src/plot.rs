//! `kmst compare --plot`: the report as an SVG bar chart (plotters).

use kmst_harness::answers::Implementation;
use kmst_harness::compare::Report;

/// A bar chart of nanoseconds per run (log scale), one group of bars per
/// workload, one bar per variant, with the medians' 95% intervals as whiskers.
pub fn render_svg(report: &Report) -> Result<String, String> {
    use plotters::prelude::*;

    let mut variants: Vec<Implementation> = Vec::new();
    for w in &report.workloads {
        for v in &w.variants {
            if !variants.contains(&v.variant) {
                variants.push(v.variant);
            }
        }
    }
    let values = report
        .workloads
        .iter()
        .flat_map(|w| w.variants.iter())
        .flat_map(|v| [v.ns_per_run.median_lo, v.ns_per_run.median_hi]);
    let (lo, hi) = values.fold((f64::INFINITY, 0.0f64), |(lo, hi), v| {
        (lo.min(v.max(1.0)), hi.max(v))
    });
    if report.workloads.is_empty() || !lo.is_finite() {
        return Err("nothing to plot".into());
    }
    let (lo, hi) = (
        10f64.powf(lo.log10().floor()),
        10f64.powf(hi.log10().ceil()),
    );
    let n = report.workloads.len();
    let names: Vec<String> = report.workloads.iter().map(|w| w.name.clone()).collect();
    let palette = [
        RGBColor(0x1f, 0x77, 0xb4),
        RGBColor(0xff, 0x7f, 0x0e),
        RGBColor(0x2c, 0xa0, 0x2c),
        RGBColor(0xd6, 0x27, 0x28),
        RGBColor(0x94, 0x67, 0xbd),
    ];
    let mut svg = String::new();
    {
        let width = (160 * n as u32).max(640);
        let root = SVGBackend::with_string(&mut svg, (width, 480)).into_drawing_area();
        let e = |e: DrawingAreaErrorKind<_>| e.to_string();
        root.fill(&WHITE).map_err(e)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(
                "kmst compare: time per run (lower is faster)",
                ("sans-serif", 20),
            )
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(70)
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
            .y_desc("ns per run")
            .draw()
            .map_err(e)?;
        let bar = 0.8 / variants.len() as f64;
        for (k, &variant) in variants.iter().enumerate() {
            let color = palette[k % palette.len()];
            let mut bars = Vec::new();
            let mut whiskers = Vec::new();
            for (i, w) in report.workloads.iter().enumerate() {
                let Some(v) = w.get(variant) else { continue };
                let x0 = i as f64 + 0.1 + bar * k as f64;
                let s = v.ns_per_run;
                bars.push(Rectangle::new(
                    [(x0, lo), (x0 + bar * 0.9, s.median.max(lo))],
                    color.filled(),
                ));
                let xm = x0 + bar * 0.45;
                whiskers.push(PathElement::new(
                    vec![(xm, s.median_lo.max(lo)), (xm, s.median_hi.max(lo))],
                    BLACK.stroke_width(1),
                ));
            }
            chart
                .draw_series(bars)
                .map_err(e)?
                .label(variant.name())
                .legend(move |(x, y)| {
                    Rectangle::new([(x, y - 5), (x + 10, y + 5)], color.filled())
                });
            chart.draw_series(whiskers).map_err(e)?;
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .position(SeriesLabelPosition::UpperLeft)
            .draw()
            .map_err(e)?;
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
    }
}

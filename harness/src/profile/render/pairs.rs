//! The human form of `kmst profile --pairs`.

use std::fmt::Write as _;

use super::super::pairs::PairReport;
use super::{grouped, pct, table};

/// The `--pairs` report: the sources, then the top pairs and triples.
pub fn pairs(r: &PairReport) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "adjacent micro-ops executed within one turn: {} dispatch, {} source{}",
        r.dispatch,
        r.sources.len(),
        if r.sources.len() == 1 { "" } else { "s" }
    );
    let _ = writeln!(s, "micro-ops     {}", grouped(r.micro_ops));
    let _ = writeln!(s, "pairs         {}", grouped(r.pairs));
    let _ = writeln!(s, "triples       {}", grouped(r.triples));
    for (title, rows, total) in [
        ("pairs", &r.top_pairs, r.pairs),
        ("triples", &r.top_triples, r.triples),
    ] {
        let _ = writeln!(s, "\n{title} (of {})", grouped(total));
        let header = [
            "rank",
            "micro-ops",
            "count",
            "share",
            "straight",
            "sources",
            "most from",
        ]
        .map(String::from)
        .to_vec();
        let cells: Vec<Vec<String>> = rows
            .iter()
            .enumerate()
            .map(|(i, row)| {
                vec![
                    (i + 1).to_string(),
                    row.ops.join(" -> "),
                    grouped(row.count),
                    pct(row.share),
                    pct(row.straight_share),
                    row.sources.to_string(),
                    format!("{} ({})", row.top_source, pct(row.top_share)),
                ]
            })
            .collect();
        table(&mut s, &header, &cells, 2);
    }
    s
}

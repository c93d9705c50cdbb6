//! Dispatch benchmarks live here (see `benches/`).

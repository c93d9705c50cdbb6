//! What the dispatch benchmarks share: the workloads of `kmst compare`
//! ([`kmst_harness::compare::BUNDLED`]), so that criterion, iai-callgrind and
//! `kmst compare` measure the same streams with the same parameters.

use kmst_harness::compare::{self, Workload};

/// The bundled workload `name`, assembled; panics on an unknown name or a
/// source that does not assemble (a defect of the bench itself).
pub fn workload(name: &str) -> Workload {
    let (_, source) = compare::BUNDLED
        .iter()
        .find(|(n, _)| *n == name)
        .unwrap_or_else(|| panic!("no bundled workload `{name}`"));
    Workload::from_source(name, source).unwrap_or_else(|e| panic!("{e}"))
}

/// Every bundled workload, in report order.
pub fn workloads() -> Vec<Workload> {
    compare::bundled().unwrap_or_else(|e| panic!("{e}"))
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_bundled_workload_loads() {
        for (name, _) in kmst_harness::compare::BUNDLED {
            assert_eq!(super::workload(name).name, name);
        }
    }
}

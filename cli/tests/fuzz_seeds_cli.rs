//! The committed seed corpora (`fuzz/corpus/TARGET/`) and dictionary are
//! exactly what `kmst fuzz-seeds` writes from `corpus/streams` today; when a
//! generator or a stream changes, `scripts/fuzz-seeds.sh` rewrites them.

mod common;
use common::{fresh_dir, kmst, workspace_file};

use std::collections::BTreeMap;
use std::path::Path;

/// Every file under `dir`, by its path below it, with its bytes.
fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let rel = path.strip_prefix(dir).unwrap().display().to_string();
                out.insert(rel, std::fs::read(&path).unwrap());
            }
        }
    }
    out
}

#[test]
fn the_committed_seeds_are_what_fuzz_seeds_writes() {
    let out = fresh_dir("fuzz-seeds", "corpus");
    let dict = out.parent().unwrap().join("kmst.dict");
    let (code, _, err) = kmst(&[
        "fuzz-seeds",
        "--corpus",
        &workspace_file("corpus/streams"),
        "--out",
        out.to_str().unwrap(),
        "--dict",
        dict.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let written = files(&out);
    let committed = files(Path::new(&workspace_file("fuzz/corpus")));
    let only = |a: &BTreeMap<String, Vec<u8>>, b: &BTreeMap<String, Vec<u8>>| {
        a.keys()
            .filter(|k| !b.contains_key(*k))
            .cloned()
            .collect::<Vec<_>>()
    };
    let differ: Vec<&String> = written
        .iter()
        .filter(|(k, v)| committed.get(*k).is_some_and(|c| c != *v))
        .map(|(k, _)| k)
        .collect();
    let fix = "run scripts/fuzz-seeds.sh and commit fuzz/corpus and fuzz/kmst.dict";
    assert_eq!(
        only(&written, &committed),
        Vec::<String>::new(),
        "not committed; {fix}"
    );
    assert_eq!(
        only(&committed, &written),
        Vec::<String>::new(),
        "no longer written; {fix}"
    );
    assert_eq!(differ, Vec::<&String>::new(), "differ; {fix}");
    assert_eq!(
        std::fs::read(&dict).unwrap(),
        std::fs::read(workspace_file("fuzz/kmst.dict")).unwrap(),
        "the dictionary differs; {fix}"
    );
}

#[test]
fn the_script_empties_every_target_s_seed_directory() {
    // Every target of fuzz/fuzz_targets has its seeds rewritten from empty.
    let script = std::fs::read_to_string(workspace_file("scripts/fuzz-seeds.sh")).unwrap();
    assert!(
        script.contains("for source in fuzz/fuzz_targets/*.rs"),
        "{script}"
    );
    assert!(
        script.contains("rm -rf \"fuzz/corpus/$(basename \"$source\" .rs)\""),
        "{script}"
    );
    let targets = std::fs::read_dir(workspace_file("fuzz/fuzz_targets"))
        .unwrap()
        .count();
    let seeded = std::fs::read_dir(workspace_file("fuzz/corpus"))
        .unwrap()
        .count();
    assert_eq!(targets, seeded, "one seed directory per fuzz target");
}

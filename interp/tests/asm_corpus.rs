//! Every `.kms` file in the repository's `corpus/` assembles, and its
//! disassembly re-assembles to the same bytes.

use std::path::{Path, PathBuf};

use kmst::asm::{assemble, disassemble};

fn kms_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            kms_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "kms") {
            out.push(path);
        }
    }
}

#[test]
fn corpus_sources_round_trip() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus");
    let mut files = Vec::new();
    kms_files(&root, &mut files);
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        let bytes = assemble(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let again = disassemble(&bytes);
        let back = assemble(&again).unwrap_or_else(|e| panic!("{}: {e}\n{again}", path.display()));
        assert_eq!(back, bytes, "{}:\n{again}", path.display());
    }
}

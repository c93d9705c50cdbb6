//! Where output files go: a regular file is replaced whole, through a
//! symbolic link the file it names; a device or a FIFO is written through,
//! never replaced, with no parameters file beside it; `-` is standard output.

mod common;
use common::{fresh_dir_with, kmst, kmst_fed, s};

use std::os::unix::fs::FileTypeExt;
use std::path::Path;
use std::process::Command;

/// A HALT, with a completion delay of 3 by directive (for the parameters file).
const SOURCE: &str = ";@ params {\"delay\": 3}\n.stream max_steps=10 seed=1\nhalt r0\n";

/// SOURCE's upload (S2): the 64-byte header, magic `TSMK` first, and the
/// micro-ops, 16 · (1 + 1) = 32 bytes padded to 64: 128 bytes.
fn assert_upload(bytes: &[u8]) {
    assert_eq!(bytes.len(), 128);
    assert_eq!(&bytes[..4], b"TSMK");
}

/// The names in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

fn file_type(p: &Path) -> std::fs::FileType {
    std::fs::symlink_metadata(p).unwrap().file_type()
}

/// Whether `command` (`mknod`, `mkfifo`) made its special file; when not,
/// says that the test is `skipped`.
fn made(command: &mut Command, skipped: &str) -> bool {
    let made = command.output().is_ok_and(|o| o.status.success());
    if !made {
        eprintln!("{skipped}");
    }
    made
}

#[test]
fn a_device_is_written_through_and_stays_a_device() {
    let (dir, kms) = fresh_dir_with("outputs-device", "s.kms", SOURCE);
    // A character device like /dev/null (major 1, minor 3): only root can
    // make one; elsewhere this part is skipped (the FIFO test writes through).
    let null = dir.join("null");
    if !made(
        Command::new("mknod").arg(&null).args(["c", "1", "3"]),
        "mknod failed (not root): the device part is skipped",
    ) {
        return;
    }
    let cases: Vec<Vec<&str>> = vec![
        vec!["asm", s(&kms), "-o", s(&null)],
        vec!["profile", s(&kms), "--trace", s(&null)],
        vec![
            "compare",
            "--quick",
            "--samples",
            "1",
            "--variants",
            "tail,switch",
            s(&kms),
            "--plot",
            s(&null),
        ],
    ];
    for args in cases {
        let what = args.join(" ");
        let (code, _, err) = kmst(&args);
        assert_eq!(code, 0, "{what}: {err}");
        assert!(
            file_type(&null).is_char_device(),
            "{what} replaced the device"
        );
        // Only the source and the device: no parameters file, no temporary file.
        assert_eq!(names(&dir), ["null", "s.kms"], "{what}");
    }
    // asm says where the `;@ params` did not go.
    let (_, _, err) = kmst(&["asm", s(&kms), "-o", s(&null)]);
    assert!(err.contains("the `;@ params` are not written"), "{err}");
}

#[test]
fn a_full_device_is_a_write_error_and_stays_a_device() {
    let (_, kms) = fresh_dir_with("outputs-full", "s.kms", SOURCE);
    for args in [
        vec!["asm", s(&kms), "-o", "/dev/full"],
        vec!["profile", s(&kms), "--trace", "/dev/full"],
    ] {
        let what = args.join(" ");
        let (code, _, err) = kmst(&args);
        assert_eq!(code, 2, "{what}: {err}");
        assert_eq!(err.lines().count(), 1, "{what}: {err}");
        assert!(err.contains("No space left on device"), "{what}: {err}");
        assert!(file_type(Path::new("/dev/full")).is_char_device(), "{what}");
        assert!(!Path::new("/dev/full.params.json").exists(), "{what}");
    }
}

#[test]
fn a_fifo_is_written_through() {
    let (dir, kms) = fresh_dir_with("outputs-fifo", "s.kms", SOURCE);
    let fifo = dir.join("fifo");
    if !made(Command::new("mkfifo").arg(&fifo), "no mkfifo here: skipped") {
        return;
    }
    // The reader, which `timeout` ends if nothing ever writes.
    let reader = Command::new("timeout")
        .args(["20", "cat"])
        .arg(&fifo)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("timeout and cat run");
    let (code, _, err) = kmst(&["asm", s(&kms), "-o", s(&fifo)]);
    let read = reader.wait_with_output().unwrap();
    assert_eq!(code, 0, "{err}");
    assert_upload(&read.stdout);
    assert!(file_type(&fifo).is_fifo());
    assert_eq!(names(&dir), ["fifo", "s.kms"]);
}

#[test]
fn a_symbolic_link_is_followed_to_the_file_it_names() {
    let (dir, kms) = fresh_dir_with("outputs-link", "s.kms", SOURCE);
    let real = dir.join("real.bin");
    std::fs::write(&real, "old").unwrap();
    let link = dir.join("link.bin");
    std::os::unix::fs::symlink("real.bin", &link).unwrap();
    // A link to a file not made yet: asm makes it.
    let ahead = dir.join("ahead.bin");
    std::os::unix::fs::symlink("made.bin", &ahead).unwrap();
    for out in [&link, &ahead] {
        let (code, _, err) = kmst(&["asm", s(&kms), "-o", s(out)]);
        assert_eq!(code, 0, "{err}");
        assert!(
            file_type(out).is_symlink(),
            "{} is still a link",
            out.display()
        );
    }
    assert_eq!(std::fs::read_link(&link).unwrap(), Path::new("real.bin"));
    assert_upload(&std::fs::read(&real).unwrap());
    assert_upload(&std::fs::read(dir.join("made.bin")).unwrap());
    // The parameters go beside the name given, where `kmst run link.bin` looks.
    let params: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("link.params.json")).unwrap()).unwrap();
    assert_eq!(params, serde_json::json!({"delay": 3}));
    assert_eq!(
        names(&dir),
        [
            "ahead.bin",
            "ahead.params.json",
            "link.bin",
            "link.params.json",
            "made.bin",
            "real.bin",
            "s.kms"
        ]
    );
}

#[test]
fn dash_is_standard_output() {
    let (dir, _) = fresh_dir_with("outputs-dash", "s.kms", SOURCE);
    let (code, out, err) = kmst_fed(&dir, &["asm", "s.kms", "-o", "-"], b"");
    assert_eq!(code, 0, "{err}");
    assert_upload(&out);
    assert!(err.contains("standard output"), "{err}");
    // Nothing named `-`, no `-.params.json`.
    assert_eq!(names(&dir), ["s.kms"]);
    // disasm -o - prints the text as without -o.
    std::fs::write(dir.join("s.bin"), &out).unwrap();
    let (code, text, err) = kmst_fed(&dir, &["disasm", "s.bin", "-o", "-"], b"");
    assert_eq!(code, 0, "{err}");
    assert!(
        String::from_utf8_lossy(&text).contains("halt r0"),
        "{text:?}"
    );
    assert_eq!(names(&dir), ["s.bin", "s.kms"]);
    // /dev/stdout, a pipe here, and a regular file the process holds open
    // (the same file after, not one renamed over it).
    let (code, out, err) = kmst_fed(&dir, &["asm", "s.kms", "-o", "/dev/stdout"], b"");
    assert_eq!(code, 0, "{err}");
    assert_upload(&out);
    assert!(!Path::new("/dev/stdout.params.json").exists());
    let held = dir.join("held.bin");
    let file = std::fs::File::create(&held).unwrap();
    let inode = |p: &Path| std::os::unix::fs::MetadataExt::ino(&std::fs::metadata(p).unwrap());
    let before = inode(&held);
    let status = common::kmst_command()
        .args(["asm", "s.kms", "-o", "/dev/stdout"])
        .current_dir(&dir)
        .stdout(file)
        .status()
        .unwrap();
    assert!(status.success());
    assert_eq!(inode(&held), before);
    assert_upload(&std::fs::read(&held).unwrap());
    std::fs::remove_file(&held).unwrap();
    assert_eq!(names(&dir), ["s.bin", "s.kms"]);
    // A command whose report goes to standard output takes no `-` output.
    for args in [
        vec!["profile", "s.kms", "--trace", "-"],
        vec!["compare", "s.kms", "--plot", "-"],
    ] {
        let (code, out, err) = kmst_fed(&dir, &args, b"");
        let what = args.join(" ");
        assert_eq!(code, 2, "{what}: {err}");
        assert_eq!(err.lines().count(), 1, "{what}: {err}");
        assert!(err.contains("standard output carries"), "{what}: {err}");
        assert!(out.is_empty(), "{what}");
    }
}

//! Replacing a file without ever leaving it half written.
//!
//! Every file the tools write over (a corpus answer, an assembled upload, a
//! seed, a trace, a chart) is written to a temporary file beside it and
//! renamed into place once it is whole: a full disk, a crash or Ctrl-C leaves
//! the old file as it was (and at worst a `.NAME.tmp-PID` file beside it,
//! which [`remove_unfinished`], called from a signal handler, removes).
//!
//! Only a regular file (or a path where nothing is yet) is replaced so. A
//! symbolic link is followed to the file it names, and that file is
//! replaced (the link stays a link); anything else that is not a folder (a
//! device such as `/dev/null`, a FIFO, or `/dev/stdout`, an open file of
//! the process) is opened and written through, as a shell's `>` does: it
//! cannot be replaced, and a file renamed over it would take its place.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The temporary files being written now, for [`remove_unfinished`].
static UNFINISHED: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

fn unfinished() -> std::sync::MutexGuard<'static, Vec<PathBuf>> {
    UNFINISHED.lock().unwrap_or_else(|e| e.into_inner())
}

fn forget(temp: &Path) {
    unfinished().retain(|p| p != temp);
}

/// Removes every temporary file a [`Replacement`] is writing: for a
/// process that is about to end on Ctrl-C or SIGTERM, so that only the old
/// files stay. Returns how many it removed.
pub fn remove_unfinished() -> usize {
    let temps = std::mem::take(&mut *unfinished());
    temps
        .iter()
        .filter(|t| std::fs::remove_file(t).is_ok())
        .count()
}

/// A file being written beside `path`; [`Replacement::commit`] renames it
/// into place, dropping it uncommitted removes it. For a path that is not a
/// regular file (a device, a FIFO) it writes through instead (module doc).
pub struct Replacement {
    /// The file renamed over: `path`, or the file its symbolic link names.
    path: PathBuf,
    /// The temporary file beside it; `None` when writing through.
    temp: Option<PathBuf>,
    file: Option<BufWriter<File>>,
}

/// The most symbolic links followed from one path (Linux's own limit).
const MAX_LINKS: usize = 40;

/// `path` with its symbolic links followed to the file they name (which
/// need not exist yet: a link to a file to be made), `path` itself when it
/// is no link; and whether a step was in `/proc` (`/dev/stdout` is a link
/// to `/proc/self/fd/1`, which names an open file of the process).
fn follow(path: &Path) -> io::Result<(PathBuf, bool)> {
    let mut at = path.to_owned();
    let mut in_proc = false;
    for _ in 0..MAX_LINKS {
        in_proc |= at.starts_with("/proc");
        match std::fs::symlink_metadata(&at) {
            Ok(m) if m.file_type().is_symlink() => {
                let to = std::fs::read_link(&at)?;
                at = match at.parent() {
                    Some(dir) if to.is_relative() => dir.join(to),
                    _ => to,
                };
            }
            _ => return Ok((at, in_proc)),
        }
    }
    Err(io::Error::other(format!(
        "more than {MAX_LINKS} symbolic links in a row"
    )))
}

/// True when [`Replacement`] writes `path` through instead of replacing
/// it: what it names (its links followed) exists and is neither a regular
/// file nor a folder (a device, a FIFO, a socket), or it is an open file of
/// the process (`/dev/stdout`, `/dev/fd/N`: links into `/proc`), which must
/// stay the file the process holds.
pub fn writes_through(path: &Path) -> bool {
    let special = std::fs::metadata(path).is_ok_and(|m| {
        let t = m.file_type();
        !t.is_file() && !t.is_dir()
    });
    special || follow(path).is_ok_and(|(_, in_proc)| in_proc)
}

impl Replacement {
    /// Starts replacing `path` (which need not exist yet), or the file its
    /// symbolic link names; or starts writing through to a device, a FIFO
    /// or an open file of the process ([`writes_through`]).
    pub fn create(path: &Path) -> io::Result<Replacement> {
        if writes_through(path) {
            // Opened as a shell's `>` would, without truncating (a device or
            // a FIFO has no length; an open file's owner chose its length),
            // never created.
            let file = std::fs::OpenOptions::new().write(true).open(path)?;
            return Ok(Replacement {
                path: path.to_owned(),
                temp: None,
                file: Some(BufWriter::new(file)),
            });
        }
        let (path, _) = follow(path)?;
        let name = path
            .file_name()
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "not a file name"))?;
        let mut temp_name = std::ffi::OsString::from(".");
        temp_name.push(name);
        temp_name.push(format!(".tmp-{}", std::process::id()));
        let temp = path.with_file_name(temp_name);
        unfinished().push(temp.clone());
        let file = File::create(&temp).inspect_err(|_| forget(&temp))?;
        Ok(Replacement {
            path,
            temp: Some(temp),
            file: Some(BufWriter::new(file)),
        })
    }

    /// Flushes the whole file to disk and renames it over the old one.
    /// On an error the temporary file is removed and the old one left.
    /// Written through, it flushes what is left.
    pub fn commit(mut self) -> io::Result<()> {
        let file = self.file.take().expect("committed once");
        let Some(temp) = self.temp.take() else {
            return file.into_inner().map(drop).map_err(|e| e.into_error());
        };
        let done = file
            .into_inner()
            .map_err(|e| e.into_error())
            .and_then(|file| file.sync_all())
            .and_then(|()| std::fs::rename(&temp, &self.path));
        if done.is_err() {
            let _ = std::fs::remove_file(&temp);
        }
        forget(&temp);
        done
    }
}

impl Write for Replacement {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.file.as_mut().expect("not committed").write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.as_mut().expect("not committed").flush()
    }
}

impl Drop for Replacement {
    fn drop(&mut self) {
        if self.file.take().is_some()
            && let Some(temp) = self.temp.take()
        {
            let _ = std::fs::remove_file(&temp);
            forget(&temp);
        }
    }
}

/// Replaces `path` with `bytes` whole, or leaves it as it was.
pub fn replace_file(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut r = Replacement::create(path)?;
    r.write_all(bytes)?;
    r.commit()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dropped_replacement_leaves_the_old_file_and_no_temp() {
        let dir = std::env::temp_dir().join(format!("kmst-replace-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("f.txt");
        std::fs::write(&path, "old").unwrap();
        {
            let mut r = Replacement::create(&path).unwrap();
            r.write_all(b"new, but never committed").unwrap();
        }
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "old");
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
        replace_file(&path, b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new");
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

//! Replacing a file without ever leaving it half written.
//!
//! Every file the tools write over (a corpus answer, an assembled upload, a
//! seed, a trace, a chart) is written to a temporary file beside it and
//! renamed into place once it is whole: a full disk, a crash or Ctrl-C leaves
//! the old file as it was (and at worst a `.NAME.tmp-PID` file beside it,
//! which [`remove_unfinished`], called from a signal handler, removes).

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
/// into place, dropping it uncommitted removes it.
pub struct Replacement {
    path: PathBuf,
    temp: PathBuf,
    file: Option<BufWriter<File>>,
}

impl Replacement {
    /// Starts replacing `path` (which need not exist yet).
    pub fn create(path: &Path) -> io::Result<Replacement> {
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
            path: path.to_owned(),
            temp,
            file: Some(BufWriter::new(file)),
        })
    }

    /// Flushes the whole file to disk and renames it over the old one.
    /// On an error the temporary file is removed and the old one left.
    pub fn commit(mut self) -> io::Result<()> {
        let file = self.file.take().expect("committed once");
        let done = file
            .into_inner()
            .map_err(|e| e.into_error())
            .and_then(|file| file.sync_all())
            .and_then(|()| std::fs::rename(&self.temp, &self.path));
        if done.is_err() {
            let _ = std::fs::remove_file(&self.temp);
        }
        forget(&self.temp);
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
        if self.file.take().is_some() {
            let _ = std::fs::remove_file(&self.temp);
            forget(&self.temp);
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

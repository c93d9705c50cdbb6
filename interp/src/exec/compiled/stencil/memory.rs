//! The copy-and-patch tier's code memory: pages written, then made readable
//! and executable, never writable and executable at once. The tier's one
//! place that calls the system.
//!
//! Each system call costs about 2 µs on the machines measured, more than
//! copying and patching a small program (J11). So a thread keeps a chunk
//! of pages mapped: a program takes the next free pages, written and then
//! made executable by one `mprotect`; its pages are taken back only once
//! every program in the chunk is dropped, when the used pages are made
//! writable again by one `mprotect` for the lot and the chunk is reused,
//! already faulted in. A program too large for a chunk maps pages of its
//! own. A chunk is unmapped when the last program in it and the thread's
//! pool have let it go.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

const PAGE: usize = 4096;

/// The pages a thread's pool maps at a time: 64 small programs.
const CHUNK: usize = 64 * PAGE;

/// One mapping: `len` bytes from `base`, pages below `used` handed out.
struct Chunk {
    base: *mut u8,
    len: usize,
    used: Cell<usize>,
}

impl Chunk {
    /// Maps `len` bytes (whole pages), readable and writable.
    fn map(len: usize) -> Result<Chunk, String> {
        // SAFETY: an anonymous private mapping; the result is checked.
        let ptr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if ptr == libc::MAP_FAILED {
            return Err(format!(
                "mmap of {len} bytes: {}",
                std::io::Error::last_os_error()
            ));
        }
        Ok(Chunk {
            base: ptr.cast(),
            len,
            used: Cell::new(0),
        })
    }

    /// Sets the protection of `size` bytes from `offset`.
    fn protect(&self, offset: usize, size: usize, prot: libc::c_int) -> Result<(), String> {
        debug_assert!(offset + size <= self.len && offset.is_multiple_of(PAGE));
        // SAFETY: whole pages inside this mapping.
        match unsafe { libc::mprotect(self.base.add(offset).cast(), size, prot) } {
            0 => Ok(()),
            _ => Err(format!(
                "mprotect of {size} bytes: {}",
                std::io::Error::last_os_error()
            )),
        }
    }
}

impl Drop for Chunk {
    fn drop(&mut self) {
        // SAFETY: the mapping made in `map`; no `Memory` holds it any more,
        // so no code in it can be running.
        unsafe {
            libc::munmap(self.base.cast(), self.len);
        }
    }
}

thread_local! {
    /// The chunk small programs take their pages from.
    static POOL: RefCell<Option<Rc<Chunk>>> = const { RefCell::new(None) };
}

/// Pages holding a program's code, executable.
pub(crate) struct Memory {
    chunk: Rc<Chunk>,
    /// Where the code starts in the chunk, and its length.
    offset: usize,
    len: usize,
}

impl Memory {
    /// Copies `code` into pages of its own and makes them executable. `Err`
    /// names the call that failed.
    pub(crate) fn new(code: &[u8]) -> Result<Memory, String> {
        let size = code.len().max(1).next_multiple_of(PAGE);
        let (chunk, offset) = if size <= CHUNK / 4 {
            // During the thread's teardown the pool is gone: own pages.
            match POOL.try_with(|pool| pages(&mut pool.borrow_mut(), size)) {
                Ok(taken) => taken?,
                Err(_) => (Rc::new(Chunk::map(size)?), 0),
            }
        } else {
            (Rc::new(Chunk::map(size)?), 0)
        };
        // SAFETY: `size >= code.len()` bytes from `offset` are this
        // program's, writable (fresh, or made writable when the chunk was
        // taken back), and no code runs in them.
        unsafe {
            std::ptr::copy_nonoverlapping(code.as_ptr(), chunk.base.add(offset), code.len());
        }
        chunk.protect(offset, size, libc::PROT_READ | libc::PROT_EXEC)?;
        Ok(Memory {
            chunk,
            offset,
            len: code.len(),
        })
    }

    /// The address of byte `offset` of the code.
    pub(crate) fn at(&self, offset: usize) -> *const u8 {
        debug_assert!(offset < self.len);
        self.chunk.base.wrapping_add(self.offset + offset)
    }
}

/// `size` bytes of writable pages from the pool's chunk: the next free
/// ones; the whole chunk again, made writable, when no program holds any
/// of its pages; or a new chunk.
fn pages(pool: &mut Option<Rc<Chunk>>, size: usize) -> Result<(Rc<Chunk>, usize), String> {
    if let Some(chunk) = pool.as_ref() {
        let used = chunk.used.get();
        if used + size <= chunk.len {
            chunk.used.set(used + size);
            return Ok((Rc::clone(chunk), used));
        }
        if Rc::strong_count(chunk) == 1 {
            // Every program in it is gone: its pages are free again.
            chunk.protect(0, used, libc::PROT_READ | libc::PROT_WRITE)?;
            chunk.used.set(size);
            return Ok((Rc::clone(chunk), 0));
        }
    }
    let chunk = Rc::new(Chunk::map(CHUNK)?);
    chunk.used.set(size);
    *pool = Some(Rc::clone(&chunk));
    Ok((chunk, 0))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One page of `ret` (0xC3): code that returns at once.
    fn program() -> Memory {
        Memory::new(&[0xC3; 100]).expect("mapped")
    }

    /// Small programs share the thread's chunk, a page each, in order;
    /// the chunk is reused once they are all gone, and a program larger
    /// than a quarter chunk maps its own pages.
    #[test]
    fn small_programs_share_a_chunk_and_reuse_it() {
        let first = program();
        let second = program();
        assert!(Rc::ptr_eq(&first.chunk, &second.chunk));
        assert_eq!(second.offset, first.offset + PAGE);
        let base = first.chunk.base;
        drop((first, second));
        // The rest of the chunk, page by page, while the pages behind stay
        // taken: the last program ends the chunk.
        let rest: Vec<Memory> = (2..CHUNK / PAGE).map(|_| program()).collect();
        let last = rest.last().expect("pages left");
        assert_eq!((last.chunk.base, last.offset), (base, CHUNK - PAGE));
        // A full chunk none of whose programs is alive is taken back.
        drop(rest);
        let again = program();
        assert_eq!((again.chunk.base, again.offset), (base, 0));
        // Code in a taken-back page runs: it was written after the chunk
        // was made writable again, then made executable.
        // SAFETY: the page holds `ret`, mapped executable.
        unsafe {
            let f: extern "C" fn() = std::mem::transmute(again.at(0));
            f();
        }
        // A full chunk with a program alive is left to it: a new one.
        let rest: Vec<Memory> = (1..CHUNK / PAGE).map(|_| program()).collect();
        let next = program();
        assert_eq!(next.offset, 0);
        assert!(!Rc::ptr_eq(&next.chunk, &again.chunk));
        drop(rest);
        let large = Memory::new(&vec![0xC3; CHUNK]).expect("mapped");
        assert_eq!((large.offset, large.chunk.len), (0, CHUNK));
        assert!(!Rc::ptr_eq(&large.chunk, &next.chunk));
    }
}

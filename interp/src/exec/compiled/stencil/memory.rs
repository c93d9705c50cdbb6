//! The copy-and-patch tier's code memory: mapped writable, filled, then
//! made readable and executable, never writable and executable at once;
//! unmapped when dropped. The tier's one place that calls the system.

/// Pages holding a program's code, executable.
pub(crate) struct Memory {
    ptr: *mut u8,
    /// The mapping's length (whole pages).
    size: usize,
    /// The code's length.
    len: usize,
}

impl Memory {
    /// Maps `code` executable. `Err` names the call that failed.
    pub(crate) fn new(code: &[u8]) -> Result<Memory, String> {
        let size = code.len().max(1).next_multiple_of(4096);
        // SAFETY: an anonymous private mapping of `size` bytes, written only
        // below `code.len() <= size`, then protected; `ptr` is checked.
        unsafe {
            let ptr = libc::mmap(
                std::ptr::null_mut(),
                size,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            );
            if ptr == libc::MAP_FAILED {
                return Err(format!(
                    "mmap of {size} bytes: {}",
                    std::io::Error::last_os_error()
                ));
            }
            let ptr = ptr.cast::<u8>();
            std::ptr::copy_nonoverlapping(code.as_ptr(), ptr, code.len());
            if libc::mprotect(ptr.cast(), size, libc::PROT_READ | libc::PROT_EXEC) != 0 {
                let e = std::io::Error::last_os_error();
                libc::munmap(ptr.cast(), size);
                return Err(format!("mprotect of {size} bytes: {e}"));
            }
            Ok(Memory {
                ptr,
                size,
                len: code.len(),
            })
        }
    }

    /// The address of byte `offset` of the code.
    pub(crate) fn at(&self, offset: usize) -> *const u8 {
        debug_assert!(offset < self.len);
        self.ptr.wrapping_add(offset)
    }
}

impl Drop for Memory {
    fn drop(&mut self) {
        // SAFETY: the mapping made in `new`; its code is called only by
        // turns of runs that borrow the program holding it, none now.
        unsafe {
            libc::munmap(self.ptr.cast(), self.size);
        }
    }
}

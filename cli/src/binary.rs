//! The binary this process runs, read from its file (`object`): its
//! function symbols and sections, where the process loaded it, and where
//! its pointer slots point, for `kmst explain`'s listings.

use object::{Object, ObjectSection, ObjectSymbol, SymbolKind};

/// A function symbol of the binary.
struct Symbol {
    addr: u64,
    size: u64,
    name: String,
}

/// The binary this process runs, read from its file.
pub struct Binary {
    data: Vec<u8>,
    /// By address.
    symbols: Vec<Symbol>,
    /// Each section with bytes in the file: (address, size, file offset).
    sections: Vec<(u64, u64, u64)>,
    /// What to add to a file address to get this process's address.
    bias: i64,
    /// A pointer slot's target where the loader writes it (a PIE's global
    /// offset table): slot address, target address.
    slots: Vec<(u64, u64)>,
}

/// One function's code as the file holds it.
pub struct Function<'a> {
    /// Its Rust name (`kmst::exec::` left out).
    pub name: String,
    /// Its address in the file.
    pub addr: u64,
    pub bytes: &'a [u8],
}

/// Where this process's code is: the address of a function it knows by
/// name, found again in the symbol table.
#[inline(never)]
fn anchor() -> u64 {
    std::hint::black_box(0x6b6d_7374)
}

impl Binary {
    /// Reads the running binary's file. `Err` says why it cannot be read:
    /// no symbol table (a stripped binary), not a file this can parse.
    pub fn open() -> Result<Binary, String> {
        let path = std::env::current_exe().map_err(|e| format!("the running binary: {e}"))?;
        let data = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let (symbols, sections, slots) = {
            let file = object::File::parse(&*data)
                .map_err(|e| format!("{}: not an executable this can read: {e}", path.display()))?;
            let mut symbols: Vec<Symbol> = file
                .symbols()
                .filter(|s| s.kind() == SymbolKind::Text && s.address() != 0)
                .filter_map(|s| {
                    Some(Symbol {
                        addr: s.address(),
                        size: s.size(),
                        name: s.name().ok()?.to_owned(),
                    })
                })
                .collect();
            symbols.sort_by_key(|s| (s.addr, std::cmp::Reverse(s.size)));
            let sections = file
                .sections()
                .filter_map(|s| {
                    let (offset, size) = s.file_range()?;
                    Some((s.address(), size, offset))
                })
                .collect();
            // R_X86_64_RELATIVE: the slot holds the load address plus the addend.
            let mut slots: Vec<(u64, u64)> = file
                .dynamic_relocations()
                .into_iter()
                .flatten()
                .filter(|(_, r)| matches!(r.flags(), object::RelocationFlags::Elf { r_type: 8 }))
                .map(|(at, r)| (at, r.addend() as u64))
                .collect();
            slots.sort_unstable();
            (symbols, sections, slots)
        };
        if symbols.is_empty() {
            return Err(format!(
                "{} has no symbol table (a stripped binary): its functions cannot be found",
                path.display()
            ));
        }
        let here = anchor as *const () as u64;
        let anchor_sym = symbols
            .iter()
            .find(|s| rust_name(&s.name).ends_with("binary::anchor"))
            .ok_or("the binary's symbols do not name its own functions")?;
        let bias = here.wrapping_sub(anchor_sym.addr) as i64;
        Ok(Binary {
            data,
            symbols,
            sections,
            bias,
            slots,
        })
    }

    /// The file address of this process's address `addr`.
    pub fn file_addr(&self, addr: usize) -> u64 {
        (addr as u64).wrapping_sub(self.bias as u64)
    }

    /// `len` bytes of the file at file address `addr`.
    pub fn bytes_at(&self, addr: u64, len: u64) -> Option<&[u8]> {
        let &(start, size, offset) = self
            .sections
            .iter()
            .find(|&&(start, size, _)| addr >= start && addr + len <= start + size)?;
        let _ = size;
        let from = usize::try_from(offset + (addr - start)).ok()?;
        self.data.get(from..from + usize::try_from(len).ok()?)
    }

    /// The function that starts at this process's address `addr`; of
    /// several names for one function (the linker folds identical ones),
    /// the one that holds `hint`.
    pub fn function(&self, addr: usize, hint: &str) -> Result<Function<'_>, String> {
        let at = self.file_addr(addr);
        let k = self.symbols.partition_point(|s| s.addr < at);
        let here: Vec<&Symbol> = self.symbols[k..]
            .iter()
            .take_while(|s| s.addr == at)
            .filter(|s| s.size > 0)
            .collect();
        let sym = here
            .iter()
            .find(|s| rust_name(&s.name).contains(hint))
            .or(here.first())
            .ok_or_else(|| format!("no function symbol at {at:#x}"))?;
        let bytes = self
            .bytes_at(sym.addr, sym.size)
            .ok_or_else(|| format!("{} is not in the file", rust_name(&sym.name)))?;
        Ok(Function {
            name: rust_name(&sym.name),
            addr: sym.addr,
            bytes,
        })
    }

    /// The function a pointer slot at file address `slot` points to.
    pub fn slot_target(&self, slot: u64) -> Option<u64> {
        if let Ok(k) = self.slots.binary_search_by_key(&slot, |&(at, _)| at) {
            return Some(self.slots[k].1);
        }
        // Not relocated at load: the file holds the address.
        let b = self.bytes_at(slot, 8)?;
        Some(u64::from_le_bytes(b.try_into().ok()?))
    }

    /// The name of the function symbol holding file address `addr`.
    pub fn name_of(&self, addr: u64) -> Option<String> {
        let k = self.symbols.partition_point(|s| s.addr <= addr);
        let s = self.symbols.get(k.checked_sub(1)?)?;
        (addr < s.addr + s.size.max(1)).then(|| rust_name(&s.name))
    }
}

/// A symbol's Rust name, without its hash and the engine's `kmst::exec::`.
pub fn rust_name(symbol: &str) -> String {
    format!("{:#}", rustc_demangle::demangle(symbol)).replace("kmst::exec::", "")
}

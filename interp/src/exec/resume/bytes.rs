//! The snapshot's primitives: little-endian integers, options and
//! counted lists written to a byte vector and read back with a cursor that
//! never reads past the end nor believes a count the bytes cannot hold,
//! and the checksum (FNV-1a, 64 bits: a single changed byte always
//! changes it).

use super::error::SnapshotError;

/// FNV-1a over `bytes`.
pub(super) fn checksum(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// A snapshot being written.
#[derive(Default)]
pub(super) struct Writer {
    pub(super) out: Vec<u8>,
}

impl Writer {
    pub(super) fn u8(&mut self, v: u8) {
        self.out.push(v);
    }
    pub(super) fn u16(&mut self, v: u16) {
        self.out.extend_from_slice(&v.to_le_bytes());
    }
    pub(super) fn u32(&mut self, v: u32) {
        self.out.extend_from_slice(&v.to_le_bytes());
    }
    pub(super) fn u64(&mut self, v: u64) {
        self.out.extend_from_slice(&v.to_le_bytes());
    }
    pub(super) fn bool(&mut self, v: bool) {
        self.u8(u8::from(v));
    }
    /// A count of what follows.
    pub(super) fn len(&mut self, n: usize) {
        self.u32(n as u32);
    }
    pub(super) fn bytes(&mut self, b: &[u8]) {
        self.len(b.len());
        self.out.extend_from_slice(b);
    }
    pub(super) fn opt_u64(&mut self, v: Option<u64>) {
        self.bool(v.is_some());
        self.u64(v.unwrap_or(0));
    }
    pub(super) fn opt_u32(&mut self, v: Option<u32>) {
        self.bool(v.is_some());
        self.u32(v.unwrap_or(0));
    }
}

/// A snapshot being read: each read is the next field, or
/// [`SnapshotError::Truncated`].
pub(super) struct Reader<'a> {
    pub(super) rest: &'a [u8],
}

impl<'a> Reader<'a> {
    pub(super) fn take(&mut self, n: usize) -> Result<&'a [u8], SnapshotError> {
        if self.rest.len() < n {
            return Err(SnapshotError::Truncated);
        }
        let (head, rest) = self.rest.split_at(n);
        self.rest = rest;
        Ok(head)
    }
    fn array<const N: usize>(&mut self) -> Result<[u8; N], SnapshotError> {
        let mut a = [0; N];
        a.copy_from_slice(self.take(N)?);
        Ok(a)
    }
    pub(super) fn u8(&mut self) -> Result<u8, SnapshotError> {
        Ok(self.take(1)?[0])
    }
    pub(super) fn u16(&mut self) -> Result<u16, SnapshotError> {
        self.array().map(u16::from_le_bytes)
    }
    pub(super) fn u32(&mut self) -> Result<u32, SnapshotError> {
        self.array().map(u32::from_le_bytes)
    }
    pub(super) fn u64(&mut self) -> Result<u64, SnapshotError> {
        self.array().map(u64::from_le_bytes)
    }
    pub(super) fn bool(&mut self, what: &str) -> Result<bool, SnapshotError> {
        match self.u8()? {
            0 => Ok(false),
            1 => Ok(true),
            b => Err(SnapshotError::invalid(format!("{what}: {b} is not 0 or 1"))),
        }
    }
    /// A count of items of at least `each` bytes: more than the bytes
    /// left could hold is an error before anything is allocated for them.
    pub(super) fn len(&mut self, each: usize) -> Result<usize, SnapshotError> {
        let n = self.u32()? as usize;
        if n.saturating_mul(each.max(1)) > self.rest.len() {
            return Err(SnapshotError::Truncated);
        }
        Ok(n)
    }
    pub(super) fn bytes(&mut self) -> Result<&'a [u8], SnapshotError> {
        let n = self.len(1)?;
        self.take(n)
    }
    pub(super) fn opt_u64(&mut self, what: &str) -> Result<Option<u64>, SnapshotError> {
        let some = self.bool(what)?;
        let v = self.u64()?;
        Ok(some.then_some(v))
    }
    pub(super) fn opt_u32(&mut self, what: &str) -> Result<Option<u32>, SnapshotError> {
        let some = self.bool(what)?;
        let v = self.u32()?;
        Ok(some.then_some(v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// FNV-1a's published values: the empty input is the offset basis,
    /// "a" is 0xaf63dc4c8601ec8c.
    #[test]
    fn the_checksum_is_fnv_1a() {
        assert_eq!(checksum(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(checksum(b"a"), 0xaf63_dc4c_8601_ec8c);
    }

    /// A count larger than the bytes left is refused before allocating.
    #[test]
    fn a_count_the_bytes_cannot_hold_is_truncated() {
        let mut w = Writer::default();
        w.len(1_000_000);
        w.u8(7);
        let mut r = Reader { rest: &w.out };
        assert!(matches!(r.len(2), Err(SnapshotError::Truncated)));
    }
}

//! The visited-state store: states are encoded compactly (every slot as a zigzag varint, so a
//! small value takes one byte) back to back in one byte arena, and a hash table of state
//! indices finds them. A state costs its encoded bytes, an 8-byte offset and about five bytes
//! of table.

use std::hash::BuildHasher;

use hashbrown::hash_table::Entry;
use hashbrown::HashTable;
use rustc_hash::FxBuildHasher;
use smallvec::SmallVec;

/// An interning store of states.
pub(crate) struct Store {
    stride: usize,
    data: Vec<u8>,
    offsets: Vec<u64>,
    table: HashTable<u32>,
}

pub(crate) fn hash_bytes(s: &[u8]) -> u64 {
    FxBuildHasher.hash_one(s)
}

/// Appends the encoding of `s` to `out`.
pub(crate) fn encode(s: &[i64], out: &mut Vec<u8>) {
    let start = out.len();
    out.resize(start + s.len() * MAX_SLOT_BYTES, 0);
    let n = encode_into(s, &mut out[start..]);
    out.truncate(start + n);
}

/// The most bytes a slot's encoding takes.
const MAX_SLOT_BYTES: usize = 10;

/// Writes the encoding of `s` to the front of `room` (at least [`MAX_SLOT_BYTES`] per slot);
/// its length.
fn encode_into(s: &[i64], room: &mut [u8]) -> usize {
    let mut n = 0;
    for &v in s {
        let mut z = zigzag(v);
        while z >= 0x80 {
            room[n] = (z & 0x7f) as u8 | 0x80;
            z >>= 7;
            n += 1;
        }
        room[n] = z as u8;
        n += 1;
    }
    n
}

/// Maps small magnitudes to small numbers: 0, -1, 1, -2, ... to 0, 1, 2, 3, ...
fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

/// Decodes the `n` slots encoded in `bytes` into `out` (replacing what it held).
fn decode(mut bytes: &[u8], out: &mut Vec<i64>, n: usize) {
    out.clear();
    // The common case: one byte per slot.
    if bytes.len() == n {
        out.extend(bytes.iter().map(|&b| unzigzag(u64::from(b))));
        return;
    }
    out.reserve(n);
    for _ in 0..n {
        let z = match bytes {
            [b, rest @ ..] if b & 0x80 == 0 => {
                bytes = rest;
                u64::from(*b)
            }
            _ => decode_long(&mut bytes),
        };
        out.push(unzigzag(z));
    }
}

/// The inverse of [`zigzag`].
fn unzigzag(z: u64) -> i64 {
    ((z >> 1) as i64) ^ -((z & 1) as i64)
}

/// Reads one varint of any length from the front of `bytes`.
fn decode_long(bytes: &mut &[u8]) -> u64 {
    let mut z = 0u64;
    let mut shift = 0;
    while let Some((&b, rest)) = bytes.split_first() {
        *bytes = rest;
        z |= u64::from(b & 0x7f) << shift;
        shift += 7;
        if b & 0x80 == 0 {
            break;
        }
    }
    z
}

impl Store {
    pub(crate) fn new(stride: usize) -> Self {
        Store { stride, data: Vec::new(), offsets: vec![0], table: HashTable::new() }
    }

    pub(crate) fn len(&self) -> usize {
        self.table.len()
    }

    fn bytes_of(&self, i: u32) -> &[u8] {
        &self.data[self.offsets[i as usize] as usize..self.offsets[i as usize + 1] as usize]
    }

    /// State `i`, decoded.
    pub(crate) fn get(&self, i: u32) -> Vec<i64> {
        let mut v = Vec::with_capacity(self.stride);
        self.get_into(i, &mut v);
        v
    }

    /// State `i`, decoded into `out` (replacing what it held).
    pub(crate) fn get_into(&self, i: u32, out: &mut Vec<i64>) {
        decode(self.bytes_of(i), out, self.stride);
    }

    /// The index of a stored state (encoded on the stack when it is small).
    pub(crate) fn find(&self, s: &[i64]) -> Option<u32> {
        let mut room: SmallVec<[u8; 512]> = SmallVec::from_elem(0, s.len() * MAX_SLOT_BYTES);
        let n = encode_into(s, &mut room);
        self.find_hashed(hash_bytes(&room[..n]), &room[..n])
    }

    /// The index of a stored state given its encoding and the encoding's hash.
    pub(crate) fn find_hashed(&self, h: u64, enc: &[u8]) -> Option<u32> {
        self.table.find(h, |&i| self.bytes_of(i) == enc).copied()
    }

    /// Inserts a state; its index and whether it is new.
    pub(crate) fn insert(&mut self, s: &[i64]) -> (u32, bool) {
        let mut enc = Vec::with_capacity(self.stride + 8);
        encode(s, &mut enc);
        self.insert_encoded(&enc)
    }

    /// Inserts an encoded state; its index and whether it is new.
    pub(crate) fn insert_encoded(&mut self, enc: &[u8]) -> (u32, bool) {
        self.insert_hashed(hash_bytes(enc), enc)
    }

    /// Inserts an encoded state whose hash is `h`; its index and whether it is new.
    pub(crate) fn insert_hashed(&mut self, h: u64, enc: &[u8]) -> (u32, bool) {
        let Store { data, offsets, table, .. } = self;
        let slice = |i: u32| &data[offsets[i as usize] as usize..offsets[i as usize + 1] as usize];
        let rehash = |&j: &u32| hash_bytes(slice(j));
        match table.entry(h, |&i| slice(i) == enc, rehash) {
            Entry::Occupied(e) => (*e.get(), false),
            Entry::Vacant(e) => {
                let i = (offsets.len() - 1) as u32;
                e.insert(i);
                data.extend_from_slice(enc);
                offsets.push(data.len() as u64);
                (i, true)
            }
        }
    }

    /// Bytes used, roughly.
    pub(crate) fn bytes(&self) -> usize {
        self.data.capacity() + self.offsets.capacity() * 8 + self.table.capacity() * 5
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encoding_round_trips() {
        let s = [0, 1, -1, 63, -64, 64, i64::MAX, i64::MIN, 300];
        let mut enc = Vec::new();
        encode(&s, &mut enc);
        let mut out = Vec::new();
        decode(&enc, &mut out, s.len());
        assert_eq!(out, s);
        let mut st = Store::new(s.len());
        assert_eq!(st.insert(&s), (0, true));
        assert_eq!(st.insert(&s), (0, false));
        assert_eq!(st.find(&s), Some(0));
        assert_eq!(st.get(0), s);
    }

    #[test]
    fn decoding_replaces_the_buffer_for_short_and_long_encodings() {
        let small = [0, 1, -1, 63, -64];
        let large = [64, -65, 1 << 40, 0, -300];
        let mut st = Store::new(5);
        let (a, _) = st.insert(&small);
        let (b, _) = st.insert(&large);
        assert_eq!(st.bytes_of(a).len(), 5, "one byte per slot in -64..64");
        assert!(st.bytes_of(b).len() > 5);
        let mut buf = vec![7; 9];
        st.get_into(b, &mut buf);
        assert_eq!(buf, large);
        st.get_into(a, &mut buf);
        assert_eq!(buf, small);
        assert_eq!(st.find(&large), Some(b));
        assert_eq!(st.find(&[0, 0, 0, 0, 1]), None);
    }
}

//! LevelDB-style tables as TensorFlow's checkpoint index writes them
//! (blocks, their trailers, the footer), built from readable parts, with
//! lengths and counts no writer makes where a test wants them.

use pbdecode::checksum::{crc32c, crc32c_extend, mask};
use pbdecode::formats;

/// A block: its entries' bytes, then the restart array and count given.
pub fn block(entries: &[u8], restarts: &[u32], count: u32) -> Vec<u8> {
    let mut b = entries.to_vec();
    for r in restarts {
        b.extend_from_slice(&r.to_le_bytes());
    }
    b.extend_from_slice(&count.to_le_bytes());
    b
}

/// An entry with the lengths it declares (which need not be its bytes').
pub fn entry(shared: u64, unshared: u64, value_len: u64, rest: &[u8]) -> Vec<u8> {
    let mut e = Vec::new();
    super::put_varint(&mut e, shared);
    super::put_varint(&mut e, unshared);
    super::put_varint(&mut e, value_len);
    e.extend_from_slice(rest);
    e
}

/// Appends a block with its trailer (no compression, masked CRC32C) and
/// returns its handle.
pub fn push_block(file: &mut Vec<u8>, contents: &[u8]) -> (u64, u64) {
    let at = file.len() as u64;
    file.extend_from_slice(contents);
    file.push(0);
    let crc = mask(crc32c_extend(crc32c(contents), &[0]));
    file.extend_from_slice(&crc.to_le_bytes());
    (at, contents.len() as u64)
}

/// A table of one data block (and an empty metaindex), as TensorFlow
/// lays it out.
pub fn table(data_block: &[u8]) -> Vec<u8> {
    let mut file = Vec::new();
    let data = push_block(&mut file, data_block);
    let meta = push_block(&mut file, &block(&[], &[0], 1));
    let mut handle = Vec::new();
    super::put_varint(&mut handle, data.0);
    super::put_varint(&mut handle, data.1);
    let mut index_entry = entry(0, 1, handle.len() as u64, b"z");
    index_entry.extend_from_slice(&handle);
    let index = push_block(&mut file, &block(&index_entry, &[0], 1));
    let mut footer = Vec::new();
    for v in [meta.0, meta.1, index.0, index.1] {
        super::put_varint(&mut footer, v);
    }
    footer.resize(40, 0);
    footer.extend_from_slice(&formats::tf_checkpoint::TABLE_MAGIC);
    file.extend_from_slice(&footer);
    file
}

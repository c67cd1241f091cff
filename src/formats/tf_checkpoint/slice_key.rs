//! The keys of a TensorFlow 1 checkpoint's slices: a tensor's name and
//! the extents of the slice, in TensorFlow's OrderedCode
//! (`tensorflow/core/lib/strings/ordered_code.cc`); and extents as numpy
//! writes a slice.

/// A slice key (OrderedCode, `tensorflow/core/util/saved_tensor_slice_util.cc`
/// and `lib/strings/ordered_code.cc`): `00`, the tensor's name with `00`
/// as `00 ff` and `ff` as `ff 00`, `00 01`, the rank, then each axis's
/// start and length as signed numbers (-1: the whole axis).
pub struct SliceKey {
    pub name: Vec<u8>,
    /// (start, length) per axis.
    pub extents: Vec<(i64, i64)>,
}

/// The tensor's name of a slice key (None for an ordinary key).
pub fn slice_key_name(key: &[u8]) -> Option<Vec<u8>> {
    parse_slice_key(key).map(|k| k.name)
}

/// Reads a slice key; None for an ordinary key or a malformed one.
pub fn parse_slice_key(key: &[u8]) -> Option<SliceKey> {
    let mut rest = key.strip_prefix(&[0u8])?;
    let mut name = Vec::new();
    loop {
        match rest {
            [0x00, 0x01, tail @ ..] => {
                rest = tail;
                break;
            }
            [0x00, 0xff, tail @ ..] => {
                name.push(0x00);
                rest = tail;
            }
            [0xff, 0x00, tail @ ..] => {
                name.push(0xff);
                rest = tail;
            }
            [b, tail @ ..] if *b != 0x00 && *b != 0xff => {
                name.push(*b);
                rest = tail;
            }
            _ => return None,
        }
    }
    let (rank, tail) = read_num_increasing(rest)?;
    rest = tail;
    // Each axis takes two bytes at least: a rank past that is malformed,
    // and nothing is allocated for it.
    if rank > rest.len() as u64 / 2 {
        return None;
    }
    let mut extents = Vec::new();
    for _ in 0..rank {
        let (start, tail) = read_signed_num_increasing(rest)?;
        let (length, tail) = read_signed_num_increasing(tail)?;
        extents.push((start, length));
        rest = tail;
    }
    rest.is_empty().then_some(SliceKey { name, extents })
}

/// OrderedCode's unsigned number: a byte count, then that many bytes
/// big-endian.
fn read_num_increasing(b: &[u8]) -> Option<(u64, &[u8])> {
    let (&n, rest) = b.split_first()?;
    let n = usize::from(n);
    if n > 8 || rest.len() < n {
        return None;
    }
    let (digits, rest) = rest.split_at(n);
    let v = digits
        .iter()
        .fold(0u64, |acc, &d| (acc << 8) | u64::from(d));
    Some((v, rest))
}

/// OrderedCode's signed number: the length in the leading bits of the
/// first bytes (inverted for negative numbers), then the value
/// big-endian, sign-extended.
fn read_signed_num_increasing(b: &[u8]) -> Option<(i64, &[u8])> {
    const MASKS: [u64; 11] = [
        0,
        0x80,
        0xc000,
        0xe0_0000,
        0xf000_0000,
        0xf8_0000_0000,
        0xfc00_0000_0000,
        0xfe_0000_0000_0000,
        0xff00_0000_0000_0000,
        0x8000_0000_0000_0000,
        0,
    ];
    let &first = b.first()?;
    let negative = first & 0x80 == 0;
    let flip = if negative { 0xffu8 } else { 0 };
    let first = first ^ flip;
    let len = if first != 0xff {
        (first ^ 0xff).leading_zeros() as usize
    } else {
        let second = b.get(1)? ^ flip;
        if second < 0x80 {
            8
        } else if second < 0xc0 {
            9
        } else if second == 0xc0 && b.get(2)? ^ flip < 0x80 {
            10
        } else {
            return None;
        }
    };
    if len == 0 || b.len() < len {
        return None;
    }
    let (digits, rest) = b.split_at(len);
    let start = len.saturating_sub(8);
    let mut x: u64 = if negative { u64::MAX } else { 0 };
    for &d in digits.get(start..)? {
        x = (x << 8) | u64::from(d);
    }
    x ^= MASKS.get(len).copied()?;
    Some((x as i64, rest))
}

/// Extents ((start, length) per axis, length -1 for a whole axis) as
/// numpy writes the slice: `[4:7, :]` (from element 4 up to 7, all of
/// the second axis).
pub fn extents_text(extents: &[(i64, i64)]) -> String {
    let parts: Vec<String> = extents
        .iter()
        .map(|&(start, len)| {
            if len == -1 {
                ":".to_string()
            } else {
                format!("{start}:{}", start.saturating_add(len))
            }
        })
        .collect();
    format!("[{}]", parts.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slice_keys_as_tensorflow_writes_them() {
        // `w` rows 0..4 of [10, 3], as the partitioned fixture's first key.
        let k = parse_slice_key(b"\x00w\x00\x01\x01\x02\x80\x84\x80\x83").unwrap();
        assert_eq!(k.name, b"w");
        assert_eq!(k.extents, vec![(0, 4), (0, 3)]);
        // -1 (the whole axis), and numbers of two and three bytes
        // (ordered_code_test.cc: 64 = 0xc0 0x40, -65 = 0x3f 0xbf,
        // 8191 = 0xdf 0xff, 8192 = 0xe0 0x20 0x00).
        assert_eq!(read_signed_num_increasing(&[0x7f]), Some((-1, &[][..])));
        assert_eq!(
            read_signed_num_increasing(&[0xc0, 0x40]),
            Some((64, &[][..]))
        );
        assert_eq!(
            read_signed_num_increasing(&[0x3f, 0xbf]),
            Some((-65, &[][..]))
        );
        assert_eq!(
            read_signed_num_increasing(&[0xdf, 0xff]),
            Some((8191, &[][..]))
        );
        assert_eq!(
            read_signed_num_increasing(&[0xe0, 0x20, 0x00]),
            Some((8192, &[][..]))
        );
        assert_eq!(
            read_signed_num_increasing(&[
                0xff, 0xc0, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff
            ]),
            Some((i64::MAX, &[][..]))
        );
        // A rank the bytes cannot hold is refused before any allocation.
        assert!(parse_slice_key(b"\x00w\x00\x01\x04\x7f\xff\xff\xff").is_none());
    }

    #[test]
    fn slice_keys_name_their_tensor() {
        assert_eq!(
            slice_key_name(b"\x00w\x00\x01\x01\x01\x80\x7f"),
            Some(b"w".to_vec())
        );
        assert_eq!(
            slice_key_name(b"\x00a\x00\xffb\xff\x00\x00\x01\x00"),
            Some(b"a\x00b\xff".to_vec())
        );
        assert_eq!(slice_key_name(b"model/w"), None);
        assert_eq!(slice_key_name(b"\x00w"), None);
    }
}

//! CRC32C (Castagnoli), the checksum of TensorFlow's tensor bundles and
//! record files, with TensorFlow's mask.
//!
//! TensorFlow stores CRCs "masked" (`tensorflow/core/lib/hash/crc32c.h`):
//! a CRC computed over data that itself contains CRCs is a poor checksum,
//! so the stored value is rotated right by 15 bits and offset by a
//! constant. The `crc32c` crate uses the SSE 4.2 / ARMv8 instruction where
//! the CPU has it and a table otherwise (it builds for wasm32 too);
//! `crc32fast` would be the wrong polynomial (IEEE CRC-32).

/// The constant TensorFlow adds when masking a CRC.
const MASK_DELTA: u32 = 0xa282_ead8;

/// The CRC32C of `bytes`.
pub fn crc32c(bytes: &[u8]) -> u32 {
    ::crc32c::crc32c(bytes)
}

/// The CRC32C of `bytes` continued from `crc` (the CRC of what came
/// before), so a value read in pieces is checked without joining them.
pub fn crc32c_extend(crc: u32, bytes: &[u8]) -> u32 {
    ::crc32c::crc32c_append(crc, bytes)
}

/// TensorFlow's masked form of a CRC, as stored in files.
pub fn mask(crc: u32) -> u32 {
    crc.rotate_right(15).wrapping_add(MASK_DELTA)
}

/// The CRC a masked value stands for.
pub fn unmask(masked: u32) -> u32 {
    masked.wrapping_sub(MASK_DELTA).rotate_left(15)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_values() {
        // RFC 3720 (iSCSI), B.4: 32 bytes of zeros and of 0xff.
        assert_eq!(crc32c(&[0u8; 32]), 0x8a91_36aa);
        assert_eq!(crc32c(&[0xffu8; 32]), 0x62a8_ab43);
        let ascending: Vec<u8> = (0u8..32).collect();
        assert_eq!(crc32c(&ascending), 0x46dd_794e);
        assert_eq!(
            crc32c_extend(crc32c(&ascending[..5]), &ascending[5..]),
            0x46dd_794e
        );
    }

    #[test]
    fn mask_round_trips_and_differs() {
        for crc in [0u32, 1, 0x8a91_36aa, u32::MAX] {
            assert_ne!(mask(crc), crc);
            assert_ne!(mask(mask(crc)), mask(crc));
            assert_eq!(unmask(mask(crc)), crc);
        }
        // As TensorFlow's own test (`crc32c_test.cc`, Mask): masking twice
        // is undone by unmasking twice.
        let crc = crc32c(b"foo");
        assert_eq!(unmask(unmask(mask(mask(crc)))), crc);
    }
}

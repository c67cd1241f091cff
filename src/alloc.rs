//! The one allocation of buffers whose size comes from input: every such
//! buffer is reserved here, exactly and fallibly, so that an impossible size
//! is an error ([`AllocError`]) and never an abort of the process. What a
//! file can make the library allocate is bounded by the checks of each
//! format (a size is read from the bytes it describes); this module turns
//! what the machine still refuses into an error the caller reports
//! (`memory` in JSON errors, `MemoryError` in Python), as numpy does.

use crate::error::AllocError;

/// The most bytes one buffer may hold: `isize::MAX`, the most a Rust
/// allocation (and a numpy array) can be.
const MAX_BYTES: u64 = isize::MAX as u64;

/// The bytes `n` elements of `T` take, refused past what one buffer can
/// hold.
pub fn bytes_of<T>(n: u64) -> Result<u64, AllocError> {
    n.checked_mul(size_of::<T>() as u64)
        .filter(|&b| b <= MAX_BYTES)
        .ok_or(AllocError::TooBig {
            elements: n,
            width: size_of::<T>() as u64,
        })
}

/// An empty buffer with room for exactly `n` elements, or the error.
pub fn buffer<T>(n: u64) -> Result<Vec<T>, AllocError> {
    let mut v = Vec::new();
    reserve(&mut v, n)?;
    Ok(v)
}

/// `n` copies of `value` in one allocation, or the error.
pub fn filled<T: Clone>(n: u64, value: T) -> Result<Vec<T>, AllocError> {
    let mut v = buffer(n)?;
    v.resize(usize::try_from(n).unwrap_or(0), value);
    Ok(v)
}

/// Room for `more` elements past `v`'s length, reserved exactly, or the
/// error (`v` is left as it was).
pub fn reserve<T>(v: &mut Vec<T>, more: u64) -> Result<(), AllocError> {
    let total = (v.len() as u64).saturating_add(more);
    let bytes = bytes_of::<T>(total)?;
    let more = usize::try_from(more).map_err(|_| AllocError::Failed { bytes })?;
    v.try_reserve_exact(more)
        .map_err(|_| AllocError::Failed { bytes })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_impossible_size_is_an_error_not_an_abort() {
        assert_eq!(
            buffer::<u64>(1 << 62),
            Err(AllocError::TooBig {
                elements: 1 << 62,
                width: 8
            })
        );
        assert!(matches!(
            buffer::<u8>(isize::MAX as u64),
            Err(AllocError::Failed { .. })
        ));
        assert_eq!(filled(3, 7u8).unwrap_or_default(), vec![7, 7, 7]);
        let mut v = vec![1u32];
        assert!(reserve(&mut v, u64::MAX).is_err());
        assert_eq!(v, vec![1]);
    }
}

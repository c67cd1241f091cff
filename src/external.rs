//! External data: tensor values kept in a side file (`location`, `offset`,
//! `length`, `checksum`), resolved relative to the tensor file's folder.

use crate::input::{InputBytes, map_file};
use sha1::{Digest, Sha1};
use std::path::{Component, Path};

/// Where a tensor's values are outside the file, as the tensor says.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ExternalRef {
    pub location: Option<String>,
    pub offset: Option<String>,
    pub length: Option<String>,
    pub checksum: Option<String>,
    /// The bytes the values need (None when unknown, e.g. strings).
    pub needed: Option<u64>,
}

/// The mapped side file and the range of it that holds the values.
pub struct ExternalBytes {
    file: InputBytes,
    start: usize,
    end: usize,
}

impl ExternalBytes {
    pub fn bytes(&self) -> &[u8] {
        self.file.bytes().get(self.start..self.end).unwrap_or(&[])
    }
}

fn parse_u64(what: &str, text: &Option<String>) -> Result<Option<u64>, String> {
    match text {
        None => Ok(None),
        Some(t) => t
            .trim()
            .parse::<u64>()
            .map(Some)
            .map_err(|_| format!("{what} {t:?} is not a number")),
    }
}

impl ExternalRef {
    /// Checks the location, maps the side file, checks bounds, length and
    /// SHA-1. The error says why the values are not available.
    pub fn load(&self, dir: Option<&Path>) -> Result<ExternalBytes, String> {
        let location = self
            .location
            .as_deref()
            .ok_or("external_data has no location")?;
        let rel = Path::new(location);
        let escapes = rel.is_absolute()
            || location.starts_with('/')
            || location.starts_with('\\')
            || location.contains(':')
            || rel
                .components()
                .any(|c| !matches!(c, Component::Normal(_) | Component::CurDir))
            || location.split(['/', '\\']).any(|part| part == "..");
        if escapes {
            return Err(format!("location {location:?} escapes the tensor's folder"));
        }
        let dir =
            dir.ok_or("external data cannot be read: the input has no folder (standard input)")?;
        let path = dir.join(rel);
        let file = map_file(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let size = file.bytes().len() as u64;
        let offset = parse_u64("offset", &self.offset)?.unwrap_or(0);
        let length = parse_u64("length", &self.length)?;
        if offset > size {
            return Err(format!(
                "offset {offset} is past the end of {location} ({size} bytes)"
            ));
        }
        let available = size - offset;
        let length = match length {
            Some(l) if l > available => {
                return Err(format!(
                    "{location} is short: {l} bytes at offset {offset}, {available} there"
                ));
            }
            Some(l) => l,
            None => available,
        };
        if let Some(needed) = self.needed {
            let fits = if self.length.is_some() {
                length == needed
            } else {
                length >= needed
            };
            if !fits {
                return Err(format!(
                    "external data is {length} bytes, the shape needs {needed}"
                ));
            }
        }
        let take = match (self.length.is_some(), self.needed) {
            (false, Some(needed)) => needed,
            _ => length,
        };
        let start = usize::try_from(offset).map_err(|_| "offset too large".to_string())?;
        let end = usize::try_from(offset + take).map_err(|_| "length too large".to_string())?;
        let ext = ExternalBytes { file, start, end };
        if let Some(expected) = &self.checksum {
            // ONNX's writers hash the tensor's own bytes (offset..offset+length);
            // upstream onnx.proto words it as "SHA1 digest of file", so a hash
            // of the whole side file is accepted too.
            let hex = |bytes: &[u8]| -> String {
                Sha1::digest(bytes)
                    .iter()
                    .map(|b| format!("{b:02x}"))
                    .collect()
            };
            let range_end = start.saturating_add(usize::try_from(length).unwrap_or(usize::MAX));
            let got = hex(ext.file.bytes().get(start..range_end).unwrap_or(&[]));
            let expected = expected.trim();
            if !got.eq_ignore_ascii_case(expected)
                && !hex(ext.file.bytes()).eq_ignore_ascii_case(expected)
            {
                return Err(format!(
                    "SHA-1 mismatch: {location} has {got}, the tensor says {expected}"
                ));
            }
        }
        Ok(ext)
    }
}

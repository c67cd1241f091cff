//! External data: tensor values kept in a side file (`location`, `offset`,
//! `length`, `checksum`), resolved relative to the tensor file's folder: a
//! folder on disk, or files held in memory by their paths (the files
//! dropped together on the static page), under the same rules.
//!
//! The location must stay inside that folder (on disk, once every symbolic
//! link is resolved, not only as text; in memory, a name matched exactly),
//! must be a regular file (a FIFO would block forever), and a checksum is
//! the SHA-1 of the tensor's byte range, computed once per (file, offset,
//! length).

use crate::input::{InputBytes, Link, identity, kind_name, open_read, opened_path};
use sha1::{Digest, Sha1};
use std::collections::{BTreeMap, HashMap};
use std::fs::Metadata;
use std::io;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Where a tensor file's side files are read from.
#[derive(Debug, Clone)]
pub enum Folder {
    /// A folder on disk.
    Disk(PathBuf),
    /// A folder of files held in memory.
    Memory(MemoryFolder),
}

impl Folder {
    /// The names of the files directly in the folder, sorted, for a format
    /// that finds its side files by listing them (a tensor bundle's index
    /// among `*.index`): on disk the entries that are regular files once
    /// links are followed, in memory the files given in this folder. Only
    /// names are listed; each file is read as any side file is (confined
    /// to the folder, links resolved, a regular file). A name that is not
    /// UTF-8, which no side file's location can spell, is left out.
    pub fn file_names(&self) -> Vec<String> {
        let mut names: Vec<String> = match self {
            Folder::Disk(dir) => std::fs::read_dir(dir)
                .into_iter()
                .flatten()
                .filter_map(|e| e.ok())
                .filter(|e| std::fs::metadata(e.path()).is_ok_and(|m| m.is_file()))
                .filter_map(|e| e.file_name().into_string().ok())
                .collect(),
            Folder::Memory(folder) => folder.file_names(),
        };
        names.sort();
        names
    }
}

impl From<PathBuf> for Folder {
    fn from(dir: PathBuf) -> Self {
        Folder::Disk(dir)
    }
}

/// Files held in memory, named by their paths (`/` between components)
/// inside the folder they were given in, and one folder of them.
#[derive(Clone)]
pub struct MemoryFolder {
    files: Arc<BTreeMap<String, Arc<InputBytes>>>,
    /// This folder's path among them (`a/b`; empty for the top).
    at: String,
}

impl std::fmt::Debug for MemoryFolder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "MemoryFolder({:?} of {} files)",
            self.at,
            self.files.len()
        )
    }
}

impl MemoryFolder {
    /// The folder `at` (a path of plain components, `/` between them;
    /// empty for the top) among `files`.
    pub fn new(files: Arc<BTreeMap<String, Arc<InputBytes>>>, at: &str) -> Self {
        MemoryFolder {
            files,
            at: at.trim_matches('/').to_string(),
        }
    }

    /// The files directly in this folder (not in a folder inside it).
    fn file_names(&self) -> Vec<String> {
        let prefix = if self.at.is_empty() {
            String::new()
        } else {
            format!("{}/", self.at)
        };
        self.files
            .range(prefix.clone()..)
            .map(|(name, _)| name)
            .take_while(|name| name.starts_with(&prefix))
            .filter_map(|name| name.get(prefix.len()..))
            .filter(|rest| !rest.is_empty() && !rest.contains('/'))
            .map(str::to_string)
            .collect()
    }

    /// The file `rel` (plain components and `.`, checked by the caller)
    /// names in this folder, matched exactly: no `..`, no case folding.
    fn get(&self, rel: &Path) -> Option<(String, Arc<InputBytes>)> {
        let mut name = self.at.clone();
        for c in rel.components() {
            if let Component::Normal(part) = c {
                if !name.is_empty() {
                    name.push('/');
                }
                name.push_str(part.to_str()?);
            }
        }
        let bytes = self.files.get(&name)?.clone();
        Some((name, bytes))
    }
}

/// Why a tensor's external values are not available.
#[non_exhaustive]
#[derive(Debug, thiserror::Error)]
pub enum ExternalError {
    /// The tensor names no file.
    #[error("external_data has no location")]
    NoLocation,
    /// The location is absolute, names a drive or climbs out with `..`.
    #[error("location {location:?} escapes the tensor's folder")]
    Escapes { location: String },
    /// The location, with every link resolved, is outside the folder.
    #[error(
        "location {location:?} leads out of the tensor's folder through a symbolic link (to {})",
        target.display()
    )]
    LinkEscapes { location: String, target: PathBuf },
    /// The input came from standard input, so there is no folder to look in.
    #[error("external data cannot be read: the input has no folder (standard input)")]
    NoFolder,
    /// The location is a folder, FIFO, device or socket.
    #[error("{location} is {kind}, not a regular file")]
    NotRegular {
        location: String,
        kind: &'static str,
    },
    /// The location is none of the files given with the tensor's file (in
    /// memory: the files dropped together on the page).
    #[error("{location} is not among the files given with this one")]
    Missing { location: String },
    /// The tensor's folder cannot be resolved.
    #[error("cannot read the folder {}: {source}", folder.display())]
    Folder { folder: PathBuf, source: io::Error },
    /// The file is missing or cannot be opened, resolved or mapped.
    #[error("cannot read {}: {source}", path.display())]
    Io { path: PathBuf, source: io::Error },
    /// `offset` or `length` is not a decimal number.
    #[error("{what} {text:?} is not a number")]
    NotANumber { what: &'static str, text: String },
    /// `offset` is past the end of the file.
    #[error("offset {offset} is past the end of {location} ({size} bytes)")]
    OffsetPastEnd {
        location: String,
        offset: u64,
        size: u64,
    },
    /// The file has fewer bytes at `offset` than `length` says.
    #[error("{location} is short: {length} bytes at offset {offset}, {available} there")]
    Short {
        location: String,
        length: u64,
        offset: u64,
        available: u64,
    },
    /// The range holds another number of bytes than the shape needs.
    #[error("external data is {length} bytes, the shape needs {needed}")]
    SizeMismatch { length: u64, needed: u64 },
    /// The masked CRC32C of the range is not the one stored.
    #[error("CRC32C mismatch: {location} has {got:08x} (masked), the index says {expected:08x}")]
    Crc32cMismatch {
        location: String,
        got: u32,
        expected: u32,
    },
    /// `offset` or `length` does not fit this machine's addresses.
    #[error("{what} too large")]
    TooLarge { what: &'static str },
    /// The SHA-1 of the range is not the tensor's `checksum`.
    #[error("SHA-1 mismatch: {location} has {got}, the tensor says {expected}")]
    ChecksumMismatch {
        location: String,
        got: String,
        expected: String,
    },
}

/// Opens `dir/rel` if, with every link resolved, it is a regular file
/// inside `dir`, and maps it.
fn open_inside(
    dir: &Path,
    rel: &Path,
    location: &str,
) -> Result<(InputBytes, Metadata), ExternalError> {
    let path = dir.join(rel);
    let cannot = |source: io::Error| ExternalError::Io {
        path: path.clone(),
        source,
    };
    let folder = std::fs::canonicalize(dir).map_err(|source| ExternalError::Folder {
        folder: dir.to_path_buf(),
        source,
    })?;
    let real = std::fs::canonicalize(&path).map_err(cannot)?;
    let outside = || ExternalError::LinkEscapes {
        location: location.to_string(),
        target: real.clone(),
    };
    if !real.starts_with(&folder) {
        return Err(outside());
    }
    // No link followed at the last step, and no wait on a FIFO.
    let opened = open_read(&real, Link::NoFollow).map_err(cannot)?;
    if opened_path(opened.file()).is_some_and(|p| !p.starts_with(&folder)) {
        return Err(outside());
    }
    let meta = opened.metadata().clone();
    if !meta.is_file() {
        return Err(ExternalError::NotRegular {
            location: location.to_string(),
            kind: kind_name(&meta),
        });
    }
    let bytes = opened.map().map_err(cannot)?;
    Ok((bytes, meta))
}

/// (device, inode, file size, offset, length) -> the SHA-1 in hex.
type DigestKey = (u64, u64, u64, u64, u64);
static DIGESTS: Mutex<Option<HashMap<DigestKey, String>>> = Mutex::new(None);

/// The SHA-1 (hex) of `length` bytes at `offset` of the file `meta`
/// describes (a file on disk: cached per (file, offset, length); None, a
/// file in memory: not cached), `bytes` giving them.
fn range_sha1<'b>(
    meta: Option<&Metadata>,
    offset: u64,
    length: u64,
    bytes: impl FnOnce() -> &'b [u8],
) -> String {
    let key = meta.and_then(|meta| {
        identity(meta).map(|(dev, ino, ..)| (dev, ino, meta.len(), offset, length))
    });
    if let Some(key) = key
        && let Ok(cache) = DIGESTS.lock()
        && let Some(hex) = cache.as_ref().and_then(|c| c.get(&key))
    {
        return hex.clone();
    }
    let bytes = bytes();
    #[cfg(test)]
    tests::HASHED.with(|h| h.set(h.get() + bytes.len() as u64));
    let hex: String = Sha1::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    if let Some(key) = key
        && let Ok(mut cache) = DIGESTS.lock()
    {
        cache
            .get_or_insert_with(HashMap::new)
            .insert(key, hex.clone());
    }
    hex
}

/// (device, inode, file size, offset, length) -> the masked CRC32C.
static CRCS: Mutex<Option<HashMap<DigestKey, u32>>> = Mutex::new(None);

/// The masked CRC32C of `length` bytes at `offset` of the file `meta`
/// describes, `bytes` giving them; cached per (file, offset, length).
fn range_crc32c<'b>(
    meta: Option<&Metadata>,
    offset: u64,
    length: u64,
    bytes: impl FnOnce() -> &'b [u8],
) -> u32 {
    let key = meta.and_then(|meta| {
        identity(meta).map(|(dev, ino, ..)| (dev, ino, meta.len(), offset, length))
    });
    if let Some(key) = key
        && let Ok(cache) = CRCS.lock()
        && let Some(crc) = cache.as_ref().and_then(|c| c.get(&key))
    {
        return *crc;
    }
    let crc = crate::checksum::mask(crate::checksum::crc32c(bytes()));
    if let Some(key) = key
        && let Ok(mut cache) = CRCS.lock()
    {
        cache.get_or_insert_with(HashMap::new).insert(key, crc);
    }
    crc
}

/// Where a tensor's values are outside the file, as the tensor says.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ExternalRef {
    pub location: Option<String>,
    pub offset: Option<String>,
    pub length: Option<String>,
    pub checksum: Option<String>,
    /// The bytes the values need (None when unknown, e.g. strings).
    pub needed: Option<u64>,
    /// The masked CRC32C of the range (TensorFlow's tensor bundles), checked
    /// on every load.
    pub crc32c: Option<u32>,
}

/// The mapped side file and the range of it that holds the values.
pub struct ExternalBytes {
    file: Arc<InputBytes>,
    start: usize,
    end: usize,
}

impl ExternalBytes {
    pub fn bytes(&self) -> &[u8] {
        self.file.bytes().get(self.start..self.end).unwrap_or(&[])
    }

    /// The side file and the offset of `part`, a slice of [`Self::bytes`].
    pub fn file_range(&self, part: &[u8]) -> Option<(&std::fs::File, u64)> {
        self.file.file_range(part)
    }
}

fn parse_u64(what: &'static str, text: &Option<String>) -> Result<Option<u64>, ExternalError> {
    match text {
        None => Ok(None),
        Some(t) => t
            .trim()
            .parse::<u64>()
            .map(Some)
            .map_err(|_| ExternalError::NotANumber {
                what,
                text: t.clone(),
            }),
    }
}

impl ExternalRef {
    /// Checks the location, maps the side file, checks bounds, length and
    /// SHA-1. The error says why the values are not available.
    pub fn load(&self, dir: Option<&Folder>) -> Result<ExternalBytes, ExternalError> {
        let location = self.location.as_deref().ok_or(ExternalError::NoLocation)?;
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
            return Err(ExternalError::Escapes {
                location: location.to_string(),
            });
        }
        let (file, meta) = match dir.ok_or(ExternalError::NoFolder)? {
            Folder::Disk(dir) => {
                let (file, meta) = open_inside(dir, rel, location)?;
                (Arc::new(file), Some(meta))
            }
            Folder::Memory(folder) => {
                let (_, file) = folder.get(rel).ok_or_else(|| ExternalError::Missing {
                    location: location.to_string(),
                })?;
                (file, None)
            }
        };
        let size = file.bytes().len() as u64;
        let offset = parse_u64("offset", &self.offset)?.unwrap_or(0);
        let length = parse_u64("length", &self.length)?;
        if offset > size {
            return Err(ExternalError::OffsetPastEnd {
                location: location.to_string(),
                offset,
                size,
            });
        }
        let available = size - offset;
        let length = match length {
            Some(l) if l > available => {
                return Err(ExternalError::Short {
                    location: location.to_string(),
                    length: l,
                    offset,
                    available,
                });
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
                return Err(ExternalError::SizeMismatch { length, needed });
            }
        }
        let take = match (self.length.is_some(), self.needed) {
            (false, Some(needed)) => needed,
            _ => length,
        };
        let too_large = |what| move |_| ExternalError::TooLarge { what };
        let start = usize::try_from(offset).map_err(too_large("offset"))?;
        let end = usize::try_from(offset + take).map_err(too_large("length"))?;
        let ext = ExternalBytes { file, start, end };
        if let Some(expected) = self.crc32c {
            // The range as stored (TensorFlow checks it whole, before any
            // conversion); computed once per (file, offset, length) however
            // many passes (listing, values, statistics) load it.
            let got = range_crc32c(meta.as_ref(), offset, take, || ext.bytes());
            if got != expected {
                return Err(ExternalError::Crc32cMismatch {
                    location: location.to_string(),
                    got,
                    expected,
                });
            }
        }
        if let Some(expected) = &self.checksum {
            // The SHA-1 of the tensor's own bytes (offset..offset+length), as
            // ONNX's writers compute it; hashed once per (file, offset,
            // length) however many tensors or passes ask.
            let range_end = start
                .checked_add(usize::try_from(length).map_err(too_large("length"))?)
                .ok_or(ExternalError::TooLarge { what: "length" })?;
            let got = range_sha1(meta.as_ref(), offset, length, || {
                ext.file.bytes().get(start..range_end).unwrap_or(&[])
            });
            let expected = expected.trim();
            if !got.eq_ignore_ascii_case(expected) {
                return Err(ExternalError::ChecksumMismatch {
                    location: location.to_string(),
                    got,
                    expected: expected.to_string(),
                });
            }
        }
        Ok(ext)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    thread_local! {
        /// Bytes hashed on this thread.
        pub(super) static HASHED: Cell<u64> = const { Cell::new(0) };
    }

    fn hex(bytes: &[u8]) -> String {
        Sha1::digest(bytes)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }

    /// The messages of the failures without a snapshot of their own, as
    /// the user reads them.
    #[cfg(unix)]
    #[test]
    fn a_link_out_of_the_folder_and_a_folder_are_refused_in_words() {
        let root = std::env::temp_dir().join(format!("pbdecode-ext-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let dir = root.join("model");
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        std::fs::write(root.join("secret.bin"), [0u8; 8]).unwrap();
        std::os::unix::fs::symlink(root.join("secret.bin"), dir.join("w.bin")).unwrap();
        let load = |location: &str| {
            ExternalRef {
                location: Some(location.into()),
                ..ExternalRef::default()
            }
            .load(Some(&Folder::Disk(dir.clone())))
            .err()
            .unwrap()
        };
        let real = std::fs::canonicalize(root.join("secret.bin")).unwrap();
        let err = load("w.bin");
        assert!(matches!(err, ExternalError::LinkEscapes { .. }), "{err:?}");
        assert_eq!(
            err.to_string(),
            format!(
                "location \"w.bin\" leads out of the tensor's folder through a symbolic link (to {})",
                real.display()
            )
        );
        let err = load("sub");
        assert_eq!(
            err.to_string(),
            format!(
                "cannot read {}: is a directory, not a file",
                dir.join("sub").display()
            )
        );
        let err = load("../secret.bin");
        assert_eq!(
            err.to_string(),
            "location \"../secret.bin\" escapes the tensor's folder"
        );
        let err = ExternalRef {
            location: Some("secret.bin".into()),
            offset: Some("x".into()),
            ..ExternalRef::default()
        }
        .load(Some(&Folder::Disk(root.clone())))
        .err()
        .unwrap();
        assert_eq!(err.to_string(), "offset \"x\" is not a number");
        let _ = std::fs::remove_dir_all(&root);
    }

    /// Files in memory (the page's dropped folder) under the rules of a
    /// folder on disk: only names inside the tensor's folder, matched
    /// exactly; `..` refused before any lookup; length and SHA-1 checked.
    #[test]
    fn side_files_in_memory_are_confined_to_the_folder() {
        let data: Vec<u8> = (0..64u8).collect();
        let files: BTreeMap<String, Arc<InputBytes>> = [
            ("model/model.onnx", vec![1u8]),
            ("model/w.bin", data.clone()),
            ("model/sub/x.bin", vec![7u8; 4]),
            ("secret.bin", vec![9u8; 64]),
        ]
        .into_iter()
        .map(|(n, b)| (n.to_string(), Arc::new(InputBytes::Owned(b))))
        .collect();
        let files = Arc::new(files);
        let model = Folder::Memory(MemoryFolder::new(files.clone(), "model"));
        let load = |folder: &Folder, location: &str, checksum: Option<String>| {
            ExternalRef {
                location: Some(location.into()),
                offset: Some("16".into()),
                length: Some("4".into()),
                checksum,
                needed: Some(4),
                ..ExternalRef::default()
            }
            .load(Some(folder))
        };
        assert_eq!(load(&model, "w.bin", None).unwrap().bytes(), &data[16..20]);
        assert_eq!(
            load(&model, "./w.bin", None).unwrap().bytes(),
            &data[16..20]
        );
        let sha = Some(hex(&data[16..20]));
        assert_eq!(load(&model, "w.bin", sha).unwrap().bytes(), &data[16..20]);
        let err = load(&model, "w.bin", Some("0".repeat(40))).err().unwrap();
        assert!(
            matches!(err, ExternalError::ChecksumMismatch { .. }),
            "{err}"
        );
        let err = load(&model, "../secret.bin", None).err().unwrap();
        assert!(matches!(err, ExternalError::Escapes { .. }), "{err}");
        let err = load(&model, "/secret.bin", None).err().unwrap();
        assert!(matches!(err, ExternalError::Escapes { .. }), "{err}");
        // Exact names: no other case, no folder, nothing outside.
        for location in ["W.BIN", "sub", "secret.bin", "model/w.bin"] {
            let err = load(&model, location, None).err().unwrap();
            assert!(
                matches!(err, ExternalError::Missing { .. }),
                "{location}: {err}"
            );
            assert_eq!(
                err.to_string(),
                format!("{location} is not among the files given with this one")
            );
        }
        let sub = load(&model, "sub/x.bin", None).err().unwrap();
        assert!(matches!(sub, ExternalError::OffsetPastEnd { .. }), "{sub}");
        // The top folder sees its own files.
        let top = Folder::Memory(MemoryFolder::new(files, ""));
        assert_eq!(load(&top, "secret.bin", None).unwrap().bytes(), &[9u8; 4]);
    }

    /// A folder lists only its own files: in memory, none of a folder
    /// inside it or beside it; on disk, no folder, and a link out of it is
    /// listed but not read.
    #[test]
    fn a_folder_lists_its_own_files() {
        let files: BTreeMap<String, Arc<InputBytes>> = [
            "model.index",
            "model/a.index",
            "model/b.data",
            "model/sub/c.index",
            "modelx/d.index",
        ]
        .into_iter()
        .map(|n| (n.to_string(), Arc::new(InputBytes::Owned(vec![1]))))
        .collect();
        let files = Arc::new(files);
        let model = Folder::Memory(MemoryFolder::new(files.clone(), "model"));
        assert_eq!(model.file_names(), ["a.index", "b.data"]);
        let top = Folder::Memory(MemoryFolder::new(files.clone(), ""));
        assert_eq!(top.file_names(), ["model.index"]);
        let sub = Folder::Memory(MemoryFolder::new(files, "model/sub"));
        assert_eq!(sub.file_names(), ["c.index"]);
        #[cfg(unix)]
        {
            let root = std::env::temp_dir().join(format!("pbdecode-list-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&root);
            let dir = root.join("model");
            std::fs::create_dir_all(dir.join("sub")).unwrap();
            std::fs::write(dir.join("a.index"), [1u8]).unwrap();
            std::fs::write(root.join("outside.index"), [2u8]).unwrap();
            std::os::unix::fs::symlink(root.join("outside.index"), dir.join("link.index")).unwrap();
            let disk = Folder::Disk(dir.clone());
            assert_eq!(disk.file_names(), ["a.index", "link.index"]);
            let link = ExternalRef {
                location: Some("link.index".into()),
                ..ExternalRef::default()
            };
            let err = link.load(Some(&disk)).err().unwrap();
            assert!(matches!(err, ExternalError::LinkEscapes { .. }), "{err}");
            let _ = std::fs::remove_dir_all(&root);
        }
    }

    #[test]
    fn a_checksum_hashes_the_range_once() {
        let dir = std::env::temp_dir().join(format!("pbdecode-sha-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let data: Vec<u8> = (0..1u32 << 20).map(|i| (i % 251) as u8).collect();
        std::fs::write(dir.join("w.bin"), &data).unwrap();
        let range = &data[4096..4096 + 64];
        let mut r = ExternalRef {
            location: Some("w.bin".into()),
            offset: Some("4096".into()),
            length: Some("64".into()),
            checksum: Some("0".repeat(40)),
            needed: Some(64),
            crc32c: None,
        };
        HASHED.with(|h| h.set(0));
        for _ in 0..3 {
            let err = r.load(Some(&Folder::Disk(dir.clone()))).err().unwrap();
            assert!(
                matches!(&err, ExternalError::ChecksumMismatch { got, .. } if *got == hex(range)),
                "{err}"
            );
        }
        // Three loads of a wrong checksum: 64 bytes hashed once, never the
        // whole megabyte.
        assert_eq!(HASHED.with(Cell::get), 64);
        // The right one is accepted; the whole file's hash is not.
        r.checksum = Some(hex(range).to_uppercase());
        assert_eq!(
            r.load(Some(&Folder::Disk(dir.clone()))).unwrap().bytes(),
            range
        );
        r.checksum = Some(hex(&data));
        assert!(r.load(Some(&Folder::Disk(dir.clone()))).is_err());
        assert_eq!(HASHED.with(Cell::get), 64);
        let _ = std::fs::remove_dir_all(&dir);
    }
}

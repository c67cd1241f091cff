//! What the explorer may show: the PATHs it was started with (files, and
//! files inside folders, never outside them) and the files dropped on the
//! page (kept in memory, or in a private temporary file that is unlinked
//! as soon as it is created, so nothing is left behind however the server
//! stops).

use crate::explore::{ExploredFile, Listed};
use crate::external::Folder;
use crate::input::{
    FileId, InputBytes, Link, Opened, identity, kind_name, map_handle, open_read, opened_path,
};
use std::collections::HashMap;
use std::fs::{File, Metadata};
use std::io::{self, Write};
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// The most files listed from the folders given.
pub const MAX_LISTED: usize = 100_000;
/// Uploads up to this size are kept in memory; larger ones in a temporary
/// file.
pub const MEMORY_UPLOAD: u64 = 64 << 20;
/// Served files kept mapped between requests.
const CACHE: usize = 64;

/// A file root given on the command line.
#[derive(Debug, Clone)]
pub struct Root {
    /// As given (for display).
    pub given: PathBuf,
    /// Canonical path.
    pub canonical: PathBuf,
    pub is_dir: bool,
}

/// A served file opened, with the stamp of the file it was mapped from.
struct Served {
    stamp: Stamp,
    file: Arc<ExploredFile>,
}

pub struct Files {
    pub roots: Vec<Root>,
    served: Mutex<HashMap<String, Served>>,
    uploads: Mutex<HashMap<String, Arc<ExploredFile>>>,
    next_upload: AtomicU64,
}

/// Why a file is not served.
#[derive(Debug)]
pub enum Refusal {
    /// 404: no such file among those served.
    NotFound(String),
    /// 403: outside the given PATHs.
    Forbidden(String),
    /// 409: cut short by another program under its map.
    CutShort(String),
    Io(io::Error),
}

/// What tells a file's versions apart: its identity (device, inode,
/// change time), length and modification time.
type Stamp = (Option<FileId>, u64, Option<std::time::SystemTime>);

fn stamp(meta: &Metadata) -> Stamp {
    (identity(meta), meta.len(), meta.modified().ok())
}

/// Opens a served file, root file or folder entry alike: `path`, checked
/// by [`Files::resolve`], is opened without following a link in its last
/// component (nor blocking on a FIFO), and the file opened must still be
/// where the check said, the root file itself or a file inside the root
/// folder (its real path on Linux; elsewhere, the identity of what the
/// path resolves to now), and a regular file. A file swapped for a link or
/// moved out after the check is refused, not read through.
fn open_checked(key: &str, path: &Path, root: &Root) -> Result<Opened, Refusal> {
    let inside = |p: &Path| {
        if root.is_dir {
            p.starts_with(&root.canonical)
        } else {
            p == root.canonical
        }
    };
    let moved = || Refusal::Forbidden(format!("{key:?} was moved or replaced by a link"));
    let opened = open_read(path, Link::NoFollow).map_err(|e| {
        if e.raw_os_error() == Some(libc::ELOOP) {
            moved()
        } else {
            Refusal::Io(e)
        }
    })?;
    let meta = opened.metadata();
    match opened_path(opened.file()) {
        Some(real) if !inside(&real) => return Err(moved()),
        Some(_) => {}
        None => {
            let now = std::fs::canonicalize(path).map_err(|_| moved())?;
            let same = std::fs::metadata(&now)
                .ok()
                .and_then(|m| identity(&m))
                .is_some_and(|id| identity(meta) == Some(id));
            if !inside(&now) || !same {
                return Err(moved());
            }
        }
    }
    if !meta.is_file() {
        return Err(Refusal::NotFound(format!(
            "{key:?} is {}, not a regular file",
            kind_name(meta)
        )));
    }
    Ok(opened)
}

impl Files {
    /// Checks the PATHs given (each must exist).
    pub fn new(paths: &[PathBuf]) -> io::Result<Files> {
        let mut roots = Vec::new();
        for p in paths {
            let canonical = std::fs::canonicalize(p)
                .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", p.display())))?;
            let is_dir = canonical.is_dir();
            roots.push(Root {
                given: p.clone(),
                canonical,
                is_dir,
            });
        }
        Ok(Files {
            roots,
            served: Mutex::new(HashMap::new()),
            uploads: Mutex::new(HashMap::new()),
            next_upload: AtomicU64::new(1),
        })
    }

    /// Every file of the roots (folders walked without following links
    /// that leave them, without recursion, at most MAX_LISTED), then the
    /// uploads.
    pub fn list(&self) -> (Vec<Listed>, bool) {
        let mut out = Vec::new();
        let mut truncated = false;
        for (i, root) in self.roots.iter().enumerate() {
            if !root.is_dir {
                // Not through a link the file may have been swapped for.
                let size = std::fs::symlink_metadata(&root.canonical)
                    .map(|m| m.len())
                    .unwrap_or(0);
                out.push(Listed {
                    key: i.to_string(),
                    name: display_name(&root.given),
                    size,
                });
                continue;
            }
            let mut stack = vec![root.canonical.clone()];
            // (key, name shown, size)
            let mut found: Vec<(String, String, u64)> = Vec::new();
            while let Some(dir) = stack.pop() {
                let Ok(entries) = std::fs::read_dir(&dir) else {
                    continue;
                };
                for entry in entries.flatten() {
                    if found.len() >= MAX_LISTED {
                        truncated = true;
                        break;
                    }
                    let path = entry.path();
                    let Ok(ft) = entry.file_type() else { continue };
                    if ft.is_dir() {
                        stack.push(path);
                        continue;
                    }
                    // Files and links to files inside the root.
                    let Ok(canon) = std::fs::canonicalize(&path) else {
                        continue;
                    };
                    if !canon.starts_with(&root.canonical) || !canon.is_file() {
                        continue;
                    }
                    let Ok(rel) = path.strip_prefix(&root.canonical) else {
                        continue;
                    };
                    let size = std::fs::metadata(&canon).map(|m| m.len()).unwrap_or(0);
                    found.push((key_of(rel), rel.to_string_lossy().into_owned(), size));
                }
            }
            found.sort();
            let base = display_name(&root.given);
            for (key, rel, size) in found {
                out.push(Listed {
                    key: format!("{i}/{key}"),
                    name: format!("{base}/{rel}"),
                    size,
                });
            }
        }
        if let Ok(up) = self.uploads.lock() {
            let mut ups: Vec<Listed> = up
                .values()
                .map(|f| Listed {
                    key: f.key.clone(),
                    name: f.name.clone(),
                    size: f.bytes.bytes().len() as u64,
                })
                .collect();
            ups.sort_by(|a, b| a.key.cmp(&b.key));
            out.extend(ups);
        }
        (out, truncated)
    }

    /// The path a served key stands for, checked: a root's index, then a
    /// relative path of plain components whose canonical form stays inside
    /// the root.
    pub fn resolve(&self, key: &str) -> Result<PathBuf, Refusal> {
        let (index, rel) = match key.split_once('/') {
            Some((i, r)) => (i, Some(r)),
            None => (key, None),
        };
        let index: usize = index
            .parse()
            .map_err(|_| Refusal::NotFound(format!("no file {key:?}")))?;
        let root = self
            .roots
            .get(index)
            .ok_or_else(|| Refusal::NotFound(format!("no file {key:?}")))?;
        let path = match rel {
            None if !root.is_dir => root.canonical.clone(),
            None => return Err(Refusal::NotFound(format!("{key:?} is a folder"))),
            Some(_) if !root.is_dir => return Err(Refusal::NotFound(format!("no file {key:?}"))),
            Some(rel) => {
                if rel.contains('\\') || rel.contains('\0') {
                    return Err(Refusal::Forbidden(format!("bad path {rel:?}")));
                }
                let relp = path_of_key(rel).ok_or_else(|| {
                    Refusal::Forbidden(format!("{rel:?} is not a plain relative path"))
                })?;
                if relp
                    .components()
                    .any(|c| !matches!(c, Component::Normal(_)))
                {
                    return Err(Refusal::Forbidden(format!(
                        "{rel:?} is not a plain relative path"
                    )));
                }
                let joined = root.canonical.join(relp);
                let canon = std::fs::canonicalize(&joined)
                    .map_err(|_| Refusal::NotFound(format!("no file {key:?}")))?;
                if !canon.starts_with(&root.canonical) {
                    return Err(Refusal::Forbidden(format!(
                        "{rel:?} leads outside the served folder"
                    )));
                }
                canon
            }
        };
        if !path.is_file() {
            return Err(Refusal::NotFound(format!("no file {key:?}")));
        }
        Ok(path)
    }

    /// Opens a served file or an upload by key. A served file is opened
    /// by `open_checked` on every request and its map reused while it is
    /// the same file, unchanged and not cut short under the map.
    pub fn open(&self, key: &str) -> Result<Arc<ExploredFile>, Refusal> {
        if key.starts_with('u') {
            let upload = self
                .uploads
                .lock()
                .ok()
                .and_then(|u| u.get(key).cloned())
                .ok_or_else(|| Refusal::NotFound(format!("no open file {key:?}")))?;
            if upload.bytes.cut_short() {
                return Err(Refusal::CutShort(format!(
                    "the dropped file {:?} was cut short by another program; close it and drop it again",
                    upload.name
                )));
            }
            return Ok(upload);
        }
        let path = self.resolve(key)?;
        let root = key
            .split('/')
            .next()
            .and_then(|i| i.parse::<usize>().ok())
            .and_then(|i| self.roots.get(i))
            .ok_or_else(|| Refusal::NotFound(format!("no file {key:?}")))?;
        let opened = open_checked(key, &path, root)?;
        let now = stamp(opened.metadata());
        if let Some(f) = self.served.lock().ok().and_then(|s| {
            s.get(key)
                .filter(|s| s.stamp == now)
                .map(|s| s.file.clone())
        }) && !f.bytes.cut_short()
        {
            return Ok(f);
        }
        let bytes = opened.map().map_err(Refusal::Io)?;
        let file = Arc::new(ExploredFile::new(
            key.to_string(),
            path.file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
            Arc::new(bytes),
            path.parent().map(|p| Folder::Disk(p.to_path_buf())),
        ));
        if let Ok(mut s) = self.served.lock() {
            if s.len() >= CACHE {
                s.clear();
            }
            s.insert(
                key.to_string(),
                Served {
                    stamp: now,
                    file: file.clone(),
                },
            );
        }
        Ok(file)
    }

    /// Adds an upload that has been read whole.
    pub fn add_upload(&self, name: &str, bytes: InputBytes) -> Listed {
        let n = self.next_upload.fetch_add(1, Ordering::Relaxed);
        let key = format!("u{n}");
        let name: String = name.chars().filter(|c| !c.is_control()).take(200).collect();
        let size = bytes.bytes().len() as u64;
        // No folder: a dropped model's external data is not looked up.
        let file = Arc::new(ExploredFile::new(
            key.clone(),
            name.clone(),
            Arc::new(bytes),
            None,
        ));
        if let Ok(mut u) = self.uploads.lock() {
            u.insert(key.clone(), file);
        }
        Listed { key, name, size }
    }

    /// Closes an upload (its memory or temporary file goes when the last
    /// request using it ends).
    pub fn close(&self, key: &str) -> bool {
        self.uploads
            .lock()
            .ok()
            .and_then(|mut u| u.remove(key))
            .is_some()
    }

    /// How many uploads are open.
    pub fn uploads_open(&self) -> usize {
        self.uploads.lock().map(|u| u.len()).unwrap_or(0)
    }
}

/// The key of a relative path: its components joined by `/`, each as text
/// with `%` written `%25` and every byte that is not UTF-8 written `%XX`,
/// so that every name has a key of its own and [`path_of_key`] gives the
/// name back byte for byte.
fn key_of(rel: &Path) -> String {
    let mut key = String::new();
    for (k, c) in rel.components().enumerate() {
        if k > 0 {
            key.push('/');
        }
        for chunk in c.as_os_str().as_encoded_bytes().utf8_chunks() {
            for ch in chunk.valid().chars() {
                match ch {
                    '%' => key.push_str("%25"),
                    _ => key.push(ch),
                }
            }
            for b in chunk.invalid() {
                key.push_str(&format!("%{b:02X}"));
            }
        }
    }
    key
}

/// The relative path a key's path part stands for ([`key_of`] reversed):
/// None unless it is plain components (none empty, `.` or `..`, no `/` or
/// NUL byte written as `%XX`, every `%` followed by two hex digits).
fn path_of_key(key: &str) -> Option<PathBuf> {
    let mut path = PathBuf::new();
    for part in key.split('/') {
        let mut bytes = Vec::with_capacity(part.len());
        let mut rest = part.as_bytes();
        while let Some((&b, after)) = rest.split_first() {
            rest = after;
            if b != b'%' {
                bytes.push(b);
                continue;
            }
            let hex = rest.get(..2)?;
            if !hex.iter().all(u8::is_ascii_hexdigit) {
                return None;
            }
            let byte = u8::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok()?;
            if byte == b'/' || byte == 0 {
                return None;
            }
            bytes.push(byte);
            rest = rest.get(2..)?;
        }
        if bytes.is_empty() || bytes == b"." || bytes == b".." {
            return None;
        }
        path.push(os_name(bytes)?);
    }
    Some(path)
}

#[cfg(unix)]
fn os_name(bytes: Vec<u8>) -> Option<std::ffi::OsString> {
    use std::os::unix::ffi::OsStringExt;
    Some(std::ffi::OsString::from_vec(bytes))
}

#[cfg(not(unix))]
fn os_name(bytes: Vec<u8>) -> Option<std::ffi::OsString> {
    String::from_utf8(bytes).ok().map(Into::into)
}

fn display_name(p: &Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| p.display().to_string())
}

/// Where an upload's bytes go while they arrive.
pub enum UploadSink {
    Memory(Vec<u8>),
    File(File),
}

impl UploadSink {
    /// Memory for small uploads; otherwise a private scratch file with no
    /// name, or a random one unlinked at once
    /// ([`crate::output::unlinked_scratch_file`]).
    pub fn new(size: u64) -> io::Result<UploadSink> {
        if size <= MEMORY_UPLOAD {
            // Capacity grows with what arrives, not with what is announced.
            return Ok(UploadSink::Memory(Vec::with_capacity(
                size.min(1 << 20) as usize
            )));
        }
        // Nameless or unlinked at once: nothing is left on disk when the
        // upload is closed, aborted, or the server killed.
        let file = crate::output::unlinked_scratch_file()?;
        Ok(UploadSink::File(file))
    }

    pub fn write(&mut self, chunk: &[u8]) -> io::Result<()> {
        match self {
            UploadSink::Memory(v) => {
                v.extend_from_slice(chunk);
                Ok(())
            }
            UploadSink::File(f) => f.write_all(chunk),
        }
    }

    pub fn finish(self) -> io::Result<InputBytes> {
        match self {
            UploadSink::Memory(v) => Ok(InputBytes::Owned(v)),
            UploadSink::File(mut f) => {
                f.flush()?;
                map_handle(&f)
            }
        }
    }
}

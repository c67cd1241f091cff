//! The explorer's endpoints as a WebAssembly module: the static page keeps
//! the files dropped on it in this module's memory and asks it what the
//! HTTP server would answer, through the same transport-free handlers
//! (`pbdecode::explore`), so both back ends give the page the same bytes.
//!
//! Plain exports, no generated glue. The page moves bytes in and out
//! through buffers this module owns ("staged" buffers, named by their
//! address): `alloc` makes one of a given length and returns its address,
//! the page writes into it, and the call it is passed to takes it over;
//! every answer is a staged buffer too, which the page reads (`staged_len`
//! gives its length) and gives back with `release`. An answer is
//! `STATUS\nCONTENT-TYPE\nName: value\n...\n\n` followed by the body.
//!
//! The module is single-threaded, as a page's WebAssembly instance is: the
//! state lives in a thread-local.
//!
//! A big file picked alone is read on demand ([`lazy`]): the module asks
//! the page for the slices it needs (`lazy_next` while it finds the
//! file's structure, then a `449` answer naming the slices a request
//! needs), the page writes them into the file's buffer and asks again.

mod lazy;
#[cfg(target_arch = "wasm32")]
mod pages;

#[cfg(target_arch = "wasm32")]
#[global_allocator]
static PAGES: pages::Pages = pages::Pages::new();

use lazy::{Ranges, Scan, ScanOptions, Step};
use pbdecode::explore::{self, ExploredFile, Listed, Query, Response};
use pbdecode::input::InputBytes;
use pbdecode::tensor::{TensorData, TensorView};
use pbdecode::{Document, Folder, MemoryFolder};
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

/// Buffers owned here and lent to the page, by address; the files dropped
/// on the page alone, by their number (key `uN`, as the server's uploads);
/// and the folders (or several files) dropped together, each a root as a
/// folder given to `decode serve` is, its files keyed `N/rel/path`.
#[derive(Default)]
struct Module {
    staged: HashMap<usize, Vec<u8>>,
    files: BTreeMap<u64, Arc<ExploredFile>>,
    next_file: u64,
    roots: Vec<Root>,
    /// The files read on demand, by number, until every byte is read.
    partial: HashMap<u64, Partial>,
}

/// A file picked alone and read on demand: what of it is read, and while
/// the page writes slices into it, its bytes (the file is then out of
/// `files`, so nothing borrows them).
struct Partial {
    name: String,
    size: u64,
    have: Ranges,
    /// Until the structure is read.
    scan: Option<Scan>,
    /// Bytes taken as read at the start of every tensor payload, at the
    /// least: the views read a tensor's first values.
    prefix: u64,
    writing: Option<Vec<u8>>,
}

/// The most bytes a tensor's first values take in the views (eight
/// values of sixteen bytes), rounded up generously.
const PREFIX: u64 = 4096;

/// Files dropped together: the folder's name, and its files by their path
/// inside it: arriving (`adding`), then, once all are in ([`finish_root`]),
/// each with its folder among them, where its side files are looked up.
struct Root {
    name: String,
    adding: BTreeMap<String, Arc<InputBytes>>,
    files: BTreeMap<String, Arc<ExploredFile>>,
    /// Given up ([`abort_root`]): holds nothing and is not listed (it
    /// keeps its place, so that the other roots keep their keys).
    aborted: bool,
}

/// A path inside a dropped folder, if it is plain components (none empty,
/// `.` or `..`, no backslash or NUL): what the page gives is the browser's
/// relative path, and a file is never placed outside its folder.
fn plain_path(rel: &str) -> Option<&str> {
    let plain = !rel.contains(['\\', '\0'])
        && rel
            .split('/')
            .all(|part| !part.is_empty() && part != "." && part != "..");
    plain.then_some(rel)
}

/// The key of a path in a root, as the server writes it: `%` as `%25`.
fn key_part(rel: &str) -> String {
    rel.replace('%', "%25")
}

thread_local! {
    static MODULE: RefCell<Module> = RefCell::new(Module::default());
}

impl Module {
    /// A zeroed buffer of `len` bytes, or None when memory runs out
    /// (a file bigger than what the page may still grow to).
    fn alloc(&mut self, len: usize) -> Option<usize> {
        // At least a byte, so that every buffer has an address of its own.
        let mut buf = zeroed(len.max(1))?;
        buf.truncate(len);
        let addr = buf.as_ptr() as usize;
        self.staged.insert(addr, buf);
        Some(addr)
    }

    fn take(&mut self, addr: usize) -> Vec<u8> {
        self.staged.remove(&addr).unwrap_or_default()
    }

    fn take_text(&mut self, addr: usize) -> String {
        String::from_utf8_lossy(&self.take(addr)).into_owned()
    }

    /// Stages an answer for the page to read.
    fn stage(&mut self, resp: &Response) -> usize {
        let mut head = format!("{}\n{}\n", resp.status, resp.content_type);
        for (name, value) in &resp.headers {
            // Values come from the library; a line break would end the head.
            let value: String = value.chars().filter(|c| *c != '\n').collect();
            head.push_str(&format!("{name}: {value}\n"));
        }
        head.push('\n');
        let mut out = Vec::new();
        if out
            .try_reserve_exact(head.len().saturating_add(resp.body.len()))
            .is_err()
        {
            return self.stage_small(&Response::error(500, "out of memory for the answer"));
        }
        out.extend_from_slice(head.as_bytes());
        out.extend_from_slice(&resp.body);
        let addr = out.as_ptr() as usize;
        self.staged.insert(addr, out);
        addr
    }

    /// Stages bytes as they are.
    fn stage_bytes(&mut self, bytes: Vec<u8>) -> usize {
        let mut bytes = bytes;
        if bytes.is_empty() {
            // Every buffer has an address of its own.
            bytes.reserve(1);
        }
        let addr = bytes.as_ptr() as usize;
        self.staged.insert(addr, bytes);
        addr
    }

    fn stage_small(&mut self, resp: &Response) -> usize {
        let mut out = format!("{}\n{}\n\n", resp.status, resp.content_type).into_bytes();
        out.extend_from_slice(&resp.body);
        let addr = out.as_ptr() as usize;
        self.staged.insert(addr, out);
        addr
    }

    /// The roots' files, in order of their paths, then the files dropped
    /// alone (as the server lists its roots, then its uploads).
    fn listed(&self) -> Vec<Listed> {
        let roots = self.roots.iter().filter(|r| !r.aborted).flat_map(|r| {
            r.files.iter().map(|(rel, f)| Listed {
                key: f.key.clone(),
                name: format!("{}/{rel}", r.name),
                size: f.bytes.bytes().len() as u64,
            })
        });
        let alone = self.files.values().map(|f| Listed {
            key: f.key.clone(),
            name: f.name.clone(),
            size: f.bytes.bytes().len() as u64,
        });
        roots.chain(alone).collect()
    }

    /// A file by its key.
    fn file(&self, key: &str) -> Option<&Arc<ExploredFile>> {
        if let Some(n) = Self::number(key) {
            return self.files.get(&n);
        }
        let (index, rel) = key.split_once('/')?;
        let root = self.roots.get(index.parse::<usize>().ok()?)?;
        // Every `%` of a key was written `%25` (key_part).
        root.files.get(&rel.replace("%25", "%"))
    }

    /// A new root for files dropped together; its index.
    fn add_root(&mut self, name: &str) -> usize {
        let name: String = name.chars().filter(|c| !c.is_control()).take(200).collect();
        self.roots.push(Root {
            name,
            adding: BTreeMap::new(),
            files: BTreeMap::new(),
            aborted: false,
        });
        self.roots.len() - 1
    }

    /// Gives up `root`: the copies of its files already here are freed.
    fn abort_root(&mut self, root: usize) {
        if let Some(r) = self.roots.get_mut(root) {
            r.adding = BTreeMap::new();
            r.files = BTreeMap::new();
            r.aborted = true;
        }
    }

    fn add_root_file(&mut self, root: usize, rel: &str, bytes: Vec<u8>) -> Response {
        let Some(rel) = plain_path(rel) else {
            return Response::error(403, &format!("{rel:?} is not a plain relative path"));
        };
        let Some(r) = self.roots.get_mut(root).filter(|r| !r.aborted) else {
            return Response::error(404, &format!("no folder {root}"));
        };
        let key = format!("{root}/{}", key_part(rel));
        let size = bytes.len() as u64;
        r.adding
            .insert(rel.to_string(), Arc::new(InputBytes::Owned(bytes)));
        explore::listed_answer(&Listed {
            key,
            name: format!("{}/{rel}", r.name),
            size,
        })
    }

    /// Lists the files added to `root`, each read with the folder it is
    /// in among them (a model's external data, a test folder's model).
    fn finish_root(&mut self, root: usize) {
        let Some(r) = self.roots.get_mut(root) else {
            return;
        };
        let all = Arc::new(std::mem::take(&mut r.adding));
        for (rel, bytes) in all.iter() {
            let (at, base) = rel.rsplit_once('/').unwrap_or(("", rel));
            let folder = Folder::Memory(MemoryFolder::new(all.clone(), at));
            let key = format!("{root}/{}", key_part(rel));
            let file = ExploredFile::new(key, base.to_string(), bytes.clone(), Some(folder));
            r.files.insert(rel.clone(), Arc::new(file));
        }
    }

    /// A file's number from its key (`uN`).
    fn number(key: &str) -> Option<u64> {
        key.strip_prefix('u')?.parse().ok()
    }

    fn add_file(&mut self, name: &str, bytes: Vec<u8>) -> Response {
        self.next_file = self.next_file.saturating_add(1);
        let n = self.next_file;
        let key = format!("u{n}");
        // As the server names an upload.
        let name: String = name.chars().filter(|c| !c.is_control()).take(200).collect();
        let size = bytes.len() as u64;
        let file = ExploredFile::new(
            key.clone(),
            name.clone(),
            Arc::new(InputBytes::Owned(bytes)),
            None,
        );
        self.files.insert(n, Arc::new(file));
        explore::listed_answer(&Listed { key, name, size })
    }

    /// A file of `size` bytes to be read on demand: its number, or None
    /// when the module's memory cannot hold it.
    fn lazy_begin(
        &mut self,
        name: &str,
        size: u64,
        options: ScanOptions,
        prefix: u64,
    ) -> Option<u64> {
        let len = usize::try_from(size).ok()?;
        let buf = zeroed(len)?;
        self.next_file = self.next_file.saturating_add(1);
        let n = self.next_file;
        let name: String = name.chars().filter(|c| !c.is_control()).take(200).collect();
        self.partial.insert(
            n,
            Partial {
                name,
                size,
                have: Ranges::default(),
                scan: Some(Scan::new(size, options)),
                prefix,
                writing: Some(buf),
            },
        );
        Some(n)
    }

    /// The next slice the scan of file `n` needs, as `START END`, or
    /// nothing when its structure is read.
    fn lazy_next(&mut self, n: u64) -> String {
        let Some(p) = self.partial.get_mut(&n) else {
            return String::new();
        };
        let (Some(scan), Some(buf)) = (p.scan.as_mut(), p.writing.as_deref()) else {
            return String::new();
        };
        match scan.next(buf, &p.have) {
            Step::Read(reads) => {
                let lines: Vec<String> = reads.iter().map(|(s, e)| format!("{s} {e}")).collect();
                lines.join("\n")
            }
            Step::Done => {
                p.scan = None;
                String::new()
            }
        }
    }

    fn lazy_loaded(&mut self, n: u64, start: u64, end: u64) {
        if let Some(p) = self.partial.get_mut(&n)
            && p.writing.is_some()
        {
            p.have.insert(start, end.min(p.size));
        }
    }

    /// The ranges of file `n` not read yet, one `START END` per line.
    fn lazy_unread(&self, n: u64) -> String {
        let Some(p) = self.partial.get(&n) else {
            return String::new();
        };
        let lines: Vec<String> = p
            .have
            .missing(0, p.size)
            .iter()
            .map(|(s, e)| format!("{s} {e}"))
            .collect();
        lines.join("\n")
    }

    /// The page has written what it was asked for: file `n` is listed (a
    /// new file) or listed again (its requests are answered again).
    fn lazy_seal(&mut self, n: u64) -> Response {
        let Some(p) = self.partial.get_mut(&n) else {
            return Response::error(404, &format!("no file u{n} being read"));
        };
        let Some(bytes) = p.writing.take() else {
            return Response::error(409, &format!("file u{n} is not being read"));
        };
        let key = format!("u{n}");
        let listed = Listed {
            key: key.clone(),
            name: p.name.clone(),
            size: p.size,
        };
        let file = ExploredFile::new(
            key,
            p.name.clone(),
            Arc::new(InputBytes::Owned(bytes)),
            None,
        );
        if p.have.covers(0, p.size) {
            self.partial.remove(&n);
        }
        self.files.insert(n, Arc::new(file));
        explore::listed_answer(&listed)
    }

    /// The slices a request for file `n` needs that are not read, when it
    /// is read on demand, and the answer if the request was answered to
    /// find out (`/api/open`).
    fn needed(&self, n: u64, path: &str, query: &Query<'_>) -> (Vec<(u64, u64)>, Option<Response>) {
        let (Some(p), Some(file)) = (self.partial.get(&n), self.files.get(&n)) else {
            return (Vec::new(), None);
        };
        let unread = p.have.missing(0, p.size);
        if unread.is_empty() {
            return (Vec::new(), None);
        }
        let bytes = file.bytes.bytes();
        // A file in protobuf's text format is read whole: its binary form
        // is made of every byte.
        if pbdecode::text_format::looks_like_text(bytes) {
            return (unread, None);
        }
        match path {
            // Answered, then checked: every byte it could not read must
            // lie in a tensor payload, past the first values it shows (the
            // graph shows none).
            "/api/open" | "/api/graph" => {
                let answer = explore::file_answer(path, query, file);
                let payloads = explore::file_document_for(query, file)
                    .map(|doc| payloads(&doc, bytes))
                    .unwrap_or_default();
                // `values=N`: N values of at most sixteen bytes each are
                // shown; `all` (or any other word): every value.
                let shown = match query.param("values") {
                    None => explore::PREVIEW_VALUES.saturating_mul(16).max(p.prefix),
                    Some(v) => v
                        .parse::<u64>()
                        .map_or(u64::MAX, |n| n.saturating_mul(16).max(p.prefix)),
                };
                let past_prefix: Vec<(u64, u64)> = payloads
                    .iter()
                    .map(|&(s, e)| (s.saturating_add(shown).min(e), e))
                    .collect();
                (outside(&unread, &past_prefix), answer)
            }
            // A tensor's facts, a page of its values, all its values.
            "/api/tensor" | "/api/values" | "/api/stats" | "/api/picture" => {
                let Some(doc) = explore::file_document_for(query, file) else {
                    return (unread, None);
                };
                // Made with bytes unread: sound when they all lie in
                // payloads, as for `/api/open`.
                let mut needed = outside(&unread, &payloads(&doc, bytes));
                let chosen = chosen_tensor(&doc, query);
                let wanted = match (path, chosen) {
                    ("/api/tensor", _) | (_, None) => None,
                    ("/api/values", Some(i)) => values_window(query)
                        .and_then(|(first, end)| payload_part(&doc, i, bytes, first, end))
                        .or_else(|| payload(&doc, i, bytes)),
                    (_, Some(i)) => payload(&doc, i, bytes),
                };
                if let Some((ws, we)) = wanted {
                    needed.extend(
                        unread
                            .iter()
                            .map(|&(s, e)| (ws.max(s), we.min(e)))
                            .filter(|(s, e)| s < e),
                    );
                }
                (needed, None)
            }
            _ => (unread, None),
        }
    }

    /// Takes file `n` back from `files` so that the page can write into
    /// its bytes; their address.
    fn unseal(&mut self, n: u64) -> Option<usize> {
        let file = self.files.remove(&n)?;
        let bytes = file.bytes.clone();
        // The documents of its cache go with it: nothing borrows the bytes.
        drop(file);
        let vec = match Arc::try_unwrap(bytes) {
            Ok(only) => into_vec(only),
            Err(shared) => shared.bytes().to_vec(),
        };
        let p = self.partial.get_mut(&n)?;
        let addr = vec.as_ptr() as usize;
        p.writing = Some(vec);
        Some(addr)
    }

    fn respond(&mut self, path: &str, query: &[(String, String)]) -> Response {
        let query = Query(query);
        if explore::file_handler(path).is_some()
            && let Some(n) = explore::file_key(&query).ok().and_then(Self::number)
            && self.partial.contains_key(&n)
        {
            let (needed, answer) = self.needed(n, path, &query);
            if needed.is_empty() {
                if let Some(answer) = answer {
                    return answer;
                }
            } else {
                return match self.unseal(n) {
                    Some(addr) => needs_answer(addr, &needed),
                    None => Response::error(404, &format!("no open file u{n}")),
                };
            }
        }
        match path {
            "/api/files" => {
                let roots: Vec<String> = self
                    .roots
                    .iter()
                    .filter(|r| !r.aborted)
                    .map(|r| r.name.clone())
                    .collect();
                explore::files_answer(&roots, false, &self.listed())
            }
            "/api/close" => {
                let key = match explore::file_key(&query) {
                    Ok(k) => k,
                    Err(r) => return r,
                };
                if let Some(n) = Self::number(key) {
                    self.partial.remove(&n);
                }
                match Self::number(key).and_then(|n| self.files.remove(&n)) {
                    Some(_) => explore::closed_answer(),
                    None => Response::error(404, &format!("no open upload {key:?}")),
                }
            }
            path => {
                let Some(handler) = explore::file_handler(path) else {
                    return Response::error(404, "no such page");
                };
                let key = match explore::file_key(&query) {
                    Ok(k) => k,
                    Err(r) => return r,
                };
                match self.file(key) {
                    Some(file) => handler(&query, file),
                    None => Response::error(404, &format!("no open file {key:?}")),
                }
            }
        }
    }
}

/// A zeroed buffer of `len` bytes without writing them: a big one is
/// fresh pages ([`pages`]), so a file's buffer costs nothing until its
/// slices are written.
fn zeroed(len: usize) -> Option<Vec<u8>> {
    if len == 0 {
        return Some(Vec::new());
    }
    let layout = std::alloc::Layout::array::<u8>(len).ok()?;
    // SAFETY: `layout` has a non-zero size. The pointer, when not null, is
    // an allocation of the global allocator for `len` bytes of alignment
    // 1, all initialised (to zero), which is what `Vec::from_raw_parts`
    // needs with length and capacity `len`.
    unsafe {
        let ptr = std::alloc::alloc_zeroed(layout);
        if ptr.is_null() {
            return None;
        }
        Some(Vec::from_raw_parts(ptr, len, len))
    }
}

/// Bytes of the module's own (a file's bytes here always are).
#[allow(irrefutable_let_patterns)]
fn into_vec(bytes: InputBytes) -> Vec<u8> {
    if let InputBytes::Owned(v) = bytes {
        v
    } else {
        bytes.bytes().to_vec()
    }
}

/// The byte ranges of a document's tensor payloads (raw storage).
fn payloads(doc: &Document, bytes: &[u8]) -> Vec<(u64, u64)> {
    (0..doc.tensors().len())
        .filter_map(|i| payload(doc, i, bytes))
        .collect()
}

/// The byte range of tensor `i`'s payload in `bytes`, when it is raw
/// storage there.
fn payload(doc: &Document, i: usize, bytes: &[u8]) -> Option<(u64, u64)> {
    let tensor = doc.tensor(doc.tensors().get(i)?).ok()?;
    raw_range(&tensor.view(), bytes)
}

/// Where a view's raw storage lies in `bytes`.
fn raw_range(view: &TensorView<'_, '_>, bytes: &[u8]) -> Option<(u64, u64)> {
    let TensorData::Raw(raw) = view.data else {
        return None;
    };
    let start = (raw.as_ptr() as usize).checked_sub(bytes.as_ptr() as usize)?;
    let end = start.checked_add(raw.len())?;
    (end <= bytes.len()).then_some((start as u64, end as u64))
}

/// The elements a `/api/values` request reads, `[first, end)`, read as
/// the endpoint reads its parameters; None when they do not parse (the
/// endpoint then answers an error).
fn values_window(query: &Query<'_>) -> Option<(u64, u64)> {
    let num = |name: &str, default: u64| match query.param(name) {
        None => Some(default),
        Some(v) => v.parse::<u64>().ok(),
    };
    let (offset, count, rows, stride) = (
        num("offset", 0)?,
        num("count", 1000)?,
        num("rows", 1)?.max(1),
        num("stride", 0)?,
    );
    let stride = stride.max(count);
    let end = offset
        .checked_add((rows - 1).checked_mul(stride)?)?
        .checked_add(count)?;
    Some((offset, end))
}

/// The bytes of elements `[first, end)` of tensor `i`'s payload (raw
/// storage of a known element size).
fn payload_part(
    doc: &Document,
    i: usize,
    bytes: &[u8],
    first: u64,
    end: u64,
) -> Option<(u64, u64)> {
    let tensor = doc.tensor(doc.tensors().get(i)?).ok()?;
    let view = tensor.view();
    let (start, stop) = raw_range(&view, bytes)?;
    let bits = view.elem?.bits();
    // Sub-byte elements one per byte in TensorFlow's raw storage.
    let bits = if view.byte_aligned { bits.max(8) } else { bits };
    if bits == 0 {
        return None;
    }
    let from = first.checked_mul(bits)? / 8;
    let to = end.checked_mul(bits)?.div_ceil(8);
    Some((
        start.checked_add(from)?.min(stop),
        start.checked_add(to)?.min(stop),
    ))
}

/// The tensor a request names (`t=INDEX` or `name=NAME`), as the
/// endpoints find it.
fn chosen_tensor(doc: &Document, query: &Query<'_>) -> Option<usize> {
    let tensors = doc.tensors();
    match (query.param("t"), query.param("name")) {
        (Some(t), _) => t.parse::<usize>().ok().filter(|i| *i < tensors.len()),
        (None, Some(name)) => tensors.iter().position(|e| e.name == name),
        (None, None) => None,
    }
}

/// The parts of `ranges` outside every range of `inside`.
fn outside(ranges: &[(u64, u64)], inside: &[(u64, u64)]) -> Vec<(u64, u64)> {
    let mut allowed = Ranges::default();
    for &(s, e) in inside {
        allowed.insert(s, e);
    }
    ranges
        .iter()
        .flat_map(|&(s, e)| allowed.missing(s, e))
        .collect()
}

/// `449`: the request needs slices not read yet: the buffer to write them
/// into, then one `START END` per line. The page writes them, calls
/// `lazy_loaded` for each and `lazy_seal`, and asks again.
fn needs_answer(addr: usize, ranges: &[(u64, u64)]) -> Response {
    let mut body = format!("{addr}\n");
    for (s, e) in ranges {
        body.push_str(&format!("{s} {e}\n"));
    }
    Response {
        status: 449,
        content_type: "text/plain",
        headers: Vec::new(),
        body: body.into_bytes(),
    }
}

// SAFETY (each `no_mangle` below): the exported names are this module's
// interface to the page and clash with no other symbol of the module.

/// A zeroed buffer of `len` bytes for the page to fill: its address, or 0
/// when the module's memory cannot grow that far.
#[unsafe(no_mangle)]
pub extern "C" fn alloc(len: usize) -> usize {
    MODULE.with_borrow_mut(|m| m.alloc(len).unwrap_or(0))
}

/// Gives back a buffer (an answer read, or one not passed on).
#[unsafe(no_mangle)]
pub extern "C" fn release(addr: usize) {
    MODULE.with_borrow_mut(|m| {
        m.staged.remove(&addr);
    });
}

/// The length of a staged buffer (0 for an address that is none).
#[unsafe(no_mangle)]
pub extern "C" fn staged_len(addr: usize) -> usize {
    MODULE.with_borrow(|m| m.staged.get(&addr).map_or(0, Vec::len))
}

/// Adds a dropped file: its name and its bytes, two staged buffers this
/// call takes over. Answers as the server's `/api/upload` does.
#[unsafe(no_mangle)]
pub extern "C" fn add_file(name: usize, bytes: usize) -> usize {
    MODULE.with_borrow_mut(|m| {
        let name = m.take_text(name);
        let bytes = m.take(bytes);
        let resp = m.add_file(&name, bytes);
        m.stage(&resp)
    })
}

/// Starts a folder of files dropped together, named by the staged buffer
/// `name` (taken over); its index, for [`add_root_file`].
#[unsafe(no_mangle)]
pub extern "C" fn add_root(name: usize) -> usize {
    MODULE.with_borrow_mut(|m| {
        let name = m.take_text(name);
        m.add_root(&name)
    })
}

/// Adds a file to the folder `root`: its path inside the folder and its
/// bytes, two staged buffers this call takes over. Answers with its
/// listing.
#[unsafe(no_mangle)]
pub extern "C" fn add_root_file(root: usize, rel: usize, bytes: usize) -> usize {
    MODULE.with_borrow_mut(|m| {
        let rel = m.take_text(rel);
        let bytes = m.take(bytes);
        let resp = m.add_root_file(root, &rel, bytes);
        m.stage(&resp)
    })
}

/// Lists the files added to the folder `root`, read together from now on.
#[unsafe(no_mangle)]
pub extern "C" fn finish_root(root: usize) {
    MODULE.with_borrow_mut(|m| m.finish_root(root));
}

/// Gives up the folder `root` when its files did not all arrive (one could
/// not be read, or memory ran out): the copies already placed are freed,
/// and it is not listed.
#[unsafe(no_mangle)]
pub extern "C" fn abort_root(root: usize) {
    MODULE.with_borrow_mut(|m| m.abort_root(root));
}

/// Answers a request: its path and its query string (`f=u1&t=0`), two
/// staged buffers this call takes over, as the server would.
#[unsafe(no_mangle)]
pub extern "C" fn request(path: usize, query: usize) -> usize {
    MODULE.with_borrow_mut(|m| {
        let path = m.take_text(path);
        let query = m.take_text(query);
        let resp = match explore::parse_query(&query) {
            Some(q) => m.respond(&path, &q),
            None => Response::error(400, "bad query"),
        };
        m.stage(&resp)
    })
}

/// Starts reading a picked file on demand: its name (a staged buffer,
/// taken over), its size, and how to scan it (0: the defaults; the tests
/// pass small values to leave many bytes unread). Its number, or 0 when
/// the module's memory cannot hold it.
#[unsafe(no_mangle)]
pub extern "C" fn lazy_begin(name: usize, size: f64, min_skip: f64, read: f64, prefix: f64) -> u32 {
    let or = |v: f64, default: u64| if v >= 1.0 { v as u64 } else { default };
    let defaults = ScanOptions::default();
    let options = ScanOptions {
        min_skip: or(min_skip, defaults.min_skip),
        read: or(read, defaults.read),
        max_read: defaults.max_read.max(or(read, defaults.read)),
    };
    MODULE.with_borrow_mut(|m| {
        let name = m.take_text(name);
        m.lazy_begin(&name, size as u64, options, or(prefix, PREFIX))
            .and_then(|n| u32::try_from(n).ok())
            .unwrap_or(0)
    })
}

/// The address of file `n`'s bytes while the page writes into them (0
/// when it does not).
#[unsafe(no_mangle)]
pub extern "C" fn lazy_buffer(n: u32) -> usize {
    MODULE.with_borrow(|m| {
        m.partial
            .get(&u64::from(n))
            .and_then(|p| p.writing.as_ref())
            .map_or(0, |v| v.as_ptr() as usize)
    })
}

/// The next slice file `n`'s scan needs, as a staged `START END`, or an
/// empty one when its structure is read.
#[unsafe(no_mangle)]
pub extern "C" fn lazy_next(n: u32) -> usize {
    MODULE.with_borrow_mut(|m| {
        let next = m.lazy_next(u64::from(n));
        m.stage_bytes(next.into_bytes())
    })
}

/// The page wrote bytes `[start, end)` of file `n` into its buffer.
#[unsafe(no_mangle)]
pub extern "C" fn lazy_loaded(n: u32, start: f64, end: f64) {
    MODULE.with_borrow_mut(|m| m.lazy_loaded(u64::from(n), start as u64, end as u64));
}

/// File `n`'s ranges not read yet, staged, one `START END` per line.
#[unsafe(no_mangle)]
pub extern "C" fn lazy_unread(n: u32) -> usize {
    MODULE.with_borrow_mut(|m| {
        let unread = m.lazy_unread(u64::from(n));
        m.stage_bytes(unread.into_bytes())
    })
}

/// File `n` is written as asked: listed (or listed again). Answers as the
/// server's `/api/upload` does.
#[unsafe(no_mangle)]
pub extern "C" fn lazy_seal(n: u32) -> usize {
    MODULE.with_borrow_mut(|m| {
        let resp = m.lazy_seal(u64::from(n));
        m.stage(&resp)
    })
}

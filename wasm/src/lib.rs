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

use pbdecode::explore::{self, ExploredFile, Listed, Query, Response};
use pbdecode::input::InputBytes;
use pbdecode::{Folder, MemoryFolder};
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
}

/// Files dropped together: the folder's name, and its files by their path
/// inside it: arriving (`adding`), then, once all are in ([`finish_root`]),
/// each with its folder among them, where its side files are looked up.
struct Root {
    name: String,
    adding: BTreeMap<String, Arc<InputBytes>>,
    files: BTreeMap<String, Arc<ExploredFile>>,
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
        let mut buf = Vec::new();
        // At least a byte, so that every buffer has an address of its own.
        buf.try_reserve_exact(len.max(1)).ok()?;
        buf.resize(len, 0);
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
        let roots = self.roots.iter().flat_map(|r| {
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
        });
        self.roots.len() - 1
    }

    fn add_root_file(&mut self, root: usize, rel: &str, bytes: Vec<u8>) -> Response {
        let Some(rel) = plain_path(rel) else {
            return Response::error(403, &format!("{rel:?} is not a plain relative path"));
        };
        let Some(r) = self.roots.get_mut(root) else {
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

    fn respond(&mut self, path: &str, query: &[(String, String)]) -> Response {
        let query = Query(query);
        match path {
            "/api/files" => {
                let roots: Vec<String> = self.roots.iter().map(|r| r.name.clone()).collect();
                explore::files_answer(&roots, false, &self.listed())
            }
            "/api/close" => {
                let key = match explore::file_key(&query) {
                    Ok(k) => k,
                    Err(r) => return r,
                };
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

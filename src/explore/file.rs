//! A file the page can open, with the documents made of it.

use crate::api::Document;
use crate::external::Folder;
use crate::formats::{AsFormat, Rejection};
use crate::input::InputBytes;
use crate::syntax::WireInput;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// A file the page can open: its bytes, the folder its side files (ONNX
/// external data) are read from, and its documents.
pub struct ExploredFile {
    /// The key the page names it by.
    pub key: String,
    pub name: String,
    /// Shared with the documents of `cache`.
    pub bytes: Arc<InputBytes>,
    /// None: side files are not looked up.
    pub dir: Option<Folder>,
    /// The file as a document of the facade, per format asked for: its
    /// tensors indexed once, each decoded again alone when asked for.
    cache: Mutex<HashMap<String, Document>>,
    /// The bytes the decoders read, per format asked for: the file's own,
    /// or for a file in protobuf's text format the binary form of its
    /// message (made once).
    wire: Mutex<HashMap<String, Result<WireInput, Rejection>>>,
}

impl ExploredFile {
    pub fn new(key: String, name: String, bytes: Arc<InputBytes>, dir: Option<Folder>) -> Self {
        ExploredFile {
            key,
            name,
            bytes,
            dir,
            cache: Mutex::new(HashMap::new()),
            wire: Mutex::new(HashMap::new()),
        }
    }

    /// The bytes the decoders read for the format `asked`: the file's own,
    /// or a text-format file's binary form (made on the first request);
    /// a text no message reads is turned down.
    pub fn wire(&self, asked: AsFormat) -> Result<WireInput, Rejection> {
        let key = asked.id();
        if let Some(w) = self.wire.lock().ok().and_then(|c| c.get(key).cloned()) {
            return w;
        }
        let made = WireInput::new(self.bytes.clone(), asked);
        if let Ok(mut c) = self.wire.lock() {
            c.insert(key.to_string(), made.clone());
        }
        made
    }

    /// The document made for the format `asked`, if one was.
    pub(super) fn cached(&self, asked: &str) -> Option<Document> {
        self.cache.lock().ok().and_then(|c| c.get(asked).cloned())
    }

    /// Keeps the document made for the format `asked`.
    pub(super) fn keep(&self, asked: &str, doc: Document) {
        if let Ok(mut c) = self.cache.lock() {
            c.insert(asked.to_string(), doc);
        }
    }
}

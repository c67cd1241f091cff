//! Getting bytes in: a file is memory-mapped (the only `unsafe` in the
//! project), standard input is read once.

use memmap2::Mmap;
use std::fs::File;
use std::io::Read;
use std::path::Path;

/// Input bytes, mapped or owned.
pub enum InputBytes {
    Mapped(Mmap),
    Owned(Vec<u8>),
}

impl InputBytes {
    pub fn bytes(&self) -> &[u8] {
        match self {
            InputBytes::Mapped(m) => m,
            InputBytes::Owned(v) => v,
        }
    }
}

/// Maps a file read-only. An empty file is read (mapping zero bytes fails
/// on some systems).
pub fn map_file(path: &Path) -> std::io::Result<InputBytes> {
    let file = File::open(path)?;
    if file.metadata()?.len() == 0 {
        return Ok(InputBytes::Owned(Vec::new()));
    }
    // SAFETY: the map is read-only and private to this process. Another
    // process truncating the file while we read it would fault; that is the
    // accepted price of not copying multi-gigabyte files into memory.
    let map = unsafe { Mmap::map(&file)? };
    Ok(InputBytes::Mapped(map))
}

/// Maps an open file read-only (the explorer's uploads, kept in a temporary
/// file that is already unlinked). An empty file is read.
pub fn map_handle(file: &File) -> std::io::Result<InputBytes> {
    if file.metadata()?.len() == 0 {
        return Ok(InputBytes::Owned(Vec::new()));
    }
    // SAFETY: as in map_file; the file is private to this process (created
    // with create_new and mode 0600, then unlinked), so nothing else can
    // truncate it.
    let map = unsafe { Mmap::map(file)? };
    Ok(InputBytes::Mapped(map))
}

/// Reads all of standard input.
pub fn read_stdin() -> std::io::Result<InputBytes> {
    let mut buf = Vec::new();
    std::io::stdin().lock().read_to_end(&mut buf)?;
    Ok(InputBytes::Owned(buf))
}

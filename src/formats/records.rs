//! The framing of TensorFlow's record files
//! (`tensorflow/core/lib/io/record_writer.cc`): each record a `u64`
//! length, the masked CRC32C of those 8 bytes, the data, the masked CRC32C
//! of the data; the whole stream optionally GZIP or ZLIB compressed.
//! Records are read one at a time: borrowed from the input when it is not
//! compressed, decompressed streaming (one record in memory, never longer
//! than the compressed stream can hold) when it is.

use crate::checksum::{crc32c, mask};
use crate::error::{DecodeError, ErrorKind, Result};
use std::borrow::Cow;
use std::io::Read;
use std::sync::OnceLock;

/// The bytes of a record's header: the length and its CRC.
const HEADER: u64 = 12;
/// The bytes after a record's data: its CRC.
const FOOTER: u64 = 4;
/// The most bytes DEFLATE makes of one input byte (its longest run codes:
/// 258 bytes from about 2 bits), so a compressed stream of n bytes holds at
/// most this many times n; a record declaring more is refused before a
/// byte of it is read.
const DEFLATE_MAX_RATIO: u64 = 1032;

/// How the record stream is stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    None,
    /// `TFRecordOptions(compression_type="GZIP")`.
    Gzip,
    /// `TFRecordOptions(compression_type="ZLIB")`.
    Zlib,
}

impl Compression {
    /// The compression of a stream, from its first bytes: GZIP's magic
    /// number, or a ZLIB header (deflate, a window of at most 32 KiB, the
    /// header's check bits).
    pub fn of(bytes: &[u8]) -> Compression {
        match bytes {
            [0x1f, 0x8b, 8, ..] => Compression::Gzip,
            [cmf, flg, ..]
                if cmf & 0x0f == 8
                    && cmf >> 4 <= 7
                    && (u16::from(*cmf) * 256 + u16::from(*flg)) % 31 == 0
                    && flg & 0x20 == 0 =>
            {
                Compression::Zlib
            }
            _ => Compression::None,
        }
    }

    /// Its name (`"gzip"`, `"zlib"`; `"none"`).
    pub fn name(self) -> &'static str {
        match self {
            Compression::None => "none",
            Compression::Gzip => "gzip",
            Compression::Zlib => "zlib",
        }
    }
}

/// What the records of a file are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// An event file: its first record is an Event with a `file_version`
    /// of `brain.Event:N`; every record is read as an Event.
    Events,
    /// Any other record file: each record read as what it fits.
    Records,
}

/// A record file: the input, its compression and kind. The records are
/// read again by each pass ([`RecordFile::records`]); the first fault any
/// pass meets is kept ([`RecordFile::fault`]).
pub struct RecordFile<'a> {
    pub bytes: &'a [u8],
    pub compression: Compression,
    pub kind: FileKind,
    fault: OnceLock<DecodeError>,
}

impl<'a> RecordFile<'a> {
    pub fn new(bytes: &'a [u8], compression: Compression, kind: FileKind) -> Self {
        RecordFile {
            bytes,
            compression,
            kind,
            fault: OnceLock::new(),
        }
    }

    /// The records, in file order; after a fault, none.
    pub fn records(&self) -> RecordReader<'a, '_> {
        RecordReader::new(self.bytes, self.compression, Some(&self.fault))
    }

    /// The fault that ended a pass over the records (a bad CRC, a cut
    /// file), once one has met it.
    pub fn fault(&self) -> Option<&DecodeError> {
        self.fault.get()
    }

    /// Reads every record's framing (not its payload) to find the fault,
    /// if any.
    pub fn check_framing(&self) -> Option<&DecodeError> {
        for r in self.records() {
            if r.is_err() {
                break;
            }
        }
        self.fault()
    }
}

/// One record.
pub struct Record<'a> {
    /// Its place in the file, from 0.
    pub index: u64,
    /// Where its header starts (in the decompressed stream, when the file
    /// is compressed).
    pub offset: u64,
    /// The length of its data.
    pub length: u64,
    /// The data's masked CRC32C as stored (and checked).
    pub crc: u32,
    /// Its data: borrowed from the input, or decompressed.
    pub data: Cow<'a, [u8]>,
}

impl Record<'_> {
    /// Where its data starts.
    pub fn data_offset(&self) -> u64 {
        self.offset.saturating_add(HEADER)
    }
}

enum Source<'a> {
    Plain(&'a [u8]),
    Inflate(Box<dyn Read + 'a>),
}

/// The records of a stream, one at a time: an iterator that ends after the
/// last whole record, or after the first fault (which it yields, and keeps
/// in the file's fault cell when it has one).
pub struct RecordReader<'a, 'f> {
    source: Source<'a>,
    compression: Compression,
    /// The most bytes a record may declare in a compressed stream.
    inflate_limit: u64,
    index: u64,
    offset: u64,
    done: bool,
    fault: Option<&'f OnceLock<DecodeError>>,
}

impl<'a, 'f> RecordReader<'a, 'f> {
    pub fn new(
        bytes: &'a [u8],
        compression: Compression,
        fault: Option<&'f OnceLock<DecodeError>>,
    ) -> Self {
        let source = match compression {
            Compression::None => Source::Plain(bytes),
            Compression::Gzip => {
                Source::Inflate(Box::new(flate2::read::MultiGzDecoder::new(bytes)))
            }
            Compression::Zlib => Source::Inflate(Box::new(flate2::read::ZlibDecoder::new(bytes))),
        };
        RecordReader {
            source,
            compression,
            inflate_limit: (bytes.len() as u64).saturating_mul(DEFLATE_MAX_RATIO),
            index: 0,
            offset: 0,
            done: false,
            fault: None,
        }
        .with_fault_cell(fault)
    }

    fn with_fault_cell(mut self, fault: Option<&'f OnceLock<DecodeError>>) -> Self {
        self.fault = fault;
        self
    }

    fn fail(&mut self, kind: ErrorKind, offset: u64) -> DecodeError {
        self.done = true;
        let e = DecodeError::new(kind, offset).within(format!("record[{}]", self.index));
        if let Some(cell) = self.fault {
            let _ = cell.set(e.clone());
        }
        e
    }

    /// The stream ends inside the record that starts at `start`.
    fn cut(&mut self, needed: u64, left: u64, start: u64) -> DecodeError {
        let record = self.index;
        self.fail(
            ErrorKind::RecordCut {
                record,
                needed,
                left,
            },
            start,
        )
    }

    /// Reads up to `buf.len()` bytes of the decompressed stream; fewer only
    /// at its end.
    fn fill(&mut self, buf: &mut [u8]) -> std::result::Result<usize, ErrorKind> {
        let Source::Inflate(r) = &mut self.source else {
            return Ok(0);
        };
        let mut got = 0;
        while let Some(rest) = buf.get_mut(got..).filter(|r| !r.is_empty()) {
            match r.read(rest) {
                Ok(0) => break,
                Ok(n) => got += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => {
                    return Err(ErrorKind::Decompress {
                        compression: self.compression.name(),
                        detail: e.to_string(),
                    });
                }
            }
        }
        Ok(got)
    }

    fn next_plain(&mut self, bytes: &'a [u8]) -> Option<Result<Record<'a>>> {
        let start = self.offset;
        let rest = usize::try_from(start)
            .ok()
            .and_then(|s| bytes.get(s..))
            .unwrap_or(&[]);
        if rest.is_empty() {
            self.done = true;
            return None;
        }
        let left = rest.len() as u64;
        let Some(header) = rest.get(..12) else {
            return Some(Err(self.cut(HEADER, left, start)));
        };
        let (length, length_crc) = match parse_header(header) {
            Ok(h) => h,
            Err(_) => return None,
        };
        if let Err(kind) = check_length_crc(self.index, header, length_crc) {
            return Some(Err(self.fail(kind, start.saturating_add(8))));
        }
        // Checked before any byte of the data is touched: a length past the
        // end (a cut file, or a damaged length whose CRC still holds) ends
        // the reading here.
        let needed = HEADER.saturating_add(length).saturating_add(FOOTER);
        if needed > left {
            return Some(Err(self.cut(needed, left, start)));
        }
        // Both bounds were checked against the bytes left just above.
        let (data, stored) = plain_data(rest, length).unwrap_or((&[], 0));
        self.finish(start, length, stored, Cow::Borrowed(data))
    }

    fn next_inflated(&mut self) -> Option<Result<Record<'a>>> {
        let start = self.offset;
        let mut header = [0u8; 12];
        let got = match self.fill(&mut header) {
            Ok(n) => n,
            Err(kind) => return Some(Err(self.fail(kind, start))),
        };
        if got == 0 {
            self.done = true;
            return None;
        }
        if got < header.len() {
            return Some(Err(self.cut(HEADER, got as u64, start)));
        }
        let Ok((length, length_crc)) = parse_header(&header) else {
            return None;
        };
        if let Err(kind) = check_length_crc(self.index, &header, length_crc) {
            return Some(Err(self.fail(kind, start.saturating_add(8))));
        }
        let limit = self
            .inflate_limit
            .saturating_sub(start.saturating_add(HEADER));
        if length > limit {
            return Some(Err(self.fail(
                ErrorKind::RecordLength {
                    record: self.index,
                    len: length,
                    left: limit,
                },
                start,
            )));
        }
        // Grown as the stream delivers bytes, never from the declared length
        // alone: a record is at most what the stream holds.
        let mut data: Vec<u8> = Vec::new();
        let mut chunk = [0u8; 1 << 14];
        let mut wanted = length;
        while wanted > 0 {
            let n = usize::try_from(wanted.min(chunk.len() as u64)).unwrap_or(chunk.len());
            let piece = chunk.get_mut(..n).unwrap_or(&mut []);
            let got = match self.fill(piece) {
                Ok(got) => got,
                Err(kind) => return Some(Err(self.fail(kind, start))),
            };
            data.extend_from_slice(piece.get(..got).unwrap_or(&[]));
            wanted -= got as u64;
            if got < n {
                let needed = HEADER.saturating_add(length).saturating_add(FOOTER);
                return Some(Err(self.cut(needed, HEADER + (length - wanted), start)));
            }
        }
        let mut footer = [0u8; 4];
        match self.fill(&mut footer) {
            Ok(4) => {}
            Ok(n) => {
                let needed = HEADER.saturating_add(length).saturating_add(FOOTER);
                let left = needed - FOOTER + n as u64;
                return Some(Err(self.cut(needed, left, start)));
            }
            Err(kind) => return Some(Err(self.fail(kind, start))),
        }
        self.finish(start, length, u32::from_le_bytes(footer), Cow::Owned(data))
    }

    fn finish(
        &mut self,
        start: u64,
        length: u64,
        stored: u32,
        data: Cow<'a, [u8]>,
    ) -> Option<Result<Record<'a>>> {
        let computed = mask(crc32c(&data));
        let data_end = start.saturating_add(HEADER).saturating_add(length);
        if computed != stored {
            return Some(Err(self.fail(
                ErrorKind::RecordDataCrc {
                    record: self.index,
                    stored,
                    computed,
                },
                data_end,
            )));
        }
        let record = Record {
            index: self.index,
            offset: start,
            length,
            crc: stored,
            data,
        };
        self.index += 1;
        self.offset = data_end.saturating_add(FOOTER);
        Some(Ok(record))
    }
}

impl<'a> Iterator for RecordReader<'a, '_> {
    type Item = Result<Record<'a>>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        match self.source {
            Source::Plain(bytes) => self.next_plain(bytes),
            Source::Inflate(_) => self.next_inflated(),
        }
    }
}

/// The length and its stored CRC, from a 12-byte header.
fn parse_header(header: &[u8]) -> std::result::Result<(u64, u32), ()> {
    let length = header
        .get(..8)
        .and_then(|b| <[u8; 8]>::try_from(b).ok())
        .ok_or(())?;
    let crc = header
        .get(8..12)
        .and_then(|b| <[u8; 4]>::try_from(b).ok())
        .ok_or(())?;
    Ok((u64::from_le_bytes(length), u32::from_le_bytes(crc)))
}

fn check_length_crc(record: u64, header: &[u8], stored: u32) -> std::result::Result<(), ErrorKind> {
    let computed = mask(crc32c(header.get(..8).unwrap_or(&[])));
    if computed == stored {
        Ok(())
    } else {
        Err(ErrorKind::RecordLengthCrc {
            record,
            stored,
            computed,
        })
    }
}

/// Whether the bytes start with a record whose length CRC holds, directly
/// or inside a GZIP or ZLIB stream: what `--as auto` checks before the
/// protobuf pre-checks.
pub fn is_record_file(bytes: &[u8]) -> bool {
    first_header(bytes).is_ok()
}

/// The first record's header checked (the stream's compression with it).
pub(super) fn first_header(bytes: &[u8]) -> Result<Compression> {
    // A file of no records: what TensorFlow's writer leaves when nothing
    // is written (0 bytes plain; a GZIP or ZLIB stream of nothing).
    if bytes.is_empty() {
        return Ok(Compression::None);
    }
    let compression = Compression::of(bytes);
    if compression != Compression::None && inflates_to_nothing(bytes, compression) {
        return Ok(compression);
    }
    let mut reader = RecordReader::new(bytes, compression, None);
    let mut header = [0u8; 12];
    let got = match &mut reader.source {
        Source::Plain(b) => {
            let n = b.len().min(12);
            header
                .get_mut(..n)
                .unwrap_or(&mut [])
                .copy_from_slice(b.get(..n).unwrap_or(&[]));
            n
        }
        Source::Inflate(_) => reader
            .fill(&mut header)
            .map_err(|kind| DecodeError::new(kind, 0))?,
    };
    if got < header.len() {
        let kind = ErrorKind::RecordCut {
            record: 0,
            needed: HEADER,
            left: got as u64,
        };
        return Err(DecodeError::new(kind, 0));
    }
    let (length, stored) =
        parse_header(&header).map_err(|()| DecodeError::new(ErrorKind::NotAMessage, 0))?;
    match check_length_crc(0, &header, stored) {
        Ok(()) => Ok(compression),
        // A damaged length CRC whose record is whole, its data CRC holding,
        // is still a record file: the reader then names the fault.
        Err(_) if compression == Compression::None && first_data_crc_holds(bytes, length) => {
            Ok(compression)
        }
        Err(kind) => Err(DecodeError::new(kind, 8)),
    }
}

/// Whether `bytes` are one whole GZIP or ZLIB stream (every byte of it,
/// its checksum holding) that inflates to no bytes.
fn inflates_to_nothing(bytes: &[u8], compression: Compression) -> bool {
    use flate2::{Decompress, FlushDecompress, Status};
    match compression {
        Compression::None => false,
        Compression::Zlib => {
            let mut d = Decompress::new(true);
            let mut out = [0u8; 1];
            matches!(
                d.decompress(bytes, &mut out, FlushDecompress::Finish),
                Ok(Status::StreamEnd)
            ) && d.total_out() == 0
                && d.total_in() == bytes.len() as u64
        }
        Compression::Gzip => {
            // The header, the deflate stream and the trailer (CRC-32 and
            // size, checked by the decoder); a stream of members each
            // empty is one too.
            let mut r = flate2::read::MultiGzDecoder::new(bytes);
            let mut out = [0u8; 1];
            matches!(std::io::Read::read(&mut r, &mut out), Ok(0))
        }
    }
}

/// Whether an uncompressed file's first record, `length` bytes after its
/// header, fits in the file and its data CRC holds.
fn first_data_crc_holds(bytes: &[u8], length: u64) -> bool {
    plain_data(bytes, length).is_some_and(|(data, stored)| mask(crc32c(data)) == stored)
}

/// The data of the uncompressed record at the start of `rest`, `length`
/// bytes after its header, and the data CRC stored after it; None when
/// they pass the end of `rest`.
fn plain_data(rest: &[u8], length: u64) -> Option<(&[u8], u32)> {
    let data_end = usize::try_from(HEADER.checked_add(length)?).ok()?;
    let data = rest.get(usize::try_from(HEADER).ok()?..data_end)?;
    let stored = rest
        .get(data_end..data_end.checked_add(usize::try_from(FOOTER).ok()?)?)
        .and_then(|b| <[u8; 4]>::try_from(b).ok())
        .map(u32::from_le_bytes)?;
    Some((data, stored))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(data: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        let len = (data.len() as u64).to_le_bytes();
        out.extend_from_slice(&len);
        out.extend_from_slice(&mask(crc32c(&len)).to_le_bytes());
        out.extend_from_slice(data);
        out.extend_from_slice(&mask(crc32c(data)).to_le_bytes());
        out
    }

    #[test]
    fn reads_records_and_stops_at_a_cut() {
        let mut file = record(b"one");
        file.extend(record(b"two"));
        let whole = file.len();
        file.extend(&record(b"three")[..10]);
        let rs: Vec<_> = RecordReader::new(&file, Compression::None, None).collect();
        assert_eq!(rs.len(), 3);
        assert_eq!(&*rs[1].as_ref().unwrap().data, b"two");
        let e = rs[2].as_ref().err().unwrap();
        assert_eq!(e.check(), "record-cut");
        assert_eq!(e.offset(), whole as u64);
        assert!(e.to_string().contains("record[2]"), "{e}");
    }

    #[test]
    fn a_huge_length_is_refused_before_reading() {
        let mut file = record(b"x");
        let len = (1u64 << 40).to_le_bytes();
        file.extend_from_slice(&len);
        file.extend_from_slice(&mask(crc32c(&len)).to_le_bytes());
        file.extend_from_slice(b"abc");
        let e = RecordReader::new(&file, Compression::None, None)
            .nth(1)
            .unwrap()
            .err()
            .unwrap();
        assert_eq!(e.check(), "record-cut");
        assert!(
            e.to_string()
                .contains("1099511627792 bytes needed, 15 left"),
            "{e}"
        );
    }

    #[test]
    fn a_damaged_first_length_crc_is_a_record_file_when_its_data_crc_holds() {
        let mut file = record(b"payload");
        file[8] ^= 0x20;
        assert!(is_record_file(&file));
        // The data CRC damaged too, or the record cut: no signature left.
        let mut both = file.clone();
        let last = both.len() - 1;
        both[last] ^= 0x20;
        assert!(!is_record_file(&both));
        assert!(!is_record_file(&file[..file.len() - 1]));
        // A length past the file's end is not read.
        let mut long = file.clone();
        long[..8].copy_from_slice(&u64::MAX.to_le_bytes());
        assert!(!is_record_file(&long));
    }

    #[test]
    fn zlib_and_gzip_headers() {
        assert_eq!(Compression::of(&[0x1f, 0x8b, 8, 0]), Compression::Gzip);
        assert_eq!(Compression::of(&[0x78, 0x9c]), Compression::Zlib);
        assert_eq!(Compression::of(&[0x78, 0x01]), Compression::Zlib);
        assert_eq!(Compression::of(&[0x08, 0x01]), Compression::None);
    }
}

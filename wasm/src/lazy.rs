//! Reading a picked file on demand: the page reads slices of a `File`
//! (`File.slice`) into a buffer of the file's size, and only the slices a
//! view needs. A browser reads a picked file at a few hundred MB/s, so a
//! gigabyte model read whole takes seconds; its structure (nodes, names,
//! shapes) is a few megabytes, the rest is tensor payloads.
//!
//! Two parts: [`Scan`] walks the file's wire format to find its structure,
//! asking for the slices it needs as it goes and passing over every long
//! field whose bytes do not read as fields (a tensor's payload); and
//! [`Ranges`], the bytes read so far. Which views may be answered with
//! bytes still unread is decided by the module (`lib.rs`): only those
//! whose unread bytes all lie inside tensor payloads past their first
//! values, which the views do not read.

/// Byte ranges `[start, end)` of a file, sorted, disjoint and not touching.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Ranges {
    spans: Vec<(u64, u64)>,
}

impl Ranges {
    /// Adds `[start, end)`, merging it with the ranges it meets.
    pub fn insert(&mut self, start: u64, end: u64) {
        if start >= end {
            return;
        }
        // The first span that ends at or after `start` may merge.
        let first = self.spans.partition_point(|&(_, e)| e < start);
        let mut last = first;
        let (mut lo, mut hi) = (start, end);
        while let Some(&(s, e)) = self.spans.get(last) {
            if s > hi {
                break;
            }
            lo = lo.min(s);
            hi = hi.max(e);
            last += 1;
        }
        self.spans.splice(first..last, [(lo, hi)]);
    }

    /// Whether every byte of `[start, end)` is in.
    pub fn covers(&self, start: u64, end: u64) -> bool {
        if start >= end {
            return true;
        }
        let i = self.spans.partition_point(|&(_, e)| e <= start);
        self.spans
            .get(i)
            .is_some_and(|&(s, e)| s <= start && e >= end)
    }

    /// The parts of `[start, end)` that are not in, in order.
    pub fn missing(&self, start: u64, end: u64) -> Vec<(u64, u64)> {
        let mut out = Vec::new();
        let mut at = start;
        let i = self.spans.partition_point(|&(_, e)| e <= start);
        for &(s, e) in self.spans.iter().skip(i) {
            if at >= end || s >= end {
                break;
            }
            if s > at {
                out.push((at, s));
            }
            at = at.max(e);
        }
        if at < end {
            out.push((at, end));
        }
        out
    }

    /// Bytes in.
    #[cfg(test)]
    pub fn total(&self) -> u64 {
        self.spans.iter().map(|&(s, e)| e - s).sum()
    }
}

/// How the scan reads: the shortest field it passes over unread, and the
/// size of the slices it asks for (doubled while it reads on where the
/// last slice ended, up to `max_read`).
#[derive(Debug, Clone, Copy)]
pub struct ScanOptions {
    pub min_skip: u64,
    pub read: u64,
    pub max_read: u64,
}

impl Default for ScanOptions {
    fn default() -> Self {
        ScanOptions {
            min_skip: 64 << 10,
            read: 64 << 10,
            max_read: 4 << 20,
        }
    }
}

/// What the scan needs next.
#[derive(Debug, PartialEq)]
pub enum Step {
    /// Read these ranges and call [`Scan::next`] again: the first is
    /// needed, the others are guesses (see [`Scan::ahead`]).
    Read(Vec<(u64, u64)>),
    /// The structure is read.
    Done,
}

/// A walk over a file's fields, nested in every long field whose bytes
/// read as fields, with an explicit stack (the input decides the depth,
/// so no recursion); each long field that stops reading as fields is
/// left unread from there. Short fields are read whole without looking
/// inside: the views read them as they are. A file whose top level does
/// not read as fields (not protobuf) is read whole.
#[derive(Debug)]
pub struct Scan {
    size: u64,
    options: ScanOptions,
    /// Where the walk is.
    at: u64,
    /// The ends of the long fields the walk is inside.
    ends: Vec<u64>,
    /// The end of the last slice asked for and the size it had: a slice
    /// asked for where it ended is twice as long.
    last_read: Option<(u64, u64)>,
    /// The top level stopped reading as fields: read the rest whole.
    whole: bool,
    /// Where the last slice asked for after a jump began, and the distance
    /// from the one before: see [`Scan::ahead`].
    last_jump: Option<u64>,
    stride: Option<u64>,
}

/// Slices guessed at once when the walk jumps by equal distances.
const AHEAD: u64 = 16;

/// The longest field header: a ten-byte tag and a ten-byte length.
const HEADER: u64 = 20;

impl Scan {
    pub fn new(size: u64, options: ScanOptions) -> Scan {
        Scan {
            size,
            options,
            at: 0,
            ends: Vec::new(),
            last_read: None,
            whole: false,
            last_jump: None,
            stride: None,
        }
    }

    /// The next slice to read, given the bytes of the file read so far
    /// (`buf`, as long as the file, valid where `have` says).
    pub fn next(&mut self, buf: &[u8], have: &Ranges) -> Step {
        loop {
            if self.whole {
                return match have.missing(0, self.size).first() {
                    Some(&(s, e)) => {
                        let end = e.min(s.saturating_add(self.options.max_read));
                        self.last_read = Some((end, end - s));
                        Step::Read(vec![(s, end)])
                    }
                    None => Step::Done,
                };
            }
            let end = self.ends.last().copied().unwrap_or(self.size);
            if self.at >= end {
                if self.ends.pop().is_none() {
                    return Step::Done;
                }
                continue;
            }
            let head_end = end.min(self.at.saturating_add(HEADER));
            if let Some(&(s, _)) = have.missing(self.at, head_end).first() {
                return self.read_from(s, end, have);
            }
            match field(buf, self.at, end) {
                Some(Field::Short { next }) => self.at = next,
                Some(Field::Long { start, end: stop }) => {
                    if stop - start < self.options.min_skip {
                        // Read whole, not looked into.
                        if let Some(&(s, _)) = have.missing(start, stop).first() {
                            return self.read_from(s, end, have);
                        }
                        self.at = stop;
                    } else {
                        self.ends.push(stop);
                        self.at = start;
                    }
                }
                None => match self.ends.pop() {
                    // This long field is no message: the rest of it stays
                    // unread.
                    Some(stop) => self.at = stop,
                    None => self.whole = true,
                },
            }
        }
    }

    /// A slice from `start`, not past `limit` (nor the file's end), and
    /// the guesses of [`Scan::ahead`].
    fn read_from(&mut self, start: u64, limit: u64, have: &Ranges) -> Step {
        let (len, jumped) = match self.last_read {
            Some((end, len)) if end == start => (
                len.saturating_mul(2)
                    .clamp(self.options.read, self.options.max_read),
                false,
            ),
            _ => (self.options.read, true),
        };
        let stop = limit.min(self.size).min(start.saturating_add(len.max(1)));
        // At least the field header, even when the limit is nearer.
        let stop = stop.max(start.saturating_add(HEADER).min(self.size));
        self.last_read = Some((stop, stop - start));
        let mut reads = vec![(start, stop)];
        if jumped {
            reads.extend(self.ahead(start, have));
        }
        Step::Read(reads)
    }

    /// A model's tensors are often of one size, so the walk passes over
    /// payloads of one length and asks for the bytes after each: a slice
    /// a payload apart. When the last two jumps were the same distance,
    /// the slices the next [`AHEAD`] jumps would ask for are asked for at
    /// once, to be read together: a wrong guess costs a slice read for
    /// nothing, a right one saves a wait per tensor.
    fn ahead(&mut self, start: u64, have: &Ranges) -> Vec<(u64, u64)> {
        let distance = self
            .last_jump
            .and_then(|last| start.checked_sub(last))
            .filter(|d| *d > 0);
        let mut guesses = Vec::new();
        if distance.is_some() && distance == self.stride {
            let d = distance.unwrap_or_default();
            let mut at = start;
            for _ in 0..AHEAD {
                at = match at.checked_add(d) {
                    Some(a) if a < self.size => a,
                    _ => break,
                };
                let end = at.saturating_add(self.options.read).min(self.size);
                guesses.extend(have.missing(at, end).first().copied());
            }
            // The next jump after the guesses is the same distance again.
            self.last_jump = Some(at);
        } else {
            self.stride = distance;
            self.last_jump = Some(start);
        }
        guesses
    }
}

enum Field {
    /// A varint, fixed-width or group field: the walk goes on at `next`.
    Short { next: u64 },
    /// A length-delimited field's bytes.
    Long { start: u64, end: u64 },
}

/// The field at `at`, inside a message that ends at `end`; None when the
/// bytes are no field (or one that runs past `end`).
fn field(buf: &[u8], at: u64, end: u64) -> Option<Field> {
    let (tag, after_tag) = varint(buf, at, end)?;
    if tag >> 3 == 0 || tag >> 3 > u64::from(u32::MAX >> 3) {
        return None;
    }
    let next = match tag & 7 {
        0 => varint(buf, after_tag, end)?.1,
        1 => after_tag.checked_add(8)?,
        5 => after_tag.checked_add(4)?,
        // Group markers: the group's fields follow as fields.
        3 | 4 => after_tag,
        2 => {
            let (len, start) = varint(buf, after_tag, end)?;
            let stop = start.checked_add(len)?;
            return (stop <= end).then_some(Field::Long { start, end: stop });
        }
        _ => return None,
    };
    (next <= end).then_some(Field::Short { next })
}

/// A varint at `at` (read only below `end`): its value and where it ends.
fn varint(buf: &[u8], at: u64, end: u64) -> Option<(u64, u64)> {
    let mut value = 0u64;
    for i in 0..10u64 {
        let pos = at.checked_add(i)?;
        if pos >= end {
            return None;
        }
        let byte = *buf.get(usize::try_from(pos).ok()?)?;
        value |= u64::from(byte & 0x7f) << (7 * i);
        if byte & 0x80 == 0 {
            return Some((value, pos + 1));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ranges(spans: &[(u64, u64)]) -> Ranges {
        let mut r = Ranges::default();
        for &(s, e) in spans {
            r.insert(s, e);
        }
        r
    }

    #[test]
    fn ranges_merge_and_answer() {
        let r = ranges(&[(10, 20), (30, 40), (20, 25), (50, 60), (35, 52)]);
        assert_eq!(r.spans, vec![(10, 25), (30, 60)]);
        assert!(r.covers(12, 25));
        assert!(!r.covers(12, 26));
        assert!(r.covers(40, 40));
        assert_eq!(r.missing(0, 70), vec![(0, 10), (25, 30), (60, 70)]);
        assert_eq!(r.missing(31, 59), vec![]);
        assert_eq!(r.total(), 45);
    }

    fn varint_bytes(mut v: u64, out: &mut Vec<u8>) {
        while v >= 0x80 {
            out.push((v as u8) | 0x80);
            v >>= 7;
        }
        out.push(v as u8);
    }

    fn len_field(number: u64, payload: &[u8], out: &mut Vec<u8>) {
        varint_bytes(number << 3 | 2, out);
        varint_bytes(payload.len() as u64, out);
        out.extend_from_slice(payload);
    }

    /// Runs a scan to its end as the page does; the bytes it read.
    fn scan(file: &[u8], options: ScanOptions) -> Ranges {
        scan_counted(file, options).0
    }

    /// [`scan`], and the rounds of reads it took.
    fn scan_counted(file: &[u8], options: ScanOptions) -> (Ranges, usize) {
        let mut buf = vec![0u8; file.len()];
        let mut have = Ranges::default();
        let mut scan = Scan::new(file.len() as u64, options);
        let mut rounds = 0;
        for _ in 0..10_000 {
            match scan.next(&buf, &have) {
                Step::Done => return (have, rounds),
                Step::Read(reads) => {
                    rounds += 1;
                    let (s, e) = reads[0];
                    assert!(!have.covers(s, e), "asked again for {s}..{e}");
                    for (s, e) in reads {
                        assert!(s < e && e <= file.len() as u64, "{s}..{e}");
                        let (s, e) = (s as usize, e as usize);
                        buf[s..e].copy_from_slice(&file[s..e]);
                        have.insert(s as u64, e as u64);
                    }
                }
            }
        }
        panic!("the scan did not end");
    }

    /// A model-like file: a graph (field 7) of nodes and of tensors whose
    /// payloads (raw_data, field 9) are long and do not read as fields.
    fn model(tensors: u64, same_size: bool) -> (Vec<u8>, Vec<(usize, usize)>) {
        let mut graph = Vec::new();
        for i in 0..50u8 {
            let mut node = Vec::new();
            len_field(1, &[b'x', i], &mut node);
            len_field(4, b"Conv", &mut node);
            len_field(1, &node.clone(), &mut graph);
        }
        let mut payloads = Vec::new();
        for i in 0..tensors {
            let i = if same_size { 0 } else { i };
            let mut tensor = Vec::new();
            varint_bytes(1 << 3, &mut tensor);
            varint_bytes(1000 + i, &mut tensor);
            len_field(8, b"weight", &mut tensor);
            // Floats 1.0: `00 00 80 3f` reads as no field (field 0).
            let raw: Vec<u8> = (0..(1000 + i) * 4)
                .map(|k| [0, 0, 0x80, 0x3f][(k % 4) as usize])
                .collect();
            len_field(9, &raw, &mut tensor);
            len_field(5, &tensor, &mut graph);
            payloads.push((graph.len(), raw.len()));
        }
        let mut file = Vec::new();
        varint_bytes(1 << 3, &mut file);
        varint_bytes(8, &mut file);
        let graph_at = file.len();
        len_field(7, &graph, &mut file);
        let header = file.len() - graph_at - graph.len();
        let spans = payloads
            .into_iter()
            .map(|(end_in_graph, raw_len)| {
                // raw_data is the tensor's last field.
                let end = graph_at + header + end_in_graph;
                (end - raw_len, end)
            })
            .collect();
        (file, spans)
    }

    #[test]
    fn payloads_are_passed_over_and_the_rest_is_read() {
        let options = ScanOptions {
            min_skip: 256,
            read: 64,
            max_read: 1024,
        };
        for (tensors, same_size) in [(3, false), (40, false), (40, true)] {
            let (file, payloads) = model(tensors, same_size);
            let have = scan(&file, options);
            let unread = have.missing(0, file.len() as u64);
            assert!(!unread.is_empty());
            // Everything unread is inside a payload, past its first bytes.
            for (s, e) in &unread {
                assert!(
                    payloads
                        .iter()
                        .any(|&(ps, pe)| ps as u64 <= *s && *e <= pe as u64),
                    "{s}..{e} is outside the payloads {payloads:?}"
                );
            }
            assert!(have.total() < file.len() as u64 / 2, "{}", have.total());
        }
    }

    #[test]
    fn tensors_of_one_size_are_read_a_round_for_many() {
        let options = ScanOptions {
            min_skip: 256,
            read: 64,
            max_read: 1024,
        };
        let (_, varied) = scan_counted(&model(40, false).0, options);
        let (_, same) = scan_counted(&model(40, true).0, options);
        assert!(varied >= 40, "{varied} rounds for 40 tensors of 40 sizes");
        assert!(same <= 10, "{same} rounds for 40 tensors of one size");
    }

    #[test]
    fn a_file_that_is_not_fields_is_read_whole() {
        let file: Vec<u8> = (0..5000u32).map(|i| (i % 7) as u8 * 8 + 7).collect();
        let have = scan(
            &file,
            ScanOptions {
                min_skip: 16,
                read: 32,
                max_read: 256,
            },
        );
        assert!(have.covers(0, file.len() as u64));
    }

    #[test]
    fn lengths_past_the_end_and_deep_nesting_end_the_walk() {
        // A length of 2^40 at the top: not fields, read whole.
        let mut file = Vec::new();
        varint_bytes(1 << 3 | 2, &mut file);
        varint_bytes(1 << 40, &mut file);
        file.extend_from_slice(&[1, 2, 3]);
        assert!(scan(&file, ScanOptions::default()).covers(0, file.len() as u64));
        // Ten thousand nested long fields: walked without recursion.
        let mut inner = vec![8u8, 1];
        for _ in 0..10_000 {
            let mut outer = Vec::new();
            len_field(1, &inner, &mut outer);
            inner = outer;
        }
        let have = scan(
            &inner,
            ScanOptions {
                min_skip: 4,
                read: 4096,
                max_read: 1 << 20,
            },
        );
        assert!(have.covers(0, inner.len() as u64));
    }
}

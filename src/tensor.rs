//! Tensor element types and value decoding: the element types (each
//! format maps its own data type codes to them: ONNX's in
//! `formats::onnx_tensor`, TensorFlow's in `formats::tensorflow`), the
//! bit-level decoding of every element type (IEEE, bfloat16, the float8,
//! float6 and float4 families, sub-byte integers), and a streaming reader
//! that decodes elements straight from borrowed bytes.

use half::{bf16, f16};

/// How one element is stored and what it decodes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Elem {
    F32,
    F64,
    F16,
    BF16,
    F8E4M3FN,
    F8E4M3FNUZ,
    F8E5M2,
    F8E5M2FNUZ,
    /// TensorFlow's float8 with exponent bias 11 (no Inf, no -0, NaN 0x80).
    F8E4M3B11FNUZ,
    F8E8M0,
    F4E2M1,
    F6E2M3,
    F6E3M2,
    I8,
    I16,
    I32,
    I64,
    U8,
    U16,
    U32,
    U64,
    I4,
    U4,
    I2,
    U2,
    Bool,
    Str,
    C64,
    C128,
}

impl Elem {
    /// Bits one element takes in raw (little-endian, packed) storage; 0 for
    /// strings, which have no fixed width.
    pub fn bits(self) -> u64 {
        use Elem::*;
        match self {
            F64 | I64 | U64 | C64 => 64,
            C128 => 128,
            F32 | I32 | U32 => 32,
            F16 | BF16 | I16 | U16 => 16,
            F8E4M3FN | F8E4M3FNUZ | F8E5M2 | F8E5M2FNUZ | F8E4M3B11FNUZ | F8E8M0 | I8 | U8
            | Bool => 8,
            F6E2M3 | F6E3M2 => 6,
            F4E2M1 | I4 | U4 => 4,
            I2 | U2 => 2,
            Str => 0,
        }
    }

    pub fn is_float(self) -> bool {
        use Elem::*;
        matches!(
            self,
            F32 | F64
                | F16
                | BF16
                | F8E4M3FN
                | F8E4M3FNUZ
                | F8E5M2
                | F8E5M2FNUZ
                | F8E4M3B11FNUZ
                | F8E8M0
                | F4E2M1
                | F6E2M3
                | F6E3M2
        )
    }

    pub fn is_complex(self) -> bool {
        matches!(self, Elem::C64 | Elem::C128)
    }

    pub fn is_numeric(self) -> bool {
        self != Elem::Str
    }

    /// Elements held by one value of a typed (int32) field: two 4-bit values
    /// or four 2-bit values share one int32.
    pub fn elements_per_int32(self) -> u64 {
        match self {
            Elem::I4 | Elem::U4 | Elem::F4E2M1 => 2,
            Elem::I2 | Elem::U2 => 4,
            _ => 1,
        }
    }
}

/// One decoded element.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Element<'a> {
    /// Any float type narrower than double; every such value is exactly a
    /// float32, so it prints as the shortest float32 text.
    F32(f32),
    F64(f64),
    I64(i64),
    U64(u64),
    Bool(bool),
    C64(f32, f32),
    C128(f64, f64),
    Str(&'a [u8]),
}

impl Element<'_> {
    /// The value as f64 for statistics and pictures (None for strings; the
    /// real part of a complex number).
    pub fn as_f64(&self) -> Option<f64> {
        Some(match *self {
            Element::F32(v) => f64::from(v),
            Element::F64(v) => v,
            Element::I64(v) => v as f64,
            Element::U64(v) => v as f64,
            Element::Bool(b) => f64::from(u8::from(b)),
            Element::C64(r, _) => f64::from(r),
            Element::C128(r, _) => r,
            Element::Str(_) => return None,
        })
    }
}

/// Decodes a minifloat with `exp_bits` exponent and `man_bits` mantissa bits
/// (plus a sign bit) and the given bias; special values are the caller's.
fn minifloat(bits: u32, exp_bits: u32, man_bits: u32, bias: i32) -> f32 {
    let sign = (bits >> (exp_bits + man_bits)) & 1;
    let exp = ((bits >> man_bits) & ((1 << exp_bits) - 1)) as i32;
    let man = f64::from(bits & ((1 << man_bits) - 1));
    let scale = f64::from(1u32 << man_bits);
    let magnitude = if exp == 0 {
        man / scale * 2f64.powi(1 - bias)
    } else {
        (1.0 + man / scale) * 2f64.powi(exp - bias)
    };
    let v = if sign == 1 { -magnitude } else { magnitude };
    v as f32
}

/// Decodes one element from its bit pattern (the little-endian bytes of
/// raw storage, or the value of a typed field, already split to one element).
pub fn decode_bits(elem: Elem, raw: u64) -> Element<'static> {
    use Elem::*;
    match elem {
        F32 => Element::F32(f32::from_bits(raw as u32)),
        F64 => Element::F64(f64::from_bits(raw)),
        F16 => Element::F32(f16::from_bits(raw as u16).to_f32()),
        BF16 => Element::F32(bf16::from_bits(raw as u16).to_f32()),
        F8E4M3FN => {
            let b = (raw & 0xff) as u32;
            // No infinities; S.1111.111 is NaN.
            Element::F32(if b & 0x7f == 0x7f {
                f32::NAN
            } else {
                minifloat(b, 4, 3, 7)
            })
        }
        F8E4M3FNUZ => {
            let b = (raw & 0xff) as u32;
            // No infinities, no negative zero; 0x80 is the only NaN.
            Element::F32(if b == 0x80 {
                f32::NAN
            } else {
                minifloat(b, 4, 3, 8)
            })
        }
        F8E5M2 => {
            let b = (raw & 0xff) as u32;
            // IEEE-like: exponent all ones is Inf (mantissa 0) or NaN.
            Element::F32(if b & 0x7c == 0x7c {
                if b & 0x03 == 0 {
                    if b & 0x80 != 0 {
                        f32::NEG_INFINITY
                    } else {
                        f32::INFINITY
                    }
                } else {
                    f32::NAN
                }
            } else {
                minifloat(b, 5, 2, 15)
            })
        }
        F8E5M2FNUZ => {
            let b = (raw & 0xff) as u32;
            Element::F32(if b == 0x80 {
                f32::NAN
            } else {
                minifloat(b, 5, 2, 16)
            })
        }
        F8E4M3B11FNUZ => {
            let b = (raw & 0xff) as u32;
            Element::F32(if b == 0x80 {
                f32::NAN
            } else {
                minifloat(b, 4, 3, 11)
            })
        }
        F8E8M0 => {
            let b = (raw & 0xff) as i32;
            // Exponent only, no sign and no zero: 2^(e-127); 0xFF is NaN.
            Element::F32(if b == 0xff {
                f32::NAN
            } else {
                2f64.powi(b - 127) as f32
            })
        }
        F4E2M1 => Element::F32(minifloat((raw & 0xf) as u32, 2, 1, 1)),
        F6E2M3 => Element::F32(minifloat((raw & 0x3f) as u32, 2, 3, 1)),
        F6E3M2 => Element::F32(minifloat((raw & 0x3f) as u32, 3, 2, 3)),
        I8 => Element::I64(i64::from(raw as u8 as i8)),
        I16 => Element::I64(i64::from(raw as u16 as i16)),
        I32 => Element::I64(i64::from(raw as u32 as i32)),
        I64 => Element::I64(raw as i64),
        U8 => Element::U64(u64::from(raw as u8)),
        U16 => Element::U64(u64::from(raw as u16)),
        U32 => Element::U64(u64::from(raw as u32)),
        U64 => Element::U64(raw),
        I4 => Element::I64(i64::from(((raw as u8) << 4) as i8 >> 4)),
        U4 => Element::U64(raw & 0xf),
        I2 => Element::I64(i64::from(((raw as u8) << 6) as i8 >> 6)),
        U2 => Element::U64(raw & 0x3),
        // Any non-zero value is true, as protobuf and numpy read it.
        Bool => Element::Bool(raw != 0),
        // Complex and strings never come from one bit pattern.
        C64 | C128 | Str => Element::U64(raw),
    }
}

/// Reads `n` little-endian bytes (n <= 8) into a u64.
fn le(bytes: &[u8]) -> u64 {
    // The common widths as single loads: this is the hot loop of big tensors.
    if let Ok(b) = <[u8; 4]>::try_from(bytes) {
        return u64::from(u32::from_le_bytes(b));
    }
    if let Ok(b) = <[u8; 8]>::try_from(bytes) {
        return u64::from_le_bytes(b);
    }
    bytes
        .iter()
        .rev()
        .fold(0u64, |acc, &b| (acc << 8) | u64::from(b))
}

/// The bytes raw storage needs for `elements` elements: ceil(n * bits / 8),
/// None on overflow.
pub fn raw_size(elem: Elem, elements: u64) -> Option<u64> {
    elements
        .checked_mul(elem.bits())
        .map(|bits| bits.div_ceil(8))
}

/// How many whole elements raw bytes hold.
pub fn raw_capacity(elem: Elem, len: u64) -> u64 {
    match elem.bits() {
        0 => 0,
        bits => len.saturating_mul(8) / bits,
    }
}

/// Where a tensor's elements come from.
pub enum Source<'a> {
    /// Little-endian, row-major, packed bytes (ONNX raw_data, TensorFlow
    /// tensor_content, external data).
    Raw(&'a [u8]),
    /// A typed field's values, each a bit pattern or number that holds
    /// `Elem::elements_per_int32` elements (or half an element for complex).
    Typed(Box<dyn Iterator<Item = u64> + 'a>),
    /// Strings, one per element.
    Strings(Box<dyn Iterator<Item = &'a [u8]> + 'a>),
    /// No values.
    Empty,
}

/// Streams the elements of a tensor from its source, never more than
/// `total` of them.
///
/// Elements from `implied_from` on are implied by TensorFlow's padding
/// rule: each is `fill` (the last stored element, or zero). They are never
/// produced one by one unless asked: [`Elements::next_run`] yields them as
/// one run, and [`Elements::advance`] and `nth` skip into them in O(1).
pub struct Elements<'a> {
    elem: Elem,
    /// Sub-byte types stored one per byte (TensorFlow's int4 and float4).
    byte_aligned: bool,
    source: Source<'a>,
    index: u64,
    total: u64,
    /// Elements left over from the last typed value (sub-byte types).
    pending: u64,
    pending_left: u64,
    /// The index of the first implied element (`total` when none is).
    implied_from: u64,
    /// The value of every implied element: kept up to date with each
    /// stored element decoded while a padded tail follows.
    fill: Option<Element<'a>>,
    /// Yield each element's stored bit pattern as `Element::U64` instead
    /// of its value (see [`Elements::codes`]).
    codes: bool,
}

impl<'a> Elements<'a> {
    pub fn new(elem: Elem, source: Source<'a>, total: u64) -> Self {
        Elements {
            elem,
            byte_aligned: false,
            source,
            index: 0,
            total,
            pending: 0,
            pending_left: 0,
            implied_from: total,
            fill: None,
            codes: false,
        }
    }

    /// Yields each element's bit pattern as it is stored (`Element::U64`,
    /// not yet masked to the element's width) instead of decoding it: for
    /// readers that keep float16, bfloat16, float8 and sub-byte elements
    /// in their own encoding. Complex and string elements are unchanged.
    pub fn codes(mut self) -> Self {
        self.codes = true;
        self
    }

    /// One element from its bit pattern: decoded, or the pattern itself.
    fn element_of(&self, bits: u64) -> Element<'static> {
        if self.codes {
            Element::U64(bits)
        } else {
            decode_bits(self.elem, bits)
        }
    }

    /// Elements from `stored` on repeat the last stored one (TensorFlow's
    /// padding rule); the source holds only the stored values.
    pub fn padded(mut self, stored: u64) -> Self {
        self.implied_from = stored.min(self.total);
        self
    }

    /// The value of implied elements until a stored one replaces it (zero
    /// for a tensor without values, "" for strings).
    pub fn filled_with(mut self, value: Element<'a>) -> Self {
        self.fill = Some(value);
        self
    }

    /// The next run of equal elements, with its length: a stored element
    /// is a run of 1, the implied tail one run of all its elements. Every
    /// pass that summarises values (statistics, histogram, pictures,
    /// comparison) reads elements this way, so its work is bounded by the
    /// stored values whatever the shape claims.
    pub fn next_run(&mut self) -> Option<(Element<'a>, u64)> {
        if self.index >= self.implied_from && self.index < self.total {
            let value = self.fill?;
            let count = self.total - self.index;
            self.index = self.total;
            return Some((value, count));
        }
        self.next().map(|e| (e, 1))
    }

    /// Reads sub-byte elements from whole bytes, one per byte.
    pub fn byte_aligned(mut self, yes: bool) -> Self {
        self.byte_aligned = yes;
        self
    }

    /// The raw bytes, type and layout of elements read from raw storage
    /// (for readers that split the elements between threads).
    pub fn raw_parts(&self) -> Option<(&'a [u8], Elem, bool)> {
        match self.source {
            Source::Raw(b) => Some((b, self.elem, self.byte_aligned)),
            _ => None,
        }
    }

    /// The index of the next element.
    pub fn next_index(&self) -> u64 {
        self.index
    }

    /// Skips `k` elements without decoding them: at once in raw bytes and
    /// in the implied tail, value by value in typed fields (bounded by the
    /// input).
    pub fn advance(&mut self, k: u64) {
        let target = self.index.saturating_add(k).min(self.total);
        if target >= self.implied_from && self.index < self.implied_from {
            // To the tail: decode the last stored element (its value is
            // the tail's), then jump.
            self.skip_stored(self.implied_from - 1 - self.index);
            let _ = self.next();
        }
        if self.index >= self.implied_from {
            self.index = target.max(self.index);
        } else {
            self.skip_stored(target - self.index);
        }
    }

    /// Skips `k` stored elements (none of them implied).
    fn skip_stored(&mut self, k: u64) {
        let k = k.min(self.total.saturating_sub(self.index));
        if k == 0 {
            return;
        }
        let per = if self.byte_aligned {
            1
        } else {
            self.elem.elements_per_int32()
        };
        let skip = |it: &mut dyn Iterator<Item = u64>, values: u64| {
            if values > 0 {
                let _ = it.nth(usize::try_from(values - 1).unwrap_or(usize::MAX));
            }
        };
        match &mut self.source {
            Source::Raw(_) | Source::Empty => {}
            Source::Strings(it) => {
                let _ = it.nth(usize::try_from(k - 1).unwrap_or(usize::MAX));
            }
            Source::Typed(it) => {
                if self.elem.is_complex() {
                    skip(it.as_mut(), k.saturating_mul(2));
                } else if per == 1 {
                    skip(it.as_mut(), k);
                } else {
                    let mut k = k;
                    let from_pending = k.min(self.pending_left);
                    self.pending_left -= from_pending;
                    k -= from_pending;
                    skip(it.as_mut(), k / per);
                    if !k.is_multiple_of(per) {
                        self.pending = it.next().unwrap_or(0);
                        self.pending_left = per - k % per;
                    }
                }
            }
        }
        self.index += k;
    }

    fn raw_element(&self, bytes: &[u8], i: u64) -> Option<Element<'static>> {
        let elem = self.elem;
        let bits = if self.byte_aligned {
            elem.bits().max(8)
        } else {
            elem.bits()
        };
        let bit = i.checked_mul(bits)?;
        let at = usize::try_from(bit / 8).ok()?;
        Some(match elem {
            Elem::C64 => {
                let chunk = bytes.get(at..at.checked_add(8)?)?;
                let (re, im) = chunk.split_at(4);
                Element::C64(f32::from_bits(le(re) as u32), f32::from_bits(le(im) as u32))
            }
            Elem::C128 => {
                let chunk = bytes.get(at..at.checked_add(16)?)?;
                let (re, im) = chunk.split_at(8);
                Element::C128(f64::from_bits(le(re)), f64::from_bits(le(im)))
            }
            _ if bits >= 8 => {
                self.element_of(le(bytes.get(at..at.checked_add((bits / 8) as usize)?)?))
            }
            _ => {
                // Sub-byte: a little-endian bit stream, first element lowest.
                let lo = u64::from(*bytes.get(at)?);
                let hi = u64::from(bytes.get(at + 1).copied().unwrap_or(0));
                let word = lo | (hi << 8);
                self.element_of((word >> (bit % 8)) & ((1 << bits) - 1))
            }
        })
    }
}

/// The bytes of one element of `elem` when it takes whole bytes (not a
/// string, not a sub-byte type).
pub fn whole_bytes(elem: Elem) -> Option<u64> {
    let bits = elem.bits();
    (elem != Elem::Str && bits != 0 && bits.is_multiple_of(8)).then_some(bits / 8)
}

/// Appends the elements `it` yields as the little-endian packed array of
/// their type, each by its stored bit pattern (nothing rounded through
/// float32): for readers that rebuild raw storage from typed fields (a V1
/// checkpoint's slices). False for types without whole-byte elements
/// (strings, sub-byte types).
pub fn pack_le(it: &mut Elements<'_>, out: &mut Vec<u8>) -> bool {
    pack_le_n(it, u64::MAX, out).is_some()
}

/// [`pack_le`] of the next `count` elements at most: how many were packed,
/// None for types without whole-byte elements.
pub fn pack_le_n(it: &mut Elements<'_>, count: u64, out: &mut Vec<u8>) -> Option<u64> {
    let elem = it.elem;
    let width = whole_bytes(elem)?;
    let width = usize::try_from(width).unwrap_or(8).min(8);
    it.codes = true;
    let mut packed = 0u64;
    for e in it.take(usize::try_from(count).unwrap_or(usize::MAX)) {
        packed += 1;
        match e {
            // Any non-zero value is true, stored as 1.
            Element::U64(code) if elem == Elem::Bool => out.push(u8::from(code != 0)),
            Element::U64(code) => {
                out.extend_from_slice(code.to_le_bytes().get(..width).unwrap_or_default())
            }
            Element::I64(v) => {
                out.extend_from_slice(v.to_le_bytes().get(..width).unwrap_or_default())
            }
            Element::Bool(b) => out.push(u8::from(b)),
            Element::F32(v) => match elem {
                Elem::F16 => out.extend_from_slice(&f16::from_f32(v).to_bits().to_le_bytes()),
                Elem::BF16 => out.extend_from_slice(&bf16::from_f32(v).to_bits().to_le_bytes()),
                _ => out.extend_from_slice(v.to_le_bytes().get(..width.min(4)).unwrap_or_default()),
            },
            Element::F64(v) => out.extend_from_slice(&v.to_le_bytes()),
            Element::C64(re, im) => {
                out.extend_from_slice(&re.to_le_bytes());
                out.extend_from_slice(&im.to_le_bytes());
            }
            Element::C128(re, im) => {
                out.extend_from_slice(&re.to_le_bytes());
                out.extend_from_slice(&im.to_le_bytes());
            }
            Element::Str(_) => return None,
        }
    }
    Some(packed)
}

impl<'a> Iterator for Elements<'a> {
    type Item = Element<'a>;

    /// Raw storage and the implied tail seek straight to element `n` (a
    /// page of values deep in a huge tensor costs no pass over the ones
    /// before it); typed fields skip value by value.
    fn nth(&mut self, n: usize) -> Option<Element<'a>> {
        self.advance(n as u64);
        self.next()
    }

    fn next(&mut self) -> Option<Element<'a>> {
        if self.index >= self.total {
            return None;
        }
        if self.index >= self.implied_from {
            let value = self.fill?;
            self.index += 1;
            return Some(value);
        }
        let Some(out) = self.next_stored() else {
            // Fewer stored values than counted: the tail starts here.
            let value = self.fill.filter(|_| self.implied_from < self.total)?;
            self.implied_from = self.index;
            self.index += 1;
            return Some(value);
        };
        if self.implied_from < self.total {
            self.fill = Some(out);
        }
        self.index += 1;
        Some(out)
    }
}

impl<'a> Elements<'a> {
    /// Decodes the stored element at `index` (without moving on).
    fn next_stored(&mut self) -> Option<Element<'a>> {
        Some(match &mut self.source {
            Source::Raw(bytes) => {
                let bytes: &'a [u8] = bytes;
                if self.elem == Elem::F32 {
                    // The most common tensor by far: one load, no bit arithmetic.
                    let at = usize::try_from(self.index).ok()?.checked_mul(4)?;
                    let word: [u8; 4] = bytes.get(at..at.checked_add(4)?)?.try_into().ok()?;
                    Element::F32(f32::from_le_bytes(word))
                } else {
                    self.raw_element(bytes, self.index)?
                }
            }
            Source::Strings(it) => Element::Str(it.next()?),
            Source::Empty => return None,
            Source::Typed(it) => match self.elem {
                Elem::C64 => {
                    let (re, im) = (it.next()?, it.next()?);
                    Element::C64(f32::from_bits(re as u32), f32::from_bits(im as u32))
                }
                Elem::C128 => {
                    let (re, im) = (it.next()?, it.next()?);
                    Element::C128(f64::from_bits(re), f64::from_bits(im))
                }
                elem => {
                    let per = if self.byte_aligned {
                        1
                    } else {
                        elem.elements_per_int32()
                    };
                    if per == 1 {
                        let bits = it.next()?;
                        self.element_of(bits)
                    } else {
                        if self.pending_left == 0 {
                            self.pending = it.next()?;
                            self.pending_left = per;
                        }
                        let width = elem.bits();
                        let shift = (per - self.pending_left) * width;
                        self.pending_left -= 1;
                        self.element_of((self.pending >> shift) & ((1 << width) - 1))
                    }
                }
            },
        })
    }
}

/// What a renderer needs to show a tensor of any format: its type, shape,
/// and where its elements are.
pub struct TensorView<'m, 'a> {
    /// The data type's name in its own format ("FLOAT", "DT_FLOAT").
    pub type_name: String,
    /// None when the data type is unknown or has no values to decode.
    pub elem: Option<Elem>,
    /// None for an unknown rank.
    pub dims: Option<Vec<i64>>,
    /// Raw storage keeps sub-byte elements one per byte (TensorFlow).
    pub byte_aligned: bool,
    /// How many elements to decode.
    pub elements: u64,
    pub data: TensorData<'m, 'a>,
}

impl TensorView<'_, '_> {
    /// Elements actually stored in the input (or its side file); the rest
    /// up to `elements` are implied by TensorFlow's padding rule (the last
    /// value repeated, or zeros). Counted from the stored values, never by
    /// decoding them.
    pub fn stored_elements(&self) -> u64 {
        let n = self.elements;
        match &self.data {
            TensorData::Typed {
                fields,
                wire,
                pad: true,
            } => {
                let values: u64 = fields
                    .iter()
                    .map(|f| crate::decode::RawScalars::count(&f.value, *wire))
                    .fold(0u64, u64::saturating_add);
                let per_value = if self.elem.is_some_and(Elem::is_complex) {
                    values / 2
                } else {
                    values
                };
                per_value.min(n)
            }
            TensorData::Strings { fields, pad: true } => (fields.len() as u64).min(n),
            TensorData::PaddedBytes(b) => (b.len() as u64).min(n),
            TensorData::Zeros | TensorData::Unavailable(_) | TensorData::None => 0,
            _ => n,
        }
    }

    /// Elements implied by padding, not stored (none when the values do
    /// not read at all: they are missing, not implied).
    pub fn implied_elements(&self) -> u64 {
        match self.data {
            TensorData::Unavailable(_) | TensorData::None => 0,
            _ => self.elements.saturating_sub(self.stored_elements()),
        }
    }

    /// How many implied values may be printed without `allow_implied`:
    /// [`MAX_IMPLIED_VALUES`], fewer when each repeats a long string.
    pub fn implied_print_cap(&self) -> u64 {
        let repeated = match &self.data {
            TensorData::Strings { fields, pad: true } => fields
                .iter()
                .rev()
                .find_map(|f| match f.value {
                    crate::decode::Value::Bytes(b) => Some(b.len() as u64),
                    _ => None,
                })
                .unwrap_or(0),
            _ => 0,
        };
        match MAX_IMPLIED_STRING_BYTES.checked_div(repeated) {
            Some(n) => n.min(MAX_IMPLIED_VALUES),
            None => MAX_IMPLIED_VALUES,
        }
    }
}

/// Where a tensor's elements are, still encoded.
pub enum TensorData<'m, 'a> {
    Raw(&'a [u8]),
    /// Occurrences of a typed field; `pad` repeats the last value up to the
    /// element count (TensorFlow's rule for short typed fields).
    Typed {
        fields: &'m [crate::decode::Field<'a>],
        wire: crate::wire::WireType,
        pad: bool,
    },
    Strings {
        fields: &'m [crate::decode::Field<'a>],
        pad: bool,
    },
    /// Strings at these ranges of `bytes`, one per element (a tensor
    /// bundle's strings, read with their lengths from their shard).
    StringRanges {
        bytes: &'a [u8],
        ranges: &'m [std::ops::Range<usize>],
    },
    External(crate::external::ExternalRef),
    /// One element per byte, the last repeated up to the element count
    /// (TensorFlow's float8_val, a bytes field padded by the usual rule).
    PaddedBytes(&'a [u8]),
    /// All elements are zero (TensorFlow: a tensor with no values).
    Zeros,
    /// Values that cannot be shown, and why.
    Unavailable(String),
    /// No elements at all.
    None,
}

/// A tensor's elements ready to iterate, holding any side file they live in.
pub enum LoadedValues<'a> {
    /// Elements in the input (an all-zero tensor is an implied tail of
    /// zeros from the first element).
    Ready(Elements<'a>, u64),
    External(crate::external::ExternalBytes, Elem, u64),
    Unavailable(String),
    /// The tensor has no elements.
    Nothing,
}

impl LoadedValues<'_> {
    /// Runs `f` on the element reader of any loaded values (the one held
    /// in them, or one over a mapped side file); None when there are no
    /// values to read.
    pub fn with_elements<R>(&mut self, f: impl FnOnce(&mut Elements<'_>) -> R) -> Option<R> {
        match self {
            LoadedValues::Ready(it, _) => Some(f(it)),
            LoadedValues::External(bytes, elem, n) => {
                Some(f(&mut Elements::new(*elem, Source::Raw(bytes.bytes()), *n)))
            }
            LoadedValues::Unavailable(_) | LoadedValues::Nothing => None,
        }
    }
}

/// Resolves where a tensor's values are. External files are mapped here.
/// Values implied by TensorFlow's padding rule are the reader's implied
/// tail (see [`Elements`]), never an iterator of repeats.
pub fn load_values<'v>(
    view: &TensorView<'v, 'v>,
    dir: Option<&crate::external::Folder>,
) -> LoadedValues<'v> {
    let Some(elem) = view.elem else {
        return match &view.data {
            TensorData::Unavailable(why) => LoadedValues::Unavailable(why.clone()),
            _ => {
                LoadedValues::Unavailable(format!("data type {} cannot be decoded", view.type_name))
            }
        };
    };
    let n = view.elements;
    let ready = |it: Elements<'v>| LoadedValues::Ready(it, n);
    match &view.data {
        TensorData::Raw(bytes) => {
            ready(Elements::new(elem, Source::Raw(bytes), n).byte_aligned(view.byte_aligned))
        }
        TensorData::Typed { fields, wire, pad } => {
            let wire: crate::wire::WireType = *wire;
            let mut available: u64 = fields
                .iter()
                .map(|f| crate::decode::RawScalars::count(&f.value, wire))
                .sum();
            if elem.is_complex() {
                // Values come in (re, im) pairs; an unpaired last value is
                // dropped (TensorFlow) before any padding repeats the last pair.
                available -= available % 2;
            }
            let raws = fields
                .iter()
                .flat_map(move |f| crate::decode::RawScalars::new(&f.value, wire))
                .take(usize::try_from(available).unwrap_or(usize::MAX));
            let it = Elements::new(elem, Source::Typed(Box::new(raws)), n)
                .byte_aligned(view.byte_aligned);
            ready(if *pad {
                it.padded(view.stored_elements())
            } else {
                it
            })
        }
        TensorData::Strings { fields, pad } => {
            let it = Elements::new(elem, Source::Strings(Box::new(strings(fields))), n);
            ready(if *pad {
                // TensorFlow: repeat the last string; none at all means "".
                it.padded(view.stored_elements())
                    .filled_with(Element::Str(b""))
            } else {
                it
            })
        }
        TensorData::StringRanges { bytes, ranges } => {
            let bytes: &'v [u8] = bytes;
            let strings = ranges
                .iter()
                .map(move |r| bytes.get(r.clone()).unwrap_or(&[]));
            ready(Elements::new(elem, Source::Strings(Box::new(strings)), n))
        }
        TensorData::External(r) => match r.load(dir) {
            Ok(bytes) => LoadedValues::External(bytes, elem, n),
            Err(why) => LoadedValues::Unavailable(why.to_string()),
        },
        TensorData::PaddedBytes(bytes) => {
            let values = bytes.iter().map(|&b| u64::from(b));
            ready(
                Elements::new(elem, Source::Typed(Box::new(values)), n)
                    .byte_aligned(true)
                    .padded(view.stored_elements()),
            )
        }
        TensorData::Zeros => ready(
            Elements::new(elem, Source::Empty, n)
                .padded(0)
                .filled_with(zero_of(elem)),
        ),
        TensorData::Unavailable(why) => LoadedValues::Unavailable(why.clone()),
        TensorData::None => LoadedValues::Nothing,
    }
}

/// Calls `f` on each run of equal elements of loaded values (external ones
/// included) with its length: each stored element a run of 1, the values
/// implied by padding one run. The pass every summary of values goes
/// through (statistics, histogram, pictures): its work is bounded by the
/// stored values, whatever the shape claims.
pub fn for_each_run<E>(
    loaded: &mut LoadedValues<'_>,
    mut f: impl FnMut(Element<'_>, u64) -> Result<(), E>,
) -> Result<(), E> {
    loaded
        .with_elements(|it| {
            while let Some((e, count)) = it.next_run() {
                f(e, count)?;
            }
            Ok(())
        })
        .unwrap_or(Ok(()))
}

/// The strings stored in string fields, borrowed from the input (the
/// element reader pads them; see [`load_values`]).
pub fn strings<'m, 'a>(
    fields: &'m [crate::decode::Field<'a>],
) -> impl DoubleEndedIterator<Item = &'a [u8]> + Clone + use<'m, 'a> {
    fields.iter().filter_map(|f| match f.value {
        crate::decode::Value::Bytes(b) => Some(b),
        _ => None,
    })
}

/// Calls `f` on each element of loaded values (external ones included),
/// implied ones one by one: only for passes that stop early or write one
/// thing per element (printing, .npy); summaries use [`for_each_run`].
pub fn for_each_element<E>(
    loaded: &mut LoadedValues<'_>,
    mut f: impl FnMut(Element<'_>) -> Result<(), E>,
) -> Result<(), E> {
    loaded
        .with_elements(|it| it.try_for_each(&mut f))
        .unwrap_or(Ok(()))
}

/// Calls `f` with the index and value of each element of loaded values
/// except those whose index is in `gap`, which are skipped without being
/// decoded where the storage allows (raw bytes, side files, the implied
/// tail).
pub fn for_each_element_except<E>(
    loaded: &mut LoadedValues<'_>,
    gap: std::ops::Range<u64>,
    mut f: impl FnMut(u64, Element<'_>) -> Result<(), E>,
) -> Result<(), E> {
    loaded
        .with_elements(|it| {
            loop {
                let i = it.next_index();
                if i == gap.start && gap.end > gap.start {
                    it.advance(gap.end - gap.start);
                    continue;
                }
                let Some(e) = it.next() else {
                    return Ok(());
                };
                f(i, e)?;
            }
        })
        .unwrap_or(Ok(()))
}

/// The zero of an element type (TensorFlow's tensor without values).
pub fn zero_of(elem: Elem) -> Element<'static> {
    use Elem;
    match elem {
        Elem::F64 => Element::F64(0.0),
        Elem::C64 => Element::C64(0.0, 0.0),
        Elem::C128 => Element::C128(0.0, 0.0),
        Elem::Bool => Element::Bool(false),
        Elem::Str => Element::Str(b""),
        Elem::I8 | Elem::I16 | Elem::I32 | Elem::I64 | Elem::I4 | Elem::I2 => Element::I64(0),
        Elem::U8 | Elem::U16 | Elem::U32 | Elem::U64 | Elem::U4 | Elem::U2 => Element::U64(0),
        _ => Element::F32(0.0),
    }
}

/// Multiplies dimensions with overflow checks. Negative dimensions are the
/// caller's to reject first.
pub fn element_count(dims: &[u64]) -> Option<u64> {
    dims.iter().try_fold(1u64, |acc, &d| acc.checked_mul(d))
}

/// At most this many values implied by TensorFlow's padding rule (a short
/// typed field repeats its last value up to the shape; no values means
/// zeros) are printed unless the renderer's `allow_implied` is set: a 61-byte Const of
/// shape [2^34] would otherwise print 86 GB.
pub const MAX_IMPLIED_VALUES: u64 = 1 << 20;

/// Nor more implied values than repeat this many bytes of a stored string
/// (the padding rule repeats a string too: a 1 KB Const of 65,536 strings
/// would print 65 MB).
pub const MAX_IMPLIED_STRING_BYTES: u64 = 1 << 20;

/// A .npy file of a tensor with values implied by padding is written only
/// up to this many bytes of values unless the renderer's `allow_implied` is set.
pub const MAX_IMPLIED_NPY_BYTES: u64 = 1 << 30;

#[cfg(test)]
mod tests {
    use super::*;

    fn f(elem: Elem, bits: u64) -> f32 {
        match decode_bits(elem, bits) {
            Element::F32(v) => v,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn worked_examples() {
        // FLOAT16 0x3864 = 0.548828 (the worked example of the TensorProto field table).
        assert!((f(Elem::F16, 0x3864) - 0.548828).abs() < 1e-6);
        assert_eq!(f(Elem::F16, 0x3800), 0.5);
        // INT4: the int32 136 (0x88) holds -8 and -8.
        let els: Vec<_> =
            Elements::new(Elem::I4, Source::Typed(Box::new([136u64].into_iter())), 2).collect();
        assert_eq!(els, vec![Element::I64(-8), Element::I64(-8)]);
    }

    #[test]
    fn float8_specials() {
        assert!(f(Elem::F8E4M3FN, 0x7f).is_nan());
        assert!(f(Elem::F8E4M3FN, 0xff).is_nan());
        assert_eq!(f(Elem::F8E4M3FN, 0x7e), 448.0);
        assert_eq!(f(Elem::F8E4M3FN, 0x01), 2f32.powi(-9));
        assert!(f(Elem::F8E4M3FNUZ, 0x80).is_nan());
        assert_eq!(f(Elem::F8E4M3FNUZ, 0x7f), 240.0);
        assert_eq!(f(Elem::F8E5M2, 0x7c), f32::INFINITY);
        assert_eq!(f(Elem::F8E5M2, 0xfc), f32::NEG_INFINITY);
        assert!(f(Elem::F8E5M2, 0x7d).is_nan());
        assert_eq!(f(Elem::F8E5M2, 0x7b), 57344.0);
        assert!(f(Elem::F8E5M2FNUZ, 0x80).is_nan());
        assert_eq!(f(Elem::F8E5M2FNUZ, 0x7f), 57344.0);
        assert_eq!(f(Elem::F8E8M0, 127), 1.0);
        assert_eq!(f(Elem::F8E8M0, 0), 2f32.powi(-127));
        assert!(f(Elem::F8E8M0, 0xff).is_nan());
        assert_eq!(f(Elem::F8E4M3FN, 0x80).to_bits(), (-0.0f32).to_bits());
    }

    #[test]
    fn small_floats() {
        assert_eq!(f(Elem::F4E2M1, 0x7), 6.0);
        assert_eq!(f(Elem::F4E2M1, 0x1), 0.5);
        assert_eq!(f(Elem::F4E2M1, 0xf), -6.0);
        assert_eq!(f(Elem::F6E2M3, 0x1f), 7.5);
        assert_eq!(f(Elem::F6E3M2, 0x1f), 28.0);
        assert_eq!(f(Elem::F6E3M2, 0x01), 0.0625);
    }

    #[test]
    fn raw_sub_byte_layouts() {
        // 2-bit: x0 | x1<<2 | x2<<4 | x3<<6
        let els: Vec<_> = Elements::new(Elem::U2, Source::Raw(&[0b11_10_01_00]), 4).collect();
        assert_eq!(els, [0, 1, 2, 3].map(Element::U64));
        // 6-bit: a bit stream from the lowest bit; 4 elements in 3 bytes.
        let vals = [1u32, 2, 3, 63];
        let stream = vals
            .iter()
            .enumerate()
            .fold(0u32, |acc, (i, &v)| acc | (v << (6 * i)));
        let bytes = stream.to_le_bytes();
        let els: Vec<_> = Elements::new(Elem::U4, Source::Raw(&[0x21]), 2).collect();
        assert_eq!(els, vec![Element::U64(1), Element::U64(2)]);
        let e = Elements::new(Elem::F6E3M2, Source::Raw(&bytes[..3]), 4);
        assert_eq!(e.count(), 4);
        assert_eq!(raw_size(Elem::F6E2M3, 5), Some(4));
        assert_eq!(raw_size(Elem::I4, 5), Some(3));
        assert_eq!(raw_size(Elem::F32, u64::MAX), None);
    }
}

//! Tensors as pictures: PNG files (via the `png` crate, with the `picture`
//! feature) and a small colour preview for the text view, drawn with
//! half-block characters and 24-bit colour escapes.
//!
//! Image-like shapes: H x W (grey); C x H x W and 1 x C x H x W with C of
//! 1, 3 or 4 (grey, RGB, RGBA); H x W x C and 1 x H x W x C likewise; a
//! batch N x C x H x W as a grid of N tiles with a 1-pixel gap. Values map
//! to 0..255 by the tensor's finite min..max (integer tensors already in
//! 0..255 are taken as they are; booleans are 0 and 255; a constant tensor is
//! mid-grey; +Inf is 255 and -Inf 0); a pixel with a NaN channel takes the
//! marker colour [`NAN_COLOUR`] (a grey picture with NaNs is written as RGB
//! so the marker shows). Complex tensors are drawn by magnitude. Elements are
//! decoded through [`crate::tensor`], so every numeric type works.
//!
//! A weight of a model ([`Drawing::Weights`]: an ONNX initializer or
//! Constant, a TensorFlow Const) is drawn as what it is rather than as an
//! image: a 2-D matrix as a heat map (blue below zero, white at zero, red
//! above, by the largest magnitude), a rank-4 convolution kernel in its
//! format's order (ONNX [out, in, H, W], TensorFlow [H, W, in, out]) as its
//! filters, one tile per output channel: RGB when it has 3 in-channels, a
//! heat map when 1, else a grid with a row per output channel and a column
//! per in-channel; a 1 x 1 kernel as the out x in matrix. The CLI's
//! `--picture` and the explorer ask [`Drawing`] of the facade's tensor, so
//! they draw the same picture.

use crate::external::Folder;
use crate::formats::KernelOrder;
use crate::stats::Stats;
use crate::stats::kernel::{Extreme, scalar};
use crate::tensor::{Elem, LoadedValues, TensorView, for_each_run, load_values};
use std::fmt;
use std::io::{self, Write};

/// The colour of NaN pixels: magenta, which no grey or natural image uses
/// much.
pub const NAN_COLOUR: [u8; 3] = [255, 0, 255];
/// The largest picture written, in bytes of pixels (256 MiB): a tensor
/// whose values are implied (TensorFlow's all-zero tensors) can claim any
/// shape, so the buffer is bounded by a constant.
pub const MAX_PICTURE_BYTES: u64 = 1 << 28;
/// Preview size bounds, in pixels (two pixel rows make one text line).
pub const PREVIEW_COLUMNS: u64 = 32;
pub const PREVIEW_ROWS: u64 = 64;
/// Grey of the gap between the tiles of a grid.
const GAP_GREY: u8 = 64;

/// What a tensor is to its file, as far as drawing goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Drawing {
    /// Drawn by its shape as an image (a tensor file, a test input).
    Image,
    /// A model's weight: matrices as heat maps, rank-4 kernels as filters
    /// in the format's axis order.
    Weights(KernelOrder),
}

/// How the axes of a tensor are read to draw it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    /// An image, channels first: [C, H, W], [N, C, H, W], [H, W].
    Chw,
    /// An image, channels last: [H, W, C], [1, H, W, C].
    Hwc,
    /// A kernel [out, in, H, W].
    Oihw,
    /// A kernel [H, W, in, out].
    Hwio,
    /// A weight matrix: rows by columns (a 1 x 1 kernel: out by in).
    Matrix,
}

impl Order {
    /// Its name, as the explorer shows it.
    pub fn name(self) -> &'static str {
        match self {
            Order::Chw => "CHW",
            Order::Hwc => "HWC",
            Order::Oihw => "OIHW",
            Order::Hwio => "HWIO",
            Order::Matrix => "matrix",
        }
    }
}

/// What one axis of the tensor is in the picture.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Axis {
    /// Which tile (an image of a batch, a kernel's output channel).
    Tile,
    /// Which tile within a tile's row group (a kernel's in-channel, when
    /// each in-channel is a tile of its own).
    TileInner,
    Channel,
    Y,
    X,
    /// Of size 1.
    Skip,
}

/// How a tensor's elements lay out as one picture or a grid of them.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    /// Images (grid tiles); 1 for a single image.
    pub tiles: u64,
    /// 1, 3 or 4.
    pub channels: u64,
    /// Rows of an image.
    pub height: u64,
    /// Columns of an image.
    pub width: u64,
    /// H x W x C storage rather than C x H x W.
    pub channels_last: bool,
    /// Grid columns of tiles.
    pub columns: u64,
    /// Grid rows of tiles.
    pub rows: u64,
    /// How the tensor's axes are read.
    pub order: Order,
    /// Tiles per grid row that one outer index spans: a kernel's
    /// in-channels when each is a tile (tile n is out n / inner, in
    /// n % inner); 1 otherwise.
    pub inner: u64,
    /// A single-channel weight, drawn as a heat map around zero.
    pub heat: bool,
    /// The tensor's axes, outermost first (unused slots: size 1).
    axes: [(Axis, u64); 4],
}

/// How far apart, in elements, neighbours along each of a picture's
/// directions are: element = tile / inner * tile + tile % inner *
/// tile_inner + channel * channel + y * y + x * x.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Strides {
    pub tile: u64,
    pub tile_inner: u64,
    pub channel: u64,
    pub y: u64,
    pub x: u64,
}

fn is_channels(d: u64) -> bool {
    matches!(d, 1 | 3 | 4)
}

fn positive(dims: &[i64]) -> Option<Vec<u64>> {
    dims.iter()
        .map(|&x| u64::try_from(x).ok().filter(|&x| x > 0))
        .collect()
}

/// A layout from its axes (outermost first, at most 4), grid columns from
/// the tile count unless `columns` is given.
fn from_axes(
    order: Order,
    axes: &[(Axis, u64)],
    columns: Option<u64>,
    heat: bool,
) -> Option<Layout> {
    let mut slots = [(Axis::Skip, 1u64); 4];
    let start = slots.len().checked_sub(axes.len())?;
    for (slot, axis) in slots.iter_mut().skip(start).zip(axes) {
        *slot = *axis;
    }
    let size = |want: Axis| -> u64 {
        axes.iter()
            .filter(|(a, _)| *a == want)
            .map(|(_, n)| *n)
            .product()
    };
    let inner = size(Axis::TileInner);
    let tiles = size(Axis::Tile).checked_mul(inner)?;
    let columns = columns.unwrap_or_else(|| isqrt_ceil(tiles));
    let rows = tiles.div_ceil(columns);
    Some(Layout {
        tiles,
        channels: size(Axis::Channel),
        height: size(Axis::Y),
        width: size(Axis::X),
        channels_last: order == Order::Hwc,
        columns,
        rows,
        order,
        inner,
        heat,
        axes: slots,
    })
}

/// The image layout of a shape, or None when it does not look like an image.
pub fn layout(dims: &[i64]) -> Option<Layout> {
    use Axis::*;
    let d = positive(dims)?;
    let (order, axes): (Order, &[(Axis, u64)]) = match *d.as_slice() {
        [h, w] => (Order::Chw, &[(Y, h), (X, w)]),
        [c, h, w] if is_channels(c) => (Order::Chw, &[(Channel, c), (Y, h), (X, w)]),
        [h, w, c] if is_channels(c) => (Order::Hwc, &[(Y, h), (X, w), (Channel, c)]),
        [n, c, h, w] if is_channels(c) => (Order::Chw, &[(Tile, n), (Channel, c), (Y, h), (X, w)]),
        [1, h, w, c] if is_channels(c) => (Order::Hwc, &[(Tile, 1), (Y, h), (X, w), (Channel, c)]),
        _ => return None,
    };
    from_axes(order, axes, None, false)
}

/// The layout of a weight: a matrix as a heat map, a rank-4 kernel as its
/// filters in `kernel` order; other shapes as an image.
pub fn weight_layout(dims: &[i64], kernel: KernelOrder) -> Option<Layout> {
    use Axis::*;
    let d = positive(dims)?;
    let matrix = |axes: &[(Axis, u64)]| from_axes(Order::Matrix, axes, None, true);
    match (d.as_slice(), kernel) {
        (&[h, w], _) => matrix(&[(Y, h), (X, w)]),
        (&[o, i, h, w], KernelOrder::Oihw) => {
            let axes = if h == 1 && w == 1 {
                return matrix(&[(Y, o), (X, i), (Skip, 1), (Skip, 1)]);
            } else if i == 1 || i == 3 {
                [(Tile, o), (Channel, i), (Y, h), (X, w)]
            } else {
                [(Tile, o), (TileInner, i), (Y, h), (X, w)]
            };
            kernel_layout(Order::Oihw, &axes, i)
        }
        (&[h, w, i, o], KernelOrder::Hwio) => {
            let axes = if h == 1 && w == 1 {
                return matrix(&[(Skip, 1), (Skip, 1), (X, i), (Y, o)]);
            } else if i == 1 || i == 3 {
                [(Y, h), (X, w), (Channel, i), (Tile, o)]
            } else {
                [(Y, h), (X, w), (TileInner, i), (Tile, o)]
            };
            kernel_layout(Order::Hwio, &axes, i)
        }
        _ => layout(dims),
    }
}

/// A kernel's filters: one tile per output channel in a square grid (RGB
/// for 3 in-channels, a heat map for 1), or a row of `ins` tiles per
/// output channel.
fn kernel_layout(order: Order, axes: &[(Axis, u64)], ins: u64) -> Option<Layout> {
    let per_in = axes.iter().any(|(a, _)| *a == Axis::TileInner);
    from_axes(order, axes, per_in.then_some(ins), ins != 3)
}

/// The layout of the 2-D slice number `slice` of a tensor of rank 3 or
/// more (its last two axes), drawn as a heat map for a weight and grey
/// otherwise; None for other shapes or a slice past the last.
pub fn slice_layout(dims: &[i64], slice: u64, drawing: Drawing) -> Option<(Layout, u64)> {
    let d = positive(dims)?;
    let [lead @ .., h, w] = d.as_slice() else {
        return None;
    };
    if lead.is_empty() {
        return None;
    }
    let slices = lead.iter().try_fold(1u64, |a, &b| a.checked_mul(b))?;
    if slice >= slices {
        return None;
    }
    let heat = matches!(drawing, Drawing::Weights(_));
    let order = if heat { Order::Matrix } else { Order::Chw };
    let l = from_axes(order, &[(Axis::Y, *h), (Axis::X, *w)], None, heat)?;
    let first = slice.checked_mul(h.checked_mul(*w)?)?;
    Some((l, first))
}

impl Drawing {
    /// The layout of a tensor of shape `dims` drawn so.
    pub fn layout(self, dims: &[i64]) -> Option<Layout> {
        match self {
            Drawing::Image => layout(dims),
            Drawing::Weights(k) => weight_layout(dims, k),
        }
    }
}

/// The smallest c with c * c >= n (n >= 1).
fn isqrt_ceil(n: u64) -> u64 {
    // Start from the float estimate, then correct it exactly.
    let mut c = ((n as f64).sqrt() as u64).max(1);
    while c > 1 && (c - 1).checked_mul(c - 1).is_none_or(|sq| sq >= n) {
        c -= 1;
    }
    while c.checked_mul(c).is_some_and(|sq| sq < n) {
        c += 1;
    }
    c
}

impl Layout {
    fn gap(&self) -> u64 {
        u64::from(self.tiles > 1)
    }

    /// The whole picture's width and height (tiles and gaps), None on
    /// overflow.
    pub fn canvas(&self) -> Option<(u64, u64)> {
        let gap = self.gap();
        let w = self
            .columns
            .checked_mul(self.width.checked_add(gap)?)?
            .checked_sub(gap)?;
        let h = self
            .rows
            .checked_mul(self.height.checked_add(gap)?)?
            .checked_sub(gap)?;
        Some((w, h))
    }

    /// Elements in the tensor.
    pub fn elements(&self) -> Option<u64> {
        self.tiles
            .checked_mul(self.channels)?
            .checked_mul(self.height)?
            .checked_mul(self.width)
    }

    /// How far apart neighbours along each direction of the picture are,
    /// in elements of the tensor.
    pub fn strides(&self) -> Strides {
        let mut st = Strides {
            tile: 0,
            tile_inner: 0,
            channel: 0,
            y: 0,
            x: 0,
        };
        let mut step = 1u64;
        for &(axis, size) in self.axes.iter().rev() {
            match axis {
                Axis::Tile => st.tile = step,
                Axis::TileInner => st.tile_inner = step,
                Axis::Channel => st.channel = step,
                Axis::Y => st.y = step,
                Axis::X => st.x = step,
                Axis::Skip => {}
            }
            step = step.saturating_mul(size);
        }
        st
    }

    /// Where element `i` (row-major) goes: canvas x, y and channel.
    fn place(&self, i: u64) -> (u64, u64, u64) {
        let (mut tile, mut inner, mut c, mut y, mut x) = (0, 0, 0, 0, 0);
        let mut rest = i;
        for &(axis, size) in self.axes.iter().rev() {
            let size = size.max(1);
            let k = rest % size;
            rest /= size;
            match axis {
                Axis::Tile => tile = k,
                Axis::TileInner => inner = k,
                Axis::Channel => c = k,
                Axis::Y => y = k,
                Axis::X => x = k,
                Axis::Skip => {}
            }
        }
        let n = tile.saturating_mul(self.inner).saturating_add(inner);
        let gap = self.gap();
        let tx = n % self.columns.max(1);
        let ty = n / self.columns.max(1);
        (
            tx.saturating_mul(self.width + gap).saturating_add(x),
            ty.saturating_mul(self.height + gap).saturating_add(y),
            c,
        )
    }

    /// How many pixels of tiles (not gaps, not the empty end of the last
    /// grid row) the canvas rectangle `xs` x `ys` holds: each holds one
    /// element of every channel. Arithmetic, whatever the rectangle's size.
    fn covered(&self, xs: std::ops::Range<u64>, ys: std::ops::Range<u64>) -> u64 {
        let gap = self.gap();
        // Pixels below `end` along one axis that lie in the first `limit`
        // tiles of `size` pixels, each followed by `gap`.
        let upto = |end: u64, size: u64, limit: u64| -> u64 {
            let period = size.saturating_add(gap).max(1);
            let full = end / period;
            if full >= limit {
                limit.saturating_mul(size)
            } else {
                full.saturating_mul(size)
                    .saturating_add((end % period).min(size))
            }
        };
        let span = |r: &std::ops::Range<u64>, size: u64, limit: u64| {
            upto(r.end, size, limit).saturating_sub(upto(r.start, size, limit))
        };
        let full_rows = self.rows.saturating_sub(1);
        let last_row_tiles = self
            .tiles
            .saturating_sub(full_rows.saturating_mul(self.columns));
        let ys_full = span(&ys, self.height, full_rows);
        let ys_last = span(&ys, self.height, self.rows).saturating_sub(ys_full);
        ys_full
            .saturating_mul(span(&xs, self.width, self.columns))
            .saturating_add(ys_last.saturating_mul(span(&xs, self.width, last_row_tiles)))
    }

    /// What the layout is, for people: "RGB 5 x 4", "grey 28 x 28, 16 tiles",
    /// "64 filters of 3 x 3 RGB in an 8 x 8 grid".
    pub fn describe(&self) -> String {
        let kind = if self.heat {
            "heat map"
        } else {
            match self.channels {
                1 => "grey",
                3 => "RGB",
                _ => "RGBA",
            }
        };
        match self.order {
            Order::Chw | Order::Hwc => {
                let mut s = format!("{kind} {} x {}", self.width, self.height);
                if self.tiles > 1 {
                    s.push_str(&format!(
                        ", {} tiles in a {} x {} grid",
                        self.tiles, self.columns, self.rows
                    ));
                }
                s
            }
            Order::Matrix => format!(
                "{kind} of {} rows x {} columns, blue below zero, red above",
                self.height, self.width
            ),
            Order::Oihw | Order::Hwio if self.inner > 1 => format!(
                "{} x {} filters of {} x {} (a row per output channel, a column per input channel), {kind}",
                self.rows, self.columns, self.width, self.height
            ),
            Order::Oihw | Order::Hwio => format!(
                "{} filters of {} x {} {kind} in a {} x {} grid",
                self.tiles, self.width, self.height, self.columns, self.rows
            ),
        }
    }
}

/// Why a picture could not be made.
#[non_exhaustive]
#[derive(Debug)]
pub enum PictureError {
    /// The shape does not look like an image.
    NotImage(String),
    /// The values cannot be read (or are fewer than the shape says).
    Unavailable(String),
    /// The picture would be larger than the limit.
    TooLarge {
        /// Its width in pixels.
        width: u64,
        /// Its height in pixels.
        height: u64,
    },
    /// Writing failed.
    Io(io::Error),
    /// The PNG encoder failed.
    Png(String),
}

impl fmt::Display for PictureError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PictureError::NotImage(why) => write!(f, "not image-shaped: {why}"),
            PictureError::Unavailable(why) => write!(f, "values not available: {why}"),
            PictureError::TooLarge { width, height } => write!(
                f,
                "a {width} x {height} picture is larger than the limit of {MAX_PICTURE_BYTES} bytes"
            ),
            PictureError::Io(e) => write!(f, "{e}"),
            PictureError::Png(e) => write!(f, "PNG encoder: {e}"),
        }
    }
}

impl std::error::Error for PictureError {}

impl From<io::Error> for PictureError {
    fn from(e: io::Error) -> Self {
        PictureError::Io(e)
    }
}

#[cfg(feature = "picture")]
impl From<png::EncodingError> for PictureError {
    fn from(e: png::EncodingError) -> Self {
        match e {
            png::EncodingError::IoError(e) => PictureError::Io(e),
            other => PictureError::Png(other.to_string()),
        }
    }
}

/// Maps a tensor's values to 0..255.
#[derive(Debug, Clone, Copy)]
struct Scale {
    lo: f64,
    hi: f64,
    as_is: bool,
}

impl Scale {
    fn new(elem: Option<Elem>, stats: &Stats) -> Scale {
        if elem == Some(Elem::Bool) {
            return Scale {
                lo: 0.0,
                hi: 1.0,
                as_is: false,
            };
        }
        let as_is = match (stats.min, stats.max) {
            (Some(Extreme::Int(a)), Some(Extreme::Int(b))) => a >= 0 && b <= 255,
            (Some(Extreme::UInt(_)), Some(Extreme::UInt(b))) => b <= 255,
            _ => false,
        };
        Scale {
            lo: stats.min.map_or(0.0, Extreme::as_f64),
            hi: stats.max.map_or(0.0, Extreme::as_f64),
            as_is,
        }
    }

    /// None for NaN.
    fn level(&self, v: f64) -> Option<u8> {
        if v.is_nan() {
            return None;
        }
        let l = if self.as_is {
            v
        } else if self.hi > self.lo {
            // Halves, so that a range beyond f64::MAX does not overflow.
            let t = (v / 2.0 - self.lo / 2.0) / (self.hi / 2.0 - self.lo / 2.0);
            (t * 255.0).round()
        } else if v > self.lo {
            255.0
        } else if v < self.lo {
            0.0
        } else {
            128.0
        };
        Some(l.clamp(0.0, 255.0) as u8)
    }
}

/// The heat map of a weight: white at zero, towards blue below and red
/// above, by the largest finite magnitude; +Inf and -Inf at the ends.
#[derive(Debug, Clone, Copy)]
struct Heat {
    reach: f64,
}

/// The heat map's ends: below zero, above zero.
const HEAT_BELOW: [u8; 3] = [33, 102, 172];
const HEAT_ABOVE: [u8; 3] = [178, 24, 43];

impl Heat {
    fn new(stats: &Stats) -> Heat {
        let lo = stats.min.map_or(0.0, Extreme::as_f64).abs();
        let hi = stats.max.map_or(0.0, Extreme::as_f64).abs();
        Heat { reach: lo.max(hi) }
    }

    /// The colour of a value that is not NaN.
    fn colour(&self, v: f64) -> [u8; 3] {
        let t = if self.reach > 0.0 && self.reach.is_finite() {
            (v / self.reach).clamp(-1.0, 1.0)
        } else {
            v.signum() * f64::from(u8::from(v != 0.0))
        };
        let end = if t < 0.0 { HEAT_BELOW } else { HEAT_ABOVE };
        let a = t.abs();
        end.map(|e| {
            (255.0 + (f64::from(e) - 255.0) * a)
                .round()
                .clamp(0.0, 255.0) as u8
        })
    }
}

/// PNG colour types we write.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Colour {
    /// One channel.
    Grey,
    /// Red, green, blue.
    Rgb,
    /// Red, green, blue, alpha.
    Rgba,
}

impl Colour {
    /// Bytes per pixel.
    pub fn channels(self) -> usize {
        match self {
            Colour::Grey => 1,
            Colour::Rgb => 3,
            Colour::Rgba => 4,
        }
    }
}

/// An 8-bit picture ready to encode.
#[non_exhaustive]
#[derive(Debug, Clone)]
pub struct Picture {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// The pixels' colour type.
    pub colour: Colour,
    /// How the tensor's elements were laid out.
    pub layout: Layout,
    /// Row-major pixels, `colour.channels()` bytes each.
    pub pixels: Vec<u8>,
    /// Pixels drawn in the NaN marker colour.
    pub nan_pixels: u64,
}

fn not_image(view: &TensorView<'_, '_>) -> PictureError {
    let shape = match &view.dims {
        None => "unknown rank".to_string(),
        Some(d) => format!("{d:?}"),
    };
    PictureError::NotImage(format!(
        "shape {shape} is not H x W, [1 x] C x H x W, [1 x] H x W x C (C of 1, 3 or 4) or N x C x H x W"
    ))
}

/// The layout of a tensor whose values are all there to draw.
fn checked_layout(view: &TensorView<'_, '_>, drawing: Drawing) -> Result<Layout, PictureError> {
    if view.elem == Some(Elem::Str) {
        return Err(PictureError::NotImage(
            "a STRING tensor has no pixels".into(),
        ));
    }
    let layout = view
        .dims
        .as_deref()
        .and_then(|d| drawing.layout(d))
        .ok_or_else(|| not_image(view))?;
    let want = layout.elements().ok_or_else(|| not_image(view))?;
    if view.elements != want {
        return Err(PictureError::Unavailable(format!(
            "the tensor holds {} of its {want} values",
            view.elements
        )));
    }
    Ok(layout)
}

/// Draws a tensor by its shape as an image: one pass for the statistics
/// (min..max), one for the pixels. External data is read from `dir`.
pub fn picture(view: &TensorView<'_, '_>, dir: Option<&Folder>) -> Result<Picture, PictureError> {
    picture_as(view, dir, Drawing::Image)
}

/// Draws a tensor as `drawing` says (a weight as a heat map or filters).
pub fn picture_as(
    view: &TensorView<'_, '_>,
    dir: Option<&Folder>,
    drawing: Drawing,
) -> Result<Picture, PictureError> {
    let layout = checked_layout(view, drawing)?;
    draw(view, dir, layout, 0)
}

/// Draws the 2-D slice number `slice` (its last two axes) of a tensor of
/// rank 3 or more, scaled by the whole tensor's range so that slices
/// compare.
pub fn slice_picture(
    view: &TensorView<'_, '_>,
    dir: Option<&Folder>,
    drawing: Drawing,
    slice: u64,
) -> Result<Picture, PictureError> {
    if view.elem == Some(Elem::Str) {
        return Err(PictureError::NotImage(
            "a STRING tensor has no pixels".into(),
        ));
    }
    let (layout, first) = view
        .dims
        .as_deref()
        .and_then(|d| slice_layout(d, slice, drawing))
        .ok_or_else(|| {
            PictureError::NotImage(format!(
                "no 2-D slice {slice} of a tensor of shape {:?}",
                view.dims
            ))
        })?;
    let want = view
        .dims
        .as_deref()
        .and_then(positive)
        .and_then(|d| d.iter().try_fold(1u64, |a, &b| a.checked_mul(b)));
    if want != Some(view.elements) {
        return Err(PictureError::Unavailable(format!(
            "the tensor holds {} of its values",
            view.elements
        )));
    }
    draw(view, dir, layout, first)
}

/// Draws the elements `first..first + layout.elements()` of a tensor.
fn draw(
    view: &TensorView<'_, '_>,
    dir: Option<&Folder>,
    layout: Layout,
    first: u64,
) -> Result<Picture, PictureError> {
    // The size limit first: a picture too large even in grey is refused
    // before any pass over the values.
    let (cw, ch) = layout.canvas().ok_or(PictureError::TooLarge {
        width: u64::MAX,
        height: u64::MAX,
    })?;
    let least = layout.channels.clamp(1, 4);
    if cw
        .checked_mul(ch)
        .and_then(|p| p.checked_mul(least))
        .is_none_or(|b| b > MAX_PICTURE_BYTES)
    {
        return Err(PictureError::TooLarge {
            width: cw,
            height: ch,
        });
    }
    let stats = match crate::stats::compute(view, dir) {
        Some(s) => s,
        None => {
            return Err(match load_values(view, dir) {
                LoadedValues::Unavailable(why) => PictureError::Unavailable(why),
                _ => PictureError::Unavailable("unknown reason".into()),
            });
        }
    };
    let colour = match layout.channels {
        1 if stats.nan > 0 || layout.heat => Colour::Rgb,
        1 => Colour::Grey,
        3 => Colour::Rgb,
        _ => Colour::Rgba,
    };
    let (cw, ch) = layout.canvas().ok_or(PictureError::TooLarge {
        width: u64::MAX,
        height: u64::MAX,
    })?;
    let too_large = PictureError::TooLarge {
        width: cw,
        height: ch,
    };
    let bytes = cw
        .checked_mul(ch)
        .and_then(|p| p.checked_mul(colour.channels() as u64))
        .filter(|&b| b <= MAX_PICTURE_BYTES)
        .ok_or(too_large)?;
    let (Ok(width), Ok(height)) = (u32::try_from(cw), u32::try_from(ch)) else {
        return Err(PictureError::TooLarge {
            width: cw,
            height: ch,
        });
    };
    let out_channels = colour.channels() as u64;
    // The gaps of a grid are grey and, in RGBA, transparent.
    let mut pixels = vec![GAP_GREY; bytes as usize];
    if colour == Colour::Rgba && layout.tiles > 1 {
        for px in pixels.chunks_exact_mut(4) {
            if let Some(a) = px.get_mut(3) {
                *a = 0;
            }
        }
    }
    let mut nan_mask: Vec<bool> = if stats.nan > 0 {
        vec![false; (cw * ch) as usize]
    } else {
        Vec::new()
    };
    let scale = Scale::new(view.elem, &stats);
    let heat = layout.heat.then(|| Heat::new(&stats));
    let grey_as_rgb = layout.channels == 1 && colour == Colour::Rgb;
    let mut place_pixel = |i: u64, v: Option<f64>| {
        let (x, y, c) = layout.place(i);
        let pixel = y.saturating_mul(cw).saturating_add(x);
        if let (Some(heat), Some(v)) = (&heat, v.filter(|v| !v.is_nan())) {
            let at = pixel.saturating_mul(out_channels);
            for (k, l) in heat.colour(v).into_iter().enumerate() {
                if let Some(b) = usize::try_from(at.saturating_add(k as u64))
                    .ok()
                    .and_then(|i| pixels.get_mut(i))
                {
                    *b = l;
                }
            }
            return;
        }
        let level = v.and_then(|v| scale.level(v));
        match level {
            None => {
                if let Some(m) = usize::try_from(pixel)
                    .ok()
                    .and_then(|p| nan_mask.get_mut(p))
                {
                    *m = true;
                }
            }
            Some(l) => {
                let at = pixel.saturating_mul(out_channels);
                let targets = if grey_as_rgb { 0..3 } else { c..c + 1 };
                for k in targets {
                    if let Some(b) = usize::try_from(at.saturating_add(k))
                        .ok()
                        .and_then(|i| pixels.get_mut(i))
                    {
                        *b = l;
                    }
                }
            }
        }
    };
    let mut loaded = load_values(view, dir);
    let mut index = 0u64;
    // The elements drawn: placing their pixels is the picture's own size,
    // bounded by MAX_PICTURE_BYTES above, whatever the runs outside them.
    let last = first.saturating_add(layout.elements().unwrap_or(0));
    let _ = for_each_run(&mut loaded, |e, count| -> Result<(), ()> {
        let v = scalar(&e);
        let end = index.saturating_add(count);
        for i in index.max(first)..end.min(last) {
            place_pixel(i - first, v);
        }
        index = end;
        if index >= last { Err(()) } else { Ok(()) }
    });
    let mut nan_pixels = 0u64;
    for (p, _) in nan_mask.iter().enumerate().filter(|(_, m)| **m) {
        nan_pixels += 1;
        let at = p * out_channels as usize;
        if let Some(px) = pixels.get_mut(at..at + out_channels as usize) {
            for (b, m) in px.iter_mut().zip(NAN_COLOUR.iter().chain(&[255])) {
                *b = *m;
            }
        }
    }
    Ok(Picture {
        width,
        height,
        colour,
        layout,
        pixels,
        nan_pixels,
    })
}

impl Picture {
    /// Encodes the picture as PNG into `w`.
    #[cfg(feature = "picture")]
    pub fn write_png<W: Write>(&self, w: W) -> Result<(), PictureError> {
        let mut encoder = png::Encoder::new(w, self.width, self.height);
        encoder.set_color(match self.colour {
            Colour::Grey => png::ColorType::Grayscale,
            Colour::Rgb => png::ColorType::Rgb,
            Colour::Rgba => png::ColorType::Rgba,
        });
        encoder.set_depth(png::BitDepth::Eight);
        let mut writer = encoder.write_header()?;
        writer.write_image_data(&self.pixels)?;
        writer.finish()?;
        Ok(())
    }

    /// The picture as a PNG file's bytes.
    #[cfg(feature = "picture")]
    pub fn png_bytes(&self) -> Result<Vec<u8>, PictureError> {
        let mut out = Vec::new();
        self.write_png(&mut out)?;
        Ok(out)
    }

    /// A one-line description: "RGB 5 x 4 (3 x 4 x 5 C x H x W)".
    pub fn describe(&self) -> String {
        let colour = match self.colour {
            Colour::Grey => "grey",
            Colour::Rgb => "RGB",
            Colour::Rgba => "RGBA",
        };
        let mut s = format!("{} x {} {colour}", self.width, self.height);
        if !matches!(self.layout.order, Order::Chw | Order::Hwc) {
            // A weight: what its pixels are.
            s.push_str(&format!(
                ": {} {}",
                self.layout.order.name(),
                self.layout.describe()
            ));
        } else if self.layout.tiles > 1 {
            s.push_str(&format!(
                ", {} tiles of {} x {} in a {} x {} grid",
                self.layout.tiles,
                self.layout.width,
                self.layout.height,
                self.layout.columns,
                self.layout.rows
            ));
        }
        if self.nan_pixels > 0 {
            s.push_str(&format!(", {} NaN pixels in magenta", self.nan_pixels));
        }
        s
    }
}

/// Draws a tensor as PNG into `w` and says what was drawn.
#[cfg(feature = "picture")]
pub fn write_png<W: Write>(
    view: &TensorView<'_, '_>,
    dir: Option<&Folder>,
    w: W,
) -> Result<Picture, PictureError> {
    let p = picture(view, dir)?;
    p.write_png(w)?;
    Ok(p)
}

/// The PNG bytes of a tensor's picture.
#[cfg(feature = "picture")]
pub fn png_bytes(view: &TensorView<'_, '_>, dir: Option<&Folder>) -> Result<Vec<u8>, PictureError> {
    picture(view, dir)?.png_bytes()
}

/// One cell of the preview: sums of levels per channel over the pixels it
/// covers.
#[derive(Debug, Clone, Copy, Default)]
struct Cell {
    sum: [u64; 4],
    samples: [u64; 4],
    nans: u64,
    /// Elements counted per channel (NaN included).
    seen: [u64; 4],
}

impl Cell {
    /// Counts `k` elements of channel `c` at `level` (None: NaN).
    fn add(&mut self, c: usize, level: Option<u8>, k: u64) {
        if let Some(s) = self.seen.get_mut(c) {
            *s = s.saturating_add(k);
        }
        match level {
            None => self.nans = self.nans.saturating_add(k),
            Some(l) => {
                if let (Some(s), Some(n)) = (self.sum.get_mut(c), self.samples.get_mut(c)) {
                    *s = s.saturating_add(u64::from(l).saturating_mul(k));
                    *n = n.saturating_add(k);
                }
            }
        }
    }

    /// The cell's colour; None when it covers only gaps.
    fn colour(&self, channels: u64) -> Option<[u8; 3]> {
        let avg = |k: usize| -> Option<u8> {
            let n = *self.samples.get(k)?;
            (n > 0).then(|| (self.sum.get(k).copied().unwrap_or(0) / n).min(255) as u8)
        };
        let values = self.samples.iter().take(channels as usize).sum::<u64>();
        if self.nans > 0 && self.nans >= values {
            return Some(NAN_COLOUR);
        }
        if channels == 1 {
            let g = avg(0)?;
            Some([g, g, g])
        } else {
            Some([avg(0)?, avg(1)?, avg(2)?])
        }
    }
}

/// Writes the colour preview of an image-shaped tensor (nothing for other
/// tensors): a header line, then half-block lines at most
/// [`PREVIEW_COLUMNS`] wide, the picture shrunk by an equal factor both ways
/// (averaging), each line prefixed by `indent`. One streaming pass.
pub fn write_preview(
    w: &mut dyn Write,
    indent: &str,
    view: &TensorView<'_, '_>,
    dir: Option<&Folder>,
    stats: &Stats,
) -> io::Result<()> {
    let Ok(layout) = checked_layout(view, Drawing::Image) else {
        return Ok(());
    };
    let Some((cw, ch)) = layout.canvas() else {
        return Ok(());
    };
    let factor = cw
        .div_ceil(PREVIEW_COLUMNS)
        .max(ch.div_ceil(PREVIEW_ROWS))
        .max(1);
    let (pw, ph) = (cw.div_ceil(factor), ch.div_ceil(factor));
    // At most 32 x 64 cells.
    let mut cells = vec![Cell::default(); (pw * ph) as usize];
    let scale = Scale::new(view.elem, stats);
    let total = view.elements;
    let mut loaded = load_values(view, dir);
    let mut index = 0u64;
    let _ = for_each_run(&mut loaded, |e, count| -> Result<(), ()> {
        let level = scalar(&e).and_then(|v| scale.level(v));
        let end = index.saturating_add(count);
        if count > 1 && end == total {
            // The implied tail: every element not yet seen, cell by cell
            // (the cells a cell's pixels hold minus those already counted),
            // in O(cells) whatever its length.
            for (at, cell) in cells.iter_mut().enumerate() {
                let (cx, cy) = (at as u64 % pw, at as u64 / pw);
                let span = |c: u64, end: u64| {
                    c.saturating_mul(factor)..(c + 1).saturating_mul(factor).min(end)
                };
                let (xs, ys) = (span(cx, cw), span(cy, ch));
                let held = layout.covered(xs, ys);
                for k in 0..(layout.channels as usize).min(4) {
                    let rest = held.saturating_sub(cell.seen.get(k).copied().unwrap_or(0));
                    cell.add(k, level, rest);
                }
            }
        } else {
            for i in index..end {
                let (x, y, c) = layout.place(i);
                let at = (y / factor).saturating_mul(pw).saturating_add(x / factor);
                if let Some(cell) = usize::try_from(at).ok().and_then(|i| cells.get_mut(i)) {
                    cell.add(c as usize, level, 1);
                }
            }
        }
        index = end;
        Ok(())
    });
    let scale_note = if factor > 1 {
        format!(", shown 1:{factor}")
    } else {
        String::new()
    };
    writeln!(w, "{indent}picture:   {}{scale_note}", layout.describe())?;
    let colour_at = |x: u64, y: u64| -> Option<[u8; 3]> {
        if x >= pw || y >= ph {
            return None;
        }
        cells
            .get(usize::try_from(y * pw + x).ok()?)?
            .colour(layout.channels)
    };
    for row in 0..ph.div_ceil(2) {
        write!(w, "{indent}  ")?;
        for x in 0..pw {
            let top = colour_at(x, row * 2);
            let bottom = colour_at(x, row * 2 + 1);
            match (top, bottom) {
                (Some([r, g, b]), Some([r2, g2, b2])) => {
                    write!(w, "\x1b[38;2;{r};{g};{b}m\x1b[48;2;{r2};{g2};{b2}m\u{2580}")?
                }
                (Some([r, g, b]), None) => write!(w, "\x1b[49m\x1b[38;2;{r};{g};{b}m\u{2580}")?,
                (None, Some([r, g, b])) => write!(w, "\x1b[49m\x1b[38;2;{r};{g};{b}m\u{2584}")?,
                (None, None) => write!(w, "\x1b[0m ")?,
            }
        }
        writeln!(w, "\x1b[0m")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts() {
        let l = layout(&[3, 4, 5]).map(|l| (l.channels, l.height, l.width, l.channels_last));
        assert_eq!(l, Some((3, 4, 5, false)));
        let l = layout(&[5, 6, 3]).map(|l| (l.channels, l.height, l.width, l.channels_last));
        assert_eq!(l, Some((3, 5, 6, true)));
        // C x H x W is tried first.
        assert!(layout(&[4, 5, 3]).is_some_and(|l| l.channels == 4 && !l.channels_last));
        assert!(layout(&[1, 5, 6, 3]).is_some_and(|l| l.channels_last && l.tiles == 1));
        assert!(layout(&[2, 5, 6, 3]).is_none());
        assert!(layout(&[5]).is_none());
        assert!(layout(&[0, 5]).is_none());
        assert!(layout(&[-1, 5]).is_none());
        let g = layout(&[10, 1, 2, 2]);
        assert_eq!(g.map(|l| (l.columns, l.rows)), Some((4, 3)));
        assert_eq!(g.and_then(|l| l.canvas()), Some((11, 8)));
        assert_eq!(isqrt_ceil(1), 1);
        assert_eq!(isqrt_ceil(16), 4);
        assert_eq!(isqrt_ceil(17), 5);
        assert_eq!(isqrt_ceil(u64::MAX), 1 << 32);
    }

    #[test]
    fn scale_levels() {
        let s = Scale {
            lo: -1.0,
            hi: 1.0,
            as_is: false,
        };
        assert_eq!(s.level(-1.0), Some(0));
        assert_eq!(s.level(1.0), Some(255));
        assert_eq!(s.level(0.0), Some(128));
        assert_eq!(s.level(f64::INFINITY), Some(255));
        assert_eq!(s.level(f64::NEG_INFINITY), Some(0));
        assert_eq!(s.level(f64::NAN), None);
    }
}

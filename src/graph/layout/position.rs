//! Phase 5 of the layout: coordinates (dagre's `position`). x: each
//! layer's centres packed, then pulled to the mean of their neighbours'
//! centres, boxes kept apart, solved exactly per layer as an isotonic
//! regression (pool adjacent violators), in sweeps down and up; y: each
//! layer as tall as its tallest box.

use super::normalize::{Layered, Vertex};

/// Pixels between layers and between boxes (dummies: between a dummy and
/// its neighbour).
const LAYER_GAP: i64 = 40;
const BOX_GAP: f64 = 24.0;
const DUMMY_GAP: f64 = 10.0;
/// Coordinate sweeps (each down and up).
const PLACE_SWEEPS: usize = 4;

/// Where the vertices are: each one's centre (before `shift`), each
/// layer's top and height.
pub(super) struct Positions {
    cx: Vec<f64>,
    shift: f64,
    pub tops: Vec<i64>,
    pub heights: Vec<i64>,
}

impl Positions {
    /// The pixel x of vertex `v`'s centre (f64 to i64 of a bounded layout
    /// cannot overflow).
    pub fn center_x(&self, v: usize) -> i64 {
        (self.cx.get(v).copied().unwrap_or(0.0) + self.shift).round() as i64
    }

    /// The pixel x of the left edge of vertex `v` of width `w`.
    pub fn left_x(&self, v: usize, w: f64) -> i64 {
        (self.cx.get(v).copied().unwrap_or(0.0) - w / 2.0 + self.shift).round() as i64
    }

    /// The top of the box `vert`, centred in its layer.
    pub fn top_of(&self, vert: &Vertex) -> i64 {
        let top = self.tops.get(vert.layer).copied().unwrap_or(0);
        let lh = self.heights.get(vert.layer).copied().unwrap_or(0);
        top + (lh - vert.h) / 2
    }
}

fn gap(a: &Vertex, b: &Vertex) -> f64 {
    if a.dummy || b.dummy {
        DUMMY_GAP
    } else {
        BOX_GAP
    }
}

/// The coordinates of the vertices of `g` in `layers`, the drawing's left
/// and top edges at `margin`.
pub(super) fn place(g: &Layered, layers: &[Vec<usize>], margin: i64) -> Positions {
    let verts = &g.verts;
    let mut cx = vec![0.0f64; verts.len()];
    for row in layers {
        let mut x = 0.0;
        let mut prev: Option<usize> = None;
        for &v in row {
            let Some(vv) = verts.get(v) else { continue };
            if let Some(p) = prev.and_then(|p| verts.get(p)) {
                x += gap(p, vv);
            }
            if let Some(c) = cx.get_mut(v) {
                *c = x + vv.w / 2.0;
            }
            x += vv.w;
            prev = Some(v);
        }
    }
    for _ in 0..PLACE_SWEEPS {
        for row in layers.iter().skip(1) {
            place_row(verts, row, &mut cx, &[&g.up]);
        }
        for row in layers.iter().rev().skip(1) {
            place_row(verts, row, &mut cx, &[&g.down]);
        }
    }
    for row in layers {
        place_row(verts, row, &mut cx, &[&g.up, &g.down]);
    }
    let mut tops = Vec::with_capacity(layers.len());
    let mut heights = Vec::with_capacity(layers.len());
    let mut y = margin;
    for row in layers {
        let h = row
            .iter()
            .filter_map(|&v| verts.get(v))
            .map(|v| v.h)
            .max()
            .unwrap_or(0);
        tops.push(y);
        heights.push(h);
        y += h + LAYER_GAP;
    }
    let min_left = verts
        .iter()
        .zip(&cx)
        .map(|(v, c)| c - v.w / 2.0)
        .fold(f64::INFINITY, f64::min);
    let shift = if min_left.is_finite() {
        margin as f64 - min_left
    } else {
        0.0
    };
    Positions {
        cx,
        shift,
        tops,
        heights,
    }
}

/// One row's centres moved to their targets (the mean centre of their
/// neighbours in `nbs`, or where they are) as closely as the gaps allow.
fn place_row(verts: &[Vertex], row: &[usize], cx: &mut [f64], nbs: &[&Vec<Vec<usize>>]) {
    let mut targets = Vec::with_capacity(row.len());
    let mut offsets = Vec::with_capacity(row.len());
    let mut off = 0.0;
    let mut prev: Option<&Vertex> = None;
    for &v in row {
        let Some(vv) = verts.get(v) else { continue };
        if let Some(p) = prev {
            off += p.w / 2.0 + gap(p, vv) + vv.w / 2.0;
        }
        prev = Some(vv);
        let mut sum = 0.0;
        let mut count = 0usize;
        for nb in nbs {
            for &u in nb.get(v).map(Vec::as_slice).unwrap_or(&[]) {
                sum += cx.get(u).copied().unwrap_or(0.0);
                count += 1;
            }
        }
        let t = if count == 0 {
            cx.get(v).copied().unwrap_or(0.0)
        } else {
            sum / count as f64
        };
        targets.push(t - off);
        offsets.push(off);
    }
    let solved = isotonic(&targets);
    for ((&v, y), o) in row.iter().zip(solved).zip(offsets) {
        if let Some(c) = cx.get_mut(v) {
            *c = y + o;
        }
    }
}

/// The non-decreasing sequence closest to `t` in least squares (pool
/// adjacent violators).
pub(super) fn isotonic(t: &[f64]) -> Vec<f64> {
    // Blocks of (mean, count).
    let mut blocks: Vec<(f64, usize)> = Vec::with_capacity(t.len());
    for &x in t {
        blocks.push((x, 1));
        while blocks.len() > 1 {
            let (Some(&(m2, c2)), Some(&(m1, c1))) =
                (blocks.last(), blocks.get(blocks.len().wrapping_sub(2)))
            else {
                break;
            };
            if m1 <= m2 {
                break;
            }
            blocks.pop();
            blocks.pop();
            let c = c1 + c2;
            blocks.push(((m1 * c1 as f64 + m2 * c2 as f64) / c as f64, c));
        }
    }
    let mut out = Vec::with_capacity(t.len());
    for (m, c) in blocks {
        out.extend(std::iter::repeat_n(m, c));
    }
    out
}

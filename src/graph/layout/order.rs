//! Phase 4 of the layout: the order of the vertices within each layer,
//! first by the boxes' order, then by barycentre sweeps down and up the
//! layers against crossings (dagre's `order`).

use super::normalize::Layered;

/// Barycentre sweeps (each down and up).
const ORDER_SWEEPS: usize = 4;

/// The vertices of each layer, left to right; `order` is the boxes'
/// order (the dummies follow in the order they were made).
pub(super) fn order_layers(g: &Layered, order: &[usize]) -> Vec<Vec<usize>> {
    let n = order.len();
    let layers_n = g.verts.iter().map(|v| v.layer + 1).max().unwrap_or(0);
    let mut layers: Vec<Vec<usize>> = vec![Vec::new(); layers_n];
    for v in order.iter().copied().chain(n..g.verts.len()) {
        if let Some(l) = g.verts.get(v).and_then(|x| layers.get_mut(x.layer)) {
            l.push(v);
        }
    }
    let mut index = vec![0usize; g.verts.len()];
    for l in &layers {
        for (i, &v) in l.iter().enumerate() {
            if let Some(x) = index.get_mut(v) {
                *x = i;
            }
        }
    }
    for _ in 0..ORDER_SWEEPS {
        sweep(g, &mut layers, &mut index, true);
        sweep(g, &mut layers, &mut index, false);
    }
    layers
}

/// One sweep: each layer (after the first, going down; before the last,
/// going up) sorted by the mean index of its vertices' neighbours in the
/// layer swept from.
fn sweep(g: &Layered, layers: &mut [Vec<usize>], index: &mut [usize], downward: bool) {
    let ls: Vec<usize> = if downward {
        (1..layers.len()).collect()
    } else {
        (0..layers.len().saturating_sub(1)).rev().collect()
    };
    for l in ls {
        let Some(row) = layers.get_mut(l) else {
            continue;
        };
        let mut keyed: Vec<(f64, usize)> = row
            .iter()
            .map(|&v| {
                let nb = if downward { g.up.get(v) } else { g.down.get(v) };
                let nb = nb.map(Vec::as_slice).unwrap_or(&[]);
                let own = index.get(v).copied().unwrap_or(0) as f64;
                let key = if nb.is_empty() {
                    own
                } else {
                    nb.iter()
                        .map(|&u| index.get(u).copied().unwrap_or(0) as f64)
                        .sum::<f64>()
                        / nb.len() as f64
                };
                (key, v)
            })
            .collect();
        keyed.sort_by(|a, b| a.0.total_cmp(&b.0));
        for (i, (_, v)) in keyed.iter().enumerate() {
            if let Some(x) = row.get_mut(i) {
                *x = *v;
            }
            if let Some(x) = index.get_mut(*v) {
                *x = i;
            }
        }
    }
}

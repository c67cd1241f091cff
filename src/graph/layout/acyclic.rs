//! Phase 1 of the layout: an order of the boxes by Kahn's algorithm, a
//! cycle (TensorFlow's loops) broken at the first box left, and every edge
//! turned to run along that order (dagre's `acyclic`).

use std::collections::VecDeque;

/// The boxes in order, and each edge `(u, v)` as it runs along it.
pub(super) struct Ordered {
    pub order: Vec<usize>,
    pub along: Vec<(usize, usize)>,
}

/// The order of `n` boxes joined by `pairs`, and the edges along it.
pub(super) fn order_boxes(n: usize, pairs: &[(usize, usize)]) -> Ordered {
    let mut out_adj: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut indeg = vec![0usize; n];
    for &(u, v) in pairs {
        if let (Some(a), Some(d)) = (out_adj.get_mut(u), indeg.get_mut(v)) {
            a.push(v);
            *d += 1;
        }
    }
    let mut pos = vec![usize::MAX; n];
    let mut order = Vec::with_capacity(n);
    let mut queue: VecDeque<usize> = (0..n).filter(|&v| indeg.get(v) == Some(&0)).collect();
    let mut next_unplaced = 0usize;
    while order.len() < n {
        let v = match queue.pop_front() {
            Some(v) => v,
            None => {
                while pos.get(next_unplaced).is_some_and(|&p| p != usize::MAX) {
                    next_unplaced += 1;
                }
                next_unplaced
            }
        };
        if pos.get(v).is_none_or(|&p| p != usize::MAX) {
            continue;
        }
        if let Some(p) = pos.get_mut(v) {
            *p = order.len();
        }
        order.push(v);
        for &w in out_adj.get(v).map(Vec::as_slice).unwrap_or(&[]) {
            if let Some(d) = indeg.get_mut(w) {
                *d = d.saturating_sub(1);
                if *d == 0 && pos.get(w) == Some(&usize::MAX) {
                    queue.push_back(w);
                }
            }
        }
    }
    let pos_of = |v: usize| pos.get(v).copied().unwrap_or(0);
    let along = pairs
        .iter()
        .map(|&(u, v)| {
            if pos_of(u) < pos_of(v) {
                (u, v)
            } else {
                (v, u)
            }
        })
        .collect();
    Ordered { order, along }
}

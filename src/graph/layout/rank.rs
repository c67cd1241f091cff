//! Phase 2 of the layout: longest-path layers over the edges along the
//! order, a box without inputs moved down next to its first reader
//! (dagre's `rank`).

/// The layer of each of `n` boxes, given in `order`, joined by `along`.
pub(super) fn longest_path(n: usize, order: &[usize], along: &[(usize, usize)]) -> Vec<usize> {
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut succs: Vec<Vec<usize>> = vec![Vec::new(); n];
    for &(u, v) in along {
        if let (Some(p), Some(s)) = (preds.get_mut(v), succs.get_mut(u)) {
            p.push(u);
            s.push(v);
        }
    }
    let mut layer = vec![0usize; n];
    for &v in order {
        let l = preds
            .get(v)
            .map(|p| {
                p.iter()
                    .map(|&u| layer.get(u).copied().unwrap_or(0) + 1)
                    .max()
                    .unwrap_or(0)
            })
            .unwrap_or(0);
        if let Some(x) = layer.get_mut(v) {
            *x = l;
        }
    }
    for &v in order.iter().rev() {
        let no_preds = preds.get(v).is_none_or(Vec::is_empty);
        let below = succs
            .get(v)
            .and_then(|s| s.iter().map(|&w| layer.get(w).copied().unwrap_or(0)).min());
        if let (true, Some(b)) = (no_preds, below)
            && let Some(x) = layer.get_mut(v)
        {
            *x = b.saturating_sub(1).max(*x);
        }
    }
    layer
}

//! Phase 6 of the layout: each edge's polyline, from the bottom of its
//! producer's box through its dummies to the top of its consumer's.

use super::normalize::Layered;
use super::position::Positions;

/// The polyline of each edge of `pairs`, producer to consumer, through
/// its chain in `g`.
pub(super) fn polylines(
    pairs: &[(usize, usize)],
    g: &Layered,
    pos: &Positions,
) -> Vec<Vec<(i64, i64)>> {
    pairs
        .iter()
        .zip(&g.chains)
        .map(|(&(u, _), chain)| {
            let mut pts = Vec::with_capacity(chain.len() * 2);
            let last = chain.len().saturating_sub(1);
            for (i, &v) in chain.iter().enumerate() {
                let Some(vv) = g.verts.get(v) else { continue };
                let c = pos.center_x(v);
                if vv.dummy {
                    let top = pos.tops.get(vv.layer).copied().unwrap_or(0);
                    let lh = pos.heights.get(vv.layer).copied().unwrap_or(0);
                    pts.push((c, top));
                    pts.push((c, top + lh));
                } else if i == 0 {
                    pts.push((c, pos.top_of(vv) + vv.h));
                } else if i == last {
                    pts.push((c, pos.top_of(vv)));
                }
            }
            if chain.first() != Some(&u) {
                pts.reverse();
            }
            pts
        })
        .collect()
}

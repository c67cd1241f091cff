//! Phase 3 of the layout: a dummy vertex per layer a long edge crosses, so
//! that every edge joins neighbouring layers (dagre's `normalize`), at
//! most `DUMMY_BUDGET` per box in all; past it an edge is drawn straight.

/// Dummy vertices allowed per box (and a floor), bounding the work on a
/// graph of many long edges.
pub(super) const DUMMY_BUDGET: usize = 16;
const DUMMY_FLOOR: usize = 10_000;

/// A vertex of the layered graph: a box or a dummy.
pub(super) struct Vertex {
    pub layer: usize,
    pub w: f64,
    pub h: i64,
    pub dummy: bool,
}

/// The layered graph: the boxes (first, in their order) and the dummies,
/// each edge's chain of vertices, and each vertex's neighbours in the
/// layer above and below.
pub(super) struct Layered {
    pub verts: Vec<Vertex>,
    pub chains: Vec<Vec<usize>>,
    pub up: Vec<Vec<usize>>,
    pub down: Vec<Vec<usize>>,
}

/// The layered graph of boxes of `sizes` (width, height) in `layer`,
/// joined by `along`.
pub(super) fn add_dummies(
    sizes: &[(f64, i64)],
    layer: &[usize],
    along: &[(usize, usize)],
) -> Layered {
    let n = sizes.len();
    let mut verts: Vec<Vertex> = sizes
        .iter()
        .zip(layer)
        .map(|(&(w, h), &l)| Vertex {
            layer: l,
            w,
            h,
            dummy: false,
        })
        .collect();
    let budget = n.saturating_mul(DUMMY_BUDGET).max(DUMMY_FLOOR);
    let mut chains: Vec<Vec<usize>> = Vec::with_capacity(along.len());
    let mut up: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut down: Vec<Vec<usize>> = vec![Vec::new(); n];
    for &(u, v) in along {
        let (lu, lv) = (
            layer.get(u).copied().unwrap_or(0),
            layer.get(v).copied().unwrap_or(0),
        );
        let span = lv.saturating_sub(lu);
        let mut chain = vec![u];
        if span > 1 && verts.len() - n + span - 1 <= budget {
            for l in lu + 1..lv {
                verts.push(Vertex {
                    layer: l,
                    w: 0.0,
                    h: 0,
                    dummy: true,
                });
                up.push(Vec::new());
                down.push(Vec::new());
                chain.push(verts.len() - 1);
            }
        }
        chain.push(v);
        for w in chain.windows(2) {
            if let [a, b] = *w
                && verts
                    .get(b)
                    .is_some_and(|vb| vb.layer == verts.get(a).map_or(0, |va| va.layer) + 1)
            {
                if let Some(d) = down.get_mut(a) {
                    d.push(b);
                }
                if let Some(x) = up.get_mut(b) {
                    x.push(a);
                }
            }
        }
        chains.push(chain);
    }
    Layered {
        verts,
        chains,
        up,
        down,
    }
}

//! A layered (Sugiyama-style) layout of one graph, the same on the server,
//! in the static WebAssembly build and for `decode --graph svg`:
//!
//! 1. boxes: the nodes, the graph's inputs and outputs, and the folded
//!    name-scope groups (a folded group is one box for all its nodes);
//! 2. an order of the boxes by Kahn's algorithm, a cycle (TensorFlow's
//!    loops) broken at the first box left, the edges against the order
//!    reversed; longest-path layers, a box without inputs moved down next
//!    to its first reader;
//! 3. a dummy vertex per layer an edge crosses (at most `DUMMY_BUDGET`
//!    per box in all; past it an edge is drawn straight);
//! 4. barycentre sweeps down and up the layers against crossings;
//! 5. x coordinates: each layer's centres pulled to the mean of their
//!    neighbours' in the layer before, boxes kept apart, solved exactly per
//!    layer as an isotonic regression (pool adjacent violators), in sweeps
//!    down and up;
//! 6. edge polylines through the dummies.
//!
//! Steps 2 to 6 are one module each (`acyclic`, `rank`, `normalize`,
//! `order`, `position`, `route`), as dagre keeps its phases; `sugiyama`
//! runs them in turn.
//!
//! Open name-scope groups are laid out as frames (`nested`): each
//! group's members by the steps above on their own, innermost group
//! first, then the group as one box of that size in the level holding it.
//!
//! Every step is linear or `n log n` in the boxes and edges, without
//! recursion; the layout of a 20,000-node model takes a fraction of a
//! second (`scripts/bench_graph.sh`).

mod acyclic;
mod normalize;
mod order;
mod position;
mod rank;
mod route;

use super::{End, Graph};
use std::collections::{BinaryHeap, HashMap};

/// Pixels around the drawing (the gaps between layers and boxes are the
/// `position` phase's).
pub const MARGIN: i64 = 20;
/// `fold=auto`: graphs of more nodes than this are drawn with groups
/// folded, as few as keep the boxes under it.
pub const AUTO_FOLD_BOXES: usize = 1_500;
/// Box text: pixels per character and per line, the longest line kept.
const CHAR_W: i64 = 7;
const LINE_H: i64 = 14;
const LABEL_CHARS: usize = 48;

/// How groups are folded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fold {
    None,
    Auto,
    All,
}

impl Fold {
    pub fn name(self) -> &'static str {
        match self {
            Fold::None => "none",
            Fold::Auto => "auto",
            Fold::All => "all",
        }
    }

    pub fn parse(s: &str) -> Option<Fold> {
        match s {
            "none" => Some(Fold::None),
            "auto" => Some(Fold::Auto),
            "all" => Some(Fold::All),
            _ => None,
        }
    }
}

/// A name scope of two or more nodes.
#[derive(Debug, Clone)]
pub struct Group {
    /// The nodes' name prefix (`/model.22/cv2`, `a/b`).
    pub path: String,
    /// Its last part (`cv2`).
    pub name: String,
    pub parent: Option<usize>,
    /// Every node inside it, nested groups too.
    pub nodes: usize,
    pub folded: bool,
}

/// What a box draws.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Item {
    Node(usize),
    Input(usize),
    Output(usize),
    Group(usize),
}

/// A rectangle: top left corner, width, height.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Rect {
    pub x: i64,
    pub y: i64,
    pub w: i64,
    pub h: i64,
}

/// A box drawn.
#[derive(Debug, Clone)]
pub struct Placed {
    pub item: Item,
    pub rect: Rect,
    pub label: Vec<String>,
}

/// An edge drawn: a value from one box to another.
#[derive(Debug, Clone)]
pub struct DrawnEdge {
    pub value: usize,
    pub from: Item,
    pub to: Item,
    pub points: Vec<(i64, i64)>,
}

/// A graph laid out.
#[derive(Debug, Clone, Default)]
pub struct Layout {
    pub fold: Option<Fold>,
    pub groups: Vec<Group>,
    /// The innermost group of each node.
    pub node_group: Vec<Option<usize>>,
    pub boxes: Vec<Placed>,
    /// Where each node's, input's, output's and group's box is in `boxes`.
    pub node_box: Vec<Option<usize>>,
    pub input_box: Vec<Option<usize>>,
    pub output_box: Vec<Option<usize>>,
    pub group_box: Vec<Option<usize>>,
    /// The frame of each group shown open (not folded, not inside a
    /// folded group): around its members, with its title on top.
    pub group_frame: Vec<Option<Rect>>,
    pub edges: Vec<DrawnEdge>,
    pub width: i64,
    pub height: i64,
}

/// The name-scope groups of a graph's nodes (each of two nodes or more)
/// and each node's innermost one.
pub fn groups(g: &Graph) -> (Vec<Group>, Vec<Option<usize>>) {
    let mut ids: HashMap<&str, usize> = HashMap::new();
    let mut all: Vec<(&str, usize)> = Vec::new(); // (path, nodes)
    let mut per_node: Vec<Vec<usize>> = Vec::with_capacity(g.nodes.len());
    for n in &g.nodes {
        let mut chain = Vec::new();
        for p in Graph::scopes(&n.name) {
            let id = *ids.entry(p).or_insert_with(|| {
                all.push((p, 0));
                all.len() - 1
            });
            if let Some(e) = all.get_mut(id) {
                e.1 += 1;
            }
            chain.push(id);
        }
        per_node.push(chain);
    }
    // Keep groups of two or more nodes, numbered in order of appearance.
    let mut kept: Vec<Option<usize>> = vec![None; all.len()];
    let mut out: Vec<Group> = Vec::new();
    let mut node_group = Vec::with_capacity(g.nodes.len());
    for chain in &per_node {
        let mut parent = None;
        for &id in chain {
            let Some((path, count)) = all.get(id).copied() else {
                continue;
            };
            if count < 2 {
                continue;
            }
            let slot = kept.get_mut(id);
            let gid = match slot {
                Some(Some(k)) => *k,
                Some(s) => {
                    let k = out.len();
                    *s = Some(k);
                    let name = path.rsplit('/').next().unwrap_or(path).to_string();
                    out.push(Group {
                        path: path.to_string(),
                        name,
                        parent,
                        nodes: count,
                        folded: false,
                    });
                    k
                }
                None => continue,
            };
            parent = Some(gid);
        }
        node_group.push(parent);
    }
    (out, node_group)
}

/// Which groups are folded under `fold`, `open` naming groups shown open.
fn choose_folded(
    groups: &mut [Group],
    node_group: &[Option<usize>],
    extra_boxes: usize,
    fold: Fold,
    open: &[usize],
) {
    let n_groups = groups.len();
    let mut opened = vec![false; n_groups];
    for &g in open {
        if let Some(o) = opened.get_mut(g) {
            *o = true;
        }
    }
    let is_open = |g: usize| opened.get(g).copied().unwrap_or(false);
    // Children of each group, and the nodes directly in each.
    let mut child_groups: Vec<usize> = vec![0; n_groups];
    let mut direct_nodes: Vec<usize> = vec![0; n_groups];
    let mut top_nodes = 0usize;
    for grp in groups.iter() {
        if let Some(c) = grp.parent.and_then(|p| child_groups.get_mut(p)) {
            *c += 1;
        }
    }
    for ng in node_group {
        match ng.and_then(|g| direct_nodes.get_mut(g)) {
            Some(c) => *c += 1,
            None => top_nodes += 1,
        }
    }
    let total_nodes = node_group.len();
    if fold == Fold::None || (fold == Fold::Auto && total_nodes <= AUTO_FOLD_BOXES) {
        return;
    }
    // The topmost groups not opened are folded (groups come after their
    // parents, so a parent's state is known first).
    let mut shown_open = vec![false; n_groups];
    for i in 0..n_groups {
        let parent_open = groups
            .get(i)
            .and_then(|g| g.parent)
            .is_none_or(|p| shown_open.get(p).copied().unwrap_or(false));
        if let Some(g) = groups.get_mut(i) {
            g.folded = parent_open && !is_open(i);
        }
        if let Some(s) = shown_open.get_mut(i) {
            *s = parent_open && is_open(i);
        }
    }
    if fold != Fold::Auto {
        return;
    }
    // Boxes drawn now: nodes in no folded group, the folded groups, ports.
    let mut boxes = extra_boxes + top_nodes;
    for (i, g) in groups.iter().enumerate() {
        if g.folded {
            boxes += 1;
        } else if shown_open.get(i).copied().unwrap_or(false) {
            boxes += direct_nodes.get(i).copied().unwrap_or(0);
        }
    }
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); n_groups];
    for (i, g) in groups.iter().enumerate() {
        if let Some(c) = g.parent.and_then(|p| children.get_mut(p)) {
            c.push(i);
        }
    }
    let mut heap: BinaryHeap<(usize, std::cmp::Reverse<usize>)> = groups
        .iter()
        .enumerate()
        .filter(|(_, g)| g.folded)
        .map(|(i, g)| (g.nodes, std::cmp::Reverse(i)))
        .collect();
    while let Some((_, std::cmp::Reverse(i))) = heap.pop() {
        let opened =
            direct_nodes.get(i).copied().unwrap_or(0) + child_groups.get(i).copied().unwrap_or(0);
        let after = boxes - 1 + opened;
        if after > AUTO_FOLD_BOXES {
            continue;
        }
        boxes = after;
        if let Some(g) = groups.get_mut(i) {
            g.folded = false;
        }
        for &c in children.get(i).map(Vec::as_slice).unwrap_or(&[]) {
            if let Some(g) = groups.get_mut(c) {
                g.folded = true;
                heap.push((g.nodes, std::cmp::Reverse(c)));
            }
        }
    }
}

/// The text of a box, cut to [`LABEL_CHARS`] characters a line.
fn cut(s: &str) -> String {
    if s.chars().count() <= LABEL_CHARS {
        return s.to_string();
    }
    let mut t: String = s.chars().take(LABEL_CHARS - 1).collect();
    t.push('…');
    t
}

/// A box's size for its label lines.
fn size_of(label: &[String]) -> (i64, i64) {
    let chars = label.iter().map(|l| l.chars().count()).max().unwrap_or(0);
    let chars = i64::try_from(chars).unwrap_or(i64::MAX / 16);
    let lines = i64::try_from(label.len()).unwrap_or(1).max(1);
    ((chars * CHAR_W + 16).max(40), 10 + lines * LINE_H)
}

/// The lines of node `n`'s box: the op, then its weights.
pub fn node_label(g: &Graph, n: usize) -> Vec<String> {
    let Some(node) = g.nodes.get(n) else {
        return Vec::new();
    };
    let op = if node.op.is_empty() {
        "(no op)".to_string()
    } else {
        node.op.clone()
    };
    let mut label = vec![cut(&op)];
    let weights: Vec<String> = g
        .weights(n)
        .into_iter()
        .map(|(_, formal, v)| format!("{formal}<{}>", v.shape))
        .collect();
    if !weights.is_empty() {
        label.push(cut(&weights.join(" ")));
    }
    label
}

fn port_label(g: &Graph, value: usize, name: &str) -> Vec<String> {
    let mut label = vec![cut(name)];
    if let Some(v) = g.values.get(value) {
        let t = [v.ty.as_str(), v.shape.as_str()]
            .into_iter()
            .filter(|s| !s.is_empty())
            .collect::<Vec<_>>()
            .join(" ");
        if !t.is_empty() {
            label.push(cut(&t));
        }
    }
    label
}

/// Lays out graph `g` with its groups folded as `fold` and `open` say.
pub fn layout(g: &Graph, fold: Fold, open: &[usize]) -> Layout {
    let (mut groups, node_group) = groups(g);
    choose_folded(
        &mut groups,
        &node_group,
        g.inputs.len() + g.outputs.len(),
        fold,
        open,
    );
    let Boxes {
        mut boxes,
        node_box,
        group_box,
        input_box,
        output_box,
    } = make_boxes(g, &groups, &node_group);
    let box_of = |e: End| -> Option<usize> {
        match e {
            End::Node(n) => node_box.get(n).copied().flatten(),
            End::Input(k) => input_box.get(k).copied().flatten(),
            End::Output(k) => output_box.get(k).copied().flatten(),
        }
    };
    let (drawn, pairs) = drawn_edges(g, box_of);
    let box_group: Vec<Option<usize>> = boxes
        .iter()
        .map(|b| match b.item {
            Item::Node(n) => node_group.get(n).copied().flatten(),
            Item::Group(gi) => groups.get(gi).and_then(|g| g.parent),
            Item::Input(_) | Item::Output(_) => None,
        })
        .collect();
    let mut group_frame = vec![None; groups.len()];
    let routes = if box_group.iter().any(Option::is_some) {
        nested(&mut boxes, &pairs, &groups, &box_group, &mut group_frame)
    } else {
        sugiyama(&mut boxes, &pairs)
    };
    let mut edges = Vec::with_capacity(drawn.len());
    for (value, from, to) in drawn {
        let points = pairs
            .binary_search(&(from, to))
            .ok()
            .and_then(|i| routes.get(i))
            .cloned()
            .unwrap_or_default();
        let (Some(f), Some(t)) = (boxes.get(from), boxes.get(to)) else {
            continue;
        };
        edges.push(DrawnEdge {
            value,
            from: f.item,
            to: t.item,
            points,
        });
    }
    let rects = boxes
        .iter()
        .map(|b| b.rect)
        .chain(group_frame.iter().flatten().copied());
    let width = rects.clone().map(|r| r.x + r.w).max().unwrap_or(0) + MARGIN;
    let height = rects.map(|r| r.y + r.h).max().unwrap_or(0) + MARGIN;
    Layout {
        fold: Some(fold),
        groups,
        node_group,
        boxes,
        node_box,
        input_box,
        output_box,
        group_box,
        group_frame,
        edges,
        width,
        height,
    }
}

/// The boxes of a layout, before they are placed, and the box of each
/// node, folded group, input and output.
struct Boxes {
    boxes: Vec<Placed>,
    node_box: Vec<Option<usize>>,
    group_box: Vec<Option<usize>>,
    input_box: Vec<Option<usize>>,
    output_box: Vec<Option<usize>>,
}

/// One box per input, per output, per node shown and per outermost folded
/// group, each sized for its label.
fn make_boxes(g: &Graph, groups: &[Group], node_group: &[Option<usize>]) -> Boxes {
    // The box of each node: its outermost folded group, or its own.
    let mut boxes: Vec<Placed> = Vec::new();
    let mut node_box = vec![None; g.nodes.len()];
    let mut group_box = vec![None; groups.len()];
    let mut input_box = vec![None; g.inputs.len()];
    let mut output_box = vec![None; g.outputs.len()];
    let place = |item: Item, label: Vec<String>, boxes: &mut Vec<Placed>| {
        let (w, h) = size_of(&label);
        boxes.push(Placed {
            item,
            rect: Rect { x: 0, y: 0, w, h },
            label,
        });
        boxes.len() - 1
    };
    for (k, p) in g.inputs.iter().enumerate() {
        if let Some(b) = input_box.get_mut(k) {
            *b = Some(place(
                Item::Input(k),
                port_label(g, p.value, &p.name),
                &mut boxes,
            ));
        }
    }
    for (n, ng) in node_group.iter().enumerate() {
        // The outermost folded group above the node.
        let mut folded_at = None;
        let mut at = *ng;
        while let Some(gi) = at {
            let Some(grp) = groups.get(gi) else { break };
            if grp.folded {
                folded_at = Some(gi);
            }
            at = grp.parent;
        }
        let b = match folded_at {
            Some(gi) => match group_box.get(gi).copied().flatten() {
                Some(b) => b,
                None => {
                    let grp = groups.get(gi);
                    let label = vec![
                        cut(grp.map_or("", |x| x.path.as_str())),
                        format!(
                            "{} nodes",
                            crate::render::elide::grouped(
                                grp.map_or(0, |x| x.nodes).try_into().unwrap_or(u64::MAX)
                            )
                        ),
                    ];
                    let b = place(Item::Group(gi), label, &mut boxes);
                    if let Some(s) = group_box.get_mut(gi) {
                        *s = Some(b);
                    }
                    b
                }
            },
            None => place(Item::Node(n), node_label(g, n), &mut boxes),
        };
        if let Some(s) = node_box.get_mut(n) {
            *s = Some(b);
        }
    }
    for (k, p) in g.outputs.iter().enumerate() {
        if let Some(b) = output_box.get_mut(k) {
            *b = Some(place(
                Item::Output(k),
                port_label(g, p.value, &p.name),
                &mut boxes,
            ));
        }
    }
    Boxes {
        boxes,
        node_box,
        group_box,
        input_box,
        output_box,
    }
}

/// A value drawn between two boxes: (value, from box, to box).
type Drawn = (usize, usize, usize);

/// The edges between boxes: (value, from box, to box) per value drawn,
/// sorted and distinct, and the distinct (from, to) pairs the layout
/// places.
fn drawn_edges(
    g: &Graph,
    box_of: impl Fn(End) -> Option<usize> + Copy,
) -> (Vec<Drawn>, Vec<(usize, usize)>) {
    let mut drawn: Vec<Drawn> = Vec::new();
    for (vid, v) in g.values.iter().enumerate() {
        let Some(from) = v.producer.and_then(box_of) else {
            continue;
        };
        for &c in &v.consumers {
            if let Some(to) = box_of(c).filter(|&t| t != from) {
                drawn.push((vid, from, to));
            }
        }
    }
    drawn.sort_unstable();
    drawn.dedup();
    let mut pairs: Vec<(usize, usize)> = drawn.iter().map(|&(_, f, t)| (f, t)).collect();
    pairs.sort_unstable();
    pairs.dedup();
    (drawn, pairs)
}

/// Pixels between a frame and what it holds, and the height of its title.
const FRAME_PAD: i64 = 12;
const FRAME_TITLE: i64 = 20;

/// What a level of the nesting lays out: a box, or an open group's frame
/// with everything inside it already laid out.
#[derive(Clone, Copy)]
enum Member {
    Box(usize),
    Frame(usize),
}

/// Places `boxes` as [`sugiyama`] does, each open group's members kept
/// together inside a frame that nothing else enters (the compound layout
/// of Graphviz's clusters and of the frames Netron and TensorBoard draw):
/// each group is laid out on its own, innermost first, then placed as one
/// box in the level that holds it. `box_group` is each box's innermost
/// open group; an edge is routed in the innermost level holding both its
/// ends, from and to the frames that hold them, and on to the boxes inside
/// in a straight line. Groups are numbered parents first, so the levels
/// are walked without recursion.
fn nested(
    boxes: &mut [Placed],
    pairs: &[(usize, usize)],
    groups: &[Group],
    box_group: &[Option<usize>],
    frames: &mut [Option<Rect>],
) -> Vec<Vec<(i64, i64)>> {
    let members = level_members(groups, box_group);
    let (level_pairs, routed) = pairs_by_level(&members, pairs, groups, box_group);
    let (local, routes) = lay_out_levels(boxes, groups, &members, &level_pairs);
    let origin = place_levels(boxes, frames, &members, &local);
    let levels = Routes {
        origin: &origin,
        pairs: &level_pairs,
        routes: &routes,
    };
    pairs
        .iter()
        .zip(routed)
        .map(|(&(f, t), entry)| polyline(boxes, (f, t), entry, &levels))
        .collect()
}

/// An edge's points, from its producer's box to its consumer's.
type Polyline = Vec<(i64, i64)>;

/// A pair's place in the nesting: its level and the members' pair there.
type Routed = Option<(usize, (usize, usize))>;

/// Each level's members: level 0 is the graph, level g + 1 open group g
/// (the groups that hold a box, and their open ancestors).
fn level_members(groups: &[Group], box_group: &[Option<usize>]) -> Vec<Vec<Member>> {
    // The open groups that hold a box, and their open ancestors.
    let mut shown = vec![false; groups.len()];
    for &g in box_group.iter().flatten() {
        let mut at = Some(g);
        while let Some(gi) = at {
            match shown.get_mut(gi) {
                Some(s) if !*s => *s = true,
                _ => break,
            }
            at = groups.get(gi).and_then(|x| x.parent);
        }
    }
    let mut members: Vec<Vec<Member>> = vec![Vec::new(); groups.len() + 1];
    let level_of = |g: Option<usize>| g.map_or(0, |g| g + 1);
    for (b, g) in box_group.iter().enumerate() {
        if let Some(m) = members.get_mut(level_of(*g)) {
            m.push(Member::Box(b));
        }
    }
    for (gi, g) in groups.iter().enumerate() {
        if shown.get(gi) == Some(&true)
            && let Some(m) = members.get_mut(level_of(g.parent))
        {
            m.push(Member::Frame(gi));
        }
    }
    members
}

/// The pairs of each level (sorted, distinct), and each of `pairs`' level
/// and members' pair there: an edge belongs to the innermost level holding
/// both its ends, between the members of that level that hold them.
fn pairs_by_level(
    members: &[Vec<Member>],
    pairs: &[(usize, usize)],
    groups: &[Group],
    box_group: &[Option<usize>],
) -> (Vec<Vec<(usize, usize)>>, Vec<Routed>) {
    // The chain of levels of each box, innermost first.
    let chain = |b: usize| -> Vec<usize> {
        let mut out = Vec::new();
        let mut at = box_group.get(b).copied().flatten();
        while let Some(gi) = at {
            out.push(gi + 1);
            at = groups.get(gi).and_then(|x| x.parent);
        }
        out.push(0);
        out
    };
    // Each edge in the innermost level holding both ends, between the
    // members of that level that hold them.
    let mut member_at: Vec<HashMap<(bool, usize), usize>> = vec![HashMap::new(); members.len()];
    for (l, ms) in members.iter().enumerate() {
        if let Some(map) = member_at.get_mut(l) {
            for (k, m) in ms.iter().enumerate() {
                let key = match *m {
                    Member::Box(b) => (false, b),
                    Member::Frame(g) => (true, g),
                };
                map.insert(key, k);
            }
        }
    }
    let mut level_pairs: Vec<Vec<(usize, usize)>> = vec![Vec::new(); members.len()];
    // Per pair: its level and the members' pair there.
    let mut routed: Vec<Routed> = Vec::with_capacity(pairs.len());
    for &(f, t) in pairs {
        let (cf, ct) = (chain(f), chain(t));
        // Both chains end at the graph: the common tail is the levels
        // holding both; its first is the innermost.
        let common = cf
            .iter()
            .rev()
            .zip(ct.iter().rev())
            .take_while(|(a, b)| a == b)
            .count();
        let level = cf
            .len()
            .checked_sub(common)
            .and_then(|i| cf.get(i))
            .copied();
        let rep = |c: &[usize], b: usize| -> Option<usize> {
            // The member of `level` on the way to box b: the frame of the
            // level just inside it, or the box itself.
            let inner = c.len().checked_sub(common + 1).and_then(|i| c.get(i));
            let key = match inner {
                Some(&l) => (true, l.checked_sub(1)?),
                None => (false, b),
            };
            member_at.get(level?)?.get(&key).copied()
        };
        let entry = match (level, rep(&cf, f), rep(&ct, t)) {
            (Some(l), Some(a), Some(b)) if a != b => {
                if let Some(p) = level_pairs.get_mut(l) {
                    p.push((a, b));
                }
                Some((l, (a, b)))
            }
            _ => None,
        };
        routed.push(entry);
    }
    for p in &mut level_pairs {
        p.sort_unstable();
        p.dedup();
    }
    (level_pairs, routed)
}

/// Each level laid out in its own coordinates, innermost first (a group's
/// frame size known before its parent's level is laid out): the members'
/// rectangles and the level's routes.
fn lay_out_levels(
    boxes: &[Placed],
    groups: &[Group],
    members: &[Vec<Member>],
    level_pairs: &[Vec<(usize, usize)>],
) -> (Vec<Vec<Rect>>, Vec<Vec<Polyline>>) {
    // Innermost first: each group laid out in its own coordinates, its
    // frame's size known before its parent's level is laid out.
    let mut sizes: Vec<(i64, i64)> = vec![(0, 0); groups.len()];
    let mut local: Vec<Vec<Rect>> = vec![Vec::new(); members.len()];
    let mut routes: Vec<Vec<Vec<(i64, i64)>>> = vec![Vec::new(); members.len()];
    for l in (0..members.len()).rev() {
        let ms = members.get(l).map(Vec::as_slice).unwrap_or(&[]);
        if l > 0 && ms.is_empty() {
            continue;
        }
        let mut placed: Vec<Placed> = ms
            .iter()
            .map(|m| {
                let (item, (w, h)) = match *m {
                    Member::Box(b) => (
                        boxes.get(b).map_or(Item::Node(0), |x| x.item),
                        boxes.get(b).map_or((0, 0), |x| (x.rect.w, x.rect.h)),
                    ),
                    Member::Frame(g) => (Item::Group(g), sizes.get(g).copied().unwrap_or((0, 0))),
                };
                Placed {
                    item,
                    rect: Rect { x: 0, y: 0, w, h },
                    label: Vec::new(),
                }
            })
            .collect();
        let lp = level_pairs.get(l).map(Vec::as_slice).unwrap_or(&[]);
        let mut r = sugiyama(&mut placed, lp);
        if l > 0 {
            // Inside a frame: moved to start below its title.
            let x0 = placed.iter().map(|p| p.rect.x).min().unwrap_or(0);
            let y0 = placed.iter().map(|p| p.rect.y).min().unwrap_or(0);
            let (dx, dy) = (FRAME_PAD - x0, FRAME_TITLE + FRAME_PAD - y0);
            for p in &mut placed {
                p.rect.x += dx;
                p.rect.y += dy;
            }
            for pts in &mut r {
                for pt in pts {
                    pt.0 += dx;
                    pt.1 += dy;
                }
            }
            let right = placed
                .iter()
                .map(|p| p.rect.x + p.rect.w)
                .max()
                .unwrap_or(0);
            let bottom = placed
                .iter()
                .map(|p| p.rect.y + p.rect.h)
                .max()
                .unwrap_or(0);
            let title = groups.get(l - 1).map_or(0, |g| {
                i64::try_from(g.name.chars().count().min(LABEL_CHARS)).unwrap_or(0) * CHAR_W
                    + 2 * FRAME_PAD
                    + 16
            });
            if let Some(s) = sizes.get_mut(l - 1) {
                *s = ((right + FRAME_PAD).max(title), bottom + FRAME_PAD);
            }
        }
        if let Some(x) = local.get_mut(l) {
            *x = placed.into_iter().map(|p| p.rect).collect();
        }
        if let Some(x) = routes.get_mut(l) {
            *x = r;
        }
    }
    (local, routes)
}

/// Places the boxes and frames, outermost level first; returns each
/// level's origin.
fn place_levels(
    boxes: &mut [Placed],
    frames: &mut [Option<Rect>],
    members: &[Vec<Member>],
    local: &[Vec<Rect>],
) -> Vec<(i64, i64)> {
    // Outermost first: each level's origin, its boxes and frames placed.
    let mut origin: Vec<(i64, i64)> = vec![(0, 0); members.len()];
    for l in 0..members.len() {
        let (ox, oy) = origin.get(l).copied().unwrap_or((0, 0));
        let ms = members.get(l).map(Vec::as_slice).unwrap_or(&[]);
        let rects = local.get(l).map(Vec::as_slice).unwrap_or(&[]);
        for (m, r) in ms.iter().zip(rects) {
            let at = Rect {
                x: r.x + ox,
                y: r.y + oy,
                ..*r
            };
            match *m {
                Member::Box(b) => {
                    if let Some(x) = boxes.get_mut(b) {
                        x.rect = at;
                    }
                }
                Member::Frame(g) => {
                    if let Some(f) = frames.get_mut(g) {
                        *f = Some(at);
                    }
                    if let Some(o) = origin.get_mut(g + 1) {
                        *o = (at.x, at.y);
                    }
                }
            }
        }
    }
    origin
}

/// The levels' routes, in their own coordinates, and where each level is.
struct Routes<'a> {
    origin: &'a [(i64, i64)],
    pairs: &'a [Vec<(usize, usize)>],
    routes: &'a [Vec<Polyline>],
}

/// A pair's polyline: its level's route, then straight on to the boxes
/// inside the frames it joins.
fn polyline(
    boxes: &[Placed],
    (f, t): (usize, usize),
    entry: Routed,
    levels: &Routes<'_>,
) -> Vec<(i64, i64)> {
    let (Some(bf), Some(bt)) = (boxes.get(f), boxes.get(t)) else {
        return Vec::new();
    };
    let (rf, rt) = (bf.rect, bt.rect);
    let mut pts: Vec<(i64, i64)> = Vec::new();
    if let Some((l, pair)) = entry {
        let (ox, oy) = levels.origin.get(l).copied().unwrap_or((0, 0));
        let k = levels
            .pairs
            .get(l)
            .and_then(|p| p.binary_search(&pair).ok());
        if let Some(route) = k.and_then(|k| levels.routes.get(l)?.get(k)) {
            pts = route.iter().map(|&(x, y)| (x + ox, y + oy)).collect();
        }
    }
    // A route that runs upwards (an edge closing a loop) leaves
    // its producer's top and reaches its consumer's bottom.
    let on_side = |p: Option<&(i64, i64)>, r: Rect| {
        p.is_some_and(|&(x, y)| (y == r.y || y == r.y + r.h) && x >= r.x && x <= r.x + r.w)
    };
    if !on_side(pts.first(), rf) {
        let up = pts.first().is_some_and(|&(_, y)| y < rf.y);
        pts.insert(0, (rf.x + rf.w / 2, if up { rf.y } else { rf.y + rf.h }));
    }
    if !on_side(pts.last(), rt) {
        let below = pts.last().is_some_and(|&(_, y)| y > rt.y + rt.h);
        pts.push((rt.x + rt.w / 2, if below { rt.y + rt.h } else { rt.y }));
    }
    pts
}

/// Places `boxes` (sets their rectangles) for the edges `pairs` (sorted,
/// distinct, no loops) and returns each pair's polyline: the phases of
/// Sugiyama's method, one module each, as dagre keeps them.
fn sugiyama(boxes: &mut [Placed], pairs: &[(usize, usize)]) -> Vec<Vec<(i64, i64)>> {
    let ordered = acyclic::order_boxes(boxes.len(), pairs);
    let layer = rank::longest_path(boxes.len(), &ordered.order, &ordered.along);
    // Precision loss is irrelevant at pixel sizes.
    let sizes: Vec<(f64, i64)> = boxes.iter().map(|b| (b.rect.w as f64, b.rect.h)).collect();
    let g = normalize::add_dummies(&sizes, &layer, &ordered.along);
    let layers = order::order_layers(&g, &ordered.order);
    let pos = position::place(&g, &layers, MARGIN);
    for (b, (i, v)) in boxes.iter_mut().zip(g.verts.iter().enumerate()) {
        b.rect.x = pos.left_x(i, v.w);
        b.rect.y = pos.top_of(v);
    }
    route::polylines(pairs, &g, &pos)
}

#[cfg(test)]
mod tests {
    #[test]
    fn isotonic_pools_violators() {
        assert_eq!(
            super::position::isotonic(&[1.0, 3.0, 2.0, 4.0]),
            vec![1.0, 2.5, 2.5, 4.0]
        );
        assert_eq!(
            super::position::isotonic(&[3.0, 2.0, 1.0]),
            vec![2.0, 2.0, 2.0]
        );
    }
}

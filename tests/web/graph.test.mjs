// The Graph tab's geometry (web/graph-geometry.js) on graphs completed by
// web/graph-model.js from answers shaped as /api/graph's: the first view
// (readable, the graph's top), the box of a node folded away, what a
// frame draws (culling) and what a point hits; and web/graph-svg.js's
// document.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { READABLE_ZOOM, WHOLE_ZOOM, cull, drawnBoxOf, firstView, fitView, hitTest, scopesOf, showBox, worldRect, zoomAbout } from '../../web/graph-geometry.js';
import { adoptGraph } from '../../web/graph-model.js';
import { graphSvg } from '../../web/graph-svg.js';

// A column of `n` boxes 120 x 40, 40 apart, each reading the one above,
// under an input port; `groups` as the answer gives them.
function column(n, { groups = [], groupOf = () => null, x = 0 } = {}) {
  const nodes = Array.from({ length: n }, (_, i) => ({
    index: i, name: `n${i}`, op: 'Relu', label: ['Relu'], group: groupOf(i),
    box: { x, y: 80 + i * 80, w: 120, h: 40 },
    inputs: [{ name: i ? `v${i - 1}` : 'x' }], outputs: [{ name: `v${i}` }],
  }));
  const edges = nodes.map((nd, i) => ({ value: i ? `v${i - 1}` : 'x', points: [[x + 60, i ? 40 + i * 80 : 40], [x + 60, 80 + i * 80]] }));
  return adoptGraph({
    graph: {
      id: 0, name: 'g', kind: 'main', width: x + 120, height: 80 + n * 80, nodes, edges, groups,
      inputs: [{ name: 'x', type: 'FLOAT', shape: '1', box: { x: x + 20, y: 0, w: 80, h: 40 } }], outputs: [],
    },
    graphs: [],
  });
}

test('a small graph opens whole, at no more than life size', () => {
  const g = column(3);
  const v = firstView(g, 1400, 800);
  assert.deepEqual(v, fitView(g, 1400, 800));
  assert.equal(v.k, 1);
});

test('a big graph opens at its top, readable: labels of 11 px at 10 px or more, the first boxes inside the window', () => {
  const g = column(400);
  assert.ok(fitView(g, 1400, 800).k < WHOLE_ZOOM);
  const v = firstView(g, 1400, 800);
  assert.ok(v.k >= READABLE_ZOOM && v.k <= 1, String(v.k));
  assert.ok(11 * v.k >= 10);
  const inside = g.nodes.filter((n) => {
    const x = v.tx + n.box.x * v.k, y = v.ty + n.box.y * v.k;
    return x >= 0 && y >= 0 && x + n.box.w * v.k <= 1400 && y + n.box.h * v.k <= 800;
  });
  assert.ok(inside.length >= 5, `${inside.length} boxes in the window`);
  assert.equal(inside[0], g.nodes[0]);
  // The input port at the top, 24 px down.
  assert.equal(v.ty + g.ios[0].box.y * v.k, 24);
});

test('the first view is the graph\'s top whatever its ports: a branch with only outputs, at the bottom', () => {
  // An If branch: no input; its one output under the last node.
  const g = column(200);
  g.ios[0].side = 'output';
  g.ios[0].box = { x: 20, y: 80 + 200 * 80, w: 80, h: 40 };
  const v = firstView(g, 1400, 800);
  const top = v.ty + g.nodes[0].box.y * v.k;
  assert.ok(top >= 0 && top < 100, `the first node at ${top}`);
});

test('a node folded away is drawn as the outermost folded group around it', () => {
  const groups = [
    { id: 0, path: '/a', name: 'a', parent: null, folded: true, nodes: 4, box: { x: 0, y: 80, w: 120, h: 40 } },
    { id: 1, path: '/a/b', name: 'b', parent: 0, folded: true, nodes: 2, box: null },
  ];
  const g = column(6, { groups, groupOf: (i) => (i < 2 ? 1 : i < 4 ? 0 : null) });
  for (const i of [0, 1, 2, 3]) g.nodes[i].box = null;
  assert.deepEqual(drawnBoxOf(g, g.nodes[0]), { box: groups[0].box, group: g.groupById.get(0) });
  assert.deepEqual(drawnBoxOf(g, g.nodes[3]).group.path, '/a');
  assert.deepEqual(drawnBoxOf(g, g.nodes[5]), { box: g.nodes[5].box, group: null });
  assert.deepEqual(scopesOf(g, g.nodes[1]).map((gr) => gr.path), ['/a', '/a/b']);
  // A group that names itself as its parent does not hang the walk.
  g.groupById.get(1).parent = 1;
  assert.equal(scopesOf(g, g.nodes[0]).length, g.groups.length + 1);
});

test('showing a box: centred at readable zoom left of the panel, or from its top left when bigger', () => {
  const b = { x: 1000, y: 2000, w: 100, h: 40 };
  const v = showBox(b, 0.2, 1400, 800, 360, true);
  assert.equal(v.k, 1);
  assert.equal(v.tx + (b.x + b.w / 2) * v.k, (1400 - 360) / 2);
  assert.equal(v.ty + (b.y + b.h / 2) * v.k, 400);
  // A group taller than the window: its top at the top.
  const big = { x: 0, y: 500, w: 300, h: 5000 };
  const w = showBox(big, 1, 1400, 800);
  assert.equal(w.ty + big.y, 24);
  // Zooming about a point keeps that point where it is.
  const z = zoomAbout({ k: 1, tx: 10, ty: 20 }, 2, 300, 200);
  assert.deepEqual([(300 - z.tx) / z.k, (200 - z.ty) / z.k], [290, 180]);
  assert.equal(zoomAbout({ k: 5, tx: 0, ty: 0 }, 10, 0, 0).k, 6);
});

test('culling: a frame draws only what meets the window', () => {
  const g = column(1000);
  const v = { k: 1, tx: 0, ty: -80 * 500 };
  const on = cull(g, worldRect(v, 1400, 800));
  const want = g.nodes.filter((n) => n.box.y + n.box.h >= 40000 && n.box.y <= 40800);
  assert.deepEqual(on.nodes, want);
  assert.ok(on.nodes.length >= 9 && on.nodes.length <= 11, String(on.nodes.length));
  assert.ok(on.edges.length <= 12 && on.edges.every((e) => e.by1 >= 40000 && e.by <= 40800));
  assert.deepEqual(on.ios, []);
  // Zoomed out, the whole graph.
  const all = cull(g, worldRect(fitView(g, 1400, 800), 1400, 800));
  assert.equal(all.nodes.length, 1000);
  assert.equal(all.edges.length, 1000);
  assert.equal(all.ios.length, 1);
});

test('hit testing: a folded group before a node, a node, a port, an open group by its title line only', () => {
  const groups = [
    { id: 0, path: '/f', name: 'f', parent: null, folded: true, nodes: 1, box: { x: 300, y: 80, w: 120, h: 40 } },
    { id: 1, path: '/o', name: 'o', parent: null, folded: false, nodes: 3, box: { x: -10, y: 150, w: 140, h: 300 } },
  ];
  const g = column(5, { groups, groupOf: (i) => (i >= 1 && i <= 3 ? 1 : null) });
  assert.equal(hitTest(g, 350, 100, 1).group.path, '/f');
  assert.equal(hitTest(g, 60, 100, 1).node.name, 'n0');
  assert.equal(hitTest(g, 60, 20, 1).port.name, 'x');
  assert.equal(hitTest(g, 125, 160, 1).group.path, '/o');
  assert.equal(hitTest(g, 125, 300, 1), null);
  // Zoomed out, the title line is 20 screen pixels: taller in the graph.
  assert.equal(hitTest(g, 125, 300, 0.1).group.path, '/o');
  assert.equal(hitTest(g, 5000, 5000, 1), null);
});

test('the SVG export: every box and edge, names escaped as decode --graph svg escapes them', () => {
  const g = column(3);
  g.nodes[1].name = 'a\u0000b<&';
  g.nodes[1].label = ['Relu\u001b'];
  const svg = graphSvg(g);
  assert.equal((svg.match(/<g class="node">/g) || []).length, 3);
  assert.equal((svg.match(/<polyline class="edge"/g) || []).length, 3);
  assert.ok(svg.includes('<title>a\\u{0}b&lt;&amp;</title>'), svg);
  assert.ok(svg.includes('>Relu\\u{1b}</text>'));
  // eslint-disable-next-line no-control-regex -- what must not be there
  assert.doesNotMatch(svg, /[\u0000-\u0008\u000b\u000c\u000e-\u001f]/);
});

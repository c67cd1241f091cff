// Where the Graph tab's view lands (run by tests/browser/run.sh with both
// back ends): the first view of a yolov8n-like model (readable labels,
// the drawing over three quarters of a 1440 x 900 window, the file list
// folded away, the panel over the drawing); a silero-vad-like If branch
// picked in the selector and the way back; a node found, then its scopes
// folded and unfolded; a bookmark followed; one frame drawn for any
// number of wheel and drag events. Each asserts the boxes drawn inside
// the window, not only counts. Screenshots in
// target/browser-screenshots/v*.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { start, dropBytes, shot, sileroLikeModel, yoloLikeModel } from './harness.mjs';

let env, page;
before(async () => {
  env = await start({ width: 1440, height: 900 });
  page = env.page;
});
after(async () => { if (env) await env.stop(); });

const frames = () => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
const ready = (graph) => page.waitForFunction((id) => {
  const w = document.querySelector('#graph');
  return w && w.dataset.ready === '1' && (id === undefined || w.dataset.graph === String(id));
}, graph);

// The view as drawn: its zoom, the canvas on the page, and the boxes
// (nodes, folded groups) wholly inside the canvas, by name.
const landing = () => page.evaluate(() => {
  const v = pbdecode.graph;
  const c = v.canvas.getBoundingClientRect();
  const inside = (b) => {
    const x = v.tx + b.x * v.k, y = v.ty + b.y * v.k;
    return x >= 0 && y >= 0 && x + b.w * v.k <= c.width && y + b.h * v.k <= c.height;
  };
  return {
    k: v.k, canvas: { x: c.left, y: c.top, w: c.width, h: c.height },
    nodes: v.g.nodes.filter((n) => n.box && inside(n.box)).map((n) => n.name),
    folded: v.g.groups.filter((g) => g.folded && g.box && inside(g.box)).map((g) => g.path),
    boxes: v.g.nodes.filter((n) => n.box).length + v.g.groups.filter((g) => g.folded && g.box).length,
    drawn: Number(v.canvas.dataset.drawnNodes),
  };
});
// Where a box is on the canvas, as a fraction of its width and height.
const placeOf = (box) => page.evaluate((b) => {
  const v = pbdecode.graph;
  return [(v.tx + (b.x + b.w / 2) * v.k) / v.cw, (v.ty + (b.y + b.h / 2) * v.k) / v.ch];
}, box);

test('the first view of a yolov8n-like model: labels readable, its top in a drawing over three quarters of the window', async () => {
  await dropBytes(page, 'yolo_like.onnx', yoloLikeModel());
  await page.click('.tabs button[data-tab="graph"]');
  await ready();
  await frames();
  const l = await landing();
  assert.equal(Number(await page.$eval('#graph', (e) => e.dataset.nodes)), 232);
  // Labels (11 and 12 px in the graph) at 10 px or more on screen.
  assert.ok(l.k * 11 >= 10, `zoom ${l.k}`);
  // The drawing: at least 75% of the window; the file list folded away.
  assert.ok(l.canvas.w * l.canvas.h >= 0.75 * 1440 * 900, JSON.stringify(l.canvas));
  assert.ok(await page.isHidden('#side'));
  // The graph's top: the first layers drawn inside the window, in order.
  for (const n of ['/model.0/conv/Conv', '/model.0/act/Sigmoid', '/model.0/act/Mul', '/model.1/conv/Conv']) assert.ok(l.nodes.includes(n), `${n} not in ${l.nodes.join(', ')}`);
  assert.ok(l.drawn >= l.nodes.length && l.nodes.length >= 5, `${l.nodes.length} inside, ${l.drawn} drawn`);
  await shot(page, 'v01-yolo-first-view');
  // The panel lies over the drawing, which keeps its size.
  await page.evaluate(() => pbdecode.graph.select(pbdecode.graph.g.nodes.find((n) => n.name === '/model.1/conv/Conv'), true));
  await frames();
  const panel = await page.$eval('#node-panel', (p) => { const r = p.getBoundingClientRect(); return { x: r.left, w: r.width, right: r.right }; });
  const after = await landing();
  assert.deepEqual(after.canvas, l.canvas);
  assert.ok(panel.x > l.canvas.x && panel.right <= l.canvas.x + l.canvas.w + 1, JSON.stringify({ panel, canvas: l.canvas }));
  assert.ok(after.nodes.includes('/model.1/conv/Conv'));
  await shot(page, 'v02-yolo-panel');
  // The Files button brings the file list back over the drawing.
  await page.click('#side-toggle');
  assert.ok(await page.isVisible('#files'));
  await page.click('#side-toggle');
  assert.ok(await page.isHidden('#side'));
});

test('a silero-vad-like If branch picked in the selector opens at its top; back restores the main graph as it was', async () => {
  await dropBytes(page, 'silero_like.onnx', sileroLikeModel());
  await page.click('.tabs button[data-tab="graph"]');
  await ready(0);
  // The main graph seen from far down first, as a user leaves it.
  await page.evaluate(() => pbdecode.graph.panBy(0, -300));
  await frames();
  const main = await page.evaluate(() => ({ k: pbdecode.graph.k, tx: pbdecode.graph.tx, ty: pbdecode.graph.ty }));
  const then = await page.$eval('#graph-pick', (s) => [...s.options].find((o) => /then_branch/.test(o.textContent)).value);
  await page.selectOption('#graph-pick', then);
  await ready(then);
  await frames();
  const l = await landing();
  assert.equal(l.boxes, 113);
  assert.ok(l.k * 11 >= 10, `zoom ${l.k}`);
  // Its first nodes, the STFT's, inside the window; many boxes, not two.
  for (const n of ['/_model/stft/Pad', '/_model/stft/Conv', '/_model/stft/Sqrt']) assert.ok(l.nodes.includes(n), `${n} not in ${l.nodes.join(', ')}`);
  assert.ok(l.nodes.length >= 8, `${l.nodes.length} boxes inside: ${l.nodes.join(', ')}`);
  await shot(page, 'v03-silero-then-branch');
  const other = await page.$eval('#graph-pick', (s) => [...s.options].find((o) => /else_branch/.test(o.textContent)).value);
  await page.selectOption('#graph-pick', other);
  await ready(other);
  await frames();
  const e = await landing();
  assert.equal(e.boxes, 57);
  assert.ok(e.nodes.includes('/_model/stft/Pad') && e.nodes.length >= 8, e.nodes.join(', '));
  // Back twice: the then branch, then the main graph where it was left.
  await page.click('#graph-back');
  await ready(then);
  assert.ok((await landing()).nodes.includes('/_model/stft/Pad'));
  await page.click('#graph-back');
  await ready(0);
  assert.deepEqual(await page.evaluate(() => ({ k: pbdecode.graph.k, tx: pbdecode.graph.tx, ty: pbdecode.graph.ty })), main);
});

test('a node found, then its scopes folded: the group that holds it centred and lit, its panel kept; unfolded, the node again', async () => {
  await dropBytes(page, 'yolo_like.onnx', yoloLikeModel());
  await page.click('.tabs button[data-tab="graph"]');
  await ready();
  const name = '/model.8/m.0/cv2/conv/Conv';
  await page.fill('#graph-find', name);
  await page.press('#graph-find', 'Enter');
  await page.waitForFunction((n) => document.querySelector('#node-panel').dataset.node === n, name);
  await frames();
  let l = await landing();
  assert.ok(l.nodes.includes(name));
  await page.click('#graph-fold');
  await page.waitForFunction(() => document.querySelector('#graph').dataset.ready === '1' && pbdecode.graph.g.groups.some((g) => g.path === '/model.8' && g.folded));
  await frames();
  l = await landing();
  // Every top scope one box (a scope of one node is no group); the one
  // holding the node inside the window, centred left of the panel, which
  // still shows the node.
  assert.ok(l.boxes < 30 && l.folded.length >= 5 && l.folded.includes('/model.8'), JSON.stringify(l));
  assert.equal(await page.$eval('#node-panel', (p) => (p.hidden ? null : p.dataset.node)), name);
  assert.match(await page.locator('#node-folded').innerText(), /Folded into \/model\.8/);
  const box = await page.evaluate(() => pbdecode.graph.g.groups.find((g) => g.path === '/model.8').box);
  const [fx, fy] = await placeOf(box);
  const panelW = await page.$eval('#node-panel', (p) => p.offsetWidth);
  const cw = await page.evaluate(() => pbdecode.graph.cw);
  assert.ok(Math.abs(fx * cw - (cw - panelW) / 2) < 2 && Math.abs(fy - 0.5) < 0.01, JSON.stringify([fx, fy]));
  await shot(page, 'v04-found-then-folded');
  // Its panel opens the scope: the node drawn and centred again.
  await page.click('#node-unfold');
  await page.waitForFunction((n) => document.querySelector('#graph').dataset.ready === '1' && pbdecode.graph.sel && pbdecode.graph.sel.name === n && pbdecode.graph.sel.box, name);
  await frames();
  assert.ok((await landing()).nodes.includes(name));
  await page.click('#graph-unfold');
  await page.waitForFunction(() => document.querySelector('#graph').dataset.ready === '1' && Number(document.querySelector('#graph').dataset.boxes) === 232);
  await frames();
  l = await landing();
  assert.ok(l.nodes.includes(name), 'the node inside the window after unfolding');
  const at = await placeOf(await page.evaluate((n) => pbdecode.graph.g.nodes.find((x) => x.name === n).box, name));
  assert.ok(Math.abs(at[1] - 0.5) < 0.01, JSON.stringify(at));
  await shot(page, 'v05-unfolded');
});

test('a bookmark of a node in a branch opens that branch with the node centred', async () => {
  await dropBytes(page, 'silero_like.onnx', sileroLikeModel());
  await page.click('.tabs button[data-tab="graph"]');
  await ready(0);
  const then = Number(await page.$eval('#graph-pick', (s) => [...s.options].find((o) => /then_branch/.test(o.textContent)).value));
  const key = await page.evaluate(() => pbdecode.state.key);
  // Node 100 of the branch, far down it.
  await page.evaluate(([k, g]) => { location.hash = `#f=${encodeURIComponent(k)}&tab=overview`; setTimeout(() => { location.hash = `#f=${encodeURIComponent(k)}&tab=graph&g=${g}&n=100`; }, 0); }, [key, then]);
  await ready(then);
  await page.waitForFunction(() => document.querySelector('#node-panel').dataset.index === '100');
  await frames();
  const n = await page.evaluate(() => pbdecode.graph.g.byIndex.get(100));
  const l = await landing();
  assert.ok(l.nodes.includes(n.name), `${n.name} not in the window`);
  const [, y] = await placeOf(n.box);
  assert.ok(Math.abs(y - 0.5) < 0.01, String(y));
  await shot(page, 'v06-bookmark');
});

test('one frame drawn for 40 wheel events and for 40 drag moves, each event counted in the view', async () => {
  await dropBytes(page, 'yolo_like.onnx', yoloLikeModel());
  await page.click('.tabs button[data-tab="graph"]');
  await ready();
  await frames();
  const got = await page.evaluate(async () => {
    const v = pbdecode.graph;
    const cv = v.canvas;
    const r = cv.getBoundingClientRect();
    const twoFrames = () => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok)));
    const k0 = v.k, p0 = v.paints;
    for (let i = 0; i < 40; i++) cv.dispatchEvent(new WheelEvent('wheel', { deltaY: -10, ctrlKey: true, clientX: r.left + 300, clientY: r.top + 200, bubbles: true, cancelable: true }));
    const afterWheel = v.paints;
    await twoFrames();
    const wheel = { paints: v.paints - p0, before: afterWheel - p0, zoom: v.k / k0 };
    const tx0 = v.tx, ty0 = v.ty, p1 = v.paints;
    const at = { clientX: r.left + 400, clientY: r.top + 400, pointerId: 1, bubbles: true, button: 0, buttons: 1 };
    cv.dispatchEvent(new PointerEvent('pointerdown', at));
    for (let i = 1; i <= 40; i++) cv.dispatchEvent(new PointerEvent('pointermove', { ...at, clientX: at.clientX + 2 * i, clientY: at.clientY + 3 * i }));
    cv.dispatchEvent(new PointerEvent('pointerup', { ...at, clientX: at.clientX + 80, clientY: at.clientY + 120 }));
    await twoFrames();
    return { wheel, drag: { paints: v.paints - p1, dx: v.tx - tx0, dy: v.ty - ty0 } };
  });
  // Nothing drawn in the handlers; one frame after them.
  assert.equal(got.wheel.before, 0);
  assert.equal(got.wheel.paints, 1);
  assert.ok(Math.abs(got.wheel.zoom - Math.exp(40 * 10 * 0.0015)) < 1e-9, String(got.wheel.zoom));
  assert.deepEqual(got.drag, { paints: 1, dx: 80, dy: 120 });
});

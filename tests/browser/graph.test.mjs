// The explorer's Graph tab, in headless Chromium (run by
// tests/browser/run.sh): node and edge counts against the command line's
// JSON, the node panel against the text view's node lines, subgraphs,
// functions, TensorFlow graphs, folding, moving about, search, the tensor
// view's links back, and the layout from 1024 to 1920 px. Screenshots in
// target/browser-screenshots/g*.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { start, dropBytes, shot, field, msg, fixtures, decode, backend } from './harness.mjs';

let env, page;
before(async () => {
  env = await start({ width: 1280, height: 860 });
  page = env.page;
});
after(async () => { if (env) await env.stop(); });

// The command line on a fixture: its JSON, its text view.
const cliJson = (rel) => JSON.parse(execFileSync(decode, ['--json', path.join(fixtures, rel)], { maxBuffer: 1 << 28 }).toString());
const cliText = (rel) => execFileSync(decode, [path.join(fixtures, rel)], { maxBuffer: 1 << 28 }).toString();

// Opens a served fixture's Graph tab (graph `g`) and waits for the drawing.
async function openGraph(rel, g) {
  await page.evaluate((key) => { location.hash = '#f=' + encodeURIComponent(key) + '&tab=graph'; }, '0/' + rel);
  await page.waitForSelector('#graph[data-ready="1"]');
  if (g !== undefined) await showGraph(g);
  await drawn();
}
async function showGraph(id) {
  await page.selectOption('#graph-pick', String(id));
  await page.waitForFunction((id) => (document.querySelector('#graph') || { dataset: {} }).dataset.graph === String(id) && (document.querySelector('#graph') || { dataset: {} }).dataset.ready === '1', id);
}
// Two animation frames: the last change is on the canvas.
const drawn = () => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
const graphData = () => page.$eval('#graph', (e) => ({ nodes: Number(e.dataset.nodes), edges: Number(e.dataset.edges), graph: Number(e.dataset.graph), boxes: Number(e.dataset.boxes) }));
const view = () => page.evaluate(() => ({ k: pbdecode.graph.k, tx: pbdecode.graph.tx, ty: pbdecode.graph.ty }));
const panelNode = () => page.$eval('#node-panel', (p) => (p.hidden ? null : p.dataset.node));
// Clicks a node (by name, or by index for one without a name) where it
// is drawn, centred first as a user scrolls to it, and waits for its panel.
async function clickNode(which) {
  const [at, index] = await page.evaluate((which) => {
    const n = pbdecode.graph.g.nodes.find((x) => (typeof which === 'number' ? x.i === which : x.name === which));
    pbdecode.graph.centreOn(n.box, true);
    pbdecode.graph.paint();
    return [pbdecode.graph.screenOf(n), n.i];
  }, which);
  await page.mouse.click(at[0], at[1]);
  await page.waitForFunction((i) => (document.querySelector('#node-panel') || { dataset: {} }).dataset.index === String(i) && !(document.querySelector('#node-panel') || { hidden: true }).hidden, index);
}
// The page's search box, over the Graph tab (its Files button opens it);
// emptied, it folds away again.
async function pageSearch(q) {
  if (!(await page.isVisible('#search'))) await page.click('#side-toggle');
  await page.fill('#search', q);
  if (!q) await page.press('#search', 'Escape');
}
// The attribute texts the panel shows for the open node.
const panelAttributes = () => page.$$eval('#node-attrs [data-attr] .attr-text', (tds) => tds.map((td) => td.dataset.text));

// Edges as the contract counts them: one per value and reader (node or
// graph output) whose value is made in the graph (by a node, or a graph
// input that is not an initializer: older exporters list those as inputs).
function onnxEdges(g) {
  const inits = new Set((g.initializer || []).map((t) => t.name));
  const made = new Set((g.input || []).map((v) => v.name).filter((v) => !inits.has(v)));
  for (const n of g.node || []) for (const o of n.output || []) if (o) made.add(o);
  const pairs = new Set();
  (g.node || []).forEach((n, i) => { for (const x of n.input || []) if (x && made.has(x)) pairs.add(x + '\n' + i); });
  (g.output || []).forEach((v, i) => { if (made.has(v.name)) pairs.add(v.name + '\nout' + i); });
  return pairs.size;
}

test('a convolutional net: a box per node and an edge per value as the command line counts them; a node\'s panel holds what its text line prints', async () => {
  const rel = 'schemaless/sample/light_light_squeezenet.onnx';
  const cli = cliJson(rel);
  await openGraph(rel);
  const d = await graphData();
  assert.equal(d.nodes, cli.summary.nodes.graph);
  assert.equal(d.edges, onnxEdges(cli.value.graph));
  // Only what is on screen is drawn: the first view of 105 nodes shows
  // some of them.
  const drawnNodes = await page.$eval('#graph-canvas', (c) => Number(c.dataset.drawnNodes));
  assert.ok(drawnNodes > 0 && drawnNodes <= d.nodes, `${drawnNodes} drawn`);
  await shot(page, 'g01-squeezenet');
  // A Conv node: its panel lists every attribute the text view prints on
  // the node's line, in the same words.
  const conv = cli.value.graph.node.find((n) => n.op_type === 'Conv' && (n.attribute || []).length >= 2);
  await clickNode(conv.name);
  const line = cliText(rel).split('\n').find((l) => l.endsWith('# ' + conv.name));
  const attrs = await panelAttributes();
  assert.equal(attrs.length, conv.attribute.length);
  for (const a of attrs) assert.ok(line.includes(a), `${a} is not on the line ${line}`);
  // Inputs with their formal names, the weights openable.
  const formals = await page.$$eval('#node-inputs td.formal', (tds) => tds.map((td) => td.textContent));
  assert.deepEqual(formals.slice(0, 2), ['X', 'W']);
  const inits = new Set(cli.value.graph.initializer.map((t) => t.name));
  assert.equal(await page.locator('#node-inputs [data-tensor-id]').count(), conv.input.filter((x) => inits.has(x)).length);
  assert.match(await page.getAttribute('#op-doc', 'href'), /^https:\/\/onnx\.ai\/onnx\/operators\/onnx__Conv\.html$/);
  assert.match(await page.locator('#node-version').innerText(), /opset \d+/);
  await shot(page, 'g02-squeezenet-conv-panel');
  // The value it makes, one click from the node that reads it.
  const reader = page.locator('#node-outputs .vl [data-goto]').first();
  const readerName = await reader.getAttribute('data-goto');
  await reader.click();
  await page.waitForFunction((n) => (document.querySelector('#node-panel') || { dataset: {} }).dataset.node === n, readerName);
  // And back up to the Conv, the producer of its input.
  await page.locator(`#node-inputs .vl [data-goto="${conv.name}"]`).click();
  assert.equal(await panelNode(), conv.name);
});

test('search in the graph centres the node it finds, by name, op or value', async () => {
  const rel = 'schemaless/sample/light_light_squeezenet.onnx';
  await openGraph(rel);
  const cli = cliJson(rel);
  const last = cli.value.graph.node[cli.value.graph.node.length - 1];
  for (const q of [last.name, last.output[0]]) {
    await page.fill('#graph-find', q);
    await page.press('#graph-find', 'Enter');
    await page.waitForFunction((n) => (document.querySelector('#node-panel') || { dataset: {} }).dataset.node === n, last.name);
    await drawn();
    // Its centre is the middle of the drawing left of the panel.
    const where = await page.evaluate(() => {
      const c = document.querySelector('#graph-canvas').getBoundingClientRect();
      const p = document.querySelector('#node-panel').getBoundingClientRect();
      const [x, y] = pbdecode.graph.screenOf(pbdecode.graph.sel);
      return { dx: x - (c.left + (p.left - c.left) / 2), dy: y - (c.top + c.height / 2) };
    });
    assert.ok(Math.abs(where.dx) < 3 && Math.abs(where.dy) < 3, JSON.stringify(where));
  }
  await shot(page, 'g03-search-centred');
  // The page's search box: a node it finds is shown in the graph.
  const other = cli.value.graph.node[40];
  await pageSearch(other.name);
  await page.locator(`#results .r[data-kind="node"][data-name="${other.name}"]`).click();
  await page.waitForFunction((n) => (document.querySelector('#node-panel') || { dataset: {} }).dataset.node === n, other.name);
  assert.equal(await page.$eval('.tabs button.on', (b) => b.dataset.tab), 'graph');
  await pageSearch('');
  // By any part of a name or op: the hits counted, Enter steps through them.
  const convs = cli.value.graph.node.filter((n) => [n.name || '', n.op_type, ...n.input, ...n.output].some((x) => x.toLowerCase().includes('conv'))).length;
  await page.fill('#graph-find', 'conv');
  await page.press('#graph-find', 'Enter');
  assert.equal(await page.locator('#graph-find-note').innerText(), `1 of ${convs}`);
  await page.press('#graph-find', 'Enter');
  assert.equal(await page.locator('#graph-find-note').innerText(), `2 of ${convs}`);
  await page.fill('#graph-find', 'no such thing');
  await page.press('#graph-find', 'Enter');
  assert.equal(await page.locator('#graph-find-note').innerText(), 'not found');
});

test('If and Loop subgraphs open as their own view, with the way back; functions are listed and open', async () => {
  const rel = 'onnx-model/everything.onnx';
  const cli = cliJson(rel);
  const main = cli.value.graph;
  await openGraph(rel);
  assert.equal((await graphData()).nodes, cli.summary.nodes.graph);
  await shot(page, 'g04-everything-main');
  for (const [nodeName, attr] of [['branch', 'then_branch'], ['branch', 'else_branch'], ['loop', 'body']]) {
    const node = main.node.find((n) => n.name === nodeName);
    const sub = node.attribute.find((a) => a.name === attr).g;
    await clickNode(nodeName);
    const button = page.locator('#node-panel [data-open-graph]', { hasText: attr });
    await button.click();
    await page.waitForFunction(() => (document.querySelector('#graph') || { dataset: {} }).dataset.graph !== '0' && (document.querySelector('#graph') || { dataset: {} }).dataset.ready === '1');
    await drawn();
    const d = await graphData();
    assert.equal(d.nodes, (sub.node || []).length, attr);
    // (The loop body's Add(acc_in, acc_in) reads one value twice: one
    // edge.)
    assert.equal(d.edges, onnxEdges(sub), attr);
    assert.ok(await page.isVisible('#graph-back'));
    await shot(page, `g05-everything-${attr}`);
    // Back: the main graph, the node still selected.
    await page.click('#graph-back');
    await page.waitForFunction(() => (document.querySelector('#graph') || { dataset: {} }).dataset.graph === '0' && (document.querySelector('#graph') || { dataset: {} }).dataset.ready === '1');
    assert.equal(await panelNode(), nodeName);
  }
  // The address names the graph and the node: a bookmark shows them again.
  await page.selectOption('#graph-pick', await page.$eval('#graph-pick', (s) => [...s.options].find((o) => /body/.test(o.textContent)).value));
  await page.waitForFunction(() => (document.querySelector('#graph') || { dataset: {} }).dataset.ready === '1' && (document.querySelector('#graph') || { dataset: {} }).dataset.graph !== '0');
  const bodyId = (await graphData()).graph;
  await clickNode(1);
  const address = page.url();
  assert.match(address, new RegExp(`[#&]g=${bodyId}&n=1(&|$)`));
  if (backend === 'static') {
    // The static page holds its files in the page, which a reload would
    // drop: the address is followed in place, from the main graph.
    await page.evaluate(() => { location.hash = '#f=' + encodeURIComponent('0/onnx-model/everything.onnx') + '&tab=graph&g=0'; });
    await page.waitForFunction(() => (document.querySelector('#graph') || { dataset: {} }).dataset.graph === '0' && (document.querySelector('#graph') || { dataset: {} }).dataset.ready === '1');
    await page.evaluate((a) => { location.hash = new URL(a).hash; }, address);
    await page.waitForFunction((id) => (document.querySelector('#graph') || { dataset: {} }).dataset.graph === String(id), bodyId);
  } else {
    await page.goto('about:blank');
    await page.goto(address);
  }
  await page.waitForSelector('#graph[data-ready="1"]');
  assert.equal((await graphData()).graph, bodyId);
  await page.waitForFunction(() => !(document.querySelector('#node-panel') || { hidden: true }).hidden && (document.querySelector('#node-panel') || { dataset: {} }).dataset.index === '1');
  await page.evaluate(() => { location.hash = '#f=' + encodeURIComponent('0/onnx-model/everything.onnx') + '&tab=graph&g=0'; });
  await page.waitForFunction(() => (document.querySelector('#graph') || { dataset: {} }).dataset.graph === '0' && (document.querySelector('#graph') || { dataset: {} }).dataset.ready === '1');
  // The model's function: listed under the drawing, and a call of it opens it.
  const fn = cli.value.functions[0];
  const listed = page.locator('#graph-functions [data-graph]');
  assert.equal(await listed.count(), cli.value.functions.length);
  assert.match(await listed.first().innerText(), new RegExp(fn.name));
  await clickNode('fn_call');
  await page.locator('#node-panel [data-open-graph]', { hasText: fn.name }).click();
  await page.waitForFunction(() => (document.querySelector('#graph') || { dataset: {} }).dataset.graph !== '0' && (document.querySelector('#graph') || { dataset: {} }).dataset.ready === '1');
  assert.equal((await graphData()).nodes, fn.node.length);
  await shot(page, 'g06-everything-function');
  await page.click('#graph-back');
  await page.waitForFunction(() => (document.querySelector('#graph') || { dataset: {} }).dataset.graph === '0');
  await listed.first().click();
  await page.waitForFunction(() => (document.querySelector('#graph') || { dataset: {} }).dataset.graph !== '0' && (document.querySelector('#graph') || { dataset: {} }).dataset.ready === '1');
  assert.equal((await graphData()).nodes, fn.node.length);
});

test('the page\'s search finds a node inside nested subgraphs and a function\'s subgraph: the Graph tab draws the graph holding it, the node centred', async () => {
  const rel = 'onnx-model/nested.onnx';
  await openGraph(rel);
  // Each node's graph by the owners up to the main graph or a function:
  // [attribute, owner node's name] innermost first.
  const chains = {
    deep_sigmoid: [['body', 'inner_loop'], ['then_branch', 'inner_if'], ['body', 'outer_loop']],
    deep_neg: [['else_branch', 'inner_if'], ['body', 'outer_loop']],
    fn_deep_add: [['then_branch', 'fn_if']],
  };
  for (const [name, chain] of Object.entries(chains)) {
    await pageSearch(name);
    await page.locator(`#results .r[data-kind="node"][data-name="${name}"]`).click();
    await page.waitForFunction((n) => (document.querySelector('#node-panel') || { dataset: {} }).dataset.node === n && (document.querySelector('#graph') || { dataset: {} }).dataset.ready === '1', name);
    assert.equal(await page.$eval('.tabs button.on', (b) => b.dataset.tab), 'graph');
    await drawn();
    const got = await page.evaluate(async () => {
      const out = [];
      let e = pbdecode.graph.graphEntry(pbdecode.graph.g.id);
      while (e && e.owner) {
        const parent = await pbdecode.graphFetch(pbdecode.graph.key, pbdecode.graph.as, e.owner.graph);
        out.push([e.owner.attribute, parent.byIndex.get(e.owner.node).name]);
        e = pbdecode.graph.graphEntry(e.owner.graph);
      }
      return { chain: out, top: e && e.kind, kind: pbdecode.graph.g.kind };
    });
    assert.deepEqual(got.chain, chain, name);
    assert.equal(got.top, name.startsWith('fn_') ? 'function' : 'main', name);
    // Centred beside the panel, as the graph's own search centres.
    const where = await page.evaluate(() => {
      const c = document.querySelector('#graph-canvas').getBoundingClientRect();
      const p = document.querySelector('#node-panel').getBoundingClientRect();
      const [x, y] = pbdecode.graph.screenOf(pbdecode.graph.sel);
      return { dx: x - (c.left + (p.left - c.left) / 2), dy: y - (c.top + c.height / 2) };
    });
    assert.ok(Math.abs(where.dx) < 3 && Math.abs(where.dy) < 3, JSON.stringify(where));
    await shot(page, `g16-nested-search-${name}`);
    // The way back: the graph shown before.
    assert.ok(await page.isVisible('#graph-back'));
  }
  // A value found by name opens the node that makes it, in its subgraph.
  await pageSearch('v_out');
  await page.locator('#results .r[data-kind="value"][data-name="v_out"]').click();
  await page.waitForFunction(() => (document.querySelector('#node-panel') || { dataset: {} }).dataset.node === 'deep_sigmoid');
  assert.equal(await page.$eval('.tabs button.on', (b) => b.dataset.tab), 'graph');
  await pageSearch('');
});

test('a Constant\'s value shows as the command line prints it and opens in the tensor view, whose page links back to the nodes', async () => {
  const rel = 'onnx-model/constants.onnx';
  await openGraph(rel);
  const cli = cliJson(rel);
  assert.equal((await graphData()).nodes, cli.summary.nodes.graph);
  await clickNode('weight');
  const line = cliText(rel).split('\n').find((l) => l.endsWith('# weight'));
  const [value] = await panelAttributes();
  assert.match(value, /^value=tensor "W" FLOAT\[4, 3\] /);
  assert.ok(line.includes(value), line);
  await shot(page, 'g07-constant-panel');
  await page.locator('#node-attrs [data-tensor-id]').click();
  await page.waitForSelector('#tensor-head h2');
  assert.equal(await page.locator('#tensor-head h2').innerText(), 'W');
  // The tensor's page: which node makes it, which nodes read it.
  await page.waitForSelector('#tensor-nodes');
  assert.match(await page.locator('#tensor-nodes .made-by').innerText(), /^weight Constant/);
  assert.match(await page.locator('#tensor-nodes .used-by').innerText(), /MatMul/);
  await shot(page, 'g08-tensor-links');
  await page.locator('#tensor-nodes .used-by [data-goto]').first().click();
  await page.waitForSelector('#graph[data-ready="1"]');
  await page.waitForFunction(() => !(document.querySelector('#node-panel') || { hidden: true }).hidden);
  assert.equal(await page.$eval('#node-panel #node-op', (e) => e.textContent), 'MatMul');
});

test('a list of tensors (TENSORS) opens each tensor in the tensor view; a list of graphs (GRAPHS) each graph', async () => {
  const rel = 'onnx-model/everything.onnx';
  const cli = cliJson(rel);
  const node = cli.value.graph.node.find((n) => n.name === 'every_attr');
  const names = node.attribute.find((a) => a.name === 'tensors').tensors.map((t) => t.name);
  assert.deepEqual(names, ['t1', 't2']);
  await openGraph(rel);
  await clickNode('every_attr');
  const links = page.locator('#node-attrs [data-attr="tensors"] [data-tensor-id]');
  assert.equal(await links.count(), names.length);
  await shot(page, 'g17-tensors-attribute');
  for (let k = 0; k < names.length; k++) {
    await page.locator('#node-attrs [data-attr="tensors"] [data-tensor-id]').nth(k).click();
    await page.waitForSelector('#tensor-head h2');
    assert.equal(await page.locator('#tensor-head h2').innerText(), names[k]);
    if (k === 0) await shot(page, 'g18-tensors-attribute-opened');
    await page.goBack();
    await page.waitForFunction(() => (document.querySelector('#node-panel') || { dataset: {} }).dataset.node === 'every_attr');
  }
  // GRAPHS: both graphs, each its own view; GRAPH too.
  const graphs = page.locator('#node-attrs [data-attr="graphs"] [data-attr-graph]');
  assert.equal(await graphs.count(), 2);
  const ids = await graphs.evaluateAll((els) => els.map((e) => e.dataset.attrGraph));
  assert.notEqual(ids[0], ids[1]);
  assert.equal(await page.locator('#node-attrs [data-attr="body_graph"] [data-attr-graph]').count(), 1);
  await graphs.nth(1).click();
  await page.waitForFunction((id) => (document.querySelector('#graph') || { dataset: {} }).dataset.graph === id && (document.querySelector('#graph') || { dataset: {} }).dataset.ready === '1', ids[1]);
  assert.equal(await page.evaluate(() => pbdecode.graph.graphEntry(pbdecode.graph.g.id).owner.attribute), 'graphs[1]');
});

test('TensorFlow: a GraphDef\'s nodes and a SavedModel\'s functions', async () => {
  const rel = 'schemaless/sample/tf_fg_dense_frozen_frozen_graph.pb';
  const cli = cliJson(rel);
  await openGraph(rel);
  assert.equal((await graphData()).nodes, cli.summary.nodes.graph);
  // Inputs and outputs by TensorFlow's argument names (its op registry).
  const matmul = cli.value.node.find((n) => n.op === 'MatMul');
  await clickNode(matmul.name);
  assert.deepEqual(await page.$$eval('#node-inputs td.formal', (tds) => tds.map((td) => td.textContent)), ['a', 'b']);
  assert.deepEqual(await page.$$eval('#node-outputs td.formal', (tds) => tds.map((td) => td.textContent)), ['product']);
  await shot(page, 'g09a-graphdef-formal-names');
  const konst = cli.value.node.find((n) => n.op === 'Const');
  await clickNode(konst.name);
  assert.ok((await panelAttributes()).length >= 2);
  await shot(page, 'g09-graphdef');
  // A Const's value opens in the tensor view.
  await page.locator('#node-attrs [data-attr="value"] [data-tensor-id]').click();
  await page.waitForSelector('#tensor-head h2');
  assert.equal(await page.locator('#tensor-head h2').innerText(), konst.name);

  const sm = 'tf/saved_model_two_signatures.pb';
  const smCli = cliJson(sm);
  const lib = smCli.value.meta_graphs[0].graph_def.library.function;
  await openGraph(sm);
  assert.equal((await graphData()).nodes, smCli.summary.nodes.graph);
  const options = await page.$$eval('#graph-pick option', (os) => os.map((o) => ({ id: o.value, text: o.textContent })));
  for (const f of lib) {
    const o = options.find((x) => x.text.startsWith('function: ' + f.signature.name + ' '));
    assert.ok(o, f.signature.name + ' is not listed');
    await showGraph(o.id);
    assert.equal((await graphData()).nodes, (f.node_def || []).length, f.signature.name);
    // A function body's MatMul: its output named by its argument.
    if ((f.node_def || []).some((n) => n.op === 'MatMul')) {
      await clickNode(f.node_def.find((n) => n.op === 'MatMul').name);
      assert.deepEqual(await page.$$eval('#node-inputs td.formal', (tds) => tds.map((td) => td.textContent)), ['a', 'b']);
      assert.deepEqual(await page.$$eval('#node-outputs td.formal', (tds) => tds.map((td) => td.textContent)), ['product']);
    }
  }
  await shot(page, 'g10-saved-model-function');
});

test('a GraphDef in protobuf\'s text format: the Graph tab as for the binary file, the Text tab its lines', async () => {
  const rel = 'text-format/graph.pbtxt';
  const cli = cliJson(rel);
  assert.equal(cli.syntax, 'text');
  const binary = cliJson('schemaless/sample/tf_fg_dense_frozen_frozen_graph.pb');
  assert.equal(cli.summary.nodes.graph, binary.summary.nodes.graph);
  await openGraph(rel);
  assert.equal((await graphData()).nodes, cli.summary.nodes.graph);
  const matmul = cli.value.node.find((n) => n.op === 'MatMul');
  await clickNode(matmul.name);
  assert.deepEqual(await page.$$eval('#node-inputs td.formal', (tds) => tds.map((td) => td.textContent)), ['a', 'b']);
  await shot(page, 'g11-text-graphdef');
  // The Text tab: the file's own lines, numbered.
  await page.evaluate((key) => { location.hash = '#f=' + encodeURIComponent(key) + '&tab=text'; }, '0/' + rel);
  await page.waitForSelector('#source .row');
  const lines = readFileSync(path.join(fixtures, rel), 'utf8').split('\n');
  const shown = await page.$$eval('#source .row', (rows) => rows.slice(0, 3).map((r) => [r.dataset.line, r.querySelector('.code').textContent]));
  assert.deepEqual(shown, [['1', lines[0]], ['2', lines[1]], ['3', lines[2]]]);
  await shot(page, 'g12-text-graphdef-lines');
  // A text file turned down: the error's line and column, the line
  // highlighted among its neighbours.
  const bad = 'text-format/bad_unknown_field.pbtxt';
  await page.evaluate((key) => { location.hash = '#f=' + encodeURIComponent(key); }, '0/' + bad);
  await page.waitForSelector('#error [data-line]');
  assert.equal(await page.$eval('#error [data-line]', (e) => e.textContent), 'line 4, column 3');
  await page.waitForSelector('#source .row.fault');
  assert.equal(await page.$eval('#source .row.fault', (r) => r.dataset.line), '4');
  assert.match(await page.$eval('#source .row.fault .code', (c) => c.textContent), /devise/);
  await shot(page, 'g13-text-error-line');
});

// A model of `layers` name scopes of two nodes each, as exporters name a
// YOLO's (`/model.N/conv/Conv`, `/model.N/act/Relu`), with the shapes of
// its values declared (value_info).
function scopedModel(layers) {
  const FLOAT = 1;
  const tensorType = (dims) => field(1, msg(field(1, FLOAT), field(2, msg(...dims.map((d) => field(1, msg(field(1, d))))))));
  const valueInfo = (name, dims) => msg(field(1, name), field(2, tensorType(dims)));
  const nodes = [], inits = [], infos = [];
  let prev = 'images';
  for (let i = 0; i < layers; i++) {
    const conv = `/model.${i}/conv/Conv_output_0`, act = `/model.${i}/act/Relu_output_0`;
    nodes.push(field(1, msg(field(1, prev), field(1, `model.${i}.conv.weight`), field(2, conv), field(3, `/model.${i}/conv/Conv`), field(4, 'Conv'),
      field(5, msg(field(1, 'kernel_shape'), field(8, 1), field(8, 1), field(20, 7))))));
    nodes.push(field(1, msg(field(1, conv), field(2, act), field(3, `/model.${i}/act/Relu`), field(4, 'Relu'))));
    inits.push(field(5, msg(field(1, 4), field(1, 4), field(1, 1), field(1, 1), field(2, FLOAT), field(8, `model.${i}.conv.weight`), field(9, new Array(64).fill(0)))));
    infos.push(field(13, valueInfo(conv, [1, 4, 8, 8])), field(13, valueInfo(act, [1, 4, 8, 8])));
    prev = act;
  }
  const graph = msg(...nodes, field(2, 'scoped'), ...inits,
    field(11, valueInfo('images', [1, 4, 8, 8])), field(12, valueInfo(prev, [1, 4, 8, 8])), ...infos);
  return Uint8Array.from(msg(field(1, 8), field(2, 'pbdecode-test'), field(7, graph), field(8, msg(field(2, 17)))));
}

test('name scopes fold into one box and open again; edges carry the declared shapes; the view pans, zooms and moves by keys', async () => {
  await dropBytes(page, 'scoped_40.onnx', scopedModel(40));
  await page.click('.tabs button[data-tab="graph"]');
  await page.waitForSelector('#graph[data-ready="1"]');
  await drawn();
  let d = await graphData();
  assert.equal(d.nodes, 80);
  assert.equal(d.edges, 81);
  // Every edge between the layers is labelled with the declared type and shape.
  const labels = await page.evaluate(() => pbdecode.graph.g.edges.map((e) => e.type + ' ' + e.shape));
  assert.equal(labels.length, 81);
  for (const l of labels) assert.equal(l, 'FLOAT 1x4x8x8');
  // The long graph has an overview, and only a part of it is drawn.
  assert.ok(await page.isVisible('#graph-mini'));
  assert.ok(await page.$eval('#graph-canvas', (c) => Number(c.dataset.drawnNodes)) < 80);
  await shot(page, 'g11-scoped');
  // Folded: every node still counted, each scope one box.
  await page.click('#graph-fold');
  await page.waitForFunction(() => (document.querySelector('#graph') || { dataset: {} }).dataset.ready === '1' && pbdecode.graph.g.groups.every((g) => g.folded || g.parent !== null));
  await drawn();
  d = await graphData();
  assert.equal(d.nodes, 80);
  assert.equal(d.edges, 81);
  assert.equal(d.boxes, 0);
  await shot(page, 'g12-scoped-folded');
  // A click on a folded scope opens it: its two nodes drawn again.
  const at = await page.evaluate(() => {
    const g = pbdecode.graph.g.groups.find((x) => x.path === '/model.3');
    pbdecode.graph.centreOn(g.box, true);
    pbdecode.graph.paint();
    const r = pbdecode.graph.canvas.getBoundingClientRect();
    return [r.left + pbdecode.graph.tx + (g.box.x + g.box.w / 2) * pbdecode.graph.k, r.top + pbdecode.graph.ty + (g.box.y + g.box.h / 2) * pbdecode.graph.k];
  });
  await page.mouse.click(at[0], at[1]);
  await page.waitForFunction(() => (document.querySelector('#graph') || { dataset: {} }).dataset.ready === '1' && pbdecode.graph.g.groups.some((g) => g.path === '/model.3' && !g.folded));
  const shownNow = await page.evaluate(() => pbdecode.graph.g.nodes.filter((n) => n.box).map((n) => n.name));
  assert.ok(shownNow.includes('/model.3/conv/Conv') && shownNow.includes('/model.3/act/Relu'), shownNow.join(', '));
  await drawn();
  await shot(page, 'g13-scope-opened');
  // Its node's panel folds it again.
  await clickNode('/model.3/conv/Conv');
  await page.click('#node-panel [data-fold="/model.3"]');
  await page.waitForFunction(() => (document.querySelector('#graph') || { dataset: {} }).dataset.ready === '1' && Number((document.querySelector('#graph') || { dataset: {} }).dataset.boxes) === 0);
  // A node inside a folded scope, found by search: its scope opens.
  await page.fill('#graph-find', '/model.20/act/Relu');
  await page.press('#graph-find', 'Enter');
  await page.waitForFunction(() => (document.querySelector('#node-panel') || { dataset: {} }).dataset.node === '/model.20/act/Relu' && pbdecode.graph.sel && pbdecode.graph.sel.box);
  // The open scope: a frame around its two nodes and nothing else, its
  // name on the top edge; every node still counted.
  assert.equal((await graphData()).nodes, 80);
  const frame = await page.evaluate(() => {
    const gr = pbdecode.graph.g.groups.find((x) => x.path === '/model.20');
    const f = gr.box;
    const meets = (b) => b.x < f.x + f.w && f.x < b.x + b.w && b.y < f.y + f.h && f.y < b.y + b.h;
    const inside = (b) => b.x >= f.x && b.y >= f.y && b.x + b.w <= f.x + f.w && b.y + b.h <= f.y + f.h;
    const members = pbdecode.graph.g.nodes.filter((n) => n.box && n.name.startsWith('/model.20/'));
    const others = [...pbdecode.graph.g.nodes.filter((n) => n.box && !n.name.startsWith('/model.20/')).map((n) => n.box),
      ...pbdecode.graph.g.groups.filter((x) => x !== gr && x.box).map((x) => x.box), ...pbdecode.graph.g.ios.map((p) => p.box)];
    pbdecode.graph.centreOn(f, false);
    pbdecode.graph.paint();
    const r = pbdecode.graph.canvas.getBoundingClientRect();
    return { folded: gr.folded, members: members.length, around: members.every((n) => inside(n.box)), clear: !others.some(meets),
      title: [r.left + pbdecode.graph.tx + (f.x + 30) * pbdecode.graph.k, r.top + pbdecode.graph.ty + (f.y + 8) * pbdecode.graph.k] };
  });
  assert.deepEqual({ ...frame, title: undefined }, { folded: false, members: 2, around: true, clear: true, title: undefined });
  await shot(page, 'g13b-scope-frame');
  // A click on its title folds it.
  await page.mouse.click(frame.title[0], frame.title[1]);
  await page.waitForFunction(() => (document.querySelector('#graph') || { dataset: {} }).dataset.ready === '1' && pbdecode.graph.g.groups.some((g) => g.path === '/model.20' && g.folded));
  await page.click('#graph-unfold');
  await page.waitForFunction(() => (document.querySelector('#graph') || { dataset: {} }).dataset.ready === '1' && Number((document.querySelector('#graph') || { dataset: {} }).dataset.boxes) === 80);

  // Keys: + zooms, arrows pan without a selection and step along edges with one.
  await page.click('#graph-fit');
  await page.focus('#graph-canvas');
  await page.keyboard.press('Escape');
  let v0 = await view();
  await page.keyboard.press('+');
  let v1 = await view();
  assert.ok(v1.k > v0.k);
  await page.keyboard.press('-');
  assert.ok((await view()).k < v1.k);
  v0 = await view();
  await page.keyboard.press('ArrowDown');
  assert.ok((await view()).ty < v0.ty);
  await page.fill('#graph-find', '/model.5/conv/Conv');
  await page.press('#graph-find', 'Enter');
  await page.waitForFunction(() => (document.querySelector('#node-panel') || { dataset: {} }).dataset.node === '/model.5/conv/Conv');
  await page.focus('#graph-canvas');
  await page.keyboard.press('ArrowDown');
  assert.equal(await panelNode(), '/model.5/act/Relu');
  await page.keyboard.press('ArrowDown');
  assert.equal(await panelNode(), '/model.6/conv/Conv');
  await page.keyboard.press('ArrowUp');
  assert.equal(await panelNode(), '/model.5/act/Relu');
  // The wheel zooms about the pointer; a drag pans.
  const box = await page.$eval('#graph-canvas', (c) => { const r = c.getBoundingClientRect(); return [r.left + 200, r.top + 200]; });
  v0 = await view();
  await page.mouse.move(box[0], box[1]);
  await page.mouse.wheel(0, -300);
  await page.waitForFunction((k) => pbdecode.graph.k > k, v0.k);
  v0 = await view();
  await page.mouse.down();
  await page.mouse.move(box[0] + 50, box[1] + 80, { steps: 4 });
  await page.mouse.up();
  v1 = await view();
  assert.ok(Math.abs(v1.tx - v0.tx - 50) < 1 && Math.abs(v1.ty - v0.ty - 80) < 1, JSON.stringify([v0, v1]));
  // The overview moves the view to where it is clicked.
  const mini = await page.$eval('#graph-mini', (c) => { const r = c.getBoundingClientRect(); return [r.left + r.width / 2, r.bottom - 3]; });
  v0 = await view();
  await page.mouse.click(mini[0], mini[1]);
  assert.ok((await view()).ty < v0.ty);
  await shot(page, 'g14-moved');
  // Export: the whole graph, every box and the edges' shapes, in one SVG.
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#graph-svg')]);
  const svg = readFileSync(await download.path(), 'utf8');
  assert.equal((svg.match(/<g class="node">/g) || []).length, 80);
  assert.equal((svg.match(/<polyline class="edge"/g) || []).length, 81);
  assert.ok(svg.includes('>FLOAT 1x4x8x8</text>'));
});

// A one-node model whose graph, node and value names hold what JSON
// allows and XML does not (NUL, U+0008, ESC, U+FFFF) beside markup and a
// direction override.
const ODD = 'a\u0000\u0008\u001b[31m\uffff\u202e<&"\'>';
function oddNamesModel() {
  const tensorType = field(1, msg(field(1, 1)));
  const graph = msg(field(1, msg(field(1, 'x'), field(2, 'y' + ODD), field(3, 'n' + ODD), field(4, 'Relu'))), field(2, 'g' + ODD),
    field(11, msg(field(1, 'x'), field(2, tensorType))), field(12, msg(field(1, 'y' + ODD), field(2, tensorType))));
  return Uint8Array.from(msg(field(1, 8), field(7, graph), field(8, msg(field(2, 17)))));
}

test('Export SVG: names holding control characters make a well-formed file, escaped as decode --graph svg escapes them', async () => {
  const bytes = oddNamesModel();
  await dropBytes(page, 'odd_names.onnx', bytes);
  await page.click('.tabs button[data-tab="graph"]');
  await page.waitForSelector('#graph[data-ready="1"]');
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#graph-svg')]);
  const svg = readFileSync(await download.path(), 'utf8');
  // Chromium's XML parser reads it: no parser error, every node there.
  const parsed = await page.evaluate((text) => {
    const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
    return { error: (doc.querySelector('parsererror') || { textContent: null }).textContent, nodes: doc.querySelectorAll('g.node').length };
  }, svg);
  assert.deepEqual(parsed, { error: null, nodes: 1 });
  // The graph output's name as the command's SVG writes it.
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'pbdecode-svg-')), 'odd_names.onnx');
  writeFileSync(file, bytes);
  const cliSvg = execFileSync(decode, ['--graph', 'svg', file]).toString();
  const name = (text) => [...text.matchAll(/<text[^>]*>(y[^<]*)<\/text>/g)].map((m) => m[1]);
  assert.deepEqual(name(cliSvg), ['ya\\u{0}\\u{8}\\u{1b}[31m\\u{ffff}\\u{202e}&lt;&amp;&quot;&apos;&gt;']);
  assert.deepEqual(name(svg), name(cliSvg));
});

test('the Graph tab is usable at 1024, 1280 and 1920 px: nothing spills out, the panel beside the drawing', async () => {
  for (const width of [1024, 1280, 1920]) {
    await page.setViewportSize({ width, height: 800 });
    await openGraph('schemaless/sample/light_light_squeezenet.onnx');
    await clickNode(await page.evaluate(() => pbdecode.graph.g.nodes[3].name));
    const m = await page.evaluate(() => {
      const main = document.querySelector('#main');
      const c = document.querySelector('#graph-canvas').getBoundingClientRect();
      const p = document.querySelector('#node-panel').getBoundingClientRect();
      const bar = document.querySelector('.graphbar').getBoundingClientRect();
      return { spill: main.scrollWidth - main.clientWidth, canvas: c.width, canvasBottom: c.bottom, panelRight: p.right, panelWidth: p.width, barRight: bar.right, inner: innerWidth, innerH: innerHeight };
    });
    assert.ok(m.spill <= 0, `${width}: the page is ${m.spill} px too wide`);
    assert.ok(m.panelRight <= m.inner && m.barRight <= m.inner, JSON.stringify(m));
    assert.ok(m.canvas - m.panelWidth >= 300, `${width}: ${m.canvas - m.panelWidth} px of drawing beside the panel`);
    assert.ok(m.canvasBottom <= m.innerH, `${width}: the drawing runs below the window`);
    await shot(page, `g15-width-${width}`);
  }
  await page.setViewportSize({ width: 1280, height: 860 });
});

// The Graph tab's data: the server's layout of a model's graphs
// (/api/graph: boxes, edges as polylines, name-scope groups, all placed by
// the same Rust code as `decode --graph svg`), fetched once per graph and
// folding and completed for drawing; and the tensor view's links to the
// nodes that make or read a tensor.
import { api } from './backend.js';
import { h } from './dom.js';
import { adoptGraph, opTitle } from './graph-model.js';
import { go, state, update } from './state.js';

// One file's graph list and the layouts fetched so far (per graph and
// folding): a graph shown again, or a fold undone, draws at once.
const GraphCache = { key: null, as: null, list: null, answers: new Map() };
function graphCacheFor(key, as) {
  if (GraphCache.key !== key || GraphCache.as !== as) {
    GraphCache.key = key; GraphCache.as = as; GraphCache.list = null; GraphCache.answers = new Map();
  }
  return GraphCache;
}
// Graph `id` laid out with `fold` (auto, none, all) and the groups of
// `open` shown open: the server folds and places, the page draws.
export function graphFetch(key, as, id, fold = 'auto', open = []) {
  const c = graphCacheFor(key, as);
  const openText = [...open].map(Number).sort((a, b) => a - b).join(',');
  const ck = `${id}|${fold}|${openText}`;
  if (!c.answers.has(ck)) {
    const params = { f: key, as, g: id };
    if (fold !== 'auto') params.fold = fold;
    if (openText) params.open = openText;
    c.answers.set(ck, api('/api/graph', params).then((r) => {
      c.list = c.list || r.graphs || [];
      return adoptGraph(r);
    }).catch((e) => { c.answers.delete(ck); throw e; }));
  }
  return c.answers.get(ck);
}

// ---------- the tensor view's links into the graph ----------
// The nodes that read a tensor and the node that makes it (a Constant,
// a Const), in every graph of the file, one click from its page.
export async function graphTensorLinks(box, t) {
  const o = state.open;
  if (!o || !o.graph) return;
  const key = state.key, as = state.as;
  let r;
  try { r = await api('/api/graph', { f: key, as, tensor: t.index }); } catch { return; }
  if (!box.isConnected || key !== state.key) return;
  const uses = (r.uses || []).filter((u) => u.producer !== null || (u.consumers || []).length);
  if (!uses.length) return;
  const card = h('div', { class: 'card', id: 'tensor-nodes' }, h('h3', null, 'In the graph'));
  box.append(card);
  const dl = h('dl', { class: 'kv' });
  card.append(dl);
  for (const u of uses.slice(0, 6)) {
    // The nodes' names: from the graph's layout, fetched once per file.
    let g = null;
    try { g = await graphFetch(key, as, u.graph); } catch { /* indices only */ }
    if (!card.isConnected) return;
    const link = (i) => {
      const n = g && g.byIndex.get(i);
      return h('span', { class: 'link', 'data-goto': n ? n.name || String(i) : String(i), 'data-graph': u.graph,
        onclick: () => { update({ graphId: u.graph, graphNode: i }); go({ tab: 'graph', t: null, at: null, g: u.graph, n: i }); } },
      n ? n.name || `[${i}]` : `[${i}]`, n ? h('span', { class: 'muted' }, ' ' + opTitle(n)) : null);
    };
    const where = g && g.kind !== 'main' ? h('span', { class: 'muted' }, ` (in ${g.kind} ${g.name || u.graph})`) : null;
    const consumers = u.consumers || [];
    if (u.producer !== null && u.producer !== undefined) dl.append(h('dt', null, 'made by'), h('dd', { class: 'made-by' }, link(u.producer), where));
    if (consumers.length) {
      dl.append(h('dt', null, 'used by'), h('dd', { class: 'used-by' }, consumers.slice(0, 30).map((i, q) => [q ? ', ' : '', link(i)]),
        consumers.length > 30 ? ` and ${consumers.length - 30} more` : '', where));
    }
  }
}

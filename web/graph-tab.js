// The Graph tab: the graph and node the address names (else the ones shown
// last, else the main graph), drawn by a GraphView; the view shown now,
// for the page's search.
import { h } from './dom.js';
import { graphFetch } from './graph-data.js';
import { GraphView } from './graph-view.js';
import { parseAddress, state, update } from './state.js';

let shown = null;

// The Graph tab's view, while it is on the page with a graph drawn.
export function currentGraphView() {
  return shown && shown.wrap.isConnected && shown.g ? shown : null;
}

export async function renderGraphTab(body) {
  const key = state.key, as = state.as;
  body.replaceChildren(h('p', { class: 'spin' }, 'Reading the graph…'));
  const r = parseAddress(location.hash);
  if (r.g !== null) update({ graphId: r.g, graphNode: r.n });
  const want = state.graphId !== null ? state.graphId : 0;
  // The graph asked for, else the main graph.
  let g = null, error = null;
  for (const id of want !== 0 ? [want, 0] : [0]) {
    try { g = await graphFetch(key, as, id); break; } catch (e) { error = e; update({ graphId: null, graphNode: null }); }
  }
  if (!g) { body.replaceChildren(h('div', { class: 'card error-card', id: 'graph-error' }, 'No graph: ' + error.message)); return; }
  if (!body.isConnected || key !== state.key) return;
  shown = new GraphView(body, key, as, g.graphs);
  await shown.show(g.id, { select: g.id === want ? state.graphNode : null });
}

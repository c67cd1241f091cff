// A file read without a schema (the server's `overview: fields`): the
// guessed field tree beside the bytes, a field's bytes lit as the pointer
// passes over either. The tree comes from the server a page at a time: the
// file's answer holds the first page of the root and of the levels just
// below it; a branch with nothing shown yet fetches its first page when it
// opens, "show more" the next page of its level (/api/fields). A level
// ("branch") is the server's address of it; each field carries its own.
import { api } from './backend.js';
import { renderBytes, highlightBytes } from './bytes.js';
import { $, h, errorCard, moreButton, tip } from './dom.js';
import { fieldText, hex8 } from './format.js';
import { state } from './state.js';

// The tree of a page answer (`level`: value, branch, fields, first, next).
// `onLine(item)` is told of every field line drawn, `item` its byte range.
export function fieldTree(level, onLine) {
  const box = h('div', { class: 'tree', id: 'field-tree' });
  const flat = [];
  const fetchPage = (branch, from) => api('/api/fields', { f: state.key, branch, from });
  const field = (parent, f, depth) => {
    const end = f.offset + f.length;
    const isMsg = f.kind === 'message' || f.kind === 'group';
    const line = h('span', { class: 'pf', 'data-from': f.offset, 'data-to': end },
      h('span', { class: 'k' }, String(f.field)), ' ', h('span', { class: 'c' }, f.kind), isMsg ? '' : ' = ', isMsg ? '' : fieldText(f),
      f.also && f.also.length ? h('span', { class: 'alt' }, '  (also fits: ' + f.also.map((a) => (typeof a === 'string' ? a : a.kind || JSON.stringify(a))).join(', ') + ')') : null,
      f.truncated ? h('span', { class: 'alt' }, '  (cut off)') : null);
    const item = { from: f.offset, to: end, depth, el: line };
    flat.push(item);
    if (onLine) onLine(item, f);
    if (!isMsg || !f.fields) { parent.append(h('div', { class: 'leaf' }, line)); return; }
    const det = h('details', { 'data-branch': f.branch }, h('summary', null, line, h('span', { class: 'c' }, `  ${f.fields.toLocaleString('en-US')} field${f.fields === 1 ? '' : 's'}`)));
    parent.append(det);
    if (f.value.length) { det.open = true; fill(det, f, depth + 1); return; }
    let asked = false;
    det.addEventListener('toggle', async () => {
      if (!det.open || asked) return;
      asked = true;
      const wait = h('div', { class: 'leaf spin' }, 'reading…');
      det.append(wait);
      try { const page = await fetchPage(f.branch, 0); wait.remove(); fill(det, page, depth + 1); } catch (e) { wait.textContent = e.message; asked = false; }
    });
  };
  const fill = (parent, page, depth) => {
    for (const f of page.value) field(parent, f, depth);
    if (page.next === null || page.next === undefined) return;
    parent.append(moreButton(page.fields - page.first - page.value.length, async (b) => {
      b.disabled = true;
      b.textContent = 'reading…';
      try { const next = await fetchPage(page.branch, page.next); b.remove(); fill(parent, next, depth); } catch (e) { b.textContent = e.message; }
    }));
  };
  fill(box, level, 0);
  return { box, flat };
}

export function renderFields(body) {
  const d = state.open.decoded;
  const { box: treeBox, flat } = fieldTree(d, (item, f) => {
    item.el.addEventListener('mouseenter', () => hot(item));
    item.el.addEventListener('mouseleave', () => hot(null));
    item.el.addEventListener('click', () => bytesBody.hexGoto(f.offset).then(() => hot(item)));
  });
  const faultBox = d.fault ? errorCard(d.fault, 'Read up to a fault') : null;
  const bytesBody = h('div');
  let current = null;
  const hot = (item) => {
    if (current) current.el.classList.remove('hot');
    current = item;
    if (item) item.el.classList.add('hot');
    highlightBytes($('#hex'), item ? item.from : null, item ? item.to : null);
  };
  if (faultBox) body.append(faultBox);
  body.append(h('div', { class: 'split' },
    h('div', { class: 'card' }, h('h3', null, 'Fields (guessed without a schema)'), h('div', { class: 'scrollbox tall' }, treeBox)),
    h('div', { class: 'card' }, h('h3', null, 'Bytes'), bytesBody)));
  renderBytes(bytesBody, {
    at: d.fault ? d.fault.offset : undefined,
    error: d.fault ? d.fault.offset : undefined,
    onByte: (o, e) => {
      if (o === null) { hot(null); tip(null); return; }
      let best = null;
      for (const it of flat) if (o >= it.from && o < it.to && (!best || it.depth >= best.depth)) best = it;
      hot(best);
      if (best) {
        let el = best.el;
        while (el && el.parentElement) { if (el.tagName === 'DETAILS' && !el.open) el.open = true; el = el.parentElement; }
        best.el.scrollIntoView({ block: 'nearest' });
        tip(`byte ${hex8(o)}: field ${best.el.firstChild.textContent} @${hex8(best.from)}..${hex8(best.to)}`, e);
      } else tip(`byte ${hex8(o)}`, e);
    },
  });
}

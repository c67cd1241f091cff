// Building the page: elements from a tag, attributes and children; names
// cut to their element's width; the toast and the tooltip; the card of a
// decode error (check, field path, offset), which several views show.
import { hex8, shortName } from './format.js';

export const $ = (sel, el = document) => el.querySelector(sel);

// An element: `attrs` set as attributes (class, text, on* listeners), the
// children (nested lists, text or nodes; null and false left out) appended.
export function h(tag, attrs, ...kids) {
  const el = document.createElement(tag);
  if (attrs) {
    for (const [k, v] of Object.entries(attrs)) {
      if (v === undefined || v === null || v === false) continue;
      if (k === 'class') el.className = v;
      else if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
      else if (k === 'text') el.textContent = v;
      else el.setAttribute(k, v === true ? '' : v);
    }
  }
  for (const kid of kids.flat(Infinity)) {
    if (kid === undefined || kid === null || kid === false) continue;
    el.append(kid instanceof Node ? kid : document.createTextNode(String(kid)));
  }
  return el;
}

// Elements of nested lists, the empty places left out (for the DOM's own
// append and replaceChildren).
export const kids = (...xs) => xs.flat(Infinity).filter((x) => x !== null && x !== undefined && x !== false);

// Cuts the name an element shows in the middle until it fits the
// element's width (drawn, with overflow hidden).
export function fitName(el, name) {
  el.textContent = name;
  if (el.scrollWidth <= el.clientWidth) return;
  let lo = 4, hi = [...name].length - 1;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    el.textContent = shortName(name, mid);
    if (el.scrollWidth <= el.clientWidth) lo = mid; else hi = mid - 1;
  }
  el.textContent = shortName(name, lo);
}

let toastTimer = 0;
export function toast(msg, ms = 4000) {
  const t = $('#toast');
  t.textContent = msg;
  t.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { t.hidden = true; }, ms);
}

// The tooltip near the pointer of event `ev`; `tip(null)` hides it.
export function tip(text, ev) {
  const t = $('#tip');
  if (!text) { t.hidden = true; return; }
  t.textContent = text;
  t.hidden = false;
  const x = Math.min(ev.clientX + 14, window.innerWidth - t.offsetWidth - 8);
  const y = Math.min(ev.clientY + 16, window.innerHeight - t.offsetHeight - 8);
  t.style.left = x + 'px';
  t.style.top = y + 'px';
}

// A decode error as the command line reports it: the check, the field
// path, the offset and the reason.
export function errorCard(err, title) {
  return h('div', { class: 'card error-card', id: 'error' },
    h('div', { class: 'big' }, title),
    h('dl', { class: 'kv' },
      h('dt', null, 'check'), h('dd', { 'data-check': err.check }, err.check + ' check failed'),
      h('dt', null, 'field'), h('dd', { class: 'mono' }, err.path || '(the top-level message)'),
      h('dt', null, 'offset'), h('dd', { class: 'mono', 'data-offset': err.offset }, hex8(err.offset) + '  (byte ' + err.offset + ')'),
      // In a text-format file, where the fault is written.
      err.line ? h('dt', null, 'line') : null,
      err.line ? h('dd', { class: 'mono', 'data-line': err.line }, `line ${err.line}, column ${err.column}`) : null,
      h('dt', null, 'reason'), h('dd', null, err.reason)));
}

// A "show more" button: `onClick(button)` draws or fetches the next page.
export function moreButton(left, onClick) {
  const b = h('button', { class: 'btn small more', type: 'button' }, `show more (${left.toLocaleString('en-US')} left)`);
  b.addEventListener('click', () => onClick(b));
  return b;
}

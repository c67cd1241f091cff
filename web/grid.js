// The value grid of the tensor view: the last two axes as rows and
// columns, each value as the command line's text view prints it. A small
// tensor's slices are all drawn; a bigger one's leading axes are chosen
// with selectors, and the grid fetches only the window it shows.
import { api } from './backend.js';
import { h } from './dom.js';
import { elementAddress, state } from './state.js';

// A tensor of at most this many values is shown whole: every 2-D slice at
// once, stacked under its index.
const GRID_WHOLE = 4096;
// The value grid: the last two axes as rows and columns. A small tensor's
// slices are all drawn; a bigger one's leading axes are chosen with
// selectors, and the grid fetches only the window it shows.
export class Grid {
  constructor(card, t, index) {
    this.card = card; this.t = t; this.index = index;
    const total = Number(t.elements);
    this.total = total;
    const dims = t.dims === null ? [total] : t.dims.map(Number);
    this.dims = dims;
    if (dims.length === 0) { this.R = 1; this.C = 1; this.lead = []; this.wrap = false; }
    else if (dims.length === 1) { this.C = Math.min(10, Math.max(1, dims[0])); this.R = Math.ceil(dims[0] / this.C); this.lead = []; this.wrap = true; }
    else { this.R = dims[dims.length - 2]; this.C = dims[dims.length - 1]; this.lead = dims.slice(0, -2); this.wrap = false; }
    this.leadIdx = this.lead.map(() => 0);
    this.whole = total <= GRID_WHOLE;
    this.slices = this.lead.reduce((a, b) => a * b, 1);
    this.VR = this.whole ? this.R : 32; this.VC = this.whole ? this.C : Math.min(this.C, 12);
    this.r0 = 0; this.c0 = 0; this.sr = 0; this.sc = 0;
    this.isString = t.dtype === 'STRING' || t.dtype === 'DT_STRING';
  }
  start(at) {
    const bar = h('div', { class: 'gridbar' });
    this.leadBox = h('div', { class: 'lead' });
    if (!this.whole) this.lead.forEach((d, k) => {
      const inp = h('input', { type: 'number', min: 0, max: d - 1, value: 0, 'aria-label': 'index of axis ' + k, 'data-axis': k });
      inp.addEventListener('change', () => { this.leadIdx[k] = Math.max(0, Math.min(d - 1, Number(inp.value) || 0)); inp.value = this.leadIdx[k]; this.load(); });
      this.leadBox.append(h('label', null, `axis ${k}`, inp, h('span', null, `/ ${d}`)));
    });
    const btn = (label, title, fn, id) => h('button', { class: 'btn small', title, onclick: fn, id }, label);
    this.gotoInput = h('input', { type: 'number', min: 0, max: Math.max(0, this.total - 1), placeholder: 'index', 'aria-label': 'go to flat index', id: 'goto' });
    this.gotoInput.addEventListener('change', () => this.goto(Math.max(0, Math.min(this.total - 1, Number(this.gotoInput.value) || 0))));
    bar.append(...[this.leadBox, h('span', { class: 'grow' }),
      btn('⇤', 'first value (Ctrl+Home)', () => this.goto(0), 'first'),
      this.whole ? null : btn('◀', 'previous rows (Page Up)', () => this.move(-this.VR, 0, true), 'prev'),
      this.whole ? null : btn('▶', 'next rows (Page Down)', () => this.move(this.VR, 0, true), 'next'),
      btn('⇥', 'last value (Ctrl+End)', () => this.goto(this.total - 1), 'last'),
      h('label', { class: 'muted' }, 'go to ', this.gotoInput)].filter(Boolean));
    this.box = h('div', { class: 'gridwrap', tabindex: 0, id: 'grid', 'aria-label': 'values; arrow keys move' });
    this.box.addEventListener('keydown', (e) => this.key(e));
    this.status = h('div', { class: 'status', id: 'grid-status' });
    this.card.append(bar, this.box, this.status);
    this.goto(at !== null && at !== undefined && at < this.total ? at : 0, true);
  }
  // flat index <-> (leading indices, row, column)
  flat(lead, r, c) {
    if (this.wrap) return r * this.C + c;
    let base = 0;
    lead.forEach((v, k) => { base = base * this.lead[k] + v; });
    return (base * this.R + r) * this.C + c;
  }
  unflat(i) {
    if (this.wrap) return { lead: [], r: Math.floor(i / this.C), c: i % this.C };
    const c = i % this.C; i = Math.floor(i / this.C);
    const r = i % this.R; i = Math.floor(i / this.R);
    const lead = [];
    for (let k = this.lead.length - 1; k >= 0; k--) { lead.unshift(i % this.lead[k]); i = Math.floor(i / this.lead[k]); }
    return { lead, r, c };
  }
  indexText(i) {
    if (this.dims.length <= 1) return '[' + i + ']';
    const u = this.unflat(i);
    return '[' + [...u.lead, u.r, u.c].join(', ') + ']';
  }
  // The number of the 2-D slice the leading indices pick.
  sliceOf(lead) {
    return lead.reduce((base, v, k) => base * this.lead[k] + v, 0);
  }
  goto(i, first) {
    const u = this.unflat(i);
    this.leadIdx = u.lead;
    [...this.leadBox.querySelectorAll('input')].forEach((inp, k) => { inp.value = u.lead[k]; });
    this.sr = u.r; this.sc = u.c;
    if (this.whole) { if (this.drawn) this.mark(first); else this.load(first); return; }
    this.r0 = Math.max(0, Math.min(this.sr - (this.sr % this.VR), this.R - this.VR));
    if (this.sr < this.r0 || this.sr >= this.r0 + this.VR) this.r0 = this.sr;
    this.c0 = Math.max(0, Math.min(this.sc - (this.sc % this.VC), this.C - this.VC));
    this.load(first);
  }
  move(dr, dc, page) {
    if (this.whole && !this.wrap) {
      // Up and down run on through the stacked slices.
      const rows = this.slices * this.R;
      const g = Math.max(0, Math.min(rows - 1, this.sliceOf(this.leadIdx) * this.R + this.sr + dr));
      this.goto(g * this.C + Math.max(0, Math.min(this.C - 1, this.sc + dc)));
      return;
    }
    let r = this.sr + dr, c = this.sc + dc;
    r = Math.max(0, Math.min(this.R - 1, r)); c = Math.max(0, Math.min(this.C - 1, c));
    if (this.wrap && this.flat([], r, c) >= this.total) { r = Math.floor((this.total - 1) / this.C); c = Math.min(c, (this.total - 1) % this.C); }
    this.sr = r; this.sc = c;
    let reload = false;
    if (page) { this.r0 = Math.max(0, Math.min(this.r0 + dr, this.R - this.VR)); reload = true; }
    if (this.sr < this.r0) { this.r0 = this.sr; reload = true; }
    if (this.sr >= this.r0 + this.VR) { this.r0 = this.sr - this.VR + 1; reload = true; }
    if (this.sc < this.c0) { this.c0 = this.sc; reload = true; }
    if (this.sc >= this.c0 + this.VC) { this.c0 = this.sc - this.VC + 1; reload = true; }
    if (reload) this.load(); else this.mark();
  }
  key(e) {
    const k = e.key;
    const m = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] }[k];
    if (m) { this.move(m[0], m[1]); e.preventDefault(); return; }
    if (k === 'PageDown') { this.move(this.VR, 0, true); e.preventDefault(); }
    else if (k === 'PageUp') { this.move(-this.VR, 0, true); e.preventDefault(); }
    else if (k === 'Home') { if (e.ctrlKey || e.metaKey) this.goto(0); else this.move(0, -this.sc); e.preventDefault(); }
    else if (k === 'End') { if (e.ctrlKey || e.metaKey) this.goto(this.total - 1); else this.move(0, this.C - 1 - this.sc); e.preventDefault(); }
  }
  async load(first) {
    if (this.whole) return this.loadWhole(first);
    const my = (this.seq = (this.seq || 0) + 1);
    const rows = Math.min(this.VR, this.R - this.r0);
    const cols = Math.min(this.VC, this.C - this.c0);
    const offset = this.flat(this.leadIdx, this.r0, this.c0);
    let r;
    try {
      r = await api('/api/values', { f: state.key, as: state.as, t: this.index, offset, count: cols, rows, stride: this.C });
    } catch (e) { this.status.textContent = e.message; return; }
    if (my !== this.seq) return;
    this.values = r.values;
    const table = h('table', { class: 'grid' });
    const head = h('tr', null, h('th', { class: 'rowh' }, this.wrap ? 'index' : ''));
    for (let c = 0; c < cols; c++) head.append(h('th', null, this.wrap ? '+' + (this.c0 + c) : String(this.c0 + c)));
    table.append(h('thead', null, head));
    const tb = h('tbody');
    // Each value as the command line's text view prints it.
    r.text.forEach((row, ri) => {
      const tr = h('tr', null, h('th', { class: 'rowh' }, this.wrap ? String((this.r0 + ri) * this.C) : String(this.r0 + ri)));
      row.forEach((text, ci) => {
        const special = !this.isString && /NaN|inf/.test(text);
        tr.append(h('td', { class: (special ? 'nan' : '') + (this.isString ? ' str' : ''), 'data-r': this.r0 + ri, 'data-c': this.c0 + ci, onclick: () => { this.sr = this.r0 + ri; this.sc = this.c0 + ci; this.mark(); this.box.focus(); } }, text));
      });
      tb.append(tr);
    });
    table.append(tb);
    this.box.replaceChildren(table);
    this.mark(first);
    if (r.truncated) this.status.textContent += '    (cut short: these values are too long for one answer)';
  }
  // Every value at once, one table body per 2-D slice under its index.
  async loadWhole(first) {
    const my = (this.seq = (this.seq || 0) + 1);
    let r;
    try {
      r = await api('/api/values', { f: state.key, as: state.as, t: this.index, offset: 0, count: this.C, rows: this.R * this.slices, stride: this.C });
    } catch (e) { this.status.textContent = e.message; return; }
    if (my !== this.seq) return;
    const table = h('table', { class: 'grid whole' });
    const head = h('tr', null, h('th', { class: 'rowh' }, this.wrap ? 'index' : ''));
    for (let c = 0; c < this.C; c++) head.append(h('th', null, this.wrap ? '+' + c : String(c)));
    table.append(h('thead', null, head));
    for (let s = 0; s < this.slices; s++) {
      const tb = h('tbody', { 'data-slice': s });
      if (this.lead.length) {
        const lead = this.unflat(s * this.R * this.C).lead;
        tb.append(h('tr', { class: 'slice' }, h('th', { class: 'rowh', colspan: this.C + 1 }, '[' + [...lead, ':', ':'].join(', ') + ']')));
      }
      (r.text.slice(s * this.R, (s + 1) * this.R)).forEach((row, ri) => {
        const tr = h('tr', null, h('th', { class: 'rowh' }, this.wrap ? String(ri * this.C) : String(ri)));
        row.forEach((text, ci) => {
          const special = !this.isString && /NaN|inf/.test(text);
          tr.append(h('td', { class: (special ? 'nan' : '') + (this.isString ? ' str' : ''), 'data-s': s, 'data-r': ri, 'data-c': ci, onclick: () => { this.goto((s * this.R + ri) * this.C + ci); this.box.focus(); } }, text));
        });
        tb.append(tr);
      });
      table.append(tb);
    }
    this.box.replaceChildren(table);
    this.drawn = true;
    this.mark(first);
    if (r.truncated) this.status.textContent += '    (cut short: these values are too long for one answer)';
  }
  mark(first) {
    for (const td of this.box.querySelectorAll('td.sel')) td.classList.remove('sel');
    const td = this.box.querySelector((this.whole ? `td[data-s="${this.sliceOf(this.leadIdx)}"]` : 'td') + `[data-r="${this.sr}"][data-c="${this.sc}"]`);
    const i = this.flat(this.leadIdx, this.sr, this.sc);
    if (td) { td.classList.add('sel'); td.scrollIntoView({ block: 'nearest', inline: 'nearest' }); }
    const rows = Math.min(this.VR, this.R - this.r0);
    if (this.whole) {
      this.status.textContent = (td ? `${this.indexText(i)}  (flat ${i})  = ${td.textContent}` : '') +
        `    all ${this.total.toLocaleString('en-US')} values` + (this.slices > 1 ? `: ${this.slices} slices of ${this.R} × ${this.C}` : '');
    } else this.status.textContent = (td ? `${this.indexText(i)}  (flat ${i})  = ${td.textContent}` : '') +
      `    showing rows ${this.r0}–${this.r0 + rows - 1}` + (this.VC < this.C ? `, columns ${this.c0}–${this.c0 + this.VC - 1}` : '') + ` of ${this.R} × ${this.C}` +
      (this.lead.length ? ` at [${this.leadIdx.join(', ')}, …]` : '') + `; ${this.total.toLocaleString('en-US')} values in all`;
    if (!first && td) elementAddress(i);
    if (this.onSlice) this.onSlice(this.sliceOf(this.leadIdx));
  }
}

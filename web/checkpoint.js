// A tensor bundle (the server's `overview: checkpoint`: a TensorFlow
// checkpoint or a SavedModel's variables): its summary, then its variables
// from the index, each opening in the tensor view (values read only
// then), filtered by any part of their name; then the text view.
import { h, moreButton } from './dom.js';
import { state } from './state.js';
import { summaryCard, tensorRow } from './tensor-list.js';
import { renderText } from './text.js';

// Variables drawn at first, and per "show more".
const PAGE = 500;

export function renderCheckpoint(body, tensors) {
  body.append(summaryCard(state.open.title) || '');
  const filter = h('input', { type: 'search', id: 'variable-filter', placeholder: 'filter by name', 'aria-label': 'Filter the variables by name', autocomplete: 'off' });
  const count = h('span', { class: 'muted', id: 'variable-count' });
  const tbody = h('tbody');
  const foot = h('div');
  const draw = () => {
    const q = filter.value.trim().toLowerCase();
    const hits = q ? tensors.filter((t) => t.name.toLowerCase().includes(q)) : tensors;
    count.textContent = q ? `${hits.length.toLocaleString('en-US')} of ${tensors.length.toLocaleString('en-US')}` : '';
    let shown = 0;
    const more = () => {
      const end = Math.min(hits.length, shown + PAGE);
      tbody.append(...hits.slice(shown, end).map(tensorRow));
      shown = end;
      foot.replaceChildren(shown < hits.length ? moreButton(hits.length - shown, more) : '');
    };
    tbody.replaceChildren();
    more();
  };
  filter.addEventListener('input', draw);
  body.append(h('div', { class: 'card', id: 'variables' },
    h('div', { class: 'cardbar' }, h('h3', null, `Variables (${tensors.length.toLocaleString('en-US')})`), filter, count),
    h('div', { class: 'scrollbox' }, h('table', { class: 't', id: 'tensor-table' },
      h('thead', null, h('tr', null, ['name', 'type', 'shape', 'elements', 'storage'].map((x) => h('th', null, x)))), tbody)),
    foot));
  draw();
  const text = h('div');
  body.append(h('div', { class: 'card' }, h('h3', null, 'As the command line shows it'), text));
  renderText(text, true);
}

// The page's modules as a whole (web/*.js): none over 600 lines, every
// name one imports exported by the module it names, no import cycle
// (each module sits on the ones below it), and each one that the page
// loads served by `decode serve` (src/server/api.rs's list).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';

const web = new URL('../../web/', import.meta.url);
const modules = readdirSync(web).filter((f) => f.endsWith('.js')).sort();
const source = Object.fromEntries(modules.map((f) => [f, readFileSync(new URL(f, web), 'utf8')]));

// `import { a, b as c } from './x.js'` -> [x.js, [a, b]].
function importsOf(text) {
  const out = [];
  for (const m of text.matchAll(/^import\s+\{([^}]*)\}\s+from\s+'\.\/([\w.-]+)';/gm)) {
    out.push([m[2], m[1].split(',').map((s) => s.trim().split(/\s+as\s+/)[0]).filter(Boolean)]);
  }
  for (const m of text.matchAll(/^import\s+(?!\{)[^;]*from\s+'\.\/([\w.-]+)';/gm)) out.push([m[1], []]);
  return out;
}
function exportsOf(text) {
  const out = new Set();
  for (const m of text.matchAll(/^export\s+(?:async\s+)?(?:function\*?|class)\s+([\w$]+)/gm)) out.add(m[1]);
  for (const m of text.matchAll(/^export\s+(?:const|let)\s+([^;]*)/gm)) {
    // `export const A = ..., B = ...`: the names before each top-level `=`.
    for (const n of m[1].matchAll(/(?:^|,\s*)([\w$]+)\s*=(?!=)/g)) out.add(n[1]);
  }
  return out;
}

test('no module over 600 lines', () => {
  assert.ok(modules.length >= 20, modules.join(' '));
  for (const f of modules) {
    const lines = source[f].split('\n').length - 1;
    assert.ok(lines <= 600, `${f}: ${lines} lines`);
  }
});

test('every import names a module and names it exports', () => {
  let checked = 0;
  for (const f of modules) {
    for (const [from, names] of importsOf(source[f])) {
      assert.ok(source[from] !== undefined, `${f} imports ${from}, which is not in web/`);
      const exported = exportsOf(source[from]);
      for (const n of names) { assert.ok(exported.has(n), `${f} imports ${n}, which ${from} does not export`); checked++; }
    }
  }
  assert.ok(checked > 100, `${checked} names checked`);
});

test('no import cycle', () => {
  const deps = Object.fromEntries(modules.map((f) => [f, importsOf(source[f]).map(([m]) => m)]));
  const state = {};
  const visit = (f, path) => {
    if (state[f] === 'done') return;
    assert.notEqual(state[f], 'open', 'a cycle: ' + [...path, f].join(' -> '));
    state[f] = 'open';
    for (const d of deps[f] || []) visit(d, [...path, f]);
    state[f] = 'done';
  };
  for (const f of modules) visit(f, []);
});

test('the server serves every module the page loads', () => {
  // (rustfmt lays the table out as it likes: spaces do not count.)
  const served = readFileSync(new URL('../../src/server/api.rs', import.meta.url), 'utf8').replace(/\s+/g, '');
  // What the page loads: main.js and what it imports, down to the bottom.
  const loaded = new Set();
  const walk = (f) => { if (loaded.has(f)) return; loaded.add(f); for (const [d] of importsOf(source[f])) walk(d); };
  walk('main.js');
  assert.ok(loaded.size >= 20);
  for (const f of loaded) assert.ok(served.includes(`("/${f}",JS,include_str!("../../web/${f}")`), `${f} is not served`);
  // The static site's worker and its module glue are not the page's.
  assert.ok(!loaded.has('wasm.js') && !loaded.has('wasm-worker.js'));
});

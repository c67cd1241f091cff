// The summary of every model fixture (ONNX models, SavedModels, GraphDefs
// under tests/fixtures) as the explorer draws it: the same items, in the
// same order, as the "summary" of `decode --json`, every number of it in
// its line, and the lines those of the `decode` text view's header. A
// screenshot of each in target/browser-screenshots/summary/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { decode, fixtures, shots as allShots, start } from './harness.mjs';

const shots = path.join(allShots, 'summary');
mkdirSync(shots, { recursive: true });

const SUMMARISED = ['onnx-model', 'tf-saved-model', 'tf-graph-def'];

let page, stop;

before(async () => {
  ({ page, stop } = await start());
});

after(async () => {
  if (stop) await stop();
});

function files(dir) {
  return readdirSync(dir).sort().flatMap((n) => {
    const p = path.join(dir, n);
    return statSync(p).isDirectory() ? files(p) : [p];
  });
}

// `decode ARGS FILE`'s standard output; null when it turns the file down.
function cli(args, file) {
  try {
    return execFileSync(decode, [...args, file], { stdio: ['ignore', 'pipe', 'ignore'], maxBuffer: 1 << 28 }).toString();
  } catch {
    return null;
  }
}

// The text view's header as [label, text] lines: after the format/type/size
// block, up to the first blank line; a model's under its title, indented
// two spaces (deeper lines are fields a line did not show).
function headerLines(text, titled) {
  const lines = text.split('\n');
  let i = lines.indexOf('') + 1;
  if (titled) assert.equal(lines[i++], 'ONNX model');
  const out = [];
  for (; i < lines.length && lines[i] !== ''; i++) {
    let body = lines[i];
    if (titled) {
      if (!body.startsWith('  ') || body.startsWith('   ')) continue;
      body = body.slice(2);
    } else if (body.startsWith(' ')) continue;
    const colon = body.indexOf(':');
    out.push([body.slice(0, colon), body.slice(colon + 1).trimStart()]);
  }
  return out;
}

// Every number in a JSON value.
function numbers(v) {
  if (typeof v === 'number') return [v];
  if (Array.isArray(v)) return v.flatMap(numbers);
  if (v && typeof v === 'object') return Object.values(v).flatMap(numbers);
  return [];
}

// The numbers written in a line: runs of digits and separators that do
// not continue a word (`IR_VERSION_2024_3_25` holds none).
function numberTokens(text) {
  return [...text.matchAll(/(?<![\w.])[0-9][0-9,]*/g)].map((m) => m[0].replace(/,+$/, ''));
}

test('every model fixture: the page draws the summary of --json, as the text view prints it', async () => {
  const models = [];
  for (const f of files(fixtures)) {
    const out = cli(['--json', '--values', '1'], f);
    if (out === null) continue;
    const j = JSON.parse(out);
    if (SUMMARISED.includes(j.format)) models.push([f, j]);
  }
  // ONNX models (everything, constants, ...), SavedModels and GraphDefs.
  assert.ok(models.length >= 20, `only ${models.length} model fixtures`);
  for (const format of SUMMARISED) assert.ok(models.some(([, j]) => j.format === format), format);
  for (const [file, j] of models) {
    const rel = path.relative(fixtures, file);
    const key = '0/' + rel.split(path.sep).join('/');
    const header = headerLines(cli([], file), j.format === 'onnx-model');
    await page.click(`#files li[data-key="${key}"]`);
    await page.waitForSelector(`#summary[data-file="${key}"]`);
    const rows = await page.$$eval('#summary dd', (dds) => dds.map((d) => [d.dataset.key, d.previousElementSibling.textContent, d.textContent]));
    // The items of the JSON, in its order (a device configuration a line each).
    const keys = rows.map(([k]) => k).filter((k, i, all) => i === 0 || all[i - 1] !== k);
    assert.deepEqual(keys, Object.keys(j.summary), rel);
    // Every number of each item in its line, as the command line writes it.
    for (const [k, , text] of rows) {
      const tokens = numberTokens(rows.filter(([x]) => x === k).map(([, , t]) => t).join('\n'));
      for (const n of numbers(j.summary[k])) {
        if (n === 0) continue; // `+ 0 sparse` goes unsaid
        const grouped = n.toLocaleString('en-US');
        assert.ok(tokens.includes(grouped) || tokens.includes(String(n)), `${rel}: ${k}: ${n} not in ${JSON.stringify(text)}`);
      }
    }
    // The lines of the text view's header, label and text.
    assert.deepEqual(rows.map(([, label, text]) => [label, text]), header, rel);
    await page.locator('#summary').screenshot({ path: path.join(shots, rel.replace(/[^\w.]+/g, '_') + '.png') });
  }
  await page.click('#files li[data-key="0/onnx-model/everything.onnx"]');
  await page.waitForSelector('#summary[data-file="0/onnx-model/everything.onnx"]');
  // The parameters of everything.onnx: its initializers' 62 elements, the
  // sparse ones' non-zeros and the Constant node's values, as the text view
  // says (the page used to count the initializers alone).
  assert.equal(await page.textContent('#summary dd[data-key="parameters"]'), '70 (sparse: non-zeros, with constants)');
  await page.screenshot({ path: path.join(shots, '00-everything-page.png') });
  await page.click('#files li[data-key="0/onnx-model/constants.onnx"]');
  await page.waitForSelector('#summary[data-file="0/onnx-model/constants.onnx"]');
  // Weights in Constant nodes only (silero-vad, PaddleOCR): not 0.
  assert.equal(await page.textContent('#summary dd[data-key="parameters"]'), '18 (with constants)');
});

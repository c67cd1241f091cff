// The static site (scripts/build-site.sh) in headless Chromium, whatever
// BACKEND says: the fixtures folder picked on the page is read by the
// page's WebAssembly module, and for every fixture the page's JSON
// (/api/open?values=all's decoded file) and text view are the command
// line's, byte for byte. The files are read together, so a model finds its
// external data among them as the command finds it on disk; a file of a
// test_data_set_N folder is read by the page alone (the command reads it
// against the model beside it), so it is compared with the command
// reading it from standard input. A tensor bundle's shards (and a
// SavedModel's variables/ folder) are found by listing a folder on disk,
// which the page's folder of dropped files does not offer yet: the page
// reads a bundle's index alone, as the command reads it from standard
// input, and is compared with that. One message differs by design: a side
// file that is missing is "not among the files given with this one" on
// the page, where the command says the OS's "No such file or directory".
// No request leaves the page.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { decode, fixtures, shot, startStatic } from './harness.mjs';

let env;
before(async () => { env = await startStatic(); });
after(async () => { if (env) await env.stop(); });

// The command's output (its exit status aside: a file it turns down
// still prints its JSON), from the fixtures folder.
function cli(args, rel) {
  const alone = /(^|\/)test_data_set_\d+\//.test(rel) || rel.startsWith('tf-checkpoint/');
  const opts = { cwd: fixtures, maxBuffer: 1 << 30, stdio: ['pipe', 'pipe', 'ignore'] };
  if (alone) opts.input = readFileSync(path.join(fixtures, rel));
  let out;
  try {
    out = execFileSync(decode, [...args, alone ? '-' : rel], opts).toString();
  } catch (e) {
    out = e.stdout.toString();
  }
  return out.replace(/cannot read (?:[^"\s]*\/)?([^"\s/]+): No such file or directory \(os error 2\)/g, '$1 is not among the files given with this one');
}

test('the static page shows every fixture as the command line does', async () => {
  const { page } = env;
  await shot(page, '40-static-files');
  const files = await page.evaluate(async () => (await api('/api/files')).files);
  assert.ok(files.length > 200, 'files listed: ' + files.length);
  const failures = [];
  let decoded = 0;
  for (const f of files) {
    const rel = f.name.slice('fixtures/'.length);
    if (rel.endsWith('README.md')) continue;
    const got = await page.evaluate(async (key) => {
      const open = await BACKEND.fetch('/api/open', { f: key, values: 'all' });
      const text = await BACKEND.fetch('/api/text', { f: key });
      return { open: await open.text(), text: await text.text() };
    }, f.key);
    const opened = JSON.parse(got.open);
    const json = cli(['--json'], rel).replace(/\n$/, '');
    if (opened.ok) {
      decoded++;
      // A file read without a schema comes with its field tree's first
      // page only (the page asks for the rest): its text view is compared.
      const at = got.open.indexOf('"decoded": ');
      const mine = got.open.slice(at + '"decoded": '.length, got.open.lastIndexOf('\n}'));
      if (opened.format !== 'protobuf' && mine !== json) failures.push(rel + ': JSON differs');
      if (got.text !== cli(['--dense'], rel)) failures.push(rel + ': text differs');
    } else if (opened.error.check !== JSON.parse(json).error.check) {
      failures.push(`${rel}: ${opened.error.check} where the command says ${JSON.parse(json).error.check}`);
    }
  }
  assert.deepEqual(failures, []);
  assert.ok(decoded > 150, 'files decoded: ' + decoded);
  assert.deepEqual(env.outside, []);
});

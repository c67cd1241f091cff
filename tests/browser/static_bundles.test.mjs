// TensorFlow tensor bundles on the static page (always the static site,
// whatever BACKEND says): a SavedModel's folder picked on the page shows
// each variable's values under its object, and a partitioned checkpoint
// among the fixtures its variable assembled from its slices, as the
// command shows them: the page's WebAssembly module finds the shards by
// listing the files read together, as the command lists the folder on
// disk.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { decode, fixtures, shot, startStatic } from './harness.mjs';

let env;
before(async () => { env = await startStatic(); });
after(async () => { if (env) await env.stop(); });

// The page's text view of the file `key`.
async function textView(page, key) {
  await page.evaluate((key) => { location.hash = new URLSearchParams({ f: key, tab: 'text' }).toString(); }, key);
  await page.waitForFunction(() => {
    const t = document.querySelector('#text-view');
    return t && t.textContent && t.textContent !== 'Reading…';
  });
  return page.evaluate(() => document.querySelector('#text-view').textContent);
}

test('a SavedModel folder picked on the static page shows its variables\' values', async () => {
  const { page } = env;
  const dir = path.join(fixtures, 'tf-checkpoint', 'saved_model_all_types');
  await page.setInputFiles('#folder-picker', dir);
  await page.waitForSelector('#files li[data-key="1/saved_model.pb"]');
  const text = await textView(page, '1/saved_model.pb');
  assert.match(text, /\[1\] variable f32: DT_FLOAT \[2, 3\] trainable\n\s+checkpoint: "f32\/\.ATTRIBUTES\/VARIABLE_VALUE"  crc32c ok\n\s+values:\n\s+\[0,0\] -1\.5  -1\.25  -1\.0/);
  assert.match(text, /checkpoint: "s\/\.ATTRIBUTES\/VARIABLE_VALUE"  crc32c ok\n\s+values:\n\s+\[0\] "alpha"/);
  assert.doesNotMatch(text, /not available/);
  // As the command reads the folder.
  const cli = execFileSync(decode, ['--dense', 'saved_model.pb'], { cwd: dir, maxBuffer: 1 << 28 }).toString();
  assert.equal(text, cli);
  await shot(page, '60-saved-model-variables');
});

test('a partitioned checkpoint among the picked files shows its variable assembled', async () => {
  const { page } = env;
  const text = await textView(page, '0/tf-checkpoint/partitioned/model.ckpt.index');
  assert.match(text, /checksums: 5 ok, 0 mismatch, 0 not checked/);
  assert.match(text, /tensor "w"\n\s+data type: DT_FLOAT\n\s+shape:\s+\[10, 3\]  \(30 elements\)\n\s+slices:\s+\[0:4, 0:3\] \[4:7, 0:3\] \[7:10, 0:3\]\n\s+crc32c:\s+ok\n\s+values:\n\s+\[0,0\] 0\.0  1\.0  2\.0/);
  await shot(page, '61-partitioned-checkpoint');
});

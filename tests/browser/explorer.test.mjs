// End-to-end tests of the explorer in headless Chromium: the page on the
// repository's fixtures (with `decode serve`, or the static site's
// WebAssembly back end: see harness.mjs), files dropped on the page as a
// user drops them (a DataTransfer drop event), every step saved as a
// screenshot in target/browser-screenshots/. Run by tests/browser/run.sh.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { backend, fixtures, shots, start } from './harness.mjs';

let url, browser, page, stop;

before(async () => {
  ({ url, browser, page, stop } = await start());
});

after(async () => {
  if (stop) await stop();
});

const shot = (name) => page.screenshot({ path: path.join(shots, (backend === 'static' ? 'static-' : '') + name + '.png') });

// Drops a file on the page as a user would: a drop event whose
// DataTransfer holds the file.
async function drop(file) {
  const bytes = [...readFileSync(file)];
  const name = path.basename(file);
  await page.evaluate(({ bytes, name }) => {
    const dt = new DataTransfer();
    dt.items.add(new File([new Uint8Array(bytes)], name));
    document.querySelector('#main').dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, { bytes, name });
}
const text = (sel) => page.locator(sel).first().innerText();

// The token is the server's: the static site has no server to guard.
if (backend === 'server') {
  test('without the token the page says so and the server answers 403', async () => {
    const bare = url.replace(/\?token=.*/, '');
    const ctx = await browser.newContext();
    const p = await ctx.newPage();
    await p.goto(bare);
    await p.waitForSelector('text=This page needs the token');
    const status = await p.evaluate(async () => (await fetch('/api/files')).status);
    assert.equal(status, 403);
    await p.screenshot({ path: path.join(shots, '00-needs-token.png') });
    await ctx.close();
  });

  test('the address bar loses the token, and another port of the host gets nothing it can use', async () => {
    assert.ok(!page.url().includes('token='), page.url());
    // A plain listener on another port of 127.0.0.1: what the browser sends
    // it (cookies go to every port of a host) must not hold the token.
    let caught = '';
    const other = net.createServer((sock) => {
      sock.on('data', (d) => {
        caught += d;
        if (caught.includes('\r\n\r\n')) sock.end('HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok');
      });
    });
    await new Promise((resolve) => other.listen(0, '127.0.0.1', resolve));
    const p = await page.context().newPage();
    await p.goto(`http://127.0.0.1:${other.address().port}/`);
    await p.close();
    await new Promise((resolve) => other.close(resolve));
    const token = new URL(url).searchParams.get('token');
    assert.ok(caught.startsWith('GET / '), caught);
    assert.ok(!caught.includes(token), caught);
    // Its headers replayed to the explorer: 403.
    // (The first request only: the browser may ask for a favicon next.)
    const headers = caught.split('\r\n\r\n')[0].split('\r\n').slice(1).filter((l) => l && !/^host:/i.test(l)).join('\r\n');
    const u = new URL(url);
    const reply = await new Promise((resolve, reject) => {
      const sock = net.connect(Number(u.port), u.hostname, () => {
        sock.write(`GET /api/files HTTP/1.1\r\nHost: ${u.host}\r\n${headers}${headers ? '\r\n' : ''}\r\n`);
      });
      let got = '';
      sock.on('data', (d) => { got += d; });
      sock.on('end', () => resolve(got));
      sock.on('error', reject);
    });
    assert.match(reply, /^HTTP\/1\.1 403/);
  });
}

test('a dropped tensor file shows its shape, type, values, statistics and picture', async () => {
  await drop(path.join(fixtures, 'example_x_3x4x5.pb'));
  await page.waitForSelector('#grid td');
  assert.match(await text('#dtype'), /FLOAT/);
  assert.match(await text('#shape'), /\[3, 4, 5\]/);
  assert.match(await text('#count'), /60/);
  assert.match(await text('.crumbs .badge'), /onnx-tensor/);
  // The first value, as the command line prints it.
  assert.equal(await text('#grid td[data-r="0"][data-c="0"]'), '1.7640524');
  await page.waitForSelector('#stats [data-stat="max"]');
  assert.equal(await text('#stats [data-stat="count"]'), '60');
  assert.equal(await text('#stats [data-stat="min"]'), '-2.5529897');
  assert.equal(await text('#stats [data-stat="max"]'), '2.2697546');
  await page.waitForSelector('#histogram div');
  // The picture (3 x 4 x 5 is RGB 5 x 4, C x H x W) has loaded.
  await page.waitForSelector('#picture[data-ready="1"]');
  const loaded = await page.$eval('#picture', (img) => img.complete && img.naturalWidth);
  assert.equal(loaded, 5);
  await shot('01-tensor');
  // Hovering a pixel shows its index and value.
  const box = await page.locator('#picture').boundingBox();
  await page.mouse.move(box.x + 2, box.y + 2);
  await page.waitForFunction(() => !document.querySelector('#tip').hidden && /index/.test(document.querySelector('#tip').textContent));
  assert.match(await text('#tip'), /pixel \(0, 0\)[\s\S]*index \[0, 0, 0\][\s\S]*R 1\.7640524/);
  await shot('02-picture-hover');
  // The last value: the last leading index, End of the grid.
  await page.click('#last');
  await page.waitForFunction(() => /\[2, 3, 4\]/.test(document.querySelector('#grid-status').textContent));
  assert.match(await text('#grid-status'), /\[2, 3, 4\].*= -0\.36274117/);
  // Keyboard: up one row.
  await page.focus('#grid');
  await page.keyboard.press('ArrowUp');
  assert.match(await text('#grid-status'), /\[2, 2, 4\]/);
  await shot('03-tensor-last');
});

test('a model: click an initializer, page to its last value', async () => {
  await page.click('#files li[data-key="0/schemaless/sample/light_light_squeezenet.onnx"]');
  await page.waitForSelector('#summary');
  assert.match(await text('.crumbs .badge'), /onnx-model/);
  await page.waitForSelector('#initializers tr.click');
  await shot('04-model');
  // The biggest initializer.
  const sizes = await page.$$eval('#initializers tr.click td.num', (tds) => tds.map((td) => Number(td.textContent.replace(/,/g, ''))));
  const first = page.locator('#initializers tr.click').nth(sizes.indexOf(Math.max(...sizes)));
  const name = await first.getAttribute('data-tensor');
  await first.click();
  await page.waitForSelector('#grid td');
  assert.equal(await text('#tensor-head h2'), name);
  const count = Number((await text('#count')).replace(/\D/g, ''));
  assert.ok(count > 1);
  await page.click('#last');
  await page.waitForFunction((n) => document.querySelector('#grid-status').textContent.includes(`(flat ${n - 1})`), count);
  // The address names the file, the tensor and the element.
  assert.match(page.url(), /#f=.*&tab=tensor&t=\d+&at=\d+/);
  await shot('05-initializer-last');
  // The search box finds a node.
  await page.fill('#search', 'conv');
  await page.waitForSelector('#results .r');
  await shot('06-search');
  await page.fill('#search', '');
});

test('a bookmarked address opens the same tensor page', async () => {
  const addr = page.url();
  if (backend === 'static') {
    // The static page's files live in the page: its address opens the
    // same tensor page again in that page (another has no files).
    const hash = new URL(addr).hash;
    await page.evaluate(() => { location.hash = ''; });
    await page.waitForSelector('#welcome:not([hidden])');
    await page.evaluate((h) => { location.hash = h; }, hash);
    await page.waitForSelector('#grid td.sel');
    assert.match(await page.innerText('#grid-status'), /flat \d+/);
    return;
  }
  const p = await page.context().newPage();
  await p.goto(addr);
  await p.waitForSelector('#grid td.sel');
  assert.match(await p.innerText('#grid-status'), /flat \d+/);
  await p.close();
});

test('a malformed file shows the failed check, the field and the offset', async () => {
  await drop(path.join(fixtures, 'onnx-tensor', 'bad_truncated_raw.pb'));
  await page.waitForFunction(() => (document.querySelector('.crumbs .fname') || {}).textContent === 'bad_truncated_raw.pb');
  await page.waitForSelector('#error');
  const card = await text('#error');
  assert.match(card, /length check failed/);
  assert.match(card, /length 48 > 20 bytes left/);
  const offset = await page.getAttribute('#error [data-offset]', 'data-offset');
  assert.ok(Number(offset) >= 0);
  // The faulty byte is highlighted in the hex view.
  await page.waitForSelector(`#hex span.err[data-o="${offset}"]`);
  await shot('07-rejected');
});

test('the format selector re-reads the file and says why a format does not fit', async () => {
  await page.click('#files li[data-key="0/example_x_3x4x5.pb"]');
  await page.waitForSelector('#grid td');
  await page.selectOption('#as', 'onnx-model');
  await page.waitForSelector('#error');
  assert.match(await text('#error .big'), /Not onnx-model/);
  assert.match(await text('#error'), /check failed/);
  await shot('08-as-onnx-model');
  await page.selectOption('#as', 'protobuf');
  await page.waitForSelector('#field-tree .pf');
  assert.match(await text('.crumbs .badge'), /protobuf/);
});

test('schemaless: hovering a field highlights its bytes, hovering a byte its field', async () => {
  const field = page.locator('#field-tree .pf').first();
  await field.hover();
  await page.waitForSelector('#hex span.on');
  const on = await page.$$eval('#hex .bytes span.on', (s) => s.map((x) => x.dataset.o));
  assert.deepEqual(on, ['0', '1']);
  await shot('09-schemaless-field-hover');
  // The reverse: a byte of the raw floats (field 9) lights up that field.
  await page.hover('#hex .bytes span[data-o="20"]');
  await page.waitForFunction(() => /^9/.test((document.querySelector('#field-tree .pf.hot') || {}).textContent || ''));
  await shot('10-schemaless-byte-hover');
});

test('a dropped GraphDef lists its Const tensors, each openable', async () => {
  await drop(path.join(fixtures, 'tf', 'graph_all_forms.pb'));
  await page.waitForFunction(() => (document.querySelector('.crumbs .fname') || {}).textContent === 'graph_all_forms.pb');
  assert.match(await text('.crumbs .badge'), /tf-graph-def/);
  await page.waitForSelector('#tensor-table tr.click');
  await shot('11-graphdef');
  await page.locator('#tensor-table tr.click').first().click();
  await page.waitForSelector('#tensor-head');
  assert.ok(existsSync(path.join(shots, (backend === 'static' ? 'static-' : '') + '11-graphdef.png')));
});

// A file of a million tiny fields, made in the page and dropped: "hello",
// five messages of 100,000 one-byte varints each, then 500,000 more
// varints at the top level (2 MB). The field tree comes a page at a time:
// the DOM stays small whatever the file holds.
test('a million tiny fields: the first ones at once, a branch and more on demand', async () => {
  const domSize = () => page.evaluate(() => document.getElementsByTagName('*').length);
  await page.evaluate(() => {
    const nested = 100000, messages = 5, root = 500000;
    const body = new Uint8Array(nested * 2);
    for (let i = 0; i < nested; i++) { body[2 * i] = 0x08; body[2 * i + 1] = i % 100; }
    const len = [0x80 | (body.length & 0x7f), 0x80 | ((body.length >> 7) & 0x7f), body.length >> 14];
    const parts = [new Uint8Array([0x7a, 5, 104, 101, 108, 108, 111])];
    for (let m = 0; m < messages; m++) parts.push(new Uint8Array([0x72, ...len]), body);
    const tail = new Uint8Array(root * 2);
    for (let i = 0; i < root; i++) { tail[2 * i] = 0x78; tail[2 * i + 1] = i % 100; }
    parts.push(tail);
    const dt = new DataTransfer();
    dt.items.add(new File(parts, 'million_fields.pb'));
    document.querySelector('#main').dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  });
  await page.waitForFunction(() => (document.querySelector('.crumbs .fname') || {}).textContent === 'million_fields.pb', null, { timeout: 120000 });
  await page.waitForSelector('#field-tree .pf', { timeout: 120000 });
  assert.match(await text('.crumbs .badge'), /protobuf/);
  // The first fields, as the command line reads them.
  assert.equal(await text('#field-tree .pf'), '15 string = "hello"');
  const branches = page.locator('#field-tree > details');
  assert.equal(await branches.count(), 5);
  assert.match(await branches.first().locator('summary').innerText(), /14 message\s+100,000 fields/);
  // A bounded first answer: the root's first page, the first messages'
  // first pages, the last message left closed.
  assert.equal(await page.locator('#field-tree > .leaf').count(), 195);
  assert.match(await text('#field-tree > .more'), /show more \(499,806 left\)/);
  const last = branches.nth(4);
  assert.equal(await last.evaluate((d) => d.open), false);
  assert.equal(await last.locator('.pf').count(), 1);
  const first = await domSize();
  assert.ok(first < 20000, `${first} elements after opening`);
  await shot('12-million-fields');
  // Open the closed branch: its first page is fetched.
  await last.locator('summary').click();
  await page.waitForFunction(() => document.querySelectorAll('#field-tree > details:nth-of-type(5) > .leaf').length === 200);
  assert.equal(await last.locator(':scope > .leaf .pf').first().innerText(), '1 varint = 0');
  await last.locator('summary').evaluate((el) => el.scrollIntoView({ block: 'start' }));
  await shot('13-million-fields-branch');
  // Show more of it: the next page, after the first.
  assert.match(await last.locator(':scope > .more').innerText(), /show more \(99,800 left\)/);
  await last.locator(':scope > .more').click();
  await page.waitForFunction(() => document.querySelectorAll('#field-tree > details:nth-of-type(5) > .leaf').length === 400);
  assert.equal(await last.locator(':scope > .leaf .pf').nth(201).innerText(), '1 varint = 1  (sint -1)');
  assert.match(await last.locator(':scope > .more').innerText(), /show more \(99,600 left\)/);
  await last.locator(':scope > .more').evaluate((el) => el.scrollIntoView({ block: 'center' }));
  await shot('14-million-fields-more');
  // And more of the top level.
  await page.locator('#field-tree > .more').click();
  await page.waitForFunction(() => document.querySelectorAll('#field-tree > .leaf').length === 395);
  await page.locator('#field-tree > .more').evaluate((el) => el.scrollIntoView({ block: 'center' }));
  await shot('15-million-fields-root-more');
  const after = await domSize();
  assert.ok(after < 30000, `${after} elements after three more pages`);
  // The JSON tab shows the same tree, a page at a time.
  await page.click('.tabs button[data-tab="tree"]');
  await page.waitForSelector('#field-tree .pf');
  assert.equal(await page.locator('#field-tree > .leaf').count(), 195);
  await shot('16-million-fields-json-tab');
});

// The HTML report in headless Chromium (Debian's /usr/bin/chromium, driven by
// playwright-core). Builds a saved profile with counters and a machine file
// with round ceilings through the built rprof, renders report.html, then
// checks what a person would: the table lists and sorts the regions, the
// Roofline lab gives the seed's numbers, Step/Play leave the readouts alone,
// the what-if mode works, verdicts show with their reasons, nothing is
// fetched from the network; no two texts of a chart overlap and none leaves
// it (the sample report, the samples' own sim runs, an outlier, a recorded
// inst profile of 34 regions; tests/html/many), at 1000 and 1400 px, and the
// region table needs no sideways scroll there. Keeps report.png (full page),
// lab.png and the pages at both widths (also in $RPROF_SCREENSHOTS if set).
//
// Usage: node report.test.mjs RPROF DAXPY_SAMPLE WORK_DIR CHROMIUM
import { chromium } from 'playwright-core';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
// Screenshots also go here when set (for a person to look at).
const screens = process.env.RPROF_SCREENSHOTS || '';
if (screens) fs.mkdirSync(screens, { recursive: true });

const [rprof, daxpy, work, chromiumPath] = process.argv.slice(2);
const results = { passed: 0, failed: 0 };
const tests = [];
const test = (name, fn) => tests.push({ name, fn });
const close = (a, b, rel = 1e-6) => Math.abs(a - b) <= rel * Math.max(1, Math.abs(b));

// --- inputs: the recorded machine's file with round ceilings, a profile ----
function rprofRun(args) { return execFileSync(rprof, args, { cwd: work, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }); }
// The recorded machine run_html_test.sh names (never a calibration of this one).
const machine = JSON.parse(fs.readFileSync(process.env.RPROF_MACHINE_FILE, 'utf8'));
const PEAK = { scalar: 10, 128: 20, 256: 40, 512: 80 };  // DP GFLOP/s; SP twice
const BW = { l1: 400, l2: 200, llc: 100, dram: 20 };     // GB/s
for (const set of machine.ceilings) {
  for (const p of set.peaks) p.gflops = PEAK[p.width] * (p.precision === 'sp' ? 2 : 1) * (p.mix === 'fma' ? 1 : 0.5);
  for (const b of set.bandwidth) { b.gbs = BW[b.boundary]; b.traffic_gbs = BW[b.boundary]; }
}
const machineFile = path.join(work, 'machine.json');
fs.writeFileSync(machineFile, JSON.stringify(machine));

rprofRun(['-o', path.join(work, 'run'), '-q', daxpy, '1000', '3']);
const profile = JSON.parse(fs.readFileSync(path.join(work, 'run', 'profile.json'), 'utf8'));
const template = profile.regions.find((r) => r.name === 'daxpy');
const bytes = (l1, l2, llc, dram) => {
  const c = {};
  for (const [k, v] of Object.entries({ l1, l2, llc, dram })) {
    if (v) { c[`bytes.${k}.read`] = Math.round(v * 2 / 3); c[`bytes.${k}.write`] = v - Math.round(v * 2 / 3); }
  }
  return c;
};
// Regions: times (s), DP FLOPs at a width, bytes per boundary.
const REGIONS = {
  daxpy: { time: 1.5, flops: { 'flops.dp.256': 2e9 }, bytes: bytes(24e9, 24e9, 24e9, 24e9) },
  stencil_3d: { time: 0.6, flops: { 'flops.dp.256': 8e9 }, bytes: bytes(34e9, 10e9, 3e9, 1.5e9) },
  dgemm_blocked: { time: 0.9, flops: { 'flops.dp.256': 28e9 }, bytes: bytes(45e9, 4e9, 0.8e9, 0.1e9) },
  scalar_sum: { time: 0.4, flops: { 'flops.dp.scalar': 0.6e9 }, bytes: bytes(4.8e9, 4.8e9, 4.8e9, 4.6e9) },
};
for (const [name, spec] of Object.entries(REGIONS)) {
  let r = profile.regions.find((x) => x.name === name);
  if (!r) { r = structuredClone(template); r.name = name; r.path = [name]; profile.regions.push(r); }
  r.time_s = spec.time;
  r.exclusive_time_s = spec.time;
  r.counters = { ...spec.flops, ...spec.bytes };
  r.exclusive_counters = r.counters;
}
// A function region (the function view, docs/functions.md) that no cpu-clock
// sample hit: 2e6 FLOPs in less than one 1 ms period, so >= 2 GFLOP/s.
const FN_PATH = '[program]/void scale<double>(double*, int)';
{
  const r = structuredClone(template);
  Object.assign(r, { name: 'void scale<double>(double*, int)', path: ['[program]', 'void scale<double>(double*, int)'], calls: 0, time_s: 0, exclusive_time_s: 0, thread_time_s: 0 });
  r.counters = { 'flops.dp.scalar': 2e6, ...bytes(16e6, 16e6, 16e6, 8e6) };
  r.exclusive_counters = r.counters;
  r.function = { object: '/opt/app/bin/app', symbol: '_Z5scaleIdEvPT_i', source: '/src/app.cpp:12',
    inclusive_counters: { 'flops.dp.scalar': 3e6, ...bytes(16e6, 16e6, 16e6, 9e6) }, sampling: { samples: 0, period_s: 0.001, threads: 1 } };
  profile.regions.push(r);
}
profile.run.backend = 'sim';
profile.run.wall_time_s = 4.0;
profile.counters = [...new Set(profile.regions.flatMap((r) => Object.keys(r.counters)))].sort();
const profileFile = path.join(work, 'profile.json');
fs.writeFileSync(profileFile, JSON.stringify(profile));
const reportFile = path.join(work, 'report.html');
rprofRun(['report', profileFile, '--machine', machineFile, '--format', 'html', '-o', reportFile]);

// The same profile with a region whose DRAM count is a handful of bytes: an
// intensity (2e9 FLOPs / 64 bytes = 3.1e7 FLOP/byte) far outside the others.
{
  const r = structuredClone(profile.regions.find((x) => x.name === 'stencil_3d'));
  Object.assign(r, { name: 'cached', path: ['cached'] });
  r.counters = { 'flops.dp.256': 2e9, ...bytes(30e9, 2e9, 1e9, 64) };
  r.exclusive_counters = r.counters;
  const outlier = structuredClone(profile);
  outlier.regions.push(r);
  outlier.counters = [...new Set(outlier.regions.flatMap((x) => Object.keys(x.counters)))].sort();
  fs.writeFileSync(path.join(work, 'outlier.json'), JSON.stringify(outlier));
}
const outlierFile = path.join(work, 'outlier.html');
rprofRun(['report', path.join(work, 'outlier.json'), '--machine', machineFile, '--format', 'html', '-o', outlierFile]);
// A user program of many regions under the inst backend (functions, markers,
// loops; tests/html/many/README.md), held against the recorded machine's
// own ceilings: close roofs, close region dots.
const manyProfile = path.join(here, 'many', 'profile.json');
const manyFile = path.join(work, 'many.html');
rprofRun(['report', manyProfile, '--format', 'html', '-o', manyFile]);
const manySvg = path.join(work, 'many.svg');
rprofRun(['report', manyProfile, '--format', 'svg', '-o', manySvg]);

// --- the browser ------------------------------------------------------------
const userDir = fs.mkdtempSync(path.join(work, 'chromium-profile-'));
const context = await chromium.launchPersistentContext(userDir, {
  executablePath: chromiumPath,
  headless: true,
  viewport: { width: 1280, height: 900 },
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
const page = await context.newPage();
const requests = [], errors = [];
page.on('request', (r) => requests.push(r.url()));
page.on('pageerror', (e) => errors.push(e.message));
page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
const url = 'file://' + reportFile;
await page.goto(url);

const text = (id) => page.locator('#' + id).innerText();
const value = async (id) => Number(await page.locator('#' + id).getAttribute('data-value'));
const readouts = async () => Promise.all(['lab-bound', 'lab-ridge', 'lab-limit', 'lab-bwroof', 'lab-fraction'].map(text));
const inputs = async () => Promise.all(['lab-intensity', 'lab-bandwidth', 'lab-peak'].map((id) => page.locator('#' + id).inputValue()));
async function setLab(I, B) {
  await page.fill('#lab-intensity', String(I));
  await page.fill('#lab-bandwidth', String(B));
}

// Every drawn text of each chart matching `selector`, as the browser laid it
// out: its box (getBBox) turned into page coordinates by its transform, a
// quadrilateral (rotated labels stay rotated). Returns, per chart, the
// pairs of texts that overlap by more than 1 px and the texts that reach
// more than 1 px outside the chart's own box.
async function textCollisions(selector) {
  return page.locator(selector).evaluateAll((svgs) => svgs.map((svg) => {
    const quads = [];
    for (const t of svg.querySelectorAll('text')) {
      if (!t.textContent.trim() || !t.getClientRects().length) continue;
      const b = t.getBBox();
      if (!b.width) continue;
      const m = t.getScreenCTM();
      const pt = (x, y) => ({ x: m.a * x + m.c * y + m.e, y: m.b * x + m.d * y + m.f });
      quads.push({ text: t.textContent, c: [pt(b.x, b.y), pt(b.x + b.width, b.y), pt(b.x + b.width, b.y + b.height), pt(b.x, b.y + b.height)] });
    }
    // Separating axes: two convex quads overlap by more than `tol` px when
    // their projections on every edge normal overlap by more than tol.
    const tol = 1;
    const axes = (q) => q.c.map((p, i) => { const n = q.c[(i + 1) % 4]; const dx = n.x - p.x, dy = n.y - p.y, l = Math.hypot(dx, dy) || 1; return { x: -dy / l, y: dx / l }; });
    const span = (q, a) => { const v = q.c.map((p) => p.x * a.x + p.y * a.y); return [Math.min(...v), Math.max(...v)]; };
    const overlap = (p, q) => [...axes(p), ...axes(q)].every((a) => {
      const [p0, p1] = span(p, a), [q0, q1] = span(q, a);
      return Math.min(p1, q1) - Math.max(p0, q0) > tol;
    });
    const pairs = [];
    for (let i = 0; i < quads.length; ++i) {
      for (let j = i + 1; j < quads.length; ++j) if (overlap(quads[i], quads[j])) pairs.push([quads[i].text, quads[j].text]);
    }
    const sb = svg.getBoundingClientRect();
    const outside = quads.filter((q) => q.c.some((p) => p.x < sb.left - tol || p.x > sb.right + tol || p.y < sb.top - tol || p.y > sb.bottom + tol)).map((q) => q.text);
    return { role: svg.dataset.role || svg.id, texts: quads.length, pairs, outside };
  }));
}
async function assertNoCollisions(what, minCharts) {
  const charts = await textCollisions('svg[data-role="roofline-chart"], svg[data-role="bandwidth-chart"], svg#lab-chart');
  assert.ok(charts.length >= minCharts, `${what}: ${charts.length} charts`);
  for (const c of charts) {
    assert.ok(c.texts >= 3, `${what}: ${c.role} has ${c.texts} texts`);
    assert.ok(!c.pairs.length, `${what}: texts overlap in the ${c.role}: ${JSON.stringify(c.pairs)}`);
    assert.ok(!c.outside.length, `${what}: texts leave the ${c.role}: ${JSON.stringify(c.outside)}`);
  }
  return charts;
}
// The region table's box: its scroll width against the room it has.
async function tableOverflow() {
  return page.locator('#regions-table').evaluate((t) => {
    const w = t.closest('.table-wrap');
    return [w.scrollWidth, w.clientWidth];
  });
}
async function shoot(name) {
  const file = path.join(work, name);
  await page.screenshot({ path: file, fullPage: true });
  if (screens) fs.copyFileSync(file, path.join(screens, name));
}

test('the page opens offline: no request leaves the file, no script error', async () => {
  assert.deepEqual(errors, []);
  for (const u of requests) assert.ok(u.startsWith('file:') || u.startsWith('data:'), 'request to ' + u);
  assert.ok(await page.locator('svg[data-role="roofline-chart"]').count() === 1);
});

test('the bandwidth chart sits beside the roofline: GB/s per boundary against the roofs', async () => {
  const chart = page.locator('#bandwidth svg[data-role="bandwidth-chart"]');
  assert.equal(await chart.count(), 1);
  // daxpy: 24e9 bytes across DRAM in 1.5 s = 16 GB/s (GB = 1e9 bytes).
  const bar = chart.locator('rect[data-role="bandwidth-bar"][data-region="daxpy"][data-boundary="dram"]');
  assert.equal(await bar.count(), 1);
  assert.ok(Math.abs(Number(await bar.getAttribute('data-gbs')) - 16) < 1e-6);
  const roof = Number(await bar.getAttribute('data-roof-gbs'));
  const fraction = Number(await bar.getAttribute('data-fraction'));
  assert.ok(roof > 0);
  assert.ok(Math.abs(fraction - 16 / roof) < 1e-5 * Math.max(1, fraction));
});

test('the table lists every region, with units in the headings', async () => {
  const rows = await page.locator('#regions-body tr').evaluateAll((trs) => trs.map((t) => t.dataset.region));
  for (const name of ['[program]', 'init', ...Object.keys(REGIONS)]) assert.ok(rows.includes(name), name + ' missing from ' + rows);
  const heads = await page.locator('#regions-head th').allInnerTexts();
  for (const h of ['Time [s]', 'GFLOP/s', 'DRAM [GB]', 'Bound [GFLOP/s]', '% of bound']) assert.ok(heads.includes(h), h + ' not in ' + heads);
  const daxpyRow = page.locator('#regions-body tr[data-region="daxpy"]');
  assert.ok(close(Number(await daxpyRow.locator('td[data-col="gflops"]').getAttribute('data-value')), 2e9 / 1.5 / 1e9));
  assert.match(await daxpyRow.locator('td[data-col="limit"]').innerText(), /memory \(DRAM/);
  // The classifier's verdict, with its numbers (roofline/classify.h).
  assert.ok(await daxpyRow.locator('td[data-col="verdict"] .flag').count() >= 1);
  assert.match(await page.locator('tr[data-verdict-for="daxpy"]').innerText(), /memory-bound at DRAM/);
});

test('sorting by time puts the longest region first, then last', async () => {
  await page.click('th[data-col="time"]');
  const times = async () => page.locator('#regions-body td[data-col="time"]').evaluateAll((tds) => tds.map((t) => Number(t.dataset.value)));
  const desc = await times();
  assert.deepEqual(desc, [...desc].sort((a, b) => b - a));
  await page.click('th[data-col="time"]');
  const asc = await times();
  assert.deepEqual(asc, [...asc].sort((a, b) => a - b));
  assert.equal(await page.locator('th[data-col="time"]').getAttribute('aria-sort'), 'ascending');
});

test('a function region: where it is under its row; a time no sample hit as bounds', async () => {
  const row = page.locator(`#regions-body tr.function-row[data-function-for="${FN_PATH}"]`);
  const text = await row.innerText();
  assert.match(text, /function void scale<double>\(double\*, int\) · at \/src\/app\.cpp:12 · in \/opt\/app\/bin\/app/);
  assert.match(text, /self \(this row\): 0\.002 GFLOP, 0\.008 GB at DRAM; inclusive \(with callees\): 0\.003 GFLOP, 0\.009 GB at DRAM/);
  const fn = page.locator(`#regions-body tr[data-region="${FN_PATH}"]`);
  assert.equal(await fn.locator('td[data-col="time"]').innerText(), '< 0.001');
  assert.equal(await fn.locator('td[data-col="gflops"]').innerText(), '\u2265 2');
  assert.match(await fn.locator('td[data-col="fraction"]').innerText(), /^\u2265 /);
  assert.match(await page.locator(`tr[data-verdict-for="${FN_PATH}"]`).innerText(), /no cpu-clock sample hit it.*< 0\.001 s, >= 2 GFLOP\/s/);
  // The chart: the symbol in its data attributes, a hollow dot with an arrow up.
  const g = page.locator(`svg[data-role="roofline-chart"] g[data-role="region"][data-path="${FN_PATH}"]`);
  assert.equal(await g.getAttribute('data-symbol'), 'void scale<double>(double*, int)');
  assert.equal(await g.getAttribute('data-lower-bound'), 'true');
  assert.ok(close(Number(await g.getAttribute('data-gflops')), 2));
  assert.equal(await g.locator('[data-role="lower-bound"]').count(), 1);
  assert.deepEqual(errors, []);
});

test('lab: Reset, then I = 4 and B = 80 gives 320 GFLOP/s, ridge 12.5 FLOP/byte', async () => {
  await page.click('#lab-reset');
  assert.equal(await page.locator('#lab-peak').inputValue(), '1000');
  await setLab(4, 80);
  assert.equal(await text('lab-bound'), '320 GFLOP/s');
  assert.equal(await text('lab-ridge'), '12.5 FLOP/byte');
  assert.equal(await page.locator('#lab-limit').getAttribute('data-value'), 'memory');
  assert.ok(close(await value('lab-bound'), 320));
});

test('lab: Reset, then I = 16 and B = 80 gives 1000, compute-limited; bandwidth roof 1280', async () => {
  await page.click('#lab-reset');
  await setLab(16, 80);
  assert.equal(await text('lab-bound'), '1000 GFLOP/s');
  assert.match(await text('lab-limit'), /^compute/);
  assert.equal(await text('lab-bwroof'), '1280 GFLOP/s');
});

test('lab: Step and Play trace the roof and leave the parameters and readouts unchanged', async () => {
  const before = [await readouts(), await inputs()];
  const tracerI = async () => Number(await page.locator('#lab-tracer').getAttribute('data-i'));
  const seen = new Set();
  for (let k = 0; k < 3; ++k) { await page.click('#lab-step'); seen.add(await tracerI()); }
  assert.equal(seen.size, 3, 'Step moves the tracer');
  assert.deepEqual([await readouts(), await inputs()], before);
  await page.click('#lab-play');
  const t0 = await tracerI();
  await page.waitForTimeout(600);
  const t1 = await tracerI();
  assert.notEqual(t0, t1, 'Play moves the tracer');
  assert.deepEqual([await readouts(), await inputs()], before);
  await page.click('#lab-play');  // pause
  const t2 = await tracerI();
  await page.waitForTimeout(300);
  assert.equal(await tracerI(), t2, 'paused');
  assert.deepEqual([await readouts(), await inputs()], before);
  // The tracer sits on the roof: min(P, B * I).
  const roof = Number(await page.locator('#lab-tracer').getAttribute('data-roof'));
  assert.ok(close(roof, Math.min(1000, 80 * t2), 1e-9));
});

test('lab: the compute ceiling can be changed; nonsense values are refused', async () => {
  await page.fill('#lab-peak', '2000');
  assert.equal(await text('lab-bound'), '1280 GFLOP/s');
  assert.equal(await page.locator('#lab-limit').getAttribute('data-value'), 'memory');
  await page.fill('#lab-intensity', '-1');
  assert.match(await text('lab-error'), /positive number of FLOP\/byte/);
  assert.equal(await text('lab-bound'), '\u2014');
  await page.click('#lab-reset');
  assert.equal(await text('lab-error'), '');
  assert.equal(await page.locator('#lab-peak').inputValue(), '1000');
});

test('lab, this machine: seeded with a region; doubling bandwidth doubles a memory-bound bound', async () => {
  await page.check('#lab-mode-machine');
  const option = await page.locator('#lab-region option').evaluateAll((os) => os.find((o) => o.textContent.startsWith('daxpy ')).value);
  await page.selectOption('#lab-region', option);
  assert.equal(await page.locator('#lab-boundary').inputValue(), 'dram');
  // daxpy: 2e9 FLOPs / 24e9 bytes at DRAM, 20 GB/s, 256-bit roof 40 GFLOP/s.
  assert.equal(await page.locator('#lab-bandwidth').inputValue(), '20');
  assert.equal(await page.locator('#lab-peak').inputValue(), '40');
  const bound = await value('lab-bound');
  assert.ok(close(bound, 20 * 2 / 24));
  await page.click('#lab-whatif-peak');
  assert.ok(close(await value('lab-bound'), bound), 'more compute does not help a memory-bound region');
  assert.match(await text('lab-compare'), /does not raise the bound/);
  await page.click('#lab-whatif-bw');
  assert.ok(close(await value('lab-bound'), 2 * bound));
  assert.ok(close(await value('lab-compare'), 2));
  await page.selectOption('#lab-boundary', 'l1');
  assert.equal(await page.locator('#lab-bandwidth').inputValue(), '400');
  await page.click('#lab-reset');
  assert.equal(await page.locator('#lab-bandwidth').inputValue(), '400');
  await page.check('#lab-mode-seed');
  assert.equal(await page.locator('#lab-peak').inputValue(), '1000');
});

test('screenshots', async () => {
  await page.click('#lab-reset');
  await setLab(4, 80);
  await page.click('#lab-step');
  await page.screenshot({ path: path.join(work, 'report.png'), fullPage: true });
  await page.locator('#lab').screenshot({ path: path.join(work, 'lab.png') });
  await page.locator('#chart').screenshot({ path: path.join(work, 'chart.png') });
  assert.ok(fs.statSync(path.join(work, 'report.png')).size > 10000);
});

test('the region table fits a 1400 px window: no column cut off', async () => {
  await page.setViewportSize({ width: 1400, height: 900 });
  await page.goto(url);
  const [scroll, client] = await page.locator('#regions-table').evaluate((t) => {
    const w = t.closest('.table-wrap');
    return [w.scrollWidth, w.clientWidth];
  });
  assert.ok(scroll <= client, `table ${scroll} px wide in a ${client} px box`);
  for (const col of ['verdict', 'bytes-dram']) {
    const head = page.locator(`#regions-head th[data-col="${col}"]`);
    if (await head.count()) {
      const box = await head.boundingBox();
      assert.ok(box.x + box.width <= 1400, col + ' column cut off at ' + (box.x + box.width));
    }
  }
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(url);
});

test('verdicts show with their flags and reasons when the data has them', async () => {
  const html = fs.readFileSync(reportFile, 'utf8');
  const m = html.match(/(<script type="application\/json" id="rprof-data">)([^<]*)(<\/script>)/);
  const data = JSON.parse(m[2]);
  data.verdicts_available = true;
  const d = data.regions.find((r) => r.name === 'daxpy');
  d.verdict = { bound: 'memory', boundary: 'dram', fraction_of_roof: 0.5, at_roof: false, summary: 'memory-bound at DRAM', direction: 'move fewer bytes', flags: [{ name: 'latency-bound', reason: 'reason with 1.2 outstanding misses', direction: 'more misses in flight' }] };
  const file = path.join(work, 'verdicts.html');
  fs.writeFileSync(file, html.replace(m[0], m[1] + JSON.stringify(data).replace(/</g, '\\u003c') + m[3]));
  await page.goto('file://' + file);
  const cell = page.locator('#regions-body tr[data-verdict-for="daxpy"]');
  assert.match(await cell.innerText(), /memory-bound at DRAM/);
  assert.equal(await cell.locator('.flag').getAttribute('data-flag'), 'latency-bound');
  assert.equal(await page.locator('#regions-body tr[data-region="daxpy"] td[data-col="verdict"] .flag').getAttribute('data-flag'), 'latency-bound');
  assert.match(await cell.innerText(), /1\.2 outstanding misses/);
  assert.match(await cell.innerText(), /move fewer bytes/);
  assert.match(await cell.innerText(), /more misses in flight/);
  assert.deepEqual(errors, []);
});

test('no two texts of a chart overlap and none leaves it: the sample report at 1000 and 1400 px', async () => {
  for (const width of [1000, 1400]) {
    await page.setViewportSize({ width, height: 900 });
    await page.goto(url);
    const charts = await assertNoCollisions(`report at ${width} px`, 3);
    assert.deepEqual(charts.map((c) => c.role), ['roofline-chart', 'bandwidth-chart', 'lab-chart']);
    // The lab where the ridge and the selected bound meet (I = 16, I* = 12.5).
    await setLab(16, 80);
    await assertNoCollisions(`lab at I = 16, ${width} px`, 3);
    await page.check('#lab-mode-machine');
    await assertNoCollisions(`lab, this machine, ${width} px`, 3);
    await shoot(`sample-${width}.png`);
  }
  assert.deepEqual(errors, []);
});

// The samples themselves, run by the built rprof under the sim backend (as
// a new user would): their own reports, measured the same way.
const SAMPLE_RUNS = { matmul: ['64', '16'], nested: ['1'], daxpy: ['1000', '3'] };
test('the samples\' own reports (sim backend): no text collides at 1000 and 1400 px', async () => {
  const dir = path.dirname(daxpy);
  if (!fs.existsSync('/usr/bin/valgrind') || process.env.RPROF_TEST_SANITIZED) {
    console.log('     (not run: the sim backend needs valgrind and a build without sanitizers)');
    return;
  }
  let ran = 0;
  for (const [name, args] of Object.entries(SAMPLE_RUNS)) {
    const out = path.join(work, 'sample-' + name);
    rprofRun(['-q', '--backend=sim', '-o', out, path.join(dir, name), ...args]);
    for (const width of [1000, 1400]) {
      await page.setViewportSize({ width, height: 900 });
      await page.goto('file://' + path.join(out, 'report.html'));
      await assertNoCollisions(`${name} at ${width} px`, 2);
      const [scroll, client] = await tableOverflow();
      assert.ok(scroll <= client, `${name} at ${width} px: the table is ${scroll} px wide in a ${client} px box`);
      if (name === 'matmul') await shoot(`matmul-${width}.png`);
    }
    ++ran;
  }
  assert.equal(ran, 3);
  assert.deepEqual(errors, []);
});

test('an outlier sits at the edge, marked with its value, and does not set the axis', async () => {
  await page.setViewportSize({ width: 1400, height: 900 });
  await page.goto('file://' + outlierFile);
  const chart = page.locator('svg[data-role="roofline-chart"]');
  // 2e9 FLOPs over 64 bytes: 3.1e7 FLOP/byte; every other point is below 300.
  assert.ok(Number(await chart.getAttribute('data-x-max')) < 1e4, 'x axis ends at ' + await chart.getAttribute('data-x-max'));
  const mark = chart.locator('g[data-region="cached"] path[data-role="off-scale"][data-boundary="dram"]');
  assert.equal(await mark.count(), 1);
  assert.ok(close(Number(await mark.getAttribute('data-intensity')), 2e9 / 64));
  const dot = chart.locator('g[data-region="cached"] circle[data-boundary="dram"]');
  const right = await page.locator('svg[data-role="roofline-chart"] > rect[stroke]').first().evaluate((r) => r.x.baseVal.value + r.width.baseVal.value);
  assert.ok(Math.abs(Number(await dot.getAttribute('cx')) - right) < 0.5, 'the dot sits at the right edge');
  assert.match(await chart.locator('g[data-region="cached"] text[data-role="off-scale-label"]').textContent(), /3\.125e\+07|31250000/);
  await assertNoCollisions('outlier report', 3);
  await shoot('outlier-1400.png');
});

test('a profile of 25+ regions from the inst backend: no text collides, the table fits 1000 px', async () => {
  for (const width of [1000, 1400]) {
    await page.setViewportSize({ width, height: 900 });
    await page.goto('file://' + manyFile);
    // 34 regions; a region and its only child of the same counts and time
    // are one row (a marker around one loop: "dot_l1 = loop ..."), so fewer rows.
    const n = await page.locator('#regions-body tr[data-region]').count();
    assert.ok(n >= 15, n + ' rows');
    const names = await page.locator('#regions-body tr[data-region] td.name').allTextContents();
    assert.ok(names.some((t) => t.includes(' = ')), 'folded rows among ' + names);
    const kinds = await page.locator('#regions-body tr[data-region]').evaluateAll((trs) => trs.map((t) => t.dataset.region));
    assert.ok(kinds.some((k) => k.includes('/loop ')), 'loops among ' + kinds);
    assert.ok(kinds.some((k) => k.endsWith('()')), 'functions among ' + kinds);
    await shoot(`many-${width}.png`);
    await assertNoCollisions(`many regions at ${width} px`, 3);
    const [scroll, client] = await tableOverflow();
    assert.ok(scroll <= client, `at ${width} px the table is ${scroll} px wide in a ${client} px box`);
  }
  // Labels: every region either labelled or counted as unlabelled.
  const chart = page.locator('svg[data-role="roofline-chart"]');
  const named = await chart.locator('text[data-role="label"]').evaluateAll((ts) => ts.flatMap((t) => t.dataset.regions.split('|')));
  const unlabelled = await chart.locator('text[data-role="unlabelled"]').evaluateAll((ts) => ts.map((t) => Number(t.dataset.count)));
  const regions = await chart.locator('g[data-role="region"]').count();
  assert.equal(named.length + (unlabelled[0] || 0), regions);
  assert.equal(new Set(named).size, named.length, 'a region named by one label only');
  // Labels of regions of one name tell them apart.
  const texts = await chart.locator('text[data-role="label"]').allTextContents();
  const parts = texts.flatMap((t) => t.split(' / '));
  assert.equal(new Set(parts).size, parts.length, 'two labels read the same: ' + parts);
  assert.deepEqual(errors, []);
});

test('the SVG report of many regions: no text collides, none leaves it', async () => {
  await page.setViewportSize({ width: 1400, height: 900 });
  await page.goto('file://' + manySvg);
  await assertNoCollisions('many.svg', 1);
  // The picture through an HTML page (a screenshot of an SVG document waits
  // for fonts forever).
  const wrap = path.join(work, 'many-svg.html');
  fs.writeFileSync(wrap, '<!DOCTYPE html><body style="margin:0"><img src="many.svg">');
  await page.goto('file://' + wrap);
  await shoot('many-svg.png');
});

test('the sample report\'s region table fits 1000 px, the hidden columns come back', async () => {
  await page.setViewportSize({ width: 1000, height: 900 });
  await page.goto(url);
  const [scroll, client] = await tableOverflow();
  assert.ok(scroll <= client, `table ${scroll} px wide in a ${client} px box`);
  assert.equal(await page.locator('#regions-head th[data-col="excl"]').count(), 0, 'Excl. hidden at 1000 px');
  await page.click('details.columns summary');
  await page.check('#regions-columns input[data-col="excl"]');
  assert.equal(await page.locator('#regions-head th[data-col="excl"]').count(), 1, 'Excl. shown again');
  assert.equal(await page.locator('#regions-body tr[data-region="daxpy"] td').count(), await page.locator('#regions-head th').count());
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(url);
});

for (const t of tests) {
  try {
    await t.fn();
    results.passed++;
    console.log('ok   ' + t.name);
  } catch (e) {
    results.failed++;
    console.log('FAIL ' + t.name + '\n     ' + String(e.stack || e).split('\n').slice(0, 4).join('\n     '));
  }
}
await context.close();
fs.rmSync(userDir, { recursive: true, force: true });
console.log('screenshot: ' + path.join(work, 'report.png'));
console.log(`${results.passed} passed, ${results.failed} failed`);
process.exit(results.failed ? 1 : 0);

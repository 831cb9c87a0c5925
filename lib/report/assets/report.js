// rprof report: renders the run summary, the sortable region table (with
// verdicts when present), the conventions and the ceilings from the JSON
// block #rprof-data. Shared helpers go on window.rprof for lab.js.
'use strict';
(function () {
  const data = JSON.parse(document.getElementById('rprof-data').textContent);
  const BOUNDARIES = ['l1', 'l2', 'llc', 'dram'];
  const BNAME = { l1: 'L1', l2: 'L2', llc: 'LLC', dram: 'DRAM' };

  // Numbers for people: 4 significant digits, trailing zeros trimmed, no
  // exponent between 1e-4 and 1e7 (as human_number() in chart_scale.cpp).
  function num(v) {
    if (v === null || v === undefined || !isFinite(v)) return 'n/a';
    if (v === 0) return '0';
    const a = Math.abs(v);
    if (a < 1e-4 || a >= 1e7) return v.toExponential(3);
    const digits = Math.max(0, 3 - Math.floor(Math.log10(a)));
    let s = v.toFixed(digits);
    if (s.indexOf('.') >= 0) s = s.replace(/0+$/, '').replace(/\.$/, '');
    return s;
  }
  function el(tag, attrs, ...kids) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined) continue;
      if (k === 'class') e.className = v; else if (k === 'text') e.textContent = v; else e.setAttribute(k, v);
    }
    for (const k of kids) if (k !== null && k !== undefined) e.append(k);
    return e;
  }
  // Text with a line-break opportunity after each _ / : . and before each (,
  // so that a long name ("loop kernels_main.c:42") wraps in a narrow column.
  function breakable(text) {
    const out = [];
    for (const part of text.split(/(?<=[_/:.])|(?=\()/)) { if (out.length) out.push(el('wbr')); out.push(part); }
    return out;
  }
  function plural(n, w) { return n + ' ' + w + (n === 1 ? '' : 's'); }
  window.rprof = { data, num, el, BOUNDARIES, BNAME };

  // --- summary ---------------------------------------------------------
  const run = data.run;
  const status = (run.failure ? 'FAILED: ' + run.failure + ' \u00b7 ' : '') +
      (run.signal ? 'killed by signal ' + run.signal : 'exit status ' + run.exit_code);
  document.getElementById('run-summary').textContent = [
    'backend ' + run.backend,
    // A run without marker data (a function view without markers) counts none.
    run.processes > 0 ? run.processes + (run.processes === 1 ? ' process' : ' processes') : 'no markers',
    run.processes > 0 ? plural(run.threads, 'thread') + ' with markers' : null,
    run.wall_time_s > 0 ? 'wall time ' + num(run.wall_time_s) + ' s' : null,
    status,
  ].filter(Boolean).join(' \u00b7 ');

  // --- region table ----------------------------------------------------
  const regions = data.regions;
  const measured = BOUNDARIES.filter((b) => regions.some((r) => r.bytes[b] !== undefined));
  const anyFlops = regions.some((r) => r.flops !== null);
  const anyRoof = regions.some((r) => r.roofline);
  const anyVerdict = regions.some((r) => r.verdict);
  const anyShare = regions.some((r) => r.percent_of_run !== null);
  const limitingI = (r) => (r.roofline && r.roofline.limiting ? r.intensity[r.roofline.limiting] : null);
  // Columns: key, heading (with unit), value for sorting, cell renderer.
  const cols = [
    { key: 'number', head: '#', val: (r) => r.number },
    { key: 'region', head: 'Region', cls: 'name', val: (r) => r.path.toLowerCase(),
      cell: (r) => el('span', { title: r.path, style: 'display:block;padding-left:' + r.depth + 'em' }, ...breakable(r.label || r.name)) },
    { key: 'calls', head: 'Calls', optional: true, val: (r) => r.calls },
    // A function no sample hit: its time from above (time_bound), its rates from below.
    { key: 'time', head: 'Time [s]', val: (r) => (r.time_bound ? r.time_bound.max_time_s : r.time_s),
      cell: (r) => (r.time_bound ? el('span', { class: 'bound', title: r.time_bound.why, text: '< ' + num(r.time_bound.max_time_s) }) : num(r.time_s)) },
    { key: 'excl', head: 'Excl. [s]', optional: true, val: (r) => (r.time_bound ? r.time_bound.max_time_s : r.exclusive_time_s),
      cell: (r) => (r.time_bound ? el('span', { class: 'bound', text: '< ' + num(r.time_bound.max_time_s) }) : num(r.exclusive_time_s)) },
  ];
  // --repeat N: the time over the timed runs; spread = (max - min) / median.
  if (regions.some((r) => r.repeat_times)) {
    cols.push({ key: 'median', head: 'Median [s]', optional: true, val: (r) => (r.repeat_times ? r.repeat_times.median_time_s : null),
      cell: (r) => (r.repeat_times ? num(r.repeat_times.median_time_s) : '') });
    cols.push({ key: 'spread', head: 'Spread [%]', val: (r) => (r.repeat_times ? r.repeat_times.spread : null),
      cell: (r) => (r.repeat_times ? el('span', { title: 'min ' + num(r.repeat_times.min_time_s) + ' s, max ' + num(r.repeat_times.max_time_s) + ' s over ' + r.repeat_times.runs + ' timed runs; (max - min) / median', text: num(100 * r.repeat_times.spread) }) : '') });
  }
  if (anyShare) {
    cols.push({ key: 'share', head: '% of run', val: (r) => r.percent_of_run,
      cell: (r) => el('span', {}, num(r.percent_of_run),
        el('span', { class: 'bar', style: 'width:' + Math.round(Math.min(100, r.percent_of_run) * 0.4) + 'px' })) });
  }
  if (anyFlops) {
    cols.push({ key: 'gflop', head: 'GFLOP', optional: true, val: (r) => (r.flops === null ? null : r.flops / 1e9) });
    cols.push({ key: 'gflops', head: 'GFLOP/s', val: (r) => (r.time_bound ? r.time_bound.min_gflops : r.gflops),
      cell: (r) => (r.time_bound ? (r.time_bound.min_gflops === null ? null : el('span', { class: 'bound', title: r.time_bound.why, text: '\u2265 ' + num(r.time_bound.min_gflops) })) : (r.gflops === null ? null : num(r.gflops))) });
  }
  if (anyRoof) {
    cols.push({ key: 'bound', head: 'Bound [GFLOP/s]', optional: true, val: (r) => (r.roofline ? r.roofline.bound_gflops : null),
      cell: (r) => (r.roofline ? el('span', { title: 'roof: ' + r.roofline.roof_label + ', ' + num(r.roofline.roof_gflops) + ' GFLOP/s' }, num(r.roofline.bound_gflops)) : null) });
    cols.push({ key: 'fraction', head: '% of bound', val: (r) => (r.roofline ? 100 * r.roofline.fraction_of_bound : null),
      cell: (r) => (!r.roofline ? null : r.roofline.uncertain
        ? el('span', { class: 'bound', 'data-uncertain': 'true', title: r.time_samples ? r.time_samples.why : '', text: '~' + num(100 * r.roofline.fraction_of_bound) + ' (uncertain)' })
        : (r.roofline.lower_bound ? '\u2265 ' : '') + num(100 * r.roofline.fraction_of_bound)) });
    cols.push({ key: 'limit', head: 'Limited by', cls: 'left',
      val: (r) => (r.roofline ? (r.roofline.limited_by === 'compute' ? 'compute' : 'memory ' + BNAME[r.roofline.limiting]) : null),
      cell: (r) => {
        if (!r.roofline) return null;
        if (r.roofline.limited_by === 'compute') return el('span', { text: 'compute' });
        const b = r.roofline.limiting;
        return el('span', { title: 'I at ' + BNAME[b] + ' = ' + num(limitingI(r)) + ' FLOP/byte' },
          el('span', { class: 'swatch', style: 'background:var(--' + b + ')' }), 'memory (' + BNAME[b] + ')');
      } });
  }
  // Verdicts: the bound and the flags in a column; the sentences (summary,
  // reasons, directions) in a full-width row under the region.
  if (anyVerdict) {
    cols.push({ key: 'verdict', head: 'Flags', cls: 'left', val: (r) => (r.verdict ? r.verdict.flags.length + (r.verdict.at_roof ? 0.5 : 0) : null),
      cell: (r) => {
        if (!r.verdict) return null;
        const box = el('span', { text: r.verdict.at_roof ? 'at the roof \u2714' : '' });
        for (const f of r.verdict.flags) box.append(el('span', { class: 'flag', title: f.reason, 'data-flag': f.name, text: f.name }));
        return box;
      } });
  }
  function verdictRow(r, span) {
    const v = r.verdict;
    const box = el('div', { 'data-testid': 'verdict' }, el('div', { class: 'summary', text: v.summary }));
    if (v.direction) box.append(el('div', { class: 'reason', text: '\u2192 ' + v.direction }));
    for (const f of v.flags) {
      box.append(el('div', { class: 'reason' }, el('span', { class: 'flag', 'data-flag': f.name, text: f.name }),
        ' ' + f.reason + (f.direction ? ' \u2192 ' + f.direction : '')));
    }
    return el('tr', { class: 'verdict-row', 'data-verdict-for': r.path }, el('td', { colspan: span }, box));
  }
  // A function region (the function view): where the function is, and its
  // inclusive counts (with its callees) beside the row's self counts.
  function functionRow(r, span) {
    const f = r.function;
    const where = [f.symbol ? 'function ' + f.symbol : 'code without a symbol', f.source ? 'at ' + f.source : 'no debug info', 'in ' + f.object].join(' \u00b7 ');
    const counts = 'self (this row): ' + (r.flops === null ? 'n/a' : num(r.flops / 1e9)) + ' GFLOP, ' + (r.bytes.dram === undefined ? 'n/a' : num(r.bytes.dram / 1e9)) + ' GB at DRAM; inclusive (with callees): ' +
      (f.inclusive_flops === null ? 'n/a' : num(f.inclusive_flops / 1e9)) + ' GFLOP, ' + (f.inclusive_dram_bytes === null ? 'n/a' : num(f.inclusive_dram_bytes / 1e9)) + ' GB at DRAM';
    // A sampled time: its samples and relative error; uncertain below the threshold.
    const s = r.time_samples;
    const sampled = s ? el('div', { class: 'reason', 'data-testid': 'samples', 'data-samples': s.samples, 'data-uncertain': s.uncertain ? 'true' : 'false', title: s.why,
      text: 'time from ' + plural(s.samples, 'cpu-clock sample') + ' (\u00b1' + num(100 * s.relative_error) + '%)' + (s.uncertain ? ': uncertain, no bound claimed' : '') }) : null;
    const box = el('div', { 'data-testid': 'function' }, el('div', { class: 'summary', 'data-symbol': f.symbol, 'data-source': f.source, text: where }), el('div', { class: 'reason', text: counts }), sampled);
    return el('tr', { class: 'function-row', 'data-function-for': r.path }, el('td', { colspan: span }, box));
  }
  // Bytes per boundary, the intensity there in the tooltip; intensity
  // columns of their own only when there is no roofline to show it.
  for (const b of measured) {
    cols.push({ key: 'bytes-' + b, head: BNAME[b] + ' [GB]', cls: 'wrap', val: (r) => (r.bytes[b] === undefined ? null : r.bytes[b] / 1e9),
      cell: (r) => {
        if (r.bytes[b] === undefined) return null;
        const i = r.intensity[b] === undefined ? null : 'I at ' + BNAME[b] + ' = ' + num(r.intensity[b]) + ' FLOP/byte';
        // A sampled estimate: the bytes with the half-width of their 95% interval.
        const s = r.sampled_traffic && r.sampled_traffic[b];
        if (!s) return el('span', { title: i }, num(r.bytes[b] / 1e9));
        const iv = s.intensity_low === null ? '' : '; I ' + num(s.intensity_low) + ' to ' + (s.intensity_high === null ? 'unbounded' : num(s.intensity_high)) + ' FLOP/byte';
        return el('span', { 'data-testid': 'sampled-bytes', 'data-boundary': b, 'data-ci95-bytes': s.ci95_bytes,
          title: BNAME[b] + ' ' + num(s.bytes / 1e9) + ' GB \u00b1 ' + num(s.ci95_bytes / 1e9) + ' GB (95% interval, sampled: ' + plural(Math.round(s.sampling_units), 'unit') + ')' + iv },
          num(r.bytes[b] / 1e9), ' ', el('span', { class: 'pm', text: '\u00b1\u00a0' + num(s.ci95_bytes / 1e9) }));
      } });
  }
  for (const b of measured) {
    if (anyFlops && !anyRoof) cols.push({ key: 'i-' + b, head: 'I ' + BNAME[b] + ' [FLOP/byte]', optional: true, val: (r) => (r.intensity[b] === undefined ? null : r.intensity[b]) });
  }
  document.getElementById('verdict-note').textContent = anyVerdict ? ''
    : data.verdicts_available ? 'No region has a verdict.' : 'Verdicts are not computed by this build of rprof.';

  // Columns a narrow window hides at first (the chooser shows them again):
  // the table then fits without scrolling sideways.
  const hidden = new Set(window.innerWidth < 1200 ? cols.filter((c) => c.optional).map((c) => c.key) : []);
  const shown = () => cols.filter((c) => !hidden.has(c.key));
  const chooser = document.getElementById('regions-columns');
  for (const c of cols) {
    if (c.key === 'number' || c.key === 'region') continue;
    const box = el('input', { type: 'checkbox', 'data-col': c.key });
    box.checked = !hidden.has(c.key);
    box.addEventListener('change', () => { if (box.checked) hidden.delete(c.key); else hidden.add(c.key); heading(); render(); });
    chooser.append(el('label', {}, box, c.head));
  }
  const head = document.getElementById('regions-head');
  const body = document.getElementById('regions-body');
  let sortKey = 'number', sortDir = 1;
  function render() {
    const col = cols.find((c) => c.key === sortKey);
    const rows = regions.slice().sort((a, b) => {
      const x = col.val(a), y = col.val(b);
      if (x === null && y === null) return a.number - b.number;
      if (x === null) return 1;  // unknown values last, either direction
      if (y === null) return -1;
      if (x < y) return -sortDir;
      if (x > y) return sortDir;
      return a.number - b.number;
    });
    body.replaceChildren();
    for (const r of rows) {
      const tr = el('tr', { 'data-region': r.path, 'data-number': r.number });
      for (const c of shown()) {
        const v = c.val(r);
        const content = c.cell ? c.cell(r) : (v === null ? null : (typeof v === 'number' ? num(v) : v));
        const td = el('td', { class: c.cls || null, 'data-col': c.key, 'data-value': v === null ? null : v });
        if (content === null || content === undefined) { td.textContent = '\u2013'; td.classList.add('dim'); } else td.append(content);
        tr.append(td);
      }
      body.append(tr);
      if (r.function) body.append(functionRow(r, shown().length));
      if (r.verdict) body.append(verdictRow(r, shown().length));
    }
    for (const th of head.children) {
      th.setAttribute('aria-sort', th.dataset.col === sortKey ? (sortDir > 0 ? 'ascending' : 'descending') : 'none');
    }
  }
  function heading() {
    head.replaceChildren();
    for (const c of shown()) {
      const th = el('th', { class: c.cls || null, 'data-col': c.key, 'data-testid': 'sort-' + c.key, scope: 'col', text: c.head });
      th.addEventListener('click', () => {
        if (sortKey === c.key) sortDir = -sortDir;
        else { sortKey = c.key; sortDir = c.key === 'number' || c.key === 'region' ? 1 : -1; }
        render();
      });
      head.append(th);
    }
  }
  heading();
  render();
  const notes = document.getElementById('region-notes');
  for (const r of regions) for (const n of r.notes) notes.append(el('div', { text: r.path + ': ' + n }));
  for (const n of data.notes) notes.append(el('div', { text: n }));
  for (const e of data.marker_errors) {
    notes.append(el('div', { text: 'marker error ' + e.kind + ' "' + e.got + '"' + (e.expected ? ' (open: "' + e.expected + '")' : '') + ': ' + plural(e.count, 'time') }));
  }

  // --- conventions and ceilings ---------------------------------------
  const dl = document.getElementById('conventions-list');
  const c = data.conventions;
  const m = data.machine;
  const roofThreads = regions.filter((r) => r.roofline).map((r) => r.roofline.threads);
  const entries = [
    ['Command', run.command.length ? run.command.join(' ') : '(saved profile)'],
    ['Backend', run.backend + (run.backend === 'time' ? ' (timing only: no FLOPs or bytes)' : '')],
    ['Threads', plural(run.threads, 'thread') + ' ran markers' + (roofThreads.length ? '; the chart uses ceilings measured with ' + plural(m ? m.chart_threads : 0, 'thread') + '; each region in the table is held against the ceilings measured with the thread count nearest its own' : '')],
    ['FLOP rule', c.flops],
    ['Bytes', c.bytes],
    ['Boundaries', BOUNDARIES.map((b) => BNAME[b] + ' = ' + c.boundaries[b]).join('; ')],
    ['Intensity', c.intensity],
    ...(c.sampled ? [['Sampled traffic', c.sampled]] : []),
    ['Bound', c.bound],
    ['Time', c.time],
    ['Machine', m ? m.cpu + ' (' + m.mode + ' calibration' + (m.created_unix_s ? ', ' + new Date(m.created_unix_s * 1000).toISOString().slice(0, 10) : '') + '; ceilings for ' + m.thread_counts.map((t) => plural(t, 'thread')).join(', ') + ')' : 'no machine ceilings (run rprof machine)'],
    ['Machine file', m ? m.file : '\u2013'],
  ];
  if (m && m.notes.length) entries.push(['Machine notes', m.notes.join('; ')]);
  for (const [k, v] of entries) { dl.append(el('dt', { text: k })); dl.append(el('dd', { text: v })); }
  const cl = document.getElementById('ceilings-list');
  if (!m) {
    cl.append(el('p', { class: 'muted', text: 'No ceilings: the roofline needs a machine file (rprof machine).' }));
  } else {
    const t = el('table', { class: 'ceilings' }, el('thead', {}, el('tr', {}, el('th', { text: 'Ceiling' }), el('th', { text: 'Value' }), el('th', { text: 'How it was measured' }))));
    const tb = el('tbody');
    for (const r of m.roofs) tb.append(el('tr', { 'data-ceiling': r.label }, el('td', { text: 'compute ' + r.label + (r.applied ? ' (applied)' : ' (full roof)') }), el('td', { text: num(r.gflops) + ' GFLOP/s' }), el('td', { text: r.how || '\u2013' })));
    for (const b of m.bandwidths) tb.append(el('tr', { 'data-ceiling': b.boundary }, el('td', {}, el('span', { class: 'swatch', style: 'background:var(--' + b.boundary + ')' }), 'bandwidth ' + BNAME[b.boundary]), el('td', { text: num(b.gbs) + ' GB/s' }), el('td', { text: b.kernel + ' kernel; ' + b.how })));
    t.append(tb);
    cl.append(t);
  }
})();

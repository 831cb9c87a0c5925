// The Roofline lab (the seeds' instrument): bound = min(P, B * I), ridge
// I* = P / B. Two modes: a hypothetical machine whose compute ceiling is
// 1000 GFLOP/s unless changed, and this machine's ceilings seeded with a
// region's numbers for what-if questions. Step/Play move a tracer along the
// roof; they never touch the selected I, B, P or the readouts.
'use strict';
(function () {
  const { data, num, BNAME } = window.rprof;
  const SVGNS = 'http://www.w3.org/2000/svg';
  // Reset: the first seed's worked example, daxpy (2 FLOPs per 24 bytes)
  // on P = 1000 GFLOP/s, B = 100 GB/s.
  const DEFAULTS = { I: 2 / 24, B: 100, P: 1000 };
  const TRACE_STEPS = 60;  // positions along the roof, across the x domain
  const $ = (id) => document.getElementById(id);
  const inputs = { I: $('lab-intensity'), B: $('lab-bandwidth'), P: $('lab-peak') };
  const ranges = { I: $('lab-intensity-range'), B: $('lab-bandwidth-range'), P: $('lab-peak-range') };
  const what = { I: 'Intensity I must be a positive number of FLOP/byte',
    B: 'Bandwidth B must be a positive number of GB/s', P: 'Compute ceiling P must be a positive number of GFLOP/s' };
  const state = { mode: 'seed', I: DEFAULTS.I, B: DEFAULTS.B, P: DEFAULTS.P, valid: true,
    seedSaved: null, seeded: null, traceIndex: 0, timer: null, domain: null };
  const candidates = data.regions.filter((r) => r.roofline && r.gflops);

  function compute(P, B, I) {
    const bwRoof = B * I;
    const ridge = P / B;
    return { bwRoof, ridge, bound: Math.min(P, bwRoof), memory: I < ridge };
  }
  function setOut(id, text, value) { const o = $(id); o.textContent = text; if (value !== undefined) o.dataset.value = value; }
  function syncInputs() {
    for (const k of ['I', 'B', 'P']) {
      inputs[k].value = num(state[k]);
      ranges[k].value = Math.log10(state[k]);
    }
  }

  function readouts() {
    if (!state.valid) {
      for (const id of ['lab-bound', 'lab-ridge', 'lab-limit', 'lab-bwroof', 'lab-fraction']) setOut(id, '\u2014', '');
      return;
    }
    const r = compute(state.P, state.B, state.I);
    setOut('lab-bound', num(r.bound) + ' GFLOP/s', r.bound);
    setOut('lab-ridge', num(r.ridge) + ' FLOP/byte', r.ridge);
    setOut('lab-limit', r.memory ? 'memory bandwidth (I < I*)' : 'compute (I \u2265 I*)', r.memory ? 'memory' : 'compute');
    setOut('lab-bwroof', num(r.bwRoof) + ' GFLOP/s', r.bwRoof);
    setOut('lab-fraction', num(100 * r.bound / state.P) + ' % of P', r.bound / state.P);
    const row = $('lab-compare-row');
    row.hidden = state.mode !== 'machine' || !state.seeded;
    if (!row.hidden) {
      const s = state.seeded;
      const base = compute(s.P, s.B, s.I);
      const ratio = r.bound / base.bound;
      let t = 'measured ' + num(s.measured) + ' GFLOP/s; bound ' + num(base.bound) + ' \u2192 ' + num(r.bound) +
        ' GFLOP/s (\u00d7' + num(ratio) + '); measured is ' + num(100 * s.measured / r.bound) + ' % of it';
      if (ratio === 1 && (state.B !== s.B || state.P !== s.P)) t += ' \u2014 this change does not raise the bound';
      setOut('lab-compare', t, ratio);
    }
  }

  // --- chart ---------------------------------------------------------
  const W = 560, H = 360, L = 58, R = 16, T = 16, B = 44;
  function svg(tag, attrs, text) {
    const e = document.createElementNS(SVGNS, tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function domainFor() {
    const r = compute(state.P, state.B, state.I);
    const xs = [state.I, r.ridge], ys = [state.P, r.bound];
    if (state.mode === 'machine' && state.seeded) { ys.push(state.seeded.measured); xs.push(state.seeded.I); }
    const lg = Math.log10;
    const x0 = Math.floor(lg(Math.min(...xs))) - 1, x1 = Math.ceil(lg(Math.max(...xs))) + 1;
    const y1 = Math.ceil(lg(Math.max(...ys) * 2));
    const y0 = Math.min(Math.floor(lg(Math.min(...ys))) - 1, y1 - 3);
    return { x0, x1, y0, y1 };
  }
  function draw() {
    const chart = $('lab-chart');
    chart.replaceChildren();
    if (!state.valid) { chart.append(svg('text', { x: W / 2, y: H / 2, 'text-anchor': 'middle' }, 'Enter positive numbers for I, B and P.')); return; }
    const d = state.domain = domainFor();
    const X = (v) => L + (Math.log10(v) - d.x0) / (d.x1 - d.x0) * (W - L - R);
    const Y = (v) => H - B - (Math.log10(v) - d.y0) / (d.y1 - d.y0) * (H - T - B);
    const lo = Math.pow(10, d.x0), hi = Math.pow(10, d.x1), ylo = Math.pow(10, d.y0), yhi = Math.pow(10, d.y1);
    const clip = svg('clipPath', { id: 'lab-clip' });
    clip.append(svg('rect', { x: L, y: T, width: W - L - R, height: H - T - B }));
    const defs = svg('defs', {});
    defs.append(clip);
    chart.append(defs);
    // Labels: each at the first of its places that is inside the chart and
    // clear of those placed before; none free, it is left out (the readouts
    // say the same numbers).
    const placed = [];
    const inside = (b, x0, y0, x1, y1) => b.x >= x0 && b.y >= y0 && b.x + b.width <= x1 && b.y + b.height <= y1;
    const clear = (b) => placed.every((o) => b.x + b.width <= o.x || o.x + o.width <= b.x || b.y + b.height <= o.y || o.y + o.height <= b.y);
    function label(attrs, text, places, area) {
      const [x0, y0, x1, y1] = area || [L, T, W - R, H - B];
      const t = svg('text', Object.assign({}, attrs, places[0]), text);
      chart.append(t);
      for (const at of places) {
        for (const [k, v] of Object.entries(at)) t.setAttribute(k, v);
        const b = t.getBBox();
        if (!b.width) return t;  // not laid out (hidden): nothing to measure
        if (inside(b, x0, y0, x1, y1) && clear(b)) { placed.push(b); return t; }
      }
      t.remove();
      return null;
    }
    for (let k = d.x0; k <= d.x1; ++k) {
      chart.append(svg('line', { x1: X(10 ** k), x2: X(10 ** k), y1: T, y2: H - B, stroke: '#e3e7ec' }));
      label({ 'text-anchor': 'middle' }, num(10 ** k), [{ x: X(10 ** k), y: H - B + 16 }], [0, 0, W, H]);
    }
    for (let k = d.y0; k <= d.y1; ++k) {
      chart.append(svg('line', { x1: L, x2: W - R, y1: Y(10 ** k), y2: Y(10 ** k), stroke: '#e3e7ec' }));
      label({ 'text-anchor': 'end' }, num(10 ** k), [{ x: L - 6, y: Y(10 ** k) + 4 }], [0, 0, W, H]);
    }
    label({ 'text-anchor': 'middle' }, 'Intensity I [FLOP/byte]', [{ x: (L + W - R) / 2, y: H - 8 }], [0, 0, W, H]);
    chart.append(svg('text', { x: 14, y: (T + H - B) / 2, 'text-anchor': 'middle', transform: 'rotate(-90 14 ' + (T + H - B) / 2 + ')' }, 'GFLOP/s'));
    const g = svg('g', { 'clip-path': 'url(#lab-clip)' });
    chart.append(g);
    const r = compute(state.P, state.B, state.I);
    if (state.mode === 'machine' && state.seeded && (state.seeded.B !== state.B || state.seeded.P !== state.P)) {
      const s = state.seeded, sr = s.P / s.B;  // the machine's roof before the what-if
      g.append(svg('polyline', { points: [X(lo), Y(s.B * lo), X(sr), Y(s.P), X(hi), Y(s.P)].join(' '), fill: 'none', stroke: '#aab2bd', 'stroke-width': 2, 'stroke-dasharray': '2 3', 'data-role': 'seeded-roof' }));
    }
    // Each roof continues (dashed) where the other one is lower.
    g.append(svg('line', { x1: X(lo), y1: Y(state.B * lo), x2: X(hi), y2: Y(state.B * hi), stroke: '#e0552b', 'stroke-width': 1.2, 'stroke-dasharray': '5 4', opacity: 0.6 }));
    g.append(svg('line', { x1: X(lo), y1: Y(state.P), x2: X(hi), y2: Y(state.P), stroke: '#1f2328', 'stroke-width': 1.2, 'stroke-dasharray': '5 4', opacity: 0.5 }));
    g.append(svg('polyline', { points: [X(lo), Y(state.B * lo), X(r.ridge), Y(state.P), X(hi), Y(state.P)].join(' '), fill: 'none', stroke: '#3a6fd8', 'stroke-width': 3, 'data-role': 'roof' }));
    chart.append(svg('path', { d: 'M' + X(r.ridge) + ' ' + (Y(state.P) - 6) + 'l6 6-6 6-6-6z', fill: '#fff', stroke: '#3a6fd8', 'stroke-width': 2, 'data-role': 'ridge' }));
    // The selected kernel: its intensity and its bound.
    g.append(svg('line', { x1: X(state.I), x2: X(state.I), y1: H - B, y2: Y(Math.max(r.bound, ylo)), stroke: '#5b6470', 'stroke-dasharray': '2 3' }));
    if (r.bwRoof > state.P && r.bwRoof < yhi) g.append(svg('circle', { cx: X(state.I), cy: Y(r.bwRoof), r: 4, fill: '#fff', stroke: '#e0552b', 'stroke-width': 1.5 }));
    chart.append(svg('circle', { cx: X(state.I), cy: Y(r.bound), r: 6.5, fill: '#3a6fd8', stroke: '#fff', 'stroke-width': 2, 'data-role': 'selected' }));
    if (state.mode === 'machine' && state.seeded) {
      chart.append(svg('path', { d: 'M' + X(state.I) + ' ' + (Y(state.seeded.measured) - 6) + 'l6 6-6 6-6-6z', fill: '#0f8b8d', stroke: '#fff', 'data-role': 'measured' }));
    }
    // Around a point: right, left, below, above, then further out.
    const around = (x, y) => {
      const out = [];
      for (const d of [0, 14, 28]) {
        out.push({ x: x + 10, y: y + 16 + d, 'text-anchor': 'start' }, { x: x - 10, y: y + 16 + d, 'text-anchor': 'end' },
          { x: x + 10, y: y - 8 - d, 'text-anchor': 'start' }, { x: x - 10, y: y - 8 - d, 'text-anchor': 'end' });
      }
      return out;
    };
    // The selected bound first, then the ceiling, the ridge, the measured rate.
    label({ class: 'lbl', 'data-role': 'bound-label' }, num(r.bound) + ' GFLOP/s', around(X(state.I), Y(r.bound)));
    label({ class: 'lbl', 'data-role': 'peak-label' }, 'P = ' + num(state.P) + ' GFLOP/s',
      [{ x: W - R - 4, y: Y(state.P) - 6, 'text-anchor': 'end' }, { x: W - R - 4, y: Y(state.P) + 16, 'text-anchor': 'end' },
        { x: L + 4, y: Y(state.P) - 6, 'text-anchor': 'start' }, { x: L + 4, y: Y(state.P) + 16, 'text-anchor': 'start' }]);
    label({ class: 'lbl', 'data-role': 'ridge-label' }, 'I* = ' + num(r.ridge), around(X(r.ridge), Y(state.P)));
    if (state.mode === 'machine' && state.seeded) {
      label({ class: 'lbl', 'data-role': 'measured-label' }, 'measured ' + num(state.seeded.measured), around(X(state.I), Y(state.seeded.measured) - 12));
    }
    const tracer = svg('circle', { id: 'lab-tracer', 'data-testid': 'lab-tracer', r: 5, fill: 'none', stroke: '#e0552b', 'stroke-width': 2.5, visibility: 'hidden' });
    chart.append(tracer);
    placeTracer(false);
  }

  // --- trace: a point that walks along the roof --------------------------
  function placeTracer(show) {
    const t = $('lab-tracer');
    if (!t || !state.domain) return;
    const d = state.domain;
    const logI = d.x0 + (d.x1 - d.x0) * state.traceIndex / TRACE_STEPS;
    const I = Math.pow(10, logI);
    const roof = Math.min(state.P, state.B * I);
    const X = L + (logI - d.x0) / (d.x1 - d.x0) * (W - L - R);
    const Y = H - B - (Math.log10(roof) - d.y0) / (d.y1 - d.y0) * (H - T - B);
    t.setAttribute('cx', X);
    t.setAttribute('cy', Y);
    t.dataset.i = I;
    t.dataset.roof = roof;
    if (show || t.getAttribute('visibility') === 'visible' || state.timer) {
      t.setAttribute('visibility', 'visible');
      const p = $('lab-trace');
      p.dataset.i = I;
      p.textContent = 'Trace: at I = ' + num(I) + ' FLOP/byte the roof is ' + num(roof) + ' GFLOP/s (' +
        (I < state.P / state.B ? 'bandwidth' : 'compute') + ' roof). The selection above is unchanged.';
    }
  }
  function step() { state.traceIndex = (state.traceIndex + 1) % (TRACE_STEPS + 1); placeTracer(true); }
  function play() {
    const b = $('lab-play');
    if (state.timer) {
      clearInterval(state.timer);
      state.timer = null;
      b.textContent = 'Play';
      b.setAttribute('aria-pressed', 'false');
      return;
    }
    b.textContent = 'Pause';
    b.setAttribute('aria-pressed', 'true');
    state.timer = setInterval(step, 70);
    step();
  }

  // --- modes and controls ------------------------------------------------
  function update() { readouts(); draw(); }
  function setValue(k, v) {
    state[k] = v;
    state.valid = ['I', 'B', 'P'].every((q) => isFinite(state[q]) && state[q] > 0);
    $('lab-error').textContent = state.valid ? '' : what[['I', 'B', 'P'].find((q) => !(isFinite(state[q]) && state[q] > 0))];
    update();
  }
  function seedFromRegion() {
    const r = candidates[Number($('lab-region').value)];
    const bsel = $('lab-boundary');
    const keys = Object.keys(r.roofline.boundaries);
    if (!keys.includes(bsel.value)) {
      bsel.replaceChildren(...keys.map((b) => new Option(BNAME[b] + ' (' + num(r.roofline.boundaries[b].bandwidth_gbs) + ' GB/s)', b)));
      bsel.value = r.roofline.limiting && keys.includes(r.roofline.limiting) ? r.roofline.limiting : keys[0];
    }
    const b = r.roofline.boundaries[bsel.value];
    state.seeded = { I: b.intensity, B: b.bandwidth_gbs, P: r.roofline.roof_gflops, measured: r.gflops };
    Object.assign(state, { I: b.intensity, B: b.bandwidth_gbs, P: r.roofline.roof_gflops, valid: true });
    $('lab-reset-note').textContent = 'Reset: ' + r.path + ' at ' + BNAME[bsel.value] + ' on this machine (' + r.roofline.roof_label + ' roof).';
    $('lab-error').textContent = '';
    syncInputs();
    update();
  }
  function reset() {
    if (state.mode === 'machine') { seedFromRegion(); return; }
    Object.assign(state, DEFAULTS, { valid: true });
    $('lab-error').textContent = '';
    $('lab-reset-note').textContent = 'Reset: the worked daxpy example, I = 2/24 FLOP/byte, B = 100 GB/s, P = 1000 GFLOP/s.';
    syncInputs();
    update();
  }
  function setMode(mode) {
    if (mode === state.mode) return;
    if (mode === 'machine') state.seedSaved = { I: state.I, B: state.B, P: state.P };
    state.mode = mode;
    $('lab-machine-controls').hidden = mode !== 'machine';
    if (mode === 'machine') { $('lab-boundary').value = ''; seedFromRegion(); return; }
    Object.assign(state, state.seedSaved || DEFAULTS, { valid: true });
    $('lab-reset-note').textContent = '';
    syncInputs();
    update();
  }

  for (const k of ['I', 'B', 'P']) {
    inputs[k].addEventListener('input', () => {
      const v = inputs[k].value.trim() === '' ? NaN : Number(inputs[k].value);
      if (isFinite(v) && v > 0) ranges[k].value = Math.log10(v);
      setValue(k, v);
    });
    ranges[k].addEventListener('input', () => {
      const v = Math.pow(10, Number(ranges[k].value));
      inputs[k].value = num(v);
      setValue(k, Number(num(v)));
    });
  }
  $('lab-reset').addEventListener('click', reset);
  $('lab-step').addEventListener('click', step);
  $('lab-play').addEventListener('click', play);
  $('lab-mode-seed').addEventListener('change', () => setMode('seed'));
  $('lab-mode-machine').addEventListener('change', () => setMode('machine'));
  $('lab-whatif-bw').addEventListener('click', () => { if (state.valid) { setValue('B', state.B * 2); syncInputs(); } });
  $('lab-whatif-peak').addEventListener('click', () => { if (state.valid) { setValue('P', state.P * 2); syncInputs(); } });
  $('lab-region').addEventListener('change', () => { $('lab-boundary').value = ''; seedFromRegion(); });
  $('lab-boundary').addEventListener('change', seedFromRegion);

  if (candidates.length) {
    $('lab-region').replaceChildren(...candidates.map((r, i) => new Option(r.path + ' \u2014 ' + num(r.gflops) + ' GFLOP/s', String(i))));
  } else {
    $('lab-mode-machine').disabled = true;
    $('lab-machine-why').textContent = '(needs a region with FLOP counts and this machine\'s ceilings)';
  }
  reset();
})();

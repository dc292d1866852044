'use strict';
// chart.js: line and bar charts over time in SVG, with axes, a legend and hover values. Every
// bucket carries the API's values as data-<metric> attributes (exact text, "null" for null), so
// what a chart shows can be read back and checked.

const SVG_NS = 'http://www.w3.org/2000/svg';
const CHART_HEIGHT = 260;
const HOUR = 3600e3;
// The length of a sub-day bucket; day and coarser buckets run from a local midnight to another.
const BUCKET_MS = { '5min': 300e3, '10min': 600e3, '15min': 900e3, '30min': 1800e3, hour: HOUR };
const BUCKET_MONTHS = { month: 1, quarter: 3, year: 12 };
// Steps between the time axis's ticks, finest first: hours of a day, days, months.
const TICK_STEPS = [
  { hours: 1 }, { hours: 2 }, { hours: 3 }, { hours: 6 }, { hours: 12 },
  { days: 1 }, { days: 2 }, { days: 7 }, { days: 14 },
  { months: 1 }, { months: 2 }, { months: 3 }, { months: 6 }, { months: 12 },
];

// bucketSpan is the instants [start, end) in ms of a row's time bucket of granularity g: a
// sub-day bucket's date carries its UTC offset, a day or coarser one is a date in zone tz.
function bucketSpan(date, g, tz) {
  if (date.includes('T')) {
    const start = Date.parse(date);
    return [start, start + (BUCKET_MS[g] || HOUR)];
  }
  const day = date.slice(0, 10);
  const next = BUCKET_MONTHS[g] ? dates.addMonths(day, BUCKET_MONTHS[g]) : dates.addDays(day, g === 'week' ? 7 : 1);
  return [dates.midnight(day, tz), dates.midnight(next, tz)];
}

// timeTicks gives the ticks of the time axis over [t0, t1] in zone tz, at most one per minGap of
// span: [{t, label}] at local hours, midnights or months' firsts. A tick at a midnight shows its date.
function timeTicks(t0, t1, tz, span) {
  const day = 24 * HOUR;
  const size = (s) => (s.hours ? s.hours * HOUR : s.days ? s.days * day : s.months * 30.4 * day);
  const step = TICK_STEPS.find((s) => size(s) >= span) || TICK_STEPS[TICK_STEPS.length - 1];
  const ticks = [];
  const add = (t, label) => { if (t >= t0 && t <= t1) ticks.push({ t, label }); };
  const last = dates.dateAt(t1, tz);
  if (step.months) {
    for (let d = dates.dateAt(t0, tz).slice(0, 8) + '01'; d <= last; d = dates.addMonths(d, 1)) {
      const m = Number(d.slice(5, 7)) - 1;
      if (m % step.months === 0) add(dates.midnight(d, tz), fmt.bucket(d, m === 0 ? 'month' : 'day', false).replace(/ 1$/, ''));
    }
    return ticks;
  }
  for (let d = dates.dateAt(t0, tz), i = 0; d <= last; d = dates.addDays(d, 1), i++) {
    const midnight = dates.midnight(d, tz);
    if (!step.hours) {
      if (i % step.days === 0) add(midnight, fmt.bucket(d, 'day', false));
      continue;
    }
    for (let h = 0; h < 24; h += step.hours) add(midnight + h * HOUR, h === 0 ? fmt.bucket(d, 'day', false) : String(h).padStart(2, '0') + ':00');
  }
  return ticks;
}
// el makes an HTML element with a class and text.
function el(tag, className, text) {
  const e = document.createElement(tag);
  if (className) e.className = className;
  if (text != null) e.textContent = text;
  return e;
}

// svgEl makes an SVG element with attributes, appended to parent when given.
function svgEl(name, attrs, parent) {
  const e = document.createElementNS(SVG_NS, name);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (parent) parent.append(e);
  return e;
}

// niceTicks gives about count round values (1, 2 or 5 times a power of ten apart) covering
// [min, max]. These are pixel positions for the axis, not amounts.
function niceTicks(min, max, count) {
  const raw = (max - min) / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const norm = raw / mag;
  const step = (norm < 1.5 ? 1 : norm < 3 ? 2 : norm < 7 ? 5 : 10) * mag;
  const ticks = [];
  for (let v = Math.floor(min / step) * step; v <= Math.ceil(max / step) * step + step / 2; v += step) {
    ticks.push(Number(v.toPrecision(12)));
  }
  return ticks;
}

// renderLegend fills box with one swatch per series, and one for the previous period when the
// chart draws it.
function renderLegend(box, series, type, previous) {
  box.replaceChildren(...series.map((s) => {
    const item = el('span', 'legend-item');
    const sw = el('span', 'swatch' + (type === 'bar' ? ' swatch-bar' : ''));
    sw.style.background = s.color;
    item.append(sw, s.label);
    return item;
  }));
  if (previous) {
    const item = el('span', 'legend-item');
    item.append(el('span', 'swatch swatch-previous' + (type === 'bar' ? ' swatch-bar' : '')), 'Previous period');
    box.append(item);
  }
}

// OUTLIER_* cut a ratio's value axis (ROAS over an hour of little spend reaches 100×): when the
// largest size of a value is more than OUTLIER_RATIO times the OUTLIER_RANK-th percentile of the
// sizes (of at least OUTLIER_MIN values), the axis ends a little beyond that percentile, either
// way, and the values beyond it are drawn at its end, marked. Amounts are never cut: an hour's
// revenue is as large as it is.
const OUTLIER_RANK = 0.95;
const OUTLIER_RATIO = 3;
const OUTLIER_MIN = 8;

// axisSpan is the value axis's span for values vs of kind: {lo, hi} covering 0 and every
// value, or where an outlier would flatten the rest of a ratio, cut just beyond the high
// percentile of their sizes (cut true).
function axisSpan(vs, kind) {
  const lo = Math.min(0, ...vs);
  const hi = Math.max(0, ...vs);
  const sizes = vs.map(Math.abs).filter((v) => v > 0).sort((a, b) => a - b);
  if (kind !== 'multiple' || sizes.length < OUTLIER_MIN) return { lo, hi, cut: false };
  const high = sizes[Math.floor(OUTLIER_RANK * (sizes.length - 1))];
  if (!(high > 0) || sizes[sizes.length - 1] <= OUTLIER_RATIO * high) return { lo, hi, cut: false };
  const bound = high * 1.25;
  return { lo: Math.max(lo, -bound), hi: Math.min(hi, bound), cut: true };
}

// renderChart draws c.rows (the API's rows, one per time bucket) into box, each bucket as wide as
// the time it covers on a time axis.
//   c.type: 'line' or 'bar'; c.series: [{key, label, color}]; c.kind: 'money', 'count' or 'multiple'
//   (the y axis); c.currency; c.granularity: of the rows without their own; c.tz: the project's
//   zone; c.range: the dates asked {start, end} (end included); c.title: for screen readers;
//   c.previous: the previous period's rows and how far (ms) they move forward onto this one
//   ({rows, shift}), or null.
// A bucket that reaches past the range or past now is partial (today so far, a week of which the
// range holds a few days): it is drawn hatched or dashed, so that it does not read as a drop.
// A row coarser than the chart (a day in an hour chart) is a series of its own: an amount is
// drawn as its average per chart bucket (a day's spend over its 24 hours), a flat dotted step
// never joined to the finer line, with the whole amount on hover. The previous period's rows are
// drawn at their own time moved onto this period (each with its own granularity), dashed or as
// pale bars. It returns
// {cut, over, coarse}: the axis's cut (null when none), how many values lie above it, and
// whether coarser rows are drawn averaged.
function renderChart(box, c) {
  box.replaceChildren();
  if (!c.rows.length) {
    box.append(el('div', 'chart-empty', 'No data for this range.'));
    return { cut: null, over: 0, coarse: false };
  }
  const width = Math.max(box.clientWidth, 280);
  const height = CHART_HEIGHT;
  // Amounts and counts add up over time, so a coarser row's is spread over its chart buckets;
  // a ratio is not.
  const unit = c.kind === 'money' || c.kind === 'count' ? BUCKET_MS[c.granularity] : 0;
  const rangeStart = dates.midnight(c.range.start, c.tz);
  const rangeEnd = Math.min(dates.midnight(dates.addDays(c.range.end, 1), c.tz), Date.now());
  const bucketOf = (row, shift) => {
    const g = row.granularity || c.granularity;
    const [start, end] = bucketSpan(row.date, g, c.tz).map((t) => t + shift);
    // per: how many chart buckets an amount of this row is spread over (1 but for coarser rows).
    const per = unit && g !== c.granularity ? (end - start) / unit : 1;
    return { row, g, start, end, per, partial: (start < rangeStart || end > rangeEnd) && start < rangeEnd };
  };
  const buckets = c.rows.map((row) => bucketOf(row, 0));
  const before = c.previous ? c.previous.rows.map((row) => Object.assign(bucketOf(row, c.previous.shift), { partial: false })) : [];
  // value is what bucket b draws of series key: a number, or null.
  const value = (b, key) => (b.row[key] == null ? null : Number(b.row[key]) / b.per);
  const drawn = [];
  for (const b of buckets.concat(before)) {
    for (const s of c.series) {
      const v = value(b, s.key);
      if (v != null) drawn.push(v);
    }
  }
  const axis = axisSpan(drawn, c.kind);
  const min = axis.lo;
  const max = axis.hi === min ? min + 1 : axis.hi;
  const ticks = niceTicks(min, max, 5);
  // A cut axis ends at the cut, its ticks within it.
  const lo = axis.cut ? min : ticks[0];
  const hi = axis.cut ? max : ticks[ticks.length - 1];
  while (axis.cut && ticks[ticks.length - 1] > hi) ticks.pop();
  while (axis.cut && ticks[0] < lo) ticks.shift();
  const labels = ticks.map((t) => fmt.axis(t, c.kind, c.currency));
  const left = 14 + Math.max(...labels.map((l) => l.length)) * 7;
  const right = 14;
  const top = 14;
  const bottom = 30;
  const iw = width - left - right;
  const ih = height - top - bottom;

  const t0 = Math.min(rangeStart, buckets[0].start);
  const t1 = Math.max(dates.midnight(dates.addDays(c.range.end, 1), c.tz), buckets[buckets.length - 1].end);
  const xt = (t) => left + ((t - t0) / (t1 - t0)) * iw;
  for (const b of buckets.concat(before)) {
    b.x0 = xt(Math.max(b.start, t0));
    b.x1 = xt(Math.min(b.end, t1));
    b.x = (b.x0 + b.x1) / 2;
  }
  // Each bucket's previous one is the previous period's bucket at its middle, for the tooltip.
  for (const b of buckets) b.before = before.find((p) => p.start <= (b.start + b.end) / 2 && (b.start + b.end) / 2 < p.end) || null;
  // y places a value, a value beyond a cut axis at its end.
  const y = (v) => top + ih - ((Math.min(Math.max(v, lo), hi) - lo) / (hi - lo)) * ih;

  const svg = svgEl('svg', {
    class: 'chart-svg', width, height, viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-label': c.title,
  });
  const hatch = 'hatch-' + box.id;
  const pattern = svgEl('pattern', { id: hatch, width: 6, height: 6, patternUnits: 'userSpaceOnUse', patternTransform: 'rotate(45)' },
    svgEl('defs', {}, svg));
  svgEl('line', { x1: 0, y1: 0, x2: 0, y2: 6, class: 'hatch-line' }, pattern);
  const grid = svgEl('g', { class: 'grid' }, svg);
  for (const b of buckets) {
    // Rows answered coarser than the chart (days inside an hour chart) and partial buckets are
    // shaded, so that their height reads as what it is.
    if (b.partial) svgEl('rect', { class: 'band band-partial', x: b.x0, y: top, width: Math.max(b.x1 - b.x0, 1), height: ih, fill: `url(#${hatch})` }, grid);
    else if (b.g !== c.granularity) svgEl('rect', { class: 'band band-coarse', x: b.x0, y: top, width: b.x1 - b.x0, height: ih }, grid);
  }
  // Each run of coarser rows says what they are where it has room.
  buckets.forEach((b, i) => {
    if (b.g === c.granularity || b.partial || (i && buckets[i - 1].g === b.g && !buckets[i - 1].partial)) return;
    let j = i;
    while (j + 1 < buckets.length && buckets[j + 1].g === b.g && !buckets[j + 1].partial) j++;
    if (buckets[j].x1 - b.x0 >= 60) {
      svgEl('text', { x: b.x0 + 6, y: top + 12, class: 'band-label' }, grid).textContent = 'by ' + b.g + (b.per !== 1 ? ', per-' + c.granularity + ' average' : '');
    }
  });
  ticks.forEach((t, i) => {
    svgEl('line', { x1: left, x2: width - right, y1: y(t), y2: y(t), class: t === 0 ? 'zero' : '' }, grid);
    svgEl('text', { x: left - 8, y: y(t), 'text-anchor': 'end', 'dominant-baseline': 'middle', class: 'tick' }, grid)
      .textContent = labels[i];
  });
  for (const tick of timeTicks(t0, t1, c.tz, ((t1 - t0) * 76) / iw)) {
    const x = xt(tick.t);
    svgEl('line', { x1: x, x2: x, y1: top + ih, y2: top + ih + 4, class: 'x-tick-mark' }, grid);
    svgEl('text', { x: Math.min(Math.max(x, left + 18), width - right - 18), y: height - 10, 'text-anchor': 'middle', class: 'tick x-tick' }, grid)
      .textContent = tick.label;
  }

  const plot = svgEl('g', { class: 'plot' }, svg);
  if (c.type === 'bar') drawBars(plot, c, buckets, before, y, value);
  else drawLines(plot, c, buckets, before, y, value);
  // Values beyond a cut axis: a marker at its end, pointing on, with the value where there is room.
  let over = 0;
  for (const b of buckets) {
    c.series.forEach((s) => {
      const v = value(b, s.key);
      if (v == null || (v <= hi && v >= lo)) return;
      over++;
      const up = v > hi;
      const edge = up ? top : top + ih;
      const tip = up ? -1 : 1;
      svgEl('path', { d: `M${b.x - 4},${edge - 6 * tip}L${b.x},${edge}L${b.x + 4},${edge - 6 * tip}Z`, class: 'clip-mark' }, plot);
      if (b.x1 - b.x0 >= 34) {
        svgEl('text', { x: b.x, y: edge - 10 * tip + (up ? 4 : 0), 'text-anchor': 'middle', class: 'clip-label' }, plot).textContent = fmt.axis(Number(b.row[s.key]), c.kind, c.currency);
      }
    });
  }
  attachHover(box, svg, c, buckets, { y, top, ih, width, value });
  box.append(svg);
  return { cut: axis.cut ? [lo, hi] : null, over, coarse: buckets.some((b) => b.per !== 1) };
}

// drawBars draws each bucket's bars, the previous period's (before) as pale bars behind them.
function drawBars(plot, c, buckets, before, y, value) {
  for (const b of before) {
    const group = (b.x1 - b.x0) * 0.72;
    const bw = group / c.series.length;
    c.series.forEach((s, si) => {
      const p = value(b, s.key);
      if (p == null) return;
      const py = y(Math.max(p, 0));
      svgEl('rect', { x: b.x - group / 2 + si * bw, y: py, width: Math.max(bw - 1, 1), height: Math.max(y(Math.min(p, 0)) - py, 0.5), class: 'bar-previous' }, plot);
    });
  }
  for (const b of buckets) {
    const group = (b.x1 - b.x0) * 0.72;
    const bw = group / c.series.length;
    c.series.forEach((s, si) => {
      const v = value(b, s.key);
      if (v == null) return;
      const inner = bw * 0.6;
      const y0 = y(Math.max(v, 0));
      svgEl('rect', {
        x: b.x - group / 2 + si * bw + (bw - inner) / 2, y: y0, width: Math.max(inner - 1, 1), height: Math.max(y(Math.min(v, 0)) - y0, 0.5),
        rx: Math.min(3, bw / 4), fill: s.color, stroke: s.color, class: 'bar' + (b.partial ? ' partial' : ''),
      }, plot);
    });
  }
}

// drawLines draws each series through its buckets' middles; a null or a change of granularity
// breaks the line, a partial bucket's point is hollow and joined by a dashed segment, and a
// coarser bucket is a flat dotted step across its span. The previous period (before) is a thin
// dashed line of the same colour, broken the same way.
function drawLines(plot, c, buckets, before, y, value) {
  const pathOf = (pts) => pts.map((p, i) => (i ? 'L' : 'M') + p[0].toFixed(1) + ',' + p[1].toFixed(1)).join('');
  c.series.forEach((s) => {
    let prev = [];
    const flush = () => {
      if (prev.length > 1) svgEl('path', { d: pathOf(prev), stroke: s.color, class: 'line line-previous' }, plot);
      prev = [];
    };
    for (const b of before) {
      const p = value(b, s.key);
      if (p == null || b.per !== 1) {
        flush();
        if (p != null) svgEl('path', { d: pathOf([[b.x0 + 1, y(p)], [b.x1 - 1, y(p)]]), stroke: s.color, class: 'line line-previous' }, plot);
        continue;
      }
      prev.push([b.x, y(p)]);
    }
    flush();
  });
  c.series.forEach((s) => {
    const segments = [];
    let seg = null;
    for (const b of buckets) {
      const v = value(b, s.key);
      if (v == null) { seg = null; continue; }
      if (b.per !== 1) {
        seg = null;
        svgEl('path', { d: pathOf([[b.x0 + 1, y(v)], [b.x1 - 1, y(v)]]), stroke: s.color, class: 'line line-coarse' }, plot);
        continue;
      }
      if (!seg) segments.push(seg = []);
      seg.push([b.x, y(v), b.partial]);
    }
    for (const pts of segments) {
      const base = y(0).toFixed(1);
      const area = pathOf(pts) + `L${pts[pts.length - 1][0].toFixed(1)},${base}L${pts[0][0].toFixed(1)},${base}Z`;
      const a = svgEl('path', { d: area, fill: s.color, class: 'area' }, plot);
      a.setAttribute('fill-opacity', '0.08');
      // Solid runs between whole buckets, dashed steps into or out of a partial one.
      let run = [];
      pts.forEach((p, i) => {
        if (i && (p[2] || pts[i - 1][2])) svgEl('path', { d: pathOf([pts[i - 1], p]), stroke: s.color, class: 'line line-partial' }, plot);
        if (p[2]) {
          if (run.length) svgEl('path', { d: pathOf(run), stroke: s.color, class: 'line' }, plot);
          run = [];
        } else run.push(p);
      });
      if (run.length) svgEl('path', { d: pathOf(run), stroke: s.color, class: 'line' }, plot);
      for (const p of pts) {
        if (p[2]) svgEl('circle', { cx: p[0], cy: p[1], r: 3, fill: '#fff', stroke: s.color, class: 'point point-partial' }, plot);
        else if (buckets.length <= 62 || pts.length === 1) svgEl('circle', { cx: p[0], cy: p[1], r: 2.5, fill: s.color, class: 'point' }, plot);
      }
    }
  });
}

// attachHover adds the buckets (transparent columns holding the values, as wide as their time),
// a guide line, dots and a tooltip that follows the pointer.
function attachHover(box, svg, c, buckets, g) {
  const guide = svgEl('line', { class: 'guide', x1: 0, x2: 0, y1: g.top, y2: g.top + g.ih, visibility: 'hidden' }, svg);
  const dots = c.type === 'line'
    ? c.series.map((s) => svgEl('circle', { r: 4.5, fill: '#fff', stroke: s.color, class: 'hover-dot', visibility: 'hidden' }, svg))
    : [];
  const layer = svgEl('g', { class: 'buckets' }, svg);
  for (const b of buckets) {
    const r = svgEl('rect', {
      class: 'bucket', x: b.x0, y: g.top, width: b.x1 - b.x0, height: g.ih, 'data-date': b.row.date,
    }, layer);
    for (const s of c.series) r.setAttribute('data-' + s.key, b.row[s.key] == null ? 'null' : b.row[s.key]);
    if (b.partial) r.classList.add('partial');
  }
  const tip = el('div', 'tooltip');
  tip.hidden = true;
  box.append(tip);

  const show = (b) => {
    const row = b.row;
    guide.setAttribute('x1', b.x);
    guide.setAttribute('x2', b.x);
    guide.setAttribute('visibility', 'visible');
    c.series.forEach((s, si) => {
      if (!dots[si]) return;
      const v = g.value(b, s.key);
      dots[si].setAttribute('visibility', v == null ? 'hidden' : 'visible');
      if (v != null) {
        dots[si].setAttribute('cx', b.x);
        dots[si].setAttribute('cy', g.y(v));
      }
    });
    const whole = b.g !== c.granularity ? ' (whole ' + b.g + ')' : '';
    tip.replaceChildren(el('div', 'tooltip-title', fmt.bucket(row.date, b.g, true) + whole));
    if (b.partial) tip.append(el('div', 'tooltip-note', b.end > Date.now() ? 'Partial: so far' : 'Partial: only the days in range'));
    if (b.per !== 1) tip.append(el('div', 'tooltip-note', 'Drawn as its average per ' + c.granularity));
    for (const s of c.series) {
      const line = el('div', 'tooltip-row');
      const sw = el('span', 'swatch');
      sw.style.background = s.color;
      line.append(sw, el('span', 'tooltip-label', s.label), el('span', 'tooltip-value', fmt.metric(s.key, row[s.key], c.currency)));
      tip.append(line);
      if (b.before) {
        const was = el('div', 'tooltip-row');
        was.append(el('span', 'swatch swatch-previous'), el('span', 'tooltip-label', 'Previous: ' + fmt.bucket(b.before.row.date, b.before.g, false)),
          el('span', 'tooltip-value', fmt.metric(s.key, b.before.row[s.key], c.currency)));
        tip.append(was);
      }
    }
    tip.hidden = false;
    const scale = svg.getBoundingClientRect().width / g.width || 1;
    const px = b.x * scale;
    const flip = px + 16 + tip.offsetWidth > box.clientWidth;
    tip.style.left = Math.max(0, flip ? px - 16 - tip.offsetWidth : px + 16) + 'px';
    tip.style.top = g.top + 'px';
  };
  const hide = () => {
    tip.hidden = true;
    guide.setAttribute('visibility', 'hidden');
    dots.forEach((d) => d.setAttribute('visibility', 'hidden'));
  };
  svg.addEventListener('pointermove', (e) => {
    const rect = svg.getBoundingClientRect();
    const px = ((e.clientX - rect.left) * g.width) / rect.width;
    const b = buckets.find((x) => px >= x.x0 && px < x.x1);
    if (b) show(b);
    else hide();
  });
  svg.addEventListener('pointerleave', hide);
}

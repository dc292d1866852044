'use strict';
// chart.js: line and bar charts over time in SVG, with axes, a legend and hover values. Every
// bucket carries the API's values as data-<metric> attributes (exact text, "null" for null), so
// what a chart shows can be read back and checked.

const SVG_NS = 'http://www.w3.org/2000/svg';
const CHART_HEIGHT = 260;
// Steps between labelled buckets, per granularity: whole hours of a day, days of a week...
const LABEL_STEPS = {
  hour: [1, 2, 3, 6, 12, 24, 48, 72, 168, 336, 720],
  day: [1, 2, 3, 7, 14, 28, 56, 91, 182, 364],
  week: [1, 2, 4, 8, 13, 26, 52],
  month: [1, 2, 3, 6, 12, 24],
};

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

// renderLegend fills box with one swatch per series.
function renderLegend(box, series, type) {
  box.replaceChildren(...series.map((s) => {
    const item = el('span', 'legend-item');
    const sw = el('span', 'swatch' + (type === 'bar' ? ' swatch-bar' : ''));
    sw.style.background = s.color;
    item.append(sw, s.label);
    return item;
  }));
}

// renderChart draws c.rows (the API's rows, one per time bucket) into box.
//   c.type: 'line' or 'bar'; c.series: [{key, label, color}]; c.kind: 'money' or 'multiple'
//   (the y axis); c.currency; c.granularity: of the rows' labels; c.title: for screen readers.
function renderChart(box, c) {
  box.replaceChildren();
  if (!c.rows.length) {
    box.append(el('div', 'chart-empty', 'No data for this range.'));
    return;
  }
  const width = Math.max(box.clientWidth, 280);
  const height = CHART_HEIGHT;
  let min = 0;
  let max = 0;
  for (const row of c.rows) {
    for (const s of c.series) {
      if (row[s.key] == null) continue;
      const v = Number(row[s.key]);
      if (v < min) min = v;
      if (v > max) max = v;
    }
  }
  if (max === min) max = min + 1;
  const ticks = niceTicks(min, max, 5);
  const lo = ticks[0];
  const hi = ticks[ticks.length - 1];
  const labels = ticks.map((t) => fmt.axis(t, c.kind, c.currency));
  const left = 14 + Math.max(...labels.map((l) => l.length)) * 7;
  const right = 14;
  const top = 14;
  const bottom = 30;
  const iw = width - left - right;
  const ih = height - top - bottom;
  const n = c.rows.length;
  const step = iw / n;
  const x = (i) => left + step * (i + 0.5);
  const y = (v) => top + ih - ((v - lo) / (hi - lo)) * ih;

  const svg = svgEl('svg', {
    class: 'chart-svg', width, height, viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-label': c.title,
  });
  const grid = svgEl('g', { class: 'grid' }, svg);
  ticks.forEach((t, i) => {
    svgEl('line', { x1: left, x2: width - right, y1: y(t), y2: y(t), class: t === 0 ? 'zero' : '' }, grid);
    svgEl('text', { x: left - 8, y: y(t), 'text-anchor': 'end', 'dominant-baseline': 'middle', class: 'tick' }, grid)
      .textContent = labels[i];
  });
  const need = Math.ceil(n / Math.max(1, Math.floor(iw / 76)));
  const every = (LABEL_STEPS[c.granularity] || []).find((k) => k >= need) || need;
  for (let i = 0; i < n; i += every) {
    svgEl('text', { x: x(i), y: height - 10, 'text-anchor': 'middle', class: 'tick' }, grid)
      .textContent = fmt.bucket(c.rows[i].date, c.rows[i].granularity || c.granularity, false);
  }

  const plot = svgEl('g', { class: 'plot' }, svg);
  if (c.type === 'bar') drawBars(plot, c, x, y, step);
  else drawLines(plot, c, x, y, n);
  attachHover(box, svg, c, { x, y, left, top, ih, step, width });
  box.append(svg);
}

function drawBars(plot, c, x, y, step) {
  const group = Math.min(step * 0.72, 56);
  const bw = Math.max(1, group / c.series.length);
  c.series.forEach((s, si) => {
    c.rows.forEach((row, i) => {
      if (row[s.key] == null) return;
      const v = Number(row[s.key]);
      const y0 = y(Math.max(v, 0));
      svgEl('rect', {
        x: x(i) - group / 2 + si * bw, y: y0, width: Math.max(bw - 1, 1), height: Math.max(y(Math.min(v, 0)) - y0, 0.5),
        rx: Math.min(3, bw / 4), fill: s.color, class: 'bar',
      }, plot);
    });
  });
}

function drawLines(plot, c, x, y, n) {
  c.series.forEach((s) => {
    // Segments of consecutive non-null values; a null breaks the line.
    const segments = [];
    let seg = null;
    c.rows.forEach((row, i) => {
      if (row[s.key] == null) { seg = null; return; }
      if (!seg) segments.push(seg = []);
      seg.push([x(i), y(Number(row[s.key]))]);
    });
    for (const pts of segments) {
      const line = pts.map((p, i) => (i ? 'L' : 'M') + p[0].toFixed(1) + ',' + p[1].toFixed(1)).join('');
      const base = y(0).toFixed(1);
      const area = line + `L${pts[pts.length - 1][0].toFixed(1)},${base}L${pts[0][0].toFixed(1)},${base}Z`;
      const a = svgEl('path', { d: area, fill: s.color, class: 'area' }, plot);
      a.setAttribute('fill-opacity', '0.08');
      svgEl('path', { d: line, stroke: s.color, class: 'line' }, plot);
      if (n <= 62 || pts.length === 1) {
        for (const p of pts) svgEl('circle', { cx: p[0], cy: p[1], r: 2.5, fill: s.color, class: 'point' }, plot);
      }
    }
  });
}

// attachHover adds the buckets (transparent columns holding the values), a guide line, dots
// and a tooltip that follows the pointer.
function attachHover(box, svg, c, g) {
  const guide = svgEl('line', { class: 'guide', x1: 0, x2: 0, y1: g.top, y2: g.top + g.ih, visibility: 'hidden' }, svg);
  const dots = c.type === 'line'
    ? c.series.map((s) => svgEl('circle', { r: 4.5, fill: '#fff', stroke: s.color, class: 'hover-dot', visibility: 'hidden' }, svg))
    : [];
  const layer = svgEl('g', { class: 'buckets' }, svg);
  c.rows.forEach((row, i) => {
    const r = svgEl('rect', {
      class: 'bucket', x: g.left + g.step * i, y: g.top, width: g.step, height: g.ih, 'data-date': row.date,
    }, layer);
    for (const s of c.series) r.setAttribute('data-' + s.key, row[s.key] == null ? 'null' : row[s.key]);
  });
  const tip = el('div', 'tooltip');
  tip.hidden = true;
  box.append(tip);

  const show = (i) => {
    const row = c.rows[i];
    guide.setAttribute('x1', g.x(i));
    guide.setAttribute('x2', g.x(i));
    guide.setAttribute('visibility', 'visible');
    c.series.forEach((s, si) => {
      if (!dots[si]) return;
      const v = row[s.key];
      dots[si].setAttribute('visibility', v == null ? 'hidden' : 'visible');
      if (v != null) {
        dots[si].setAttribute('cx', g.x(i));
        dots[si].setAttribute('cy', g.y(Number(v)));
      }
    });
    const whole = row.granularity && row.granularity !== c.granularity ? ' (whole ' + row.granularity + ')' : '';
    tip.replaceChildren(el('div', 'tooltip-title', fmt.bucket(row.date, row.granularity || c.granularity, true) + whole));
    for (const s of c.series) {
      const line = el('div', 'tooltip-row');
      const sw = el('span', 'swatch');
      sw.style.background = s.color;
      line.append(sw, el('span', 'tooltip-label', s.label), el('span', 'tooltip-value', fmt.metric(s.key, row[s.key], c.currency)));
      tip.append(line);
    }
    tip.hidden = false;
    const scale = svg.getBoundingClientRect().width / g.width || 1;
    const px = g.x(i) * scale;
    const flip = px + 16 + tip.offsetWidth > box.clientWidth;
    tip.style.left = (flip ? px - 16 - tip.offsetWidth : px + 16) + 'px';
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
    const i = Math.floor((px - g.left) / g.step);
    if (i >= 0 && i < c.rows.length) show(i);
    else hide();
  });
  svg.addEventListener('pointerleave', hide);
}

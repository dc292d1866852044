'use strict';
// breakdown.js: the Sources and Products views, a table with one row per value of a traffic or
// order dimension (POST /v3/query with metadata.dimensions), each with a bar of its share of the
// chosen metric and a sparkline of that metric over time; a row's name filters the dashboard by
// it. Every cell carries the API's value as data-value (exact text, "null" for null) and every
// sparkline its points, as the API sent them.

// The dimensions the Sources view breaks down by, with their names.
const SOURCE_DIMENSIONS = {
  utm_source: 'UTM source', utm_medium: 'UTM medium', utm_campaign: 'UTM campaign', utm_content: 'UTM content',
  utm_term: 'UTM term', referrer_host: 'Referrer', landing_path: 'Landing page', device: 'Device',
  payment_method: 'Payment method', customer_type: 'New or returning',
};

// Dimensions only orders carry: no page view, lead or checkout has a payment method or a
// customer type, so event metrics by them would be all "(not set)". GET /v3/fields lists the
// metrics each dimension serves (event metrics included for these); the page shows order
// metrics only for these and for products (whose rows are order lines).
const ORDER_DIMENSIONS = ['payment_method', 'customer_type', 'product_id', 'product_name'];
const EVENT_METRICS = ['page_views', 'leads', 'initiate_checkout'];

// BREAKDOWNS are the views: their columns, and the Products view's fixed dimensions (the Sources
// view's is the one chosen).
const BREAKDOWNS = {
  sources: { title: 'Traffic sources', fields: ['page_views', 'leads', 'initiate_checkout', 'tx_count', 'tx_revenue'] },
  products: { title: 'Products', dimensions: ['product_id', 'product_name'], fields: ['tx_revenue', 'tx_units', 'tx_count', 'tx_product_costs'] },
};

const breakdown = {
  // dimensions are the dimensions that key the rows of view page with dimension chosen.
  dimensions(page, dimension) {
    return BREAKDOWNS[page].dimensions || [dimension];
  },

  // columns are the metrics view page shows by dimension: those GET /v3/fields says the
  // dimension serves (served: dimension name -> metrics; all when unknown), order metrics only
  // for an order dimension or under a product filter (filters: the members filtered by).
  columns(page, dimension, served, filters) {
    const dims = this.dimensions(page, dimension).concat(filters || []);
    const orderOnly = dims.some((d) => ORDER_DIMENSIONS.includes(d));
    return BREAKDOWNS[page].fields.filter((f) => !(orderOnly && EVENT_METRICS.includes(f)) &&
      this.dimensions(page, dimension).every((d) => !served || !served[d] || served[d].includes(f)));
  },

  // bodies are the view's queries: the rows by dimension ordered by metric, the same by time
  // bucket for the sparklines and, for the Sources view, the traffic total (dimensions [])
  // that the rows by any dimension sum to. Products have none: an order of several products
  // counts under each, so their sales can sum to more than the orders. v.filters are the
  // query's filters ([] for none), v.fields its columns.
  bodies(page, base, v) {
    const b = BREAKDOWNS[page];
    const dims = this.dimensions(page, v.dimension);
    const meta = (extra) => Object.assign(v.currency ? { convert_to_currency: v.currency } : {}, extra);
    const time = { start: base.start, end: base.end };
    const filtered = (body) => (v.filters.length ? Object.assign(body, { filters: v.filters }) : body);
    return {
      breakdown: filtered({ project_id: base.project, fields: v.fields, time, order: { [v.metric]: 'desc' }, limit: 1000, total: true, metadata: meta({ dimensions: dims }) }),
      trend: filtered({ project_id: base.project, fields: [v.metric], time: Object.assign({ granularity: v.granularity }, time), limit: 50000, metadata: meta({ dimensions: dims }) }),
      total: b.dimensions ? null : filtered({ project_id: base.project, fields: v.fields, time, metadata: meta({ dimensions: [] }) }),
    };
  },

  // show draws the view page from the answers res = {breakdown, trend, total} into box; v.pick
  // (dimension, value, name) filters the dashboard by a row.
  show(box, page, v, res, currency) {
    const fields = v.fields;
    const dims = this.dimensions(page, v.dimension);
    const rows = res.breakdown.data;
    const keyOf = (row) => JSON.stringify(dims.map((d) => (row[d] == null ? null : row[d])));
    // The sparklines' time axis: the range asked, in the project's zone.
    const axis = { start: dates.midnight(v.range.start, v.tz), end: dates.midnight(dates.addDays(v.range.end, 1), v.tz), tz: v.tz, granularity: v.granularity };
    const trends = new Map();
    for (const r of res.trend.data) {
      const k = keyOf(r);
      if (!trends.has(k)) trends.set(k, []);
      trends.get(k).push(r);
    }
    let max = 0;
    for (const row of rows) max = Math.max(max, Number(row[v.metric] || 0));

    const table = el('table', 'data-table breakdown-table');
    table.id = 'breakdown-rows';
    const head = el('tr');
    const nameLabel = page === 'products' ? 'Product' : SOURCE_DIMENSIONS[v.dimension];
    head.append(th('name', nameLabel, 'col-name'), th('share', METRICS[v.metric].label + ' share and trend', 'col-share'));
    for (const f of fields) head.append(th(f, METRICS[f].label, 'num'));
    table.append(el('thead'));
    table.tHead.append(head);

    const body = el('tbody');
    for (const row of rows) {
      const tr = el('tr');
      tr.dataset.key = keyOf(row);
      const name = el('td', 'col-name');
      name.dataset.key = 'name';
      const label = this.label(page, v.dimension, row);
      const pickDim = page === 'products' ? 'product_id' : v.dimension;
      if (v.pick && !(page === 'products' && row.product_id == null)) {
        const pick = el('button', 'pick name' + (label.missing ? ' unattributed' : ''), label.name);
        pick.type = 'button';
        pick.title = 'Show only ' + label.name + ' in every view';
        pick.addEventListener('click', () => v.pick(pickDim, row[pickDim] == null ? null : row[pickDim], label.name));
        name.append(pick);
      } else name.append(el('div', 'name' + (label.missing ? ' unattributed' : ''), label.name));
      if (label.sub) name.append(el('div', 'sub', label.sub));
      tr.append(name, this.shareCell(row[v.metric], max, axis, trends.get(tr.dataset.key) || [], v.metric, currency));
      for (const f of fields) tr.append(cell(f, row[f], currency));
      body.append(tr);
    }
    if (!rows.length) {
      const tr = el('tr');
      const td = el('td', 'empty', 'Nothing in this range.');
      td.colSpan = fields.length + 2;
      tr.append(td);
      body.append(tr);
    }
    table.append(body);
    if (res.total && rows.length) {
      const foot = el('tfoot');
      const tr = el('tr');
      const name = el('td', 'col-name', 'Total');
      name.dataset.key = 'name';
      tr.append(name, el('td', 'col-share'));
      for (const f of fields) tr.append(cell(f, (res.total.data[0] || {})[f], currency));
      foot.append(tr);
      table.append(foot);
    }
    box.replaceChildren(table);
  },

  // label names a row: the dimension's value, or what its absence means.
  label(page, dimension, row) {
    if (page === 'products') {
      if (row.product_id == null && row.product_name == null) return { name: 'Orders without items', missing: true };
      return { name: row.product_name || row.product_id, sub: row.product_name ? row.product_id : '' };
    }
    const value = row[dimension];
    if (value == null) return { name: dimension === 'utm_source' || dimension === 'referrer_host' ? '(direct or not set)' : '(not set)', missing: true };
    return { name: value };
  },

  // shareCell is the bar of value's share of the largest row's and the sparkline of points (the
  // trend answer's rows of this row) on axis.
  shareCell(value, max, axis, points, metric, currency) {
    const td = el('td', 'col-share');
    td.dataset.key = 'share';
    td.dataset.value = value == null ? 'null' : value;
    const track = el('div', 'share-bar');
    const fill = el('div', 'share-fill');
    fill.style.width = (max > 0 ? Math.max(0, (Number(value || 0) / max) * 100) : 0).toFixed(1) + '%';
    track.append(fill);
    track.title = fmt.metric(metric, value, currency);
    td.append(track, sparkline(axis, points, metric));
    return td;
  },
};

// th is a column header.
function th(key, label, className) {
  const h = el('th', className, label);
  h.scope = 'col';
  h.dataset.key = key;
  return h;
}

// sparkline draws metric's points (rows with date and metric) as small bars on a time axis
// ({start, end, tz, granularity}): each bucket at its time and as wide, a bucket without a row
// left empty (no facts).
function sparkline(axis, points, metric) {
  const width = 96;
  const height = 26;
  const values = points.map((p) => Number(p[metric] || 0));
  const hi = Math.max(...values, 0);
  const lo = Math.min(...values, 0);
  const x = (t) => ((Math.min(Math.max(t, axis.start), axis.end) - axis.start) / (axis.end - axis.start)) * width;
  const y = (v) => 1 + (hi > lo ? ((hi - v) / (hi - lo)) * (height - 2) : height - 2);
  const svg = svgEl('svg', { class: 'sparkline', width, height, viewBox: `0 0 ${width} ${height}`, 'aria-hidden': 'true' });
  svg.dataset.points = JSON.stringify(points.map((p) => [p.date, p[metric] == null ? null : p[metric]]));
  svgEl('line', { x1: 0, x2: width, y1: y(0), y2: y(0), class: 'spark-base' }, svg);
  points.forEach((p, i) => {
    const [start, end] = bucketSpan(p.date, p.granularity || axis.granularity, axis.tz);
    const top = Math.min(y(values[i]), y(0));
    svgEl('rect', { x: x(start), width: Math.max(x(end) - x(start) - 0.5, 1), y: top, height: Math.max(Math.abs(y(values[i]) - y(0)), 0.5), class: 'spark-bar' }, svg);
  });
  return svg;
}

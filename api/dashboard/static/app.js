'use strict';
// app.js: the dashboard's state, controls and loading. Every number on the page comes from
// POST /v3/query; <body data-state> is starting, signed-out, loading, ready or error, and
// <body data-seq> counts the loads that finished (for tests and scripts).

const $ = (id) => document.getElementById(id);
const VIEW_STORAGE = 'mtk.dashboard.view';
const RANGE_DAYS = { '7d': 7, '30d': 30, '90d': 90 };
const MONEY_SERIES = [{ key: 'spend', label: 'Spend', color: '#4f46e5' }, { key: 'tx_revenue', label: 'Revenue', color: '#0ea371' }];
// The attribution windows offered (those GET /v3/fields allows, with its default), and how each
// model reads; a model this page does not know reads as its name.
const WINDOWS = [1, 7, 28, 90];
const MODEL_LABELS = {
  reported: 'Reported', last_click: 'Last click', first_click: 'First click', linear: 'Linear',
  position_based: 'Position-based', time_decay: 'Time decay',
};
// Why the attribution controls are off: the breakdown views' dimensions are answered with the
// reported attribution only; the reported model has no window and credits the sale's day.
const ATTRIBUTION_OFF = {
  breakdown: 'Sources and Products break sales down by traffic and order dimensions, which the API credits with the ' +
    'reported attribution only (each order on its own UTM, else its lead\'s). Models apply to the Performance view.',
  reported: 'The reported model credits each order to the ad its own UTM names, else its lead\'s, on the day of the sale. ' +
    'Choose another model to set a window or credit by click date.',
};
const ROAS_SERIES = [{ key: 'roas', label: 'ROAS', color: '#f59e0b' }];
// The Performance view's revenue is the ad view's: what attribution credits to ads. A tile with
// charts draws its metric alone on the first chart when pressed (ROAS has the second).
const KPIS = [
  { key: 'spend', charts: true, sub: (t, cur) => 'CPC ' + fmt.metric('cpc', t.cpc, cur) },
  { key: 'tx_revenue', charts: true, label: 'Attributed revenue', sub: (t) => fmt.count(t.tx_count) + ' sales' },
  { key: 'roas', sub: () => 'Revenue ÷ spend' },
  { key: 'profit', charts: true, sub: () => 'Revenue − spend − costs' },
  { key: 'impressions', charts: true, sub: () => '' },
  { key: 'clicks', charts: true, sub: (t) => 'CTR ' + fmt.percent(t.ctr) },
];
const SERIES_FIELDS = ['spend', 'tx_revenue', 'roas'];

// chartTile is the pressed tile whose metric the first chart draws, or null (spend and revenue).
function chartTile() {
  return KPIS.find((k) => k.charts && k.key === state.view.chart) || null;
}

const state = {
  projects: [],
  // page is the view shown: performance (the ad hierarchy), sources or products; dimension is
  // the Sources view's, metrics the metric of each breakdown view's bars and trends.
  view: {
    project: '', range: '30d', start: '', end: '', granularity: 'day', level: 'campaign', currency: '',
    page: 'performance', dimension: 'utm_source', metrics: { sources: 'tx_revenue', products: 'tx_revenue' },
    // The attribution of the Performance view's order metrics (metadata.attribution); window is
    // in days, '' until GET /v3/fields gives its default.
    model: 'reported', window: '', clickDate: false,
    // filters are the rows clicked ({member, value, label}; a null value is "not set"), applied
    // to every view that can take them.
    filters: [],
    // chart is the metric a pressed tile draws on the first chart ('' for spend and revenue).
    chart: '',
  },
  // served is what GET /v3/fields says each traffic or order dimension serves (name -> metrics).
  served: null,
  controller: null,
  seq: 0,
  signInMode: 'password',
  charts: null, // the last chart data, drawn again when the page is resized
};

function setState(s) {
  document.body.dataset.state = s;
}

// saveView keeps the view in the tab and in the page's address (link.js).
function saveView() {
  sessionStorage.setItem(VIEW_STORAGE, JSON.stringify(state.view));
  link.write(state.view);
}

// restoreView takes the view the tab kept, then what the page's address names over it.
function restoreView() {
  try {
    Object.assign(state.view, JSON.parse(sessionStorage.getItem(VIEW_STORAGE) || '{}'));
  } catch (_) { /* a bad saved view is ignored */ }
  const linked = link.read(FILTER_MEMBERS);
  if (linked) Object.assign(state.view, linked, { metrics: Object.assign({}, state.view.metrics, linked.metrics) });
  if (!Array.isArray(state.view.filters)) state.view.filters = [];
}

// --- filters from a clicked row --------------------------------------------------------------

const FILTER_MEMBERS = ENTITY_FILTERS.concat(Object.keys(SOURCE_DIMENSIONS), ['product_id']);

// pick filters every view by a clicked row: member's value (null: not set), named name.
function pick(member, value, name) {
  state.view.filters = state.view.filters.filter((f) => f.member !== member).concat({ member, value, label: name });
  saveView();
  syncControls();
  load();
}

function dropFilter(member) {
  state.view.filters = state.view.filters.filter((f) => f.member !== member);
  saveView();
  syncControls();
  load();
}

// filterApplies says whether filter f applies to view page: the ad hierarchy's ids to every
// view; a traffic or order dimension not to Performance, whose spend no UTM, payment or product
// splits (the API answers such a filter in the traffic view, without spend).
function filterApplies(f, page) {
  return page !== 'performance' || ENTITY_FILTERS.includes(f.member);
}

// apiFilters are the query filters of view page.
function apiFilters(page) {
  return state.view.filters.filter((f) => filterApplies(f, page))
    .map((f) => (f.value == null ? { member: f.member, operator: 'notSet' } : { member: f.member, operator: 'equals', values: [f.value] }));
}

function memberLabel(member) {
  if (ENTITY_FILTERS.includes(member)) {
    const level = LEVEL_NAMES[member.slice(0, -3)];
    return level[0].toUpperCase() + level.slice(1);
  }
  return member === 'product_id' ? 'Product' : SOURCE_DIMENSIONS[member] || member;
}

// renderFilters shows a chip per filter, with a button that clears it; a filter the view cannot
// take is greyed, saying so.
function renderFilters() {
  const v = state.view;
  const box = $('filters');
  box.hidden = !v.filters.length;
  const chips = v.filters.map((f) => {
    const on = filterApplies(f, v.page);
    const chip = el('span', 'chip' + (on ? '' : ' off'));
    chip.dataset.member = f.member;
    chip.dataset.applied = String(on);
    const name = memberLabel(f.member) + ': ' + f.label;
    chip.append(el('span', 'chip-text', name + (on ? '' : ' (not on this view)')));
    const clear = el('button', 'chip-clear', '×');
    clear.type = 'button';
    clear.title = 'Clear the filter ' + name;
    clear.setAttribute('aria-label', clear.title);
    clear.addEventListener('click', () => dropFilter(f.member));
    chip.append(clear);
    return chip;
  });
  box.replaceChildren(el('span', 'filters-note', 'Filtered by'), ...chips);
  if (v.filters.some((f) => !filterApplies(f, v.page))) {
    box.append(el('span', 'filters-note', 'Ad spend has no UTM, payment method or product: Performance shows the whole project, Sources and Products apply it.'));
  }
}

function currentProject() {
  return state.projects.find((p) => p.id === state.view.project) || null;
}

// range is the view's {start, end} (dates in the project's zone, end included), or null when
// a custom date is missing.
function range(project) {
  const v = state.view;
  if (v.range === 'custom') return v.start && v.end ? { start: v.start, end: v.end } : null;
  const end = dates.today(project.timezone || 'UTC');
  return { start: dates.addDays(end, 1 - RANGE_DAYS[v.range]), end };
}

// --- sign-in ---------------------------------------------------------------------------------

function showSignIn(message) {
  abortLoad();
  $('app').hidden = true;
  $('signin').hidden = false;
  $('signin-error').hidden = !message;
  $('signin-error').textContent = message || '';
  $('signin-submit').disabled = false;
  $('signin-key').value = '';
  $('signin-pass').value = '';
  setSignInMode(state.signInMode);
  setState('signed-out');
}

// setSignInMode shows the e-mail and password fields ('password') or the API key's ('key').
function setSignInMode(mode) {
  state.signInMode = mode;
  for (const b of document.querySelectorAll('[data-signin]')) b.setAttribute('aria-pressed', String(b.dataset.signin === mode));
  $('signin-password').hidden = mode !== 'password';
  $('signin-apikey').hidden = mode !== 'key';
  (mode === 'key' ? $('signin-key') : $('signin-email').value ? $('signin-pass') : $('signin-email')).focus();
}

// refusal is the sign-in form's message for a credential the API refused.
function refusal(err) {
  if (err.status !== 401 && err.status !== 403) return err.message;
  return (api.key ? 'The API refused this key: ' : 'The API refused this sign-in: ') + err.message;
}

async function enter() {
  setState('loading');
  let projects;
  let fields = null;
  try {
    projects = await api.projects();
    if (projects.length) fields = await api.fields(projects[0].workspace_id);
  } catch (err) {
    const message = refusal(err);
    api.signOut();
    showSignIn(message);
    finish('signed-out');
    return;
  }
  state.projects = projects;
  $('signin').hidden = true;
  $('app').hidden = false;
  $('key-hint').textContent = api.who();
  restoreView();
  if (!currentProject() && projects.length) state.view.project = projects[0].id;
  if (fields) offerAttribution(fields.attribution);
  if (fields) state.served = Object.fromEntries(fields.dimensions.filter((d) => d.metrics).map((d) => [d.name, d.metrics]));
  $('project').replaceChildren(...projects.map((p) => {
    const o = el('option', '', p.name + ' · ' + p.currency);
    o.value = p.id;
    return o;
  }));
  syncControls();
  load();
}

// --- controls --------------------------------------------------------------------------------

// offerAttribution fills the model and window selectors with what metadata.attribution takes
// (choices, from GET /v3/fields) and sets a saved choice it no longer takes to the default.
function offerAttribution(choices) {
  const v = state.view;
  // The API's numbers arrive as their text (api.js).
  const [min, max, def] = ['min', 'max', 'default'].map((k) => Number(choices.window_days[k]));
  if (!choices.models.includes(v.model)) v.model = 'reported';
  const windows = [...new Set(WINDOWS.filter((d) => d >= min && d <= max).concat(def))].sort((a, b) => a - b);
  if (!windows.includes(Number(v.window))) v.window = String(def);
  $('model').replaceChildren(...choices.models.map((m) => {
    const o = el('option', '', MODEL_LABELS[m] || m);
    o.value = m;
    return o;
  }));
  $('window').replaceChildren(...windows.map((d) => {
    const o = el('option', '', d + (d === 1 ? ' day' : ' days'));
    o.value = String(d);
    return o;
  }));
}

// attribution is the view's metadata.attribution, or null for the reported model (the API's
// default, so the bodies stay as they were without one).
function attribution(v) {
  if (v.model === 'reported') return null;
  return { model: v.model, window_days: Number(v.window), date: v.clickDate ? 'click' : 'conversion' };
}

// syncAttribution sets the attribution controls, turned off with the reason in their title on the
// breakdown views, and the window and date under the reported model.
function syncAttribution() {
  const v = state.view;
  $('model').value = v.model;
  $('window').value = v.window;
  $('click-date').checked = v.clickDate;
  const why = v.page !== 'performance' ? ATTRIBUTION_OFF.breakdown : '';
  const windowWhy = why || (v.model === 'reported' ? ATTRIBUTION_OFF.reported : '');
  for (const [id, reason] of [['model', why], ['window', windowWhy], ['click-date', windowWhy]]) {
    const field = $(id).closest('.field');
    $(id).disabled = Boolean(reason);
    field.classList.toggle('off', Boolean(reason));
    field.title = reason;
  }
}

function syncControls() {
  const v = state.view;
  const page = v.page;
  for (const b of document.querySelectorAll('[data-page]')) b.setAttribute('aria-pressed', String(b.dataset.page === page));
  for (const e of document.querySelectorAll('.page-performance')) e.hidden = page !== 'performance';
  for (const e of document.querySelectorAll('.page-breakdown')) e.hidden = page === 'performance';
  $('level-field').hidden = page !== 'performance';
  tags.show(page);
  if (BREAKDOWNS[page]) {
    $('breakdown-dimension-field').hidden = page !== 'sources';
    $('breakdown-dimension').value = v.dimension;
    $('breakdown-title').textContent = BREAKDOWNS[page].title;
    const b = breakdownColumns();
    $('breakdown-metric').replaceChildren(...b.fields.map((f) => {
      const o = el('option', '', METRICS[f].label);
      o.value = f;
      return o;
    }));
    $('breakdown-metric').value = b.metric;
  }
  renderFilters();
  $('project').value = v.project;
  $('granularity').value = v.granularity;
  $('level').value = v.level;
  $('currency').value = v.currency;
  const project = currentProject();
  $('currency').options[0].textContent = project ? "Project's (" + project.currency + ')' : "Project's";
  for (const b of document.querySelectorAll('[data-range]')) b.setAttribute('aria-pressed', String(b.dataset.range === v.range));
  $('custom-range').hidden = v.range !== 'custom';
  $('range-start').value = v.start;
  $('range-end').value = v.end;
  syncAttribution();
}

function wireControls() {
  for (const b of document.querySelectorAll('[data-signin]')) b.addEventListener('click', () => setSignInMode(b.dataset.signin));
  $('signin-form').addEventListener('submit', async (e) => {
    e.preventDefault();
    if (state.signInMode === 'key') {
      const key = $('signin-key').value.trim();
      if (!key) return;
      $('signin-submit').disabled = true;
      api.signIn(key);
      enter();
      return;
    }
    $('signin-submit').disabled = true;
    setState('loading');
    try {
      await api.signInWithPassword($('signin-email').value.trim(), $('signin-pass').value);
    } catch (err) {
      showSignIn(refusal(err));
      finish('signed-out');
      return;
    }
    enter();
  });
  $('signout').addEventListener('click', () => {
    api.signOut();
    showSignIn('');
  });
  const change = (id, prop) => $(id).addEventListener('change', () => {
    state.view[prop] = $(id).value;
    saveView();
    syncControls();
    load();
  });
  change('project', 'project');
  change('granularity', 'granularity');
  change('level', 'level');
  change('currency', 'currency');
  change('model', 'model');
  change('window', 'window');
  $('click-date').addEventListener('change', () => {
    state.view.clickDate = $('click-date').checked;
    saveView();
    syncControls();
    load();
  });
  change('range-start', 'start');
  change('range-end', 'end');
  change('breakdown-dimension', 'dimension');
  $('breakdown-dimension').replaceChildren(...Object.entries(SOURCE_DIMENSIONS).map(([d, label]) => {
    const o = el('option', '', label);
    o.value = d;
    return o;
  }));
  $('breakdown-metric').addEventListener('change', () => {
    state.view.metrics[state.view.page] = $('breakdown-metric').value;
    saveView();
    load();
  });
  for (const b of document.querySelectorAll('[data-page]')) {
    b.addEventListener('click', () => {
      state.view.page = b.dataset.page;
      saveView();
      syncControls();
      load();
    });
  }
  for (const b of document.querySelectorAll('[data-range]')) {
    b.addEventListener('click', () => {
      const project = currentProject();
      if (b.dataset.range === 'custom' && state.view.range !== 'custom' && project) {
        Object.assign(state.view, range(project)); // start from the dates shown
      }
      state.view.range = b.dataset.range;
      saveView();
      syncControls();
      load();
    });
  }
  $('refresh').addEventListener('click', load);
  // An address edited or pasted in this tab names another view.
  window.addEventListener('hashchange', () => {
    if ($('app').hidden) return;
    restoreView();
    syncControls();
    load();
  });
  let frame = 0;
  new ResizeObserver(() => {
    cancelAnimationFrame(frame);
    frame = requestAnimationFrame(drawCharts);
  }).observe($('chart-money'));
  new ResizeObserver(fitKpis).observe($('kpis'));
}

// --- loading ---------------------------------------------------------------------------------

function abortLoad() {
  if (state.controller) state.controller.abort();
  state.controller = null;
}

// bodies are the queries of the view. Performance: the time series, the totals, and the rows
// by entity (none at project level, where the totals are the one row); Sources and Products:
// breakdown.bodies.
// Performance adds, beside the ad view's totals, the traffic view's of the same range (all
// revenue, attributed or not; none under a filter, which the traffic total would not share)
// and, under a model, the reported attribution's (what the model moves).
function bodies(project, r) {
  const v = state.view;
  if (v.page !== 'performance') {
    const b = breakdownColumns();
    return breakdown.bodies(v.page, { project: project.id, start: r.start, end: r.end },
      { dimension: v.dimension, metric: b.metric, fields: b.fields, granularity: v.granularity, currency: v.currency, filters: apiFilters(v.page) });
  }
  const credit = attribution(v);
  const meta = Object.assign({}, v.currency ? { convert_to_currency: v.currency } : null, credit ? { attribution: credit } : null);
  const withMeta = (b, extra) => {
    const m = Object.assign({}, meta, extra);
    if (Object.keys(m).length) b.metadata = m;
    return b;
  };
  const time = { start: r.start, end: r.end };
  const filters = apiFilters('performance');
  const filtered = (b) => (filters.length ? Object.assign(b, { filters }) : b);
  const currency = v.currency ? { convert_to_currency: v.currency } : {};
  const series = (t) => filtered(withMeta({ project_id: project.id, fields: SERIES_FIELDS.concat(chartTile() && !SERIES_FIELDS.includes(v.chart) ? [v.chart] : []),
    time: Object.assign({ granularity: v.granularity }, t) }));
  return {
    series: series(time),
    // The charts draw the period just before by its own buckets, each at its time moved onto
    // this period (time.compare would pair buckets by their rank, which rows missing or coarser
    // than asked shift); the cards compare with it in the same request.
    previous: series(previousRange(r)),
    totals: filtered(withMeta({ project_id: project.id, fields: TABLE_FIELDS, time: Object.assign({ compare: 'previous_period' }, time) })),
    table: v.level === 'project' ? null
      : filtered(withMeta({ project_id: project.id, fields: TABLE_FIELDS, time, order: { spend: 'desc' }, limit: 1000, total: true }, { level: v.level })),
    traffic: filters.length ? null : { project_id: project.id, fields: ['tx_revenue', 'tx_count'], time, metadata: Object.assign({ dimensions: [] }, currency) },
    reported: attribution(v) ? filtered(Object.assign({ project_id: project.id, fields: ['tx_revenue', 'tx_count'], time }, v.currency ? { metadata: currency } : null)) : null,
  };
}

// previousRange is the period as long as r just before it (time.compare's previous_period).
function previousRange(r) {
  const days = Math.round((Date.parse(r.end) - Date.parse(r.start)) / 864e5) + 1;
  return { start: dates.addDays(r.start, -days), end: dates.addDays(r.start, -1) };
}

// breakdownColumns are the Sources or Products view's columns for its dimension and filters,
// and the metric of its bars: the one chosen, else revenue where the dimension lacks it.
function breakdownColumns() {
  const v = state.view;
  const fields = breakdown.columns(v.page, v.dimension, state.served, v.filters.map((f) => f.member));
  return { fields, metric: fields.includes(v.metrics[v.page]) ? v.metrics[v.page] : 'tx_revenue' };
}

async function load() {
  abortLoad();
  const project = currentProject();
  if (!project) {
    showError({ message: 'This key\'s workspace has no projects yet.' });
    finish('error');
    return;
  }
  if (state.view.page === 'tags') {
    setState('loading');
    tags.load((s, err) => {
      if (err) showError(err);
      else showAnswered([]);
      finish(s);
    });
    return;
  }
  const r = range(project);
  if (!r) {
    showError({ message: 'Pick both dates of the custom range.' });
    finish('error');
    return;
  }
  const controller = new AbortController();
  state.controller = controller;
  const b = bodies(project, r);
  showRequests(b);
  setState('loading');
  $('loading').hidden = false;
  document.querySelector('.content').classList.add('is-loading');
  try {
    const names = Object.keys(b);
    const answers = await Promise.all(names.map((n) => (b[n] ? api.query(b[n], controller.signal, project.workspace_id) : null)));
    if (controller !== state.controller) return;
    const res = Object.fromEntries(names.map((n, i) => [n, answers[i]]));
    if (state.view.page === 'performance') render(project, r, res);
    else renderBreakdown(project, r, res);
    finish('ready');
  } catch (err) {
    if (err.name === 'AbortError' || controller !== state.controller) return;
    if (err.status === 401) {
      const message = refusal(err);
      api.signOut();
      showSignIn(message);
      finish('signed-out');
      return;
    }
    showError(err);
    finish('error');
  }
}

function finish(s) {
  state.controller = null;
  $('loading').hidden = true;
  document.querySelector('.content').classList.remove('is-loading');
  setState(s);
  document.body.dataset.seq = String(++state.seq);
}

// --- rendering -------------------------------------------------------------------------------

// showAnswered clears an earlier error and lists the answers' warnings in plain words, each
// with the API's own text as data-raw and on hover.
function showAnswered(answers) {
  $('error').hidden = true;
  document.querySelector('.content').classList.remove('has-error');
  const warnings = [...new Set(answers.flatMap((x) => (x && x.warnings) || []))];
  $('warning-list').replaceChildren(...warnings.map((w) => {
    const li = el('li', '', plainWarning(w));
    li.dataset.raw = w;
    li.title = 'The API: ' + w;
    return li;
  }));
  $('warnings').hidden = !warnings.length;
}

function renderBreakdown(project, r, res) {
  const v = state.view;
  const currency = res.breakdown.currency;
  showAnswered(Object.values(res));
  $('title').textContent = project.name;
  $('subtitle').textContent = fmt.longDate(r.start) + ' – ' + fmt.longDate(r.end) + ' · trends by ' + v.granularity + ' · ' + currency;
  const rows = res.breakdown.data;
  const all = res.breakdown.total_rows;
  const b = breakdownColumns();
  const dropped = BREAKDOWNS[v.page].fields.filter((f) => !b.fields.includes(f));
  $('breakdown-note').textContent = (all > rows.length ? fmt.count(rows.length) + ' of ' : '') + fmt.count(all) + (Number(all) === 1 ? ' row' : ' rows') +
    ' by ' + METRICS[b.metric].label.toLowerCase() + '. ' +
    (v.page === 'products' ? 'Sales count the orders that hold the product: an order of several products counts in each.'
      : v.filters.some((f) => ENTITY_FILTERS.includes(f.member))
        ? 'The orders and events credited to the filtered ' + memberLabel(v.filters.find((f) => ENTITY_FILTERS.includes(f.member)).member).toLowerCase() + ' (the traffic view).'
        : 'All revenue: every order, credited to an ad or not (the traffic view); Performance shows the revenue credited to ads.') +
    (dropped.length && v.page === 'sources' ? ' Orders only: ' + dropped.map((f) => METRICS[f].label.toLowerCase()).join(', ') + ' have no ' +
      (ORDER_DIMENSIONS.includes(v.dimension) ? SOURCE_DIMENSIONS[v.dimension].toLowerCase() : 'product') + '.' : '');
  $('breakdown-note').dataset.total = String(all);
  breakdown.show($('breakdown-table'), v.page,
    { dimension: v.dimension, metric: b.metric, fields: b.fields, granularity: v.granularity, tz: project.timezone || 'UTC', range: r, pick }, res, currency);
}

function render(project, r, res) {
  const v = state.view;
  const currency = res.totals.currency;
  showAnswered([res.series, res.previous, res.totals, res.table, res.traffic, res.reported]);
  // Rows answered coarser than asked carry their granularity (days whose ad data exists only
  // per day inside an hour chart, ad metrics at hour in a sub-hour one, a fallback).
  const rows = res.series.data;
  const marked = [...new Set(rows.map((x) => x.granularity).filter(Boolean))];
  let granularity = v.granularity;
  if (marked.length === 1 && rows.every((x) => x.granularity)) granularity = marked[0];
  const some = granularity === v.granularity ? marked.map((g) => 'some rows by ' + g) : [];
  $('title').textContent = project.name;
  $('subtitle').textContent = fmt.longDate(r.start) + ' – ' + fmt.longDate(r.end) + ' · by ' + granularity +
    (granularity === v.granularity ? '' : ' (asked: ' + v.granularity + ')') + some.map((x) => ' (' + x + ')').join('') +
    ' · ' + currency + attributionNote(attribution(v));

  const totals = res.totals.data[0] || {};
  $('kpis').replaceChildren(...KPIS.map((k) => {
    const card = el('div', 'kpi');
    card.dataset.key = k.key;
    card.dataset.value = totals[k.key] == null ? 'null' : totals[k.key];
    if (k.charts) {
      card.dataset.charts = k.key;
      card.tabIndex = 0;
      card.setAttribute('role', 'button');
      card.setAttribute('aria-pressed', String(v.chart === k.key));
      card.title = v.chart === k.key ? 'Back to spend and revenue on the chart' : 'Draw ' + (k.label || METRICS[k.key].label).toLowerCase() + ' on the chart';
      const press = () => chartMetric(v.chart === k.key ? '' : k.key);
      card.addEventListener('click', press);
      card.addEventListener('keydown', (e) => {
        if (e.key === 'Enter' || e.key === ' ') {
          e.preventDefault();
          press();
        }
      });
    }
    // The exact value, or where it does not fit its card the short one (fitKpis), with the exact
    // value on hover.
    const value = el('div', 'kpi-value', fmt.metric(k.key, totals[k.key], currency));
    value.title = value.textContent;
    value.dataset.short = fmt.short(k.key, totals[k.key], currency);
    if (typeof totals[k.key] === 'string' && totals[k.key].startsWith('-')) value.classList.add('neg');
    // The change against the previous period: its arrow says which way, not whether it is good.
    const delta = totals.change ? totals.change[k.key] : null;
    card.dataset.change = delta == null ? 'null' : String(delta);
    const change = el('div', 'kpi-change', fmt.change(delta) + ' vs previous period');
    change.title = 'Against ' + fmt.longDate(res.totals.compare_time.start) + ' – ' + fmt.longDate(res.totals.compare_time.end);
    if (delta != null) change.classList.add(delta > 0 ? 'up' : delta < 0 ? 'down' : 'flat');
    card.append(el('div', 'kpi-label', k.label || METRICS[k.key].label), value, el('div', 'kpi-sub', k.sub(totals, currency)), change);
    return card;
  }));
  fitKpis();
  renderViews(res, currency, totals);

  const tz = project.timezone || 'UTC';
  const previous = { rows: res.previous.data, shift: dates.midnight(r.start, tz) - dates.midnight(previousRange(r).start, tz) };
  state.charts = { rows, currency, granularity, tz, range: r, previous };
  drawCharts();

  const level = v.level;
  $('table-title').textContent = level === 'project' ? 'Project total' : 'By ' + LEVEL_NAMES[level];
  const tableRows = res.table ? res.table.data : res.totals.data;
  const all = res.table ? res.table.total_rows : tableRows.length;
  $('table-note').textContent = (all > tableRows.length ? fmt.count(tableRows.length) + ' of ' : '') + fmt.count(all) +
    (Number(all) === 1 ? ' row' : ' rows') + (res.table && res.table.has_more ? ' · the first ' + fmt.count(tableRows.length) + ' by spend' : '');
  $('table-note').dataset.total = String(all);
  const complete = !res.table || !res.table.has_more;
  entityTable.show($('table'), { rows: tableRows, level, currency, totals, complete, projectName: project.name, pick: (lv, row, name) => pick(lv + '_id', row[lv + '_id'], name) });
  const foot = level === 'project' ? { summed: false } : entityTable.footTotals();
  if (foot.summed) {
    $('table-note').textContent += ' · Total: what these rows add up to; the ad view\'s own total (the cards) is not their sum: ' +
      foot.differs.map((f) => METRICS[f].label.toLowerCase() + ' ' + fmt.metric(f, totals[f], currency)).join(', ');
  }
}

// chartMetric draws metric on the first chart ('' for spend and revenue), asking for it where
// the series lacks it.
function chartMetric(metric) {
  state.view.chart = metric;
  saveView();
  if (!metric || SERIES_FIELDS.includes(metric)) {
    for (const t of document.querySelectorAll('#kpis [data-charts]')) t.setAttribute('aria-pressed', String(t.dataset.charts === metric));
    drawCharts();
  } else load();
}

// renderViews puts the two views side by side: the revenue credited to ads (this view, the ad
// view) and all revenue (the traffic view, as Sources shows it), the difference being the
// orders no ad is credited with; and what the model chosen moves against the reported one.
function renderViews(res, currency, totals) {
  const v = state.view;
  const item = (key, label, money, count) => {
    const s = el('span', 'view-item');
    s.dataset.key = key;
    s.dataset.value = money == null ? 'null' : money;
    s.dataset.count = count == null ? 'null' : count;
    s.append(label + ' ', el('strong', '', fmt.money(money, currency)), ' · ' + fmt.count(count) + ' sales');
    return s;
  };
  const items = [item('attributed', 'Attributed to ads:', totals.tx_revenue, totals.tx_count)];
  const notes = [];
  const all = res.traffic && res.traffic.currency === currency ? res.traffic.data[0] || {} : null;
  if (all) {
    items.push(item('all', 'All revenue (every order, as on Sources):', all.tx_revenue, all.tx_count));
    const left = dec.sub(all.tx_revenue, totals.tx_revenue);
    if (left != null && dec.cmp(left, '0') >= 0) items.push(item('unattributed', 'Unattributed:', left, dec.sub(all.tx_count, totals.tx_count)));
    else if (left != null) notes.push('The ads are credited more revenue than this range\'s orders hold (the two views disagree here), so no unattributed amount can be worked out.');
  } else if (res.traffic === null && v.filters.length) notes.push('Filtered to part of the ads: all revenue and the unattributed orders are for the whole project, so they are left out here.');
  const a = attribution(v);
  if (a && res.reported) {
    const base = res.reported.data[0] || {};
    const moved = base.tx_revenue == null || Number(base.tx_revenue) === 0 ? null : (Number(totals.tx_revenue) - Number(base.tx_revenue)) / Math.abs(Number(base.tx_revenue));
    notes.push((MODEL_LABELS[a.model] || a.model) + ' (' + a.window_days + '-day window' + (a.date === 'click' ? ', by click date' : '') + ') credits the ads ' +
      fmt.money(totals.tx_revenue, currency) + ' (' + fmt.count(totals.tx_count) + ' sales); the reported attribution ' + fmt.money(base.tx_revenue, currency) +
      ' (' + fmt.count(base.tx_count) + ')' + (moved == null ? '.' : ': ' + fmt.change(moved) + (moved > 0 ? ' more.' : moved < 0 ? ' less.' : ', the same.')));
    $('views').dataset.moved = moved == null ? 'null' : String(moved);
  } else {
    notes.push('Reported attribution: each order is credited to the ad its own UTM names, else its lead\'s latest one; choose a model to see what it moves.');
    delete $('views').dataset.moved;
  }
  $('views').replaceChildren(...items, ...notes.map((n) => el('span', 'view-note', n)));
}

// attributionNote names a model's attribution for the subtitle ('' for the reported one).
function attributionNote(a) {
  if (!a) return '';
  return ' · ' + (MODEL_LABELS[a.model] || a.model) + ', ' + a.window_days + '-day window' + (a.date === 'click' ? ', by click date' : '');
}

// fitKpis shows each total whole: its exact value where it fits its card, in a smaller type if
// need be, else its short form.
function fitKpis() {
  for (const v of document.querySelectorAll('#kpis .kpi-value')) {
    v.textContent = v.title;
    v.classList.remove('kpi-value-small');
    if (v.scrollWidth > v.clientWidth) v.classList.add('kpi-value-small');
    if (v.scrollWidth > v.clientWidth) {
      v.classList.remove('kpi-value-small');
      v.textContent = v.dataset.short;
    }
  }
}

function drawCharts() {
  const c = state.charts;
  if (!c) return;
  const previous = c.previous.rows.length > 0;
  const tile = chartTile();
  const chosen = tile ? [{ key: tile.key, label: tile.label || METRICS[tile.key].label, color: '#4f46e5' }] : MONEY_SERIES;
  $('title-money').textContent = tile ? chosen[0].label : 'Spend and revenue';
  renderLegend($('legend-money'), chosen, 'line', previous);
  renderLegend($('legend-roas'), ROAS_SERIES, 'bar', previous);
  const charts = [
    ['money', { type: 'line', series: chosen, kind: tile ? METRICS[tile.key].kind : 'money', title: $('title-money').textContent + ' over time' }],
    ['roas', { type: 'bar', series: ROAS_SERIES, kind: 'multiple', title: 'ROAS over time' }],
  ];
  for (const [name, chart] of charts) {
    const drawn = renderChart($('chart-' + name), { ...chart, ...c });
    // What the chart draws otherwise than as the rows read, said under it.
    const notes = [];
    if (drawn.coarse) notes.push('Dotted steps: days whose ad data is kept per day only, drawn as their average per ' + c.granularity + ' (hover for the whole day).');
    if (drawn.cut != null) {
      notes.push('The axis runs from ' + drawn.cut.map((x) => fmt.axis(x, chart.kind, c.currency)).join(' to ') + ' so that ' +
        (drawn.over === 1 ? 'one outlier does' : drawn.over + ' outliers do') + ' not flatten the rest: each is marked ▲ or ▼ at its end (hover for its value).');
    }
    $('note-' + name).textContent = notes.join(' ');
    $('note-' + name).hidden = !notes.length;
    $('note-' + name).dataset.cut = drawn.cut == null ? 'null' : drawn.cut.join(' ');
  }
}

function showError(err) {
  const box = $('error');
  box.replaceChildren(el('strong', 'error-message', err.message));
  if (err.details && err.details.length) {
    const ul = el('ul');
    for (const d of err.details) ul.append(el('li', '', d));
    box.append(ul);
  }
  const meta = [err.status ? 'HTTP ' + err.status : '', err.code, err.requestId ? 'request ' + err.requestId : ''].filter(Boolean);
  if (meta.length) box.append(el('div', 'error-meta', meta.join(' · ')));
  box.hidden = false;
  $('warnings').hidden = true;
  $('subtitle').textContent = '';
  document.querySelector('.content').classList.add('has-error');
  state.charts = null;
  for (const id of ['kpis', 'views', 'chart-money', 'chart-roas', 'table', 'legend-money', 'legend-roas', 'breakdown-table']) $(id).replaceChildren();
  $('table-note').textContent = '';
  $('breakdown-note').textContent = '';
  $('note-money').hidden = true;
  $('note-roas').hidden = true;
}

function showRequests(b) {
  const names = {
    series: 'Time series', previous: 'Previous period', totals: 'Totals', table: 'By entity', traffic: 'All revenue (traffic view)', reported: 'Reported attribution',
    breakdown: 'Rows by dimension', trend: 'Trends by dimension', total: 'Traffic total',
  };
  $('requests').replaceChildren(...Object.entries(b).filter(([, body]) => body).map(([name, body]) => {
    const block = el('div', 'request');
    const pre = el('pre', '', 'POST /v3/query\n' + JSON.stringify(body, null, 2));
    pre.id = 'request-' + name;
    pre.dataset.body = JSON.stringify(body);
    block.append(el('h3', '', names[name]), pre);
    return block;
  }));
}

document.addEventListener('DOMContentLoaded', () => {
  wireControls();
  tags.wire();
  if (api.signedIn()) enter();
  else showSignIn('');
});

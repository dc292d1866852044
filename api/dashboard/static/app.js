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
const KPIS = [
  { key: 'spend', sub: (t, cur) => 'CPC ' + fmt.metric('cpc', t.cpc, cur) },
  { key: 'tx_revenue', sub: (t) => fmt.count(t.tx_count) + ' sales' },
  { key: 'roas', sub: () => 'Revenue ÷ spend' },
  { key: 'profit', sub: () => 'Revenue − spend − costs' },
  { key: 'impressions', sub: () => '' },
  { key: 'clicks', sub: (t) => 'CTR ' + fmt.percent(t.ctr) },
];

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
  },
  controller: null,
  seq: 0,
  signInMode: 'password',
  charts: null, // the last chart data, drawn again when the page is resized
};

function setState(s) {
  document.body.dataset.state = s;
}

function saveView() {
  sessionStorage.setItem(VIEW_STORAGE, JSON.stringify(state.view));
}

function restoreView() {
  try {
    Object.assign(state.view, JSON.parse(sessionStorage.getItem(VIEW_STORAGE) || '{}'));
  } catch (_) { /* a bad saved view is ignored */ }
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
    $('breakdown-metric').replaceChildren(...BREAKDOWNS[page].fields.map((f) => {
      const o = el('option', '', METRICS[f].label);
      o.value = f;
      return o;
    }));
    $('breakdown-metric').value = v.metrics[page];
  }
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
function bodies(project, r) {
  const v = state.view;
  if (v.page !== 'performance') {
    return breakdown.bodies(v.page, { project: project.id, start: r.start, end: r.end },
      { dimension: v.dimension, metric: v.metrics[v.page], granularity: v.granularity, currency: v.currency });
  }
  const credit = attribution(v);
  const meta = Object.assign({}, v.currency ? { convert_to_currency: v.currency } : null, credit ? { attribution: credit } : null);
  const withMeta = (b, extra) => {
    const m = Object.assign({}, meta, extra);
    if (Object.keys(m).length) b.metadata = m;
    return b;
  };
  const time = { start: r.start, end: r.end };
  return {
    series: withMeta({ project_id: project.id, fields: ['spend', 'tx_revenue', 'roas'], time: Object.assign({ granularity: v.granularity }, time) }),
    // The cards compare with the period just before, in the same request.
    totals: withMeta({ project_id: project.id, fields: TABLE_FIELDS, time: Object.assign({ compare: 'previous_period' }, time) }),
    table: v.level === 'project' ? null
      : withMeta({ project_id: project.id, fields: TABLE_FIELDS, time, order: { spend: 'desc' }, limit: 1000, total: true }, { level: v.level }),
  };
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

// showAnswered clears an earlier error and lists the answers' warnings.
function showAnswered(answers) {
  $('error').hidden = true;
  document.querySelector('.content').classList.remove('has-error');
  const warnings = [...new Set(answers.flatMap((x) => (x && x.warnings) || []))];
  $('warning-list').replaceChildren(...warnings.map((w) => el('li', '', w)));
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
  $('breakdown-note').textContent = (all > rows.length ? fmt.count(rows.length) + ' of ' : '') + fmt.count(all) + (all === 1 ? ' row' : ' rows') +
    ' by ' + METRICS[v.metrics[v.page]].label.toLowerCase() +
    (v.page === 'products' ? '. Sales count the orders that hold the product: an order of several products counts in each.' : '.');
  $('breakdown-note').dataset.total = String(all);
  breakdown.show($('breakdown-table'), v.page,
    { dimension: v.dimension, metric: v.metrics[v.page], granularity: v.granularity, tz: project.timezone || 'UTC', range: r }, res, currency);
}

function render(project, r, res) {
  const v = state.view;
  const currency = res.totals.currency;
  showAnswered([res.series, res.totals, res.table]);
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
    card.append(el('div', 'kpi-label', METRICS[k.key].label), value, el('div', 'kpi-sub', k.sub(totals, currency)), change);
    return card;
  }));
  fitKpis();

  state.charts = { rows, currency, granularity, tz: project.timezone || 'UTC', range: r };
  drawCharts();

  const level = v.level;
  $('table-title').textContent = level === 'project' ? 'Project total' : 'By ' + LEVEL_NAMES[level];
  const tableRows = res.table ? res.table.data : res.totals.data;
  const all = res.table ? res.table.total_rows : tableRows.length;
  $('table-note').textContent = (all > tableRows.length ? fmt.count(tableRows.length) + ' of ' : '') + fmt.count(all) +
    (all === 1 ? ' row' : ' rows') + (res.table && res.table.has_more ? ' · the first ' + fmt.count(tableRows.length) + ' by spend' : '');
  $('table-note').dataset.total = String(all);
  entityTable.show($('table'), { rows: tableRows, level, currency, totals, projectName: project.name });
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
  renderLegend($('legend-money'), MONEY_SERIES, 'line');
  renderLegend($('legend-roas'), ROAS_SERIES, 'bar');
  renderChart($('chart-money'), { type: 'line', series: MONEY_SERIES, kind: 'money', title: 'Spend and revenue over time', ...c });
  renderChart($('chart-roas'), { type: 'bar', series: ROAS_SERIES, kind: 'multiple', title: 'ROAS over time', ...c });
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
  for (const id of ['kpis', 'chart-money', 'chart-roas', 'table', 'legend-money', 'legend-roas', 'breakdown-table']) $(id).replaceChildren();
  $('table-note').textContent = '';
  $('breakdown-note').textContent = '';
}

function showRequests(b) {
  const names = { series: 'Time series', totals: 'Totals', table: 'By entity', breakdown: 'Rows by dimension', trend: 'Trends by dimension', total: 'Traffic total' };
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

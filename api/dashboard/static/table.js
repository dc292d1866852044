'use strict';
// table.js: the table of entities at the chosen level, sorted by clicking a header; a row's name
// filters the dashboard by it. Each cell carries the API's value as data-value (exact text,
// "null" for null) and its column's name as data-label (the phone layout shows it).

const TABLE_FIELDS = ['spend', 'impressions', 'clicks', 'ctr', 'cpc', 'tx_revenue', 'tx_count', 'roas', 'profit'];
const SOURCE_LABELS = { alpha_ads: 'Alpha Ads', beta_ads: 'Beta Ads', gamma_ads: 'Gamma Ads' };
const LEVEL_NAMES = { project: 'project', account: 'account', campaign: 'campaign', adset: 'ad set', ad: 'ad' };
// The columns that add up over rows; the others are ratios of them, worked out again for a total
// the page adds up (footTotals).
const ADDITIVE = ['spend', 'impressions', 'clicks', 'tx_revenue', 'tx_count', 'profit'];
const RATIOS = { ctr: ['clicks', 'impressions'], cpc: ['spend', 'clicks'], roas: ['tx_revenue', 'spend'] };

const entityTable = {
  sort: { key: 'spend', dir: 'desc' },
  data: null,
  box: null,

  // show draws d = {rows, level, currency, totals, complete, projectName, pick} into box; complete
  // says the rows are all the answer's (no has_more), pick(level, row, name) filters by a row.
  show(box, d) {
    this.box = box;
    this.data = d;
    this.render();
  },

  sortBy(key) {
    if (this.sort.key === key) this.sort.dir = this.sort.dir === 'asc' ? 'desc' : 'asc';
    else this.sort = { key, dir: key === 'name' ? 'asc' : 'desc' };
    this.render();
  },

  entries() {
    const d = this.data;
    return d.rows.map((row) => {
      if (d.level === 'project') return { row, key: '', name: d.projectName, sub: 'All sources', unattributed: false };
      const id = row[d.level + '_id'];
      const source = row.source || '';
      const name = row[d.level + '_name'];
      return {
        row,
        key: source + '|' + (id == null ? '' : id),
        name: id == null ? 'Not linked to ' + (d.level === 'campaign' ? 'a ' : 'an ') + LEVEL_NAMES[d.level] : name || id,
        sub: (SOURCE_LABELS[source] || source) + (id == null ? '' : ' · ' + id),
        unattributed: id == null,
      };
    });
  },

  sorted() {
    const { key, dir } = this.sort;
    const sign = dir === 'asc' ? 1 : -1;
    const byName = (a, b) => a.name.localeCompare(b.name, LOCALE, { numeric: true, sensitivity: 'base' }) || a.key.localeCompare(b.key);
    return this.entries().sort((a, b) => {
      if (key === 'name') return sign * byName(a, b);
      const va = a.row[key];
      const vb = b.row[key];
      if (va == null || vb == null) return (va == null) - (vb == null) || byName(a, b); // nulls last, either way
      return sign * (Number(va) - Number(vb)) || byName(a, b);
    });
  },

  render() {
    const d = this.data;
    const table = el('table', 'data-table');
    table.id = 'entity-table';
    const head = el('tr');
    const columns = [{ key: 'name', label: d.level === 'project' ? 'Project' : LEVEL_NAMES[d.level][0].toUpperCase() + LEVEL_NAMES[d.level].slice(1) }]
      .concat(TABLE_FIELDS.map((f) => ({ key: f, label: METRICS[f].label })));
    for (const col of columns) {
      const th = el('th', col.key === 'name' ? 'col-name' : 'num');
      th.scope = 'col';
      th.dataset.key = col.key;
      th.setAttribute('aria-sort', this.sort.key === col.key ? (this.sort.dir === 'asc' ? 'ascending' : 'descending') : 'none');
      const btn = el('button', 'sort', col.label);
      btn.type = 'button';
      btn.append(el('span', 'sort-arrow', this.sort.key === col.key ? (this.sort.dir === 'asc' ? '▲' : '▼') : ''));
      btn.addEventListener('click', () => this.sortBy(col.key));
      th.append(btn);
      head.append(th);
    }
    table.append(el('thead'));
    table.tHead.append(head);

    const body = el('tbody');
    for (const e of this.sorted()) {
      const tr = el('tr');
      tr.dataset.key = e.key;
      const name = el('td', 'col-name' + (e.unattributed ? ' unattributed' : ''));
      name.dataset.key = 'name';
      if (d.pick && !e.unattributed && d.level !== 'project') {
        const pick = el('button', 'pick name', e.name);
        pick.type = 'button';
        pick.title = 'Show only ' + e.name + ' in every view';
        pick.addEventListener('click', () => d.pick(d.level, e.row, e.name));
        name.append(pick, el('div', 'sub', e.sub));
      } else name.append(el('div', 'name', e.name), el('div', 'sub', e.sub));
      tr.append(name);
      for (const f of TABLE_FIELDS) tr.append(cell(f, e.row[f], d.currency));
      body.append(tr);
    }
    if (!d.rows.length) {
      const tr = el('tr');
      const td = el('td', 'empty', 'No ' + LEVEL_NAMES[d.level] + ' has data in this range.');
      td.colSpan = columns.length;
      tr.append(td);
      body.append(tr);
    }
    table.append(body);

    if (d.totals && d.level !== 'project' && d.rows.length) {
      const foot = el('tfoot');
      const tr = el('tr');
      const total = this.footTotals();
      const name = el('td', 'col-name', 'Total');
      name.dataset.key = 'name';
      if (total.summed) name.append(el('div', 'sub', 'the rows added up'));
      tr.append(name);
      for (const f of TABLE_FIELDS) tr.append(cell(f, total.values[f], d.currency));
      foot.append(tr);
      table.append(foot);
    }
    this.box.replaceChildren(table);
  },

  // footTotals is the total row: the API's totals, or where its additive columns differ from the
  // sum of the rows shown (under an attribution model the ad view's total can hold credits no
  // row shows) and every row is shown, the rows added up, with the ratios worked out from those
  // sums; summed says which, and differs lists the columns where the API's total differs.
  footTotals() {
    const d = this.data;
    const sums = Object.fromEntries(ADDITIVE.map((f) => [f, dec.sum(d.rows.map((r) => r[f]))]));
    const differs = ADDITIVE.filter((f) => sums[f] != null && d.totals[f] != null && dec.cmp(sums[f], d.totals[f]) !== 0);
    if (!d.complete || !differs.length) return { values: d.totals, summed: false, differs: [] };
    const values = Object.assign({}, sums);
    for (const [f, [num, den]] of Object.entries(RATIOS)) {
      values[f] = sums[num] == null || sums[den] == null || Number(sums[den]) === 0 ? null : String(Number(sums[num]) / Number(sums[den]));
    }
    return { values, summed: true, differs };
  },
};

function cell(field, value, currency) {
  const td = el('td', 'num', fmt.metric(field, value, currency));
  td.dataset.key = field;
  td.dataset.label = METRICS[field].label;
  td.dataset.value = value == null ? 'null' : value;
  if (typeof value === 'string' && value.startsWith('-')) td.classList.add('neg');
  return td;
}

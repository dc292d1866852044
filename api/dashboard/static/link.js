'use strict';
// link.js: the view in the page's address (its hash), so that a view can be shared or
// bookmarked: #page=sources&range=30d&granularity=hour&filter=utm_source%3Anewsletter&…
// The address wins over what the tab kept; a filter is member:value (an empty value is "not
// set"), with its label beside it.

const LINK_KEYS = ['page', 'project', 'range', 'start', 'end', 'granularity', 'level', 'currency', 'dimension', 'model', 'window', 'chart'];
const PAGES = ['performance', 'sources', 'products'];
// The members a clicked row filters by: the ad hierarchy's ids, and the traffic and order
// dimensions of the Sources and Products views.
const ENTITY_FILTERS = ['account_id', 'campaign_id', 'adset_id', 'ad_id'];

const link = {
  // write puts view v in the address, replacing the history entry (each change is not a step
  // back).
  write(v) {
    const q = new URLSearchParams();
    for (const k of LINK_KEYS) if (v[k] !== '' && v[k] != null) q.set(k, v[k]);
    if (v.clickDate) q.set('click_date', '1');
    if (v.page !== 'performance') q.set('metric', v.metrics[v.page]);
    for (const f of v.filters) {
      q.append('filter', f.member + ':' + (f.value == null ? '' : f.value));
      q.append('label', f.label);
    }
    const hash = '#' + q.toString();
    if (location.hash !== hash) history.replaceState(null, '', location.pathname + location.search + hash);
  },

  // read is the part of a view the address names, or null when it names none; members
  // (filterable members) bounds the filters it takes.
  read(members) {
    const q = new URLSearchParams(location.hash.slice(1));
    if (![...q.keys()].length) return null;
    const v = {};
    for (const k of LINK_KEYS) if (q.has(k)) v[k] = q.get(k);
    if (v.page && !PAGES.includes(v.page)) delete v.page;
    v.clickDate = q.get('click_date') === '1';
    if (q.has('metric') && v.page && v.page !== 'performance') v.metrics = { [v.page]: q.get('metric') };
    const labels = q.getAll('label');
    v.filters = q.getAll('filter').map((x, i) => {
      const at = x.indexOf(':');
      const value = at < 0 ? '' : x.slice(at + 1);
      return { member: at < 0 ? x : x.slice(0, at), value: value === '' ? null : value, label: labels[i] || value || '(not set)' };
    }).filter((f) => members.includes(f.member));
    return v;
  },
};

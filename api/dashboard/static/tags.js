'use strict';
// tags.js: the Tags view. For a container of the signed-in user's workspaces: the line that
// installs its tag (with a copy button), its triggers with their last firing and 24-hour count
// (GET /v3/tracking/containers/{id}/trigger-stats), and an editor for a trigger's type,
// conditions, selector and thresholds, saved through the trigger routes with the user's login.

// The members each trigger type takes beyond its names (CONTRACT.md, "The tag"); client types
// also take conditions and a fire mode.
const TRIGGER_TYPES = {
  page_view: { label: 'Page view', client: true, members: [] },
  page_view_duration: { label: 'Time on page', client: true, members: ['seconds'] },
  element_click: { label: 'Element click', client: true, members: ['selector'] },
  element_view: { label: 'Element visible', client: true, members: ['selector', 'percent'] },
  element_hover: { label: 'Element hover', client: true, members: ['selector', 'seconds'] },
  form_submit: { label: 'Form submit', client: true, members: ['selector'] },
  scroll_depth: { label: 'Scroll depth', client: true, members: ['percent'] },
  video_view_duration: { label: 'Video watched', client: true, members: ['selector', 'seconds'] },
  whatsapp_keyword_message: { label: 'WhatsApp keyword', client: false, members: ['keyword'] },
  click_tracking_link: { label: 'Tracking link click', client: false, members: [] },
  checkout_transaction_approved: { label: 'Checkout approved', client: false, members: [] },
  api: { label: 'API', client: false, members: [] },
};
const CONDITION_VARIABLES = ['page_url', 'page_path', 'page_hostname', 'page_title', 'referrer',
  'utm_source', 'utm_medium', 'utm_campaign', 'utm_content', 'utm_term'];
const CONDITION_OPERATORS = ['equals', 'notEquals', 'contains', 'notContains', 'startsWith', 'endsWith', 'matches'];
const FIRE_MODES = { once_per_page: 'Once per page', once_per_session: 'Once per session', every_time: 'Every time' };

const tags = {
  containers: [], // every container of the user's workspaces, with install_line
  container: null,
  triggers: [],
  editing: null, // the trigger being edited; null for a new one

  // show marks the view shown on <body data-view>: tags.css hides the query views under Tags.
  show(page) {
    document.body.dataset.view = page;
  },

  // load reads the containers (once) and the chosen one's triggers and stats, then calls
  // done with the page's state (ready or error) and the error, if any.
  async load(done) {
    try {
      if (!this.containers.length) await this.loadContainers();
      await this.loadTriggers();
      done('ready');
    } catch (err) {
      done('error', err);
    }
  },

  async loadContainers() {
    const workspaces = [...new Set(state.projects.map((p) => p.workspace_id))];
    const lists = await Promise.all(workspaces.map((w) => api.call('GET', '/v3/tracking/containers', undefined, undefined, w)));
    this.containers = lists.flatMap((l) => l.data.map((x) => Object.assign({ install_line: x.install_line }, x.container)));
    const names = Object.fromEntries(state.projects.map((p) => [p.id, p.name]));
    $('tags-container').replaceChildren(...this.containers.map((c) => {
      const o = el('option', '', (names[c.project_id] || c.project_id) + ' · ' + c.domain + ' (' + (c.tracking_code || 'v2') + ')');
      o.value = c.id;
      return o;
    }));
    const first = this.containers.find((c) => c.project_id === state.view.project) || this.containers[0] || null;
    this.container = first;
    if (first) $('tags-container').value = first.id;
  },

  async loadTriggers() {
    const c = this.container;
    $('tags-empty').hidden = Boolean(c);
    $('tags-install-box').hidden = !c;
    $('tags-body').hidden = !c;
    if (!c) return;
    $('tags-install').textContent = c.install_line;
    const base = '/v3/tracking/containers/' + encodeURIComponent(c.id);
    const [list, stats] = await Promise.all([
      api.call('GET', base + '/triggers?limit=100', undefined, undefined, c.workspace_id),
      api.call('GET', base + '/trigger-stats', undefined, undefined, c.workspace_id),
    ]);
    const byID = Object.fromEntries(stats.data.map((s) => [s.trigger_id, s]));
    this.triggers = list.data.map((t) => Object.assign({ stats: byID[t.id] || { last_fired_at: null, count_24h: 0 } }, t));
    this.render();
  },

  render() {
    const items = this.triggers.map((t) => {
      const li = el('li', 'trigger');
      li.dataset.id = t.id;
      li.dataset.count = String(t.stats.count_24h);
      const head = el('div', 'trigger-head');
      head.append(el('span', 'trigger-name', t.name), el('span', 'trigger-type', (TRIGGER_TYPES[t.config.trigger.type] || {}).label || t.config.trigger.type));
      const what = el('div', 'trigger-sub', t.config.name + ' → ' + t.config.alpha.name + ruleSummary(t.config.trigger));
      const when = el('div', 'trigger-stats');
      const last = t.stats.last_fired_at ? new Date(t.stats.last_fired_at).toLocaleString() : 'never';
      when.append(el('span', 'trigger-count', fmt.count(t.stats.count_24h) + ' in 24 h'), el('span', 'muted', 'last fired ' + last));
      const actions = el('div', 'trigger-actions');
      const edit = el('button', 'btn btn-small', 'Edit');
      edit.type = 'button';
      edit.addEventListener('click', () => this.edit(t));
      const del = el('button', 'btn btn-small', 'Delete');
      del.type = 'button';
      del.addEventListener('click', () => this.remove(t));
      actions.append(edit, del);
      li.append(head, what, when, actions);
      return li;
    });
    if (!items.length) items.push(el('li', 'trigger muted', 'No triggers yet: add one.'));
    $('tags-triggers').replaceChildren(...items);
  },

  // edit opens the editor on t, or on a new page_view trigger.
  edit(t) {
    this.editing = t || null;
    const cfg = t ? t.config : { trigger: { type: 'page_view' }, name: '', alpha: { name: 'PageView', track_custom: false } };
    const r = cfg.trigger;
    $('te-title').textContent = t ? 'Edit trigger' : 'New trigger';
    $('te-name').value = t ? t.name : '';
    $('te-type').value = r.type;
    $('te-event').value = cfg.name;
    $('te-alpha').value = cfg.alpha.name;
    $('te-custom').checked = Boolean(cfg.alpha.track_custom);
    $('te-selector').value = r.selector || '';
    $('te-seconds').value = r.seconds || '';
    $('te-percent').value = r.percent || '';
    $('te-keyword').value = r.keyword || '';
    $('te-fire').value = r.fire || 'once_per_page';
    $('te-conditions').replaceChildren(...(r.conditions || []).map(conditionRow));
    $('te-error').hidden = true;
    this.syncEditor();
    $('tags-editor').hidden = false;
    $('te-name').focus();
  },

  // syncEditor shows the members the chosen type takes.
  syncEditor() {
    const type = TRIGGER_TYPES[$('te-type').value] || { members: [] };
    for (const m of ['selector', 'seconds', 'percent', 'keyword']) $('te-field-' + m).hidden = !type.members.includes(m);
    $('te-field-fire').hidden = !type.client;
    $('te-field-conditions').hidden = !type.client;
  },

  // body is the editor's trigger, as the trigger routes take it: only the members its type takes.
  body() {
    const typ = $('te-type').value;
    const type = TRIGGER_TYPES[typ];
    const rule = { type: typ };
    for (const m of type.members) {
      const v = $('te-' + m).value.trim();
      if (v === '') continue;
      rule[m] = m === 'seconds' || m === 'percent' ? Number(v) : v;
    }
    if (type.client) {
      rule.fire = $('te-fire').value;
      const conditions = [...$('te-conditions').children].map((row) => ({
        variable: row.querySelector('.cond-variable').value,
        operator: row.querySelector('.cond-operator').value,
        value: row.querySelector('.cond-value').value,
      }));
      if (conditions.length) rule.conditions = conditions;
    }
    return {
      name: $('te-name').value.trim(),
      config: { trigger: rule, name: $('te-event').value.trim(), alpha: { name: $('te-alpha').value.trim(), track_custom: $('te-custom').checked } },
    };
  },

  async save() {
    const c = this.container;
    const base = '/v3/tracking/containers/' + encodeURIComponent(c.id) + '/triggers';
    try {
      if (this.editing) await api.call('PUT', base + '/' + encodeURIComponent(this.editing.id), this.body(), undefined, c.workspace_id);
      else await api.call('POST', base, this.body(), undefined, c.workspace_id);
    } catch (err) {
      $('te-error').textContent = err.message + (err.details.length ? ' ' + err.details.join('; ') : '');
      $('te-error').hidden = false;
      return;
    }
    $('tags-editor').hidden = true;
    load();
  },

  async remove(t) {
    if (!confirm('Delete the trigger "' + t.name + '"?')) return;
    const c = this.container;
    try {
      await api.call('DELETE', '/v3/tracking/containers/' + encodeURIComponent(c.id) + '/triggers/' + encodeURIComponent(t.id),
        undefined, undefined, c.workspace_id);
    } catch (err) {
      showError(err);
      return;
    }
    load();
  },

  // copy puts the install line on the clipboard, else selects it for the user to copy.
  async copy() {
    const line = $('tags-install').textContent;
    try {
      await navigator.clipboard.writeText(line);
      $('tags-copy').textContent = 'Copied';
    } catch (_) {
      getSelection().selectAllChildren($('tags-install'));
      $('tags-copy').textContent = 'Press Ctrl+C';
    }
    setTimeout(() => { $('tags-copy').textContent = 'Copy'; }, 2000);
  },

  wire() {
    $('te-type').replaceChildren(...Object.entries(TRIGGER_TYPES).map(([k, v]) => option(k, v.label)));
    $('te-fire').replaceChildren(...Object.entries(FIRE_MODES).map(([k, v]) => option(k, v)));
    $('te-type').addEventListener('change', () => this.syncEditor());
    $('tags-container').addEventListener('change', () => {
      this.container = this.containers.find((c) => c.id === $('tags-container').value) || null;
      $('tags-editor').hidden = true;
      load();
    });
    $('tags-copy').addEventListener('click', () => this.copy());
    $('tags-new').addEventListener('click', () => this.edit(null));
    $('te-add-condition').addEventListener('click', () => $('te-conditions').append(conditionRow({})));
    $('te-cancel').addEventListener('click', () => { $('tags-editor').hidden = true; });
    $('tags-editor').addEventListener('submit', (ev) => {
      ev.preventDefault();
      this.save();
    });
  },
};

function option(value, label) {
  const o = el('option', '', label);
  o.value = value;
  return o;
}

// ruleSummary is a rule's members in a few words: " · path contains /shop · 50%".
function ruleSummary(r) {
  const parts = (r.conditions || []).map((c) => c.variable + ' ' + c.operator + ' ' + c.value);
  if (r.selector) parts.push(r.selector);
  if (r.seconds) parts.push(r.seconds + ' s');
  if (r.percent) parts.push(r.percent + '%');
  if (r.keyword) parts.push('"' + r.keyword + '"');
  return parts.map((p) => ' · ' + p).join('');
}

// conditionRow is an editable condition: variable, operator, value and a remove button.
function conditionRow(c) {
  const row = el('div', 'condition');
  const variable = el('select', 'cond-variable');
  variable.setAttribute('aria-label', 'Variable');
  variable.append(...CONDITION_VARIABLES.map((v) => option(v, v)));
  variable.value = c.variable || 'page_path';
  const operator = el('select', 'cond-operator');
  operator.setAttribute('aria-label', 'Operator');
  operator.append(...CONDITION_OPERATORS.map((v) => option(v, v)));
  operator.value = c.operator || 'contains';
  const value = el('input', 'cond-value');
  value.setAttribute('aria-label', 'Value');
  value.value = c.value || '';
  const remove = el('button', 'btn btn-small', '×');
  remove.type = 'button';
  remove.setAttribute('aria-label', 'Remove the condition');
  remove.addEventListener('click', () => row.remove());
  row.append(variable, operator, value, remove);
  return row;
}

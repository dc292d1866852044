'use strict';
// format.js: display formatting and calendar arithmetic. Numbers reach this file as the exact
// decimal text the API sent ("1234.50", "0.2723766233766234"); Intl formats that text as a
// decimal, so money is never put through float arithmetic.

const LOCALE = 'en-US';
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

// The metrics this page asks for, with how each is shown.
const METRICS = {
  spend: { label: 'Spend', kind: 'money' },
  impressions: { label: 'Impressions', kind: 'count' },
  clicks: { label: 'Clicks', kind: 'count' },
  ctr: { label: 'CTR', kind: 'percent' },
  cpc: { label: 'CPC', kind: 'money' },
  tx_revenue: { label: 'Revenue', kind: 'money' },
  tx_count: { label: 'Sales', kind: 'count' },
  roas: { label: 'ROAS', kind: 'multiple' },
  profit: { label: 'Profit', kind: 'money' },
  page_views: { label: 'Page views', kind: 'count' },
  leads: { label: 'Leads', kind: 'count' },
  initiate_checkout: { label: 'Checkouts', kind: 'count' },
  tx_units: { label: 'Units', kind: 'count' },
  tx_product_costs: { label: 'Product costs', kind: 'money' },
};

const fmt = (() => {
  const cache = new Map();
  const nf = (key, options) => {
    if (!cache.has(key)) cache.set(key, new Intl.NumberFormat(LOCALE, options));
    return cache.get(key);
  };

  const money = (v, currency) =>
    v == null ? '—' : nf('m' + currency, { style: 'currency', currency, minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(v);
  // Whole counts read as integers; counts credited by an attribution model are fractional (the
  // API sends 4 decimals, 1.3333 sales) and read to two decimals at most (1.33).
  const count = (v) => (v == null ? '—' : nf('c', { maximumFractionDigits: 2 }).format(v));
  const percent = (v) => (v == null ? '—' : nf('p', { style: 'percent', minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(v));
  // change shows the size of a relative change, "8.9%" (the page's arrow gives its way), or "—"
  // when there is none (a null or a 0 base).
  const change = (v) => (v == null ? '—' : nf('d', { style: 'percent', maximumFractionDigits: 1 }).format(Math.abs(v)));
  const multiple = (v) => (v == null ? '—' : nf('x', { minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(v) + '×');

  // metric formats value v (exact decimal text, or null) of metric key in currency.
  const metric = (key, v, currency) => {
    switch ((METRICS[key] || {}).kind) {
      case 'money': return money(v, currency);
      case 'percent': return percent(v);
      case 'multiple': return multiple(v);
      default: return count(v);
    }
  };

  // short is metric's value in at most a few characters ("R$102.0K", "3.7M") for a space too
  // narrow for the exact value; ratios are short already.
  const short = (key, v, currency) => {
    if (v == null) return '—';
    switch ((METRICS[key] || {}).kind) {
      case 'money': return nf('sm' + currency, { style: 'currency', currency, notation: 'compact', maximumFractionDigits: 1 }).format(v);
      case 'count': return nf('sc', { notation: 'compact', maximumFractionDigits: 1 }).format(v);
      default: return metric(key, v, currency);
    }
  };

  // axis formats a chart tick (a plain number: ticks are positions, not amounts).
  const axis = (n, kind, currency) => {
    if (kind === 'money') {
      return nf('am' + currency, { style: 'currency', currency, notation: 'compact', maximumFractionDigits: 1 }).format(n);
    }
    if (kind === 'multiple') return nf('ax', { maximumFractionDigits: 2 }).format(n) + '×';
    return nf('ac', { notation: 'compact', maximumFractionDigits: 1 }).format(n);
  };

  // parts splits a bucket label: "2026-03-05" or "2026-03-05T14:00:00-03:00" (already in the
  // project's zone, so the text is read as it stands).
  const parts = (label) => {
    const m = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2}))?/.exec(label || '');
    if (!m) return null;
    return { y: +m[1], mo: +m[2], d: +m[3], time: m[4] ? m[4] + ':' + m[5] : null };
  };
  const weekday = (p) => WEEKDAYS[new Date(Date.UTC(p.y, p.mo - 1, p.d)).getUTCDay()];

  // bucket is a short axis label of a bucket; long=true gives the tooltip's label.
  const bucket = (label, granularity, long) => {
    const p = parts(label);
    if (!p) return label;
    const md = MONTHS[p.mo - 1] + ' ' + p.d;
    switch (granularity) {
      case 'month': return MONTHS[p.mo - 1] + ' ' + p.y;
      case 'week': return long ? 'Week of ' + md + ', ' + p.y : md;
      case 'hour': return long ? weekday(p) + ', ' + md + ', ' + (p.time || '00:00') : (p.time === '00:00' ? md : p.time || md);
      default: return long ? weekday(p) + ', ' + md + ', ' + p.y : md;
    }
  };

  // longDate shows "YYYY-MM-DD" as "Mar 5, 2026".
  const longDate = (iso) => {
    const p = parts(iso);
    return p ? MONTHS[p.mo - 1] + ' ' + p.d + ', ' + p.y : iso;
  };

  return { money, count, percent, change, multiple, metric, short, axis, bucket, longDate };
})();

// dec: exact sums and differences of the API's decimal text ("1234.50", "-0.3333"), in BigInt
// units of the finest scale involved, so that a total the page adds up is exact to the cent.
const dec = (() => {
  const parse = (s) => {
    const m = /^(-?)(\d*)(?:\.(\d*))?$/.exec(String(s));
    if (!m) return null;
    const frac = m[3] || '';
    const n = BigInt((m[2] || '0') + frac);
    return { n: m[1] ? -n : n, scale: frac.length };
  };
  const text = (n, scale) => {
    const neg = n < 0n;
    const digits = (neg ? -n : n).toString().padStart(scale + 1, '0');
    const whole = digits.slice(0, digits.length - scale);
    return (neg ? '-' : '') + whole + (scale ? '.' + digits.slice(digits.length - scale) : '');
  };
  // sum adds the values (nulls count as nothing); null when none is a number.
  const sum = (values) => {
    const xs = values.filter((v) => v != null).map(parse);
    if (!xs.length || xs.includes(null)) return null;
    const scale = Math.max(...xs.map((x) => x.scale));
    return text(xs.reduce((acc, x) => acc + x.n * 10n ** BigInt(scale - x.scale), 0n), scale);
  };
  const neg = (v) => (v == null ? null : String(v).startsWith('-') ? String(v).slice(1) : '-' + v);
  return {
    sum,
    sub: (a, b) => (a == null || b == null ? null : sum([a, neg(b)])),
    // cmp is the sign of a - b.
    cmp: (a, b) => {
      const d = parse(sum([a, neg(b)]));
      return d.n > 0n ? 1 : d.n < 0n ? -1 : 0;
    },
  };
})();

// plainWarning says an API warning in a marketer's words; one it does not know is said as a
// note from the API, its text kept (every warning's own text is also on its list item).
function plainWarning(w) {
  const compared = /^comparison period: (.*)$/.exec(w);
  if (compared) return 'Previous period: ' + plainWarning(compared[1]).replace(/^./, (c) => c.toLowerCase());
  const rules = [
    [/^ad metrics of (.+) are known per day only/, (m) => 'Ad data for ' + m[1] + ' is kept per day only: those days are shown as whole days.'],
    [/^ad metrics known per day only; the range was widened/, () => 'Some ad data is kept per day only, so the range was widened to whole days.'],
    [/^granularity (\S+) is not available on the default tier/, (m) => 'Buckets of ' + m[1] + ' are not in this plan: shown by hour.'],
    [/^an order in this range has several products/, () => 'Some orders hold several products, so sales by product add up to more than the orders.'],
    [/^reach is summed over several days/, () => 'Reach is added up day by day, so a person reached on two days counts twice.'],
    [/^no exchange rate from (\S+) to (\S+)/, (m) => 'No exchange rate from ' + m[1] + ' to ' + m[2] + ' for some days: amounts that need it are left blank.'],
    [/^only its first (\d+) rows are compared/, (m) => 'only the first ' + m[1] + ' rows are compared.'],
  ];
  for (const [re, say] of rules) {
    const m = re.exec(w);
    if (m) return say(m).replace(/\d{4}-\d{2}-\d{2}/g, fmt.longDate);
  }
  return 'Note from the API: ' + w;
}

// dates: calendar arithmetic on "YYYY-MM-DD" strings and instants (ms since the epoch) in an IANA
// zone (the project's), free of the browser's own time zone.
const dates = (() => {
  const formatters = new Map();
  // wall is the wall-clock time of instant t in zone tz: {year, month, day, hour, minute, second}.
  const wall = (t, tz) => {
    if (!formatters.has(tz)) {
      formatters.set(tz, new Intl.DateTimeFormat('en-US', {
        timeZone: tz, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit',
      }));
    }
    const p = {};
    for (const x of formatters.get(tz).formatToParts(new Date(t))) p[x.type] = Number(x.value);
    return p;
  };
  // offset is zone tz's offset from UTC at instant t, in ms.
  const offset = (t, tz) => {
    const p = wall(t, tz);
    return Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second) - Math.floor(t / 1000) * 1000;
  };
  const pad = (n) => String(n).padStart(2, '0');
  return {
    // dateAt is the date of instant t in zone tz.
    dateAt(t, tz) {
      const p = wall(t, tz);
      return p.year + '-' + pad(p.month) + '-' + pad(p.day);
    },
    // today is the current date in zone tz.
    today(tz) {
      return this.dateAt(Date.now(), tz);
    },
    // midnight is the instant the date iso starts in zone tz.
    midnight(iso, tz) {
      const [y, m, d] = iso.split('-').map(Number);
      const utc = Date.UTC(y, m - 1, d);
      const t = utc - offset(utc, tz);
      return utc - offset(t, tz);
    },
    addDays(iso, n) {
      const [y, m, d] = iso.split('-').map(Number);
      return new Date(Date.UTC(y, m - 1, d + n)).toISOString().slice(0, 10);
    },
    addMonths(iso, n) {
      const [y, m, d] = iso.split('-').map(Number);
      return new Date(Date.UTC(y, m - 1 + n, d)).toISOString().slice(0, 10);
    },
  };
})();

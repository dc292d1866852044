/* mtk tag: fires a container's triggers on the page and sends each firing as an event.
   Served as GET /t/{container}.js: this file, then its configuration as the argument C. */
(function (C) {
  'use strict';
  var w = window, d = document, loc = w.location, P = '_mtk_';
  if (w.__mtk) return; // loaded twice
  w.__mtk = 1;
  var script = d.currentScript, endpoint = new URL(script ? script.src : '/', loc.href).origin + '/v3/tracking/events';
  var store = function (s) { try { return w[s]; } catch (e) { return null; } };
  var ls = store('localStorage'), ss = store('sessionStorage');
  var get = function (st, k) { try { return JSON.parse(st.getItem(P + k)); } catch (e) { return null; } };
  var put = function (st, k, v) { try { st.setItem(P + k, JSON.stringify(v)); } catch (e) { } };
  var granted = !C.consent || !!get(ls, 'consent');
  var mem = []; // firings held until consent
  var queue = granted ? get(ls, 'q') || [] : [];
  var busy = {}, tries = 0, timer = 0;
  var ident = get(ls, 'id') || {};
  var campaign = get(ss, 's');
  var href = '', ref = d.referrer, fired = {}, seen = get(ss, 'f') || {}, visible = 0;

  // Identity and attribution: the lead key cookie, the session's landing UTM and click ids.
  var rand = function () {
    var a = new Uint8Array(12), s = '';
    w.crypto.getRandomValues(a);
    for (var i = 0; i < a.length; i++) s += (a[i] + 256).toString(16).slice(1);
    return s;
  };
  var cookie = function (n) {
    var m = d.cookie.match(new RegExp('(?:^|; )' + n.replace(/[.$]/g, '\\$&') + '=([^;]*)'));
    return m ? decodeURIComponent(m[1]) : '';
  };
  var leadKey = function () {
    var v = cookie(C.key);
    if (!v && granted) {
      v = rand();
      d.cookie = C.key + '=' + v + '; path=/; max-age=63072000; SameSite=Lax';
    }
    return v;
  };
  var landing = function () {
    var q = new URL(loc.href).searchParams, c = { utm: {}, t: Date.now() }, any = 0;
    'utm_source utm_medium utm_campaign utm_content utm_term fbclid gclid'.split(' ').forEach(function (k) {
      var v = q.get(k);
      if (v) {
        any = 1;
        if (k.charAt(0) === 'u') c.utm[k] = v; else c[k] = v;
      }
    });
    if (any || !campaign) campaign = c;
    if (granted) put(ss, 's', campaign);
  };

  // Conditions: all must hold.
  var vars = {
    page_url: function () { return loc.href; },
    page_path: function () { return loc.pathname; },
    page_hostname: function () { return loc.hostname; },
    page_title: function () { return d.title; },
    referrer: function () { return ref; }
  };
  var ops = {
    equals: function (a, b) { return a === b; },
    notEquals: function (a, b) { return a !== b; },
    contains: function (a, b) { return a.indexOf(b) >= 0; },
    notContains: function (a, b) { return a.indexOf(b) < 0; },
    startsWith: function (a, b) { return a.indexOf(b) === 0; },
    endsWith: function (a, b) { return a.slice(a.length - b.length) === b; },
    matches: function (a, b, c) {
      try { return new RegExp(b, c[3] || '').test(a); } catch (e) { return false; }
    }
  };
  var holds = function (t) {
    return (t.conditions || []).every(function (c) {
      var f = vars[c[0]], v = f ? f() : (campaign.utm[c[0]] || '');
      return ops[c[1]](v, c[2], c);
    });
  };

  // Firing: once per page, once per session or every time; each firing one event.
  var fire = function (t, extra) {
    if (!holds(t)) return;
    if (t.fire !== 'every_time') {
      var done = t.fire === 'once_per_session' ? seen : fired;
      if (done[t.id]) return;
      done[t.id] = 1;
      if (done === seen && granted) put(ss, 'f', seen);
    }
    send(t.name, t.alpha, extra);
  };
  var send = function (name, alpha, extra) {
    var ev = {
      event_id: rand(), source: 'website', domain: loc.hostname, timestamp: Math.floor(Date.now() / 1000),
      config: { name: name }, page: { url: loc.href, referrer: ref, title: d.title }, utm: campaign.utm, lead: {}
    };
    if (alpha) ev.config.alpha = { name: alpha.name, track_custom: alpha.track_custom, sourceKey: 'website' };
    for (var k in extra || {}) ev[k] = extra[k];
    mem.push(ev);
    if (granted) release();
  };
  // release stamps the held firings with what consent lets the tag read and queues them.
  var release = function () {
    var key = leadKey(), fbc = cookie('_fbc') || (campaign.fbclid ? 'fb.1.' + campaign.t + '.' + campaign.fbclid : '');
    mem.splice(0).forEach(function (ev) {
      ev.metadata = { lead_key: key };
      ev.cookies = { _fbp: cookie('_fbp'), _fbc: fbc };
      ev.cookies[C.key] = key;
      ev.properties = ev.properties || {};
      if (campaign.fbclid) ev.properties.fbclid = campaign.fbclid;
      if (campaign.gclid) ev.properties.gclid = campaign.gclid;
      for (var k in ident) if (!ev.lead[k]) ev.lead[k] = ident[k];
      queue.push(ev);
    });
    put(ls, 'q', queue);
    schedule(1000);
  };

  // Delivery: the queue (kept in localStorage until the server answers) is sent in batches, each
  // event with its own id, retried with the same id; an unloading page hands it to sendBeacon.
  var schedule = function (ms) {
    if (!timer && queue.length) timer = setTimeout(flush, ms);
  };
  var done = function (id) {
    queue = queue.filter(function (e) { return e.event_id !== id; });
    put(ls, 'q', queue);
  };
  var flush = function () {
    timer = 0;
    queue.forEach(function (ev) {
      var id = ev.event_id;
      if (busy[id]) return;
      busy[id] = 1;
      fetch(endpoint, { method: 'POST', body: JSON.stringify(ev), keepalive: true, credentials: 'omit' }).then(function (r) {
        delete busy[id];
        // A refusal (4xx) is final; an overloaded or failing server (429, 5xx) is asked again.
        if (r.ok || (r.status >= 400 && r.status < 500 && r.status !== 408 && r.status !== 429)) {
          tries = 0;
          done(id);
        } else retry();
      }, function () {
        delete busy[id];
        retry();
      });
    });
  };
  var retry = function () {
    tries = Math.min(tries + 1, 6);
    schedule(500 * Math.pow(2, tries));
  };
  var unload = function () {
    if (!navigator.sendBeacon) return;
    queue.forEach(function (ev) {
      if (!busy[ev.event_id]) navigator.sendBeacon(endpoint, new Blob([JSON.stringify(ev)], { type: 'text/plain' }));
    });
  };
  w.addEventListener('pagehide', unload);
  d.addEventListener('visibilitychange', function () { if (d.visibilityState === 'hidden') unload(); });

  var identify = function (id) {
    var v = {};
    if (id.email) v.email = String(id.email).trim();
    if (id.phone) v.phone = String(id.phone).trim();
    for (var k in v) ident[k] = v[k];
    if (granted) put(ls, 'id', ident);
    return v;
  };

  // The trigger types.
  var of = function (type) { return C.triggers.filter(function (t) { return t.type === type; }); };
  var within = function (node, sel) {
    try { return node && node.closest ? node.closest(sel) : null; } catch (e) { return null; }
  };
  var all = function (sel) {
    try { return [].slice.call(d.querySelectorAll(sel)); } catch (e) { return []; }
  };
  var pageView = function () {
    var now = loc.href.split('#')[0];
    if (now === href) return;
    if (href) ref = href;
    href = now;
    fired = {};
    visible = 0;
    landing();
    of('page_view').forEach(function (t) { fire(t); });
    scan();
  };
  d.addEventListener('click', function (e) {
    of('element_click').forEach(function (t) { if (within(e.target, t.selector)) fire(t); });
  }, true);
  d.addEventListener('submit', function (e) {
    var form = e.target, lead = {};
    [].slice.call(form.elements || []).forEach(function (el) {
      var n = (el.name + ' ' + el.type).toLowerCase();
      if (el.value && /email/.test(n)) lead.email = el.value;
      else if (el.value && /\btel\b|phone|fone|whatsapp/.test(n)) lead.phone = el.value;
    });
    lead = identify(lead);
    of('form_submit').forEach(function (t) {
      if (!t.selector || within(form, t.selector) === form) fire(t, { lead: lead });
    });
  }, true);
  if (of('scroll_depth').length) {
    w.addEventListener('scroll', function () {
      var h = d.documentElement.scrollHeight, pct = h ? (w.scrollY + w.innerHeight) / h * 100 : 100;
      of('scroll_depth').forEach(function (t) { if (pct >= t.percent) fire(t); });
    }, { passive: true });
  }
  if (of('page_view_duration').length) {
    setInterval(function () {
      if (d.visibilityState !== 'visible') return;
      visible++;
      of('page_view_duration').forEach(function (t) { if (visible >= t.seconds) fire(t); });
    }, 1000);
  }
  // scan attaches the element-bound triggers to elements that match them, once each.
  var bound = new WeakMap();
  var attach = function (t, el, f) {
    var b = bound.get(el) || {};
    if (b[t.id]) return;
    b[t.id] = 1;
    bound.set(el, b);
    f(t, el);
  };
  var views = {}, observer = function (t) {
    return views[t.id] || (views[t.id] = new IntersectionObserver(function (es) {
      es.forEach(function (e) {
        var was = e.target[P + t.id];
        e.target[P + t.id] = e.isIntersecting;
        if (e.isIntersecting && !was) fire(t);
      });
    }, { threshold: t.percent / 100 }));
  };
  var scan = function () {
    of('element_view').forEach(function (t) {
      all(t.selector).forEach(function (el) { attach(t, el, function () { observer(t).observe(el); }); });
    });
    of('element_hover').forEach(function (t) {
      all(t.selector).forEach(function (el) {
        attach(t, el, function () {
          var h = 0;
          el.addEventListener('mouseenter', function () { h = h || setTimeout(function () { fire(t); }, t.seconds * 1000); });
          el.addEventListener('mouseleave', function () { clearTimeout(h); h = 0; });
        });
      });
    });
    of('video_view_duration').forEach(function (t) {
      all(t.selector).forEach(function (el) {
        attach(t, el, function () {
          var last = 0, watched = 0;
          el.addEventListener('timeupdate', function () {
            var step = el.currentTime - last;
            last = el.currentTime;
            if (step > 0 && step < 2) watched += step; // a seek is not watching
            if (watched >= t.seconds) fire(t);
          });
        });
      });
    });
  };
  if (of('element_view').length + of('element_hover').length + of('video_view_duration').length) {
    var pending = 0;
    new MutationObserver(function () {
      pending = pending || setTimeout(function () { pending = 0; scan(); }, 100);
    }).observe(d.documentElement, { childList: true, subtree: true });
  }

  // SPA navigation: every history change to another URL is a page.
  ['pushState', 'replaceState'].forEach(function (m) {
    var orig = history[m];
    history[m] = function () {
      var r = orig.apply(this, arguments);
      pageView();
      return r;
    };
  });
  w.addEventListener('popstate', pageView);

  // The page's calls: mtk.push(['track', name, {value, currency, ...}]), ['identify', {...}],
  // ['consent', 'granted' | 'denied'].
  var commands = {
    track: function (name, props) {
      props = props || {};
      var extra = { properties: {} };
      for (var k in props) {
        if (k === 'value') extra.value = Math.round(props.value * 100);
        else if (k === 'currency') extra.currency = props.currency;
        else extra.properties[k] = props[k];
      }
      send(String(name), null, extra);
    },
    identify: function (id) { identify(id || {}); },
    consent: function (v) {
      granted = v === 'granted';
      if (!granted) {
        mem = [];
        try { ls.removeItem(P + 'consent'); } catch (e) { }
        return;
      }
      put(ls, 'consent', 1);
      queue = (get(ls, 'q') || []).concat(queue);
      put(ss, 's', campaign);
      put(ss, 'f', seen);
      put(ls, 'id', ident);
      release();
    }
  };
  var call = function (a) {
    if (a && commands[a[0]]) commands[a[0]].apply(null, [].slice.call(a, 1));
  };
  var calls = w.mtk || [];
  w.mtk = { push: call };
  pageView();
  calls.forEach(call);
  schedule(0);
})

// Renders the OpenAPI document embedded in the page (#openapi) as a reference: the introduction,
// the credentials, the operations grouped by tag (method, path, summary, credentials, parameters,
// request and response schemas, examples, errors) and the shared schemas. It builds DOM nodes,
// so text from the document is never read as HTML, except what md() escapes first.
"use strict";

const doc = JSON.parse(document.getElementById("openapi").textContent);
const METHODS = ["get", "post", "put", "patch", "delete", "options", "head"];

// h makes an element: attrs is an object of attributes; children are nodes or strings (text).
function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v !== undefined && v !== null && v !== false) el.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat(Infinity)) {
    if (c === undefined || c === null || c === false) continue;
    el.append(c instanceof Node ? c : String(c));
  }
  return el;
}

function escapeHTML(s) {
  return String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
}

// md renders the small Markdown the document uses: paragraphs, "- " lists, `code`, **bold** and
// [links](url). The text is escaped before any markup is added.
function inlineMarkdown(s) {
  return escapeHTML(s)
    .replace(/`([^`]+)`/g, "<code>$1</code>")
    .replace(/\*\*([^*]+)\*\*/g, "<strong>$1</strong>")
    .replace(/\[([^\]]+)\]\(((?:https?:\/\/|\/|#)[^)\s]*)\)/g, '<a href="$2">$1</a>');
}

function md(text) {
  const inline = inlineMarkdown;
  const out = [];
  for (const block of String(text || "").trim().split(/\n\s*\n/)) {
    const lines = block.split("\n");
    if (lines.every((l) => /^\s*- /.test(l))) {
      out.push("<ul>" + lines.map((l) => "<li>" + inline(l.replace(/^\s*- /, "")) + "</li>").join("") + "</ul>");
    } else {
      out.push("<p>" + inline(lines.join(" ")) + "</p>");
    }
  }
  const div = h("div", { class: "md" });
  div.innerHTML = out.join("");
  return div;
}

// highlight shows a value as indented JSON with its tokens coloured.
function highlight(value) {
  const json = escapeHTML(JSON.stringify(value, null, 2));
  const code = h("code");
  code.innerHTML = json.replace(
    /(&quot;(?:[^&\\]|\\.|&(?!quot;))*&quot;)(\s*:)?|\b(true|false|null)\b|(-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)/g,
    (m, str, colon, lit, num) => {
      if (str) return '<span class="' + (colon ? "tk-key" : "tk-str") + '">' + str + "</span>" + (colon || "");
      if (lit) return '<span class="tk-lit">' + lit + "</span>";
      return '<span class="tk-num">' + num + "</span>";
    });
  return h("pre", { class: "json" }, code);
}

// resolve follows a local $ref ("#/components/…") to the object it names.
function resolve(obj) {
  let seen = 0;
  while (obj && obj.$ref && seen++ < 20) {
    const target = obj.$ref.replace(/^#\//, "").split("/").reduce((o, k) => (o ? o[decodeURIComponent(k.replace(/~1/g, "/").replace(/~0/g, "~"))] : undefined), doc);
    if (!target) break;
    const { $ref, ...rest } = obj;
    obj = Object.keys(rest).length ? { ...target, ...rest } : target;
  }
  return obj || {};
}

const refName = (ref) => ref.split("/").pop();
const slug = (s) => String(s).toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "");

// merged folds allOf into one schema for display: properties merge member by member, required
// lists join, and other keywords of later members win.
function merged(schema) {
  schema = resolve(schema);
  if (!schema.allOf) return schema;
  const { allOf, ...own } = schema;
  return [...allOf, own].map(merged).reduce(mergeTwo, {});
}

function mergeTwo(a, b) {
  const out = { ...a, ...b };
  if (a.properties || b.properties) {
    out.properties = { ...(a.properties || {}) };
    for (const [k, v] of Object.entries(b.properties || {})) {
      out.properties[k] = out.properties[k] ? mergeTwo(merged(out.properties[k]), merged(v)) : v;
    }
  }
  if (a.required || b.required) out.required = [...new Set([...(a.required || []), ...(b.required || [])])];
  if (b.const !== undefined) delete out.enum;
  if (b.enum) delete out.const;
  return out;
}

// typeLabel is a short description of a schema's type: a link for a named schema, values for an
// enumeration, "array of …", "A | null".
function typeLabel(schema) {
  if (!schema) return h("span", { class: "type" }, "any");
  if (schema.$ref) {
    return h("a", { class: "type ref", href: "#schema-" + refName(schema.$ref) }, refName(schema.$ref));
  }
  if (schema.const !== undefined) return h("span", { class: "type" }, h("code", {}, JSON.stringify(schema.const)));
  if (schema.enum) {
    return h("span", { class: "type enum" }, schema.enum.map((v, i) => [i ? " | " : "", h("code", {}, JSON.stringify(v))]));
  }
  const alts = schema.oneOf || schema.anyOf;
  if (alts && alts.every((s) => s.$ref || s.type || s.enum)) {
    return h("span", { class: "type" }, alts.map((s, i) => [i ? " | " : "", typeLabel(s)]));
  }
  const types = [].concat(schema.type || (schema.properties ? "object" : []));
  if (!types.length) return h("span", { class: "type" }, "any");
  return h("span", { class: "type" }, types.map((t, i) => {
    let label = t;
    if (t === "array") label = h("span", {}, "array of ", typeLabel(schema.items));
    else if (t === "object" && schema.additionalProperties && typeof schema.additionalProperties === "object" && !schema.properties) {
      label = h("span", {}, "map of ", typeLabel(schema.additionalProperties));
    } else if (schema.format) label = t + " (" + schema.format + ")";
    return [i ? " | " : "", label];
  }));
}

// constraints lists a schema's limits and default.
function constraints(schema) {
  const c = [];
  const add = (k, text) => { if (schema[k] !== undefined) c.push(text(schema[k])); };
  add("minLength", (v) => "at least " + v + (v === 1 ? " character" : " characters"));
  add("maxLength", (v) => "at most " + v + " characters");
  add("minimum", (v) => "≥ " + v);
  add("maximum", (v) => "≤ " + v);
  add("minItems", (v) => "at least " + v + (v === 1 ? " item" : " items"));
  add("maxItems", (v) => "at most " + v + " items");
  add("maxProperties", (v) => "at most " + v + " members");
  add("pattern", (v) => "matches " + v);
  add("default", (v) => "default " + JSON.stringify(v));
  if (schema.uniqueItems) c.push("unique items");
  return c.length ? h("div", { class: "constraints" }, c.join(" · ")) : null;
}

// enumLine lists the values of a named enumeration (or of an array's items), which the type
// label shows only as a link.
function enumLine(schema) {
  const target = schema.$ref ? schema : schema.items && schema.items.$ref ? schema.items : null;
  const values = target && resolve(target).enum;
  if (!values) return null;
  return h("div", { class: "constraints" }, "one of ", values.map((v, i) => [i ? ", " : "", h("code", {}, String(v))]));
}

// expandable is a named schema that opens in place on demand, so that recursion stays shallow.
function expandable(ref) {
  const body = h("div", { class: "nested" });
  const d = h("details", { class: "expand" }, h("summary", {}, "show " + refName(ref)), body);
  d.addEventListener("toggle", () => {
    if (d.open && !body.firstChild) body.append(schemaView(resolve({ $ref: ref }), 1));
  });
  return d;
}

// nestedOf is what to show under a member: its own properties, or an expander for a named one.
function nestedOf(schema, depth) {
  const target = schema.type === "array" || (Array.isArray(schema.type) && schema.type.includes("array")) ? schema.items : schema;
  if (!target) return null;
  if (target.$ref) {
    const named = merged(target);
    return named.properties ? expandable(target.$ref) : null;
  }
  const alts = (target.oneOf || target.anyOf || []).filter((s) => s.$ref && merged(s).properties);
  if (alts.length) return h("div", {}, alts.map((s) => expandable(s.$ref)));
  const m = merged(target);
  if (m.properties || m.if) return h("div", { class: "nested" }, schemaView(m, depth + 1));
  return null;
}

// schemaView shows a schema: an object as a table of its members, anything else as its type.
function schemaView(schema, depth = 0) {
  const s = merged(schema);
  const wrap = h("div", { class: "schema" });
  if (!s.properties) {
    wrap.append(h("div", { class: "schema-type" }, typeLabel(schema.$ref ? schema : s)));
    if (s.description && depth === 0) wrap.append(md(s.description));
    wrap.append(constraints(s) || "");
    const nested = nestedOf(schema.$ref ? schema : s, depth);
    if (nested) wrap.append(nested);
    return wrap;
  }
  if (s.description && depth === 0) wrap.append(md(s.description));
  const required = new Set(s.required || []);
  const rows = Object.entries(s.properties).map(([name, raw]) => {
    const p = raw.$ref ? raw : merged(raw);
    const info = resolve(raw);
    return h("tr", {},
      h("td", { class: "name" }, h("code", {}, name), required.has(name) ? h("span", { class: "req" }, "required") : ""),
      h("td", {}, typeLabel(p), enumLine(p), constraints(info),
        info.description ? md(info.description) : "",
        nestedOf(p, depth)));
  });
  wrap.append(h("table", { class: "props" }, h("tbody", {}, rows)));
  if (s.additionalProperties === false) wrap.append(h("div", { class: "note" }, "No other members."));
  if (s.if) {
    wrap.append(h("div", { class: "note" }, "When ", conditionText(s.if), ": ",
      s.then ? schemaText(s.then) : "no further rule", s.else ? ["; otherwise ", schemaText(s.else)] : "", "."));
  }
  return wrap;
}

// conditionText and schemaText word the simple conditions the document uses.
function conditionText(schema) {
  const parts = Object.entries(schema.properties || {}).map(([k, v]) => [h("code", {}, k), " is ", v.const !== undefined ? h("code", {}, JSON.stringify(v.const)) : typeLabel(v)]);
  return parts.map((p, i) => [i ? " and " : "", p]);
}

function schemaText(schema) {
  const parts = Object.entries(schema.properties || {}).map(([k, v]) => [h("code", {}, k), " is ", typeLabel(v)]);
  return parts.map((p, i) => [i ? " and " : "", p]);
}

function examplesOf(media) {
  if (!media) return [];
  if (media.examples) return Object.entries(media.examples).map(([k, ex]) => ({ title: resolve(ex).summary || k, value: resolve(ex).value }));
  if (media.example !== undefined) return [{ title: "Example", value: media.example }];
  const schema = resolve(media.schema || {});
  if (schema.examples) return schema.examples.map((v) => ({ title: "Example", value: v }));
  return [];
}

// contentView shows each media type of a body: its schema and its examples.
function contentView(content) {
  return Object.entries(content || {}).map(([type, media]) => h("div", { class: "content" },
    h("div", { class: "media" }, type),
    media.schema ? schemaView(media.schema) : "",
    examplesOf(media).map((ex) => h("div", { class: "example" },
      h("div", { class: "example-title" }, ex.title),
      typeof ex.value === "string" ? h("pre", { class: "text" }, ex.value) : highlight(ex.value)))));
}

function paramRow(p) {
  p = resolve(p);
  return h("tr", {},
    h("td", { class: "name" }, h("code", {}, p.name), p.required ? h("span", { class: "req" }, "required") : ""),
    h("td", {}, p.in),
    h("td", {}, typeLabel(p.schema), p.schema ? enumLine(p.schema) : "", constraints(resolve(p.schema || {})),
      p.description ? md(p.description) : "",
      p.example !== undefined ? h("div", { class: "constraints" }, "e.g. ", h("code", {}, String(p.example))) : ""));
}

// credentialsView words an operation's security requirements: alternatives, each a list of
// schemes with the key's scope.
function credentialsView(security) {
  if (!security || !security.length) return h("div", { class: "creds" }, h("span", { class: "pill none" }, "no credential"));
  const names = { apiKey: "API key (Bearer)", apiKeyHeader: "API key (x-api-key)", jwt: "JWT", workspace: "X-Workspace-Id", webhookKey: "webhook key ?k=" };
  return h("div", { class: "creds" }, security.map((req, i) => {
    const entries = Object.entries(req);
    const text = entries.length
      ? entries.map(([n, scopes]) => (names[n] || n) + (scopes.length ? " · " + scopes.join(", ") : "")).join(" + ")
      : "none (public)";
    return [i ? h("span", { class: "or" }, "or") : "", h("span", { class: "pill" + (entries.length ? "" : " none") }, text)];
  }));
}

function statusClass(code) {
  return "s" + String(code)[0];
}

// firstSentence is a description's opening, for a response's one-line title.
function firstSentence(text) {
  const flat = String(text || "").trim().replace(/\s*\n\s*/g, " ");
  if (flat.length <= 110) return flat;
  const stop = flat.indexOf(". ");
  return stop > 0 && stop < 160 ? flat.slice(0, stop + 1) : flat.slice(0, 110) + "…";
}

function responseView(code, ref) {
  const r = resolve(ref);
  const headers = Object.entries(r.headers || {});
  const short = firstSentence(r.description);
  const title = h("span", { class: "rdesc" });
  title.innerHTML = inlineMarkdown(short);
  const body = h("div", { class: "response-body" },
    short !== String(r.description || "").trim().replace(/\s*\n\s*/g, " ") ? md(r.description) : "",
    headers.length ? h("table", { class: "params" },
      h("thead", {}, h("tr", {}, h("th", {}, "Header"), h("th", {}, "Type"), h("th", {}, "Description"))),
      h("tbody", {}, headers.map(([name, hr]) => {
        hr = resolve(hr);
        return h("tr", {}, h("td", { class: "name" }, h("code", {}, name), hr.required ? h("span", { class: "req" }, "always") : ""),
          h("td", {}, typeLabel(hr.schema)), h("td", {}, hr.description ? md(hr.description) : ""));
      }))) : "",
    contentView(r.content));
  return h("details", { class: "response", open: String(code).startsWith("2") || undefined },
    h("summary", {}, h("span", { class: "status " + statusClass(code) }, code), title),
    body);
}

function operationView(path, method, op, pathItem) {
  const params = [...(pathItem.parameters || []), ...(op.parameters || [])];
  const rb = op.requestBody && resolve(op.requestBody);
  const id = "op-" + (op.operationId || slug(method + " " + path));
  return h("section", { class: "op", id, "data-search": [method, path, op.summary, op.operationId, (op.tags || []).join(" ")].join(" ").toLowerCase() },
    h("div", { class: "op-head" },
      h("span", { class: "method m-" + method }, method.toUpperCase()),
      h("code", { class: "path" }, path),
      h("a", { class: "anchor", href: "#" + id, title: "Link to this operation" }, "#")),
    h("h3", {}, op.summary || ""),
    op.description ? md(op.description) : "",
    h("h4", {}, "Credentials"), credentialsView(op.security ?? doc.security),
    params.length ? [h("h4", {}, "Parameters"), h("table", { class: "params" },
      h("thead", {}, h("tr", {}, h("th", {}, "Name"), h("th", {}, "In"), h("th", {}, "Type and description"))),
      h("tbody", {}, params.map(paramRow)))] : "",
    rb ? [h("h4", {}, "Request body", rb.required ? h("span", { class: "req" }, "required") : ""),
      rb.description ? md(rb.description) : "", contentView(rb.content)] : "",
    h("h4", {}, "Responses"),
    Object.entries(op.responses || {}).map(([code, r]) => responseView(code, r)));
}

// operationsByTag lists the operations of each tag in the document's order of tags and paths.
function operationsByTag() {
  const groups = new Map((doc.tags || []).map((t) => [t.name, { tag: t, ops: [] }]));
  for (const [path, item] of Object.entries(doc.paths || {})) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const name = (op.tags && op.tags[0]) || "Other";
      if (!groups.has(name)) groups.set(name, { tag: { name }, ops: [] });
      groups.get(name).ops.push({ path, method, op, item });
    }
  }
  return [...groups.values()].filter((g) => g.ops.length);
}

function securitySchemesView() {
  const schemes = Object.entries((doc.components || {}).securitySchemes || {});
  return h("table", { class: "params" },
    h("thead", {}, h("tr", {}, h("th", {}, "Scheme"), h("th", {}, "Sent as"), h("th", {}, "Description"))),
    h("tbody", {}, schemes.map(([name, s]) => h("tr", {},
      h("td", { class: "name" }, h("code", {}, name)),
      h("td", {}, s.type === "http" ? "Authorization: " + s.scheme[0].toUpperCase() + s.scheme.slice(1) + " " + (s.bearerFormat || "") : s.in + " " + s.name),
      h("td", {}, md(s.description || ""))))));
}

function render() {
  const groups = operationsByTag();
  const schemas = Object.entries((doc.components || {}).schemas || {});
  const search = h("input", { type: "search", placeholder: "Filter operations…", "aria-label": "Filter operations" });
  const nav = h("nav", { class: "sidebar" },
    h("div", { class: "brand" }, doc.info.title, h("span", { class: "version" }, "v" + doc.info.version)),
    search,
    h("ul", { class: "toc" },
      h("li", {}, h("a", { href: "#introduction" }, "Introduction")),
      h("li", {}, h("a", { href: "#credentials" }, "Credentials")),
      groups.map((g) => h("li", { class: "group" },
        h("a", { class: "group-name", href: "#tag-" + slug(g.tag.name) }, g.tag.name),
        h("ul", {}, g.ops.map(({ path, method, op }) => h("li", { "data-search": [method, path, op.summary, op.operationId, g.tag.name].join(" ").toLowerCase() },
          h("a", { href: "#op-" + (op.operationId || slug(method + " " + path)) },
            h("span", { class: "method small m-" + method }, method.toUpperCase()), " ", op.summary || path)))))),
      h("li", { class: "group" }, h("a", { class: "group-name", href: "#schemas" }, "Schemas"))));
  const main = h("main", {},
    h("header", { id: "introduction" },
      h("h1", {}, doc.info.title, " ", h("span", { class: "version" }, "v" + doc.info.version)),
      doc.info.summary ? h("p", { class: "lead" }, doc.info.summary) : "",
      h("p", { class: "links" }, "OpenAPI ", doc.openapi, " document: ", h("a", { href: "/v3/openapi.json" }, "/v3/openapi.json"),
        (doc.servers || []).length ? [" · server ", h("code", {}, doc.servers[0].url)] : ""),
      md(doc.info.description)),
    h("section", { id: "credentials" }, h("h2", {}, "Credentials"), securitySchemesView()),
    groups.map((g) => h("section", { class: "tag", id: "tag-" + slug(g.tag.name) },
      h("h2", {}, g.tag.name), g.tag.description ? md(g.tag.description) : "",
      g.ops.map(({ path, method, op, item }) => operationView(path, method, op, item)))),
    h("section", { id: "schemas" }, h("h2", {}, "Schemas"),
      schemas.map(([name, s]) => h("section", { class: "op schema-def", id: "schema-" + name, "data-search": ("schema " + name).toLowerCase() },
        h("h3", {}, name), schemaView(s)))));
  document.getElementById("app").append(nav, main);

  search.addEventListener("input", () => {
    const q = search.value.trim().toLowerCase();
    for (const el of document.querySelectorAll("[data-search]")) {
      el.hidden = q !== "" && !el.dataset.search.includes(q);
    }
    for (const g of document.querySelectorAll("section.tag, .toc li.group")) {
      const items = g.querySelectorAll("[data-search]");
      g.hidden = q !== "" && items.length > 0 && [...items].every((el) => el.hidden);
    }
  });
  if (location.hash) {
    const target = document.getElementById(decodeURIComponent(location.hash.slice(1)));
    if (target) target.scrollIntoView();
  }
}

render();

// The explorer's page: it reads the JSON endpoints of forensics serve
// (docs/serve.md) and writes every text from the timeline with
// textContent, never as HTML. The URL's query holds the whole view.
"use strict";

const $ = (id) => document.getElementById(id);
const MULTI = ["node", "component", "file", "kind"];
const SINGLE = ["incident", "q", "mode", "since", "until", "at", "hl", "finding", "tz", "by", "bucket", "vb", "range", "keyspace", "table"];
const KEYS = ["bucket", "vb", "range", "keyspace", "table"];
const MAXROWS = 1500;
const PAGE = 200;

let state = readURL();
let kinds = {};
let summary = null;
let table = null; // the rows shown: {top, more, next, bottomDone, loading}

function readURL() {
  const p = new URLSearchParams(location.search);
  const s = {};
  for (const k of SINGLE) s[k] = p.get(k) || "";
  for (const k of MULTI) s[k] = p.getAll(k);
  return s;
}

function writeURL(push) {
  const p = new URLSearchParams();
  for (const k of SINGLE) if (state[k]) p.set(k, state[k]);
  for (const k of MULTI) for (const v of state[k]) p.append(k, v);
  const url = "?" + p.toString();
  if (url !== location.search) {
    if (push) history.pushState(null, "", url); else history.replaceState(null, "", url);
  }
}

// filterParams are the view's parameters for the endpoints.
function filterParams(extra) {
  const p = new URLSearchParams();
  for (const k of ["incident", "q", "mode", "since", "until", ...KEYS]) if (state[k]) p.set(k, state[k]);
  for (const k of MULTI) for (const v of state[k]) p.append(k, v);
  if (!state.q) p.delete("mode");
  for (const [k, v] of Object.entries(extra || {})) if (v !== undefined && v !== "") p.set(k, v);
  return p;
}

let pending = {};
async function get(path, params, slot) {
  if (slot && pending[slot]) pending[slot].abort();
  const ac = new AbortController();
  if (slot) pending[slot] = ac;
  const r = await fetch(path + "?" + params.toString(), { signal: ac.signal, credentials: "same-origin" });
  const body = await r.json();
  if (slot && pending[slot] === ac) delete pending[slot];
  if (!r.ok) throw new Error(body.error || r.statusText);
  return body;
}

function status(text, error) {
  $("status").textContent = text;
  $("status").className = error ? "error" : "";
}

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

const pad = (n, w) => String(n).padStart(w || 2, "0");

// fmtTime writes a line's time in the zone chosen: UTC, the node's own
// (the offset it logged), or the browser's.
function fmtTime(iso, ns, offset) {
  const ms = Math.floor(ns / 1e6);
  const frac = pad(Math.floor((ns % 1e9) / 1e6), 3);
  let d, zone;
  if (state.tz === "local") {
    d = new Date(ms);
    const off = -d.getTimezoneOffset();
    zone = (off >= 0 ? "+" : "-") + pad(Math.floor(Math.abs(off) / 60)) + ":" + pad(Math.abs(off) % 60);
    return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${frac} ${zone}`;
  }
  const off = state.tz === "node" ? offset || 0 : 0;
  d = new Date(ms + off * 1000);
  zone = state.tz === "node" ? (off >= 0 ? "+" : "-") + pad(Math.floor(Math.abs(off) / 3600)) + ":" + pad(Math.floor(Math.abs(off) % 3600 / 60)) : "Z";
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}.${frac}${zone === "Z" ? "Z" : " " + zone}`;
}

// ---- incidents, filters, findings ----

async function loadIncidents() {
  const incs = await get("api/incidents", new URLSearchParams());
  const sel = $("incident");
  sel.textContent = "";
  for (const inc of incs) {
    const o = el("option", "", `${inc.name} (${inc.findings} findings)`);
    o.value = inc.name;
    sel.append(o);
  }
  if (!state.incident && incs.length) state.incident = incs[incs.length - 1].name;
  sel.value = state.incident;
  if (!incs.length) status("this timeline holds no analysis yet: forensics analyze writes one", true);
  return incs.length > 0;
}

async function loadSummary() {
  summary = await get("api/summary", filterParams(), "summary");
  const nav = $("filters");
  nav.textContent = "";
  const section = (title, key, items, more) => {
    if (!items || !items.length) return;
    nav.append(el("h3", "", title));
    for (const it of items) {
      const lab = el("label");
      const box = el("input");
      box.type = "checkbox";
      box.dataset.filter = key;
      box.value = it.name;
      const chosen = MULTI.includes(key) ? state[key].includes(it.name) : state[key] === it.name;
      box.checked = chosen;
      box.addEventListener("change", () => {
        if (MULTI.includes(key)) {
          state[key] = box.checked ? [...state[key], it.name] : state[key].filter((v) => v !== it.name);
        } else {
          state[key] = box.checked ? it.name : "";
        }
        refresh({ keepRange: true });
      });
      lab.append(box, el("span", "name", key === "file" ? short(it.name) : it.name || "(none)"), el("span", "cnt", it.n.toLocaleString("en")));
      lab.title = it.name;
      nav.append(lab);
    }
    if (more) nav.append(el("div", "edge", `and ${more} more`));
  };
  section("nodes", "node", summary.nodes);
  section("components", "component", summary.components);
  section("kinds (events)", "kind", summary.kinds);
  for (const k of KEYS) section(k, k, (summary.keys || {})[k]);
  section("files", "file", summary.files, summary.more_files);
}

async function loadFindings() {
  const fs = await get("api/findings", filterParams(), "findings");
  const ol = $("findings");
  ol.textContent = "";
  state.windows = fs;
  if (!fs.length) ol.append(el("li", "edge", "no findings"));
  for (const f of fs) {
    const li = el("li");
    const a = el("a");
    a.href = "?" + new URLSearchParams({ incident: state.incident, finding: f.id }).toString();
    a.dataset.finding = f.id;
    a.append(el("span", "sev " + f.severity, f.severity), el("span", "", f.title));
    a.addEventListener("click", (ev) => { ev.preventDefault(); openFinding(f.id, true); });
    li.append(a);
    ol.append(li);
  }
}

// ---- the histogram ----

const PALETTE = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"];
const colours = {};
function colour(key) {
  if (!(key in colours)) colours[key] = PALETTE[Object.keys(colours).length % PALETTE.length];
  return colours[key];
}

const SVGNS = "http://www.w3.org/2000/svg";
function svg(tag, attrs, text) {
  const e = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

let hist = null;
async function loadHistogram() {
  const h = await get("api/histogram", filterParams({ by: state.by || "component" }), "histogram");
  hist = h;
  $("histtitle").textContent = h.of === "lines" ? "matching lines per node" : "events per node";
  drawHistogram();
}

function drawHistogram() {
  const box = $("hist");
  box.textContent = "";
  if (!hist || !hist.series) return;
  const nodes = [...new Set(hist.series.map((s) => s.node))];
  const width = Math.max(box.clientWidth - 16, 200);
  const label = Math.min(170, 12 + 6.2 * Math.max(4, ...nodes.map((n) => n.length))), band = 34, axis = 16;
  const height = Math.max(nodes.length, 1) * band + axis;
  const root = svg("svg", { viewBox: `0 0 ${width} ${height}`, height, "data-bars": hist.bars, "data-nodes": nodes.length });
  const plot = width - label - 4;
  const bw = plot / hist.bars;
  const since = Date.parse(hist.since), until = Date.parse(hist.until);
  const xOf = (t) => label + ((t - since) / (until - since)) * plot;
  nodes.forEach((node, i) => {
    const y0 = i * band;
    const mine = hist.series.filter((s) => s.node === node);
    let max = 1;
    const tot = new Array(hist.bars).fill(0);
    for (const s of mine) s.counts.forEach((c, j) => { tot[j] += c; });
    for (const t of tot) max = Math.max(max, t);
    const base = new Array(hist.bars).fill(0);
    for (const s of mine) {
      s.counts.forEach((c, j) => {
        if (!c) return;
        const h = (c / max) * (band - 6);
        const r = svg("rect", { x: label + j * bw, y: y0 + band - 2 - base[j] - h, width: Math.max(bw - 0.5, 0.5), height: h, fill: colour(s.key) });
        r.append(svg("title", {}, `${node} ${s.key}: ${c}`));
        root.append(r);
        base[j] += h;
      });
    }
    root.append(svg("text", { x: 2, y: y0 + band / 2 + 4, class: "band-label" }, node.length > 26 ? node.slice(0, 25) + "…" : node || "(none)"));
    root.append(svg("line", { x1: label, x2: width, y1: y0 + band - 1.5, y2: y0 + band - 1.5, stroke: "#d0d4da" }));
  });
  for (const f of state.windows || []) {
    const a = Math.max(xOf(Date.parse(f.start)), label), b = Math.min(xOf(Date.parse(f.end)), width);
    if (b < label || a > width) continue;
    const r = svg("rect", { x: a, y: 0, width: Math.max(b - a, 2), height: height - axis, class: "window", "data-finding": f.id });
    r.append(svg("title", {}, `${f.rule}: ${f.title}`));
    root.append(r);
  }
  // The axis: times of day when the incident is within a day, and the
  // dates beside the title.
  const day = until - since < 86400e3 && new Date(since).toISOString().slice(0, 10) === new Date(until).toISOString().slice(0, 10);
  document.body.classList.toggle("oneday", day && !state.tz); // in UTC, as the title
  const tickText = (t) => { const iso = new Date(t).toISOString(); return day ? iso.slice(11, 19) : iso.slice(0, 16).replace("T", " "); };
  const ticks = Math.max(1, Math.floor(plot / (day ? 90 : 150)));
  for (let i = 0; i <= ticks; i++) {
    const t = since + ((until - since) * i) / ticks;
    const anchor = i === 0 ? "start" : i === ticks ? "end" : "middle";
    root.append(svg("text", { x: label + (plot * i) / ticks, y: height - 3, class: "axis", "text-anchor": anchor }, tickText(t)));
  }
  $("histspan").textContent = `${new Date(since).toISOString().slice(0, 19).replace("T", " ")} to ${new Date(until).toISOString().slice(day ? 11 : 0, 19).replace("T", " ")} UTC`;
  const sel = svg("rect", { class: "sel", y: 0, height: height - axis, width: 0, x: 0, visibility: "hidden" });
  root.append(sel);
  let start = null;
  const xAt = (ev) => {
    const r = root.getBoundingClientRect();
    return Math.min(Math.max(((ev.clientX - r.left) / r.width) * width, label), width);
  };
  root.addEventListener("mousedown", (ev) => { start = xAt(ev); sel.setAttribute("visibility", "visible"); sel.setAttribute("x", start); sel.setAttribute("width", 0); ev.preventDefault(); });
  root.addEventListener("mousemove", (ev) => {
    if (start === null) return;
    const x = xAt(ev);
    sel.setAttribute("x", Math.min(start, x));
    sel.setAttribute("width", Math.abs(x - start));
  });
  const tAt = (x) => since + ((x - label) / plot) * (until - since);
  root.addEventListener("mouseup", (ev) => {
    if (start === null) return;
    const x = xAt(ev);
    const a = Math.min(start, x), b = Math.max(start, x);
    start = null;
    if (b - a < 3) {
      // a click: the lines at that time
      state.at = new Date(tAt(a)).toISOString();
      state.hl = "";
      writeURL(false);
      loadTable();
      return;
    }
    state.since = new Date(tAt(a)).toISOString();
    state.until = new Date(tAt(b)).toISOString();
    state.at = "";
    refresh({ keepRange: true });
  });
  box.append(root);
  const range = $("range");
  if (state.since || state.until) {
    range.textContent = `from ${state.since || "the start"} to ${state.until || "the end"}`;
    $("clearrange").hidden = false;
  } else {
    range.textContent = "";
    $("clearrange").hidden = true;
  }
}

// ---- the merged timeline ----

// short is a path as given to analyze, from the folder of the inputs.
function short(path) {
  const root = summary && summary.root;
  return root && path.startsWith(root + "/") ? path.slice(root.length + 1) : path;
}

function rowOf(l) {
  const r = el("div", "row");
  const cats = (l.kinds || []).map((k) => (kinds[k] || {}).category).filter(Boolean);
  if (cats.length) r.classList.add("c-" + cats[0]);
  r.dataset.path = l.path;
  r.dataset.line = l.line;
  r.dataset.ns = l.ns;
  const f = el("span", "f");
  f.append(el("bdi", "", `${short(l.path)}:${l.line}`));
  // The date apart, so that a narrow window shows the time of day only.
  const when = fmtTime(l.time, l.ns, l.offset);
  const t = el("span", "t");
  t.append(el("span", "d", when.slice(0, 10)), document.createTextNode(when.slice(11)));
  t.title = when;
  r.append(t, el("span", "n", l.node), f, el("span", "k", (l.kinds || []).join(" ")), textSpan(l.text));
  r.title = `${l.path}:${l.line}`;
  r.line = l;
  r.addEventListener("click", () => toggleContext(r));
  return r;
}

// textSpan writes a line's text with the search's matches marked, each
// part as text.
function textSpan(text) {
  const s = el("span", "x");
  const q = state.q;
  if (!q || state.mode === "regexp") { s.textContent = text; return s; }
  const hay = state.mode === "fold" ? text.toLowerCase() : text;
  const needle = state.mode === "fold" ? q.toLowerCase() : q;
  let i = 0;
  for (let j = hay.indexOf(needle); j >= 0 && needle; j = hay.indexOf(needle, i)) {
    s.append(document.createTextNode(text.slice(i, j)), el("mark", "", text.slice(j, j + needle.length)));
    i = j + needle.length;
  }
  s.append(document.createTextNode(text.slice(i)));
  return s;
}

async function toggleContext(r) {
  if (r.nextSibling && r.nextSibling.classList && r.nextSibling.classList.contains("ctx")) { r.nextSibling.remove(); return; }
  const l = r.line;
  const box = el("div", "ctx");
  box.textContent = "…";
  r.after(box);
  try {
    const lines = await get("api/context", new URLSearchParams({ incident: state.incident, path: l.path, line: l.line, t: l.ns, n: 10 }));
    box.textContent = "";
    box.append(el("div", "", `${l.path} around line ${l.line}:`));
    for (const c of lines) box.append(el("div", c.line === l.line ? "me" : "", `${String(c.line).padStart(7)}  ${c.text}`));
    const b = el("button", "", "lines around this time on every node");
    b.type = "button";
    b.addEventListener("click", () => {
      state.node = []; state.file = []; state.component = []; state.kind = [];
      for (const k of KEYS) state[k] = "";
      state.q = ""; $("q").value = "";
      state.at = l.time; state.hl = `${l.path}:${l.line}`;
      refresh({ keepRange: false, clearRange: true });
    });
    box.append(b);
  } catch (e) { box.textContent = String(e.message || e); }
}

function edge(text) { return el("div", "edge", text); }

async function loadTable() {
  const rows = $("rows");
  rows.textContent = "";
  table = { next: "", bottomDone: false, topDone: true, loading: false, gen: (table ? table.gen : 0) + 1 };
  const gen = table.gen;
  status("reading…");
  try {
    if (state.at) {
      const [back, fwd] = await Promise.all([
        get("api/lines", filterParams({ upto: state.at, limit: 50 }), "back"),
        get("api/lines", filterParams({ at: state.at, limit: PAGE }), "fwd"),
      ]);
      if (gen !== table.gen) return;
      for (const l of back.lines) rows.append(rowOf(l));
      table.topDone = !back.more;
      for (const l of fwd.lines) rows.append(rowOf(l));
      table.next = fwd.next;
      table.bottomDone = !fwd.next;
    } else {
      const fwd = await get("api/lines", filterParams({ limit: PAGE }), "fwd");
      if (gen !== table.gen) return;
      for (const l of fwd.lines) rows.append(rowOf(l));
      table.next = fwd.next;
      table.bottomDone = !fwd.next;
      searchStatus(fwd);
    }
    if (!rows.firstChild) rows.append(edge(state.q ? "no line matches" : "no lines"));
    if (!state.q || state.at) status(`${rows.querySelectorAll(".row").length} lines shown`);
    highlight();
  } catch (e) {
    if (e.name !== "AbortError") status(String(e.message || e), true);
  }
}

function searchStatus(p) {
  if (!p.search) return;
  const st = p.search;
  status(`${p.lines.length}${p.next ? "+" : ""} matching lines; the index chose ${st.chosen} of ${st.blocks} blocks`);
}

function highlight() {
  if (!state.hl) return;
  const i = state.hl.lastIndexOf(":");
  const path = state.hl.slice(0, i), line = state.hl.slice(i + 1);
  for (const r of $("rows").querySelectorAll(".row")) {
    if (r.dataset.path === path && r.dataset.line === line) {
      r.classList.add("hl");
      r.scrollIntoView({ block: "center" });
      return;
    }
  }
}

async function more(down) {
  if (!table || table.loading) return;
  const rows = $("rows");
  const all = rows.querySelectorAll(".row");
  if (!all.length) return;
  if (down && table.bottomDone) return;
  if (!down && table.topDone) return;
  table.loading = true;
  const gen = table.gen;
  try {
    if (down) {
      const extra = table.next ? { after: table.next } : { from: all[all.length - 1].line.pos };
      const p = await get("api/lines", filterParams({ ...extra, limit: PAGE }), "fwd");
      if (gen !== table.gen) return;
      for (const l of p.lines) rows.append(rowOf(l));
      table.next = p.next;
      table.bottomDone = !p.next;
      // keep the table bounded: drop rows far above
      const rs = rows.querySelectorAll(".row");
      if (rs.length > MAXROWS) {
        const before = rows.scrollHeight;
        for (let i = 0; i < rs.length - MAXROWS; i++) { const n = rs[i].nextSibling; if (n && n.classList.contains("ctx")) n.remove(); rs[i].remove(); }
        rows.scrollTop -= before - rows.scrollHeight;
        table.topDone = false;
      }
    } else {
      const p = await get("api/lines", filterParams({ before: all[0].line.pos, limit: PAGE }), "back");
      if (gen !== table.gen) return;
      const before = rows.scrollHeight;
      const frag = document.createDocumentFragment();
      for (const l of p.lines) frag.append(rowOf(l));
      rows.prepend(frag);
      rows.scrollTop += rows.scrollHeight - before;
      table.topDone = !p.more;
      const rs = rows.querySelectorAll(".row");
      if (rs.length > MAXROWS) {
        for (let i = MAXROWS; i < rs.length; i++) rs[i].remove();
        table.next = "";
        table.bottomDone = false;
      }
    }
  } catch (e) {
    if (e.name !== "AbortError") status(String(e.message || e), true);
  } finally {
    table.loading = false;
  }
}

$("rows").addEventListener("scroll", () => {
  const r = $("rows");
  if (r.scrollTop + r.clientHeight > r.scrollHeight - 600) more(true);
  else if (r.scrollTop < 300) more(false);
});

// ---- a finding's page ----

async function openFinding(id, push) {
  state.finding = id;
  writeURL(push);
  const f = await get("api/finding", new URLSearchParams({ incident: state.incident, id }));
  $("ftitle").textContent = f.title;
  $("fmeta").textContent = `${f.severity} · ${f.rule} · ${f.start} – ${f.end} · ${f.id}`;
  $("fexpl").textContent = f.explanation;
  const ev = $("fevidence");
  ev.textContent = "";
  for (const e of f.evidence || []) {
    const li = el("li");
    const a = el("a", "", `${e.node ? e.node + " " : ""}${short(e.source)}:${e.line}`);
    a.href = "?" + new URLSearchParams({ incident: state.incident, at: e.time, hl: `${e.source}:${e.line}` }).toString();
    a.dataset.evidence = `${e.source}:${e.line}`;
    a.addEventListener("click", (x) => {
      x.preventDefault();
      closeFinding();
      state.node = []; state.file = []; state.component = []; state.kind = []; state.q = ""; $("q").value = "";
      for (const k of KEYS) state[k] = "";
      state.at = e.time; state.hl = `${e.source}:${e.line}`;
      refresh({ clearRange: true, push: true });
    });
    li.append(a);
    if (e.note) li.append(el("span", "", " — " + e.note));
    li.append(el("span", "text", e.text));
    ev.append(li);
  }
  const fx = $("ffixes");
  fx.textContent = "";
  for (const fix of f.fixes || []) {
    const d = el("div", "fix");
    d.append(el("h4", "", fix.title));
    for (const s of fix.steps || []) d.append(el("p", "", s));
    for (const c of fix.commands || []) {
      const pre = el("pre");
      const b = el("button", "", "copy");
      b.type = "button";
      b.addEventListener("click", () => navigator.clipboard.writeText(c).then(() => { b.textContent = "copied"; }, () => { b.textContent = "select and copy"; }));
      pre.append(el("code", "", "$ " + c), b);
      d.append(pre);
    }
    fx.append(d);
  }
  $("fswim").textContent = "";
  if (f.swimlane && window.forensicsSwimlane) window.forensicsSwimlane($("fswim"), f.swimlane);
  $("finding").hidden = false;
}

function closeFinding() {
  $("finding").hidden = true;
  state.finding = "";
  writeURL(false);
}
$("fclose").addEventListener("click", closeFinding);
$("finding").addEventListener("click", (e) => { if (e.target === $("finding")) closeFinding(); });
document.addEventListener("keydown", (e) => { if (e.key === "Escape" && !$("finding").hidden) closeFinding(); });

// ---- putting it together ----

async function refresh(opts) {
  opts = opts || {};
  if (opts.clearRange) { state.since = ""; state.until = ""; }
  writeURL(opts.push);
  const jobs = [loadSummary(), loadHistogram(), loadTable()];
  try { await Promise.all(jobs); } catch (e) { if (e.name !== "AbortError") status(String(e.message || e), true); }
}

$("search").addEventListener("submit", (e) => {
  e.preventDefault();
  state.q = $("q").value;
  state.mode = $("mode").value === "literal" ? "" : $("mode").value;
  state.at = ""; state.hl = "";
  refresh();
});
$("mode").addEventListener("change", () => { if (state.q) $("search").requestSubmit(); });
$("incident").addEventListener("change", async () => {
  state = { ...readURL(), incident: $("incident").value, node: [], component: [], file: [], kind: [], q: "", since: "", until: "", at: "", hl: "", finding: "" };
  $("q").value = "";
  await loadFindings();
  refresh();
});
$("tz").addEventListener("change", () => { state.tz = $("tz").value === "utc" ? "" : $("tz").value; writeURL(); drawHistogram(); loadTable(); });
$("by").addEventListener("change", () => { state.by = $("by").value === "component" ? "" : $("by").value; writeURL(); loadHistogram(); });
$("clearrange").addEventListener("click", () => refresh({ clearRange: true }));
window.addEventListener("popstate", () => { state = readURL(); start(); });
let resizeTimer = null;
window.addEventListener("resize", () => { clearTimeout(resizeTimer); resizeTimer = setTimeout(drawHistogram, 150); });

async function start() {
  $("q").value = state.q;
  $("mode").value = state.mode || "literal";
  $("tz").value = state.tz || "utc";
  $("by").value = state.by || "component";
  try {
    kinds = await get("api/kinds", new URLSearchParams());
    if (!(await loadIncidents())) return;
    await loadFindings();
    await refresh();
    if (state.finding) await openFinding(state.finding, false); else $("finding").hidden = true;
    document.body.dataset.ready = "1";
  } catch (e) {
    status(String(e.message || e), true);
  }
}
start();

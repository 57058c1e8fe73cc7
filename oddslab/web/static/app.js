// The scenario tab: start from an example, a library entry or the form; live validation
// (/api/show) with the key and line of any error; run as a job with progress and Cancel;
// the result's tables and plots; downloads; a link that reproduces the scenario and seed.
"use strict";

const $ = (id) => document.getElementById(id);
const App = { source: "scenario.toml", exact: "unknown", result: null, job: null, examples: [] };

async function api(path, body, method) {
  const opts = body === undefined ? { method: method || "GET" } :
    { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) };
  const r = await fetch(path, opts);
  let data = null;
  try { data = await r.json(); } catch (e) { data = { error: `the server answered ${r.status}` }; }
  return { ok: r.ok, status: r.status, data, headers: r.headers };
}

// Poll a job until it ends; onProgress(fraction, info). Returns the final response.
async function followJob(info, bar, label, cancelButton) {
  App.job = info.id;
  if (cancelButton) {
    cancelButton.disabled = false;
    cancelButton.onclick = () => api(`/api/jobs/${info.id}/cancel`, {});
  }
  try {
    while (true) {
      const r = await api(`/api/jobs/${info.id}`);
      const s = r.data;
      if (bar) {
        if (s.fraction === null) bar.removeAttribute("value"); else bar.value = s.fraction;
      }
      if (label) label.textContent = s.state === "running" ?
        `${s.state}: ${s.done.toLocaleString()} ${s.unit}${s.total ? " of " + s.total.toLocaleString() : ""}, ${s.seconds.toFixed(1)} s` : "";
      if (!["queued", "running"].includes(s.state)) break;
      await new Promise((ok) => setTimeout(ok, 150));
    }
    const res = await api(`/api/jobs/${info.id}/result`);
    if (bar) bar.value = res.ok ? 1 : 0;
    res.jobId = info.id;
    return res;
  } finally {
    if (cancelButton) cancelButton.disabled = true;
    App.job = null;
  }
}

async function startJob(path, body, bar, label, cancelButton) {
  const r = await api(path + "?job=true", body);
  if (r.status !== 202) return r;
  return followJob(r.data, bar, label, cancelButton);
}

// -- the editor and live validation ------------------------------------------------------------
function setEditor(text, source) {
  $("editor").value = text;
  $("check").className = "check pending";
  $("check").textContent = "checking…";
  $("result").hidden = true;
  $("progress").value = 0;
  $("progress-text").textContent = "";
  if (source) { App.source = source; $("source-name").textContent = source; }
  gutter();
  validate();
}

function gutter(badLine) {
  const n = $("editor").value.split("\n").length;
  const g = $("gutter");
  g.textContent = "";
  for (let i = 1; i <= n; i++) {
    const s = document.createElement("span");
    s.textContent = i + "\n";
    if (i === badLine) s.className = "bad";
    g.appendChild(s);
  }
  g.appendChild(document.createTextNode("\n\n\n")); // room to follow the editor's scroll to the end
  g.scrollTop = $("editor").scrollTop;
}

let validateTimer = null;
function validate() {
  clearTimeout(validateTimer);
  validateTimer = setTimeout(doValidate, 250);
}

async function doValidate() {
  const text = $("editor").value;
  const r = await api("/api/show", { toml: text, source: App.source });
  if (text !== $("editor").value) return; // edited since: a newer check follows
  const check = $("check");
  if (!r.ok) {
    const e = r.data;
    check.className = "check bad";
    check.textContent = "";
    const msg = document.createElement("div");
    msg.id = "check-message";
    msg.textContent = e.error;
    check.appendChild(msg);
    if (e.key || e.line) {
      const where = document.createElement("div");
      where.id = "check-where";
      where.textContent = (e.key ? `key ${e.key}` : "") + (e.line ? ` on line ${e.line}` : "");
      check.appendChild(where);
    }
    gutter(e.line);
    $("resolved").classList.add("stale");
    $("run").disabled = true;
    return false;
  }
  check.className = "check ok";
  check.textContent = "✓ the scenario reads correctly";
  $("resolved").classList.remove("stale");
  gutter();
  $("run").disabled = false;
  App.exact = r.headers.get("X-Oddslab-Exact") || "unknown";
  App.ruleset = r.headers.get("X-Oddslab-Ruleset") || "generic";
  const ex = $("mode").querySelector('option[value="exact"]');
  ex.disabled = App.exact === "no";
  ex.textContent = App.exact === "no" ? "exact (not for this scenario)" : "exact";
  if (App.exact === "no" && $("mode").value === "exact") $("mode").value = "p0.01";
  renderResolved(r.data);
  if (typeof r.data.run.seed === "number" && !App.seedTouched) $("seed").value = r.data.run.seed;
  return true;
}

function renderResolved(data) {
  const box = $("resolved");
  box.textContent = "";
  const table = document.createElement("table");
  const sections = { run: data.run, ...(data.resolved || {}) };
  for (const [section, items] of Object.entries(sections)) {
    const head = table.insertRow();
    const th = document.createElement("th");
    th.colSpan = 2;
    th.textContent = section;
    head.appendChild(th);
    for (const [k, v] of Object.entries(items || {})) {
      const row = table.insertRow();
      row.insertCell().textContent = k;
      row.insertCell().textContent = typeof v === "boolean" ? (v ? "yes" : "no") : String(v);
    }
  }
  box.appendChild(table);
}

// -- running -------------------------------------------------------------------------------------
function runBody() {
  const body = { toml: $("editor").value, source: App.source };
  const mode = $("mode").value;
  if (mode !== "exact") body.seed = Number($("seed").value || 0);
  if (mode.startsWith("p")) body.precision = Number(mode.slice(1));
  if (mode === "trials") body.trials = Number($("trials").value);
  const events = eventLines();
  if (events.length) body.events = events;
  return body;
}

function eventLines() {
  return $("events").value.split("\n").map((x) => x.trim()).filter((x) => x);
}

async function run() {
  const mode = $("mode").value;
  $("run").disabled = true;
  $("result").hidden = true;
  $("progress-text").textContent = "";
  $("progress").value = 0;
  try {
    const r = await startJob(mode === "exact" ? "/api/exact" : "/api/simulate", runBody(),
      $("progress"), $("progress-text"), $("cancel"));
    if (!r.ok) {
      $("progress-text").textContent = r.data.error;
      return;
    }
    App.result = r.data;
    App.resultJob = r.jobId;
    renderResult(r.data);
    share(false);
  } finally {
    $("run").disabled = false;
  }
}

function renderResult(out) {
  $("result").hidden = false;
  const exact = out.exact;
  $("result-title").innerHTML = "";
  $("result-title").textContent = out.name + " ";
  const badge = document.createElement("span");
  badge.className = exact ? "badge exact" : "badge mc";
  badge.id = "result-kind";
  badge.textContent = exact ? "exact" : "Monte Carlo";
  $("result-title").appendChild(badge);
  $("result-meta").textContent = exact ? "Exact distributions: no sampling error." :
    `${out.trials.toLocaleString()} trials, seed ${out.seed}, run ${out.run_seconds.toFixed(2)} s` +
    (out.precision ? (out.precision_reached ? `; precision ±${out.precision} reached (widest 95% half-width ${out.half_width.toPrecision(2)})` :
      `; precision ±${out.precision} NOT reached (half-width ${out.half_width.toPrecision(2)})`) : "");
  const h = $("headlines");
  h.textContent = "";
  const head = h.insertRow();
  for (const c of exact ? ["outcome", "P"] : ["outcome", "P", "± SE", "95% interval"]) {
    const th = document.createElement("th"); th.textContent = c; head.appendChild(th);
  }
  out.probabilities.forEach((p, i) => {
    const row = h.insertRow();
    row.insertCell().textContent = p.label;
    const cell = row.insertCell();
    cell.textContent = fmtP(p.probability);
    cell.className = "headline-p";
    cell.dataset.p = p.probability;
    if (!exact) {
      row.insertCell().textContent = p.se > 0 ? fmtP(p.se) : "0";
      row.insertCell().textContent = `${fmtP(p.ci_low)} – ${fmtP(p.ci_high)}`;
    }
  });
  renderEvents(out);
  const s = $("summary");
  s.textContent = "";
  const cols = exact ? ["statistic", "mean", "sd", "5%", "median", "95%", "max"] :
    ["statistic", "mean", "± SE", "sd", "5%", "median", "95%", "max"];
  const sh = s.insertRow();
  for (const c of cols) { const th = document.createElement("th"); th.textContent = c; sh.appendChild(th); }
  for (const r of out.summary) {
    const row = s.insertRow();
    const cells = [r.label, fmtN(r.mean)].concat(exact ? [] : [fmtN(r.se_mean)])
      .concat([fmtN(r.sd), r.q05, r.q50, r.q95, r.max]);
    for (const c of cells) row.insertCell().textContent = c;
  }
  const sel = $("stat");
  sel.textContent = "";
  for (const r of out.summary) {
    const o = document.createElement("option");
    o.value = r.stat; o.textContent = r.label; sel.appendChild(o);
  }
  const main = out.probabilities.length ? out.probabilities[0].stat : out.summary[0].stat;
  sel.value = main;
  drawStat();
}

// The events asked for: P with its SE and interval (exact: P alone); "A | B" counts the trials
// in which B happened, which the trials column shows.
function renderEvents(out) {
  const events = out.events || [];
  const t = $("events-table");
  t.textContent = "";
  t.hidden = $("events-title").hidden = !events.length;
  if (!events.length) return;
  const exact = out.exact;
  const head = t.insertRow();
  for (const c of exact ? ["event", "P", "note"] : ["event", "P", "± SE", "95% interval", "trials", "note"]) {
    const th = document.createElement("th"); th.textContent = c; head.appendChild(th);
  }
  for (const e of events) {
    const row = t.insertRow();
    row.insertCell().textContent = e.label;
    const cell = row.insertCell();
    const known = e.probability !== null && !Number.isNaN(e.probability);
    cell.textContent = known ? fmtP(e.probability) : "—";
    cell.className = "event-p";
    cell.dataset.p = known ? e.probability : "";
    if (!exact) {
      row.insertCell().textContent = known ? (e.se > 0 ? fmtP(e.se) : "0") : "";
      row.insertCell().textContent = known ? `${fmtP(e.ci_low)} – ${fmtP(e.ci_high)}` : "";
      row.insertCell().textContent = e.trials === null ? "" : e.trials.toLocaleString();
    }
    row.insertCell().textContent = e.note || (e.conditional && e.given_probability !== null ?
      `given an event of probability ${fmtP(e.given_probability)}` : "");
  }
}

function drawStat() {
  const out = App.result, stat = $("stat").value;
  if (!out || !out.pmf[stat]) return;
  const label = (out.summary.find((r) => r.stat === stat) || {}).label || stat;
  const pmf = out.pmf[stat];
  const ge = pmf.map((_, k) => pmf.slice(k).reduce((a, b) => a + b, 0));
  // stop where the rest holds less than 1e-4 (as the CLI's table), at most 40 values
  let last = pmf.length - 1;
  for (let k = 1; k < pmf.length; k++) if (ge[k] < 1e-4 || k >= 40) { last = k; break; }
  const ks = [...Array(last + 1).keys()];
  const counts = out.counts ? out.counts[stat] : null;
  const n = out.trials;
  const hits = counts ? ks.map((k) => counts.slice(k).reduce((a, b) => a + b, 0)) : null;
  const ci = hits ? hits.map((x) => wilson(x, n)) : null;
  const folded = last < pmf.length - 1 ? `values above ${last} (P ${fmtP(ge[last + 1] || 0)}) not drawn` : "";
  drawPlot($("plot-eq"), { kind: "bar", ks, ys: ks.map((k) => pmf[k]), title: `P(= k): ${label}`,
    xlabel: label + " (k)", ylabel: "probability", note: folded,
    hover: (i) => `P(${label} = ${ks[i]}) = ${fmtP(pmf[ks[i]])}` });
  drawPlot($("plot-ge"), { kind: "step", ks, ys: ks.map((k) => ge[k]), title: `P(≥ k): ${label}`,
    xlabel: label + " (k)", ylabel: "probability", lo: ci && ci.map((c) => c[0]), hi: ci && ci.map((c) => c[1]),
    hover: (i) => `P(${label} ≥ ${ks[i]}) = ${fmtP(ge[ks[i]])}` + (ci ? ` (95%: ${fmtP(ci[i][0])} – ${fmtP(ci[i][1])})` : " (exact)") });
}

// -- links, downloads ---------------------------------------------------------------------------
function b64(text) {
  const bytes = new TextEncoder().encode(text);
  let s = "";
  bytes.forEach((b) => { s += String.fromCharCode(b); });
  return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function unb64(text) {
  const s = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  return new TextDecoder().decode(Uint8Array.from(s, (c) => c.charCodeAt(0)));
}

function shareUrl() {
  const params = new URLSearchParams({ seed: $("seed").value, mode: $("mode").value, s: b64($("editor").value) });
  if ($("mode").value === "trials") params.set("trials", $("trials").value);
  if (eventLines().length) params.set("ev", eventLines().join("\n"));
  return location.origin + location.pathname + "#" + params.toString();
}

function share(copy) {
  history.replaceState(null, "", shareUrl());
  if (copy && navigator.clipboard) navigator.clipboard.writeText(location.href).catch(() => {});
}

async function fromUrl() {
  if (!location.hash.includes("s=")) return false;
  const p = new URLSearchParams(location.hash.slice(1));
  try {
    $("form").hidden = true;
    setEditor(unb64(p.get("s")), "scenario.toml");
  } catch (e) { return false; }
  if (p.get("seed")) { $("seed").value = p.get("seed"); App.seedTouched = true; }
  if (p.get("mode")) $("mode").value = p.get("mode");
  if (p.get("trials")) $("trials").value = p.get("trials");
  if (p.get("ev")) $("events").value = p.get("ev");
  $("trials-box").hidden = $("mode").value !== "trials";
  if (await doValidate()) run();
  return true;
}

async function downloadResult(kind) {
  if (!App.result) return;
  const name = (App.source || "scenario.toml").replace(/\.toml$/, "").split("/").pop();
  if (kind === "json") download(JSON.stringify(App.result, null, 2), `${name}.json`, "application/json");
  if (kind === "csv") {
    let csv = await fetch(`/api/jobs/${App.resultJob}/result?format=csv`);
    if (!csv.ok) { // the job was forgotten: run it again (same seed, same numbers)
      const r = await api((App.result.exact ? "/api/exact" : "/api/simulate") + "?job=true", runBody());
      if (r.status !== 202) return;
      await followJob(r.data);
      csv = await fetch(`/api/jobs/${r.data.id}/result?format=csv`);
    }
    download(await csv.text(), `${name}.csv`, "text/csv");
  }
  if (kind === "png") {
    for (const [id, suffix] of [["plot-eq", "pmf"], ["plot-ge", "at-least"]]) {
      const svg = $(id).querySelector("svg");
      if (svg) svgToPng(svg, `${name}-${suffix}.png`);
    }
  }
}

// -- start-up ------------------------------------------------------------------------------------
async function loadStart(value) {
  if (value.startsWith("form:")) {
    $("form").hidden = false;
    Form.changed();
    return;
  }
  $("form").hidden = true;
  App.seedTouched = false;
  if (value.startsWith("example:")) {
    const file = value.slice(8);
    const r = await api(`/api/examples/${encodeURIComponent(file)}`);
    if (r.ok) setEditor(r.data.toml, file);
  } else if (value.startsWith("entry:")) {
    const [file, entry] = value.slice(6).split(":");
    const r = await api(`/api/libraries/${encodeURIComponent(file)}/${encodeURIComponent(entry)}`);
    if (r.ok) setEditor(r.data.toml, r.data.source);
    else { $("check").className = "check bad"; $("check").textContent = r.data.error; }
  }
}

async function status() {
  const r = await api("/api/status");
  const box = $("status");
  if (!r.ok) { box.textContent = "server not reachable"; return; }
  const w = r.data.warmup;
  if (w.ready) {
    box.className = "status ready";
    box.textContent = "ready";
    return;
  }
  box.className = "status warming";
  box.textContent = `warming up: compiling the ${w.current || ""} kernels (${w.done.length} done)…`;
  setTimeout(status, 1000);
}

async function startOptions() {
  App.examples = (await api("/api/examples")).data;
  const sel = $("start");
  const groups = {};
  for (const e of App.examples) {
    if (!groups[e.ruleset]) {
      groups[e.ruleset] = document.createElement("optgroup");
      groups[e.ruleset].label = `examples: ${e.ruleset}`;
      sel.appendChild(groups[e.ruleset]);
    }
    const o = document.createElement("option");
    o.value = `example:${e.file}`;
    o.textContent = e.name;
    o.title = e.description;
    groups[e.ruleset].appendChild(o);
  }
  App.libraries = (await api("/api/libraries")).data;
  for (const lib of App.libraries) {
    if (!lib.entries || !lib.template) continue;
    const g = document.createElement("optgroup");
    g.label = `library ${lib.file} (${lib.ruleset})`;
    for (const e of lib.entries) {
      const o = document.createElement("option");
      o.value = `entry:${lib.file}:${e.entry}`;
      o.textContent = `${e.name}${e.points !== null ? ` (${e.points} pts)` : ""}`;
      g.appendChild(o);
    }
    sel.appendChild(g);
  }
}

async function main() {
  document.querySelectorAll("#tabs button").forEach((b) => b.addEventListener("click", () => {
    document.querySelectorAll("#tabs button").forEach((x) => x.classList.toggle("active", x === b));
    document.querySelectorAll(".tab").forEach((t) => t.classList.toggle("active", t.id === "tab-" + b.dataset.tab));
  }));
  $("form").addEventListener("submit", (e) => e.preventDefault());
  $("editor").addEventListener("input", () => {
    $("check").className = "check pending";
    gutter();
    validate();
  });
  $("editor").addEventListener("scroll", () => { $("gutter").scrollTop = $("editor").scrollTop; });
  $("start").addEventListener("change", (e) => loadStart(e.target.value));
  $("mode").addEventListener("change", () => { $("trials-box").hidden = $("mode").value !== "trials"; });
  $("seed").addEventListener("input", () => { App.seedTouched = true; });
  $("run").addEventListener("click", run);
  $("stat").addEventListener("change", drawStat);
  $("share").addEventListener("click", () => share(true));
  $("dl-toml").addEventListener("click", () => download($("editor").value, App.source.split("/").pop(), "application/toml"));
  $("dl-csv").addEventListener("click", () => downloadResult("csv"));
  $("dl-json").addEventListener("click", () => downloadResult("json"));
  $("dl-png").addEventListener("click", () => downloadResult("png"));
  status();
  await Form.init(async (scenario) => {
    if ($("form").hidden) return; // an example or entry was opened meanwhile
    const r = await api("/api/toml", { scenario });
    if (r.ok) setEditor(r.data.toml, "scenario.toml");
  });
  await startOptions();
  if (!(await fromUrl())) Form.changed();
  document.body.dataset.ready = "1";
}

main();

// The study tabs: compare two to four loadouts, the matchup heatmap, fair points, and the
// library browser. Each runs as a job through the same API the CLI's JSON mirrors.
"use strict";

function tableFrom(table, columns, rows) {
  table.textContent = "";
  const head = table.insertRow();
  for (const c of columns) { const th = document.createElement("th"); th.textContent = c; head.appendChild(th); }
  for (const r of rows) {
    const row = table.insertRow();
    for (const c of r) row.insertCell().textContent = c;
  }
}

function option(sel, value, text) {
  const o = document.createElement("option");
  o.value = value; o.textContent = text; sel.appendChild(o);
}

// -- compare ---------------------------------------------------------------------------------------
function compareRow(value) {
  const row = document.createElement("div");
  row.className = "cmp-row";
  const sel = document.createElement("select");
  sel.className = "cmp-source";
  option(sel, "editor", "the scenario in the editor");
  for (const e of App.examples) option(sel, `example:${e.file}`, `${e.name} (${e.ruleset})`);
  for (const lib of App.libraries || [])
    for (const e of lib.entries || []) if (lib.template) option(sel, `entry:${lib.file}:${e.entry}`, `${e.name} (${lib.file})`);
  if (value) sel.value = value;
  const del = document.createElement("button");
  del.textContent = "remove";
  del.onclick = () => { if (document.querySelectorAll(".cmp-row").length > 2) row.remove(); };
  row.append(sel, del);
  $("cmp-rows").appendChild(row);
}

async function scenarioText(value) {
  if (value === "editor") return { toml: $("editor").value, source: App.source };
  if (value.startsWith("example:")) {
    const file = value.slice(8);
    return { toml: (await api(`/api/examples/${encodeURIComponent(file)}`)).data.toml, source: file };
  }
  const [file, entry] = value.slice(6).split(":");
  const r = await api(`/api/libraries/${encodeURIComponent(file)}/${encodeURIComponent(entry)}`);
  return { toml: r.data.toml, source: r.data.source };
}

async function runCompare() {
  $("cmp-error").textContent = "";
  const scenarios = [];
  for (const sel of document.querySelectorAll(".cmp-source")) scenarios.push(await scenarioText(sel.value));
  const body = { scenarios, trials: Number($("cmp-trials").value), seed: Number($("cmp-seed").value) };
  if ($("cmp-target").value) body.target = $("cmp-target").value;
  const r = await startJob("/api/compare", body, $("cmp-progress"));
  if (!r.ok) { $("cmp-error").textContent = r.data.error; return; }
  const names = Object.keys(r.data.scenarios);
  const first = r.data.scenarios[names[0]];
  const columns = [""];
  names.forEach((n, i) => { columns.push(n); if (i) columns.push(`${n} − first (95% interval)`); });
  const rows = [];
  for (const label of Object.keys(first.values)) {
    const kindP = !label.startsWith("mean ");
    const f = kindP ? fmtP : fmtN;
    const cells = [label];
    names.forEach((n, i) => {
      const v = r.data.scenarios[n].values[label];
      cells.push(v ? `${f(v.value)} ± ${v.se > 0 ? f(v.se) : "0"}` : "—");
      if (i) {
        const d = (r.data.scenarios[n].difference_vs_first || {})[label];
        const sgn = (x) => (x > 0 ? "+" : x < 0 ? "−" : "") + f(Math.abs(x));
        cells.push(d ? `${sgn(d.diff)} (${sgn(d.ci_low)} … ${sgn(d.ci_high)})` : "—");
      }
    });
    rows.push(cells);
  }
  tableFrom($("cmp-table"), columns, rows);
}

// -- matchup -----------------------------------------------------------------------------------------
async function runMatchup() {
  $("mu-error").textContent = "";
  const body = { attackers: $("mu-attackers").value.trim(), targets: $("mu-targets").value.trim(),
    per_points: $("mu-pp").checked, seed: 1 };
  if ($("mu-metric").value.trim()) body.metric = $("mu-metric").value.trim();
  if ($("mu-precision").value) body.precision = Number($("mu-precision").value);
  const r = await startJob("/api/matchup", body, $("mu-progress"), null, $("mu-cancel"));
  if (!r.ok) { $("mu-error").textContent = r.data.error; return; }
  App.matchup = { data: r.data, job: r.jobId };
  drawHeatmap($("mu-plot"), r.data);
  $("mu-dl").hidden = false;
  const notes = $("mu-notes");
  notes.textContent = "";
  const n = r.data.skipped.length + r.data.unfit.length;
  $("mu-notes-box").hidden = !n;
  $("mu-notes-title").textContent = `${n} entries that fit no side, or pairs not run (why)`;
  for (const s of r.data.skipped) { const li = document.createElement("li"); li.textContent = "left out: " + s; notes.appendChild(li); }
  for (const u of r.data.unfit) { const li = document.createElement("li"); li.textContent = `${u.attacker} vs ${u.target} not run: ${u.reason}`; notes.appendChild(li); }
}

// -- fair points ---------------------------------------------------------------------------------------
function fairLibrary() {
  const lib = (App.libraries || []).find((l) => l.file === $("fp-lib").value);
  const fits = (e, slot) => !e.slots || !e.slots.length || e.slots.includes(slot);
  for (const id of ["fp-candidate", "fp-reference"]) {
    const sel = $(id);
    sel.textContent = "";
    for (const e of (lib && lib.entries) || [])
      if (fits(e, "attacker") && e.points !== null) option(sel, e.entry, `${e.name} (${e.points} pts)`);
  }
  if ($("fp-reference").options.length > 1) $("fp-reference").selectedIndex = 1;
  const basket = $("fp-basket");
  basket.textContent = "";
  for (const e of ((lib && lib.entries) || []).filter((x) => fits(x, "target"))) {
    const label = document.createElement("label");
    const box = document.createElement("input");
    box.type = "checkbox";
    box.checked = true;
    box.value = e.entry;
    label.append(box, " " + e.name);
    basket.appendChild(label);
  }
}

async function runFair() {
  $("fp-error").textContent = "";
  const file = $("fp-lib").value;
  const basket = [...document.querySelectorAll("#fp-basket input:checked")].map((b) => `${file}:${b.value}`);
  const body = { candidate: `${file}:${$("fp-candidate").value}`, reference: `${file}:${$("fp-reference").value}`,
    basket, precision: 0.01, seed: 1 };
  if ($("fp-metric").value.trim()) body.metric = $("fp-metric").value.trim();
  const r = await startJob("/api/points/fair", body, $("fp-progress"));
  if (!r.ok) { $("fp-error").textContent = r.data.error; return; }
  // the one JSON document `oddslab points fair -f json` prints
  const d = r.data;
  // an exact answer has SEs 0 and intervals of zero width: say "exact", show no interval
  const rows = [
    ["fair points", fmtN(d.fair_points, 1) + (d.exact ? " (exact)" : "")],
    ...(d.exact ? [] : [["95% interval", `${fmtN(d.ci_low, 1)} to ${fmtN(d.ci_high, 1)}`]]),
    [`candidate: ${d.metric}`, fmtN(d.candidate_value, 3)],
    [`reference: ${d.metric}`, fmtN(d.reference_value, 3)],
    ["reference points", fmtN(d.reference_points, 1)],
  ];
  if (d.fair_per_model != null) rows.push(["fair points per model", fmtN(d.fair_per_model, 1)]);
  tableFrom($("fp-summary"), ["quantity", "value"], rows);
  const sens = r.data.sensitivity;
  $("fp-sens-title").hidden = !sens.length;
  if (sens.length) {
    const noSE = ["candidate_se", "reference_se", "se", "ci_low", "ci_high", "exact"];
    const cols = Object.keys(sens[0]).filter((c) => c !== "exact" && !(d.exact && noSE.includes(c)));
    tableFrom($("fp-sensitivity"), cols.map((c) => c.replace(/_/g, " ")), sens.map((x) => cols.map((c) => typeof x[c] === "number" ? fmtN(x[c], 2) : x[c])));
  }
}

// -- library browser --------------------------------------------------------------------------------------
function renderLibraries() {
  const box = $("libraries");
  box.textContent = "";
  for (const lib of App.libraries || []) {
    const h = document.createElement("h3");
    h.textContent = `${lib.file} (${lib.ruleset || "?"}, ${lib.where})`;
    box.appendChild(h);
    if (lib.error) { const p = document.createElement("p"); p.className = "bad"; p.textContent = lib.error; box.appendChild(p); continue; }
    const p = document.createElement("p");
    p.textContent = lib.description;
    box.appendChild(p);
    const t = document.createElement("table");
    t.className = "numbers";
    tableFrom(t, ["entry", "name", "points", ""], []);
    for (const e of lib.entries) {
      const row = t.insertRow();
      row.insertCell().textContent = e.entry;
      row.insertCell().textContent = e.name;
      row.insertCell().textContent = e.points === null ? "—" : e.points;
      const b = document.createElement("button");
      b.textContent = "Open";
      b.disabled = !lib.template;
      b.onclick = () => {
        document.querySelector('#tabs button[data-tab="scenario"]').click();
        $("start").value = `entry:${lib.file}:${e.entry}`;
        loadStart($("start").value);
      };
      row.insertCell().appendChild(b);
    }
    box.appendChild(t);
  }
}

(async function studies() {
  while (!App.libraries) await new Promise((ok) => setTimeout(ok, 50));
  compareRow("editor");
  compareRow("example:generic-flamers-vs-fnp-in-cover.toml");
  $("cmp-add").onclick = () => { if (document.querySelectorAll(".cmp-row").length < 4) compareRow(); };
  for (const lib of App.libraries) for (const e of lib.entries || []) option($("cmp-target"), `${lib.file}:${e.entry}`, `${e.name} (${lib.file})`);
  $("cmp-run").onclick = runCompare;
  $("mu-run").onclick = runMatchup;
  $("mu-csv").onclick = async () => {
    const r = await fetch(`/api/jobs/${App.matchup.job}/result?format=csv`);
    download(await r.text(), "matchup.csv", "text/csv");
  };
  $("mu-png").onclick = () => svgToPng($("mu-plot").querySelector("svg"), "matchup.png");
  for (const lib of App.libraries) if (lib.entries && lib.template) option($("fp-lib"), lib.file, `${lib.file} (${lib.ruleset})`);
  $("fp-lib").value = "generic.toml";
  $("fp-lib").onchange = fairLibrary;
  fairLibrary();
  $("fp-run").onclick = runFair;
  renderLibraries();
})();

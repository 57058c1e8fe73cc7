// Plots drawn as SVG with plain JavaScript (no library, nothing from a CDN): P(= k) bars,
// the P(>= k) curve, the matchup heatmap; hovering shows the number. PNG export draws the SVG
// on a canvas.
"use strict";

const SVG_NS = "http://www.w3.org/2000/svg";

function el(tag, attrs, parent) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
  if (parent) parent.appendChild(node);
  return node;
}

// A probability as the CLI prints it (oddslab._format.format_probability).
function fmtP(p, digits = 4) {
  if (p !== p) return "nan";
  if (p <= 0) return "0";
  if (p >= 1 || 1 - p < 1e-12) return "1";
  const tiny = Math.pow(10, -digits);
  const sci = (x) => x.toExponential(1).replace(/e([+-])(\d)$/, "e$10$2");
  if (p < tiny) return sci(p);
  if (1 - p < tiny) return "1 − " + sci(1 - p);
  return p.toFixed(digits);
}

function fmtN(x, digits = 3) {
  if (x !== x || x === null || x === undefined) return "—";
  if (x !== 0 && Math.abs(x) < 0.5 * Math.pow(10, -digits)) return x.toExponential(1);
  return x.toFixed(digits);
}

const tip = () => document.getElementById("tip");

function showTip(evt, text) {
  const t = tip();
  t.textContent = text;
  t.hidden = false;
  t.style.left = evt.pageX + 12 + "px";
  t.style.top = evt.pageY + 12 + "px";
}

function hideTip() {
  tip().hidden = true;
}

// Wilson 95% interval of hits/n (oddslab.outcome.wilson_interval).
function wilson(hits, n) {
  if (!n) return [0, 1];
  const z = 1.959963984540054, p = hits / n, z2 = z * z;
  const d = 1 + z2 / n, c = (p + z2 / (2 * n)) / d;
  const h = (z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / d;
  return [Math.max(0, c - h), Math.min(1, c + h)];
}

// Bars (kind "bar") or a step curve with points (kind "step") of ys over ks, with hover text.
function drawPlot(box, opts) {
  box.textContent = "";
  const W = 460, H = 280, L = 56, R = 14, T = 30, B = 44;
  const svg = el("svg", { width: W, height: H, viewBox: `0 0 ${W} ${H}`, xmlns: SVG_NS,
    "font-family": "sans-serif", "font-size": "12", role: "img" }, box);
  el("rect", { x: 0, y: 0, width: W, height: H, fill: "#ffffff" }, svg);
  el("text", { x: L, y: 18, "font-weight": "bold", fill: "#222" }, svg).textContent = opts.title;
  const n = opts.ks.length;
  const ymax = Math.max(1e-12, ...opts.ys.map((y, i) => Math.max(y, (opts.hi || [])[i] || 0)));
  const top = opts.kind === "step" ? 1 : ymax * 1.08;
  const x = (i) => L + ((i + 0.5) * (W - L - R)) / n;
  const y = (v) => T + (1 - v / top) * (H - T - B);
  const bw = Math.max(1, ((W - L - R) / n) * 0.8);
  // axes and ticks
  el("line", { x1: L, y1: H - B, x2: W - R, y2: H - B, stroke: "#444" }, svg);
  el("line", { x1: L, y1: T, x2: L, y2: H - B, stroke: "#444" }, svg);
  for (let t = 0; t <= 4; t++) {
    const v = (top * t) / 4;
    el("line", { x1: L - 4, y1: y(v), x2: W - R, y2: y(v), stroke: "#e4e4e4" }, svg);
    el("text", { x: L - 6, y: y(v) + 4, "text-anchor": "end", fill: "#333" }, svg).textContent =
      v.toFixed(top < 0.1 ? 3 : 2);
  }
  const every = Math.ceil(n / 16);
  opts.ks.forEach((k, i) => {
    if (i % every === 0)
      el("text", { x: x(i), y: H - B + 16, "text-anchor": "middle", fill: "#333" }, svg).textContent = k;
  });
  el("text", { x: (L + W - R) / 2, y: H - 8, "text-anchor": "middle", fill: "#222" }, svg).textContent = opts.xlabel;
  const yl = el("text", { x: 14, y: (T + H - B) / 2, "text-anchor": "middle", fill: "#222",
    transform: `rotate(-90 14 ${(T + H - B) / 2})` }, svg);
  yl.textContent = opts.ylabel;
  if (opts.kind === "step") {
    const pts = opts.ks.map((k, i) => `${x(i)},${y(opts.ys[i])}`).join(" ");
    if (opts.lo && opts.hi) {
      const band = opts.ks.map((k, i) => `${x(i)},${y(opts.hi[i])}`)
        .concat(opts.ks.map((k, i) => `${x(i)},${y(opts.lo[i])}`).reverse()).join(" ");
      el("polygon", { points: band, fill: "#9ecae1", opacity: 0.5 }, svg);
    }
    el("polyline", { points: pts, fill: "none", stroke: "#1f77b4", "stroke-width": 2 }, svg);
    opts.ks.forEach((k, i) => el("circle", { cx: x(i), cy: y(opts.ys[i]), r: 3, fill: "#1f77b4" }, svg));
  } else {
    opts.ks.forEach((k, i) => el("rect", { x: x(i) - bw / 2, y: y(opts.ys[i]), width: bw,
      height: H - B - y(opts.ys[i]), fill: "#1f77b4" }, svg));
  }
  // hover targets: one transparent column per value
  opts.ks.forEach((k, i) => {
    const hit = el("rect", { x: x(i) - (W - L - R) / n / 2, y: T, width: (W - L - R) / n,
      height: H - T - B, fill: "transparent", class: "hover", "data-k": k }, svg);
    hit.addEventListener("mousemove", (e) => showTip(e, opts.hover(i)));
    hit.addEventListener("mouseleave", hideTip);
  });
  if (opts.note)
    el("text", { x: W - R, y: 18, "text-anchor": "end", fill: "#666", "font-size": "11" }, svg).textContent = opts.note;
  return svg;
}

// Colour from white to dark blue for t in [0, 1].
function heat(t) {
  const a = [247, 251, 255], b = [8, 48, 107];
  const c = a.map((v, i) => Math.round(v + (b[i] - v) * Math.max(0, Math.min(1, t))));
  return `rgb(${c[0]},${c[1]},${c[2]})`;
}

function drawHeatmap(box, data) {
  box.textContent = "";
  const rows = data.attackers, cols = data.targets, m = data.matrix;
  const cell = Math.max(18, Math.min(46, Math.floor(720 / Math.max(cols.length, 1))));
  const L = 200, T = 150, W = L + cell * cols.length + 20, H = T + cell * rows.length + 20;
  const svg = el("svg", { width: W, height: H, viewBox: `0 0 ${W} ${H}`, xmlns: SVG_NS,
    "font-family": "sans-serif", "font-size": "11" }, box);
  el("rect", { x: 0, y: 0, width: W, height: H, fill: "#ffffff" }, svg);
  const vals = m.flat().filter((v) => v !== null);
  const lo = Math.min(...vals), hi = Math.max(...vals);
  el("text", { x: 8, y: 16, "font-weight": "bold", "font-size": "13" }, svg).textContent =
    data.metric.replace(/_/g, " ") + (data.per_points ? " per 100 points" : "") +
    " (rows: attackers, columns: targets)";
  rows.forEach((r, i) => {
    el("text", { x: L - 6, y: T + i * cell + cell / 2 + 4, "text-anchor": "end" }, svg).textContent = r;
    cols.forEach((c, j) => {
      const v = m[i][j];
      const rect = el("rect", { x: L + j * cell, y: T + i * cell, width: cell - 1, height: cell - 1,
        fill: v === null ? "#ddd" : heat(hi > lo ? (v - lo) / (hi - lo) : 0.5), class: "cell" }, svg);
      const text = v === null ? `${r} vs ${c}: not run` :
        `${r} vs ${c}: ${fmtN(v)} ± ${fmtN(data.se[i][j])} (SE)`;
      rect.addEventListener("mousemove", (e) => showTip(e, text));
      rect.addEventListener("mouseleave", hideTip);
      if (cell >= 34 && v !== null) {
        const t = el("text", { x: L + j * cell + cell / 2, y: T + i * cell + cell / 2 + 4,
          "text-anchor": "middle", fill: (hi > lo && (v - lo) / (hi - lo) > 0.55) ? "#fff" : "#111",
          "pointer-events": "none", "font-size": "10" }, svg);
        t.textContent = v.toPrecision(3);
      }
    });
  });
  cols.forEach((c, j) => {
    const x = L + j * cell + cell / 2, y = T - 6;
    el("text", { x, y, transform: `rotate(-50 ${x} ${y})` }, svg).textContent = c;
  });
  return svg;
}

// Download an SVG element as PNG (drawn on a canvas at twice its size).
function svgToPng(svg, name) {
  const text = new XMLSerializer().serializeToString(svg);
  const img = new Image();
  const w = +svg.getAttribute("width"), h = +svg.getAttribute("height");
  img.onload = () => {
    const canvas = document.createElement("canvas");
    canvas.width = w * 2;
    canvas.height = h * 2;
    const ctx = canvas.getContext("2d");
    ctx.scale(2, 2);
    ctx.drawImage(img, 0, 0);
    canvas.toBlob((blob) => download(blob, name));
  };
  img.src = "data:image/svg+xml;charset=utf-8," + encodeURIComponent(text);
}

function download(blobOrText, name, type) {
  const blob = blobOrText instanceof Blob ? blobOrText : new Blob([blobOrText], { type: type || "text/plain" });
  const a = document.createElement("a");
  a.href = URL.createObjectURL(blob);
  a.download = name;
  document.body.appendChild(a);
  a.click();
  setTimeout(() => { URL.revokeObjectURL(a.href); a.remove(); }, 1000);
}

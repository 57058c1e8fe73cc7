// The API reference, drawn from /openapi.json (offline: no Swagger UI from a CDN).
"use strict";
(async function () {
  const spec = await (await fetch("/openapi.json")).json();
  const box = document.getElementById("endpoints");
  box.textContent = "";
  const schemas = (spec.components || {}).schemas || {};
  const refName = (ref) => ref.split("/").pop();
  function describe(schema, depth) {
    if (!schema) return "";
    if (schema.$ref) {
      const name = refName(schema.$ref);
      if (depth > 1) return name;
      const s = schemas[name] || {};
      const props = s.properties || {};
      const req = new Set(s.required || []);
      const lines = Object.entries(props).map(([k, v]) =>
        `  ${k}${req.has(k) ? "" : "?"}: ${typeOf(v)}${v.description ? "  — " + v.description : ""}`);
      return `${name} {\n${lines.join("\n")}\n}`;
    }
    return typeOf(schema);
  }
  function typeOf(v) {
    if (v.$ref) return refName(v.$ref);
    if (v.anyOf) return v.anyOf.map(typeOf).join(" | ");
    if (v.type === "array") return `[${typeOf(v.items || {})}]`;
    return v.type || "any";
  }
  for (const [path, ops] of Object.entries(spec.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      const sec = document.createElement("section");
      sec.className = "endpoint";
      const h = document.createElement("h3");
      h.textContent = `${method.toUpperCase()} ${path}`;
      const p = document.createElement("p");
      p.textContent = op.summary || "";
      sec.append(h, p);
      const params = (op.parameters || []).map((x) => `${x.name} (${x.in})`).join(", ");
      if (params) {
        const q = document.createElement("p");
        q.textContent = "parameters: " + params;
        sec.append(q);
      }
      const body = (((op.requestBody || {}).content || {})["application/json"] || {}).schema;
      if (body) {
        const pre = document.createElement("pre");
        pre.textContent = describe(body, 1);
        sec.append(pre);
      }
      box.append(sec);
    }
  }
})();

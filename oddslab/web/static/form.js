// The generic scenario form, built from /api/form/generic (the generic model's own keys,
// defaults and help). It writes the scenario file: every change turns the form into the
// scenario's JSON form and asks the server for its TOML text (/api/toml).
"use strict";

const Form = {
  spec: null,
  weapons: 1,

  async init(onChange) {
    this.spec = await (await fetch("/api/form/generic")).json();
    this.onChange = onChange;
    this.render();
  },

  field(group, prefix, f) {
    const wrap = document.createElement("label");
    wrap.className = "field" + (f.kind === "bool" ? " bool" : "");
    const name = `${prefix}-${f.key}`;
    let input;
    if (f.kind === "bool") {
      input = document.createElement("input");
      input.type = "checkbox";
      input.checked = !!f.default;
    } else if (f.kind === "choice") {
      input = document.createElement("select");
      for (const c of f.choices) {
        const o = document.createElement("option");
        o.value = o.textContent = c;
        input.appendChild(o);
      }
      input.value = f.default;
    } else {
      input = document.createElement("input");
      input.type = f.kind === "int" ? "number" : "text";
      if (f.kind === "int") input.step = "1";
      input.value = f.default === null || f.default === undefined || Array.isArray(f.default) ? "" : f.default;
      if (f.optional) input.placeholder = "none";
      if (f.kind === "anti") input.placeholder = "e.g. infantry=4, monster=5";
      if (f.kind === "list") input.placeholder = "e.g. infantry, character";
    }
    input.name = name;
    input.dataset.key = f.key;
    input.dataset.kind = f.kind;
    input.dataset.default = JSON.stringify(f.default);
    if (f.required) input.dataset.required = "1";
    input.addEventListener("input", () => this.changed());
    input.addEventListener("change", () => this.changed());
    const text = document.createElement("span");
    text.className = "label";
    text.textContent = f.label;
    const help = document.createElement("small");
    help.className = "help";
    help.textContent = f.help;
    wrap.title = f.help;
    if (f.kind === "bool") wrap.append(input, text, help);
    else wrap.append(text, input, help);
    return wrap;
  },

  group(title, fields, prefix, group) {
    const box = document.createElement("fieldset");
    box.dataset.prefix = prefix;
    const legend = document.createElement("legend");
    legend.textContent = title;
    box.appendChild(legend);
    const more = document.createElement("details");
    const summary = document.createElement("summary");
    summary.textContent = group === "rules" ? "rule switches" : "more options";
    more.appendChild(summary);
    for (const f of fields) (f.common ? box : more).appendChild(this.field(group, prefix, f));
    box.appendChild(more);
    return box;
  },

  render() {
    const form = document.getElementById("form");
    form.textContent = "";
    const h = document.createElement("h2");
    h.textContent = "Generic scenario";
    form.appendChild(h);
    const top = document.createElement("div");
    top.className = "row";
    top.append(this.simple("scenario name", "scenario-name", "my scenario"),
      this.simple("attacker name", "attacker-name", "attacker"));
    form.appendChild(top);
    for (let i = 0; i < this.weapons; i++)
      form.appendChild(this.group(`Weapon ${i + 1}`, this.spec.weapon, `weapon-${i}`, "weapon"));
    const buttons = document.createElement("div");
    const add = document.createElement("button");
    add.type = "button";
    add.id = "add-weapon";
    add.textContent = "Add a weapon";
    add.onclick = () => { this.keep(() => this.weapons++); };
    buttons.appendChild(add);
    if (this.weapons > 1) {
      const del = document.createElement("button");
      del.type = "button";
      del.textContent = "Remove the last weapon";
      del.onclick = () => { this.keep(() => this.weapons--); };
      buttons.appendChild(del);
    }
    form.appendChild(buttons);
    const tgt = this.spec.target.map((f) => f.key === "models" ? { ...f, default: 10 } : f);
    form.appendChild(this.group("Target", tgt, "target", "target"));
    form.appendChild(this.group("Rules", this.spec.rules, "rules", "rules"));
  },

  simple(label, name, value) {
    const wrap = document.createElement("label");
    wrap.className = "field";
    const t = document.createElement("span");
    t.className = "label";
    t.textContent = label;
    const input = document.createElement("input");
    input.name = name;
    input.value = value;
    input.addEventListener("input", () => this.changed());
    wrap.append(t, input);
    return wrap;
  },

  // Re-render keeping what was typed.
  keep(change) {
    const values = {};
    for (const i of document.querySelectorAll("#form [name]"))
      values[i.name] = i.type === "checkbox" ? i.checked : i.value;
    change();
    this.render();
    for (const i of document.querySelectorAll("#form [name]"))
      if (i.name in values) i.type === "checkbox" ? (i.checked = values[i.name]) : (i.value = values[i.name]);
    this.changed();
  },

  read(prefix) {
    const out = {};
    for (const input of document.querySelectorAll(`#form [name^="${prefix}-"]`)) {
      const kind = input.dataset.kind, key = input.dataset.key;
      const dflt = JSON.parse(input.dataset.default || "null");
      let v;
      if (kind === "bool") v = input.checked;
      else if (input.value.trim() === "") continue;
      else if (kind === "int") v = Number(input.value);
      else if (kind === "dice") v = /^\d+$/.test(input.value.trim()) ? Number(input.value) : input.value.trim();
      else if (kind === "list") v = input.value.split(",").map((s) => s.trim()).filter(Boolean);
      else if (kind === "anti") {
        v = {};
        for (const part of input.value.split(",")) {
          const [k, x] = part.split("=").map((s) => s.trim());
          if (k) v[k] = Number(x);
        }
      } else v = input.value;
      const same = JSON.stringify(v) === JSON.stringify(dflt) || (kind === "dice" && String(v) === String(dflt));
      if (!same || input.dataset.required || key === "models" || key === "name") out[key] = v;
    }
    return out;
  },

  scenario() {
    const data = { ruleset: "generic" };
    const name = document.querySelector('#form [name="scenario-name"]').value.trim();
    if (name) data.name = name;
    const attacker = { name: document.querySelector('#form [name="attacker-name"]').value.trim() || "attacker", weapons: [] };
    for (let i = 0; i < this.weapons; i++) attacker.weapons.push(this.read(`weapon-${i}`));
    data.attacker = attacker;
    data.target = this.read("target");
    const rules = this.read("rules");
    if (Object.keys(rules).length) data.rules = rules;
    return data;
  },

  changed() {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.onChange(this.scenario()), 150);
  },
};

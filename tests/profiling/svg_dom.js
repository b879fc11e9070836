// A minimal DOM for the flame graph SVG's own script (tests/profiling/test_svg_script.py): node
// has no browser here. Reads {width, side, frames: [{x, w, depth, title, fill}]} and a list of
// actions from argv, runs the script, prints each frame's x, width, display, opacity, fill and
// label, and the controls' texts, as JSON.
"use strict";
const fs = require("fs");
const [data, actions, script] = [JSON.parse(process.argv[2]), JSON.parse(process.argv[3]), fs.readFileSync(process.argv[4], "utf8")];

function el(attrs, text) {
  const e = { attrs: Object.assign({}, attrs), style: {}, textContent: text || "", handlers: {}, children: {} };
  e.getAttribute = (k) => (k in e.attrs ? String(e.attrs[k]) : null);
  e.setAttribute = (k, v) => { e.attrs[k] = String(v); };
  e.addEventListener = (k, f) => { e.handlers[k] = f; };
  e.querySelector = (sel) => e.children[sel];
  e.fire = (k) => e.handlers[k]({ stopPropagation() {}, preventDefault() {} });
  return e;
}
const frames = data.frames.map((f) => {
  const g = el({ "data-depth": f.depth });
  g.children.rect = el({ x: f.x, width: f.w, fill: f.fill });
  g.children.title = el({}, f.title);
  g.children.text = el({ x: f.x + 3 });
  return g;
});
const ids = { unzoom: el({}, "Reset zoom"), search: el({}, "Search"), matched: el({}, " "), details: el({}, " "), frames: el({}) };
const root = el({ width: data.width, "data-side": data.side });
const winHandlers = {};
global.document = { documentElement: root, querySelectorAll: () => frames, getElementById: (id) => ids[id] };
let answer = null;
global.window = { prompt: () => answer, alert: (m) => { throw new Error(m); }, addEventListener: (k, f) => { winHandlers[k] = f; } };
eval(script);
for (const a of actions) {
  if (a[0] === "click") frames[a[1]].fire("click");
  else if (a[0] === "unzoom") ids.unzoom.fire("click");
  else if (a[0] === "search") { answer = a[1]; ids.search.fire("click"); }
  else if (a[0] === "hover") frames[a[1]].fire("mouseover");
  else if (a[0] === "key") winHandlers.keydown({ key: a[1], ctrlKey: !!a[2], preventDefault() {} });
}
console.log(JSON.stringify({
  frames: frames.map((g) => ({ x: +g.children.rect.attrs.x, w: +g.children.rect.attrs.width, display: g.style.display || "",
    opacity: g.style.opacity || "", fill: g.children.rect.attrs.fill, label: g.children.text.textContent })),
  unzoom: ids.unzoom.style.opacity, search: ids.search.textContent, matched: ids.matched.textContent, details: ids.details.textContent,
}));

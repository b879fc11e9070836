"""The script inside our flame graph SVGs: click a frame to zoom into it, search by regular
expression with the matches highlighted and their share of the samples, reset either, a line
that names the frame under the pointer, as in flamegraph.pl's SVGs.

Our own code, inline in the SVG (no network, no external script): a browser opening the file
runs it; viewers without scripts (and our SVG importer) see the static graph.
"""

from __future__ import annotations

SCRIPT = r"""
(function () {
  var svg = document.documentElement, W = +svg.getAttribute("width");
  var SIDE = +svg.getAttribute("data-side"), HIGHLIGHT = "rgb(230,0,230)";
  var frames = [].slice.call(document.querySelectorAll("g.frame"));
  var unzoom = document.getElementById("unzoom"), search = document.getElementById("search");
  var matched = document.getElementById("matched"), details = document.getElementById("details");
  frames.forEach(function (g) {
    var r = g.querySelector("rect"), t = g.querySelector("title").textContent;
    g.fx = +r.getAttribute("x"); g.fw = +r.getAttribute("width");
    g.depth = +g.getAttribute("data-depth"); g.fill = r.getAttribute("fill");
    g.name = t.replace(/ \([0-9,]+ samples.*$/, ""); g.info = t;
    g.addEventListener("click", function (e) { zoom(g); e.stopPropagation(); });
    g.addEventListener("mouseover", function () { details.textContent = g.info; });
    g.addEventListener("mouseout", function () { details.textContent = " "; });
  });
  function label(g, x, w) {
    var text = g.querySelector("text"), fit = Math.floor((w - 3) / 7);
    text.setAttribute("x", (x + 3).toFixed(2));
    var cut = g.name.length <= fit ? g.name : g.name.slice(0, fit - 2) + "..";
    text.textContent = w < 30 || fit < 3 ? "" : cut;
  }
  function place(g, x, w, shown, faded) {
    var r = g.querySelector("rect");
    g.style.display = shown ? "" : "none";
    g.style.opacity = faded ? "0.5" : "";
    r.setAttribute("x", x.toFixed(4)); r.setAttribute("width", w.toFixed(4));
    label(g, x, w);
  }
  function zoom(z) {
    var scale = (W - 2 * SIDE) / z.fw, end = z.fx + z.fw;
    frames.forEach(function (g) {
      var inside = g.fx >= z.fx - 1e-6 && g.fx + g.fw <= end + 1e-6 && g.depth >= z.depth;
      var above = g.depth < z.depth && g.fx <= z.fx + 1e-6 && g.fx + g.fw >= end - 1e-6;
      if (inside) place(g, SIDE + (g.fx - z.fx) * scale, g.fw * scale, true, false);
      else if (above) place(g, SIDE, W - 2 * SIDE, true, true);
      else place(g, g.fx, g.fw, false, false);
    });
    unzoom.style.opacity = "1";
  }
  function reset() {
    frames.forEach(function (g) { place(g, g.fx, g.fw, true, false); });
    unzoom.style.opacity = "0";
  }
  function find(re) {
    var hits = [];
    frames.forEach(function (g) {
      var hit = re !== null && re.test(g.name);
      g.querySelector("rect").setAttribute("fill", hit ? HIGHLIGHT : g.fill);
      if (hit) hits.push(g);
    });
    hits.sort(function (a, b) { return a.fx - b.fx || a.depth - b.depth; });
    var covered = 0, upto = -1;  // a match inside another counts once
    hits.forEach(function (g) {
      if (g.fx + g.fw <= upto + 1e-6) return;
      covered += g.fw; upto = g.fx + g.fw;
    });
    var share = 100 * covered / (W - 2 * SIDE);  // the root spans the width: all the samples
    matched.textContent = re === null ? " " : "Matched: " + share.toFixed(2) + "%";
    search.textContent = re === null ? "Search" : "Reset search";
  }
  function ask() {
    if (search.textContent !== "Search") { find(null); return; }
    var term = window.prompt("Search for a function (regular expression)", "");
    if (!term) return;
    try { find(new RegExp(term)); } catch (err) { window.alert("Not a regular expression: " + err.message); }
  }
  unzoom.addEventListener("click", reset);
  search.addEventListener("click", ask);
  window.addEventListener("keydown", function (e) {
    if ((e.ctrlKey || e.metaKey) && e.key === "f") { e.preventDefault(); ask(); }
    else if (e.key === "Escape") { reset(); find(null); }
  });
})();
"""

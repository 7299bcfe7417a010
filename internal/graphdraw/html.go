package graphdraw

import (
	"encoding/json"
	"fmt"
	"io"
)

// WriteHTML writes a self-contained page showing svg (from Graphviz or
// WriteSVG) for d: no external scripts, styles or fonts. Wheel zooms around
// the pointer, dragging pans, double-click (or the 0 key) fits the whole
// graph. A large graph opens at a readable zoom on its inputs rather than
// fitted. The search field finds boxes by op, node or tensor name; a click
// on a box opens a panel with its attributes, input and output shapes,
// weights with layouts and statistics, and in a diff the original's values
// beside the new ones. The page's address may carry #search=TEXT or
// #node=ID to open with a search or a panel.
func WriteHTML(w io.Writer, d *Drawing, svg []byte) error {
	// json.Marshal escapes <, > and & as \u003c..., so no name can close
	// the script element; the page script only ever sets textContent.
	data, err := json.Marshal(pageData(d))
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, htmlPage, esc(d.Title), esc(d.Title), stripProlog(svg), data)
	return err
}

type pageBox struct {
	ID      string       `json:"id"`
	Kind    string       `json:"kind"`
	Title   string       `json:"title"`
	Name    string       `json:"name,omitempty"`
	Status  string       `json:"status"`
	Note    string       `json:"note,omitempty"`
	Attrs   []string     `json:"attrs,omitempty"`
	Inputs  []string     `json:"inputs,omitempty"`
	Outputs []string     `json:"outputs,omitempty"`
	Weights []pageWeight `json:"weights,omitempty"`
	Was     *pageBox     `json:"was,omitempty"`
	// Subgraphs are listed in the panel as expandable sections.
	Subgraphs []SubgraphView `json:"subgraphs,omitempty"`
	Captures  []string       `json:"captures,omitempty"`
}

type pageWeight struct {
	Slot   string  `json:"slot"`
	Name   string  `json:"name"`
	Type   string  `json:"type"`
	Layout string  `json:"layout,omitempty"`
	Stats  string  `json:"stats,omitempty"`
	Shape  []int64 `json:"shape"`
}

func pageData(d *Drawing) []*pageBox {
	out := make([]*pageBox, 0, len(d.Boxes))
	for _, b := range d.Boxes {
		out = append(out, toPageBox(b))
	}
	return out
}

func toPageBox(b *Box) *pageBox {
	p := &pageBox{ID: b.ID, Kind: [...]string{OpBox: "op", InputBox: "input", OutputBox: "output"}[b.Kind],
		Title: b.Title, Name: b.Name, Status: b.Status.String(), Note: b.Note,
		Attrs: b.Attrs, Inputs: b.Inputs, Outputs: b.Outputs, Subgraphs: b.Subgraphs, Captures: b.Captures}
	for _, w := range b.Weights {
		p.Weights = append(p.Weights, pageWeight{Slot: w.Slot, Name: w.Name, Type: fmt.Sprintf("%s%v", w.DType, w.Shape),
			Layout: w.Layout, Stats: w.Stats, Shape: w.Shape})
	}
	if b.Was != nil {
		p.Was = toPageBox(b.Was)
	}
	return p
}

const htmlPage = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>%s</title>
<style>
html, body { margin: 0; height: 100%%; overflow: hidden; background: #fafafa; font-family: Helvetica, Arial, sans-serif; }
#view { position: absolute; inset: 0; cursor: grab; touch-action: none; }
#view.dragging { cursor: grabbing; }
#stage { position: absolute; left: 0; top: 0; transform-origin: 0 0; }
#stage svg { display: block; }
#stage g.mb-box { cursor: pointer; }
#stage g.mb-hit > rect, #stage g.mb-hit > polygon, #stage g.mb-hit > path { stroke: #d6a000 !important; stroke-width: 4px !important; }
#stage g.mb-selected > rect, #stage g.mb-selected > polygon, #stage g.mb-selected > path { stroke: #1565c0 !important; stroke-width: 4px !important; }
#bar { position: fixed; left: 8px; top: 8px; right: 8px; padding: 4px 8px; background: rgba(255,255,255,0.92); border: 1px solid #ccc; border-radius: 4px; font-size: 12px; color: #444; z-index: 2; display: flex; gap: 8px; align-items: center; }
#bar input { font-size: 12px; width: 16em; }
#hits { color: #666; }
#panel { position: fixed; right: 8px; top: 44px; bottom: 8px; width: 380px; overflow: auto; background: #fff; border: 1px solid #bbb; border-radius: 4px; padding: 8px 10px; font-size: 12px; z-index: 2; display: none; }
#panel.open { display: block; }
#panel h2 { font-size: 14px; margin: 0 0 4px; }
#panel h3 { font-size: 12px; margin: 10px 0 2px; color: #555; }
#panel .row { font-family: monospace; white-space: pre-wrap; word-break: break-all; margin: 1px 0; }
#panel .stats { color: #666; font-family: monospace; margin: 0 0 4px 1em; }
#panel .old { color: #b71c1c; }
#panel .new { color: #1b5e20; }
#panel .close { float: right; cursor: pointer; border: none; background: none; font-size: 14px; }
#panel details { margin: 2px 0 2px 0.5em; }
#panel summary { cursor: pointer; font-family: monospace; }
#panel details .row { margin-left: 1em; }
</style>
</head>
<body>
<div id="bar"><b>%s</b><input id="search" type="search" placeholder="search op, node or tensor name" autocomplete="off"><span id="hits"></span><span>&middot; wheel: zoom &middot; drag: pan &middot; click: details &middot; double-click or 0: fit</span></div>
<div id="view"><div id="stage">
%s
</div></div>
<div id="panel"></div>
<script type="application/json" id="mb-data">%s</script>
<script>
(function () {
  "use strict";
  var view = document.getElementById("view"), stage = document.getElementById("stage");
  var panel = document.getElementById("panel"), search = document.getElementById("search"), hitsEl = document.getElementById("hits");
  var boxes = JSON.parse(document.getElementById("mb-data").textContent);
  var byId = {}, groups = {};
  boxes.forEach(function (b) { byId[b.id] = b; });
  // Each box is an SVG group whose <title> is the box id (Graphviz and the
  // built-in layout both write it so).
  Array.prototype.forEach.call(stage.querySelectorAll("g"), function (g) {
    var t = g.querySelector(":scope > title");
    if (t && byId.hasOwnProperty(t.textContent) && !groups[t.textContent]) {
      groups[t.textContent] = g; g.classList.add("mb-box"); g.setAttribute("data-box", t.textContent);
    }
  });
  var s = 1, x = 0, y = 0, drag = null, hits = [], hitAt = -1, selected = null;
  var READABLE = 0.6; // below this scale the boxes' 10px text is unreadable
  function apply() {
    stage.style.transform = "translate(" + x + "px," + y + "px) scale(" + s + ")";
    stage.setAttribute("data-scale", s.toFixed(3));
  }
  function svgSize() {
    var svg = stage.querySelector("svg"); if (!svg) return null;
    var r = svg.getBoundingClientRect(); return { w: r.width / s, h: r.height / s };
  }
  // barBottom is where the room below the toolbar starts: the graph is
  // fitted there, so the toolbar covers neither the top box nor a diff's
  // legend.
  function barBottom() {
    var bar = document.getElementById("bar");
    return bar ? bar.getBoundingClientRect().bottom + 8 : 0;
  }
  function fit() {
    var z = svgSize(); if (!z) return;
    var top = barBottom(), room = view.clientHeight - top;
    s = Math.min(view.clientWidth / z.w, room / z.h, 1) * 0.95;
    x = (view.clientWidth - z.w * s) / 2; y = top + (room - z.h * s) / 2; apply();
  }
  // boxRect is a group's rectangle in unscaled stage coordinates.
  function boxRect(g) {
    var r = g.getBoundingClientRect(), sr = stage.getBoundingClientRect();
    return { x: (r.left - sr.left) / s, y: (r.top - sr.top) / s, w: r.width / s, h: r.height / s };
  }
  function centerOn(g, scale) {
    if (scale) s = scale;
    var r = boxRect(g);
    var room = view.clientWidth - (panel.classList.contains("open") ? panel.offsetWidth + 16 : 0);
    x = room / 2 - (r.x + r.w / 2) * s; y = view.clientHeight / 3 - (r.y + r.h / 2) * s; apply();
  }
  // start shows the whole graph when it is readable so; otherwise it
  // opens at scale 1 on the graph's inputs, at the top of the window.
  function start() {
    var z = svgSize(); if (!z) return;
    var sFit = Math.min(view.clientWidth / z.w, (view.clientHeight - barBottom()) / z.h, 1) * 0.95;
    if (sFit >= READABLE) { fit(); return; }
    s = 1;
    var ins = boxes.filter(function (b) { return b.kind === "input" && groups[b.id]; }).map(function (b) { return boxRect(groups[b.id]); });
    if (!ins.length) { x = (view.clientWidth - z.w) / 2; y = barBottom(); apply(); return; }
    var left = Math.min.apply(null, ins.map(function (r) { return r.x; }));
    var right = Math.max.apply(null, ins.map(function (r) { return r.x + r.w; }));
    var top = Math.min.apply(null, ins.map(function (r) { return r.y; }));
    // The graph's own top (a diff's legend sits above the inputs) starts
    // below the toolbar.
    var legend = Array.prototype.map.call(stage.querySelectorAll("g.cluster"), boxRect);
    var first = Math.min.apply(null, [top].concat(legend.map(function (r) { return r.y; })));
    x = view.clientWidth / 2 - (left + right) / 2; y = barBottom() + 8 - first; apply();
  }
  view.addEventListener("wheel", function (e) {
    e.preventDefault();
    var f = Math.exp(-e.deltaY * 0.0015), ns = Math.min(Math.max(s * f, 0.02), 20);
    f = ns / s; x = e.clientX - (e.clientX - x) * f; y = e.clientY - (e.clientY - y) * f; s = ns; apply();
  }, { passive: false });
  view.addEventListener("pointerdown", function (e) { drag = { px: e.clientX, py: e.clientY, x: x, y: y, moved: false, target: e.target }; view.setPointerCapture(e.pointerId); view.classList.add("dragging"); });
  view.addEventListener("pointermove", function (e) {
    if (!drag) return;
    if (Math.abs(e.clientX - drag.px) + Math.abs(e.clientY - drag.py) > 4) drag.moved = true;
    x = drag.x + e.clientX - drag.px; y = drag.y + e.clientY - drag.py; apply();
  });
  function end() { drag = null; view.classList.remove("dragging"); }
  view.addEventListener("pointerup", function (e) {
    var d = drag; end();
    if (!d || d.moved) return;
    var g = d.target && d.target.closest ? d.target.closest("g.mb-box") : null;
    if (g) show(g.getAttribute("data-box")); else closePanel();
  });
  view.addEventListener("pointercancel", end);
  view.addEventListener("dblclick", fit);
  document.addEventListener("keydown", function (e) {
    if (e.target === search) return;
    if (e.key === "0") fit();
    if (e.key === "Escape") closePanel();
  });

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function section(parent, title, rows, cls) {
    if (!rows || !rows.length) return;
    parent.appendChild(el("h3", "", title));
    rows.forEach(function (r) { parent.appendChild(el("div", "row" + (cls ? " " + cls : ""), r)); });
  }
  function weights(parent, title, ws, cls) {
    if (!ws || !ws.length) return;
    parent.appendChild(el("h3", "", title));
    ws.forEach(function (w) {
      parent.appendChild(el("div", "row" + (cls ? " " + cls : ""), w.slot + "  " + w.name + "  " + w.type + (w.layout ? "  " + w.layout : "")));
      if (w.stats) parent.appendChild(el("div", "stats", w.stats));
    });
  }
  // subgraphs lists a control-flow node's graphs as expandable sections;
  // a node of a subgraph that owns graphs nests its own sections.
  function subgraphs(parent, title, sgs, open) {
    if (!sgs || !sgs.length) return;
    if (title) parent.appendChild(el("h3", "", title));
    sgs.forEach(function (sg) {
      var d = el("details", "mb-subgraph"); if (open) d.open = true;
      d.appendChild(el("summary", "", sg.attr + " (" + sg.nodes.length + (sg.more ? "+" + sg.more : "") + " nodes): (" +
        (sg.inputs || []).join(", ") + ") -> (" + (sg.outputs || []).join(", ") + ")"));
      sg.nodes.forEach(function (n) {
        d.appendChild(el("div", "row", n.kind + "(" + (n.inputs || []).join(", ") + ") -> (" + (n.outputs || []).join(", ") + ")" + (n.name ? "  " + n.name : "")));
        subgraphs(d, "", n.subgraphs, false);
      });
      if (sg.more) d.appendChild(el("div", "row", "\u2026 " + sg.more + " more nodes"));
      parent.appendChild(d);
    });
  }
  function describe(parent, b, label, cls) {
    var pre = label ? label + " " : "";
    section(parent, pre + "attributes", b.attrs, cls);
    section(parent, pre + "inputs", b.inputs, cls);
    section(parent, pre + "outputs", b.outputs, cls);
    weights(parent, pre + "weights", b.weights, cls);
    section(parent, pre + "captures", b.captures, cls);
    subgraphs(parent, pre + "subgraphs", b.subgraphs, true);
  }
  function show(id) {
    var b = byId[id]; if (!b) return false;
    if (selected && groups[selected]) groups[selected].classList.remove("mb-selected");
    selected = id;
    if (groups[id]) groups[id].classList.add("mb-selected");
    panel.textContent = "";
    var close = el("button", "close", "\u00d7"); close.title = "close (Esc)"; close.addEventListener("click", closePanel);
    panel.appendChild(close);
    panel.appendChild(el("h2", "", b.title));
    if (b.name) panel.appendChild(el("div", "row", b.name));
    panel.appendChild(el("div", "row", b.kind + (b.status !== "same" ? " \u00b7 " + b.status : "")));
    if (b.note) panel.appendChild(el("div", "row", b.note));
    if (b.was) {
      if (b.was.title !== b.title) panel.appendChild(el("div", "row old", "was " + b.was.title));
      describe(panel, b.was, "old", "old");
      describe(panel, b, "new", "new");
    } else {
      describe(panel, b, "", "");
    }
    panel.classList.add("open");
    panel.setAttribute("data-box", id);
    return true;
  }
  function closePanel() {
    panel.classList.remove("open"); panel.removeAttribute("data-box");
    if (selected && groups[selected]) groups[selected].classList.remove("mb-selected");
    selected = null;
  }
  function matches(b, q) {
    var fields = [b.title, b.name || ""].concat(b.outputs || [], b.inputs || [], (b.weights || []).map(function (w) { return w.name; }));
    return fields.some(function (f) { return f.toLowerCase().indexOf(q) >= 0; });
  }
  function find(q) {
    hits.forEach(function (id) { if (groups[id]) groups[id].classList.remove("mb-hit"); });
    q = q.trim().toLowerCase();
    hits = q ? boxes.filter(function (b) { return matches(b, q); }).map(function (b) { return b.id; }) : [];
    hits.forEach(function (id) { if (groups[id]) groups[id].classList.add("mb-hit"); });
    hitAt = -1;
    hitsEl.textContent = q ? hits.length + (hits.length === 1 ? " hit" : " hits") + (hits.length ? " (Enter: next)" : "") : "";
    hitsEl.setAttribute("data-hits", hits.join("\n"));
    if (hits.length) next();
    return hits.length;
  }
  function next() {
    if (!hits.length) return;
    hitAt = (hitAt + 1) %% hits.length;
    var id = hits[hitAt];
    show(id);
    if (groups[id]) centerOn(groups[id], Math.max(s, 1));
  }
  search.addEventListener("input", function () { find(search.value); });
  search.addEventListener("keydown", function (e) { if (e.key === "Enter") { e.preventDefault(); next(); } });

  // #search=TEXT and #node=ID open the page searched or with a panel.
  function fromHash() {
    var h = location.hash.slice(1); if (!h) return;
    h.split("&").forEach(function (kv) {
      var i = kv.indexOf("="); if (i < 0) return;
      var k = kv.slice(0, i), v = decodeURIComponent(kv.slice(i + 1));
      if (k === "search") { search.value = v; find(v); }
      if (k === "node" && show(v) && groups[v]) centerOn(groups[v], Math.max(s, 1));
    });
  }
  window.modelbridgeView = { find: find, show: show, fit: fit, scale: function () { return s; } };
  var started = false;
  function init() { if (started) return; started = true; start(); fromHash(); document.body.setAttribute("data-ready", "1"); }
  if (document.readyState === "complete") init(); else window.addEventListener("load", init);
})();
</script>
</body>
</html>
`

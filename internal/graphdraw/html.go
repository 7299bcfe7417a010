package graphdraw

import (
	"fmt"
	"io"
)

// WriteHTML writes a self-contained page showing svg (from Graphviz or
// WriteSVG): no external scripts or styles, mouse-wheel zoom around the
// pointer, drag to pan, double-click (or the 0 key) to fit.
func WriteHTML(w io.Writer, title string, svg []byte) error {
	_, err := fmt.Fprintf(w, htmlPage, esc(title), esc(title), stripProlog(svg))
	return err
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
#bar { position: fixed; left: 8px; top: 8px; padding: 4px 8px; background: rgba(255,255,255,0.9); border: 1px solid #ccc; border-radius: 4px; font-size: 12px; color: #444; z-index: 1; }
</style>
</head>
<body>
<div id="bar"><b>%s</b> &middot; wheel: zoom &middot; drag: pan &middot; double-click or 0: fit</div>
<div id="view"><div id="stage">
%s
</div></div>
<script>
(function () {
  var view = document.getElementById("view"), stage = document.getElementById("stage");
  var s = 1, x = 0, y = 0, drag = null;
  function apply() { stage.style.transform = "translate(" + x + "px," + y + "px) scale(" + s + ")"; }
  function fit() {
    var svg = stage.querySelector("svg"); if (!svg) return;
    var r = svg.getBoundingClientRect(), w = r.width / s, h = r.height / s;
    s = Math.min(view.clientWidth / w, view.clientHeight / h, 1) * 0.95;
    x = (view.clientWidth - w * s) / 2; y = (view.clientHeight - h * s) / 2; apply();
  }
  view.addEventListener("wheel", function (e) {
    e.preventDefault();
    var f = Math.exp(-e.deltaY * 0.0015), ns = Math.min(Math.max(s * f, 0.05), 20);
    f = ns / s; x = e.clientX - (e.clientX - x) * f; y = e.clientY - (e.clientY - y) * f; s = ns; apply();
  }, { passive: false });
  view.addEventListener("pointerdown", function (e) { drag = { px: e.clientX, py: e.clientY, x: x, y: y }; view.setPointerCapture(e.pointerId); view.classList.add("dragging"); });
  view.addEventListener("pointermove", function (e) { if (!drag) return; x = drag.x + e.clientX - drag.px; y = drag.y + e.clientY - drag.py; apply(); });
  function end() { drag = null; view.classList.remove("dragging"); }
  view.addEventListener("pointerup", end); view.addEventListener("pointercancel", end);
  view.addEventListener("dblclick", fit);
  document.addEventListener("keydown", function (e) { if (e.key === "0") fit(); });
  window.addEventListener("load", fit); fit();
})();
</script>
</body>
</html>
`

package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/internal/testfix"
)

// TestGraphHTMLExpandsSubgraphs opens the page of ONNX's Loop node case in
// headless Chromium: the Loop's panel lists its body as an expandable
// section whose rows are the body's nodes.
func TestGraphHTMLExpandsSubgraphs(t *testing.T) {
	chromium := findChromium(t)
	model := filepath.Join(testfix.Fixtures(t), "onnx-node-1.22", "test_loop11", "model.onnx")
	page := filepath.Join(t.TempDir(), "loop.html")
	if code, stdout, stderr := cli(t, "graph", model, "-o", page, "--layout", "builtin"); code != 0 {
		t.Fatalf("graph: %d\n%s%s", code, stdout, stderr)
	}
	var r struct {
		Error            string
		Shown            bool
		Sections, Open   int
		Summary, Section string
	}
	browse(t, chromium, page, `
  var v = window.modelbridgeView, res = {};
  var data = JSON.parse(document.getElementById("mb-data").textContent);
  var loop = data.filter(function (b) { return b.title === "Loop"; })[0];
  res.Shown = !!loop && v.show(loop.id);
  var d = document.querySelectorAll("#panel details.mb-subgraph");
  res.Sections = d.length;
  res.Open = Array.prototype.filter.call(d, function (e) { return e.open; }).length;
  if (d.length) { res.Summary = d[0].querySelector("summary").textContent; res.Section = d[0].textContent; }
  return res;`, &r)
	if r.Error != "" {
		t.Fatalf("page script: %s", r.Error)
	}
	if !r.Shown || r.Sections != 1 || r.Open != 1 {
		t.Fatalf("Loop panel: shown %v, %d subgraph sections (%d open); want one, open", r.Shown, r.Sections, r.Open)
	}
	if !strings.HasPrefix(r.Summary, "body (") || !strings.Contains(r.Section, "Add(") {
		t.Errorf("body section %q / %q does not list the body's nodes", r.Summary, r.Section)
	}
}

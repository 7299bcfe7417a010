package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/modelbridge/modelbridge/internal/onnxpb"
)

// hostileName would run script if a page put it into HTML unescaped.
const hostileName = `</script><img src=x onerror="window.pwned=1"><script>window.pwned=2</script>`

// chainModel is a 150-node chain of Conv and Relu: the kind of graph that a
// fitted view shrinks to an unreadable strip. weightScale changes the
// weights of the conv named "conv7", to make a diff.
func chainModel(weightScale float32) *onnxpb.ModelProto {
	f32 := int32(onnxpb.TensorProto_FLOAT)
	tensorType := func(dims ...int64) *onnxpb.TypeProto {
		var ds []*onnxpb.TensorShapeProto_Dimension
		for _, d := range dims {
			ds = append(ds, &onnxpb.TensorShapeProto_Dimension{Value: &onnxpb.TensorShapeProto_Dimension_DimValue{DimValue: d}})
		}
		return &onnxpb.TypeProto{Value: &onnxpb.TypeProto_TensorType{TensorType: &onnxpb.TypeProto_Tensor{ElemType: &f32, Shape: &onnxpb.TensorShapeProto{Dim: ds}}}}
	}
	pads := &onnxpb.AttributeProto{Name: proto.String("pads"), Type: onnxpb.AttributeProto_INTS.Enum(), Ints: []int64{1, 1, 1, 1}}
	g := &onnxpb.GraphProto{Name: proto.String("chain"),
		Input: []*onnxpb.ValueInfoProto{{Name: proto.String("x"), Type: tensorType(1, 4, 8, 8)}}}
	prev := "x"
	for i := 0; i < 75; i++ {
		w := make([]float32, 4*4*3*3)
		for j := range w {
			w[j] = float32((i+j)%7-3) * 0.05
			if i == 7 {
				w[j] *= weightScale
			}
		}
		wname := fmt.Sprintf("conv%d.weight", i)
		conv, relu := fmt.Sprintf("conv%d", i), fmt.Sprintf("relu%d", i)
		if i == 3 {
			conv = hostileName
		}
		g.Initializer = append(g.Initializer, &onnxpb.TensorProto{Name: proto.String(wname), DataType: &f32, Dims: []int64{4, 4, 3, 3}, FloatData: w})
		g.Node = append(g.Node,
			&onnxpb.NodeProto{Name: proto.String(conv), OpType: proto.String("Conv"), Input: []string{prev, wname}, Output: []string{conv + "_out"}, Attribute: []*onnxpb.AttributeProto{pads}},
			&onnxpb.NodeProto{Name: proto.String(relu), OpType: proto.String("Relu"), Input: []string{conv + "_out"}, Output: []string{relu + "_out"}})
		prev = relu + "_out"
	}
	g.Output = []*onnxpb.ValueInfoProto{{Name: proto.String(prev), Type: tensorType(1, 4, 8, 8)}}
	return &onnxpb.ModelProto{IrVersion: proto.Int64(8), Graph: g,
		OpsetImport: []*onnxpb.OperatorSetIdProto{{Domain: proto.String(""), Version: proto.Int64(13)}}}
}

func findChromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("skipping: no headless browser (apt-get install chromium)")
	return ""
}

// browse opens page in headless Chromium with harness appended and returns
// what the harness wrote into <pre id="harness-result">.
func browse(t *testing.T, chromium, page, harness string, out any) {
	t.Helper()
	data, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	script := `<pre id="harness-result"></pre><script>window.addEventListener("load", function () { setTimeout(function () {
  var r; try { r = (function () {` + harness + `})(); } catch (e) { r = { error: String(e) }; }
  document.getElementById("harness-result").textContent = JSON.stringify(r);
}, 50); });</script></body>`
	probe := filepath.Join(t.TempDir(), "probe.html")
	if err := os.WriteFile(probe, []byte(strings.Replace(string(data), "</body>", script, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--user-data-dir="+t.TempDir(), "--window-size=1280,800", "--virtual-time-budget=3000", "--dump-dom", "file://"+probe)
	dom, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium: %v", err)
	}
	s := string(dom)
	i := strings.Index(s, `<pre id="harness-result">`)
	if i < 0 {
		t.Fatalf("no harness result in the page:\n%.2000s", s)
	}
	s = s[i+len(`<pre id="harness-result">`):]
	s = s[:strings.Index(s, "</pre>")]
	s = strings.NewReplacer("&quot;", `"`, "&lt;", "<", "&gt;", ">", "&amp;", "&").Replace(s)
	if err := json.Unmarshal([]byte(s), out); err != nil {
		t.Fatalf("harness result %q: %v", s, err)
	}
}

// TestGraphHTMLInBrowser opens a 150-node graph in headless Chromium: it
// starts readable on its input, finds nodes and tensors by name, shows a
// node's attributes, shapes, layouts and weight statistics on click, keeps
// hostile names inert, and in a diff shows a changed node's old and new
// values.
func TestGraphHTMLInBrowser(t *testing.T) {
	chromium := findChromium(t)
	dir := t.TempDir()
	a := writeModel(t, dir, "chain.onnx", chainModel(1))
	b := writeModel(t, dir, "chain2.onnx", chainModel(2))
	page := filepath.Join(dir, "chain.html")
	if code, stdout, stderr := cli(t, "graph", a, "-o", page, "--layout", "builtin"); code != 0 {
		t.Fatalf("graph: %d\n%s%s", code, stdout, stderr)
	}
	var r struct {
		Error                 string
		Scale                 float64
		BarBottom             float64
		InputTop, InputLeft   float64
		InputRight, InputBot  float64
		ConvHits, TensorHits  int
		HostileHits           int
		Panel, PanelBox       string
		Pwned                 any
		Images, Scripts       int
		SearchBox, HitsText   string
		HitsAfterSearchConv12 int
	}
	browse(t, chromium, page, `
  var v = window.modelbridgeView, res = {};
  res.Scale = v.scale();
  var g = document.querySelector('g[data-box="in:x"]').getBoundingClientRect();
  res.InputTop = g.top; res.InputLeft = g.left; res.InputRight = g.right; res.InputBot = g.bottom;
  res.BarBottom = document.getElementById("bar").getBoundingClientRect().bottom;
  res.ConvHits = v.find("conv");
  res.TensorHits = v.find("relu41_out");
  res.HostileHits = v.find("onerror");
  v.show("n14");
  var p = document.getElementById("panel");
  res.Panel = p.textContent; res.PanelBox = p.getAttribute("data-box");
  res.Pwned = window.pwned || null;
  res.Images = document.images.length;
  res.Scripts = document.scripts.length;
  var s = document.getElementById("search"); s.value = "conv12"; s.dispatchEvent(new Event("input"));
  res.HitsText = document.getElementById("hits").textContent;
  return res;`, &r)
	if r.Error != "" {
		t.Fatalf("page script: %s", r.Error)
	}
	if r.Scale < 0.6 {
		t.Errorf("opened at scale %.3f: unreadable (want >= 0.6)", r.Scale)
	}
	if r.InputTop < r.BarBottom || r.InputBot > 800 || r.InputLeft < 0 || r.InputRight > 1280 {
		t.Errorf("the input box is not in the window below the toolbar (bottom %.0f): top %.0f bottom %.0f left %.0f right %.0f", r.BarBottom, r.InputTop, r.InputBot, r.InputLeft, r.InputRight)
	}
	// 75 Conv boxes, and the Relu/Conv boxes whose values are named conv*.
	if r.ConvHits < 75 || r.TensorHits != 2 || r.HostileHits != 2 {
		t.Errorf("search hits: conv %d (want >= 75), relu41_out %d (want 2: producer and consumer), hostile %d (want 2: the node and its consumer)", r.ConvHits, r.TensorHits, r.HostileHits)
	}
	for _, want := range []string{"Conv", "conv7", "pads 1,1,1,1", "relu6_out f32[1 4 8 8]", "conv7.weight", "f32[4 4 3 3]", "OIHW", "min -0.15", "max 0.15", "std ", "zeros "} {
		if !strings.Contains(r.Panel, want) {
			t.Errorf("node panel lacks %q:\n%s", want, r.Panel)
		}
	}
	if r.Pwned != nil || r.Images != 0 || r.Scripts != 3 {
		t.Errorf("a hostile name ran: pwned=%v, %d images, %d scripts (want 3: data, page, harness)", r.Pwned, r.Images, r.Scripts)
	}
	if !strings.HasPrefix(r.HitsText, "2 hits") { // conv12 and relu12, which reads conv12_out
		t.Errorf("typing in the search field: %q", r.HitsText)
	}

	// A small diff is fitted whole: its top box and legend sit below the
	// toolbar.
	opt := filepath.Join(dir, "opt.onnx")
	if code, _, stderr := cli(t, "optimize", tinyModel, opt); code != 0 {
		t.Fatalf("optimize: %s", stderr)
	}
	small := filepath.Join(dir, "small.html")
	if code, _, stderr := cli(t, "graph", tinyModel, "--diff", opt, "-o", small); code != 0 {
		t.Fatalf("graph --diff: %s", stderr)
	}
	var fr struct {
		Error          string
		BarBottom, Top float64
	}
	browse(t, chromium, small, `
  var top = Infinity;
  document.querySelectorAll("#stage g.mb-box, #stage g.cluster").forEach(function (g) { var r = g.getBoundingClientRect(); if (r.height > 0) top = Math.min(top, r.top); });
  return { BarBottom: document.getElementById("bar").getBoundingClientRect().bottom, Top: top };`, &fr)
	if fr.Error != "" {
		t.Fatalf("page script: %s", fr.Error)
	}
	if fr.Top < fr.BarBottom {
		t.Errorf("the toolbar (bottom %.0f) covers the top of the fitted diff (top %.0f)", fr.BarBottom, fr.Top)
	}

	diff := filepath.Join(dir, "diff.html")
	if code, stdout, stderr := cli(t, "graph", a, "--diff", b, "-o", diff, "--layout", "builtin"); code != 0 || !strings.Contains(stdout, "1 changed") {
		t.Fatalf("graph --diff: %d\n%s%s", code, stdout, stderr)
	}
	var dr struct {
		Error    string
		Panel    string
		Old, New []string
	}
	browse(t, chromium, diff, `
  var v = window.modelbridgeView;
  v.find("conv7.weight");
  var p = document.getElementById("panel"), res = { Panel: p.textContent, Old: [], New: [] };
  p.querySelectorAll(".old").forEach(function (e) { res.Old.push(e.textContent); });
  p.querySelectorAll(".new").forEach(function (e) { res.New.push(e.textContent); });
  return res;`, &dr)
	if dr.Error != "" {
		t.Fatalf("page script: %s", dr.Error)
	}
	if !strings.Contains(dr.Panel, "changed: weights") || !strings.Contains(dr.Panel, "min -0.15") || !strings.Contains(dr.Panel, "min -0.3") {
		t.Errorf("diff panel should show the old and the new weight statistics:\n%s", dr.Panel)
	}
	if len(dr.Old) == 0 || len(dr.New) == 0 {
		t.Errorf("diff panel has no old/new rows: old %v new %v", dr.Old, dr.New)
	}
}

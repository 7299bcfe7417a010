package main

import (
	"encoding/binary"
	"encoding/json"
	"encoding/xml"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	_ "github.com/modelbridge/modelbridge/exporters/safetensors"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/testfix"
	"github.com/modelbridge/modelbridge/pipeline"
)

// wellFormedXML fails the test when s is not one well-formed XML document.
func wellFormedXML(t *testing.T, what, s string) {
	t.Helper()
	dec := xml.NewDecoder(strings.NewReader(s))
	dec.Strict = true
	dec.Entity = xml.HTMLEntity
	for {
		_, err := dec.Token()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatalf("%s is not well-formed XML: %v", what, err)
		}
	}
}

func TestGraphDOTShowsOpsAttributesLayoutsShapes(t *testing.T) {
	code, stdout, stderr := cli(t, "graph", tinyModel)
	if code != 0 {
		t.Fatalf("graph: exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		"digraph", "<b>Conv</b>", "<b>ConvTranspose</b>", "kernel 3×3", "strides 2,2", "group 2", "pads 1,1,1,1",
		"W conv2.weight f32[8 4 3 3] OIHW", "W deconv.weight f32[8 2 3 3] IOHW", "W fc.weight f32[10 1024] OI",
		"logits f32[1 10]", "input f32[1 3 32 32]",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("DOT lacks %q", want)
		}
	}
	if dot, err := exec.LookPath("dot"); err == nil {
		cmd := exec.Command(dot, "-Tsvg")
		cmd.Stdin = strings.NewReader(stdout)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("Graphviz rejects our DOT: %v\n%s", err, out)
		}
	}
}

func TestGraphSVGAndHTML(t *testing.T) {
	dir := t.TempDir()
	// The built-in layout needs nothing installed.
	svg := filepath.Join(dir, "builtin.svg")
	if code, _, stderr := cli(t, "graph", tinyModel, "-o", svg, "--layout", "builtin"); code != 0 {
		t.Fatalf("graph --layout builtin: exit %d: %s", code, stderr)
	}
	b, _ := os.ReadFile(svg)
	wellFormedXML(t, "built-in SVG", string(b))
	if !strings.Contains(string(b), "OIHW") || !strings.Contains(string(b), "<svg") {
		t.Fatal("built-in SVG lacks the weights")
	}

	t.Run("graphviz", func(t *testing.T) {
		if _, err := exec.LookPath("dot"); err != nil {
			t.Skip("skipping: Graphviz not installed (apt-get install graphviz)")
		}
		out := filepath.Join(dir, "tiny.svg")
		code, stdout, stderr := cli(t, "graph", tinyModel, "-o", out)
		if code != 0 || !strings.Contains(stdout, "Graphviz") {
			t.Fatalf("graph -o svg: exit %d: %s %s", code, stdout, stderr)
		}
		b, _ := os.ReadFile(out)
		wellFormedXML(t, "Graphviz SVG", string(b))
		if !strings.Contains(string(b), "IOHW") {
			t.Fatal("Graphviz SVG lacks the deconv layout")
		}
	})

	// HTML is self-contained: inline SVG and script, nothing fetched.
	page := filepath.Join(dir, "tiny.html")
	if code, _, stderr := cli(t, "graph", tinyModel, "-o", page); code != 0 {
		t.Fatalf("graph -o html: exit %d: %s", code, stderr)
	}
	h, _ := os.ReadFile(page)
	for _, want := range []string{"<svg", "addEventListener(\"wheel\"", "pointermove", "OIHW"} {
		if !strings.Contains(string(h), want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
	for _, bad := range []string{"<script src", "<link", "cdn"} {
		if strings.Contains(strings.ToLower(string(h)), bad) {
			t.Errorf("HTML refers to something outside the page: %q", bad)
		}
	}
}

func TestGraphWithoutGraphviz(t *testing.T) {
	t.Setenv("PATH", t.TempDir()) // no dot anywhere
	dir := t.TempDir()
	out := filepath.Join(dir, "x.svg")
	code, _, stderr := cli(t, "graph", tinyModel, "-o", out)
	if code != 1 || !strings.Contains(stderr, "apt-get install graphviz") || !strings.Contains(stderr, "--layout builtin") {
		t.Fatalf("svg without Graphviz: exit %d, %q", code, stderr)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Fatal("a failed graph left a file behind")
	}
	if code, _, stderr := cli(t, "graph", tinyModel, "-o", filepath.Join(dir, "x.png")); code != 1 || !strings.Contains(stderr, "needs Graphviz") {
		t.Fatalf("png without Graphviz: exit %d, %q", code, stderr)
	}
	page := filepath.Join(dir, "x.html")
	code, stdout, stderr := cli(t, "graph", tinyModel, "-o", page)
	if code != 0 || !strings.Contains(stdout, "built-in layout") {
		t.Fatalf("html without Graphviz: exit %d: %s %s", code, stdout, stderr)
	}
}

func TestGraphBadUsage(t *testing.T) {
	if code, _, stderr := cli(t, "graph", tinyModel, "-o", filepath.Join(t.TempDir(), "x.gif")); code != 2 || !strings.Contains(stderr, ".dot, .svg, .html, .png or .pdf") {
		t.Fatalf("gif: exit %d %q", code, stderr)
	}
	if code, _, _ := cli(t, "graph", "no-such-model.onnx"); code != 1 {
		t.Fatalf("missing model: exit %d", code)
	}
}

func TestGraphDiffOfOptimizedModel(t *testing.T) {
	dir := t.TempDir()
	opt := filepath.Join(dir, "opt.onnx")
	if code, _, stderr := cli(t, "optimize", tinyModel, opt); code != 0 {
		t.Fatalf("optimize: exit %d: %s", code, stderr)
	}
	out := filepath.Join(dir, "diff.dot")
	code, stdout, stderr := cli(t, "graph", tinyModel, "--diff", opt, "-o", out)
	if code != 0 {
		t.Fatalf("graph --diff: exit %d: %s", code, stderr)
	}
	// Folding the BatchNorm into the ConvTranspose removes one node and
	// changes the ConvTranspose's weights.
	if !strings.Contains(stdout, "1 removed") {
		t.Fatalf("summary %q", stdout)
	}
	b, _ := os.ReadFile(out)
	s := string(b)
	if !strings.Contains(s, `style="rounded,dashed" color="#d62728"`) || !strings.Contains(s, "<b>BatchNormalization</b>") {
		t.Fatal("the folded BatchNorm is not drawn as removed")
	}
	if !strings.Contains(s, `color="#ff7f0e"`) || !strings.Contains(s, "changed: ") {
		t.Fatal("no node drawn as changed")
	}
	if !strings.Contains(s, "legend") {
		t.Fatal("diff has no legend")
	}
}

func TestLayoutsReport(t *testing.T) {
	code, stdout, stderr := cli(t, "layouts", tinyModel, "--json", "--kernel-layout", "HWIO")
	if code != 0 {
		t.Fatalf("layouts: exit %d: %s", code, stderr)
	}
	var rep layoutsReport
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	byName := map[string]layoutEntry{}
	for _, w := range rep.Weights {
		byName[w.Name] = w
	}
	dc := byName["deconv.weight"]
	if dc.Layout != "IOHW" || dc.Role != "deconv_weight" || dc.Group != 2 ||
		!strings.Contains(dc.Frameworks.MXNet, "Deconvolution weight (C_in, num_filter/num_group") ||
		!strings.Contains(dc.Frameworks.TVM, `"OIHW"`) || !strings.Contains(dc.Frameworks.PyTorch, "ConvTranspose2d.weight") {
		t.Fatalf("deconv.weight: %+v", dc)
	}
	cw := byName["conv2.weight"]
	if cw.Role != "conv_weight" || cw.Preview == nil || cw.Preview.Layout != "HWIO" || !equalInts(cw.Preview.Shape, []int64{3, 3, 4, 8}) {
		t.Fatalf("conv2.weight: %+v %+v", cw, cw.Preview)
	}
	if w := byName["bn2.running_var"]; w.Role != "channel" || !strings.Contains(w.Frameworks.MXNet, "moving_var") {
		t.Fatalf("bn2.running_var: %+v", w)
	}
	if w := byName["fc.weight"]; w.Role != "linear_weight" || w.Preview != nil {
		t.Fatalf("fc.weight: %+v", w)
	}
	code, stdout, _ = cli(t, "layouts", tinyModel)
	if code != 0 || !strings.Contains(stdout, "ConvTranspose W (C, M/group, kH, kW)") {
		t.Fatalf("text layouts: %d %s", code, stdout)
	}
	if code, _, stderr := cli(t, "layouts", tinyModel, "--kernel-layout", "HWIX"); code != 2 || !strings.Contains(stderr, `"X"`) {
		t.Fatalf("bad layout: exit %d %q", code, stderr)
	}
}

func equalInts(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestConvertKernelLayout(t *testing.T) {
	dir := t.TempDir()
	if code, _, stderr := cli(t, "convert", tinyModel, filepath.Join(dir, "x.onnx"), "--kernel-layout", "HWIO"); code != 2 || !strings.Contains(stderr, "onnx cannot declare") {
		t.Fatalf("onnx --kernel-layout: exit %d %q", code, stderr)
	}
	if _, err := formats.FindExporter("x.safetensors", ""); err != nil {
		t.Skip("no safetensors exporter registered")
	}
	out := filepath.Join(dir, "x.safetensors")
	if code, _, stderr := cli(t, "convert", tinyModel, out, "--kernel-layout", "HWIO"); code != 0 {
		t.Fatalf("safetensors --kernel-layout: exit %d %s", code, stderr)
	}
	// Read the safetensors header directly: 8-byte length, then JSON.
	b, err := os.ReadFile(out)
	if err != nil || len(b) < 8 {
		t.Fatal(err)
	}
	n := binary.LittleEndian.Uint64(b)
	var hdr map[string]json.RawMessage
	if err := json.Unmarshal(b[8:8+n], &hdr); err != nil {
		t.Fatal(err)
	}
	var entry struct {
		Shape   []int64 `json:"shape"`
		Offsets []int64 `json:"data_offsets"`
	}
	json.Unmarshal(hdr["conv2.weight"], &entry)
	if !equalInts(entry.Shape, []int64{3, 3, 4, 8}) {
		t.Fatalf("conv2.weight written as %v", entry.Shape)
	}
	var meta map[string]string
	json.Unmarshal(hdr["__metadata__"], &meta)
	if meta["layout.conv2.weight"] != "HWIO" || meta["layout.deconv.weight"] != "HWIO" {
		t.Fatalf("layouts not declared: %v", meta)
	}
	// Element (o=1, i=2, h=0, w=1) of the original is at (h,w,i,o) now.
	g, _, err := (&readFlags{}).load(tinyModel)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	orig := g.Initializer("conv2.weight")
	want := orig.Data[4*(((1*4+2)*3+0)*3+1):][:4]
	data := b[8+n+uint64(entry.Offsets[0]):]
	got := data[4*(((0*3+1)*4+2)*8+1):][:4]
	if string(got) != string(want) {
		t.Fatalf("permuted element differs: %v vs %v", got, want)
	}
}

func TestBatchConvert(t *testing.T) {
	in, out := t.TempDir(), filepath.Join(t.TempDir(), "converted")
	model, _ := os.ReadFile(tinyModel)
	os.WriteFile(filepath.Join(in, "a.onnx"), model, 0o644)
	os.WriteFile(filepath.Join(in, "b.onnx"), model, 0o644)
	os.WriteFile(filepath.Join(in, "broken.onnx"), model[:len(model)/3], 0o644)
	os.WriteFile(filepath.Join(in, "notes.txt"), []byte("not a model"), 0o644)
	os.Mkdir(filepath.Join(in, "sub"), 0o755)
	os.WriteFile(filepath.Join(in, "sub", "c.onnx"), model, 0o644)

	code, stdout, stderr := cli(t, "convert", "--batch", in, "--to", "onnx", "--out", out, "-j", "2", "--opset", "11")
	if code != 1 {
		t.Fatalf("batch with a broken file: exit %d, want 1: %s %s", code, stdout, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if len(lines) != 5 || !strings.HasPrefix(lines[0], "FILE") || !strings.Contains(stdout, "2 converted, 1 failed") {
		t.Fatalf("summary:\n%s", stdout)
	}
	if !strings.Contains(lines[3], "broken.onnx") || !strings.Contains(lines[3], "failed") || !strings.Contains(lines[3], "truncated") {
		t.Fatalf("failure line: %q", lines[3])
	}
	for _, f := range []string{"a.onnx", "b.onnx"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Fatalf("missing output %s", f)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "broken.onnx")); !os.IsNotExist(err) {
		t.Fatal("a failed conversion left an output")
	}

	// -r includes subfolders; --json gives the same summary for scripts.
	code, stdout, _ = cli(t, "convert", "--batch", in, "--to", "onnx", "--out", out, "-r", "--json")
	var rep batchReport
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil || code != 1 {
		t.Fatalf("--json: exit %d %v\n%s", code, err, stdout)
	}
	if len(rep.Files) != 4 || rep.Converted != 3 || rep.Failed != 1 || rep.OK {
		t.Fatalf("report %+v", rep)
	}
	if _, err := os.Stat(filepath.Join(out, "sub", "c.onnx")); err != nil {
		t.Fatal("subfolder output missing")
	}

	// All good: exit 0.
	os.Remove(filepath.Join(in, "broken.onnx"))
	if code, stdout, stderr := cli(t, "convert", "--batch", in, "--to", "onnx", "--out", out); code != 0 {
		t.Fatalf("clean batch: exit %d: %s %s", code, stdout, stderr)
	}
}

func TestBatchMXNetPairCountsOnce(t *testing.T) {
	src := filepath.Join(testfix.Fixtures(t), "mxnet", "tutorial_cnn")
	files, err := pipeline.FindModels(src, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 || !strings.HasSuffix(files[0], "-symbol.json") {
		t.Fatalf("found %v, want the symbol file alone", files)
	}
	out := t.TempDir()
	code, stdout, stderr := cli(t, "convert", "--batch", src, "--to", "onnx", "--out", out)
	if code != 0 || !strings.Contains(stdout, "Neural_Net.onnx") {
		t.Fatalf("mxnet batch: exit %d: %s %s", code, stdout, stderr)
	}
}

func TestBatchBadUsage(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"convert", "--batch", dir, "--out", dir}, "needs --to"},
		{[]string{"convert", "--batch", dir, "--to", "onnx"}, "needs --out"},
		{[]string{"convert", "--batch", tinyModel, "--to", "onnx", "--out", dir}, "is a file"},
		{[]string{"convert", "--batch", dir, "--to", "onnx", "--out", dir, "extra"}, "takes 0 argument"},
	} {
		code, _, stderr := cli(t, tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d %q, want 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
	if code, _, stderr := cli(t, "convert", "--batch", dir, "--to", "onnx", "--out", filepath.Join(dir, "o")); code != 1 || !strings.Contains(stderr, "no model files") {
		t.Errorf("empty folder: exit %d %q", code, stderr)
	}
}

func TestEveryCommandHasExamples(t *testing.T) {
	root := newRootCmd()
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			if sub.Hidden || sub.Name() == "help" {
				continue
			}
			if strings.TrimSpace(sub.Example) == "" {
				t.Errorf("%s has no examples in --help", sub.CommandPath())
			}
			walk(sub)
		}
	}
	walk(root)
}

func TestCompletionAndVersion(t *testing.T) {
	for shell, want := range map[string]string{"bash": "__modelbridge", "zsh": "#compdef modelbridge", "fish": "complete -c modelbridge"} {
		code, stdout, stderr := cli(t, "completion", shell)
		if code != 0 || !strings.Contains(stdout, want) {
			t.Errorf("completion %s: exit %d %q (%d bytes)", shell, code, stderr, len(stdout))
		}
	}
	if code, _, _ := cli(t, "completion", "tcsh"); code != 2 {
		t.Errorf("completion tcsh: exit %d, want 2", code)
	}
	// Completion of commands works through cobra's hidden __complete.
	if _, stdout, _ := cli(t, "__complete", "gr"); !strings.Contains(stdout, "graph") {
		t.Errorf("__complete gr: %q", stdout)
	}
	if code, stdout, _ := cli(t, "version"); code != 0 || !strings.Contains(stdout, Version) {
		t.Errorf("version: %d %q", code, stdout)
	}
}

func TestNoProgressOutsideTerminal(t *testing.T) {
	// Tests' stderr is a buffer, not a terminal: nothing but errors appear.
	out := filepath.Join(t.TempDir(), "t.onnx")
	code, _, stderr := cli(t, "convert", tinyModel, out)
	if code != 0 || stderr != "" {
		t.Fatalf("convert: exit %d, stderr %q", code, stderr)
	}
	code, _, stderr = cli(t, "--quiet", "check", tinyModel, out, "--random", "--samples", "2")
	if code != 0 || stderr != "" {
		t.Fatalf("check: exit %d, stderr %q", code, stderr)
	}
}

func TestONNXWriterReportsProgress(t *testing.T) {
	g, _, err := (&readFlags{}).load(tinyModel)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	exp, err := formats.FindExporter("x.onnx", "")
	if err != nil {
		t.Fatal(err)
	}
	var want int64
	for _, tn := range g.Initializers {
		want += int64(len(tn.Data))
	}
	for _, external := range []bool{false, true} {
		var last, calls int64
		err := exp.Write(g, filepath.Join(t.TempDir(), "p.onnx"), formats.WriteOptions{ExternalData: external, Progress: func(done, total int64) {
			if done < last || done > total {
				t.Fatalf("progress went %d -> %d of %d", last, done, total)
			}
			last = done
			calls++
		}})
		if err != nil {
			t.Fatal(err)
		}
		if calls == 0 || last < want {
			t.Fatalf("external=%v: %d calls, ended at %d of at least %d weight bytes", external, calls, last, want)
		}
	}
}

package e2e

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/modelbridge/modelbridge/canon"
	torchexport "github.com/modelbridge/modelbridge/exporters/torch"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/compare"
	"github.com/modelbridge/modelbridge/internal/npy"
	"github.com/modelbridge/modelbridge/internal/runtimes/ort"
	"github.com/modelbridge/modelbridge/internal/tensorfile"
	"github.com/modelbridge/modelbridge/internal/testfix"
	"github.com/modelbridge/modelbridge/interp"
)

// zooTol is the relative error (to the largest reference magnitude)
// allowed between PyTorch's output and a converted model's.
const zooTol = 1e-4

// zooCI is the subset MODELBRIDGE_ZOO=1 runs: one or two models of each
// architecture family, the smaller ones, so that CI stays within minutes.
// MODELBRIDGE_ZOO=all runs every model the generator knows.
var zooCI = []string{
	"alexnet", "vgg11_bn", "resnet18", "resnext50_32x4d", "squeezenet1_1",
	"densenet121", "inception_v3", "googlenet", "shufflenet_v2_x0_5",
	"mobilenet_v2", "mobilenet_v3_small", "mnasnet0_5", "efficientnet_b0",
	"efficientnet_v2_s", "regnet_x_400mf", "regnet_y_400mf", "convnext_tiny",
	"vit_b_32", "swin_t", "swin_v2_t", "fcn_resnet50", "deeplabv3_mobilenet_v3_large",
	"lraspp_mobilenet_v3_large", "r3d_18", "mc3_18", "r2plus1d_18",
}

// zooPaths are the conversions of a traced.pt the zoo checks, in table order.
var zooPaths = []string{"onnx", "mxnet", "torch"}

// zooPassList names the model/path cells known to pass; a listed cell that
// fails is a regression and fails the test. Cells not listed are reported.
const zooPassList = "testdata/torchvision-zoo-pass.txt"

// TestTorchvisionZoo converts torchvision's models, traced by PyTorch 1.13
// with random weights, to ONNX (run by ONNX Runtime), to MXNet (read back
// and run, as `modelbridge run` does) and to model.py (run by PyTorch), and
// checks each against PyTorch's output. It prints a table model × path
// with pass or where the conversion stops.
//
//	MODELBRIDGE_ZOO=1     the CI subset (zooCI)
//	MODELBRIDGE_ZOO=all   every model
//	MODELBRIDGE_ZOO=a,b   the named models
//
// The archives are made once into MODELBRIDGE_ZOO_DIR (default: the user
// cache dir's modelbridge/zoo) by testdata/make_torchvision_zoo.py.
// MODELBRIDGE_ZOO_TABLE=PATH writes the table as Markdown and
// MODELBRIDGE_ZOO_UPDATE=1 rewrites the pass list from this run.
func TestTorchvisionZoo(t *testing.T) {
	mode := os.Getenv("MODELBRIDGE_ZOO")
	if mode == "" {
		t.Skip("skipping: set MODELBRIDGE_ZOO=1 (CI subset), =all or =model,model to convert torchvision's models")
	}
	python := testfix.Torch(t, "torchvision", "numpy")
	rt := testfix.ORT(t)
	root := testfix.RepoRoot()
	generator := filepath.Join(root, "testdata", "make_torchvision_zoo.py")
	all, inputs := zooModels(t, python, generator)
	var names []string
	switch mode {
	case "1", "ci":
		names = zooCI
	case "all":
		names = all
	default:
		names = strings.Split(mode, ",")
	}
	for _, n := range names {
		if !contains(all, n) {
			t.Fatalf("MODELBRIDGE_ZOO names %q, which %s does not make", n, generator)
		}
	}
	dir := os.Getenv("MODELBRIDGE_ZOO_DIR")
	if dir == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			t.Fatalf("no cache dir for the zoo (set MODELBRIDGE_ZOO_DIR): %v", err)
		}
		dir = filepath.Join(cache, "modelbridge", "zoo")
	}
	start := time.Now()
	gen := exec.Command(python, append([]string{generator, dir}, names...)...)
	out, err := gen.CombinedOutput()
	t.Logf("made the archives in %s (%v)", dir, time.Since(start).Round(time.Second))
	if err != nil {
		// A model PyTorch cannot trace is reported in its row; the others run.
		t.Logf("the generator reports failures: %v\n%s", err, zooFailures(out))
	}
	passList := readCaseList(t, filepath.Join(root, zooPassList))
	driver := filepath.Join(t.TempDir(), "driver.py")
	if err := os.WriteFile(driver, []byte(pt2TorchDriver), 0o644); err != nil {
		t.Fatal(err)
	}
	results := map[string]map[string]string{}
	for _, name := range names {
		row := map[string]string{}
		results[name] = row
		t.Run(name, func(t *testing.T) {
			began := time.Now()
			z := &zooModel{dir: filepath.Join(dir, name), rt: rt, python: python, driver: driver}
			for path, res := range z.check(t) {
				row[path] = res
			}
			for _, path := range zooPaths {
				if row[path] != "pass" && passList[name+" "+path] {
					t.Errorf("%s → %s passed before and now fails: %s", name, path, row[path])
				}
			}
			t.Logf("%s in %v: onnx %s | mxnet %s | torch %s", name, time.Since(began).Round(time.Millisecond),
				row["onnx"], row["mxnet"], row["torch"])
		})
		// The table so far, so that a long sweep cut short still tells.
		if p := os.Getenv("MODELBRIDGE_ZOO_TABLE"); p != "" {
			if err := os.WriteFile(p, []byte(zooDocHead+zooTable(names, inputs, results)), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	t.Logf("torchvision zoo (%d models, %v):\n%s", len(names), time.Since(start).Round(time.Second), zooTable(names, inputs, results))
	if os.Getenv("MODELBRIDGE_ZOO_UPDATE") != "" {
		var lines []string
		for name, row := range results {
			for _, path := range zooPaths {
				if row[path] == "pass" {
					lines = append(lines, name+" "+path)
				}
			}
		}
		for c := range passList { // cells of models this run did not check stay
			if _, ran := results[strings.Fields(c)[0]]; !ran {
				lines = append(lines, c)
			}
		}
		sort.Strings(lines)
		if err := os.WriteFile(filepath.Join(root, zooPassList), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// zooModels lists the models the generator makes and their input shapes.
func zooModels(t *testing.T, python, generator string) ([]string, map[string]string) {
	out, err := exec.Command(python, generator, "--list").Output()
	if err != nil {
		t.Fatalf("%s --list: %v", generator, err)
	}
	var names []string
	inputs := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) == 2 {
			names = append(names, f[0])
			inputs[f[0]] = f[1]
		}
	}
	return names, inputs
}

// zooFailures keeps the generator's FAILED lines (PyTorch's warnings are
// noise here).
func zooFailures(out []byte) string {
	var keep []string
	for _, l := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(l, "FAILED") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// zooModel is one model's made files and the tools that check it.
type zooModel struct {
	dir, python, driver string
	rt                  *ort.Runtime
	in, want            *canon.Tensor
}

// check runs every path and returns each one's cell: "pass" or why not.
func (z *zooModel) check(t *testing.T) map[string]string {
	res := map[string]string{}
	fail := func(reason string) map[string]string {
		for _, p := range zooPaths {
			res[p] = reason
		}
		return res
	}
	var err error
	if z.in, err = tensorfile.Load(filepath.Join(z.dir, "input_0.npy")); err != nil {
		return fail("not made: PyTorch could not trace it (see the generator's log)")
	}
	if z.want, err = tensorfile.Load(filepath.Join(z.dir, "output_0.npy")); err != nil {
		return fail("not made: " + err.Error())
	}
	g, _, err := formats.Read(filepath.Join(z.dir, "traced.pt"), "", formats.ReadOptions{InputShapes: map[string][]int64{"#0": z.in.Shape}})
	if err == nil {
		err = g.Validate()
	}
	if err != nil {
		t.Logf("import: %v", err)
		return fail("import: " + zooReason(err))
	}
	defer g.Close()
	for _, p := range zooPaths {
		var err error
		switch p {
		case "onnx":
			err = z.viaONNX(t, g)
		case "mxnet":
			err = z.viaMXNet(t, g)
		case "torch":
			err = z.viaTorch(t, g)
		}
		if err != nil {
			t.Logf("%s: %v", p, err)
			res[p] = zooReason(err)
			continue
		}
		res[p] = "pass"
	}
	return res
}

// zooMismatch is a conversion that ran but differs from PyTorch.
type zooMismatch struct{ rel float64 }

func (m *zooMismatch) Error() string { return fmt.Sprintf("differs: relative error %.2g", m.rel) }

func (z *zooModel) compare(got *canon.Tensor) error {
	rel, err := compare.RelativeToMax(got, z.want)
	if err != nil {
		return err
	}
	if rel > zooTol {
		return &zooMismatch{rel}
	}
	return nil
}

func (z *zooModel) viaONNX(t *testing.T, g *canon.Graph) error {
	tmp := t.TempDir()
	p := filepath.Join(tmp, "model.onnx")
	exp, err := formats.FindExporter(p, "onnx")
	if err != nil {
		return err
	}
	if err := exp.Write(g, p, formats.WriteOptions{}); err != nil {
		return fmt.Errorf("ONNX export: %w", err)
	}
	in := filepath.Join(tmp, "in")
	if err := os.MkdirAll(in, 0o755); err != nil {
		return err
	}
	if err := tensorfile.Save(z.in, filepath.Join(in, "input_0.pb")); err != nil {
		return err
	}
	out := filepath.Join(tmp, "out")
	// A model over 2 GiB keeps its weights beside it (external data),
	// where ONNX Runtime finds them since it opens the model by path.
	if err := z.rt.RunDir(p, in, out, ort.Options{}); err != nil {
		return fmt.Errorf("ONNX Runtime: %s", lastLine(err.Error()))
	}
	got, err := tensorfile.Load(filepath.Join(out, tensorfile.OutputFileName(0)))
	if err != nil {
		return err
	}
	return z.compare(got)
}

func (z *zooModel) viaMXNet(t *testing.T, g *canon.Graph) error {
	p := filepath.Join(t.TempDir(), "model-symbol.json")
	exp, err := formats.FindExporter(p, "mxnet")
	if err != nil {
		return err
	}
	if err := exp.Write(g, p, formats.WriteOptions{}); err != nil {
		return fmt.Errorf("MXNet export: %w", err)
	}
	mx, _, err := formats.Read(p, "mxnet", formats.ReadOptions{InputShapes: map[string][]int64{g.Inputs[0].Name: z.in.Shape}})
	if err != nil {
		return fmt.Errorf("MXNet import: %w", err)
	}
	defer mx.Close()
	x := *z.in
	x.Name = mx.Inputs[0].Name
	outs, err := interp.Run(mx, map[string]*canon.Tensor{x.Name: &x})
	if err != nil {
		return fmt.Errorf("run: %w", err)
	}
	return z.compare(outs[mx.Outputs[0].Name])
}

func (z *zooModel) viaTorch(t *testing.T, g *canon.Graph) error {
	dir := filepath.Join(t.TempDir(), "model")
	if _, err := torchexport.Export(g, dir); err != nil {
		return fmt.Errorf("torch export: %w", err)
	}
	in, out := filepath.Join(dir, "in.npy"), filepath.Join(dir, "out.npy")
	f, err := os.Create(in)
	if err != nil {
		return err
	}
	if err := npy.Write(f, z.in); err != nil {
		f.Close()
		return err
	}
	f.Close()
	if msg, err := exec.Command(z.python, z.driver, dir, in, out).CombinedOutput(); err != nil {
		return fmt.Errorf("PyTorch on model.py: %v: %s", err, lastLine(string(msg)))
	}
	got, err := npy.ReadFile(out)
	if err != nil {
		return err
	}
	return z.compare(got)
}

// zooReason shortens an error to its table cell: a mismatch as is, else
// the last clause of its first line (the op or reason it stops at).
func zooReason(err error) string {
	var m *zooMismatch
	if errors.As(err, &m) {
		return m.Error()
	}
	s := strings.SplitN(err.Error(), "\n", 2)[0]
	if i := strings.LastIndex(s, ".py:"); i >= 0 { // TorchScript source position
		if j := strings.Index(s[i:], ": "); j >= 0 {
			s = s[i+j+2:]
		}
	}
	s = strings.TrimSuffix(s, " (`modelbridge ops` lists what each format supports)")
	s = strings.TrimSuffix(s, " (`modelbridge ops --aten` lists PyTorch's operators and the handlers this importer has)")
	s = strings.ReplaceAll(s, "|", "/")
	if len(s) > 160 {
		s = s[:157] + "..."
	}
	return s
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// zooDocHead introduces the table in docs/torchvision-zoo.md.
const zooDocHead = `# The torchvision zoo

Every model of torchvision 0.14 (classification, segmentation, video),
traced by PyTorch 1.13 in eval mode with random weights (fixed seed, random
batch-norm statistics) at the input shape shown, converted from
` + "`traced.pt`" + ` three ways and checked against PyTorch's own output at a
relative error of 1e-4 (to the largest output magnitude):

- **→ ONNX**: written as ONNX and run by ONNX Runtime;
- **→ MXNet**: written as an MXNet checkpoint, read back and run, as
  ` + "`modelbridge run`" + ` does;
- **→ torch**: written as ` + "`model.py`" + ` + weights and run by PyTorch 1.13.

A cell says pass, or where the conversion stops. Made by

    MODELBRIDGE_ZOO=all MODELBRIDGE_ZOO_TABLE=docs/torchvision-zoo.md go test ./e2e -run TestTorchvisionZoo -timeout 0 -v

(` + "`testdata/make_torchvision_zoo.py`" + ` makes the archives; CI runs a subset with MODELBRIDGE_ZOO=1).

`

// zooTable renders the results as a Markdown table.
func zooTable(names []string, inputs map[string]string, results map[string]map[string]string) string {
	var b strings.Builder
	b.WriteString("| model | input | traced.pt → ONNX (ONNX Runtime) | → MXNet (run) | → torch (model.py) |\n|---|---|---|---|---|\n")
	pass := map[string]int{}
	for _, name := range names {
		row := results[name]
		fmt.Fprintf(&b, "| %s | %s |", name, inputs[name])
		for _, p := range zooPaths {
			cell := row[p]
			if cell == "" {
				cell = "not run"
			}
			if cell == "pass" {
				pass[p]++
			}
			fmt.Fprintf(&b, " %s |", cell)
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "| **passing** | | %d / %d | %d / %d | %d / %d |\n",
		pass["onnx"], len(names), pass["mxnet"], len(names), pass["torch"], len(names))
	return b.String()
}

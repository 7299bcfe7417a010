package opmatrix

import (
	"bytes"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/modelbridge/modelbridge/allformats"
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/compare"
	"github.com/modelbridge/modelbridge/internal/testfix"
	"github.com/modelbridge/modelbridge/interp"
)

var update = flag.Bool("update", false, "rewrite docs/ops.md from the op tables")

// Every registered op is handled by every backend or declared unsupported
// with a reason.
func TestEveryBackendCoversEveryOp(t *testing.T) {
	cols := Columns()
	if len(cols) < 8 {
		var names []string
		for _, c := range cols {
			names = append(names, c.Name())
		}
		t.Fatalf("only %d backends have op tables (%s); want every importer and exporter of ops, run and cost", len(cols), strings.Join(names, ", "))
	}
	for _, g := range Gaps(cols) {
		t.Error(g)
	}
	for _, c := range cols {
		for kind := range c.Ops {
			if canon.Lookup(kind) == nil {
				t.Errorf("%s: op table names %q, which is not a registered canonical op", c.Name(), kind)
			}
		}
	}
}

// An op that no backend has heard of is reported for every backend: the
// exhaustiveness check is not vacuous.
func TestNewOpWithoutBackendsIsAGap(t *testing.T) {
	canon.Register(&canon.OpDef{
		// No traits: the cost model would price an elementwise op from its
		// MathCost without a table entry, which is not a gap.
		Kind: "TestOnlyCube", Summary: "x³, registered by a test",
		New:   func() canon.Op { return &testCube{} },
		Infer: func(c *canon.InferCtx) ([]canon.ValueInfo, error) { return c.SameAsInput(0) },
	})
	t.Cleanup(func() { canon.Unregister("TestOnlyCube") })
	cols := Columns()
	missing := map[string]bool{}
	for _, g := range Gaps(cols) {
		if g.Kind == "TestOnlyCube" {
			missing[g.Backend] = true
		}
	}
	for _, c := range cols {
		if !missing[c.Name()] {
			t.Errorf("backend %s lacks TestOnlyCube but the exhaustiveness check did not say so", c.Name())
		}
	}
	var buf bytes.Buffer
	if err := WriteText(&buf, cols, "testonlycube"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "?") {
		t.Errorf("the matrix shows no gap for an op no backend handles:\n%s", buf.String())
	}
}

type testCube struct{}

func (*testCube) Kind() string { return "TestOnlyCube" }
func (*testCube) Signature() canon.Signature {
	return canon.Signature{Inputs: []canon.InputSpec{{Name: "X"}}, MinOutputs: 1, MaxOutputs: 1}
}

// docs/ops.md is what the tables say.
func TestDocsAreCurrent(t *testing.T) {
	var buf bytes.Buffer
	WriteMarkdown(&buf, Columns())
	path := filepath.Join(testfix.RepoRoot(), "docs", "ops.md")
	if *update {
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./opmatrix -update)", err)
	}
	if !bytes.Equal(got, buf.Bytes()) {
		t.Errorf("docs/ops.md is out of date with the op tables; run go test ./opmatrix -update")
	}
}

// Every op's example goes through inference, the interpreter and every
// exporter. An exporter that claims an op must write it; one that declares
// it unsupported must refuse it by name. Where the same format reads the
// op back, the re-read model must compute what the original does.
func TestEveryOpThroughEveryBackend(t *testing.T) {
	cols := Columns()
	reads := map[string]canon.Coverage{}
	for _, c := range cols {
		if c.Action == Read {
			reads[c.Format] = c.Ops
		}
	}
	for _, d := range canon.Ops() {
		t.Run(d.Kind, func(t *testing.T) {
			g, err := d.ExampleGraph()
			if err != nil {
				t.Fatal(err)
			}
			inputs := exampleInputs(g)
			want, err := interp.RunValues(g, wrapInputs(g, inputs))
			if err != nil {
				t.Fatalf("interpreter: %v", err)
			}
			for _, o := range g.Outputs {
				if want[o.Name] == nil {
					t.Fatalf("interpreter gave no output %s", o.Name)
				}
			}
			for _, exp := range formats.Exporters() {
				if exp.Ops == nil {
					continue
				}
				s := exp.Ops()[d.Kind]
				dir := t.TempDir()
				path := filepath.Join(dir, "m"+firstExt(exp))
				if exp.Folder {
					path = filepath.Join(dir, "m")
				}
				// At the lowest opset the table claims (the default when
				// that is lower).
				opts := formats.WriteOptions{}
				if exp.Opsets.Has() && s.MinOpset > exp.Opsets.Default {
					opts.Opset = s.MinOpset
				}
				err := exp.Write(g, path, opts)
				switch {
				case s.Handled && err != nil:
					t.Errorf("%s write: the op table claims %s but writing failed: %v", exp.Name, d.Kind, err)
					continue
				case !s.Handled && err == nil:
					t.Errorf("%s write: the op table says %s is unsupported (%s) but writing succeeded", exp.Name, d.Kind, s.Reason)
					continue
				case !s.Handled:
					if !strings.Contains(err.Error(), d.Kind) {
						t.Errorf("%s write: refusing %s, the error does not name the op: %v", exp.Name, d.Kind, err)
					}
					continue
				}
				if r, ok := reads[exp.Name][d.Kind]; !ok || !r.Handled {
					continue
				}
				back, _, err := formats.Read(path, exp.Name, formats.ReadOptions{})
				if err != nil {
					t.Errorf("%s: reading back what it wrote for %s: %v", exp.Name, d.Kind, err)
					continue
				}
				got, err := interp.RunValues(back, wrapInputs(back, renameInputs(g, back, inputs)))
				back.Close()
				if err != nil {
					t.Errorf("%s: running the re-read %s: %v", exp.Name, d.Kind, err)
					continue
				}
				drawn := canon.DrawnOutputs(g)
				for i, o := range g.Outputs {
					if i >= len(back.Outputs) {
						t.Errorf("%s: re-read %s has %d outputs, want %d", exp.Name, d.Kind, len(back.Outputs), len(g.Outputs))
						break
					}
					if drawn[i] { // random draws: by shape, dtype and range
						gt, _ := got[back.Outputs[i].Name].(*canon.Tensor)
						wt, _ := want[o.Name].(*canon.Tensor)
						if res, err := compare.Drawn(gt, wt); err != nil || !res.OK {
							t.Errorf("%s: re-read %s output %d differs: %+v %v", exp.Name, d.Kind, i, res, err)
						}
						continue
					}
					if err := sameValues(got[back.Outputs[i].Name], want[o.Name]); err != nil {
						t.Errorf("%s: re-read %s output %d differs: %v", exp.Name, d.Kind, i, err)
					}
				}
			}
		})
	}
}

func firstExt(e *formats.Exporter) string {
	if len(e.Extensions) > 0 {
		return e.Extensions[0]
	}
	return ""
}

// exampleInputs fills every graph input with deterministic values in
// [-2, 2] (integers for integer inputs).
func exampleInputs(g *canon.Graph) map[string]*canon.Tensor {
	out := map[string]*canon.Tensor{}
	for k, in := range g.Inputs {
		shape, _ := in.StaticShape()
		n := canon.NumElements(shape)
		switch in.DType {
		case canon.Int64:
			v := make([]int64, n)
			for i := range v {
				v[i] = int64(i % 3)
			}
			out[in.Name] = canon.NewInt64Tensor(in.Name, shape, v)
		default:
			v := make([]float32, n)
			for i := range v {
				v[i] = float32(2 * math.Sin(float64(i*7+k)*0.61))
			}
			out[in.Name] = canon.NewFloat32Tensor(in.Name, shape, v)
		}
	}
	return out
}

// renameInputs maps the original inputs onto a re-read graph's inputs by
// position: a format may rename values.
func renameInputs(orig, back *canon.Graph, inputs map[string]*canon.Tensor) map[string]*canon.Tensor {
	out := map[string]*canon.Tensor{}
	for i, in := range back.Inputs {
		if i < len(orig.Inputs) {
			t := *inputs[orig.Inputs[i].Name]
			t.Name = in.Name
			out[in.Name] = &t
		}
	}
	return out
}

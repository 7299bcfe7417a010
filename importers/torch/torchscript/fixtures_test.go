package torchscript

import (
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	onnxexport "github.com/modelbridge/modelbridge/exporters/onnx"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/compare"
	"github.com/modelbridge/modelbridge/internal/runtimes/ort"
	"github.com/modelbridge/modelbridge/internal/tensorfile"
	"github.com/modelbridge/modelbridge/internal/testfix"
	"github.com/modelbridge/modelbridge/interp"
)

// tracedModel is one torch fixture with a traced.pt.
type tracedModel struct {
	name, dir string
	input     *canon.Tensor
	want      *canon.Tensor
}

func tracedModels(t *testing.T) []tracedModel {
	t.Helper()
	root := filepath.Join(testfix.Fixtures(t), "torch")
	dirs, err := filepath.Glob(filepath.Join(root, "*", "traced.pt"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no traced.pt fixtures under %s (err %v); the fixture folder is incomplete", root, err)
	}
	sort.Strings(dirs)
	var out []tracedModel
	for _, p := range dirs {
		dir := filepath.Dir(p)
		in, err := tensorfile.Load(filepath.Join(dir, "test_data_set_0", "input_0.pb"))
		if err != nil {
			t.Fatal(err)
		}
		want, err := tensorfile.Load(filepath.Join(dir, "test_data_set_0", "output_0.pb"))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, tracedModel{name: filepath.Base(dir), dir: dir, input: in, want: want})
	}
	return out
}

// importTraced reads a fixture with its input shape given for forward's
// only parameter, whatever it is named.
func importTraced(t *testing.T, m tracedModel) *canon.Graph {
	t.Helper()
	path := filepath.Join(m.dir, "traced.pt")
	// First find the input name: an import without shapes names it.
	probe, err := ReadFile(path, formats.ReadOptions{})
	var name string
	if err == nil {
		name = probe.Inputs[0].Name
		probe.Close()
	} else {
		name = firstInputName(t, path)
	}
	g, err := ReadFile(path, formats.ReadOptions{InputShapes: map[string][]int64{name: m.input.Shape}})
	if err != nil {
		t.Fatalf("%s: %v", m.name, err)
	}
	return g
}

// firstInputName parses the root forward's first tensor parameter.
func firstInputName(t *testing.T, path string) string {
	t.Helper()
	_, err := ReadFile(path, formats.ReadOptions{InputShapes: map[string][]int64{"\x00": {1}}})
	if err == nil {
		t.Fatalf("%s: bogus input name accepted", path)
	}
	const marker = "forward's inputs are: "
	msg := err.Error()
	i := len(msg) - 1
	for ; i >= 0; i-- {
		if i+len(marker) <= len(msg) && msg[i:i+len(marker)] == marker {
			break
		}
	}
	if i < 0 {
		t.Fatalf("%s: cannot learn the input name: %v", path, err)
	}
	rest := msg[i+len(marker):]
	for j, c := range rest {
		if c == ',' {
			return rest[:j]
		}
	}
	return rest
}

func TestTracedFixturesInterp(t *testing.T) {
	for _, m := range tracedModels(t) {
		t.Run(m.name, func(t *testing.T) {
			g := importTraced(t, m)
			defer g.Close()
			in := *m.input
			in.Name = g.Inputs[0].Name
			outs, err := interp.Run(g, map[string]*canon.Tensor{in.Name: &in})
			if err != nil {
				t.Fatal(err)
			}
			rel, err := compare.RelativeToMax(outs[g.Outputs[0].Name], m.want)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: %d nodes, max|a-b|/max|b| = %.3g", m.name, len(g.Nodes), rel)
			if rel > 1e-4 {
				t.Errorf("%s: relative error %.3g > 1e-4", m.name, rel)
			}
		})
	}
}

func TestTracedFixturesORT(t *testing.T) {
	models := tracedModels(t)
	rt := testfix.ORT(t)
	for _, m := range models {
		t.Run(m.name, func(t *testing.T) {
			g := importTraced(t, m)
			defer g.Close()
			tmp := t.TempDir()
			model := filepath.Join(tmp, "model.onnx")
			if err := onnxexport.Write(g, model, formats.WriteOptions{}); err != nil {
				t.Fatal(err)
			}
			inDir := filepath.Join(tmp, "in")
			outDir := filepath.Join(tmp, "out")
			os.MkdirAll(inDir, 0o755)
			in := *m.input
			in.Name = g.Inputs[0].Name
			if err := onnxexport.WriteTensorFile(&in, filepath.Join(inDir, "input_0.pb")); err != nil {
				t.Fatal(err)
			}
			if err := rt.RunDir(model, inDir, outDir, ort.Options{}); err != nil {
				t.Fatalf("ONNX Runtime: %v", err)
			}
			got, err := tensorfile.Load(filepath.Join(outDir, tensorfile.OutputFileName(0)))
			if err != nil {
				t.Fatal(err)
			}
			rel, err := compare.RelativeToMax(got, m.want)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: ONNX Runtime max|a-b|/max|b| = %.3g", m.name, rel)
			if rel > 1e-4 {
				t.Errorf("%s: ONNX Runtime relative error %.3g > 1e-4", m.name, rel)
			}
		})
	}
}

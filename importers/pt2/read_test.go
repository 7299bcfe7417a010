package pt2

import (
	"math"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/interp"
)

func readSynth(t *testing.T, b []byte, opts formats.ReadOptions) *canon.Graph {
	t.Helper()
	p := writeTemp(t, b)
	if !Probe(p) {
		t.Fatal("Probe does not claim the archive")
	}
	g, err := Read(p, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	return g
}

func prop(g *canon.Graph, key string) string {
	for _, p := range g.Meta.Props {
		if p.Key == key {
			return p.Value
		}
	}
	return ""
}

// TestReadSynthetic reads a small program and runs it at two batch sizes
// against the computation written out.
func TestReadSynthetic(t *testing.T) {
	g := readSynth(t, synthArchive(t, nil), formats.ReadOptions{})
	x := g.Inputs[0]
	if x.Name != "x" || len(x.Shape) != 2 || x.Shape[0].Known() || x.Shape[0].Param != "s0" || x.Shape[1].Size != 4 {
		t.Fatalf("input %s has shape %v, want [s0 4]", x.Name, x.Shape)
	}
	if o := g.Outputs[0]; o.Shape[0].Param != "s0" || o.Shape[1].Size != 3 {
		t.Errorf("output has shape %v, want [s0 3]", o.Shape)
	}
	for key, want := range map[string]string{
		"range.s0":                    "2..inf",
		"signature.input.p_fc_weight": "parameter fc.weight",
		"signature.input.x":           "user input",
		"signature.output.output":     "user output relu",
	} {
		if got := prop(g, key); got != want {
			t.Errorf("%s = %q, want %q", key, got, want)
		}
	}
	if g.Meta.SourceFormat != FormatName || g.Meta.ProducerVersion != "2.6.0" {
		t.Errorf("metadata %+v", g.Meta)
	}
	w := synthWeights()
	wv, _ := w[0].Tensor.Float64s()
	bv, _ := w[1].Tensor.Float64s()
	for _, batch := range []int64{2, 5} {
		xv := make([]float32, batch*4)
		for i := range xv {
			xv[i] = float32(i%7) - 3
		}
		out, err := interp.Run(g, map[string]*canon.Tensor{"x": canon.NewFloat32Tensor("x", []int64{batch, 4}, xv)})
		if err != nil {
			t.Fatal(err)
		}
		got, _ := out[g.Outputs[0].Name].Float64s()
		for n := int64(0); n < batch; n++ {
			for o := 0; o < 3; o++ {
				want := bv[o]
				for i := 0; i < 4; i++ {
					want += float64(xv[n*4+int64(i)]) * wv[o*4+i]
				}
				want = math.Max(want, 0)
				if d := math.Abs(got[n*3+int64(o)] - want); d > 1e-5 {
					t.Fatalf("batch %d, row %d, output %d: got %v, want %v", batch, n, o, got[n*3+int64(o)], want)
				}
			}
		}
	}
}

// TestReadInputShape fixes the symbolic batch with --input-shape and
// refuses a shape that contradicts the program.
func TestReadInputShape(t *testing.T) {
	g := readSynth(t, synthArchive(t, nil), formats.ReadOptions{InputShapes: map[string][]int64{"x": {3, 4}}})
	if s, ok := g.Inputs[0].StaticShape(); !ok || s[0] != 3 {
		t.Errorf("input shape %v, want [3 4]", g.Inputs[0].Shape)
	}
	p := writeTemp(t, synthArchive(t, nil))
	for _, shapes := range []map[string][]int64{{"x": {3, 5}}, {"x": {3}}, {"y": {1, 4}}} {
		if _, err := Read(p, formats.ReadOptions{InputShapes: shapes}); err == nil {
			t.Errorf("--input-shape %v was accepted", shapes)
		}
	}
}

func TestTargetNames(t *testing.T) {
	for target, want := range map[string]string{
		"torch.ops.aten.conv2d.default":         "torch.conv2d",
		"torch.ops.aten.add.Tensor":             "torch.add",
		"torch.ops.aten.sym_size.int":           "torch.size",
		"torch.ops.aten.flatten.using_ints":     "torch.flatten",
		"torch.ops.aten.conv_transpose2d.input": "torch.conv_transpose2d",
	} {
		got, err := tsName(target)
		if err != nil || got != want {
			t.Errorf("tsName(%s) = %q, %v; want %q", target, got, err, want)
		}
	}
}

// TestKeywordArguments passes add's keyword-only alpha by name:
// add(linear, linear, alpha=2) is 3 * linear.
func TestKeywordArguments(t *testing.T) {
	edit := replace(t, `{"target": "torch.ops.aten.relu.default",
     "inputs": [{"name": "self", "arg": {"as_tensor": {"name": "linear"}}}],`, `{"target": "torch.ops.aten.add.Tensor",
     "inputs": [{"name": "self", "arg": {"as_tensor": {"name": "linear"}}}, {"name": "other", "arg": {"as_tensor": {"name": "linear"}}}, {"name": "alpha", "arg": {"as_int": 2}}],`)
	g := readSynth(t, synthArchive(t, edit), formats.ReadOptions{})
	x := canon.NewFloat32Tensor("x", []int64{1, 4}, []float32{1, -2, 3, 0.5})
	out, err := interp.Run(g, map[string]*canon.Tensor{"x": x})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := out[g.Outputs[0].Name].Float64s()
	w := synthWeights()
	wv, _ := w[0].Tensor.Float64s()
	bv, _ := w[1].Tensor.Float64s()
	xv := []float64{1, -2, 3, 0.5}
	for o := 0; o < 3; o++ {
		want := bv[o]
		for i := 0; i < 4; i++ {
			want += xv[i] * wv[o*4+i]
		}
		if d := math.Abs(got[o] - 3*want); d > 1e-5 {
			t.Fatalf("output %d: got %v, want %v", o, got[o], 3*want)
		}
	}
}

// TestAssertionsSkipped: a run-time assertion node computes nothing; it
// is skipped with a note.
func TestAssertionsSkipped(t *testing.T) {
	g := readSynth(t, synthArchive(t, replace(t, `"nodes": [`, `"nodes": [
    {"target": "torch.ops.aten._assert_tensor_metadata.default",
     "inputs": [{"name": "a", "arg": {"as_tensor": {"name": "x"}}}, {"name": "dtype", "arg": {"as_scalar_type": 7}}],
     "outputs": [{"as_none": true}], "metadata": {}},`)), formats.ReadOptions{})
	if len(g.Meta.Notes) != 1 || !strings.Contains(g.Meta.Notes[0], "skipped 1 run-time assertion") {
		t.Errorf("notes %q", g.Meta.Notes)
	}
}

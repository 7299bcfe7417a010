package torchexport

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

func TestNames(t *testing.T) {
	for _, c := range []struct {
		in    string
		valid bool
		clean string
	}{
		{"features.0.weight", true, "features_0_weight"},
		{"conv1.bias", true, "conv1_bias"},
		{"onnx::Conv_123", false, "onnx_Conv_123"},
		{"0.weight", true, "m_0_weight"},
		{"3", true, "m_3"},
		{"01.weight", false, "m_01_weight"},
		{"/stage2/Conv", false, "stage2_Conv"},
		{"training", false, "m_training"},
		{"class.weight", false, "class_weight"},
	} {
		if got := ValidStateKey(c.in); got != c.valid {
			t.Errorf("ValidStateKey(%q) = %v", c.in, got)
		}
		if got := sanitize(c.in); got != c.clean {
			t.Errorf("sanitize(%q) = %q, want %q", c.in, got, c.clean)
		}
	}
}

// tinyGraph is x -> Conv(named weights) -> op -> y.
func tinyGraph(op canon.Op) *canon.Graph {
	w := &canon.Tensor{Name: "onnx::Conv_7", DType: canon.Float32, Shape: []int64{2, 1, 1, 1}, Data: make([]byte, 8)}
	g := &canon.Graph{
		Name:         "tiny",
		Inputs:       []canon.ValueInfo{{Name: "x", DType: canon.Float32, Shape: canon.DimsOf(1, 1, 4, 4), RankKnown: true}},
		Outputs:      []canon.ValueInfo{{Name: "y", DType: canon.Float32}},
		Initializers: []*canon.Tensor{w},
		Nodes: []*canon.Node{
			{Name: "Conv_0", Op: &canon.Conv{Strides: []int64{1, 1}, Dilations: []int64{1, 1}, PadsBegin: []int64{0, 0}, PadsEnd: []int64{0, 0}, Group: 1}, Inputs: []string{"x", w.Name}, Outputs: []string{"c"}},
			{Name: "Resize_1", Op: op, Inputs: []string{"c"}, Outputs: []string{"y"}},
		},
	}
	canon.AssignLayouts(g)
	return g
}

// TestUnsupportedFailsBeforeWriting checks that a node torch cannot express
// is named in the error and that no file appears.
func TestUnsupportedFailsBeforeWriting(t *testing.T) {
	g := tinyGraph(&canon.Resize{Scales: []float32{1, 1, 2, 2}, CoordTransform: canon.HalfPixel, Nearest: canon.RoundPreferFloor})
	dir := filepath.Join(t.TempDir(), "out")
	_, err := Export(g, dir)
	if err == nil || !strings.Contains(err.Error(), `"Resize_1"`) || !strings.Contains(err.Error(), "half_pixel") {
		t.Fatalf("want an error naming node Resize_1 and its coordinate mode, got %v", err)
	}
	if _, serr := os.Stat(dir); serr == nil {
		t.Error("the output folder was created for a model that cannot be expressed")
	}
}

// TestGeneratedNames checks that an ONNX-style initializer name is replaced
// by one made from the node, and that an asymmetric-floor Resize is written
// as F.interpolate nearest.
func TestGeneratedNames(t *testing.T) {
	g := tinyGraph(&canon.Resize{Scales: []float32{1, 1, 2, 2}, CoordTransform: canon.Asymmetric, Nearest: canon.Floor})
	mod, err := Generate(g)
	if err != nil {
		t.Fatal(err)
	}
	if len(mod.Renames) != 1 || mod.Renames[0] != (Rename{From: "onnx::Conv_7", To: "Conv_0.weight"}) {
		t.Errorf("renames %v", mod.Renames)
	}
	for _, want := range []string{"self.Conv_0 = nn.Conv2d(1, 2,", `F.interpolate(c, scale_factor=(2.0, 2.0), mode="nearest")`} {
		if !strings.Contains(mod.Source, want) {
			t.Errorf("model.py lacks %q:\n%s", want, mod.Source)
		}
	}
	// Weights-only export uses the same keys.
	path := filepath.Join(t.TempDir(), "w.pt")
	res, err := Export(g, path)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Files) != 1 || res.Renames[0].To != "Conv_0.weight" {
		t.Errorf("weights-only export: %+v", res)
	}
}

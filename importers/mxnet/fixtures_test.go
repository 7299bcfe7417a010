package mxnetimport

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/mxparams"
	"github.com/modelbridge/modelbridge/internal/testfix"
)

func mxFixture(t *testing.T, rel string) string {
	return filepath.Join(testfix.Fixtures(t), "mxnet", rel)
}

func TestParamsFixtures(t *testing.T) {
	cases := []struct {
		file    string
		n       int
		version int
		first   string // name of the first array
		shape   []int64
	}{
		{"go_test/go_test-0001.params", 2, 0, "arg:pred_bias", []int64{10}},
		{"mtcnn/det1-0001.params", 13, 0, "arg:prelu2_gamma", []int64{16}},
		{"mtcnn/det2-0001.params", 16, 0, "", nil},
		{"tutorial_autoencoder/Autoencoder-0100.params", 10, 2, "", nil},
		{"tutorial_cnn/Neural_Net-0100.params", 26, 2, "", nil},
		{"tutorial_fc/Neural_Net-0100.params", 6, 2, "", nil},
		{"tutorial_gluon/cnn_bn-50.params", 26, 2, "", nil},
		{"tutorial_gluon/fc-100.params", 4, 2, "dense0_weight", []int64{50, 784}},
		{"tutorial_sparse/mod-10.params", 4, 2, "arg:1_weight", []int64{784, 100}},
		{"legacy/legacy_ndarray.v0", 6, 0, "", []int64{128}},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			arrays, err := mxparams.ReadFile(mxFixture(t, c.file))
			if err != nil {
				t.Fatal(err)
			}
			if len(arrays) != c.n {
				t.Fatalf("%d arrays, want %d", len(arrays), c.n)
			}
			for _, a := range arrays {
				t.Logf("%-40q v%d %s%v storage=%s ctx=%d/%d", a.Name, a.Version, a.Tensor.DType, a.Tensor.Shape, mxparams.StorageName(a.Storage), a.DevType, a.DevID)
				if err := a.Tensor.CheckData(); err != nil {
					t.Error(err)
				}
			}
			if c.first != "" && arrays[0].Name != c.first {
				t.Errorf("first array %q, want %q", arrays[0].Name, c.first)
			}
			if c.shape != nil && !equalInts(arrays[0].Tensor.Shape, c.shape) {
				t.Errorf("first shape %v, want %v", arrays[0].Tensor.Shape, c.shape)
			}
			if arrays[0].Version != c.version {
				t.Errorf("record version %d, want %d", arrays[0].Version, c.version)
			}
		})
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

func TestLegacyNDArrayV0(t *testing.T) {
	g, err := Read(mxFixture(t, "legacy/legacy_ndarray.v0"), formats.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Initializers) != 6 || len(g.Nodes) != 0 || len(g.Outputs) != 0 {
		t.Fatalf("got %d initializers, %d nodes, %d outputs; want 6, 0, 0", len(g.Initializers), len(g.Nodes), len(g.Outputs))
	}
	for _, tn := range g.Initializers {
		v, err := tn.Float64s()
		if err != nil {
			t.Fatal(err)
		}
		if tn.DType != canon.Float32 || len(v) != 128 {
			t.Fatalf("%s: %s%v, want f32[128]", tn.Name, tn.DType, tn.Shape)
		}
		for i, x := range v {
			if x != float64(i) {
				t.Fatalf("%s[%d] = %g, want %d (arange(128))", tn.Name, i, x, i)
			}
		}
	}
}

func TestSparseDensified(t *testing.T) {
	g, err := Read(mxFixture(t, "tutorial_sparse/mod-10.params"), formats.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, p := range g.Meta.Props {
		if strings.HasPrefix(p.Key, "densified:") {
			found = true
			t.Logf("%s = %s", p.Key, p.Value)
		}
	}
	if !found {
		t.Error("no densified note in Meta.Props")
	}
	for _, tn := range g.Initializers {
		if err := tn.CheckData(); err != nil {
			t.Error(err)
		}
		v, _ := tn.Float64s()
		for _, x := range v {
			if math.IsNaN(x) {
				t.Fatalf("%s holds NaN", tn.Name)
			}
		}
	}
}

// symbolCase pairs each symbol fixture with the input shapes it needs.
var symbolCases = []struct {
	file   string
	shapes map[string][]int64
	params bool // a checkpoint sits beside it
}{
	{"go_test/go_test-symbol.json", map[string][]int64{"data": {1, 1, 2, 5}}, true},
	{"mtcnn/det1-symbol.json", map[string][]int64{"data": {1, 3, 12, 12}}, true},
	{"mtcnn/det2-symbol.json", map[string][]int64{"data": {1, 3, 24, 24}}, true},
	{"tutorial_autoencoder/Autoencoder-symbol.json", map[string][]int64{"input": {2, 784}}, true},
	{"tutorial_cnn/Neural_Net-symbol.json", map[string][]int64{"data": {2, 1, 28, 28}}, true},
	{"tutorial_fc/Neural_Net-symbol.json", map[string][]int64{"data": {2, 784}}, true},
	{"symbols/mlp-symbol.json", map[string][]int64{"data": {1, 1, 28, 28}}, false},
	{"symbols/resnet18_v1-symbol.json", map[string][]int64{"data": {1, 3, 224, 224}}, false},
	{"symbols/squeezenet1.0-symbol.json", map[string][]int64{"data": {1, 3, 224, 224}}, false},
	{"symbols/vgg_like-symbol.json", map[string][]int64{"data": {1, 3, 224, 224}}, false},
}

func TestSymbolFixtures(t *testing.T) {
	for _, c := range symbolCases {
		t.Run(c.file, func(t *testing.T) {
			path := mxFixture(t, c.file)
			imp, err := formats.FindImporter(path, "")
			if err != nil || imp.Name != "mxnet" {
				t.Fatalf("FindImporter: %v %v", imp, err)
			}
			g, err := Read(path, formats.ReadOptions{InputShapes: c.shapes})
			if err != nil {
				t.Fatal(err)
			}
			hist := map[string]int{}
			for _, n := range g.Nodes {
				hist[n.Op.Kind()]++
			}
			t.Logf("%d nodes %v, %d inits, inputs %d, outputs %v, props %v", len(g.Nodes), hist, len(g.Initializers), len(g.Inputs), names(g.Outputs), g.Meta.Props)
			absent := false
			for _, p := range g.Meta.Props {
				absent = absent || p.Key == "weights" && p.Value == "absent"
			}
			if absent == c.params {
				t.Errorf("weights absent = %v, want %v", absent, !c.params)
			}
			if c.params && len(g.Inputs) != 1 {
				t.Errorf("inputs %v, want only data", names(g.Inputs))
			}
			for _, o := range g.Outputs {
				if _, ok := g.Values.Get(o.Name).StaticShape(); !ok {
					t.Errorf("output %s has no static shape: %+v", o.Name, g.Values.Get(o.Name))
				}
			}
		})
	}
}

func names(vs []canon.ValueInfo) []string {
	var out []string
	for _, v := range vs {
		out = append(out, v.Name)
	}
	return out
}

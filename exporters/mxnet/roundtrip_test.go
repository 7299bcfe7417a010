package mxnetexport_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	mxnetexport "github.com/modelbridge/modelbridge/exporters/mxnet"
	"github.com/modelbridge/modelbridge/formats"
	mxnetimport "github.com/modelbridge/modelbridge/importers/mxnet"
	"github.com/modelbridge/modelbridge/internal/mxparams"
	"github.com/modelbridge/modelbridge/internal/testfix"
)

var roundTrips = []struct {
	file   string
	shapes map[string][]int64
}{
	{"go_test/go_test-symbol.json", map[string][]int64{"data": {1, 1, 2, 5}}},
	{"mtcnn/det1-symbol.json", map[string][]int64{"data": {1, 3, 12, 12}}},
	{"mtcnn/det2-symbol.json", map[string][]int64{"data": {1, 3, 24, 24}}},
	{"tutorial_autoencoder/Autoencoder-symbol.json", map[string][]int64{"input": {2, 784}}},
	{"tutorial_cnn/Neural_Net-symbol.json", map[string][]int64{"data": {2, 1, 28, 28}}},
	{"tutorial_fc/Neural_Net-symbol.json", map[string][]int64{"data": {2, 784}}},
	// Symbol-only: the weights are graph inputs, typed by __shape__ on re-import.
	{"symbols/resnet18_v1-symbol.json", map[string][]int64{"data": {1, 3, 224, 224}}},
	{"symbols/squeezenet1.0-symbol.json", map[string][]int64{"data": {1, 3, 224, 224}}},
	{"symbols/vgg_like-symbol.json", map[string][]int64{"data": {1, 3, 224, 224}}},
	{"symbols/mlp-symbol.json", map[string][]int64{"data": {1, 1, 28, 28}}},
}

// TestRoundTrip checks MXNet -> canon -> MXNet -> canon gives the same graph
// with bit-exact weights, and that the written files look like MXNet's.
func TestRoundTrip(t *testing.T) {
	fix := testfix.Fixtures(t)
	for _, c := range roundTrips {
		t.Run(c.file, func(t *testing.T) {
			g1, err := mxnetimport.Read(filepath.Join(fix, "mxnet", c.file), formats.ReadOptions{InputShapes: c.shapes})
			if err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(t.TempDir(), "model-symbol.json")
			if err := mxnetexport.Write(g1, out, formats.WriteOptions{}); err != nil {
				t.Fatal(err)
			}
			g2, err := mxnetimport.Read(out, formats.ReadOptions{InputShapes: c.shapes})
			if err != nil {
				t.Fatal(err)
			}
			if err := canon.Equal(g1, g2); err != nil {
				t.Fatalf("round trip changed the graph: %v", err)
			}
			params := filepath.Join(filepath.Dir(out), "model-0000.params")
			if len(g1.Initializers) == 0 {
				if _, err := os.Stat(params); err == nil {
					t.Error("params file written for a graph without weights")
				}
				return
			}
			checkFiles(t, out, params)
		})
	}
}

func checkFiles(t *testing.T, sym, params string) {
	t.Helper()
	data, err := os.ReadFile(sym)
	if err != nil {
		t.Fatal(err)
	}
	var js struct {
		Nodes []struct {
			Op     string         `json:"op"`
			Attrs  map[string]any `json:"attrs"`
			Inputs [][]int        `json:"inputs"`
		} `json:"nodes"`
		ArgNodes   []int            `json:"arg_nodes"`
		NodeRowPtr []int            `json:"node_row_ptr"`
		Heads      [][]int          `json:"heads"`
		Attrs      map[string][]any `json:"attrs"`
	}
	if err := json.Unmarshal(data, &js); err != nil {
		t.Fatal(err)
	}
	if len(js.NodeRowPtr) != len(js.Nodes)+1 || len(js.Heads) == 0 || js.Attrs["mxnet_version"][0] != "int" {
		t.Fatalf("bad symbol structure: %s", data[:min(len(data), 300)])
	}
	for _, n := range js.Nodes {
		for k, v := range n.Attrs {
			if _, ok := v.(string); !ok {
				t.Errorf("%s attr %s is %T, want string", n.Op, k, v)
			}
		}
		for _, in := range n.Inputs {
			if len(in) != 3 {
				t.Errorf("%s input %v is not [node, index, version]", n.Op, in)
			}
		}
	}
	arrays, err := mxparams.ReadFile(params)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range arrays {
		if a.Version != 2 || (a.Prefix() != "arg" && a.Prefix() != "aux") {
			t.Errorf("array %q: version %d, want V2 with arg:/aux:", a.Name, a.Version)
		}
		if strings.Contains(a.Name, "moving_") && a.Prefix() != "aux" {
			t.Errorf("%s should be aux", a.Name)
		}
	}
}

func TestParamsWriteRead(t *testing.T) {
	w := canon.NewFloat32Tensor("w", []int64{2, 3}, []float32{1, 2, 3, 4, 5, 6})
	i := canon.NewInt64Tensor("i", nil, []int64{-1, 7})
	var buf bytes.Buffer
	if err := mxparams.Write(&buf, []string{"arg:w", "aux:i"}, []*canon.Tensor{w, i}); err != nil {
		t.Fatal(err)
	}
	arrays, err := mxparams.Parse(buf.Bytes(), "mem")
	if err != nil {
		t.Fatal(err)
	}
	if len(arrays) != 2 || arrays[0].Tensor.Name != "w" || !bytes.Equal(arrays[0].Tensor.Data, w.Data) || arrays[1].Tensor.DType != canon.Int64 || !bytes.Equal(arrays[1].Tensor.Data, i.Data) {
		t.Fatalf("got %+v", arrays)
	}
}

func TestPaths(t *testing.T) {
	dir := t.TempDir()
	for in, want := range map[string]string{
		"a/m-symbol.json": "a/m-symbol.json",
		"a/m.json":        "a/m-symbol.json",
		"a/m":             "a/m-symbol.json",
		dir:               filepath.Join(dir, "net-symbol.json"),
	} {
		s, p := mxnetexport.Paths(in, "net")
		if s != want || !strings.HasSuffix(p, "-0000.params") {
			t.Errorf("Paths(%q) = %q, %q; want %q", in, s, p, want)
		}
	}
}

func TestRefusesUnsupported(t *testing.T) {
	// dot and batch_dot cannot multiply stacks whose batch axes broadcast.
	x := canon.ValueInfo{Name: "x", DType: canon.Float32, Shape: canon.DimsOf(2, 2, 3, 4), RankKnown: true}
	w := canon.ValueInfo{Name: "w", DType: canon.Float32, Shape: canon.DimsOf(1, 2, 4, 5), RankKnown: true}
	g := &canon.Graph{
		Inputs:  []canon.ValueInfo{x, w},
		Outputs: []canon.ValueInfo{{Name: "y"}},
		Nodes:   []*canon.Node{{Name: "mm", Op: &canon.MatMul{}, Inputs: []string{"x", "w"}, Outputs: []string{"y"}}},
	}
	dir := t.TempDir()
	err := mxnetexport.Write(g, filepath.Join(dir, "m-symbol.json"), formats.WriteOptions{})
	if err == nil || !strings.Contains(err.Error(), "mm") || !strings.Contains(err.Error(), "MatMul") {
		t.Fatalf("want an error naming node mm and MatMul, got %v", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Fatalf("files left behind: %v", ents)
	}
}

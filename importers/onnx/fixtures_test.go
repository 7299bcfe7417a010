package onnximport

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/onnxpb"
	"github.com/modelbridge/modelbridge/internal/testfix"
)

// unsupportedFixture names conformance cases that use features modelbridge
// refuses on purpose, with the words the error must contain.
var unsupportedFixture = map[string]string{
	"test_maxpool_with_argmax_2d_precomputed_pads":    "Indices",
	"test_maxpool_with_argmax_2d_precomputed_strides": "Indices",
}

func TestONNXNodeFixtures(t *testing.T) {
	dir := filepath.Join(testfix.Fixtures(t), "onnx-node")
	cases, err := filepath.Glob(filepath.Join(dir, "*", "model.onnx"))
	if err != nil || len(cases) == 0 {
		t.Fatalf("no conformance cases under %s", dir)
	}
	imported, refused := 0, 0
	for _, path := range cases {
		name := filepath.Base(filepath.Dir(path))
		t.Run(name, func(t *testing.T) {
			g, err := Read(freezeParams(t, path), formats.ReadOptions{})
			if want, ok := unsupportedFixture[name]; ok {
				if err == nil {
					g.Close()
					t.Fatalf("import succeeded; want an error mentioning %q", want)
				}
				if !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "model.onnx") {
					t.Fatalf("error %q should name the file and mention %q", err, want)
				}
				refused++
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer g.Close()
			if err := g.Validate(); err != nil {
				t.Fatal(err)
			}
			checkTensorFiles(t, filepath.Dir(path))
			imported++
		})
	}
	t.Logf("onnx-node: %d of %d cases imported, %d refused as unsupported", imported, len(cases), refused)
}

func TestTorchFixtures(t *testing.T) {
	dir := filepath.Join(testfix.Fixtures(t), "torch")
	models, _ := filepath.Glob(filepath.Join(dir, "*", "model.onnx"))
	if len(models) == 0 {
		t.Fatalf("no torch models under %s", dir)
	}
	for _, path := range models {
		t.Run(filepath.Base(filepath.Dir(path)), func(t *testing.T) {
			g, err := Read(path, formats.ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer g.Close()
			if err := g.Validate(); err != nil {
				t.Fatal(err)
			}
			if g.Meta.SourceFormat != "onnx" || g.Meta.Producer != "pytorch" || g.Meta.SourceOpset != 13 {
				t.Errorf("metadata %+v", g.Meta)
			}
			if len(g.Inputs) != 1 || len(g.Outputs) != 1 {
				t.Errorf("inputs %v outputs %v", g.Inputs, g.Outputs)
			}
			checkTensorFiles(t, filepath.Dir(path))
		})
	}
}

// checkTensorFiles reads every test_data_set_*/*.pb beside a model.
func checkTensorFiles(t *testing.T, dir string) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "test_data_set_*", "*.pb"))
	for _, f := range files {
		tt, err := ReadTensorFile(f)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		if err := tt.CheckData(); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

func TestSniffFixtures(t *testing.T) {
	fx := testfix.Fixtures(t)
	for _, p := range []string{"torch/tiny_convnet/model.onnx", "onnx-node/test_add/model.onnx"} {
		if !Sniff(head(t, filepath.Join(fx, p))) {
			t.Errorf("%s not sniffed as ONNX", p)
		}
	}
	for _, p := range []string{"torch/tiny_convnet/state_dict.pt", "torch/tiny_convnet/state_dict_legacy.pt",
		"torch/tiny_convnet/traced.pt", "torch/tiny_convnet/test_data_set_0/input_0.pb", "torch/tiny_convnet/info.json"} {
		if Sniff(head(t, filepath.Join(fx, p))) {
			t.Errorf("%s sniffed as ONNX", p)
		}
	}
}

func head(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b[:min(len(b), 512)]
}

// paramSlots are the inputs of ops that modelbridge needs as constants.
// ONNX's conformance cases feed them as graph inputs, with their values in
// test_data_set_0; freezeParams turns those inputs into initializers, as a
// user would before converting.
var paramSlots = map[string]bool{
	"Clip": true, "Pad": true, "Resize": true, "Slice": true, "Split": true,
	"Squeeze": true, "Unsqueeze": true, "ReduceMean": true, "Upsample": true,
}

// freezeParams returns the model path to import: the original, or a copy
// in a temporary folder whose parameter inputs are initializers.
func freezeParams(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	mp := new(onnxpb.ModelProto)
	if err := proto.Unmarshal(data, mp); err != nil {
		t.Fatal(err)
	}
	gp := mp.Graph
	freeze := map[string]bool{}
	for _, n := range gp.Node {
		if paramSlots[n.GetOpType()] {
			for _, in := range n.Input[1:] {
				freeze[in] = true
			}
		}
	}
	inits := map[string]bool{}
	for _, t := range gp.Initializer {
		inits[t.GetName()] = true
	}
	var keep []*onnxpb.ValueInfoProto
	frozen := 0
	idx := 0 // test data files number the inputs that are not initializers
	for _, vi := range gp.Input {
		if inits[vi.GetName()] {
			keep = append(keep, vi)
			continue
		}
		if freeze[vi.GetName()] {
			tb, err := os.ReadFile(filepath.Join(filepath.Dir(path), "test_data_set_0", fmt.Sprintf("input_%d.pb", idx)))
			if err != nil {
				t.Fatal(err)
			}
			tp := new(onnxpb.TensorProto)
			if err := proto.Unmarshal(tb, tp); err != nil {
				t.Fatal(err)
			}
			tp.Name = proto.String(vi.GetName())
			gp.Initializer = append(gp.Initializer, tp)
			frozen++
		} else {
			keep = append(keep, vi)
		}
		idx++
	}
	if frozen == 0 {
		return path
	}
	gp.Input = keep
	out, err := proto.Marshal(mp)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "model.onnx")
	if err := os.WriteFile(p, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

package onnximport

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/testfix"
)

// unsupportedFixture names conformance cases that use features modelbridge
// refuses on purpose, with the words the error must contain. None today:
// MaxPool's Indices output, once refused, is read.
var unsupportedFixture = map[string]string{}

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
			g, err := Read(path, formats.ReadOptions{})
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
	if len(files) == 0 {
		t.Fatalf("%s: no test_data_set_*/*.pb tensor files beside the model; the fixture folder is incomplete", dir)
	}
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

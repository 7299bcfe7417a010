package mxnetexport

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/importers/torch/torchscript"
)

// TestQuantizedTorchModelRefused: a quantized PyTorch model is refused by
// the name of its integer convolution, with the reason.
func TestQuantizedTorchModelRefused(t *testing.T) {
	path := filepath.Join("..", "..", "testdata", "quantized", "q_eager_convnet.pt")
	g, err := torchscript.ReadFile(path, formats.ReadOptions{InputShapes: map[string][]int64{"#0": {2, 3, 12, 12}}})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	err = Write(g, filepath.Join(t.TempDir(), "m-symbol.json"), formats.WriteOptions{})
	if err == nil || !strings.Contains(err.Error(), "quantized model") || !strings.Contains(err.Error(), "MXNet cannot express ConvInteger") {
		t.Fatalf("want a refusal naming ConvInteger, got %v", err)
	}
}

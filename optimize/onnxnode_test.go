package optimize

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/modelbridge/modelbridge/formats"
	onnximport "github.com/modelbridge/modelbridge/importers/onnx"
	"github.com/modelbridge/modelbridge/internal/testfix"
	"github.com/modelbridge/modelbridge/interp"
)

// TestONNXNodeModels runs the default pipeline, with verification, on every
// ONNX conformance model the importer and interpreter accept: a broad check
// that no pass fails, panics or changes a result on real single-op graphs.
func TestONNXNodeModels(t *testing.T) {
	models, _ := filepath.Glob(filepath.Join(testfix.Fixtures(t), "onnx-node", "*", "model.onnx"))
	if len(models) == 0 {
		t.Fatal("no onnx-node/*/model.onnx fixtures; the fixture folder is incomplete")
	}
	ran := 0
	for _, path := range models {
		g, err := onnximport.Read(path, formats.ReadOptions{})
		if err != nil {
			continue // an op outside the canonical set
		}
		if _, err := interp.New(g); err != nil || g.Validate() != nil {
			g.Close()
			continue
		}
		name := filepath.Base(filepath.Dir(path))
		if _, _, err := Optimize(g, Options{Verify: true, Samples: 1}); err != nil {
			var ue *UnverifiableError
			if errors.As(err, &ue) {
				t.Logf("%s: %v", name, err) // the model needs real inputs
			} else {
				t.Errorf("%s: %v", name, err)
			}
		}
		ran++
		g.Close()
	}
	t.Logf("optimized and verified %d of %d conformance models", ran, len(models))
}

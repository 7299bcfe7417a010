package robust

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/modelbridge/modelbridge/internal/testfix"
)

// TestDamagedTFLite converts truncated, bit-flipped and crafted copies of a
// real TFLite file (the SEANet int16 convolution) and checks each gives a
// one-line error or a graph, never a crash.
func TestDamagedTFLite(t *testing.T) {
	path := filepath.Join(testfix.Fixtures(t), "tflite", "seanet", "conv0.tflite")
	base, err := os.ReadFile(path)
	if err != nil {
		t.Skipf("skipping: %v", err)
	}
	extra := []Damaged{
		{"root-offset-past-the-end", PatchUint32(base, 0, 1<<31)},
		{"identifier-only", []byte("\x08\x00\x00\x00TFL3")},
	}
	damageAll(t, "model.tflite", base, extra)
}

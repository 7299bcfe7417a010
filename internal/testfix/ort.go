package testfix

import (
	"testing"

	"github.com/modelbridge/modelbridge/internal/runtimes/ort"
)

// ORT returns the installed ONNX Runtime ($MODELBRIDGE_ORT_DIR, else
// /tmp/ort), or skips the test saying what is missing and how to install
// it. Run models with its Run, RunDir or RunBatch.
func ORT(t testing.TB) *ort.Runtime {
	t.Helper()
	rt, err := ort.Find("")
	if err != nil {
		t.Skipf("skipping: %v", err)
	}
	return rt
}

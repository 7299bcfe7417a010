package testfix

import (
	"testing"

	"github.com/modelbridge/modelbridge/internal/ortinstall"
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

// ORTRunner returns the path of the install's command-line run.js, or
// skips the test.
//
// Deprecated: run models with ORT(t).Run or RunDir, which use the runner
// `check --runtime ort` ships.
func ORTRunner(t testing.TB) string {
	t.Helper()
	_, runner, err := ortinstall.FindRunner("")
	if err != nil {
		t.Skipf("skipping: %v", err)
	}
	return runner
}

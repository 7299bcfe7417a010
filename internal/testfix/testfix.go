// Package testfix locates the shared reference fixtures and tools that some
// tests use. Those tests skip, with a message saying what is missing, when
// the fixtures are not checked out beside the repository.
package testfix

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// RepoRoot is the module's root folder.
func RepoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

// SharedDir returns ../shared beside the repository (or $MODELBRIDGE_SHARED).
func SharedDir() string {
	if d := os.Getenv("MODELBRIDGE_SHARED"); d != "" {
		return d
	}
	return filepath.Join(RepoRoot(), "..", "shared")
}

// Fixtures returns the shared fixtures folder, or skips the test.
func Fixtures(t testing.TB) string {
	t.Helper()
	d := filepath.Join(SharedDir(), "fixtures")
	if st, err := os.Stat(d); err != nil || !st.IsDir() {
		t.Skipf("skipping: reference fixtures not found at %s (check out ../shared beside the repository or set MODELBRIDGE_SHARED)", d)
	}
	return d
}

// ORTRunner returns the path of the ONNX Runtime node runner (run.js) from
// $MODELBRIDGE_ORT_DIR (default /tmp/ort) with its node_modules installed,
// or skips the test.
func ORTRunner(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("MODELBRIDGE_ORT_DIR")
	if dir == "" {
		dir = "/tmp/ort"
	}
	run := filepath.Join(dir, "run.js")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "onnxruntime-node")); err != nil {
		t.Skipf("skipping: ONNX Runtime not installed in %s (run ORT_TOOL_DIR=%s sh ../shared/tools/ort/install.sh, or set MODELBRIDGE_ORT_DIR)", dir, dir)
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("skipping: node not on PATH, needed to run ONNX Runtime")
	}
	return run
}

// Package testfix locates the shared reference fixtures and the outside
// runtimes that some tests use: Fixtures (../shared/fixtures), ORT (ONNX
// Runtime, package internal/runtimes/ort) and Torch (PyTorch 1.13 at
// /usr/bin/python3). Each skips the test, saying what is missing and how to
// install it, when its part is absent. Package testfix/torchtrace traces
// modules in PyTorch and compares their import with PyTorch's outputs.
package testfix

import (
	"os"
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

// Package testfix locates the shared reference fixtures and tools that some
// tests use. Those tests skip, with a message saying what is missing, when
// the fixtures are not checked out beside the repository.
package testfix

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/modelbridge/modelbridge/internal/ortinstall"
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

// ORTRunner returns the path of the ONNX Runtime node runner (run.js) of
// the install ortinstall finds, or skips the test saying what is missing.
func ORTRunner(t testing.TB) string {
	t.Helper()
	_, runner, err := ortinstall.FindRunner("")
	if err != nil {
		t.Skipf("skipping: %v", err)
	}
	return runner
}

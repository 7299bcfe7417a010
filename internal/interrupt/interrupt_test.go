package interrupt

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TempDir's folder is tracked until removed; Track's release stops the
// tracking. (Cleanup itself, which exits with the registries locked, is
// exercised through the command in robust's interrupt test.)
func TestTrackAndRelease(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	dir, remove, err := TempDir("modelbridge-test-")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(filepath.Base(dir), "modelbridge-test-") {
		t.Errorf("folder %s lacks its prefix", dir)
	}
	inner := filepath.Join(dir, "f")
	release := Track(inner, "out.onnx")
	if !insideAnotherLocked(inner) {
		t.Errorf("%s is not seen as inside the tracked folder", inner)
	}
	release()
	remove()
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("remove left %s: %v", dir, err)
	}
	mu.Lock()
	n := len(paths)
	mu.Unlock()
	if n != 0 {
		t.Errorf("%d paths still tracked after release", n)
	}
}

func insideAnotherLocked(p string) bool {
	mu.Lock()
	defer mu.Unlock()
	return insideAnother(p)
}

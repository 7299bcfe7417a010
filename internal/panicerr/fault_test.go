package panicerr_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/internal/mmapfile"
	"github.com/modelbridge/modelbridge/internal/panicerr"
)

// Reading a mapped file that was truncated under us faults (SIGBUS);
// Guard turns that into an error naming the file instead of a crash.
func TestGuardTurnsTruncatedMappingIntoError(t *testing.T) {
	path := filepath.Join(t.TempDir(), "weights.bin")
	if err := os.WriteFile(path, make([]byte, 4*mmapfile.MinMapped), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := mmapfile.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if err := os.Truncate(path, 0); err != nil {
		t.Fatal(err)
	}
	var sum byte
	err = panicerr.Guard(path, func() error {
		for i := 0; i < len(m.Data); i += 4096 {
			sum += m.Data[i]
		}
		return nil
	})
	if err == nil {
		t.Skip("the mapping did not fault (the file is not mapped on this system)")
	}
	if msg := err.Error(); !strings.Contains(msg, path) || !strings.Contains(msg, "changed while it was read") || strings.Contains(msg, "internal error") {
		t.Errorf("error = %q", msg)
	}
}

func TestGuardPassesOtherPanicsOn(t *testing.T) {
	defer func() {
		if r := recover(); r != "boom" {
			t.Errorf("recovered %v, want the original panic", r)
		}
	}()
	panicerr.Guard("x", func() error { panic("boom") })
}

package npy

import (
	"bytes"
	"os"
	"testing"

	"github.com/modelbridge/modelbridge/internal/testfix/readcheck"
)

// FuzzRead decodes arbitrary bytes as an .npy file: errors are fine, a
// panic or a tensor bigger than the file is not.
func FuzzRead(f *testing.F) {
	for _, name := range []string{"f32_3x4.npy", "i64_be.npy", "scalar_f64.npy"} {
		b, err := os.ReadFile("testdata/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		tt, err := Read(bytes.NewReader(b), int64(len(b)))
		readcheck.CheckError(t, err)
		if err != nil {
			return
		}
		if len(tt.Data) > len(b) {
			t.Fatalf("a %d-byte file gave %d bytes of data", len(b), len(tt.Data))
		}
		if err := tt.CheckData(); err != nil {
			t.Fatalf("tensor read without error is inconsistent: %v", err)
		}
	})
}

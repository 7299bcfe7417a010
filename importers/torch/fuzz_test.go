package torchimport

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/testfix/readcheck"
)

// FuzzReadFile reads arbitrary bytes as a PyTorch file through Read: zip
// archives (state dicts and TorchScript) and legacy pickle files. Seeds are
// the shared fixtures; without them the fuzzer starts from a tiny legacy
// header and an empty zip.
func FuzzReadFile(f *testing.F) {
	f.Add([]byte("\x80\x02\x8a\x0al\xfc\x9cF\xf9 j\xa8P\x19.\x80\x02M\xe9\x03."))
	f.Add([]byte("PK\x05\x06\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"))
	for _, b := range readcheck.Seeds(32<<10, "torch/tiny_convnet/*.pt", "torch-files/gopickle/*", "torch-files/burn/*") {
		f.Add(b)
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		p := filepath.Join(dir, "fuzz.pt")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		g, err := Read(p, formats.ReadOptions{})
		readcheck.CheckError(t, err)
		if err == nil {
			readcheck.CheckGraph(t, g, len(b))
			g.Close()
		}
	})
}

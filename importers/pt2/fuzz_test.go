package pt2

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/testfix/readcheck"
)

// FuzzRead reads arbitrary bytes as a .pt2 archive. Seeds are the
// synthetic program, the control-flow archives of testdata/higher_order
// and, when the shared fixtures are present, PyTorch 2.6's own exported
// programs.
func FuzzRead(f *testing.F) {
	f.Add(synthArchive(f, nil))
	f.Add(pt2Archive(f, [2]any{programEntry, []byte(`{"schema_version": {"major": 8, "minor": 2}}`)}))
	for _, b := range readcheck.Seeds(64<<10, "torch2/tiny_convnet/*.pt2", "torch2/deconv_net/*.pt2") {
		f.Add(b)
	}
	hops, _ := filepath.Glob(filepath.Join("testdata", "higher_order", "*", "exported.pt2"))
	for _, p := range hops {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		p := filepath.Join(dir, "fuzz.pt2")
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

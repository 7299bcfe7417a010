package pt2

import (
	"path/filepath"
	"testing"

	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/testfix"
)

// BenchmarkRead reads PyTorch 2.6's dynamic tiny_convnet program (or the
// synthetic one without the shared fixtures).
func BenchmarkRead(b *testing.B) {
	p := filepath.Join(testfix.SharedDir(), "fixtures", "torch2", "tiny_convnet", "exported_dynamic.pt2")
	if !Probe(p) {
		p = writeTemp(b, synthArchive(b, nil))
	}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		g, err := Read(p, formats.ReadOptions{})
		if err != nil {
			b.Fatal(err)
		}
		g.Close()
	}
}

package torchscript

import (
	"archive/zip"
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/robust"
)

// FuzzCode imports the traced tiny_convnet fixture with its top-level
// code/__torch__.py replaced by arbitrary text, so that the lexer, parser
// and evaluator of TorchScript source see hostile input through the real
// import path. It needs the shared fixtures for the archive around the code.
func FuzzCode(f *testing.F) {
	seeds := robust.Seeds(64<<10, "torch/tiny_convnet/traced.pt")
	if len(seeds) == 0 {
		f.Skip("skipping: shared fixtures not found (the code fuzzer needs torch/tiny_convnet/traced.pt)")
	}
	archive := seeds[0]
	zr, err := zip.NewReader(bytes.NewReader(archive), int64(len(archive)))
	if err != nil {
		f.Fatal(err)
	}
	entries := map[string][]byte{}
	var names []string
	target := ""
	for _, e := range zr.File {
		rc, err := e.Open()
		if err != nil {
			f.Fatal(err)
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			f.Fatal(err)
		}
		entries[e.Name], names = b, append(names, e.Name)
		if strings.HasSuffix(e.Name, "/code/__torch__.py") {
			target = e.Name
		}
	}
	if target == "" {
		f.Fatal("traced.pt has no code/__torch__.py")
	}
	f.Add(entries[target])
	f.Add([]byte("def forward(self, x):\n    return (((x)))\n"))
	f.Fuzz(func(t *testing.T, code []byte) {
		var buf bytes.Buffer
		zw := zip.NewWriter(&buf)
		for _, n := range names {
			w, err := zw.CreateHeader(&zip.FileHeader{Name: n, Method: zip.Store})
			if err != nil {
				t.Fatal(err)
			}
			if n == target {
				w.Write(code)
			} else {
				w.Write(entries[n])
			}
		}
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		b := buf.Bytes()
		zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			t.Fatal(err)
		}
		g, err := Read(zr, "fuzz.pt", formats.ReadOptions{})
		robust.CheckError(t, err)
		if err == nil {
			robust.CheckGraph(t, g, len(b))
			g.Close()
		}
	})
}

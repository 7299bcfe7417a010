package torchscript

import (
	"archive/zip"
	"bytes"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/testfix/readcheck"
)

// fuzzArchive is the traced tiny_convnet (made by torch.jit.trace, 22 KB)
// committed beside the corpus, so that the target runs on a fresh clone
// and a crasher replays in the same archive everywhere.
const fuzzArchive = "testdata/fuzz/tiny_convnet_traced.pt"

// FuzzCode imports the traced tiny_convnet archive with its top-level
// code/__torch__.py replaced by arbitrary text, so that the lexer, parser
// and evaluator of TorchScript source see hostile input through the real
// import path. Seeds: the archive's own code, the committed corpus, and the
// top-level code of the shared TorchScript fixtures when present.
func FuzzCode(f *testing.F) {
	archive, err := os.ReadFile(fuzzArchive)
	if err != nil {
		f.Fatal(err)
	}
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
	for _, b := range readcheck.Seeds(64<<10, "torch-files/torchscript/*.pt") {
		if code, ok := topLevelCode(b); ok {
			f.Add(code)
		}
	}
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
		g, err := Read(b, "fuzz.pt", formats.ReadOptions{})
		readcheck.CheckError(t, err)
		if err == nil {
			readcheck.CheckGraph(t, g, len(b))
			g.Close()
		}
	})
}

// topLevelCode returns the code/__torch__.py of a TorchScript archive.
func topLevelCode(archive []byte) ([]byte, bool) {
	zr, err := zip.NewReader(bytes.NewReader(archive), int64(len(archive)))
	if err != nil {
		return nil, false
	}
	for _, e := range zr.File {
		if strings.HasSuffix(e.Name, "/code/__torch__.py") {
			rc, err := e.Open()
			if err != nil {
				return nil, false
			}
			defer rc.Close()
			b, err := io.ReadAll(rc)
			return b, err == nil
		}
	}
	return nil, false
}

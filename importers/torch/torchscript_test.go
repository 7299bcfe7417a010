package torchimport

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/importers/torch/torchscript"
	"github.com/modelbridge/modelbridge/internal/mmapfile"
)

// TestTorchScriptPassedOn: a TorchScript archive given to this importer by
// name (--from torch) is read by the registered TorchScript importer; the
// state-dict reader only recognizes it.
func TestTorchScriptPassedOn(t *testing.T) {
	path := filepath.Join("torchscript", "testdata", "gelu.pt")
	g, imp, err := formats.Read(path, FormatName, formats.ReadOptions{InputShapes: map[string][]int64{"#0": {2, 4}}})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if imp.Name != FormatName || g.Meta.SourceFormat != torchscript.FormatName || len(g.Nodes) == 0 {
		t.Errorf("read by %s as %q with %d nodes; want the TorchScript graph", imp.Name, g.Meta.SourceFormat, len(g.Nodes))
	}
	m, err := mmapfile.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	_, err = read(path, m, formats.ReadOptions{})
	var ts *torchScriptError
	if !errors.As(err, &ts) || !strings.Contains(err.Error(), "is a TorchScript archive") {
		t.Errorf("state-dict reader on a TorchScript archive: %v", err)
	}
}

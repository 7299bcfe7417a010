package pt2

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/modelbridge/modelbridge/formats"
	torchimport "github.com/modelbridge/modelbridge/importers/torch"
	"github.com/modelbridge/modelbridge/internal/testfix"
)

// TestTorch2Fixtures checks, for every program PyTorch 2.6 exported
// (../shared/fixtures/torch2), that the format is recognized from the
// archive's entries, that the dynamic program's batch is the symbol s0
// with its range, and that the weights equal the model's state_dict.pt,
// which must import too.
func TestTorch2Fixtures(t *testing.T) {
	root := filepath.Join(testfix.Fixtures(t), "torch2")
	dirs, _ := filepath.Glob(filepath.Join(root, "*", "state_dict.pt"))
	if len(dirs) == 0 {
		t.Skipf("skipping: no torch2 fixtures under %s", root)
	}
	for _, sd := range dirs {
		dir := filepath.Dir(sd)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			ref, err := torchimport.Read(sd, formats.ReadOptions{})
			if err != nil {
				t.Fatalf("state_dict.pt: %v", err)
			}
			defer ref.Close()
			for _, file := range []string{"exported.pt2", "exported_dynamic.pt2"} {
				p := filepath.Join(dir, file)
				if !Probe(p) {
					t.Errorf("%s: Probe does not claim it", file)
				}
				if _, err := formats.FindImporter(p, ""); err != nil {
					t.Errorf("%s: %v", file, err)
				}
				data, err := os.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				a, err := openArchive(p, data)
				if err != nil {
					t.Fatal(err)
				}
				weights, err := readWeights(a)
				if err != nil {
					t.Fatal(err)
				}
				if len(weights) != len(ref.Initializers) {
					t.Errorf("%s holds %d weights, state_dict.pt %d", file, len(weights), len(ref.Initializers))
				}
				for _, r := range ref.Initializers {
					w, ok := weights[r.Name]
					if !ok || w.DType != r.DType || !equalShape(w.Shape, r.Shape) || !bytes.Equal(w.Data, r.Data) {
						t.Errorf("%s: weight %s differs from state_dict.pt", file, r.Name)
					}
				}
				ep, err := decodeProgram(a)
				if err != nil {
					t.Fatal(err)
				}
				if file == "exported_dynamic.pt2" {
					rc, ok := ep.RangeConstraints["s0"]
					if !ok || rc.MinVal.String() == "" {
						t.Errorf("no range for s0: %v", ep.RangeConstraints)
					}
				}
			}
		})
	}
}

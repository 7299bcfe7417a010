package tfliteimport_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/testfix"
)

// refusedFixtures are the shared files whose ops the importer refuses by
// name, with the words the refusal must contain.
var refusedFixtures = map[string]string{}

// TestFixturesImport reads every .tflite file in the shared fixtures: each
// validates and infers, holds Transposes only at its inputs and outputs,
// and the files with a refused op fail naming it.
func TestFixturesImport(t *testing.T) {
	dir := filepath.Join(testfix.Fixtures(t), "tflite")
	files, _ := filepath.Glob(filepath.Join(dir, "*.tflite"))
	more, _ := filepath.Glob(filepath.Join(dir, "*", "*.tflite"))
	files = append(files, more...)
	if len(files) == 0 {
		t.Skipf("skipping: no .tflite fixtures in %s", dir)
	}
	for _, f := range files {
		name := filepath.Base(f)
		t.Run(name, func(t *testing.T) {
			g, imp, err := formats.Read(f, "", formats.ReadOptions{})
			if want, refused := refusedFixtures[name]; refused {
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Fatalf("want a refusal containing %q, got %v", want, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer g.Close()
			if imp.Name != "tflite" || g.Meta.SourceFormat != "tflite" {
				t.Fatalf("read by %s as %s", imp.Name, g.Meta.SourceFormat)
			}
			if err := g.Infer(); err != nil {
				t.Fatal(err)
			}
			checkTransposesAtEdges(t, g)
		})
	}
}

// checkTransposesAtEdges fails when a Transpose reads no graph input and
// writes no graph output: the NHWC-to-NCHW move leaves none inside.
func checkTransposesAtEdges(t *testing.T, g *canon.Graph) {
	t.Helper()
	edge := map[string]bool{}
	for _, v := range g.Inputs {
		edge[v.Name] = true
	}
	for _, v := range g.Outputs {
		edge[v.Name] = true
	}
	for _, n := range g.Nodes {
		if n.Op.Kind() == "Transpose" && !edge[n.Inputs[0]] && !edge[n.Outputs[0]] {
			t.Errorf("Transpose %s (%s -> %s) is inside the graph", n.Name, n.Inputs[0], n.Outputs[0])
		}
	}
}

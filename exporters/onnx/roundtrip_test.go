package onnxexport

import (
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	onnximport "github.com/modelbridge/modelbridge/importers/onnx"
	"github.com/modelbridge/modelbridge/internal/testfix"
)

// fixtureModel is one model.onnx from the shared fixtures.
type fixtureModel struct {
	name  string // "torch/tiny_convnet", "onnx-node/test_add"
	path  string
	torch bool
}

func fixtureModels(t testing.TB) []fixtureModel {
	root := testfix.Fixtures(t)
	var out []fixtureModel
	for _, kind := range []string{"torch", "onnx-node"} {
		paths, _ := filepath.Glob(filepath.Join(root, kind, "*", "model.onnx"))
		sort.Strings(paths)
		for _, p := range paths {
			out = append(out, fixtureModel{name: kind + "/" + filepath.Base(filepath.Dir(p)), path: p, torch: kind == "torch"})
		}
	}
	if len(out) == 0 {
		t.Fatalf("no model.onnx under %s", root)
	}
	return out
}

// isRefusal reports whether err is the exporter declining an op the target
// opset cannot express (as opposed to a bug).
func isRefusal(err error) bool {
	return err != nil && (strings.Contains(err.Error(), "needs ONNX opset") || strings.Contains(err.Error(), "exists only in opsets"))
}

// TestRoundTrip imports each fixture, writes it, imports the result and
// requires the identical canonical graph (bit-exact weights) whenever the
// target opset expresses every op one to one.
func TestRoundTrip(t *testing.T) {
	models := fixtureModels(t)
	type variant struct {
		opset int
		ext   bool
	}
	variants := []variant{{13, false}, {13, true}, {11, false}, {17, false}}
	var imported, equal, expanded, refused, failed, skipped int
	for _, m := range models {
		g1, err := onnximport.Read(m.path, formats.ReadOptions{})
		if err != nil {
			skipped++
			t.Logf("skip %s: import: %v", m.name, err)
			continue
		}
		imported++
		for _, v := range variants {
			dir := t.TempDir()
			out := filepath.Join(dir, "model.onnx")
			info, err := write(g1, out, formats.WriteOptions{Opset: v.opset, ExternalData: v.ext})
			if isRefusal(err) {
				refused++
				t.Logf("%s opset %d: refused: %v", m.name, v.opset, err)
				if _, serr := os.Stat(out); serr == nil {
					t.Errorf("%s: refused write left %s", m.name, out)
				}
				continue
			}
			if err != nil {
				failed++
				t.Errorf("%s opset %d: write: %v", m.name, v.opset, err)
				continue
			}
			if v.ext {
				if _, err := os.Stat(out + ".data"); err != nil && hasLargeTensor(g1) {
					t.Errorf("%s: no external data file: %v", m.name, err)
				}
			}
			g2, err := onnximport.Read(out, formats.ReadOptions{})
			if err != nil {
				failed++
				t.Errorf("%s opset %d ext=%v: re-import: %v", m.name, v.opset, v.ext, err)
				continue
			}
			if info.expanded {
				// Several ONNX nodes stand for one canonical op here; ONNX
				// Runtime checks that they compute the same (TestORT).
				expanded++
			} else if err := canon.Equal(merged(g1), g2); err != nil {
				failed++
				t.Errorf("%s opset %d ext=%v: re-imported graph differs: %v", m.name, v.opset, v.ext, err)
			} else {
				equal++
			}
			g2.Close()
		}
		g1.Close()
	}
	t.Logf("round trip: %d models imported (%d did not import), %d identical, %d expanded (checked by ONNX Runtime), %d refused by opset, %d failed",
		imported, skipped, equal, expanded, refused, failed)
}

func hasLargeTensor(g *canon.Graph) bool {
	for _, t := range g.Initializers {
		if len(t.Data) > externalMin {
			return true
		}
	}
	return false
}

// TestRoundTripAllOps writes the every-op graph at each opset and reads it
// back; a variant without the ops that some opsets expand must come back
// identical at every opset.
func TestRoundTripAllOps(t *testing.T) {
	for _, plain := range []bool{false, true} {
		for opset := MinOpset; opset <= MaxOpset; opset++ {
			g := allOpsGraph()
			if plain {
				for _, n := range g.Nodes {
					switch op := n.Op.(type) {
					case *canon.Unary:
						if op.Fn == canon.HardSwish {
							n.Op = &canon.Unary{Fn: canon.Relu}
						}
					case *canon.Softmax:
						op.Axis = 3
					case *canon.ShapeOf:
						op.Start, op.End = 0, math.MaxInt64
					}
				}
			}
			// Completes the output declarations, as every importer does.
			if err := g.Infer(); err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(t.TempDir(), "all.onnx")
			info, err := write(g, p, formats.WriteOptions{Opset: opset})
			if err != nil {
				t.Fatalf("opset %d: %v", opset, err)
			}
			if plain && info.expanded {
				t.Errorf("opset %d: plain graph expanded", opset)
			}
			g2, err := onnximport.Read(p, formats.ReadOptions{})
			if err != nil {
				t.Errorf("opset %d: re-import: %v", opset, err)
				continue
			}
			if !info.expanded {
				if err := canon.Equal(g, g2); err != nil {
					t.Errorf("opset %d (plain %v): re-imported graph differs: %v", opset, plain, err)
				}
			}
			g2.Close()
		}
	}
}

// merged is g as the exporter writes it: a weight shared under several
// names is one initializer, read under its first name.
func merged(g *canon.Graph) *canon.Graph {
	m, _ := canon.MergeShared(g)
	return m
}

package torchscript

import (
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/testfix/torchtrace"
)

// This package's shorthands for package torchtrace, which traces a PyTorch
// 1.13 script (defining M and xs) and compares the import with PyTorch.

// traceAndCompare checks every output of the traced module against
// PyTorch's at rtol 1e-5, atol 1e-6.
func traceAndCompare(t *testing.T, script string) {
	t.Helper()
	traceAndCompareWithin(t, script, 1e-5, 1e-6)
}

// traceAndCompareWithin is traceAndCompare at the given tolerance; it
// returns the imported graph (closed when the test ends).
func traceAndCompareWithin(t *testing.T, script string, rtol, atol float64) *canon.Graph {
	t.Helper()
	return torchtrace.Trace(t, script).Compare(t, ReadFile, rtol, atol)
}

// traceAndCompareORT is traceAndCompareWithin followed by the same check of
// the graph exported to ONNX and run in ONNX Runtime (skipped without it).
func traceAndCompareORT(t *testing.T, script string, rtol, atol float64) {
	t.Helper()
	m := torchtrace.Trace(t, script)
	g := m.Compare(t, ReadFile, rtol, atol)
	if t.Failed() {
		return
	}
	m.CompareORT(t, g, formats.WriteOptions{}, rtol, atol)
}

// trace traces the script and returns its folder and output count.
func trace(t *testing.T, script string) (string, int) {
	t.Helper()
	m := torchtrace.Trace(t, script)
	return m.Dir, len(m.Outputs)
}

// readTraced imports the module traced into dir, with its inputs' shapes.
func readTraced(t *testing.T, dir string) (*canon.Graph, []*canon.Tensor, error) {
	t.Helper()
	m := torchtrace.Load(t, dir)
	g, err := m.Import(ReadFile)
	return g, m.Inputs, err
}

// compareTraced is torchtrace's Compare of the module traced into dir,
// which must have nOut outputs.
func compareTraced(t *testing.T, dir string, nOut int, rtol, atol float64) *canon.Graph {
	t.Helper()
	m := torchtrace.Load(t, dir)
	if len(m.Outputs) != nOut {
		t.Fatalf("PyTorch gives %d outputs, want %d", len(m.Outputs), nOut)
	}
	return m.Compare(t, ReadFile, rtol, atol)
}

// compareTracedORT is torchtrace's CompareORT of g, the import of the
// module traced into dir, written with opts.
func compareTracedORT(t *testing.T, g *canon.Graph, dir string, opts formats.WriteOptions, rtol, atol float64) {
	t.Helper()
	torchtrace.Load(t, dir).CompareORT(t, g, opts, rtol, atol)
}

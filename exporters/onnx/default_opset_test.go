package onnxexport

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
)

// TestDefaultOpsetRaisedForTheModel: without an opset the exporter writes
// DefaultOpset when it expresses the model, else the lowest newer opset
// that does, and says so in Notes; an opset asked for is kept (and refused
// when it cannot express the model).
func TestDefaultOpsetRaisedForTheModel(t *testing.T) {
	dilated := &canon.AveragePool{Kernel: []int64{2, 2}, Strides: []int64{1, 1}, Dilations: []int64{2, 2}, PadsBegin: []int64{0, 0}, PadsEnd: []int64{0, 0}}
	dir := t.TempDir()
	for _, c := range []struct {
		name  string
		op    canon.Op
		opset int64
		note  string
	}{
		{"relu", &canon.Unary{Fn: canon.Relu}, DefaultOpset, ""},
		{"dilated average pool", dilated, 19, "writing ONNX opset 19, the lowest newer than the default 13"},
	} {
		var notes strings.Builder
		p := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_")+".onnx")
		if err := Write(smallGraph(c.op), p, formats.WriteOptions{Notes: &notes}); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if _, opset := readHeader(t, p); opset != c.opset {
			t.Errorf("%s: written at opset %d, want %d", c.name, opset, c.opset)
		}
		if got := notes.String(); (c.note == "") != (got == "") || !strings.Contains(got, c.note) {
			t.Errorf("%s: notes %q, want %q", c.name, got, c.note)
		}
	}
	err := Write(smallGraph(dilated), filepath.Join(dir, "asked.onnx"), formats.WriteOptions{Opset: 17})
	if err == nil || !strings.Contains(err.Error(), "needs ONNX opset 19") {
		t.Errorf("--opset 17 on a dilated average pool: %v, want the refusal", err)
	}
}

package torchscript

import "testing"

// TestAtenRegistryTable: the embedded registry parses, holds torch.onnx's
// 345 operators once each, and derives handlers from the op table.
func TestAtenRegistryTable(t *testing.T) {
	ops, err := AtenRegistry()
	if err != nil {
		t.Fatal(err)
	}
	if len(ops) != 345 {
		t.Errorf("%d operators, want the 345 of PyTorch 1.13's torch.onnx registry at opset 17", len(ops))
	}
	byName := map[string]AtenOp{}
	for _, o := range ops {
		if _, dup := byName[o.Name]; dup {
			t.Errorf("%s is listed twice", o.Name)
		}
		byName[o.Name] = o
		if (len(o.Traced) == 0) == (o.NotTraced == "") {
			t.Errorf("%s: want traced operators or a reason why none, have %v and %q", o.Name, o.Traced, o.NotTraced)
		}
		for _, k := range o.Missing {
			if _, ok := opTable["torch."+k]; ok {
				t.Errorf("%s: %s is called missing but has a handler", o.Name, k)
			}
		}
	}
	if o := byName["relu"]; !o.Handled() {
		t.Errorf("relu: want handled, have %+v", o)
	}
	if o := byName["Delete"]; !o.Handled() {
		t.Errorf("Delete (a scripting statement, recorded by a scripted module): want handled, have %+v", o)
	}
	if o := byName["scan"]; o.Handled() || o.NotTraced == "" {
		t.Errorf("scan (a helper of the ONNX exporter): want a reason it is never recorded, have %+v", o)
	}
}

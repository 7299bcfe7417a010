package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// `ops --aten` lists torch.onnx's operators with the TorchScript importer's
// handlers, and says why an operator has none.
func TestOpsAten(t *testing.T) {
	code, out, errOut := cli(t, "ops", "--aten")
	if code != 0 {
		t.Fatalf("ops --aten: exit %d: %s", code, errOut)
	}
	for _, want := range []string{"relu ", "never traced alone: helper of the ONNX exporter", "refused: it draws from a gamma distribution", "345 of torch.onnx's aten operators"} {
		if !strings.Contains(out, want) {
			t.Errorf("ops --aten does not say %q:\n%s", want, out)
		}
	}
	code, out, errOut = cli(t, "ops", "--aten", "--json", "aten::relu", "scan")
	if code != 0 {
		t.Fatalf("ops --aten --json: exit %d: %s", code, errOut)
	}
	var ops []struct {
		Op        string   `json:"op"`
		Traced    []string `json:"traced"`
		NotTraced string   `json:"not_traced"`
	}
	if err := json.Unmarshal([]byte(out), &ops); err != nil {
		t.Fatalf("ops --aten --json: %v\n%s", err, out)
	}
	if len(ops) != 2 || ops[0].Op != "relu" || len(ops[0].Traced) == 0 || ops[1].NotTraced == "" {
		t.Errorf("ops --aten --json relu scan: %+v", ops)
	}
	code, _, errOut = cli(t, "ops", "--aten", "no_such_op")
	if code != 2 || !strings.Contains(errOut, "no_such_op is not an operator of torch.onnx's registry") {
		t.Errorf("ops --aten no_such_op: exit %d, %q; want a usage error naming it", code, errOut)
	}
}

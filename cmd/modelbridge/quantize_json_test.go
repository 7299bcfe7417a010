package main

import (
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// optimize --quantize --json carries the quantization report in the
// document (stdout) and nothing on stderr but progress.
func TestOptimizeQuantizeJSON(t *testing.T) {
	calib := calibrationDir(t, 8)
	out := filepath.Join(t.TempDir(), "q.onnx")
	code, stdout, stderr := cli(t, "optimize", tinyModel, out, "--quantize", "int8", "--calibrate", calib, "--keep-float", "Linear", "--min-sqnr", "10", "--json")
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	if strings.Contains(stderr, "SQNR") || strings.Contains(stderr, "quantized (") {
		t.Errorf("the quantization report went to stderr:\n%s", stderr)
	}
	var doc struct {
		Written  bool `json:"written"`
		Quantize *struct {
			Report struct {
				Mode      string         `json:"mode"`
				Quantized map[string]int `json:"quantized"`
			} `json:"report"`
			KeptFloat []keptFloatClass `json:"kept_float_reasons"`
			HeldOut   int              `json:"heldout_samples"`
			Outputs   []struct {
				Name   string   `json:"name"`
				SQNR   *float64 `json:"sqnr_db"`
				MaxAbs float64  `json:"max_abs_error"`
			} `json:"outputs"`
			MinSQNR *float64 `json:"min_sqnr_db"`
			Nodes   int      `json:"nodes"`
		} `json:"quantize"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	q := doc.Quantize
	if !doc.Written || q == nil {
		t.Fatalf("no quantize object:\n%s", stdout)
	}
	if q.Report.Mode != "static" || q.Report.Quantized["Conv"] != 1 || q.Report.Quantized["Linear"] != 0 {
		t.Errorf("report %+v", q.Report)
	}
	if len(q.KeptFloat) != 1 || q.KeptFloat[0].Class != "Linear" || !strings.Contains(q.KeptFloat[0].Reason, "--keep-float") {
		t.Errorf("kept float %+v", q.KeptFloat)
	}
	if q.HeldOut != 2 || len(q.Outputs) != 1 || q.Outputs[0].Name != "logits" || q.Outputs[0].SQNR == nil || *q.Outputs[0].SQNR < 25 || q.Outputs[0].MaxAbs <= 0 {
		t.Errorf("outputs %+v (held out %d)", q.Outputs, q.HeldOut)
	}
	if q.MinSQNR == nil || *q.MinSQNR != 10 || q.Nodes <= 10 {
		t.Errorf("min_sqnr_db %v, nodes %d", q.MinSQNR, q.Nodes)
	}
}

// The text summary describes the written quantized model: no claim that
// its outputs match the original, and its own node count.
func TestOptimizeQuantizeSummary(t *testing.T) {
	calib := calibrationDir(t, 8)
	out := filepath.Join(t.TempDir(), "q.onnx")
	code, stdout, stderr := cli(t, "optimize", tinyModel, out, "--quantize", "int8", "--calibrate", calib)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	if strings.Contains(stdout, "verified: outputs match the original") {
		t.Errorf("claims the quantized model matches the original:\n%s", stdout)
	}
	for _, want := range []string{"float passes on", "quantized model measured against the float one on 2 held-out input sets: lowest output SQNR", "not modelled for int8"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("no %q in\n%s", want, stdout)
		}
	}
	code, jsonOut, _ := cli(t, "inspect", out, "--json")
	var info struct {
		Nodes int `json:"nodes"`
	}
	if code != 0 || json.Unmarshal([]byte(jsonOut), &info) != nil {
		t.Fatalf("inspect: exit %d\n%s", code, jsonOut)
	}
	if want := "wrote " + out + " (onnx, " + strconv.Itoa(info.Nodes) + " nodes"; !strings.Contains(stdout, want) {
		t.Errorf("no %q in\n%s", want, stdout)
	}
}

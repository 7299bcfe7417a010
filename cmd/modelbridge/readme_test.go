package main

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// The README says where ../shared comes from, which Go version builds the
// project (the one go.mod names), and how to get ONNX Runtime and PyTorch
// for the full test run.
func TestReadmeSaysWhatTheFullTestRunNeeds(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	mod, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^go (\d+\.\d+)`).FindSubmatch(mod)
	if m == nil {
		t.Fatal("go.mod names no go version")
	}
	text := string(readme)
	for _, want := range []string{
		"Go " + string(m[1]),                    // the Go version go.mod requires
		"`../shared` is the reference material", // where ../shared comes from
		"MODELBRIDGE_SHARED",
		"reference fixtures not found", // what a skip says without it
		"sh ../shared/tools/ort/install.sh",
		"MODELBRIDGE_ORT_DIR",
		"python3-torch",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("README.md does not say %q", want)
		}
	}
}

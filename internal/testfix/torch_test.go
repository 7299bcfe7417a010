package testfix

import (
	"strings"
	"testing"
)

// A module Python lacks is named in the error, with how to install PyTorch;
// the answer is kept for the next ask.
func TestPythonImportsNamesWhatIsMissing(t *testing.T) {
	const missing = "modelbridge_no_such_module"
	err := PythonImports(missing)
	if err == nil || !strings.Contains(err.Error(), "torch, "+missing) || !strings.Contains(err.Error(), "apt-get install python3-torch") {
		t.Fatalf("PythonImports(%s): %v", missing, err)
	}
	if again := PythonImports(missing); again != err {
		t.Errorf("second ask gave %v, want the kept %v", again, err)
	}
}

func TestTorchVersion(t *testing.T) {
	if v := TorchVersion(t); !strings.Contains(v, ".") {
		t.Fatalf("TorchVersion = %q", v)
	}
}

package testfix

import (
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"testing"
)

// Python is the interpreter that has PyTorch 1.13 (and numpy, onnx,
// torchvision) on the machines that run these tests; the python3 first on
// PATH may lack them.
const Python = "/usr/bin/python3"

// probe is what one try of importing a set of modules found.
type probe struct {
	torchVersion string
	err          error
}

var (
	probeMu sync.Mutex
	probed  = map[string]probe{}
)

// PythonImports reports whether Python can import torch and the other
// modules named ("numpy", "onnx", "torchvision"): nil when it can, else an
// error saying what failed and how to install it. Each set of modules is
// tried once per test binary.
func PythonImports(modules ...string) error {
	mods := append([]string{"torch"}, modules...)
	key := strings.Join(mods, ", ")
	probeMu.Lock()
	defer probeMu.Unlock()
	return probeImports(key).err
}

// probeImports tries the import once per key; the caller holds probeMu.
func probeImports(key string) probe {
	if p, ok := probed[key]; ok {
		return p
	}
	var p probe
	out, runErr := exec.Command(Python, "-c", "import "+key+"; print(torch.__version__)").CombinedOutput()
	if runErr != nil {
		why := strings.TrimSpace(string(out))
		if i := strings.LastIndexByte(why, '\n'); i >= 0 {
			why = why[i+1:]
		}
		if why == "" {
			why = runErr.Error()
		}
		p.err = fmt.Errorf("%s cannot import %s (%s); install PyTorch 1.13 there with `apt-get install python3-torch python3-numpy python3-onnx python3-torchvision`", Python, key, why)
	} else if fields := strings.Fields(string(out)); len(fields) > 0 {
		p.torchVersion = fields[len(fields)-1]
	}
	probed[key] = p
	return p
}

// TorchVersion is the version of PyTorch that Python imports ("1.13.1"),
// or skips the test when it cannot import torch.
func TorchVersion(t testing.TB) string {
	t.Helper()
	Torch(t)
	probeMu.Lock()
	defer probeMu.Unlock()
	return probeImports("torch").torchVersion
}

// Torch returns Python when it can import torch and the other modules
// named, or skips the test saying what is missing.
func Torch(t testing.TB, modules ...string) string {
	t.Helper()
	if err := PythonImports(modules...); err != nil {
		t.Skipf("skipping: %v", err)
	}
	return Python
}

// Package ortinstall locates ONNX Runtime's Node.js binding
// (onnxruntime-node, with onnx-proto), as installed by
// `ORT_TOOL_DIR=DIR sh ../shared/tools/ort/install.sh`, and runs node
// scripts against it; package internal/runtimes/ort runs models with it. It is the one place that knows where the install is
// and what a missing install is told to do.
package ortinstall

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// DirEnv names the folder of the install when no folder is given.
const DirEnv = "MODELBRIDGE_ORT_DIR"

// DefaultDir is the install's folder when neither an argument nor $DirEnv
// names one.
const DefaultDir = "/tmp/ort"

// Modules are the node packages the runner script requires.
var Modules = []string{"onnxruntime-node", "onnx-proto"}

// Install is a usable install: node on PATH and every module present.
type Install struct {
	// Dir holds node_modules.
	Dir string
	// Node is the node executable found on PATH.
	Node string
	// Version is onnxruntime-node's version ("1.30.0").
	Version string
}

// MissingError says why ONNX Runtime cannot run and how to install it.
type MissingError struct {
	Why     string
	Install string
}

func (e *MissingError) Error() string {
	return fmt.Sprintf("ONNX Runtime is not available: %s; %s", e.Why, e.Install)
}

// Dir is dir, else $MODELBRIDGE_ORT_DIR, else DefaultDir.
func Dir(dir string) string {
	if dir != "" {
		return dir
	}
	if d := os.Getenv(DirEnv); d != "" {
		return d
	}
	return DefaultDir
}

// InstallHint is the command that installs ONNX Runtime into dir.
func InstallHint(dir string) string {
	return fmt.Sprintf("install it with `ORT_TOOL_DIR=%s sh ../shared/tools/ort/install.sh` (needs node and npm), or point %s at an install", dir, DirEnv)
}

// Find locates the install in Dir(dir) and node on PATH; a *MissingError
// says what is missing and how to install it.
func Find(dir string) (*Install, error) {
	dir = Dir(dir)
	node, err := exec.LookPath("node")
	if err != nil {
		return nil, &MissingError{Why: "node is not on PATH", Install: "install Node.js (apt-get install nodejs npm), then " + InstallHint(dir)}
	}
	if missing := MissingModules(dir); len(missing) > 0 {
		return nil, &MissingError{Why: fmt.Sprintf("%s has no %s", dir, strings.Join(missing, ", ")), Install: InstallHint(dir)}
	}
	version, err := ReadVersion(dir)
	if err != nil {
		return nil, &MissingError{Why: err.Error(), Install: InstallHint(dir)}
	}
	return &Install{Dir: dir, Node: node, Version: version}, nil
}

// MissingModules lists the Modules dir's node_modules lacks, as
// "node_modules/NAME".
func MissingModules(dir string) []string {
	var missing []string
	for _, m := range Modules {
		p := filepath.Join("node_modules", m)
		if st, err := os.Stat(filepath.Join(dir, p)); err != nil || !st.IsDir() {
			missing = append(missing, p)
		}
	}
	return missing
}

// ReadVersion reads onnxruntime-node's version from its package.json in dir.
func ReadVersion(dir string) (string, error) {
	pkg := filepath.Join(dir, "node_modules", "onnxruntime-node", "package.json")
	b, err := os.ReadFile(pkg)
	if err != nil {
		return "", err
	}
	var meta struct {
		Version string `json:"version"`
	}
	if err := json.Unmarshal(b, &meta); err != nil {
		return "", fmt.Errorf("%s: %v", pkg, err)
	}
	if meta.Version == "" {
		return "", fmt.Errorf("%s names no version", pkg)
	}
	return meta.Version, nil
}

// Command runs a node script with $ORT_DIR set to the install's folder,
// where scripts outside it find node_modules.
func (in *Install) Command(script string, args ...string) *exec.Cmd {
	c := exec.Command(in.Node, append([]string{script}, args...)...)
	c.Env = append(os.Environ(), "ORT_DIR="+in.Dir)
	return c
}

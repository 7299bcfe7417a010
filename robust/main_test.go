// Package robust is the damaged-files corpus test: it runs every importer
// over truncated, bit-flipped, absurdly sized and deeply nested files made
// from real fixtures. It holds tests only; the checks it shares with the
// readers' fuzz targets are in internal/testfix/readcheck.
package robust

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/modelbridge/modelbridge/internal/testfix"
)

// modelbridgeBin is the modelbridge command built once for the corpus test, so
// that damaged files go through exactly what a user runs.
var modelbridgeBin string

func TestMain(m *testing.M) {
	if file := os.Getenv(rssRunnerEnv); file != "" {
		rssRunner(file)
	}
	// MODELBRIDGE_BIN runs the corpus against a given binary (a release, or
	// an older build to see which cases it fails).
	if bin := os.Getenv("MODELBRIDGE_BIN"); bin != "" {
		modelbridgeBin = bin
		os.Exit(m.Run())
	}
	dir, err := os.MkdirTemp("", "modelbridge-robust-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	modelbridgeBin = filepath.Join(dir, "modelbridge")
	build := exec.Command("go", "build", "-o", modelbridgeBin, "./cmd/modelbridge")
	build.Dir = testfix.RepoRoot()
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building modelbridge: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

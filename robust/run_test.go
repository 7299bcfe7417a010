package robust

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// precious is what the output file holds before each run: a failed
// conversion must leave it exactly so.
var precious = []byte("an existing file the conversion must not damage")

// Limits on one run of the command over a damaged file.
const (
	runTimeout = 60 * time.Second
	// maxRSS bounds the peak resident memory of one run: the fixtures
	// are a few hundred KB, so anything near this means an allocation
	// driven by a declared size.
	maxRSS = 512 << 20
)

// companion is a file written beside the damaged one (an MXNet symbol's
// params, an ONNX model's data file).
type companion struct {
	name string
	data []byte
}

// convertDamaged writes the damaged file (as name, with its companions) to
// a fresh folder and runs `modelbridge convert` on it, then checks the
// outcome: success with an output, or a one-line error naming the file,
// with the existing output untouched and no temporary files left; never a
// panic, a hang or a huge allocation. It returns the error line.
func convertDamaged(t *testing.T, name string, data []byte, companions ...companion) string {
	t.Helper()
	dir := t.TempDir()
	inDir, outDir := filepath.Join(dir, "in"), filepath.Join(dir, "out")
	for _, d := range []string{inDir, outDir} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	in := filepath.Join(inDir, name)
	if err := os.WriteFile(in, data, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range companions {
		if err := os.WriteFile(filepath.Join(inDir, c.name), c.data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(outDir, "out.onnx")
	if err := os.WriteFile(out, precious, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, modelbridgeBin, "convert", "--quiet", in, out)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("%s: still running after %v (a hang)", name, runTimeout)
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok && ru.Maxrss*1024 > maxRSS {
		t.Errorf("%s: peak memory %d MB (limit %d MB)", name, ru.Maxrss>>10, maxRSS>>20)
	}
	msg := stderr.String()
	for _, bad := range []string{"panic", "goroutine ", "internal error", "fatal error"} {
		if strings.Contains(msg, bad) {
			t.Fatalf("%s: the command crashed:\n%s", name, msg)
		}
	}
	entries, _ := os.ReadDir(outDir)
	if err == nil {
		// A harmless flip: the output must be complete and alone.
		got, rerr := os.ReadFile(out)
		if rerr != nil || bytes.Equal(got, precious) {
			t.Errorf("%s: the command succeeded but did not write %s", name, out)
		}
		for _, e := range entries {
			if strings.Contains(e.Name(), ".tmp") {
				t.Errorf("%s: temporary file %s left behind", name, e.Name())
			}
		}
		return ""
	}
	if cmd.ProcessState.ExitCode() != 1 {
		t.Errorf("%s: exit status %d, want 1 (%v)", name, cmd.ProcessState.ExitCode(), err)
	}
	if got, _ := os.ReadFile(out); !bytes.Equal(got, precious) {
		t.Errorf("%s: the failed conversion changed the existing output", name)
	}
	if len(entries) != 1 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("%s: the failed conversion left files behind: %v", name, names)
	}
	line := strings.TrimSuffix(msg, "\n")
	if strings.Contains(line, "\n") || !strings.HasPrefix(line, "modelbridge: ") {
		t.Errorf("%s: error is not one line starting with \"modelbridge: \": %q", name, msg)
	}
	if !strings.Contains(line, name) && !companionNamed(line, companions) {
		t.Errorf("%s: error does not name the file: %q", name, line)
	}
	return line
}

func companionNamed(line string, cs []companion) bool {
	for _, c := range cs {
		if strings.Contains(line, c.name) {
			return true
		}
	}
	return false
}

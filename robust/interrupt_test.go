package robust

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/modelbridge/modelbridge/internal/onnxpb"
	"github.com/modelbridge/modelbridge/internal/runtimes/ort"
)

// An interrupted run (SIGINT, SIGTERM) removes every temporary it made,
// its child processes' included, leaves its input and any earlier output
// untouched, exits 130/143 and says what it left unchanged.

// chainModel is x·W1·W2·…·Wn with n square float weights of side d: big
// enough (n·d²·4 bytes) that writing it takes a while.
func chainModel(t *testing.T, n, d int) []byte {
	g := &onnxpb.GraphProto{Name: proto.String("chain")}
	prev := "x"
	for i := range n {
		w := fmt.Sprintf("w%d", i)
		raw := make([]byte, 4*d*d)
		for j := range d * d {
			binary.LittleEndian.PutUint32(raw[4*j:], math.Float32bits(float32((j*7+i)%13-6)/float32(4*d)))
		}
		g.Initializer = append(g.Initializer, &onnxpb.TensorProto{Name: proto.String(w), DataType: proto.Int32(1), Dims: []int64{int64(d), int64(d)}, RawData: raw})
		out := fmt.Sprintf("h%d", i)
		g.Node = append(g.Node, node("MatMul", fmt.Sprintf("mm%d", i), []string{prev, w}, []string{out}))
		prev = out
	}
	g.Node = append(g.Node, node("Relu", "relu", []string{prev}, []string{"y"}))
	g.Input = []*onnxpb.ValueInfoProto{tensorInfo("x", 1, int64(d))}
	g.Output = []*onnxpb.ValueInfoProto{tensorInfo("y", 1, int64(d))}
	return marshalModel(t, g)
}

// listAll returns every file and folder under dir, relative to it.
func listAll(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.Walk(dir, func(p string, _ os.FileInfo, err error) error {
		if p != dir && err == nil {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, rel)
		}
		return nil
	})
	return out
}

// interruptAt runs the command, sends sig after delay and returns its
// exit status and stderr. TMPDIR is tmp, so scratch folders land there.
func interruptAt(t *testing.T, tmp string, delay time.Duration, sig syscall.Signal, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(modelbridgeBin, args...)
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		select {
		case <-time.After(delay):
			cmd.Process.Signal(sig)
		case <-done:
		}
	}()
	timer := time.AfterFunc(runTimeout, func() { cmd.Process.Kill() })
	cmd.Wait()
	close(done)
	if !timer.Stop() {
		t.Fatalf("%v: still running after %v", args, runTimeout)
	}
	return cmd.ProcessState.ExitCode(), stderr.String()
}

func TestInterruptLeavesNothingBehind(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "in", "chain.onnx")
	if err := os.MkdirAll(filepath.Dir(model), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(model, chainModel(t, 6, 2048), 0o644); err != nil { // 100 MB
		t.Fatal(err)
	}
	inputUnchanged := keep(t, model)
	out := filepath.Join(dir, "out")
	tmp := filepath.Join(dir, "tmp")
	for _, d := range []string{out, tmp} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// An earlier output stays as it was.
	earlier := filepath.Join(out, "chain.onnx")
	if err := os.WriteFile(earlier, []byte("earlier output"), 0o644); err != nil {
		t.Fatal(err)
	}
	targets := map[string][]string{
		"onnx":  {"convert", model, earlier},
		"mxnet": {"convert", model, filepath.Join(out, "chain-symbol.json")},
		"torch": {"convert", model, filepath.Join(out, "chain_torch"), "--to", "torch"},
	}
	if _, err := ort.Find(""); err == nil {
		targets["check-ort"] = []string{"check", model, model, "--a-runtime", "ort", "--random", "--samples", "4"}
	} else {
		t.Logf("check --a-runtime ort not interrupted: %v", err)
	}
	interrupted := 0
	for name, args := range targets {
		stopped := 0
		for _, delay := range []time.Duration{30 * time.Millisecond, 90 * time.Millisecond, 200 * time.Millisecond, 450 * time.Millisecond} {
			sig := syscall.SIGINT
			if delay == 200*time.Millisecond {
				sig = syscall.SIGTERM
			}
			code, stderr := interruptAt(t, tmp, delay, sig, args...)
			finishedFirst := func() {
				// Remove what it wrote for the next run.
				for _, f := range listAll(t, out) {
					if f != "chain.onnx" {
						os.RemoveAll(filepath.Join(out, f))
					}
				}
				os.WriteFile(earlier, []byte("earlier output"), 0o644)
			}
			if (code == 130 || code == 143) && strings.Contains(stderr, "written in full before the signal") {
				// The signal came after the output was renamed into
				// place, while the process was finishing: it says so,
				// and no temporary may be left.
				t.Logf("%s after %v: %s", name, delay, strings.TrimSpace(stderr))
				if left := listAll(t, tmp); len(left) != 0 {
					t.Errorf("%s after %v: the temporary folder holds %v", name, delay, left)
				}
				finishedFirst()
				continue
			}
			switch code {
			case 0:
				finishedFirst()
				continue
			case 130, 143:
				interrupted++
				stopped++
			case -1:
				// Killed by the signal itself: it came before the process
				// had started far enough to install its handler (a loaded
				// machine can take longer than the shortest delay to
				// start). It wrote nothing yet, which is still checked.
				t.Logf("%s after %v: %v came before the handler was installed", name, delay, sig)
				checkNothingLeft(t, name, delay, out, earlier, tmp)
				continue
			default:
				t.Errorf("%s after %v: exit %d, want 130/143 (or 0 when it finished first)\n%s", name, delay, code, stderr)
				continue
			}
			t.Logf("%s after %v: %s", name, delay, strings.TrimSpace(stderr))
			if want := map[syscall.Signal]int{syscall.SIGINT: 130, syscall.SIGTERM: 143}[sig]; code != want {
				t.Errorf("%s after %v: %v gave exit %d, want %d", name, delay, sig, code, want)
			}
			lines := strings.Split(strings.TrimSpace(stderr), "\n")
			if last := lines[len(lines)-1]; !strings.Contains(last, "stopped") {
				t.Errorf("%s after %v: last line %q does not say the run stopped", name, delay, last)
			}
			checkNothingLeft(t, name, delay, out, earlier, tmp)
		}
		if stopped == 0 {
			t.Errorf("%s: every run finished before its signal", name)
		}
	}
	inputUnchanged()
	if interrupted == 0 {
		t.Fatal("every run finished before its signal: the test interrupted nothing")
	}
	t.Logf("%d runs interrupted", interrupted)
}

// checkNothingLeft checks that an interrupted run left only the earlier
// output, unchanged, and no temporary.
func checkNothingLeft(t *testing.T, name string, delay time.Duration, out, earlier, tmp string) {
	t.Helper()
	if left := listAll(t, out); len(left) != 1 || left[0] != "chain.onnx" {
		t.Errorf("%s after %v: the output folder holds %v, want only the earlier chain.onnx", name, delay, left)
	}
	if b, _ := os.ReadFile(earlier); string(b) != "earlier output" {
		t.Errorf("%s after %v: the earlier output was changed", name, delay)
	}
	if left := listAll(t, tmp); len(left) != 0 {
		t.Errorf("%s after %v: the temporary folder holds %v", name, delay, left)
		for _, f := range left {
			os.RemoveAll(filepath.Join(tmp, f))
		}
	}
}

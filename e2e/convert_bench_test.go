package e2e

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	_ "github.com/modelbridge/modelbridge/formats/all"
)

// The conversion benchmark's model: convertLayers Linear layers of
// convertDim x convertDim float32 weights, 512 MiB in all.
const (
	convertLayers = 32
	convertDim    = 2048
)

// convertChildEnv carries "from|to|source|destination" to the child process
// that runs one conversion, so each measures its own peak RSS (VmHWM).
const convertChildEnv = "MODELBRIDGE_BENCH_CONVERT"

// convertSource is one format a benchmark model is built in.
type convertSource struct {
	name string
	file string // inside the benchmark's folder
	// build writes the model to path, or returns why it cannot be built.
	build func(g *canon.Graph, path string) (skip string, err error)
}

// convertTarget is one format converted to.
type convertTarget struct {
	name, format, file string
}

func exportAs(format string) func(g *canon.Graph, path string) (string, error) {
	return func(g *canon.Graph, path string) (string, error) {
		exp, err := formats.FindExporter(path, format)
		if err != nil {
			return "", err
		}
		return "", exp.Write(g, path, formats.WriteOptions{})
	}
}

// torchScript builds the model with PyTorch (1.13 via /usr/bin/python3);
// legacy saves a state dict in the pre-1.6 format, traced a TorchScript
// archive.
func torchScript(kind string) func(*canon.Graph, string) (string, error) {
	return func(_ *canon.Graph, path string) (string, error) {
		script := fmt.Sprintf(`
import sys, torch
torch.manual_seed(0)
layers = [torch.nn.Linear(%[1]d, %[1]d, bias=False) for _ in range(%[2]d)]
m = torch.nn.Sequential(*layers).eval()
if sys.argv[1] == "legacy":
    torch.save(m.state_dict(), sys.argv[2], _use_new_zipfile_serialization=False)
else:
    with torch.no_grad():
        torch.jit.trace(m, torch.zeros(1, %[1]d)).save(sys.argv[2])
`, convertDim, convertLayers)
		if _, err := exec.LookPath("/usr/bin/python3"); err != nil {
			return "/usr/bin/python3 is missing: it builds the " + kind + " model", nil
		}
		out, err := exec.Command("/usr/bin/python3", "-c", script, kind, path).CombinedOutput()
		if err != nil {
			if strings.Contains(string(out), "No module named 'torch'") {
				return "/usr/bin/python3 has no torch: it builds the " + kind + " model", nil
			}
			return "", fmt.Errorf("building the %s model: %v\n%s", kind, err, out)
		}
		return "", nil
	}
}

var convertSources = []convertSource{
	{"onnx", "big.onnx", exportAs("onnx")},
	{"torchzip", "big.pt", exportAs("torch")},
	{"torchlegacy", "legacy.pt", torchScript("legacy")},
	{"torchscript", "traced.pt", torchScript("traced")},
	{"pt2", "big.pt2", func(*canon.Graph, string) (string, error) {
		return ".pt2 is read-only here and PyTorch 1.13 cannot torch.export one", nil
	}},
	{"safetensors", "big.safetensors", exportAs("safetensors")},
	{"mxnet", "big-symbol.json", exportAs("mxnet")},
}

var convertTargets = []convertTarget{
	{"onnx", "onnx", "out.onnx"},
	{"torch", "torch", "out.pt"},
	{"model.py", "torch", "out_folder"},
	{"safetensors", "safetensors", "out.safetensors"},
	{"mxnet", "mxnet", "out-symbol.json"},
}

// convertModel is the benchmark model: distinct random weights (shared
// buffers could be deduplicated by a writer) kept small and finite.
func convertModel() *canon.Graph {
	rng := rand.NewChaCha8([32]byte{7})
	g := &canon.Graph{
		Name:    "big_mlp",
		Inputs:  []canon.ValueInfo{{Name: "x", DType: canon.Float32, Shape: canon.DimsOf(1, convertDim), RankKnown: true}},
		Outputs: []canon.ValueInfo{{Name: fmt.Sprintf("h%d", convertLayers), DType: canon.Float32, Shape: canon.DimsOf(1, convertDim), RankKnown: true}},
	}
	prev := "x"
	for i := 1; i <= convertLayers; i++ {
		buf := make([]byte, convertDim*convertDim*4)
		rng.Read(buf)
		for j := 3; j < len(buf); j += 4 {
			buf[j] &= 0x3c
		}
		w := &canon.Tensor{Name: fmt.Sprintf("fc%d.weight", i), DType: canon.Float32, Shape: []int64{convertDim, convertDim}, Layout: "OI", Data: buf}
		g.Initializers = append(g.Initializers, w)
		out := fmt.Sprintf("h%d", i)
		g.Nodes = append(g.Nodes, &canon.Node{Name: fmt.Sprintf("fc%d", i), Op: &canon.Linear{Alpha: 1, Beta: 1}, Inputs: []string{prev, w.Name}, Outputs: []string{out}})
		prev = out
	}
	return g
}

// BenchmarkConvert converts a 512 MiB model between every pair of formats
// the formats allow, each conversion in a child process so its peak RSS
// is its own. Metrics: MB/s of the source files, x-copy (the conversion's
// time over a copy+fsync of the same files, measured in the same
// benchmark), peak-MB and peak/model (the child's VmHWM, which counts the
// pages of mapped input files). ns/op also counts the child's start and the
// copy: read the metrics. Goal: x-copy <= 2, peak/model <= 1.2. Pairs a
// format cannot take (a .pt2 cannot be built here; an export the target
// lacks an op for) are skipped with the reason (-test.v shows it).
//
//	go test ./e2e -run '^$' -bench BenchmarkConvert -benchtime 1x
func BenchmarkConvert(b *testing.B) {
	dir := b.TempDir()
	g := convertModel()
	skips := map[string]string{}
	for _, s := range convertSources {
		why, err := s.build(g, filepath.Join(dir, s.file))
		if err != nil {
			b.Fatalf("%s: %v", s.name, err)
		}
		if why != "" {
			skips[s.name] = why
		}
	}
	g = nil
	for _, s := range convertSources {
		for _, t := range convertTargets {
			b.Run(s.name+"→"+t.name, func(b *testing.B) {
				if why := skips[s.name]; why != "" {
					b.Skip(why)
				}
				runConvert(b, s, t, dir)
			})
		}
	}
}

func runConvert(b *testing.B, s convertSource, t convertTarget, dir string) {
	src := filepath.Join(dir, s.file)
	srcFiles := []string{src}
	if s.name == "mxnet" {
		srcFiles = append(srcFiles, filepath.Join(dir, "big-0000.params"))
	}
	var size int64
	for _, f := range srcFiles {
		st, err := os.Stat(f)
		if err != nil {
			b.Fatal(err)
		}
		size += st.Size()
	}
	out := filepath.Join(b.TempDir(), t.file)
	var convert, copying time.Duration
	var peak int64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		cmd := exec.Command(os.Args[0], "-test.run=^TestConvertChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), convertChildEnv+"="+strings.Join([]string{s.name, t.format, src, out}, "|"))
		res, err := cmd.CombinedOutput()
		if err != nil {
			b.Fatalf("%v\n%s", err, res)
		}
		line := ""
		for _, l := range strings.Split(string(res), "\n") {
			if rest, ok := strings.CutPrefix(l, "convert-result "); ok {
				line = rest
			}
		}
		if skip, ok := strings.CutPrefix(line, "skip "); ok {
			b.Skip(skip)
		}
		var ns, hwm int64
		if _, err := fmt.Sscan(line, &ns, &hwm); err != nil {
			b.Fatalf("child reported %q: %v\n%s", line, err, res)
		}
		convert += time.Duration(ns)
		peak = max(peak, hwm)
		start := time.Now()
		for j, f := range srcFiles {
			if err := copySync(f, filepath.Join(dir, fmt.Sprintf("copy%d", j))); err != nil {
				b.Fatal(err)
			}
		}
		copying += time.Since(start)
	}
	b.StopTimer()
	b.ReportMetric(float64(size)*float64(b.N)/(1<<20)/convert.Seconds(), "MB/s")
	b.ReportMetric(convert.Seconds()/copying.Seconds(), "x-copy")
	b.ReportMetric(float64(peak)/(1<<20), "peak-MB")
	b.ReportMetric(float64(peak)/float64(size), "peak/model")
}

// TestConvertChild is BenchmarkConvert's child: it runs one conversion and
// prints its time and peak RSS. Without the environment variable it skips.
func TestConvertChild(t *testing.T) {
	spec := os.Getenv(convertChildEnv)
	if spec == "" {
		t.Skip("run by BenchmarkConvert only")
	}
	parts := strings.Split(spec, "|")
	if len(parts) != 4 {
		t.Fatalf("%s=%q: want from|to|source|destination", convertChildEnv, spec)
	}
	to, src, dst := parts[1], parts[2], parts[3]
	start := time.Now()
	g, _, err := formats.Read(src, "", formats.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	exp, err := formats.FindExporter(dst, to)
	if err != nil {
		t.Fatal(err)
	}
	if err := exp.Write(g, dst, formats.WriteOptions{}); err != nil {
		// A pair the formats do not allow (a state dict has no graph to
		// write as ONNX): the benchmark skips it with the reason.
		fmt.Printf("\nconvert-result skip %s\n", strings.ReplaceAll(err.Error(), "\n", " "))
		return
	}
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
	elapsed := time.Since(start)
	fmt.Printf("\nconvert-result %d %d\n", elapsed.Nanoseconds(), statusBytes("VmHWM"))
}

// statusBytes reads a "kB" field of /proc/self/status, in bytes (-1 when
// unavailable).
func statusBytes(field string) int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return -1
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), field+":"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				return -1
			}
			return kb << 10
		}
	}
	return -1
}

// copySync is the floor a durable writer is compared with: copy and fsync.
func copySync(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Sync(); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

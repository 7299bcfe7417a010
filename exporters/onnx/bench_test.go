package onnxexport

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	onnximport "github.com/modelbridge/modelbridge/importers/onnx"
)

const (
	benchLayers = 32
	benchDim    = 2048 // 32 Linear layers of 2048x2048 f32 = 512 MiB
)

// bigModel writes, once per benchmark, an MLP with benchLayers Linear
// layers. All weights alias one random buffer, so generating the model
// costs 16 MiB of memory, not 512.
func bigModel(b *testing.B) (string, int64) {
	b.Helper()
	buf := make([]byte, benchDim*benchDim*4)
	rng := rand.NewChaCha8([32]byte{1})
	rng.Read(buf)
	for i := 3; i < len(buf); i += 4 {
		buf[i] &= 0x3f // keep the floats finite and small
	}
	g := &canon.Graph{
		Name:    "big_mlp",
		Inputs:  []canon.ValueInfo{{Name: "x", DType: canon.Float32, Shape: canon.DimsOf(1, benchDim), RankKnown: true}},
		Outputs: []canon.ValueInfo{{Name: fmt.Sprintf("h%d", benchLayers), DType: canon.Float32, Shape: canon.DimsOf(1, benchDim), RankKnown: true}},
	}
	prev := "x"
	for i := 1; i <= benchLayers; i++ {
		w := &canon.Tensor{Name: fmt.Sprintf("fc%d.weight", i), DType: canon.Float32, Shape: []int64{benchDim, benchDim}, Layout: "OI", Data: buf}
		g.Initializers = append(g.Initializers, w)
		out := fmt.Sprintf("h%d", i)
		g.Nodes = append(g.Nodes, &canon.Node{Name: fmt.Sprintf("fc%d", i), Op: &canon.Linear{Alpha: 1, Beta: 1}, Inputs: []string{prev, w.Name}, Outputs: []string{out}})
		prev = out
	}
	path := filepath.Join(b.TempDir(), "big.onnx")
	if err := Write(g, path, formats.WriteOptions{}); err != nil {
		b.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	return path, st.Size()
}

// resetPeak frees what earlier work left and restarts the kernel's peak-RSS
// counter (VmHWM), so the peak reported covers only the measured loop.
func resetPeak() {
	runtime.GC()
	debug.FreeOSMemory()
	_ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
}

// procStatus reads a "kB" field of /proc/self/status, in bytes.
func procStatus(field string) int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return -1
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				return -1
			}
			return kb << 10
		}
	}
	return -1
}

func reportPeak(b *testing.B, before, size int64) {
	peak := procStatus("VmHWM")
	if peak < 0 {
		return
	}
	b.ReportMetric(float64(peak)/(1<<20), "peak-MB")
	b.ReportMetric(float64(peak-before)/(1<<20), "peak-growth-MB")
	b.ReportMetric(float64(peak)/float64(size), "peak/model")
}

// BenchmarkONNXRoundTrip imports a 512 MiB model and writes it back, per
// iteration. Goal: within 2x BenchmarkFileCopy's time, peak RSS <= 1.2x
// the model size.
func BenchmarkONNXRoundTrip(b *testing.B) {
	src, size := bigModel(b)
	dst := filepath.Join(b.TempDir(), "out.onnx")
	resetPeak()
	before := procStatus("VmRSS")
	b.SetBytes(size)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		g, err := onnximport.Read(src, formats.ReadOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if err := Write(g, dst, formats.WriteOptions{}); err != nil {
			b.Fatal(err)
		}
		if err := g.Close(); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	reportPeak(b, before, size)
}

// BenchmarkFileCopy is the baseline: copy the same file and fsync it.
func BenchmarkFileCopy(b *testing.B) {
	src, size := bigModel(b)
	dst := filepath.Join(b.TempDir(), "copy.onnx")
	resetPeak()
	before := procStatus("VmRSS")
	b.SetBytes(size)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := copyFile(src, dst); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	reportPeak(b, before, size)
}

func copyFile(src, dst string) error {
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

package torchimport

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	onnxexport "github.com/modelbridge/modelbridge/exporters/onnx"
	safetensorsexport "github.com/modelbridge/modelbridge/exporters/safetensors"
	"github.com/modelbridge/modelbridge/formats"
)

// benchStorages × benchStorageBytes is the size of the generated state dict.
const (
	benchStorages     = 32
	benchStorageBytes = 16 << 20
)

// peakRSS returns VmHWM in bytes; resetPeak restarts it (Linux clear_refs).
func peakRSS() int64 {
	data, _ := os.ReadFile("/proc/self/status")
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "VmHWM:") {
			f := strings.Fields(line)
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}

func resetPeak() { os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

// BenchmarkTorchStateDictToSafetensors converts a generated 512 MiB
// zip-format state dict to safetensors and to ONNX initializers, next to a
// plain copy of the file. Metrics: peak-RSS/file-size for each.
func BenchmarkTorchStateDictToSafetensors(b *testing.B) {
	dir := b.TempDir()
	src := filepath.Join(dir, "big.pt")
	var ts []synthTensor
	var keys []string
	sizes := map[string]int{}
	for i := 0; i < benchStorages; i++ {
		k := strconv.Itoa(i)
		numel := int64(benchStorageBytes / 4)
		ts = append(ts, synthTensor{Name: "layer" + k + ".weight", StorageType: "FloatStorage", Key: k, Numel: numel, Size: []int64{numel / 1024, 1024}, Stride: []int64{1024, 1}})
		keys = append(keys, k)
		sizes[k] = benchStorageBytes
	}
	fill := func(key string, buf []byte) {
		seed := byte(len(key))
		for i := range buf {
			buf[i] = byte(i) ^ seed
		}
	}
	if err := writeTorchZip(src, "archive", statePickle(ts, ""), keys, sizes, fill, false); err != nil {
		b.Fatal(err)
	}
	st, _ := os.Stat(src)
	fileSize := float64(st.Size())

	run := func(name string, fn func(out string) error) {
		b.Run(name, func(b *testing.B) {
			out := filepath.Join(dir, name+".out")
			resetPeak()
			base := peakRSS()
			b.SetBytes(st.Size())
			for i := 0; i < b.N; i++ {
				if err := fn(out); err != nil {
					b.Fatal(err)
				}
				os.Remove(out)
			}
			b.ReportMetric(float64(peakRSS())/fileSize, "peakRSS/file")
			b.ReportMetric(float64(peakRSS()-base)/fileSize, "addedRSS/file")
		})
	}
	run("copy", func(out string) error {
		in, err := os.Open(src)
		if err != nil {
			return err
		}
		defer in.Close()
		o, err := os.Create(out)
		if err != nil {
			return err
		}
		w := bufio.NewWriterSize(o, 1<<20)
		if _, err := io.Copy(w, in); err != nil {
			return err
		}
		if err := w.Flush(); err != nil {
			return err
		}
		if err := o.Sync(); err != nil {
			return err
		}
		return o.Close()
	})
	run("safetensors", func(out string) error {
		g, err := Read(src, formats.ReadOptions{})
		if err != nil {
			return err
		}
		defer g.Close()
		return safetensorsexport.Write(g, out, formats.WriteOptions{})
	})
	run("onnx", func(out string) error {
		g, err := Read(src, formats.ReadOptions{})
		if err != nil {
			return err
		}
		defer g.Close()
		return onnxexport.Write(g, out, formats.WriteOptions{})
	})
}

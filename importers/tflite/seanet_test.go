package tfliteimport_test

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	_ "github.com/modelbridge/modelbridge/allformats"
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/testfix"
	"github.com/modelbridge/modelbridge/interp"
)

// readCSVInts reads one line of comma-separated integers.
func readCSVInts(t *testing.T, path string) []int64 {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []int64
	for _, f := range strings.Split(strings.TrimSpace(string(raw)), ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		v, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, v)
	}
	return out
}

func int16Tensor(name string, shape []int64, v []int64) *canon.Tensor {
	data := make([]byte, 2*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint16(data[2*i:], uint16(int16(x)))
	}
	return &canon.Tensor{Name: name, DType: canon.Int16, Shape: shape, Data: data}
}

// TestSeanetGoldens runs every single-kernel int16 case of the SEANet
// fixtures in the interpreter and compares with the outputs TFLite Micro's
// reference kernels wrote, which must match exactly.
func TestSeanetGoldens(t *testing.T) {
	dir := filepath.Join(testfix.Fixtures(t), "tflite", "seanet")
	models, _ := filepath.Glob(filepath.Join(dir, "*.tflite"))
	if len(models) == 0 {
		t.Skipf("skipping: no seanet fixtures in %s", dir)
	}
	for _, m := range models {
		stem := strings.TrimSuffix(filepath.Base(m), ".tflite")
		t.Run(stem, func(t *testing.T) {
			g, _, err := formats.Read(m, "", formats.ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer g.Close()
			ins, _ := filepath.Glob(filepath.Join(dir, stem+"_input*_int16.csv"))
			sort.Strings(ins)
			if len(ins) != len(g.Inputs) {
				t.Fatalf("%d int16 input files for %d graph inputs", len(ins), len(g.Inputs))
			}
			feeds := map[string]*canon.Tensor{}
			for k, in := range g.Inputs {
				shape, _ := in.StaticShape()
				v := readCSVInts(t, ins[k])
				if int64(len(v)) != canon.NumElements(shape) {
					t.Fatalf("%s holds %d values; input %q has shape %v", ins[k], len(v), in.Name, shape)
				}
				feeds[in.Name] = int16Tensor(in.Name, shape, v)
			}
			out, err := interp.Run(g, feeds)
			if err != nil {
				t.Fatal(err)
			}
			got, err := out[g.Outputs[0].Name].Int64s()
			if err != nil {
				t.Fatal(err)
			}
			want := readCSVInts(t, filepath.Join(dir, stem+"_golden_int16.csv"))
			if len(got) != len(want) {
				t.Fatalf("%d outputs, golden has %d", len(got), len(want))
			}
			bad, first := 0, -1
			for i := range got {
				if got[i] != want[i] {
					if first < 0 {
						first = i
					}
					bad++
				}
			}
			if bad > 0 {
				t.Errorf("%d of %d outputs differ from TFLite Micro's golden; first at %d: got %d, want %d", bad, len(got), first, got[first], want[first])
			}
		})
	}
}

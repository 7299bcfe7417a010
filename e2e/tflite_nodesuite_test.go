package e2e

import (
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	tfliteexport "github.com/modelbridge/modelbridge/exporters/tflite"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/testfix"
	"github.com/modelbridge/modelbridge/interp"
)

// TestTFLiteExportNodeSuite writes every case of ONNX's node suite the
// interpreter passes to .tflite: each is written (then read back and run
// against the original on random inputs) or refused with an error naming
// the node or value; none may panic or compute another number.
func TestTFLiteExportNodeSuite(t *testing.T) {
	suite := filepath.Join(testfix.Fixtures(t), "onnx-node-1.22")
	mustPass := readCaseList(t, filepath.Join(testfix.RepoRoot(), "testdata", "onnx-node-1.22-pass.txt"))
	var names []string
	for n := range mustPass {
		names = append(names, n)
	}
	sort.Strings(names)
	written, refused, compared := 0, 0, 0
	for _, name := range names {
		model := filepath.Join(suite, name, "model.onnx")
		g, _, err := formats.Read(model, "onnx", formats.ReadOptions{})
		if err != nil {
			continue
		}
		data, err := encodeNoPanic(g)
		if err != nil {
			refused++
			if !strings.HasPrefix(err.Error(), "tflite: ") || !strings.Contains(err.Error(), `"`) {
				t.Errorf("%s: a refusal that names nothing: %v", name, err)
			}
			g.Close()
			continue
		}
		written++
		if ok := floatInputs(g); ok {
			if err := compareReadBack(g, data, t.TempDir()); err != nil {
				t.Errorf("%s: %v", name, err)
			} else {
				compared++
			}
		}
		g.Close()
	}
	t.Logf("ONNX node suite to .tflite: %d written (%d read back and matched on random inputs), %d refused by name", written, compared, refused)
}

func encodeNoPanic(g *canon.Graph) (data []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	data, _, err = tfliteexport.Encode(g, tfliteexport.Options{})
	if err != nil && strings.HasPrefix(err.Error(), "panic") {
		return nil, err
	}
	return data, err
}

func floatInputs(g *canon.Graph) bool {
	for _, in := range g.Inputs {
		if _, ok := in.StaticShape(); !ok || in.DType != canon.Float32 {
			return false
		}
	}
	return true
}

func compareReadBack(g *canon.Graph, data []byte, dir string) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic reading back: %v", r)
		}
	}()
	path := filepath.Join(dir, "m.tflite")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return err
	}
	back, _, err := formats.Read(path, "tflite", formats.ReadOptions{})
	if err != nil {
		return fmt.Errorf("reading the export back: %v", err)
	}
	defer back.Close()
	r := rand.New(rand.NewSource(5))
	feeds, backFeeds := map[string]*canon.Tensor{}, map[string]*canon.Tensor{}
	for i, in := range g.Inputs {
		s, _ := in.StaticShape()
		v := make([]float32, canon.NumElements(s))
		for k := range v {
			v[k] = float32(r.Float64()*2 - 1)
		}
		feeds[in.Name] = canon.NewFloat32Tensor(in.Name, s, v)
		bn := back.Inputs[i].Name
		backFeeds[bn] = canon.NewFloat32Tensor(bn, s, v)
	}
	want, err := interp.Run(g, feeds)
	if err != nil {
		return nil // the original does not run on random inputs
	}
	got, err := interp.Run(back, backFeeds)
	if err != nil {
		return fmt.Errorf("running the export: %v", err)
	}
	for i, o := range g.Outputs {
		a, b := want[o.Name], got[back.Outputs[i].Name]
		x, err1 := a.Float64s()
		y, err2 := b.Float64s()
		if err1 != nil || err2 != nil || len(x) != len(y) {
			return fmt.Errorf("output %s: %v %v, %d and %d values", o.Name, err1, err2, len(x), len(y))
		}
		for k := range x {
			d := x[k] - y[k]
			if d < 0 {
				d = -d
			}
			if d > 1e-5+1e-4*math.Abs(x[k]) && !(x[k] != x[k] && y[k] != y[k]) {
				return fmt.Errorf("output %s[%d]: %g, the export gives %g", o.Name, k, x[k], y[k])
			}
		}
	}
	return nil
}

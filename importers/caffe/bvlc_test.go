package caffeimport

import (
	"path/filepath"
	"testing"

	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/testfix"
)

// TestBVLCDeployShapes reads the BVLC deploy prototxts (no weights) and
// checks the output shapes and GoogLeNet's inception concat shapes.
func TestBVLCDeployShapes(t *testing.T) {
	dir := filepath.Join(testfix.Fixtures(t), "caffe", "bvlc-deploy")
	cases := []struct {
		file   string
		shapes map[string][]int64
		values map[string][]int64 // inferred shapes of named values
	}{
		{"bvlc_alexnet.prototxt", map[string][]int64{"data": {1, 3, 227, 227}}, map[string][]int64{"prob": {1, 1000}, "pool5": {1, 256, 6, 6}}},
		{"bvlc_alexnet.prototxt", nil, map[string][]int64{"prob": {10, 1000}}},
		{"bvlc_reference_caffenet.prototxt", nil, map[string][]int64{"prob": {10, 1000}, "pool5": {10, 256, 6, 6}}},
		{"bvlc_googlenet.prototxt", nil, map[string][]int64{
			"prob":                {10, 1000},
			"pool1/3x3_s2":        {10, 64, 56, 56},
			"inception_3a/output": {10, 256, 28, 28},
			"inception_3b/output": {10, 480, 28, 28},
			"inception_4a/output": {10, 512, 14, 14},
			"inception_4b/output": {10, 512, 14, 14},
			"inception_4c/output": {10, 512, 14, 14},
			"inception_4d/output": {10, 528, 14, 14},
			"inception_4e/output": {10, 832, 14, 14},
			"inception_5a/output": {10, 832, 7, 7},
			"inception_5b/output": {10, 1024, 7, 7},
			"pool5/7x7_s1":        {10, 1024, 1, 1},
		}},
		{"lenet.prototxt", nil, map[string][]int64{"prob": {64, 10}}},
		{"cifar10_full.prototxt", nil, map[string][]int64{"prob": {1, 10}}},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			g, err := Read(filepath.Join(dir, c.file), formats.ReadOptions{InputShapes: c.shapes})
			if err != nil {
				t.Fatal(err)
			}
			if !g.Meta.WeightsMissing {
				t.Error("a prototxt alone should be marked WeightsMissing")
			}
			if err := g.Validate(); err != nil {
				t.Fatal(err)
			}
			if err := g.Infer(); err != nil {
				t.Fatal(err)
			}
			for name, want := range c.values {
				vi, ok := g.Values.Lookup(name)
				if !ok {
					t.Errorf("no value %q", name)
					continue
				}
				got, ok := vi.StaticShape()
				if !ok || len(got) != len(want) {
					t.Errorf("%s: shape %v, want %v", name, got, want)
					continue
				}
				for i := range want {
					if got[i] != want[i] {
						t.Errorf("%s: shape %v, want %v", name, got, want)
						break
					}
				}
			}
		})
	}
}

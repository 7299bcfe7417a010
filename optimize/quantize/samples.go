package quantize

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/tensorfile"
)

// DirSamples reads input sets from a folder, one at a time: each
// subfolder (test_data_set_0, ...) holding input_0.pb, ... or files named
// after the inputs, as check --inputs reads; or, for a one-input model,
// every .pb/.npy file directly in the folder; or the folder itself as one
// set.
type DirSamples struct {
	Dir    string
	inputs []canon.ValueInfo
	// sets are subfolders; files are single-input samples.
	sets, files []string
}

// OpenDir lists the input sets in dir for a graph with these inputs.
func OpenDir(dir string, inputs []canon.ValueInfo) (*DirSamples, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	d := &DirSamples{Dir: dir, inputs: inputs}
	var files []string
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		if e.IsDir() {
			d.sets = append(d.sets, p)
			continue
		}
		switch strings.ToLower(filepath.Ext(e.Name())) {
		case ".pb", ".npy":
			if !strings.HasPrefix(e.Name(), "output_") {
				files = append(files, p)
			}
		}
	}
	sortNatural(d.sets)
	sortNatural(files)
	switch {
	case len(d.sets) > 0:
	case len(files) == 0:
		return nil, fmt.Errorf("%s: no input sets (subfolders with input_0.pb, ... or .pb/.npy files)", dir)
	case len(inputs) == 1:
		d.files = files
	default:
		// Several inputs: the folder is one set.
		d.sets = []string{dir}
	}
	return d, nil
}

// Len is the number of input sets.
func (d *DirSamples) Len() int { return len(d.sets) + len(d.files) }

// Sample reads input set i.
func (d *DirSamples) Sample(i int) (map[string]*canon.Tensor, error) {
	if i < len(d.sets) {
		return tensorfile.LoadDir(d.sets[i], d.inputs)
	}
	t, err := tensorfile.Load(d.files[i-len(d.sets)])
	if err != nil {
		return nil, err
	}
	t.Name = d.inputs[0].Name
	return map[string]*canon.Tensor{t.Name: t}, nil
}

// Name says where input set i comes from.
func (d *DirSamples) Name(i int) string {
	if i < len(d.sets) {
		return d.sets[i]
	}
	return d.files[i-len(d.sets)]
}

// Subset is some of another source's input sets.
type Subset struct {
	Of      Samples
	Indices []int
}

func (s Subset) Len() int { return len(s.Indices) }

func (s Subset) Sample(i int) (map[string]*canon.Tensor, error) { return s.Of.Sample(s.Indices[i]) }

// SplitHoldout keeps every fourth set for evaluation and the rest for
// calibration (with one set, both use it).
func SplitHoldout(src Samples) (calib, held Samples) {
	n := src.Len()
	if n < 2 {
		return src, src
	}
	var c, h []int
	for i := 0; i < n; i++ {
		if i%4 == 3 || (n < 4 && i == n-1) {
			h = append(h, i)
		} else {
			c = append(c, i)
		}
	}
	return Subset{src, c}, Subset{src, h}
}

// sortNatural orders names so that set_10 follows set_9.
func sortNatural(s []string) {
	sort.Slice(s, func(i, j int) bool {
		a, b := s[i], s[j]
		if len(a) != len(b) {
			pa, pb := strings.TrimRight(a, "0123456789"), strings.TrimRight(b, "0123456789")
			if pa == pb {
				return len(a) < len(b)
			}
		}
		return a < b
	})
}

// RandomSamples are n random input sets (uniform in [-1, 1) for floats),
// for evaluating a dynamically quantized model when no inputs are given.
type RandomSamples struct {
	Inputs []canon.ValueInfo
	Shapes map[string][]int64
	N      int
	Seed   uint64
}

func (r RandomSamples) Len() int { return r.N }

func (r RandomSamples) Sample(i int) (map[string]*canon.Tensor, error) {
	return tensorfile.Random(r.Inputs, r.Shapes, r.Seed+uint64(i))
}

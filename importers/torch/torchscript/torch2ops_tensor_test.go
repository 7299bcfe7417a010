package torchscript

import (
	"fmt"
	"path/filepath"
	"sort"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/compare"
	"github.com/modelbridge/modelbridge/internal/tensorfile"
	"github.com/modelbridge/modelbridge/internal/testfix"
	"github.com/modelbridge/modelbridge/interp"
)

// torch2TensorOpCases are PyTorch 2.6 traced cases of ../shared's
// torch2-ops whose inputs are all float32 (the traced graph's inputs are
// read as float32) and that use the tensor-manipulation, sorting and
// search ops.
var torch2TensorOpCases = []string{
	"op_expand_repeat_tile", "op_diag", "op_tril_triu_diagonal", "op_roll_flat_rot90", "op_permute_transpose",
	"op_stack_cat", "op_meshgrid", "op_sort_argsort", "op_median", "op_kthvalue", "op_bucketize_searchsorted",
	"op_nonzero", "op_repeat_interleave",
}

// TestTorch2TensorOpCases reads each case's traced.pt and checks every
// output against PyTorch 2.6's.
func TestTorch2TensorOpCases(t *testing.T) {
	root := filepath.Join(testfix.Fixtures(t), "torch2-ops")
	for _, name := range torch2TensorOpCases {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(root, name)
			ins, _ := filepath.Glob(filepath.Join(dir, "test_data_set_0", "input_*.pb"))
			if len(ins) == 0 {
				t.Skipf("skipping: no inputs under %s", dir)
			}
			sort.Strings(ins)
			shapes := map[string][]int64{}
			var feeds []*canon.Tensor
			for k, p := range ins {
				in, err := tensorfile.Load(p)
				if err != nil {
					t.Fatal(err)
				}
				shapes[fmt.Sprintf("#%d", k)] = in.Shape
				feeds = append(feeds, in)
			}
			g, err := ReadFile(filepath.Join(dir, "traced.pt"), formats.ReadOptions{InputShapes: shapes})
			if err != nil {
				t.Fatal(err)
			}
			defer g.Close()
			feed := map[string]*canon.Tensor{}
			for k, in := range feeds {
				in.Name = g.Inputs[k].Name
				feed[in.Name] = in
			}
			outs, err := interp.Run(g, feed)
			if err != nil {
				t.Fatal(err)
			}
			wants, _ := filepath.Glob(filepath.Join(dir, "test_data_set_0", "output_*.pb"))
			if len(wants) != len(g.Outputs) {
				t.Fatalf("%d outputs, PyTorch gives %d", len(g.Outputs), len(wants))
			}
			for k, o := range g.Outputs {
				want, err := tensorfile.Load(filepath.Join(dir, "test_data_set_0", tensorfile.OutputFileName(k)))
				if err != nil {
					t.Fatal(err)
				}
				if r, err := compare.Tensors(outs[o.Name], want, 1e-5, 1e-6); err != nil || !r.OK {
					t.Errorf("output %d differs from PyTorch 2.6: %+v %v", k, r, err)
				}
			}
		})
	}
}

package pt2

import (
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

// torch2TensorOpPrograms are PyTorch 2.6 exported programs of ../shared's
// torch2-ops that use the tensor-manipulation, sorting, search and index
// ops (integer and bool inputs included: the program records dtypes).
var torch2TensorOpPrograms = []string{
	"op_dtype_round_trip", "op_expand_repeat_tile", "op_diag", "op_tril_triu_diagonal", "op_roll_flat_rot90",
	"op_permute_transpose", "op_stack_cat", "op_take_along_dim", "op_meshgrid", "op_sort_argsort", "op_median",
	"op_mode", "op_kthvalue", "op_index_add_copy_fill", "op_scatter_reduce_mean_noself", "op_repeat_interleave_tensor",
	"op_bucketize_searchsorted", "op_unique", "op_nonzero", "f_interpolate_scales", "op_repeat_interleave",
}

// TestTorch2TensorOpPrograms reads each case's exported.pt2 and checks every
// output against PyTorch 2.6's.
func TestTorch2TensorOpPrograms(t *testing.T) {
	root := filepath.Join(testfix.Fixtures(t), "torch2-ops")
	for _, name := range torch2TensorOpPrograms {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(root, name)
			ins, _ := filepath.Glob(filepath.Join(dir, "test_data_set_0", "input_*.pb"))
			if len(ins) == 0 {
				t.Skipf("skipping: no inputs under %s", dir)
			}
			sort.Strings(ins)
			var feeds []*canon.Tensor
			for _, p := range ins {
				in, err := tensorfile.Load(p)
				if err != nil {
					t.Fatal(err)
				}
				feeds = append(feeds, in)
			}
			g, err := Read(filepath.Join(dir, "exported.pt2"), formats.ReadOptions{})
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

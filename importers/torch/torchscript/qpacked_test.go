package torchscript

import (
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/pickle"
)

// TestQuantizedArchiveErrors: malformed quantized tensors and packed
// parameters are refused with an error that says what is wrong.
func TestQuantizedArchiveErrors(t *testing.T) {
	st := &storageRef{dtype: canon.Int8, entry: "data/0", numel: 4}
	tup := func(items ...pickle.Value) *pickle.Tuple { return &pickle.Tuple{Items: items} }
	base := []pickle.Value{st, int64(0), tup(int64(4)), tup(int64(1))}
	cases := []struct {
		name string
		run  func() error
		want string
	}{
		{"qtensor scheme", func() error {
			_, err := rebuildQTensor.Fn(append(base, tup(qschemeName("per_tensor_symmetric"), 0.1, int64(0))))
			return err
		}, "per_tensor_affine and per_channel_affine"},
		{"qtensor params", func() error {
			_, err := rebuildQTensor.Fn(append(base, tup(qschemeName("per_tensor_affine"), "x", int64(0))))
			return err
		}, "not (scale, zero_point)"},
		{"qtensor arity", func() error {
			_, err := rebuildQTensor.Fn(base)
			return err
		}, "want at least 5"},
		{"unknown packed class", func() error {
			_, err := packedFromClass(&pickle.Object{Class: &pickle.Global{Module: quantizedClassModule, Name: "EmbeddingPackedParamsBase"}, State: tup()}, "emb")
			return err
		}, "EmbeddingPackedParamsBase are not read"},
		{"linear state", func() error {
			_, err := packedFromClass(&pickle.Object{Class: &pickle.Global{Module: quantizedClassModule, Name: "LinearPackedParamsBase"}, State: tup(pickle.None{})}, "fc")
			return err
		}, "want (weight, bias)"},
		{"float weight", func() error {
			w := &tensorRef{storage: st, size: []int64{4}, stride: []int64{1}}
			_, err := packedFromClass(&pickle.Object{Class: &pickle.Global{Module: quantizedClassModule, Name: "LinearPackedParamsBase"}, State: tup(w, pickle.None{})}, "fc")
			return err
		}, "not a quantized tensor"},
		{"conv version", func() error {
			_, err := packedFromClass(&pickle.Object{Class: &pickle.Global{Module: quantizedClassModule, Name: "Conv2dPackedParamsBase"}, State: tup(int64(7), tup(), tup())}, "c")
			return err
		}, "only versions 2 and 3"},
		{"conv config", func() error {
			_, err := packedFromClass(&pickle.Object{Class: &pickle.Global{Module: quantizedClassModule, Name: "Conv2dPackedParamsBase"}, State: tup(int64(3), &pickle.List{Items: []pickle.Value{int64(2), int64(1)}}, &pickle.List{Items: []pickle.Value{pickle.None{}, pickle.None{}}})}, "c")
			return err
		}, "is not [dims, stride"},
	}
	for _, c := range cases {
		err := c.run()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error containing %q", c.name, err, c.want)
		}
	}
}

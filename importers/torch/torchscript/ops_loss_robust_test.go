package torchscript

import (
	"fmt"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/databudget"
)

// TestLossOpsRefuseBadArguments calls every loss, distance and cell
// handler with argument lists a damaged or hand-written program could
// hold (too few, wrong types, mismatched or unknown shapes, scalars,
// integer scores): each must return an error or a value, never panic.
func TestLossOpsRefuseBadArguments(t *testing.T) {
	names := []string{"torch.broadcast_tensors", "torch.mse_loss", "torch.l1_loss", "torch.huber_loss", "torch.smooth_l1_loss",
		"torch.binary_cross_entropy", "torch.binary_cross_entropy_with_logits", "torch.kl_div", "torch.poisson_nll_loss",
		"torch.margin_ranking_loss", "torch.hinge_embedding_loss", "torch.soft_margin_loss", "torch.cosine_embedding_loss",
		"torch.triplet_margin_loss", "torch.cross_entropy_loss", "torch.nll_loss", "torch.nll_loss_nd", "torch.nll_loss_forward",
		"torch.multi_margin_loss", "torch.multilabel_margin_loss", "torch.ctc_loss", "torch.pairwise_distance",
		"torch.cosine_similarity", "torch.cdist", "torch.pdist", "torch.dist", "torch.gru_cell", "torch.lstm_cell",
		"torch.rnn_tanh_cell", "torch.rnn_relu_cell", "torch.lstm"}
	shapes := map[string][]canon.Dim{
		"m":  canon.DimsOf(3, 5),
		"v":  canon.DimsOf(5),
		"s":  canon.DimsOf(),
		"e":  canon.DimsOf(0, 5),
		"t3": canon.DimsOf(4, 3, 5),
		"u":  {{Param: "N"}, canon.Dim{Size: 5}},
	}
	for _, name := range names {
		e, ok := opTable[name]
		if !ok {
			t.Fatalf("%s is not in the op table", name)
		}
		for _, args := range badArgumentLists(shapes) {
			t.Run(name, func(t *testing.T) {
				b := newBuilder(&archive{data: databudget.ForInput(1 << 20)})
				in := &evaluator{b: b}
				vals := make([]value, len(args))
				for i, a := range args {
					vals[i] = a.make(b)
				}
				defer func() {
					if r := recover(); r != nil {
						t.Fatalf("%s%s panics: %v", name, describeArgs(args), r)
					}
				}()
				_, err := in.callOp(e, name, "", vals, nil)
				if err != nil && !strings.Contains(err.Error(), name) {
					t.Errorf("%s%s: the error %q does not name the operator", name, describeArgs(args), err)
				}
			})
		}
	}
}

// argSpec makes one argument: a tensor of a named shape and dtype, or a
// plain value.
type argSpec struct {
	shape string
	dims  []canon.Dim
	dt    canon.DType
	plain value
}

func (a argSpec) make(b *builder) value {
	if a.dims == nil && a.shape == "" {
		return a.plain
	}
	name := b.unique("in")
	b.vals[name] = canon.ValueInfo{Name: name, DType: a.dt, Shape: a.dims, RankKnown: true}
	return &tensorVal{name: name, info: b.vals[name]}
}

func describeArgs(args []argSpec) string {
	parts := make([]string, len(args))
	for i, a := range args {
		if a.shape != "" {
			parts[i] = a.shape + ":" + a.dt.String()
		} else {
			parts[i] = fmt.Sprint(a.plain)
		}
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

func badArgumentLists(shapes map[string][]canon.Dim) [][]argSpec {
	tensor := func(s string, dt canon.DType) argSpec { return argSpec{shape: s, dims: shapes[s], dt: dt} }
	f, i := canon.Float32, canon.Int64
	plain := func(v value) argSpec { return argSpec{plain: v} }
	list := plain(&listVal{items: []value{int64(1), "x"}})
	return [][]argSpec{
		{},
		{tensor("m", f)},
		{tensor("m", f), tensor("m", f)},
		{tensor("m", f), tensor("v", f), plain(int64(7))},
		{tensor("m", f), tensor("s", i), plain(noneVal{}), plain(int64(1)), plain(int64(-100)), plain(0.5)},
		{tensor("s", f), tensor("s", f), tensor("s", f), plain(1.0), plain(2.0), plain(1e-6), plain(true), plain(int64(1))},
		{tensor("e", f), tensor("e", i), tensor("v", f), plain(int64(2)), plain(int64(0))},
		{tensor("m", i), tensor("m", i), tensor("m", i), plain(int64(1)), plain(int64(1))},
		{tensor("u", f), tensor("u", f), tensor("u", f), plain(int64(1))},
		{tensor("t3", f), tensor("m", i), tensor("v", i), tensor("v", i), plain(int64(9)), plain(int64(1)), plain(false)},
		{tensor("t3", f), tensor("m", f), list, list, plain(true), plain(int64(1)), plain(0.0), plain(false), plain(false), plain(false)},
		{plain("text"), plain(noneVal{}), list},
		{tensor("m", f), list, tensor("m", f), tensor("m", f), plain(noneVal{}), plain(noneVal{})},
		{tensor("m", f), tensor("m", f), plain(-3.0), plain(int64(5))},
	}
}

package optimize

import (
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

// scalarW adds a uniform f32 constant of the given shape.
func (b *gb) scalarW(v float32, shape ...int64) string {
	vals := make([]float32, canon.NumElements(shape))
	for i := range vals {
		vals[i] = v
	}
	t := canon.NewFloat32Tensor(b.name("k"), shape, vals)
	b.g.Initializers = append(b.g.Initializers, t)
	return t.Name
}

func TestFoldIntoNorm(t *testing.T) {
	norms := []struct {
		name  string
		build func(b *gb, x string) string
		mul   bool // a scale folds into it
		add   bool // an added constant cancels
	}{
		{"LayerNormalization", func(b *gb, x string) string {
			return b.node(&canon.LayerNorm{Axis: -2, Epsilon: 1e-3, Stash: canon.Float32}, x, b.randW("", -1, 1, 4, 5), b.randW("", -1, 1, 5))
		}, true, true},
		{"InstanceNormalization", func(b *gb, x string) string {
			return b.node(&canon.InstanceNorm{Epsilon: 1e-2}, x, b.randW("C", -1, 1, 3), b.randW("C", -1, 1, 3))
		}, true, true},
		{"GroupNormalization", func(b *gb, x string) string {
			return b.node(&canon.GroupNorm{NumGroups: 3, Epsilon: 1e-2, Stash: canon.Float32}, x, b.randW("C", -1, 1, 3), b.randW("C", -1, 1, 3))
		}, true, true},
		{"RMSNormalization", func(b *gb, x string) string {
			return b.node(&canon.RMSNorm{Axis: -1, Epsilon: 1e-2, Stash: canon.Float32}, x, b.randW("", -1, 1, 5))
		}, true, false},
		{"MeanVarianceNormalization", func(b *gb, x string) string {
			return b.node(&canon.MeanVarNorm{Axes: []int64{0, 2, 3}}, x)
		}, false, true},
	}
	for _, nm := range norms {
		for _, c := range []struct {
			fn    canon.BinaryFn
			value float32
			folds bool
		}{{canon.Mul, 0.25, nm.mul}, {canon.Mul, -3, nm.mul}, {canon.Add, 2.5, nm.add}, {canon.Sub, -1, nm.add}} {
			b := newGB(3)
			x := b.input("x", 2, 3, 4, 5)
			k := b.scalarW(c.value, 1, 1)
			y := nm.build(b, b.node(&canon.Binary{Fn: c.fn}, x, k))
			opt := runPasses(t, b.output(y), "fold_into_norm")
			want := 1
			if c.folds {
				want = 0
			}
			if got := countOps(opt)[c.fn.String()]; got != want {
				t.Errorf("%s after %s %g: %d %s nodes left, want %d", nm.name, c.fn, c.value, got, c.fn, want)
			}
		}
	}
}

// TestFoldIntoNormKeepsChannelScale: a per-channel scale would need one
// epsilon per channel, so it stays.
func TestFoldIntoNormKeepsChannelScale(t *testing.T) {
	b := newGB(5)
	x := b.input("x", 1, 3, 4, 4)
	s := b.randW("", 0.5, 2, 3, 1, 1)
	y := b.node(&canon.InstanceNorm{Epsilon: 1e-2}, b.node(&canon.Binary{Fn: canon.Mul}, x, s), b.randW("C", -1, 1, 3), b.randW("C", -1, 1, 3))
	opt := runPasses(t, b.output(y), "fold_into_norm")
	wantOps(t, opt, map[string]int{"Mul": 1})
}

// TestFoldIntoNormPerGroupAdd: a constant added per channel cancels in an
// InstanceNormalization (which normalizes each channel) and in a
// LayerNormalization over the last axis, but not in a GroupNormalization
// whose groups span several channels, nor in a LayerNormalization over
// the channels.
func TestFoldIntoNormPerGroupAdd(t *testing.T) {
	for _, c := range []struct {
		name  string
		build func(b *gb, x string) string
		folds bool
	}{
		{"instance norm", func(b *gb, x string) string {
			return b.node(&canon.InstanceNorm{Epsilon: 1e-2}, x, b.randW("C", -1, 1, 4), b.randW("C", -1, 1, 4))
		}, true},
		{"layer norm over the last axis", func(b *gb, x string) string {
			return b.node(&canon.LayerNorm{Axis: -1, Epsilon: 1e-3, Stash: canon.Float32}, x, b.randW("", -1, 1, 5))
		}, true},
		{"group norm", func(b *gb, x string) string {
			return b.node(&canon.GroupNorm{NumGroups: 2, Epsilon: 1e-2, Stash: canon.Float32}, x, b.randW("C", -1, 1, 4), b.randW("C", -1, 1, 4))
		}, false},
		{"layer norm over the channels", func(b *gb, x string) string {
			return b.node(&canon.LayerNorm{Axis: 1, Epsilon: 1e-3, Stash: canon.Float32}, x, b.randW("", -1, 1, 4, 3, 5))
		}, false},
	} {
		b := newGB(9)
		x := b.input("x", 2, 4, 3, 5)
		y := c.build(b, b.node(&canon.Binary{Fn: canon.Add}, b.randW("", -2, 2, 4, 1, 1), x))
		opt := runPasses(t, b.output(y), "fold_into_norm")
		want := 1
		if c.folds {
			want = 0
		}
		if got := countOps(opt)["Add"]; got != want {
			t.Errorf("%s: %d Add nodes left, want %d", c.name, got, want)
		}
	}
}

package interp

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

// coverageProblems lists what is wrong with the interpreter's tables
// against canon's registry: registered kinds the coverage misses (or
// declares unsupported without a reason), and table entries naming kinds
// canon does not register.
func coverageProblems() []string {
	var out []string
	for _, g := range canon.Gaps(map[string]canon.Coverage{"interp": Coverage()}) {
		out = append(out, g.String())
	}
	for kind := range kernels {
		if canon.Lookup(kind) == nil {
			out = append(out, "kernels has a stale entry "+kind+": canon registers no such kind")
		}
		if _, both := unsupported[kind]; both {
			out = append(out, kind+" is both in kernels and declared unsupported")
		}
	}
	for kind := range unsupported {
		if canon.Lookup(kind) == nil {
			out = append(out, "unsupported has a stale entry "+kind+": canon registers no such kind")
		}
	}
	slices.Sort(out)
	return out
}

func TestCoverageMatchesRegistry(t *testing.T) {
	for _, p := range coverageProblems() {
		t.Error(p)
	}
	cov := Coverage()
	if len(cov) != len(kernels)+len(unsupported) {
		t.Errorf("Coverage has %d kinds, the tables %d", len(cov), len(kernels)+len(unsupported))
	}
}

// gapOp is an op kind registered only by TestCoverageFindsNewKind.
type gapOp struct{}

func (gapOp) Kind() string { return "InterpCoverageProbe" }
func (gapOp) Signature() canon.Signature {
	return canon.Signature{Inputs: []canon.InputSpec{{Name: "X"}}, MinOutputs: 1, MaxOutputs: 1}
}

// TestCoverageFindsNewKind registers a kind the interpreter has no entry
// for and checks that the coverage check reports it, and stops reporting it
// once it is gone.
func TestCoverageFindsNewKind(t *testing.T) {
	canon.Register(&canon.OpDef{
		Kind: gapOp{}.Kind(), New: func() canon.Op { return gapOp{} },
		Infer: func(*canon.InferCtx) ([]canon.ValueInfo, error) { return nil, nil },
	})
	probs := coverageProblems()
	canon.Unregister(gapOp{}.Kind())
	if len(probs) != 1 || !strings.Contains(probs[0], "interp") || !strings.Contains(probs[0], gapOp{}.Kind()) {
		t.Errorf("with an unhandled kind registered, problems = %q, want one naming interp and %s", probs, gapOp{}.Kind())
	}
	if probs := coverageProblems(); len(probs) != 0 {
		t.Errorf("after Unregister: %q", probs)
	}
}

// TestExamplesRun runs every handled kind's example graph on deterministic
// inputs and checks the outputs have the inferred dtypes and shapes and
// hold finite values. (The per-kernel tests check the values themselves
// against naive references.)
func TestExamplesRun(t *testing.T) {
	cov := Coverage()
	for _, def := range canon.Ops() {
		if !cov[def.Kind].Handled {
			continue
		}
		t.Run(def.Kind, func(t *testing.T) {
			g, err := def.ExampleGraph()
			if err != nil {
				t.Fatal(err)
			}
			inputs := map[string]*canon.Tensor{}
			for k, in := range g.Inputs {
				inputs[in.Name] = exampleInput(t, in, k)
			}
			outs, err := runAny(g, inputs)
			if err != nil {
				t.Fatal(err)
			}
			for _, o := range g.Outputs {
				got := outs[o.Name]
				if !o.IsTensor() {
					// A sequence's or an optional's tensors: their dims are
					// checked where inference knows them.
					got = outs[o.Name+"[0]"]
					if o.Kind == canon.OptionalTensor {
						got = outs[o.Name+"?"]
					}
					if got == nil {
						continue // an empty sequence
					}
				}
				if got == nil {
					t.Fatalf("output %s missing", o.Name)
				}
				// A data-dependent length (NonZero, Unique) is a named
				// symbolic dim; every other dim must be known and match.
				ok := (o.RankKnown || !o.IsTensor()) && (!o.RankKnown || len(got.Shape) == len(o.Shape))
				for i := 0; ok && o.RankKnown && i < len(o.Shape); i++ {
					d := o.Shape[i]
					ok = (d.Known() && d.Size == got.Shape[i]) || (!d.Known() && (d.Param != "" || !o.IsTensor()))
				}
				if got.DType != o.DType || !ok {
					t.Fatalf("output %s is %s%v, inferred %s%v", o.Name, got.DType, got.Shape, o.DType, o.Shape)
				}
				if got.DType == canon.String {
					if err := got.CheckData(); err != nil {
						t.Fatalf("output %s: %v", o.Name, err)
					}
					continue
				}
				vals, err := got.Float64s()
				if err != nil {
					t.Fatalf("output %s: %v", o.Name, err)
				}
				for i, v := range vals {
					if math.IsNaN(v) || math.IsInf(v, 0) {
						t.Fatalf("output %s element %d is %v", o.Name, i, v)
					}
				}
			}
		})
	}
}

// exampleInput is a deterministic tensor for graph input in: values in
// [-2, 2] for floats (both signs, so activations see both branches), small
// non-negative integers otherwise.
func exampleInput(t *testing.T, in canon.ValueInfo, k int) *canon.Tensor {
	t.Helper()
	shape, ok := in.StaticShape()
	if !ok {
		t.Fatalf("example input %s has no static shape", in.Name)
	}
	n := int(canon.NumElements(shape))
	switch in.DType {
	case canon.Float32:
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(2 * math.Sin(float64(i)*0.37+float64(k)+0.1))
		}
		return canon.NewFloat32Tensor(in.Name, shape, v)
	case canon.Int64:
		v := make([]int64, n)
		for i := range v {
			v[i] = int64(i % 3)
		}
		return canon.NewInt64Tensor(in.Name, shape, v)
	}
	t.Fatalf("example input %s has dtype %s; teach exampleInput to make one", in.Name, in.DType)
	return nil
}
